//! `vigil report --sarif`: vigil's JSON Lines reports as one SARIF 2.1.0 log.
//!
//! Every line of the input is one of
//!
//! * an assertion violation written by libvigil to `VIGIL_REPORT`
//!   (`{"assertion":"file.c:L:C","text":…,"reason":…,"backtrace":[…],…}`);
//! * an automaton violation of `vigil check --json`, `vigil collect --check
//!   --json`, `vigil monitor --json` or an in-process monitor (libvigil's
//!   `VIGIL_REPORT`): one shape for all four
//!   (`{"type":"violation","engine":…,"model":…,…}`, its core keys first,
//!   then the engine's extras: `trace`/`line`/`text`, `stream`/`tseq`,
//!   `stack`/`user_stack`/`render`, `backtrace`), or a `{"type":"summary",…}`
//!   line, skipped;
//! * an in-process monitor violation as libvigil wrote it before the shared
//!   shape (the assertion's keys plus `"kind":"monitor","monitor":…`), so
//!   that stored reports still convert.
//!
//! Blank lines are skipped.  Anything else is an error naming `FILE:LINE`,
//! and no SARIF at all is produced: a CI job gets a complete log or none.
//!
//! The mapping (docs/integration.md, "Reports as SARIF", has the table): one rule per assertion
//! (`assertion/<file:line:col>`) or per monitor (`monitor/<name>`), one
//! result per violation with level `error`, the assertion's source position
//! (or the binding rule, or the trace line) as its location, every other
//! input field in the result's property bag, and each backtrace both as a
//! SARIF `stack` (innermost frame first) and as a code flow (one thread flow
//! location per frame, outermost first).  Frames are libvigil's
//! `backtrace_symbols` strings (`prog(func+0x48) [0x5555…]`) or objects
//! `{"function","file","line","column","module","offset","address"}`
//! (`vigil monitor`'s `{"sym","addr"}` too).

use std::collections::HashMap;
use std::fmt;
use std::io::BufRead;

use serde_json::{json, Map, Value};

/// The schema the output names in `$schema`.
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// A line that is not a vigil report (or input that cannot be read), with
/// where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertError {
    /// The input's name as given (`-` is shown as `<stdin>`).
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for ConvertError {}

/// Convert a whole JSON Lines report; `name` is used in error messages.
pub fn convert(name: &str, input: &mut dyn BufRead) -> Result<Value, ConvertError> {
    let shown = if name == "-" { "<stdin>" } else { name };
    let err = |line: usize, message: String| ConvertError {
        file: shown.to_string(),
        line,
        message,
    };
    let mut log = Log::default();
    let mut buf = Vec::new();
    let mut lineno = 0usize;
    loop {
        buf.clear();
        let n = input
            .read_until(b'\n', &mut buf)
            .map_err(|e| err(lineno + 1, format!("cannot read: {e}")))?;
        if n == 0 {
            break;
        }
        lineno += 1;
        // libvigil copies the bytes of names and values as they are; a
        // stray non-UTF-8 byte must not make the whole report unreadable.
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        log.add_line(text).map_err(|m| err(lineno, m))?;
    }
    Ok(log.into_sarif())
}

/// Convert a report held in memory (tests, small inputs).
pub fn convert_str(name: &str, text: &str) -> Result<Value, ConvertError> {
    convert(name, &mut text.as_bytes())
}

#[derive(Default)]
struct Log {
    rules: Vec<Value>,
    rule_index: HashMap<String, usize>,
    results: Vec<Value>,
}

/// A rule: its id and short description.
struct Rule {
    id: String,
    short: String,
    full: Option<String>,
}

impl Log {
    fn add_line(&mut self, text: &str) -> Result<(), String> {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            format!(
                "malformed JSON at column {}: {}",
                e.column(),
                strip_position(&e.to_string())
            )
        })?;
        let Value::Object(obj) = value else {
            return Err(format!(
                "expected a JSON object (one vigil report per line), found {}",
                kind_of(&value)
            ));
        };
        let converted = if let Some(t) = obj.get("type") {
            match t.as_str() {
                Some("summary") => return Ok(()),
                Some("violation") if obj.contains_key("engine") => automaton_violation(&obj)?,
                Some("violation") => {
                    return Err(
                        "a \"violation\" line without \"engine\" (vigil check, collect --check and monitor \
                         write it; an older vigil's report?)"
                            .into(),
                    )
                }
                _ => return Err(format!("unknown report type {t}")),
            }
        } else if obj.contains_key("assertion") {
            if obj.get("kind").and_then(Value::as_str) == Some("monitor") {
                monitor_violation(&obj)?
            } else {
                assertion_violation(&obj)?
            }
        } else {
            return Err(
                "not a vigil report: expected a VIGIL_REPORT line (with \"assertion\") \
                        or a `vigil check --json` / `vigil monitor --json` line (with \"type\")"
                    .into(),
            );
        };
        let (rule, mut result) = converted;
        let index = match self.rule_index.get(&rule.id) {
            Some(&i) => i,
            None => {
                let i = self.rules.len();
                let mut r = json!({
                    "id": rule.id,
                    "shortDescription": {"text": nonempty(&rule.short, &rule.id)},
                    "defaultConfiguration": {"level": "error"},
                });
                if let Some(full) = rule.full.filter(|f| !f.is_empty()) {
                    r["fullDescription"] = json!({ "text": full });
                }
                self.rules.push(r);
                self.rule_index.insert(rule.id.clone(), i);
                i
            }
        };
        result["ruleId"] = json!(rule.id);
        result["ruleIndex"] = json!(index);
        result["level"] = json!("error");
        let mut props = obj.clone();
        for k in ["backtrace", "stack", "user_stack"] {
            props.remove(k);
        }
        result["properties"] = Value::Object(props);
        self.results.push(result);
        Ok(())
    }

    fn into_sarif(self) -> Value {
        sarif_log(self.rules, self.results)
    }
}

