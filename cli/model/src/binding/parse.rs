//! The binding-file parser (grammar in ../binding.rs).
//!
//! A binding is read line by line; `#` starts a comment.  `model` and
//! `scope` lines are read first (they may come anywhere, once each), then
//! every rule is checked against the model, the event-source catalogue and
//! the scope.  The first error stops the parse and carries the file and line.
//!
//! Tokens are separated by whitespace, except in the part of a rule after
//! its source: there operators need no spaces around them, so
//! `if prev_state==S`, `if prev_state == S`, `key=pid` and `key = pid` are
//! all accepted.
use std::path::{Path, PathBuf};

use super::{Const, EnvAlias};

use super::{AtomAction, Binding, Cond, Mode, Op, Rule, RuleEvent, Scope, Source};
use crate::sources;
use crate::{Diagnostic, Model};

/// The `model` and `scope` lines of a binding.
struct Header {
    model: Option<(PathBuf, u32)>,
    scope: Option<(Scope, u32)>,
    at_exit: Option<(bool, u32)>,
    consts: Vec<Const>,
    hz: Option<(i64, u32)>,
    envs: Vec<EnvAlias>,
}

/// The text of a line without its comment.
fn strip_comment(line: &str) -> &str {
    match line.find('#') {
        Some(i) => &line[..i],
        None => line,
    }
}

/// Numbered (1-based) lines without comments, skipping blank ones.
fn lines(text: &str) -> impl Iterator<Item = (u32, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i as u32 + 1, strip_comment(l).trim()))
        .filter(|(_, l)| !l.is_empty())
}

fn is_rule(line: &str) -> bool {
    line.contains("<-")
}

const SCOPES: &str = "global, cpu, task, thread or object";

/// Read the `model` and `scope` lines; `want_scope` = false reads only the
/// model line (errors on scope lines are then left for the full parse).
fn header(path: &Path, text: &str, want_scope: bool) -> Result<Header, Diagnostic> {
    let mut h = Header {
        model: None,
        scope: None,
        at_exit: None,
        consts: Vec::new(),
        hz: None,
        envs: Vec::new(),
    };
    let err = |line: u32, msg: String| Diagnostic::new(path, line, msg);
    for (n, line) in lines(text) {
        if is_rule(line) {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[0] {
            "model" => {
                if let Some((_, first)) = h.model {
                    return Err(err(n, format!("duplicate `model` line (the first is line {first})")));
                }
                let file = match words.get(1) {
                    Some(f) => *f,
                    None => return Err(err(n, "`model` needs a file: `model NAME.dot`".into())),
                };
                if let Some(extra) = words.get(2) {
                    return Err(err(n, format!("unexpected `{extra}` after `model {file}`")));
                }
                let p = Path::new(file);
                let resolved = if p.is_absolute() {
                    p.to_path_buf()
                } else {
                    path.parent().unwrap_or(Path::new("")).join(p)
                };
                h.model = Some((resolved, n));
            }
            "scope" if want_scope => {
                if let Some((_, first)) = h.scope {
                    return Err(err(n, format!("duplicate `scope` line (the first is line {first})")));
                }
                let word = match words.get(1) {
                    Some(w) => *w,
                    None => return Err(err(n, format!("`scope` needs one of {SCOPES}"))),
                };
                let scope = match word {
                    "global" => Scope::Global,
                    "cpu" => Scope::Cpu,
                    "task" | "thread" => Scope::Task,
                    "object" => Scope::Object,
                    other => {
                        return Err(err(n, format!("unknown scope `{other}`: expected {SCOPES}")))
                    }
                };
                if let Some(extra) = words.get(2) {
                    return Err(err(n, format!("unexpected `{extra}` after `scope {word}`")));
                }
                h.scope = Some((scope, n));
            }
            "scope" => {}
            "at_exit" if want_scope => {
                if let Some((_, first)) = h.at_exit {
                    return Err(err(n, format!("duplicate `at_exit` line (the first is line {first})")));
                }
                let check = match words.get(1..) {
                    Some(["final"]) => true,
                    Some(["ignore"]) => false,
                    _ => {
                        return Err(err(
                            n,
                            "`at_exit` takes `final` (instances must be in a final state when their \
                             thread or the program exits) or `ignore` (the default)"
                                .into(),
                        ))
                    }
                };
                h.at_exit = Some((check, n));
            }
            "at_exit" => {}
            "const" if want_scope => h.consts.push(parse_const(path, n, line, &h.consts)?),
            "hz" if want_scope => {
                if let Some((_, first)) = h.hz {
                    return Err(err(n, format!("duplicate `hz` line (the first is line {first})")));
                }
                let hz = match words.get(1..) {
                    Some([v]) => v.parse::<i64>().ok().filter(|&v| (1..=100_000).contains(&v)),
                    _ => None,
                };
                let Some(hz) = hz else {
                    return Err(err(n, "`hz` takes the kernel's tick rate, an integer (e.g. `hz 250`)".into()));
                };
                h.hz = Some((hz, n));
            }
            "env" if want_scope => {
                let alias = match words.as_slice() {
                    [_, name, "=", field] if is_ident(name) && is_ident(field) => EnvAlias { name: name.to_string(), field: field.to_string(), line: n },
                    _ => return Err(err(n, "expected `env NAME = FIELD`: a hybrid guard's variable NAME is read from the event's FIELD".into())),
                };
                if let Some(first) = h.envs.iter().find(|e| e.name == alias.name) {
                    return Err(err(n, format!("duplicate `env {}` (the first is line {})", alias.name, first.line)));
                }
                h.envs.push(alias);
            }
            "const" | "hz" | "env" => {}
            other if want_scope => {
                return Err(err(
                    n,
                    format!(
                        "expected a rule `EVENT <- SOURCE ...`, `model FILE`, `scope SCOPE`, `at_exit final|ignore`, `const NAME = VALUE`, `env NAME = FIELD` or `hz N`, found `{other}`"
                    ),
                ))
            }
            _ => {}
        }
    }
    Ok(h)
}

/// `const NAME = VALUE[unit]`: a value a hybrid model's constraints name
/// (`threshold_jiffies`, `DEADLINE_NS()`), in nanoseconds when it has a
/// time unit.
fn parse_const(path: &Path, n: u32, line: &str, seen: &[Const]) -> Result<Const, Diagnostic> {
    let err = |msg: String| Diagnostic::new(path, n, msg);
    let rest = line.trim_start().strip_prefix("const").unwrap_or("");
    let Some((name, value)) = rest.split_once('=') else {
        return Err(err("expected `const NAME = VALUE` (e.g. `const threshold_jiffies = 4s`)".into()));
    };
    let (name, value) = (name.trim(), value.trim());
    if !is_ident(name) {
        return Err(err(format!("`{name}` is not a valid name for a constant")));
    }
    if let Some(first) = seen.iter().find(|c| c.name == name) {
        return Err(err(format!("duplicate constant `{name}` (the first is line {})", first.line)));
    }
    let (value, unit) = crate::guard::parse_value(value).map_err(err)?;
    Ok(Const { name: name.to_string(), value, unit, line: n })
}

pub(super) fn model_path(path: &Path) -> Result<Option<PathBuf>, Diagnostic> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Diagnostic::new(path, 0, format!("cannot read binding: {e}")))?;
    Ok(header(path, &text, false)?.model.map(|(p, _)| p))
}