/// A SARIF 2.1.0 log of one vigil run: its rules and results.
pub fn sarif_log(rules: Vec<Value>, results: Vec<Value>) -> Value {
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "vigil",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

/// serde_json's messages end in " at line 1 column N"; we say where ourselves.
fn strip_position(msg: &str) -> &str {
    match msg.rfind(" at line ") {
        Some(i) => &msg[..i],
        None => msg,
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn nonempty<'a>(s: &'a str, otherwise: &'a str) -> &'a str {
    if s.is_empty() {
        otherwise
    } else {
        s
    }
}

fn req_str<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!(
            "\"{key}\" must be a string, found {}",
            kind_of(other)
        )),
        None => Err(format!("missing \"{key}\"")),
    }
}

/// An optional string member; absent and null read as "".
fn opt_str<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(""),
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!(
            "\"{key}\" must be a string, found {}",
            kind_of(other)
        )),
    }
}

/// A positive integer member (line and column numbers), if present.
fn opt_pos(obj: &Map<String, Value>, key: &str) -> Result<Option<u64>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(0) => Ok(None),
            Some(n) => Ok(Some(n)),
            None => Err(format!(
                "\"{key}\" must be a non-negative integer, found {v}"
            )),
        },
    }
}

/// `file:line:col` or `file:line` (1-based), as the runtime writes an
/// assertion's location and the checker a binding rule's.
pub fn parse_location(s: &str) -> Option<(&str, u64, Option<u64>)> {
    let num = |t: &str| {
        if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            t.parse::<u64>().ok().filter(|&n| n > 0)
        } else {
            None
        }
    };
    let (rest, last) = s.rsplit_once(':')?;
    let last = num(last)?;
    if let Some((file, line)) = rest.rsplit_once(':') {
        if let Some(line) = num(line) {
            if !file.is_empty() {
                return Some((file, line, Some(last)));
            }
        }
    }
    if rest.is_empty() {
        return None;
    }
    Some((rest, last, None))
}

/// A path as a URI reference: absolute paths become `file://` URIs,
/// relative ones stay relative (to wherever the tool was run); anything
/// not safe in a URI path is percent-encoded.
pub fn path_uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 8);
    if path.starts_with('/') {
        out.push_str("file://");
    }
    for &b in path.as_bytes() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'/' | b'-' | b'.' | b'_' | b'~' | b'+' | b',' | b'=' | b'@'
            );
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn physical(file: &str, line: Option<u64>, column: Option<u64>) -> Value {
    let mut p = json!({ "artifactLocation": { "uri": path_uri(file) } });
    if let Some(line) = line {
        let mut region = json!({ "startLine": line });
        if let Some(col) = column {
            region["startColumn"] = json!(col);
        }
        p["region"] = region;
    }
    p
}

/// "explanation (reason)" then the non-empty `label: value` lines.
fn message(head: String, lines: &[(&str, &str)]) -> Value {
    let mut text = head;
    for (label, value) in lines {
        if !value.is_empty() {
            text.push_str(&format!("\n{label}: {value}"));
        }
    }
    json!({ "text": text })
}

fn explained(obj: &Map<String, Value>) -> Result<String, String> {
    let reason = req_str(obj, "reason")?;
    let explanation = opt_str(obj, "explanation")?;
    Ok(if explanation.is_empty() {
        reason.to_string()
    } else {
        format!("{explanation} ({reason})")
    })
}

fn thread_label(obj: &Map<String, Value>) -> Option<String> {
    let tid = obj.get("thread").and_then(Value::as_i64)?;
    match obj.get("thread_name").and_then(Value::as_str) {
        Some(n) if !n.is_empty() => Some(format!("thread {tid} ({n})")),
        _ => Some(format!("thread {tid}")),
    }
}

/// libvigil: an assertion's violation.
fn assertion_violation(obj: &Map<String, Value>) -> Result<(Rule, Value), String> {
    let assertion = req_str(obj, "assertion")?;
    let text = opt_str(obj, "text")?;
    let mut head = explained(obj)?;
    head = format!("assertion failed: {head}");
    let mut lines = vec![
        ("event", opt_str(obj, "event")?.to_string()),
        ("values", opt_str(obj, "values")?.to_string()),
        ("allowed", opt_str(obj, "allowed")?.to_string()),
    ];
    if let Some(alts) = obj.get("alternatives") {
        let alts = alts
            .as_array()
            .ok_or_else(|| format!("\"alternatives\" must be an array, found {}", kind_of(alts)))?;
        for a in alts {
            let a = a
                .as_object()
                .ok_or_else(|| "each of \"alternatives\" must be an object".to_string())?;
            let n = a
                .get("alternative")
                .map(|v| v.to_string())
                .unwrap_or_default();
            let reason = opt_str(a, "reason")?;
            let event = opt_str(a, "event")?;
            let line = if event.is_empty() {
                reason.to_string()
            } else {
                format!("{reason} ({event})")
            };
            lines.push(("alternative", format!("{n}: {line}")));
        }
    }
    let borrowed: Vec<(&str, &str)> = lines.iter().map(|(l, v)| (*l, v.as_str())).collect();
    let mut result = json!({ "message": message(head, &borrowed) });
    match parse_location(assertion) {
        Some((file, line, col)) => {
            result["locations"] = json!([{ "physicalLocation": physical(file, Some(line), col) }]);
        }
        None => {
            result["locations"] = json!([{ "message": { "text": assertion } }]);
        }
    }
    add_stack(
        &mut result,
        obj,
        "backtrace",
        "backtrace",
        thread_label(obj),
    )?;
    Ok((
        Rule {
            id: format!("assertion/{assertion}"),
            short: text.to_string(),
            full: None,
        },
        result,
    ))
}

/// libvigil before the shared shape: a monitor on C functions.
fn monitor_violation(obj: &Map<String, Value>) -> Result<(Rule, Value), String> {
    let monitor = req_str(obj, "monitor")?;
    let binding = opt_str(obj, "binding")?;
    let head = format!("monitor violation: {}", explained(obj)?);
    let result_msg = message(
        head,
        &[
            ("event", opt_str(obj, "event")?),
            ("state", opt_str(obj, "state")?),
            ("values", opt_str(obj, "values")?),
            ("allowed", opt_str(obj, "allowed")?),
            ("picture", opt_str(obj, "render")?),
        ],
    );
    let mut result = json!({ "message": result_msg });
    if !binding.is_empty() {
        let line = opt_pos(obj, "rule_line")?;
        result["locations"] = json!([{ "physicalLocation": physical(binding, line, None) }]);
    }
    add_stack(
        &mut result,
        obj,
        "backtrace",
        "backtrace",
        thread_label(obj),
    )?;
    Ok((
        Rule {
            id: format!("monitor/{monitor}"),
            short: format!("monitor {monitor}"),
            full: Some(opt_str(obj, "text")?.to_string()),
        },
        result,
    ))
}

fn list(obj: &Map<String, Value>, key: &str) -> Result<String, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::Array(a)) => {
            let mut words = Vec::new();
            for v in a {
                words.push(
                    v.as_str()
                        .ok_or_else(|| format!("\"{key}\" must be an array of strings"))?
                        .to_string(),
                );
            }
            Ok(if words.is_empty() {
                "(none)".into()
            } else {
                words.join(" ")
            })
        }
        Some(other) => Err(format!(
            "\"{key}\" must be an array, found {}",
            kind_of(other)
        )),
    }
}

fn violation_head(obj: &Map<String, Value>, name: &str) -> Result<String, String> {
    let state = req_str(obj, "state")?;
    let event = opt_str(obj, "event")?;
    Ok(match opt_str(obj, "kind")? {
        "not-final" => format!("{name}: instance forgotten in non-final state {state}"),
        "guard" => format!("{name}: guard false for event {event} in state {state}"),
        "invariant" => format!("{name}: invariant of state {state} expired"),
        "ltl" => format!("{name}: the property does not hold after {event} (the automaton was in {state})"),
        _ => format!("{name}: event {event} not allowed in state {state}"),
    })
}

/// A JSON number or string member as text ("" when absent or null).
fn scalar(obj: &Map<String, Value>, key: &str) -> String {
    match obj.get(key) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}

/// An automaton violation of any engine (`vigil check --json`, `vigil
/// collect --check --json`, `vigil monitor --json`): the core keys every
/// engine writes (docs/integration.md, "Automaton violations (all
/// engines)"), and the engine's extras where it has them (`trace`/`line`/
/// `text` offline; `stack`/`user_stack`/`render` in the kernel).
fn automaton_violation(obj: &Map<String, Value>) -> Result<(Rule, Value), String> {
    let model = req_str(obj, "model")?;
    let rule = opt_str(obj, "rule")?;
    let trace = opt_str(obj, "trace")?;
    let (comm, pid, cpu) = (scalar(obj, "comm"), scalar(obj, "pid"), scalar(obj, "cpu"));
    let mut task = match (comm.is_empty(), pid.is_empty()) {
        (_, true) => String::new(),
        (true, false) => format!("thread {pid}"),
        (false, false) => format!("{comm}-{pid}"),
    };
    if !task.is_empty() && !cpu.is_empty() {
        task.push_str(&format!(" on cpu {cpu}"));
    }
    let key = match obj.get("key") {
        None | Some(Value::Null) => String::new(),
        Some(Value::Object(k)) => match (scalar(k, "field"), scalar(k, "value")) {
            (f, v) if f.is_empty() => v,
            (f, v) => format!("{f}={v}"),
        },
        Some(other) => {
            return Err(format!(
                "\"key\" must be an object {{\"field\",\"value\"}} or null, found {}",
                kind_of(other)
            ))
        }
    };
    let scope = opt_str(obj, "scope")?;
    let instance = if key.is_empty() {
        scope.to_string()
    } else {
        format!("{scope} {key}")
    };
    let msg = message(
        violation_head(obj, model)?,
        &[
            ("task", &task),
            ("instance", &instance),
            ("allowed", &list(obj, "allowed")?),
            ("final", &list(obj, "final")?),
            ("rule", rule),
            ("source", opt_str(obj, "source")?),
            ("line", opt_str(obj, "text")?),
            ("picture", opt_str(obj, "render")?),
        ],
    );
    let mut result = json!({ "message": msg });
    // Offline, the trace line is where the violation shows (standard input
    // has no file to point at) and the rule is related; live (no trace),
    // the rule is the location.
    let rule_at = parse_location(rule).map(|(file, line, col)| physical(file, Some(line), col));
    if trace.is_empty() {
        if let Some(p) = rule_at {
            result["locations"] = json!([{ "physicalLocation": p }]);
        }
    } else {
        let no_file = trace == "-" || (trace.starts_with('<') && trace.ends_with('>'));
        if !no_file {
            let line = opt_pos(obj, "line")?;
            result["locations"] = json!([{ "physicalLocation": physical(trace, line, None) }]);
        }
        if let Some(p) = rule_at {
            result["relatedLocations"] = json!([{
                "id": 1,
                "physicalLocation": p,
                "message": {"text": "the binding rule that fired"},
            }]);
        }
    }
    let thread = obj
        .get("pid")
        .and_then(Value::as_i64)
        .map(|p| format!("task {p}"));
    add_stack(&mut result, obj, "stack", "kernel stack", thread.clone())?;
    add_stack(&mut result, obj, "user_stack", "user stack", thread.clone())?;
    add_stack(&mut result, obj, "backtrace", "backtrace", thread)?;
    Ok((
        Rule {
            id: format!("monitor/{model}"),
            short: format!("automaton model {model}"),
            full: None,
        },
        result,
    ))
}