pub(super) fn parse(path: &Path, text: &str, model: &Model) -> Result<Binding, Diagnostic> {
    let h = header(path, text, true)?;
    let (scope, _) = h.scope.ok_or_else(|| {
        Diagnostic::new(
            path,
            0,
            format!("no `scope` line: say how instances are keyed, `scope` {SCOPES}"),
        )
    })?;
    let mut rules = Vec::new();
    for (n, line) in lines(text) {
        if is_rule(line) {
            rules.push(parse_rule(path, n, line, model, scope)?);
        }
    }
    if rules.is_empty() {
        return Err(Diagnostic::new(
            path,
            0,
            "no rules: bind at least one model event, `EVENT <- SOURCE [key=FIELD] [if COND] [start|run]`",
        ));
    }
    let (model_file, model_line) = match h.model {
        Some((p, l)) => (Some(p), l),
        None => (None, 0),
    };
    Ok(Binding {
        path: path.to_path_buf(),
        model: model_file,
        model_line,
        scope,
        rules,
        at_exit_final: match h.at_exit {
            Some((true, line)) => Some(line),
            _ => None,
        },
        consts: h.consts,
        hz: h.hz,
        envs: h.envs,
    })
}

/// Tokens of the part of a rule after its source.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok<'a> {
    Word(&'a str),
    /// A run of operator characters (`=`, `!`, `<`, `>`, `&`).
    Op(&'a str),
}

impl Tok<'_> {
    fn text(&self) -> &str {
        match self {
            Tok::Word(w) | Tok::Op(w) => w,
        }
    }
}

fn is_op_char(c: char) -> bool {
    matches!(c, '=' | '!' | '<' | '>' | '&')
}

fn lex(s: &str) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    let mut it = s.char_indices().peekable();
    while let Some(&(i, c)) = it.peek() {
        if c.is_whitespace() {
            it.next();
            continue;
        }
        let op = is_op_char(c);
        let mut end = i;
        while let Some(&(j, d)) = it.peek() {
            if d.is_whitespace() || is_op_char(d) != op {
                break;
            }
            end = j + d.len_utf8();
            it.next();
        }
        let t = &s[i..end];
        out.push(if op { Tok::Op(t) } else { Tok::Word(t) });
    }
    out
}