/// One frame of a backtrace.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Frame {
    pub function: String,
    pub file: String,
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub module: String,
    pub offset: String,
    pub address: String,
    /// The frame as the input showed it (strings), or a rendering.
    pub text: String,
}

/// `backtrace_symbols` form: `module(function+offset) [address]`, where
/// function, offset and the parenthesised part may be missing.
pub fn parse_frame_string(s: &str) -> Frame {
    let mut f = Frame {
        text: s.to_string(),
        ..Frame::default()
    };
    let mut rest = s.trim();
    if let Some(open) = rest.rfind(" [") {
        if rest.ends_with(']') {
            f.address = rest[open + 2..rest.len() - 1].to_string();
            rest = rest[..open].trim_end();
        }
    }
    if rest.ends_with(')') {
        if let Some(open) = rest.rfind('(') {
            let inner = &rest[open + 1..rest.len() - 1];
            f.module = rest[..open].to_string();
            match inner.rfind('+') {
                Some(p) => {
                    f.function = inner[..p].to_string();
                    f.offset = inner[p..].to_string();
                }
                None => f.function = inner.to_string(),
            }
            return f;
        }
    }
    f.module = rest.to_string();
    f
}

fn frame_from_object(o: &Map<String, Value>) -> Result<Frame, String> {
    let s = |a: &str, b: &str| -> Result<String, String> {
        let v = opt_str(o, a)?;
        Ok(if v.is_empty() {
            opt_str(o, b)?.to_string()
        } else {
            v.to_string()
        })
    };
    // Addresses and offsets may come as numbers too.
    let num_or_str = |k: &str| -> Result<String, String> {
        match o.get(k) {
            Some(Value::Number(n)) => Ok(n
                .as_u64()
                .map(|n| format!("{n:#x}"))
                .unwrap_or_else(|| n.to_string())),
            _ => Ok(opt_str(o, k)?.to_string()),
        }
    };
    let mut f = Frame {
        function: s("function", "sym")?,
        file: opt_str(o, "file")?.to_string(),
        line: opt_pos(o, "line")?,
        column: opt_pos(o, "column")?,
        module: opt_str(o, "module")?.to_string(),
        offset: num_or_str("offset")?,
        address: {
            let a = num_or_str("address")?;
            if a.is_empty() {
                num_or_str("addr")?
            } else {
                a
            }
        },
        text: String::new(),
    };
    let mut text = nonempty(&f.function, "??").to_string();
    if !f.file.is_empty() {
        text.push_str(&format!(" at {}", f.file));
        if let Some(l) = f.line {
            text.push_str(&format!(":{l}"));
            if let Some(c) = f.column {
                text.push_str(&format!(":{c}"));
            }
        }
    }
    if o.get("inlined").and_then(Value::as_bool) == Some(true) {
        text.push_str(" (inlined)");
    }
    if !f.module.is_empty() {
        let sep = if f.offset.is_empty() || f.offset.starts_with('+') {
            ""
        } else {
            "+"
        };
        text.push_str(&format!(" in {}{sep}{}", f.module, f.offset));
    }
    if !f.address.is_empty() {
        text.push_str(&format!(" [{}]", f.address));
    }
    f.text = text;
    Ok(f)
}

fn frame_location(f: &Frame) -> Value {
    let mut loc = json!({ "message": { "text": f.text } });
    if !f.file.is_empty() {
        loc["physicalLocation"] = physical(&f.file, f.line, f.column);
    }
    if !f.function.is_empty() {
        loc["logicalLocations"] = json!([{ "name": f.function, "kind": "function" }]);
    }
    let mut props = Map::new();
    for (k, v) in [
        ("module", &f.module),
        ("offset", &f.offset),
        ("address", &f.address),
    ] {
        if !v.is_empty() {
            props.insert(k.into(), json!(v));
        }
    }
    if !props.is_empty() {
        loc["properties"] = Value::Object(props);
    }
    loc
}

/// The stack in `obj[key]` (innermost frame first) as a SARIF `stack`
/// and as a code flow in execution order (outermost frame first).
fn add_stack(
    result: &mut Value,
    obj: &Map<String, Value>,
    key: &str,
    what: &str,
    thread: Option<String>,
) -> Result<(), String> {
    let frames = match obj.get(key) {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(a)) => a,
        Some(other) => {
            return Err(format!(
                "\"{key}\" must be an array, found {}",
                kind_of(other)
            ))
        }
    };
    let mut parsed = Vec::with_capacity(frames.len());
    for (i, f) in frames.iter().enumerate() {
        parsed.push(match f {
            Value::String(s) => parse_frame_string(s),
            Value::Object(o) => {
                frame_from_object(o).map_err(|m| format!("{key} frame {i}: {m}"))?
            }
            other => {
                return Err(format!(
                    "{key} frame {i} must be a string or an object, found {}",
                    kind_of(other)
                ))
            }
        });
    }
    if parsed.is_empty() {
        return Ok(());
    }
    let label = match &thread {
        Some(t) => format!("{what} of {t}"),
        None => what.to_string(),
    };
    let thread_id = obj.get("thread").and_then(Value::as_i64);
    let stack_frames: Vec<Value> = parsed
        .iter()
        .map(|f| {
            let mut sf = json!({ "location": frame_location(f) });
            if !f.module.is_empty() {
                sf["module"] = json!(f.module);
            }
            if let Some(t) = thread_id {
                sf["threadId"] = json!(t);
            }
            sf
        })
        .collect();
    let depth = parsed.len();
    let flow: Vec<Value> = parsed
        .iter()
        .rev()
        .enumerate()
        .map(|(i, f)| {
            json!({
                "location": frame_location(f),
                "nestingLevel": i,
                "executionOrder": i + 1,
                "importance": if i + 1 == depth { "essential" } else { "important" },
            })
        })
        .collect();
    let r = result.as_object_mut().expect("a result is an object");
    r.entry("stacks")
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .expect("stacks is an array")
        .push(json!({ "message": { "text": label }, "frames": stack_frames }));
    r.entry("codeFlows")
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .expect("codeFlows is an array")
        .push(json!({
            "message": { "text": label },
            "threadFlows": [{ "message": { "text": label }, "locations": flow }],
        }));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASSERTION: &str = r#"{"assertion":"demo.c:63:3","text":"TESLA_WITHIN(do_syscall, previously(mac_check(c, f) == 0))","reason":"missing-before-site","explanation":"required event mac_check(c, f) == 0 did not happen before the assertion site","event":"mac_check(c, f) == 0","values":"c = 0x7ffe2343e320, f = 0x7ffe2343e3c0, return value = 0","allowed":"mac_check(c, f) == 0","thread":12806,"thread_name":"demo","pid":12806,"backtrace":["/tmp/demo(do_syscall+0xde) [0x5585d0ed237e]","/tmp/demo(main+0x1b7) [0x5585d0ed2737]","/lib/x86_64-linux-gnu/libc.so.6(+0x2724a) [0x7f48c5b9b24a]"]}"#;

    const MONITOR: &str = r#"{"assertion":"mutex (/work/examples/mutex/mutex.bind)","text":"model mutex (/work/models/mutex.dot), scope object","reason":"monitor-invalid-event","explanation":"event lock is not allowed in state locked","event":"lock <- return:pthread_mutex_lock key=arg0 if ret == 35 (mutex.bind:17)","values":"key = 0x7ffca7260a20","allowed":"unlock","kind":"monitor","monitor":"mutex","binding":"/work/examples/mutex/mutex.bind","model":"/work/models/mutex.dot","scope":"object","state":"locked","key":"0x7ffca7260a20","source":"return:pthread_mutex_lock","rule_line":17,"render":"vigil render /work/models/mutex.dot --highlight locked:lock","thread":20379,"thread_name":"main-thread","pid":20379,"backtrace":["/tmp/t(relock+0x73) [0x565315754533]","/tmp/t(main+0x26b) [0x5653157547eb]"]}"#;

    const CHECK: &str = r#"{"type":"violation","engine":"offline","model":"wwnr","kind":"event","state":"running","event":"wakeup","allowed":["switch_out"],"scope":"task","key":{"field":"pid","value":1234},"rule":"/repo/models/wwnr.bind:9","source":"tp:sched_wakeup","time_ns":5453816000000,"pid":77,"tgid":null,"cpu":1,"comm":"kworker/1:0","trace":"inputs/wakeup-running.trace","line":6,"timestamp":"5453.816000","text":"kworker/1:0-77 [001] d..3. 5453.816000: sched_wakeup: comm=bash pid=1234"}
{"type":"summary","model":"wwnr","trace":"inputs/wakeup-running.trace","lines":10,"events":8,"matched":8,"violations":1,"instances":2,"instances_live":0,"lost_markers":0,"lost_events":0,"malformed":0,"elapsed_s":0.000100,"events_per_s":80000}"#;

    fn run(v: &Value) -> &Value {
        &v["runs"][0]
    }

    #[test]
    fn assertion_report() {
        let v = convert_str("r.jsonl", ASSERTION).unwrap();
        assert_eq!(v["version"], "2.1.0");
        assert_eq!(v["$schema"], SCHEMA_URI);
        let run = run(&v);
        assert_eq!(run["tool"]["driver"]["name"], "vigil");
        assert_eq!(run["tool"]["driver"]["version"], env!("CARGO_PKG_VERSION"));
        let rule = &run["tool"]["driver"]["rules"][0];
        assert_eq!(rule["id"], "assertion/demo.c:63:3");
        assert_eq!(
            rule["shortDescription"]["text"],
            "TESLA_WITHIN(do_syscall, previously(mac_check(c, f) == 0))"
        );
        let r = &run["results"][0];
        assert_eq!(r["ruleId"], "assertion/demo.c:63:3");
        assert_eq!(r["ruleIndex"], 0);
        assert_eq!(r["level"], "error");
        let text = r["message"]["text"].as_str().unwrap();
        assert!(text.starts_with("assertion failed: required event mac_check(c, f) == 0 did not happen before the assertion site (missing-before-site)\n"), "{text}");
        assert!(text.contains("\nvalues: c = 0x7ffe2343e320"), "{text}");
        let pl = &r["locations"][0]["physicalLocation"];
        assert_eq!(pl["artifactLocation"]["uri"], "demo.c");
        assert_eq!(pl["region"]["startLine"], 63);
        assert_eq!(pl["region"]["startColumn"], 3);
        // Code flow: outermost first, one location per frame.
        let flow = &r["codeFlows"][0]["threadFlows"][0]["locations"];
        assert_eq!(flow.as_array().unwrap().len(), 3);
        assert_eq!(flow[0]["nestingLevel"], 0);
        assert_eq!(
            flow[0]["location"]["properties"]["module"],
            "/lib/x86_64-linux-gnu/libc.so.6"
        );
        assert!(flow[0]["location"].get("logicalLocations").is_none());
        assert_eq!(
            flow[2]["location"]["logicalLocations"][0]["name"],
            "do_syscall"
        );
        assert_eq!(flow[2]["location"]["properties"]["offset"], "+0xde");
        assert_eq!(
            flow[2]["location"]["properties"]["address"],
            "0x5585d0ed237e"
        );
        // Stack: innermost first.
        let st = &r["stacks"][0];
        assert_eq!(st["message"]["text"], "backtrace of thread 12806 (demo)");
        assert_eq!(
            st["frames"][0]["location"]["logicalLocations"][0]["name"],
            "do_syscall"
        );
        assert_eq!(st["frames"][0]["module"], "/tmp/demo");
        assert_eq!(st["frames"][0]["threadId"], 12806);
        // The rest goes to the property bag.
        assert_eq!(r["properties"]["reason"], "missing-before-site");
        assert_eq!(r["properties"]["pid"], 12806);
        assert!(r["properties"].get("backtrace").is_none());
    }

    #[test]
    fn same_assertion_one_rule() {
        let two = format!("{ASSERTION}\n\n{ASSERTION}\n");
        let v = convert_str("r", &two).unwrap();
        assert_eq!(
            run(&v)["tool"]["driver"]["rules"].as_array().unwrap().len(),
            1
        );
        assert_eq!(run(&v)["results"].as_array().unwrap().len(), 2);
        assert_eq!(run(&v)["results"][1]["ruleIndex"], 0);
    }

    #[test]
    fn alternatives_are_listed() {
        let line = r#"{"assertion":"or.c:18:3","text":"T","reason":"no-alternative-held","explanation":"no alternative of the assertion held","event":"","values":"","allowed":"","alternatives":[{"alternative":1,"reason":"missing-before-site","event":"call(cached)"},{"alternative":2,"reason":"missing-before-site","event":"call(fetched)"}],"thread":1,"thread_name":"t","pid":1,"backtrace":[]}"#;
        let v = convert_str("r", line).unwrap();
        let r = &run(&v)["results"][0];
        let text = r["message"]["text"].as_str().unwrap();
        assert!(
            text.contains("\nalternative: 2: missing-before-site (call(fetched))"),
            "{text}"
        );
        assert!(
            r.get("codeFlows").is_none(),
            "an empty backtrace has no code flow"
        );
        assert_eq!(r["properties"]["alternatives"][0]["alternative"], 1);
    }

    #[test]
    fn structured_frames() {
        let line = r#"{"assertion":"/src/my file.c:10:5","text":"T","reason":"wrong-order","explanation":"","backtrace":[{"function":"f","file":"/src/my file.c","line":10,"column":5,"module":"prog","offset":"0x48","address":"0x1234"},{"function":"main","file":"main.c","line":3,"column":0,"inlined":true},{"module":"libc.so.6","address":4096}]}"#;
        let v = convert_str("r", line).unwrap();
        let r = &run(&v)["results"][0];
        assert_eq!(r["message"]["text"], "assertion failed: wrong-order");
        assert_eq!(
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "file:///src/my%20file.c"
        );
        let frames = &r["stacks"][0]["frames"];
        let f0 = &frames[0]["location"];
        assert_eq!(f0["physicalLocation"]["region"]["startLine"], 10);
        assert_eq!(f0["physicalLocation"]["region"]["startColumn"], 5);
        assert_eq!(f0["logicalLocations"][0]["name"], "f");
        assert_eq!(
            f0["message"]["text"],
            "f at /src/my file.c:10:5 in prog+0x48 [0x1234]"
        );
        assert_eq!(
            frames[1]["location"]["physicalLocation"]["artifactLocation"]["uri"],
            "main.c"
        );
        assert!(frames[1]["location"]["physicalLocation"]["region"]
            .get("startColumn")
            .is_none());
        assert_eq!(
            frames[1]["location"]["message"]["text"],
            "main at main.c:3 (inlined)"
        );
        assert_eq!(frames[2]["location"]["properties"]["address"], "0x1000");
        assert!(frames[2]["location"].get("physicalLocation").is_none());
        let flow = &r["codeFlows"][0]["threadFlows"][0]["locations"];
        assert_eq!(flow[2]["location"]["logicalLocations"][0]["name"], "f");
        assert_eq!(flow[2]["importance"], "essential");
    }

    #[test]
    fn monitor_report() {
        let v = convert_str("r", MONITOR).unwrap();
        let run = run(&v);
        let rule = &run["tool"]["driver"]["rules"][0];
        assert_eq!(rule["id"], "monitor/mutex");
        assert_eq!(
            rule["fullDescription"]["text"],
            "model mutex (/work/models/mutex.dot), scope object"
        );
        let r = &run["results"][0];
        assert_eq!(r["ruleId"], "monitor/mutex");
        let text = r["message"]["text"].as_str().unwrap();
        assert!(text.starts_with("monitor violation: event lock is not allowed in state locked (monitor-invalid-event)\n"), "{text}");
        assert!(text.contains("\nstate: locked\n"), "{text}");
        let pl = &r["locations"][0]["physicalLocation"];
        assert_eq!(
            pl["artifactLocation"]["uri"],
            "file:///work/examples/mutex/mutex.bind"
        );
        assert_eq!(pl["region"]["startLine"], 17);
        assert_eq!(
            r["codeFlows"][0]["threadFlows"][0]["locations"][1]["location"]["logicalLocations"][0]
                ["name"],
            "relock"
        );
        assert_eq!(r["properties"]["state"], "locked");
    }

    #[test]
    fn check_report() {
        let v = convert_str("r", CHECK).unwrap();
        let run = run(&v);
        assert_eq!(
            run["results"].as_array().unwrap().len(),
            1,
            "the summary is no result"
        );
        assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "monitor/wwnr");
        let r = &run["results"][0];
        let text = r["message"]["text"].as_str().unwrap();
        assert!(
            text.starts_with("wwnr: event wakeup not allowed in state running\n"),
            "{text}"
        );
        assert!(text.contains("\ntask: kworker/1:0-77 on cpu 1\n"), "{text}");
        assert!(text.contains("\ninstance: task pid=1234\n"), "{text}");
        let pl = &r["locations"][0]["physicalLocation"];
        assert_eq!(pl["artifactLocation"]["uri"], "inputs/wakeup-running.trace");
        assert_eq!(pl["region"]["startLine"], 6);
        let rel = &r["relatedLocations"][0]["physicalLocation"];
        assert_eq!(
            rel["artifactLocation"]["uri"],
            "file:///repo/models/wwnr.bind"
        );
        assert_eq!(rel["region"]["startLine"], 9);
        assert!(r.get("codeFlows").is_none());
    }

    #[test]
    fn check_not_final_from_stdin() {
        let line = r#"{"type":"violation","engine":"offline","model":"m","kind":"not-final","state":"s","event":"forget","allowed":[],"scope":"global","key":null,"rule":"m.bind:2","source":"tp:sched_switch","time_ns":1000000000,"pid":1,"tgid":null,"cpu":0,"comm":"c","trace":"<stdin>","line":3,"timestamp":"1","final":["f"],"text":"x"}"#;
        let v = convert_str("r", line).unwrap();
        let r = &run(&v)["results"][0];
        let text = r["message"]["text"].as_str().unwrap();
        assert!(
            text.starts_with("m: instance forgotten in non-final state s\n"),
            "{text}"
        );
        assert!(text.contains("\nallowed: (none)\nfinal: f\n"), "{text}");
        assert!(text.contains("\ninstance: global\n"), "{text}");
        assert!(r.get("locations").is_none(), "no file behind <stdin>");
        assert_eq!(
            r["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "m.bind"
        );
    }

    #[test]
    fn bpf_monitor_report() {
        let line = r#"{"type":"violation","engine":"bpf","model":"wwnr","kind":"event","state":"running","event":"wakeup","allowed":["switch_out"],"scope":"task","key":{"field":"pid","value":12},"rule":"/m/wwnr.bind:9","source":"tp:sched_wakeup","time_ns":5,"pid":12,"tgid":12,"cpu":1,"comm":"bash","stack":[{"addr":"0xffffffff81000000","sym":"try_to_wake_up+0x10"}],"user_stack":[],"render":"vigil render wwnr"}"#;
        let v = convert_str("r", line).unwrap();
        let r = &run(&v)["results"][0];
        assert_eq!(r["ruleId"], "monitor/wwnr");
        assert_eq!(
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            9
        );
        assert_eq!(r["codeFlows"].as_array().unwrap().len(), 1);
        let loc = &r["stacks"][0]["frames"][0]["location"];
        assert_eq!(loc["logicalLocations"][0]["name"], "try_to_wake_up+0x10");
        assert_eq!(loc["properties"]["address"], "0xffffffff81000000");
        assert_eq!(r["stacks"][0]["message"]["text"], "kernel stack of task 12");
    }

    #[test]
    fn process_monitor_report() {
        let line = r#"{"type":"violation","engine":"process","model":"mutex","kind":"event","state":"locked","event":"lock","allowed":["unlock"],"scope":"object","key":{"field":"arg0","value":140723452088256},"rule":"/m/mutex.bind:17","source":"return:pthread_mutex_lock","time_ns":616777602179,"pid":7666,"tgid":7666,"cpu":0,"comm":"main-thread","monitor":"mutex","binding":"/m/mutex.bind","model_file":"/m/mutex.dot","reason":"monitor-invalid-event","explanation":"event lock is not allowed in state locked","rule_text":"lock <- return:pthread_mutex_lock key=arg0 if ret == 35","render":"vigil render /m/mutex.dot --highlight locked:lock","backtrace":[{"address":"0x5600","module":"/tmp/t","offset":"0x47762","function":"relock","inlined":false}]}"#;
        let v = convert_str("r", line).unwrap();
        let r = &run(&v)["results"][0];
        assert_eq!(r["ruleId"], "monitor/mutex");
        let text = r["message"]["text"].as_str().unwrap();
        assert!(text.contains("\ntask: main-thread-7666 on cpu 0\n"), "{text}");
        assert!(text.contains("\ninstance: object arg0=140723452088256\n"), "{text}");
        let pl = &r["locations"][0]["physicalLocation"];
        assert_eq!(pl["artifactLocation"]["uri"], "file:///m/mutex.bind");
        assert_eq!(pl["region"]["startLine"], 17);
        let frame = &r["stacks"][0]["frames"][0]["location"];
        assert_eq!(frame["logicalLocations"][0]["name"], "relock");
        assert_eq!(r["stacks"][0]["message"]["text"], "backtrace of task 7666");
        assert_eq!(r["properties"]["reason"], "monitor-invalid-event");
    }

    #[test]
    fn collect_report() {
        let line = r#"{"type":"violation","engine":"collect","model":"mutex","kind":"event","state":"unlocked","event":"unlock","allowed":["lock"],"scope":"object","key":{"field":"arg0","value":2748},"rule":"/m/mutex.bind:7","source":"call:pthread_mutex_unlock","time_ns":5,"pid":11,"tgid":10,"cpu":null,"comm":null,"stream":"s1","program":"t","tseq":3,"stream_event":"entry pthread_mutex_unlock"}"#;
        let v = convert_str("r", line).unwrap();
        let r = &run(&v)["results"][0];
        assert_eq!(r["ruleId"], "monitor/mutex");
        let text = r["message"]["text"].as_str().unwrap();
        assert!(text.contains("\ntask: thread 11\n"), "{text}");
        assert!(text.contains("\ninstance: object arg0=2748\n"), "{text}");
        assert!(text.contains("\nsource: call:pthread_mutex_unlock"), "{text}");
        let pl = &r["locations"][0]["physicalLocation"];
        assert_eq!(pl["artifactLocation"]["uri"], "file:///m/mutex.bind");
        assert_eq!(pl["region"]["startLine"], 7);
        assert_eq!(r["properties"]["tseq"], 3);
    }

    #[test]
    fn empty_input_is_an_empty_run() {
        let v = convert_str("r", "\n  \n").unwrap();
        assert_eq!(run(&v)["results"].as_array().unwrap().len(), 0);
        assert_eq!(
            run(&v)["tool"]["driver"]["rules"].as_array().unwrap().len(),
            0
        );
    }

    fn error(text: &str) -> ConvertError {
        convert_str("in.jsonl", text).unwrap_err()
    }

    #[test]
    fn malformed_json_names_file_and_line() {
        let e = error(&format!("{ASSERTION}\n\n{{\"assertion\": \"a.c:1:1\",\n"));
        assert_eq!(e.file, "in.jsonl");
        assert_eq!(e.line, 3);
        let s = e.to_string();
        assert!(
            s.starts_with("in.jsonl:3: malformed JSON at column "),
            "{s}"
        );
        assert!(!s.contains(" at line "), "{s}");
    }

    #[test]
    fn stdin_is_named() {
        let e = convert_str("-", "nope").unwrap_err();
        assert!(
            e.to_string().starts_with("<stdin>:1: malformed JSON"),
            "{e}"
        );
    }

    #[test]
    fn unknown_shapes_are_errors() {
        let cases = [
            (
                "[1,2]",
                "expected a JSON object (one vigil report per line), found an array",
            ),
            ("42", "found a number"),
            (r#"{"hello":1}"#, "not a vigil report"),
            (r#"{"type":"weird"}"#, "unknown report type \"weird\""),
            (r#"{"type":"violation","state":"s"}"#, "without \"engine\""),
            (
                r#"{"type":"violation","monitor":"wwnr","state":"s","binding":"b:1"}"#,
                "without \"engine\"",
            ),
            (r#"{"type":"violation","engine":"bpf","state":"s"}"#, "missing \"model\""),
            (
                r#"{"type":"violation","engine":"bpf","model":"m","state":"s","key":5}"#,
                "\"key\" must be an object",
            ),
            (
                r#"{"assertion":5,"reason":"x"}"#,
                "\"assertion\" must be a string, found a number",
            ),
            (
                r#"{"assertion":"a.c:1:1","text":"t"}"#,
                "missing \"reason\"",
            ),
            (
                r#"{"assertion":"a.c:1:1","reason":"r","backtrace":"x"}"#,
                "\"backtrace\" must be an array",
            ),
            (
                r#"{"assertion":"a.c:1:1","reason":"r","backtrace":[1]}"#,
                "backtrace frame 0 must be a string or an object, found a number",
            ),
            (
                r#"{"assertion":"a.c:1:1","reason":"r","backtrace":[{"line":"x"}]}"#,
                "backtrace frame 0: \"line\" must be a non-negative integer",
            ),
            (r#"{"type":"violation","engine":"offline","model":"m"}"#, "missing \"state\""),
            (
                r#"{"type":"violation","engine":"offline","model":"m","state":"s","allowed":"x"}"#,
                "\"allowed\" must be an array",
            ),
            (
                r#"{"assertion":"m (b)","kind":"monitor","reason":"r"}"#,
                "missing \"monitor\"",
            ),
        ];
        for (line, want) in cases {
            let e = error(&format!("\n{line}\n"));
            assert_eq!(e.line, 2, "{line}");
            assert!(
                e.message.contains(want),
                "{line}: {} (want {want})",
                e.message
            );
        }
    }

    #[test]
    fn invalid_utf8_is_tolerated() {
        let mut bytes = ASSERTION.as_bytes().to_vec();
        let at = ASSERTION.find("demo\",").unwrap();
        bytes[at] = 0xff;
        let v = convert("r", &mut &bytes[..]).unwrap();
        assert_eq!(
            run(&v)["results"][0]["properties"]["thread_name"],
            "\u{fffd}emo"
        );
    }

    #[test]
    fn locations() {
        assert_eq!(parse_location("demo.c:63:3"), Some(("demo.c", 63, Some(3))));
        assert_eq!(
            parse_location("/a:b/x.c:1:2"),
            Some(("/a:b/x.c", 1, Some(2)))
        );
        assert_eq!(parse_location("m.bind:9"), Some(("m.bind", 9, None)));
        assert_eq!(parse_location("x.c:0:1"), Some(("x.c:0", 1, None)));
        assert_eq!(parse_location("mutex (/x/mutex.bind)"), None);
        assert_eq!(parse_location(":3"), None);
        assert_eq!(parse_location("a.c:"), None);
        assert_eq!(path_uri("src/a b#c.c"), "src/a%20b%23c.c");
        assert_eq!(path_uri("/tmp/é.c"), "file:///tmp/%C3%A9.c");
        assert_eq!(path_uri("c:d.c"), "c%3Ad.c");
    }

    #[test]
    fn frame_strings() {
        let f = parse_frame_string("/p/prog(func+0x48) [0x55d0]");
        assert_eq!(
            (
                f.module.as_str(),
                f.function.as_str(),
                f.offset.as_str(),
                f.address.as_str()
            ),
            ("/p/prog", "func", "+0x48", "0x55d0")
        );
        let f = parse_frame_string("/lib/libc.so.6(+0x2724a) [0x7f48]");
        assert_eq!(
            (f.module.as_str(), f.function.as_str(), f.offset.as_str()),
            ("/lib/libc.so.6", "", "+0x2724a")
        );
        let f = parse_frame_string("prog [0x1]");
        assert_eq!(
            (f.module.as_str(), f.function.as_str(), f.address.as_str()),
            ("prog", "", "0x1")
        );
        let f = parse_frame_string("???");
        assert_eq!(f.module, "???");
        assert_eq!(f.text, "???");
    }
}