/// An integer as bindings write it: decimal, `0x` hex, optionally negative.
pub fn parse_int(s: &str) -> Option<i64> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let magnitude: i128 = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        i128::from_str_radix(hex, 16).ok()?
    } else {
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse::<i128>().ok()?
    };
    let v = if neg { -magnitude } else { magnitude };
    // Hex constants up to u64::MAX (pointers, masks) wrap to their i64 bits.
    if !neg
        && magnitude <= u64::MAX as i128
        && magnitude > i64::MAX as i128
        && digits.starts_with("0x")
    {
        return Some(magnitude as u64 as i64);
    }
    i64::try_from(v).ok()
}

fn is_ident(s: &str) -> bool {
    let mut b = s.bytes();
    matches!(b.next(), Some(c) if c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

fn known_tracepoints() -> String {
    sources::TRACEPOINTS
        .iter()
        .map(|t| {
            if t.system.is_empty() {
                t.name.to_string()
            } else {
                format!("{}:{}", t.system, t.name)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn parse_source(path: &Path, n: u32, text: &str) -> Result<Source, Diagnostic> {
    let err = |msg: String| Diagnostic::new(path, n, msg);
    let (kind, rest) = match text.split_once(':') {
        Some(x) => x,
        None => {
            return Err(err(format!(
                "unknown event source `{text}`: expected tp:[SYSTEM:]NAME, call:[LIB:]FUNC or return:[LIB:]FUNC"
            )))
        }
    };
    match kind {
        "tp" => match sources::tracepoint(rest) {
            Some(t) if !rest.is_empty() => Ok(Source::Tracepoint {
                name: t.name.to_string(),
            }),
            _ => Err(err(format!(
                "unknown tracepoint `{rest}`; the known tracepoints are {}",
                known_tracepoints()
            ))),
        },
        "call" | "return" => {
            let (lib, func) = match rest.rsplit_once(':') {
                Some((l, f)) => (Some(l), f),
                None => (None, rest),
            };
            if lib == Some("") {
                return Err(err(format!("empty library name in `{text}`")));
            }
            if !is_ident(func) {
                return Err(err(format!(
                    "bad function name `{func}` in `{text}`: expected a C identifier"
                )));
            }
            let lib = lib.map(str::to_string);
            let func = func.to_string();
            Ok(if kind == "call" {
                Source::Call { lib, func }
            } else {
                Source::Return { lib, func }
            })
        }
        other => Err(err(format!(
            "unknown event source kind `{other}:` in `{text}`: expected tp:[SYSTEM:]NAME, call:[LIB:]FUNC or return:[LIB:]FUNC"
        ))),
    }
}

fn field_index(
    path: &Path,
    n: u32,
    source: &Source,
    fields: &[&str],
    name: &str,
) -> Result<usize, Diagnostic> {
    fields.iter().position(|f| *f == name).ok_or_else(|| {
        Diagnostic::new(
            path,
            n,
            format!(
                "unknown field `{name}` for {}; its fields are {}",
                source,
                fields.join(", ")
            ),
        )
    })
}

fn parse_value(path: &Path, n: u32, field: &str, text: &str) -> Result<i64, Diagnostic> {
    let err = |msg: String| Diagnostic::new(path, n, msg);
    if let Some(v) = parse_int(text) {
        return Ok(v);
    }
    let state_field = field.ends_with("state");
    match sources::task_state_code(text) {
        Some(v) if state_field => Ok(v),
        Some(_) => Err(err(format!(
            "task-state letter `{text}` compared with `{field}`, which is not a task-state (`*state`) field"
        ))),
        None if state_field => Err(err(format!(
            "bad value `{text}` for `{field}`: expected a task state (R S D T t X Z P I R+, or several joined with |) or an integer"
        ))),
        None => Err(err(format!(
            "bad value `{text}` for `{field}`: expected an integer (decimal, 0x hex, or negative)"
        ))),
    }
}

const ORDER: &str = "EVENT <- SOURCE [key=FIELD] [if COND [&& COND]...] [start|run]";

fn parse_rule(
    path: &Path,
    n: u32,
    line: &str,
    model: &Model,
    scope: Scope,
) -> Result<Rule, Diagnostic> {
    let err = |msg: String| Diagnostic::new(path, n, msg);
    let (left, right) = line.split_once("<-").expect("a rule line");
    let left = left.trim();
    let event = match left.split_whitespace().collect::<Vec<_>>().as_slice() {
        [] => return Err(err(format!("expected an event before `<-`: {ORDER}"))),
        [e] => *e,
        [_, second, ..] => {
            return Err(err(format!(
                "unexpected `{second}` before `<-`: a rule binds one event, {ORDER}"
            )))
        }
    };
    let event = if let Some(i) = model.event_index(event) {
        RuleEvent::Event(i)
    } else if event == "forget" {
        RuleEvent::Forget
    } else {
        return Err(err(format!(
            "unknown event `{event}`: model {} has events {} (or `forget` to end an instance)",
            model.name,
            model.events.join(", ")
        )));
    };
    if event == RuleEvent::Forget && matches!(scope, Scope::Global | Scope::Cpu) {
        return Err(err(format!(
            "`forget` with scope {}: only per-task and per-object instances can end",
            scope.as_str()
        )));
    }

    let right = right.trim_start();
    let (source_text, rest) = match right.find(char::is_whitespace) {
        Some(i) => (&right[..i], &right[i..]),
        None => (right, ""),
    };
    if source_text.is_empty() {
        return Err(err(format!("expected an event source after `<-`: {ORDER}")));
    }
    let source = parse_source(path, n, source_text)?;
    let fields = source.fields();

    let toks = lex(rest);
    let mut i = 0;
    let mut key_name: Option<&str> = None;
    if toks.first() == Some(&Tok::Word("key")) {
        match (toks.get(1), toks.get(2)) {
            (Some(Tok::Op("=")), Some(Tok::Word(f))) => {
                key_name = Some(f);
                i = 3;
            }
            (Some(Tok::Op("=")), _) => {
                return Err(err("expected a field name after `key=`".into()))
            }
            (Some(other), _) => {
                return Err(err(format!(
                    "bad operator `{}` after `key`: write `key=FIELD`",
                    other.text()
                )))
            }
            (None, _) => return Err(err("expected `=FIELD` after `key`".into())),
        }
    }

    let mut conds = Vec::new();
    if toks.get(i) == Some(&Tok::Word("if")) {
        i += 1;
        loop {
            let field = match toks.get(i) {
                Some(Tok::Word(f)) => *f,
                Some(Tok::Op(o)) => return Err(err(format!("expected a field name, found `{o}`"))),
                None => return Err(err("expected a condition `FIELD OP VALUE`".into())),
            };
            let op_text = match toks.get(i + 1) {
                Some(Tok::Op(o)) => *o,
                Some(Tok::Word(w)) => {
                    return Err(err(format!(
                        "bad operator `{w}` after `{field}`: expected one of == != < <= > >="
                    )))
                }
                None => {
                    return Err(err(format!(
                        "expected an operator after `{field}`: one of == != < <= > >="
                    )))
                }
            };
            let op = Op::parse(op_text).ok_or_else(|| {
                err(format!(
                    "bad operator `{op_text}` in the condition on `{field}`: expected one of == != < <= > >="
                ))
            })?;
            let value_text = match toks.get(i + 2) {
                Some(Tok::Word(v)) => *v,
                Some(Tok::Op(o)) => {
                    return Err(err(format!(
                        "bad value `{o}` in the condition `{field} {op_text}`"
                    )))
                }
                None => return Err(err(format!("expected a value after `{field} {op_text}`"))),
            };
            let index = field_index(path, n, &source, &fields, field)?;
            let value = parse_value(path, n, field, value_text)?;
            conds.push(Cond {
                field: index,
                field_name: field.to_string(),
                op,
                value,
                value_text: value_text.to_string(),
            });
            i += 3;
            if toks.get(i) == Some(&Tok::Op("&&")) {
                i += 1;
                continue;
            }
            break;
        }
    }

    let mut mode = Mode::Plain;
    let mut atom = None;
    if model.ltl.is_some() && event != RuleEvent::Forget {
        let (action, used) = match (toks.get(i), toks.get(i + 1)) {
            (Some(Tok::Word("true")), _) => (AtomAction::Update(true), 1),
            (Some(Tok::Word("false")), _) => (AtomAction::Update(false), 1),
            (Some(Tok::Word("pulse")), _) => (AtomAction::Pulse, 1),
            (Some(Tok::Word("set")), Some(Tok::Word("true"))) => (AtomAction::Set(true), 2),
            (Some(Tok::Word("set")), Some(Tok::Word("false"))) => (AtomAction::Set(false), 2),
            _ => {
                return Err(err(
                    "a rule of an LTL model ends with what it does to its atom: `true`, `false`, `pulse`, `set true` or `set false`".into(),
                ))
            }
        };
        atom = Some(action);
        i += used;
    } else {
        match toks.get(i) {
            Some(Tok::Word("start")) => {
                mode = Mode::Start;
                i += 1;
            }
            Some(Tok::Word("run")) => {
                mode = Mode::Run;
                i += 1;
            }
            _ => {}
        }
    }
    if let Some(t) = toks.get(i) {
        let after = if i == 0 {
            source_text.to_string()
        } else {
            toks[i - 1].text().to_string()
        };
        let hint = match t {
            Tok::Op(o) if *o != "&&" => format!("bad operator `{o}`"),
            _ => format!("unexpected `{}` after `{after}`", t.text()),
        };
        return Err(err(format!("{hint}: a rule reads {ORDER}")));
    }
    if mode != Mode::Plain && event == RuleEvent::Forget {
        return Err(err(format!(
            "`{}` on a `forget` rule: forgetting never starts an instance",
            if mode == Mode::Start { "start" } else { "run" }
        )));
    }

    let key = match (scope, key_name) {
        (Scope::Global, Some(_)) => {
            return Err(err(
                "`key=` with scope global: a global monitor has a single instance".into(),
            ))
        }
        (Scope::Global, None) => None,
        (_, Some(k)) => Some(field_index(path, n, &source, &fields, k)?),
        (Scope::Object, None) => {
            return Err(err(
                "scope object needs `key=FIELD` on every rule: which field names the object?"
                    .into(),
            ))
        }
        (Scope::Task, None) => Some(field_index(path, n, &source, &fields, "common_pid")?),
        (Scope::Cpu, None) => Some(field_index(path, n, &source, &fields, "cpu")?),
    };

    Ok(Rule {
        line: n,
        event,
        source,
        key,
        conds,
        mode,
        atom,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Binding;

    /// wwnr by hand (the .dot parser may not be there yet).
    fn wwnr() -> Model {
        Model {
            name: "wwnr".into(),
            path: PathBuf::from("models/wwnr.dot"),
            states: vec!["not_running".into(), "running".into()],
            events: vec!["switch_in".into(), "switch_out".into(), "wakeup".into()],
            initial: 0,
            finals: vec![true, false],
            function: vec![vec![Some(1), None, Some(0)], vec![None, Some(0), None]],
            annotations: vec![],
            invariants: vec![],
            state_lines: vec![8, 9],
            event_lines: vec![12, 14, 11],
            ltl: None,
        }
    }

    fn parse_text(text: &str) -> Result<Binding, Diagnostic> {
        parse(Path::new("dir/t.bind"), text, &wwnr())
    }

    /// The error for `text`, asserting its line and that it mentions `want`.
    fn error(text: &str, line: u32, want: &[&str]) -> Diagnostic {
        let e = parse_text(text).expect_err("should be refused");
        assert_eq!(e.file, PathBuf::from("dir/t.bind"));
        assert_eq!(e.line, line, "{e}");
        for w in want {
            assert!(e.message.contains(w), "{e} should mention {w}");
        }
        e
    }

    const WWNR_BIND: &str = "\
# models/wwnr.bind
model  wwnr.dot
scope  task
switch_out <- tp:sched:sched_switch key=prev_pid if prev_state == S start
switch_out <- tp:sched:sched_switch key=prev_pid if prev_state != S
switch_in  <- tp:sched:sched_switch key=next_pid
wakeup     <- tp:sched:sched_wakeup key=pid
";

    #[test]
    fn wwnr_binding() {
        let b = parse_text(WWNR_BIND).unwrap();
        assert_eq!(b.scope, Scope::Task);
        assert_eq!(b.model, Some(PathBuf::from("dir/wwnr.dot")));
        assert_eq!(b.model_line, 2);
        assert_eq!(b.rules.len(), 4);
        let r = &b.rules[0];
        assert_eq!(r.line, 4);
        assert_eq!(r.event, RuleEvent::Event(1));
        assert_eq!(
            r.source,
            Source::Tracepoint {
                name: "sched_switch".into()
            }
        );
        assert_eq!(r.key, Some(0)); // prev_pid
        assert_eq!(r.mode, Mode::Start);
        assert_eq!(
            r.conds,
            vec![Cond {
                field: 1,
                field_name: "prev_state".into(),
                op: Op::Eq,
                value: 1,
                value_text: "S".into()
            }]
        );
        assert_eq!(b.rules[1].conds[0].op, Op::Ne);
        assert_eq!(b.rules[1].mode, Mode::Plain);
        assert_eq!(b.rules[2].key, Some(2)); // next_pid
        assert_eq!(b.rules[3].key, Some(0)); // pid
        assert!(b.has_start_rules());
        assert!(b.warnings(&wwnr()).is_empty());
    }

    #[test]
    fn the_shipped_wwnr_binding_parses() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/wwnr.bind");
        let text = std::fs::read_to_string(&path).unwrap();
        let b = parse(&path, &text, &wwnr()).unwrap();
        assert_eq!(b.rules.len(), 4);
        assert_eq!(
            model_path(&path).unwrap(),
            Some(path.parent().unwrap().join("wwnr.dot"))
        );
    }

    #[test]
    fn conditions_with_and_without_spaces() {
        for text in [
            "prev_state==S",
            "prev_state == S",
            "prev_state== S",
            "prev_state ==S",
        ] {
            let b = parse_text(&format!(
                "scope task\nswitch_out <- tp:sched_switch key=prev_pid if {text} start\n"
            ))
            .unwrap();
            assert_eq!(b.rules[0].conds[0].value, 1, "{text}");
            assert_eq!(b.rules[0].mode, Mode::Start);
        }
        let b = parse_text(
            "scope task\nswitch_out<-tp:sched_switch key = prev_pid if prev_prio>=-5&&prev_state!=R+ &&next_pid<0x10 run\n",
        )
        .unwrap();
        let r = &b.rules[0];
        assert_eq!(r.key, Some(0));
        assert_eq!(r.mode, Mode::Run);
        let got: Vec<(usize, Op, i64)> = r.conds.iter().map(|c| (c.field, c.op, c.value)).collect();
        assert_eq!(
            got,
            vec![(3, Op::Ge, -5), (1, Op::Ne, 256), (2, Op::Lt, 16)]
        );
    }

    #[test]
    fn all_operators_and_values() {
        for (op, want) in [
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<", Op::Lt),
            ("<=", Op::Le),
            (">", Op::Gt),
            (">=", Op::Ge),
        ] {
            let b = parse_text(&format!(
                "scope task\nwakeup <- tp:sched_wakeup if prio {op} 7\n"
            ))
            .unwrap();
            assert_eq!(b.rules[0].conds[0].op, want);
        }
        for (v, want) in [
            ("0", 0),
            ("-12", -12),
            ("0x1F", 31),
            ("-0x10", -16),
            ("0xffffffffffffffff", -1),
        ] {
            let b = parse_text(&format!(
                "scope task\nwakeup <- tp:sched_wakeup if prio == {v}\n"
            ))
            .unwrap();
            assert_eq!(b.rules[0].conds[0].value, want, "{v}");
            assert_eq!(b.rules[0].conds[0].value_text, v);
        }
        for (v, want) in [
            ("R", 0),
            ("D", 2),
            ("I", 128),
            ("S|D", 3),
            ("R+", 256),
            ("4", 4),
        ] {
            let b = parse_text(&format!(
                "scope task\nswitch_out <- tp:sched_switch if prev_state == {v}\n"
            ))
            .unwrap();
            assert_eq!(b.rules[0].conds[0].value, want, "{v}");
        }
    }

    #[test]
    fn comments_blank_lines_and_default_keys() {
        let b = parse_text(
            "\n# a comment\n  scope thread   # per thread\n\nwakeup <- tp:sched_wakeup # the task waking up\n",
        )
        .unwrap();
        assert_eq!(b.scope, Scope::Task);
        assert_eq!(b.model, None);
        assert_eq!(b.model_line, 0);
        assert_eq!(b.rules[0].line, 5);
        // common_pid comes after sched_wakeup's 3 own fields.
        assert_eq!(b.rules[0].key, Some(3));
        assert!(!b.has_start_rules());

        let b = parse_text(
            "scope cpu\nwakeup <- tp:sched_wakeup\nswitch_in <- tp:sched_switch key=target_cpu\n"
                .replace("key=target_cpu", "")
                .as_str(),
        )
        .unwrap();
        assert_eq!(b.rules[0].key, Some(5)); // cpu
        let b = parse_text("scope cpu\nwakeup <- tp:sched_wakeup key=target_cpu\n").unwrap();
        assert_eq!(b.rules[0].key, Some(2));
        let b =
            parse_text("scope global\nwakeup <- tp:irq:irq_handler_entry if irq == 3\n").unwrap();
        assert_eq!(b.rules[0].key, None);
        let b = parse_text("scope object\nwakeup <- tp:irq_handler_entry key=irq\nforget <- tp:irq_handler_exit key=irq\n").unwrap();
        assert_eq!(b.rules[0].key, Some(0));
        assert_eq!(b.rules[1].event, RuleEvent::Forget);
    }

    #[test]
    fn call_and_return_sources() {
        let b = parse_text(
            "scope object\nswitch_in <- call:pthread_mutex_lock key=arg0\nswitch_out <- return:libc.so.6:pthread_mutex_unlock key=arg0 if ret == 0\n",
        )
        .unwrap();
        assert_eq!(
            b.rules[0].source,
            Source::Call {
                lib: None,
                func: "pthread_mutex_lock".into()
            }
        );
        assert_eq!(
            b.rules[1].source,
            Source::Return {
                lib: Some("libc.so.6".into()),
                func: "pthread_mutex_unlock".into()
            }
        );
        assert_eq!(b.rules[1].conds[0].field, 6);
        let b = parse_text("scope task\nwakeup <- call:/usr/lib/libx.so:f\n").unwrap();
        assert_eq!(
            b.rules[0].source,
            Source::Call {
                lib: Some("/usr/lib/libx.so".into()),
                func: "f".into()
            }
        );
    }

    #[test]
    fn warns_about_unfed_events() {
        let b = parse_text("scope task\nwakeup <- tp:sched_wakeup\n").unwrap();
        let w = b.warnings(&wwnr());
        assert_eq!(w.len(), 2);
        assert!(
            w[0].message.contains("warning") && w[0].message.contains("switch_in"),
            "{}",
            w[0]
        );
        assert!(w[1].message.contains("switch_out"));
    }

    #[test]
    fn unknown_event_lists_the_models_events() {
        error(
            "scope task\nwokeup <- tp:sched_wakeup\n",
            2,
            &["unknown event `wokeup`", "switch_in, switch_out, wakeup"],
        );
    }

    #[test]
    fn unknown_source_kind() {
        error(
            "scope task\nwakeup <- kprobe:foo\n",
            2,
            &["unknown event source kind `kprobe:`"],
        );
        error(
            "scope task\nwakeup <- sched_wakeup\n",
            2,
            &["unknown event source `sched_wakeup`"],
        );
        error("scope task\nwakeup <-\n", 2, &["expected an event source"]);
    }

    #[test]
    fn unknown_tracepoint_lists_the_known_ones() {
        error(
            "scope task\nwakeup <- tp:sched:sched_wakeupp\n",
            2,
            &[
                "unknown tracepoint `sched:sched_wakeupp`",
                "sched:sched_switch",
                "sched_entry_tp",
            ],
        );
        error(
            "scope task\nwakeup <- tp:irq:sched_wakeup\n",
            2,
            &["unknown tracepoint `irq:sched_wakeup`"],
        );
        error("scope task\nwakeup <- tp:\n", 2, &["unknown tracepoint"]);
    }

    #[test]
    fn unknown_field_lists_the_valid_ones() {
        error(
            "scope task\nwakeup <- tp:sched_wakeup key=next_pid\n",
            2,
            &[
                "unknown field `next_pid`",
                "pid, prio, target_cpu, common_pid, tgid, cpu",
            ],
        );
        error(
            "scope task\n\nwakeup <- tp:sched_wakeup if pidd == 3\n",
            3,
            &["unknown field `pidd`", "tp:sched_wakeup"],
        );
        error(
            "scope object\nwakeup <- call:f key=ret\n",
            2,
            &["unknown field `ret`", "arg0, arg1"],
        );
    }

    #[test]
    fn bad_operator() {
        error(
            "scope task\nwakeup <- tp:sched_wakeup if pid = 3\n",
            2,
            &["bad operator `=`"],
        );
        error(
            "scope task\nwakeup <- tp:sched_wakeup if pid=>3\n",
            2,
            &["bad operator `=>`"],
        );
        error(
            "scope task\nwakeup <- tp:sched_wakeup if pid is 3\n",
            2,
            &["bad operator `is`"],
        );
        error(
            "scope task\nwakeup <- tp:sched_wakeup if pid\n",
            2,
            &["expected an operator"],
        );
        error(
            "scope task\nwakeup <- tp:sched_wakeup key==pid\n",
            2,
            &["bad operator `==` after `key`"],
        );
        error(
            "scope task\nwakeup <- tp:sched_wakeup if pid == 1 & prio == 2\n",
            2,
            &["bad operator `&`"],
        );
    }

    #[test]
    fn bad_value() {
        error(
            "scope task\nwakeup <- tp:sched_wakeup if pid == abc\n",
            2,
            &["bad value `abc`", "integer"],
        );
        error(
            "scope task\nwakeup <- tp:sched_wakeup if pid == 0xg\n",
            2,
            &["bad value `0xg`"],
        );
        error(
            "scope task\nwakeup <- tp:sched_wakeup if pid ==\n",
            2,
            &["expected a value"],
        );
        error(
            "scope task\nwakeup <- tp:sched_wakeup if pid == 99999999999999999999\n",
            2,
            &["bad value"],
        );
        error(
            "scope task\nswitch_out <- tp:sched_switch if prev_state == Q\n",
            2,
            &["bad value `Q` for `prev_state`", "task state"],
        );
        error(
            "scope task\nwakeup <- tp:sched_wakeup if pid == 1 &&\n",
            2,
            &["expected a condition"],
        );
    }

    #[test]
    fn task_state_letter_on_other_field() {
        error(
            "scope task\nswitch_out <- tp:sched_switch if prev_pid == S\n",
            2,
            &["task-state letter `S`", "`prev_pid`"],
        );
    }

    #[test]
    fn scope_object_needs_a_key() {
        error(
            "scope object\nwakeup <- tp:sched_wakeup\n",
            2,
            &["scope object needs `key=FIELD`"],
        );
    }

    #[test]
    fn key_with_scope_global() {
        error(
            "scope global\nwakeup <- tp:sched_wakeup key=pid\n",
            2,
            &["`key=` with scope global"],
        );
        error(
            "scope task\nwakeup <- tp:sched_wakeup key=\n",
            2,
            &["expected a field name after `key=`"],
        );
    }

    #[test]
    fn at_exit_line() {
        error(
            "scope task\nat_exit sometimes\nwakeup <- tp:sched_wakeup\n",
            2,
            &["`at_exit` takes `final`"],
        );
        error(
            "scope task\nat_exit final\nat_exit ignore\nwakeup <- tp:sched_wakeup\n",
            3,
            &["duplicate `at_exit`", "line 2"],
        );
    }

    #[test]
    fn duplicate_scope_or_model() {
        error(
            "scope task\nscope cpu\nwakeup <- tp:sched_wakeup\n",
            2,
            &["duplicate `scope`", "line 1"],
        );
        error(
            "model a.dot\nscope task\n# x\nmodel b.dot\nwakeup <- tp:sched_wakeup\n",
            4,
            &["duplicate `model`", "line 1"],
        );
        let e = model_path_of("model a.dot\nmodel b.dot\n").unwrap_err();
        assert_eq!(e.line, 2);
    }

    fn model_path_of(text: &str) -> Result<Option<PathBuf>, Diagnostic> {
        let dir = std::env::temp_dir().join(format!("vigil-bind-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(format!("t{}.bind", text.len()));
        std::fs::write(&p, text).unwrap();
        let r = model_path(&p).map(|o| o.map(|m| m.strip_prefix(&dir).unwrap().to_path_buf()));
        let _ = std::fs::remove_file(&p);
        r
    }

    #[test]
    fn model_path_reads_only_the_model_line() {
        // The scope line is wrong, but model_path does not care.
        assert_eq!(
            model_path_of("scope nonsense\nmodel sub/m.dot # the model\nx <- y\n").unwrap(),
            Some(PathBuf::from("sub/m.dot"))
        );
        assert_eq!(model_path_of("scope task\n").unwrap(), None);
        assert_eq!(
            model_path(Path::new("/nonexistent/x.bind"))
                .unwrap_err()
                .line,
            0
        );
        let abs = parse_text("model /abs/m.dot\nscope task\nwakeup <- tp:sched_wakeup\n").unwrap();
        assert_eq!(abs.model, Some(PathBuf::from("/abs/m.dot")));
    }

    #[test]
    fn unknown_scope() {
        error(
            "scope process\nwakeup <- tp:sched_wakeup\n",
            1,
            &["unknown scope `process`", "global, cpu"],
        );
        error("scope\n", 1, &["`scope` needs one of"]);
    }

    #[test]
    fn missing_scope_or_rules() {
        let e = error("wakeup <- tp:sched_wakeup\n", 0, &["no `scope` line"]);
        assert!(e.to_string().starts_with("dir/t.bind: "), "{e}");
        error("scope task\n", 0, &["no rules"]);
    }

    #[test]
    fn forget_with_global_or_cpu() {
        error(
            "scope global\nforget <- tp:sched_process_exit\n",
            2,
            &["`forget` with scope global"],
        );
        error(
            "scope cpu\nforget <- tp:sched_process_exit\n",
            2,
            &["`forget` with scope cpu"],
        );
        error(
            "scope task\nforget <- tp:sched_process_exit start\n",
            2,
            &["`start` on a `forget` rule"],
        );
        let b = parse_text("scope task\nforget <- tp:sched_process_exit key=pid\n").unwrap();
        assert_eq!(b.rules[0].event, RuleEvent::Forget);
    }

    #[test]
    fn trailing_garbage() {
        error(
            "scope task extra\n",
            1,
            &["unexpected `extra` after `scope task`"],
        );
        error(
            "model a.dot b.dot\nscope task\n",
            1,
            &["unexpected `b.dot`"],
        );
        error("model\nscope task\n", 1, &["`model` needs a file"]);
        error(
            "scope task\nwakeup <- tp:sched_wakeup start now\n",
            2,
            &["unexpected `now` after `start`"],
        );
        error(
            "scope task\nwakeup <- tp:sched_wakeup key=pid extra\n",
            2,
            &["unexpected `extra` after `pid`"],
        );
        error(
            "scope task\nwakeup <- tp:sched_wakeup if pid == 1 key=pid\n",
            2,
            &["unexpected `key` after `1`", "EVENT <- SOURCE [key=FIELD]"],
        );
        error(
            "scope task\nwakeup <- tp:sched_wakeup garbage\n",
            2,
            &["unexpected `garbage` after `tp:sched_wakeup`"],
        );
        error(
            "scope task\nwakeup wakeup <- tp:sched_wakeup\n",
            2,
            &["unexpected `wakeup` before `<-`"],
        );
        error(
            "scope task\n<- tp:sched_wakeup\n",
            2,
            &["expected an event before `<-`"],
        );
        error(
            "scope task\nwakeup tp:sched_wakeup\n",
            2,
            &["expected a rule", "found `wakeup`"],
        );
        error(
            "scope task\nwakeup <- call:lib:\n",
            2,
            &["bad function name"],
        );
    }

    #[test]
    fn ints() {
        assert_eq!(parse_int("42"), Some(42));
        assert_eq!(parse_int("-0"), Some(0));
        assert_eq!(parse_int("007"), Some(7));
        assert_eq!(parse_int("0x"), None);
        assert_eq!(parse_int("-"), None);
        assert_eq!(parse_int("9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_int("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_int("9223372036854775808"), None);
        assert_eq!(parse_int("1e3"), None);
    }
}
