//! Violation reports and the closing summary, as text or JSON Lines.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::time::Duration;

/// What went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An event not allowed in the instance's state.
    Event,
    /// A `forget` rule ended an instance in a state that is not final.
    NotFinal,
    /// A hybrid automaton's guard was false for the event.
    Guard,
    /// Time passed a state's invariant (no event needed).
    Invariant,
    /// An LTL model: no state of its automaton accepts the atoms.
    Ltl,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Event => "event",
            Kind::NotFinal => "not-final",
            Kind::Guard => "guard",
            Kind::Invariant => "invariant",
            Kind::Ltl => "ltl",
        }
    }
}

/// One violation, with everything a report says.
#[derive(Debug, Clone)]
pub struct Violation<'a> {
    pub kind: Kind,
    pub model: &'a str,
    /// How to name the model to `vigil render` (shipped name or path).
    pub model_arg: &'a str,
    pub trace: &'a str,
    pub line: u64,
    pub timestamp: &'a [u8],
    /// The timestamp in nanoseconds, when it reads as one.
    pub time_ns: Option<i64>,
    pub comm: &'a [u8],
    /// The thread id (ftrace's `comm-PID`).
    pub pid: i64,
    /// From the trace's `(TGID)` column, when it has one.
    pub tgid: Option<i64>,
    pub cpu: i64,
    pub scope: &'static str,
    /// `None` for scope global.
    pub key: Option<i64>,
    /// The key's field in the rule's source (`None` without a rule).
    pub key_field: Option<&'a str>,
    pub state: &'a str,
    /// The model event, or `forget`.
    pub event: &'a str,
    pub allowed: Vec<&'a str>,
    /// Final states (for `not-final`).
    pub finals: Vec<&'a str>,
    /// `binding-file:line` of the rule that fired; `None` when time passed.
    pub rule: Option<String>,
    /// The rule's source as written in the binding (`tp:sched_switch`).
    pub source: Option<String>,
    /// The trace line, without its newline.
    pub text: &'a [u8],
    /// Guard and invariant violations: the constraint as written and its
    /// `model-file:line`.
    pub constraint: Option<(&'a str, String)>,
}

/// The keys every engine's JSON violation starts with, in this order
/// (docs/integration.md, "Automaton violations (all engines)").  Values an
/// engine does not have are `null`, never left out.
pub const CORE_KEYS: [&str; 16] = [
    "type", "engine", "model", "kind", "state", "event", "allowed", "scope", "key", "rule",
    "source", "time_ns", "pid", "tgid", "cpu", "comm",
];

/// The core of a JSON violation (see [`CORE_KEYS`]), shared by the
/// offline checker and `vigil collect --check`; the kernel engine writes
/// the same in C (bpf/monitor.c, `report_json`).
#[derive(Debug, Clone)]
pub struct Core<'a> {
    /// `offline`, `collect` or `bpf`.
    pub engine: &'a str,
    pub model: &'a str,
    pub kind: Kind,
    pub state: &'a str,
    pub event: &'a str,
    pub allowed: &'a [&'a str],
    pub scope: &'a str,
    /// The instance's key (`None` for scope global) and its field's name.
    pub key: Option<(Option<&'a str>, i64)>,
    pub rule: Option<&'a str>,
    pub source: Option<&'a str>,
    pub time_ns: Option<i64>,
    /// The thread id.
    pub pid: Option<i64>,
    /// The process id.
    pub tgid: Option<i64>,
    pub cpu: Option<i64>,
    pub comm: Option<&'a str>,
}

fn opt_num(n: Option<i64>) -> String {
    n.map_or("null".to_string(), |n| n.to_string())
}

fn opt_json_str(s: Option<&str>) -> String {
    s.map_or("null".to_string(), json_str)
}

impl Core<'_> {
    /// `{"type":"violation",…` up to the last core member, no closing brace:
    /// the engine's extras follow, then `}`.
    pub fn write(&self, s: &mut String) {
        let key = match self.key {
            None => "null".to_string(),
            Some((field, value)) => {
                format!("{{\"field\":{},\"value\":{value}}}", opt_json_str(field))
            }
        };
        let _ = write!(
            s,
            "{{\"type\":\"violation\",\"engine\":{},\"model\":{},\"kind\":\"{}\",\"state\":{},\
             \"event\":{},\"allowed\":{},\"scope\":{},\"key\":{key},\"rule\":{},\"source\":{},\
             \"time_ns\":{},\"pid\":{},\"tgid\":{},\"cpu\":{},\"comm\":{}",
            json_str(self.engine),
            json_str(self.model),
            self.kind.as_str(),
            json_str(self.state),
            json_str(self.event),
            json_list(self.allowed),
            json_str(self.scope),
            opt_json_str(self.rule),
            opt_json_str(self.source),
            opt_num(self.time_ns),
            opt_num(self.pid),
            opt_num(self.tgid),
            opt_num(self.cpu),
            opt_json_str(self.comm),
        );
    }
}

/// `s` as the inside of a JSON string.
pub fn json_escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
}

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    json_escape(s, &mut out);
    out.push('"');
    out
}

fn lossy(b: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(b)
}

/// `name:` padded to the report's value column.
fn label(name: &str) -> String {
    format!("{:<10}", format!("{name}: "))
}

fn json_list(items: &[&str]) -> String {
    let v: Vec<String> = items.iter().map(|s| json_str(s)).collect();
    format!("[{}]", v.join(","))
}

impl Violation<'_> {
    fn instance(&self) -> String {
        match self.key {
            None => "global".to_string(),
            Some(k) => format!("{} {k}", self.scope),
        }
    }

    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut s = String::with_capacity(512);
        match self.kind {
            Kind::Event => {
                let _ = writeln!(
                    s,
                    "violation: {}: event {} not allowed in state {}",
                    self.model, self.event, self.state
                );
            }
            Kind::NotFinal => {
                let _ = writeln!(
                    s,
                    "violation: {}: instance forgotten in non-final state {}",
                    self.model, self.state
                );
            }
            Kind::Guard => {
                let _ = writeln!(
                    s,
                    "violation: {}: guard `{}` false for event {} in state {}",
                    self.model,
                    self.constraint.as_ref().map_or("", |c| c.0),
                    self.event,
                    self.state
                );
            }
            Kind::Ltl => {
                let _ = writeln!(
                    s,
                    "violation: {}: the property does not hold after {} (the automaton was in {})",
                    self.model, self.event, self.state
                );
            }
            Kind::Invariant => {
                let _ = writeln!(
                    s,
                    "violation: {}: invariant `{}` of state {} expired",
                    self.model,
                    self.constraint.as_ref().map_or("", |c| c.0),
                    self.state
                );
            }
        }
        let _ = writeln!(
            s,
            "  at:       {}:{} (timestamp {})",
            self.trace,
            self.line,
            lossy(self.timestamp)
        );
        if self.kind != Kind::Invariant {
            let _ = writeln!(s, "  task:     {}-{} on cpu {}", lossy(self.comm), self.pid, self.cpu);
        }
        let _ = writeln!(s, "  instance: {}", self.instance());
        let _ = writeln!(s, "  state:    {}", self.state);
        let _ = writeln!(s, "  event:    {}", self.event);
        let allowed = if self.allowed.is_empty() {
            "(none)".to_string()
        } else {
            self.allowed.join(" ")
        };
        if self.kind != Kind::Ltl {
            let _ = writeln!(s, "  allowed:  {allowed}");
        }
        if self.kind == Kind::NotFinal {
            let _ = writeln!(s, "  final:    {}", self.finals.join(" "));
        }
        if let Some((text, at)) = &self.constraint {
            let what = if self.kind == Kind::Guard { "guard" } else { "invariant" };
            let _ = writeln!(s, "  {}{text} ({at})", label(what));
        }
        let _ = writeln!(
            s,
            "  rule:     {}",
            self.rule.as_deref().unwrap_or("(none: time passed)")
        );
        let seen = if self.kind == Kind::Invariant { "seen at" } else { "line" };
        let _ = writeln!(s, "  {}{}", label(seen), lossy(self.text).trim());
        if self.kind == Kind::Event {
            let _ = writeln!(
                s,
                "  picture:  vigil render {} --highlight {}:{}",
                self.model_arg, self.state, self.event
            );
        }
        s.push('\n');
        out.write_all(s.as_bytes())
    }

    /// One JSON line: the core every engine writes, then `trace`, `line`,
    /// `timestamp` (as the trace has it), `final` (not-final),
    /// `constraint` and `constraint_at` (guard, invariant) and `text`.
    pub fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut s = String::with_capacity(768);
        let comm = lossy(self.comm);
        // An expired invariant is no task's doing: the line that showed it
        // is `trace`/`line`/`text`.
        let task = self.kind != Kind::Invariant;
        Core {
            engine: "offline",
            model: self.model,
            kind: self.kind,
            state: self.state,
            event: self.event,
            allowed: &self.allowed,
            scope: self.scope,
            key: self.key.map(|k| (self.key_field, k)),
            rule: self.rule.as_deref(),
            source: self.source.as_deref(),
            time_ns: self.time_ns,
            pid: task.then_some(self.pid),
            tgid: self.tgid.filter(|_| task),
            cpu: task.then_some(self.cpu),
            comm: task.then_some(&*comm),
        }
        .write(&mut s);
        let _ = write!(
            s,
            ",\"trace\":{},\"line\":{},\"timestamp\":{}",
            json_str(self.trace),
            self.line,
            json_str(&lossy(self.timestamp)),
        );
        if self.kind == Kind::NotFinal {
            let _ = write!(s, ",\"final\":{}", json_list(&self.finals));
        }
        if let Some((text, at)) = &self.constraint {
            let _ = write!(s, ",\"constraint\":{},\"constraint_at\":{}", json_str(text), json_str(at));
        }
        let _ = writeln!(s, ",\"text\":{}}}", json_str(lossy(self.text).trim()));
        out.write_all(s.as_bytes())
    }
}

/// The first `CORE_KEYS.len()` top-level keys of a JSON line, in order
/// (enough of a reader for what the writers here write; for tests).
pub fn core_keys_of(line: &str) -> Vec<String> {
    let b = line.as_bytes();
    let (mut depth, mut i, mut out) = (0, 0, Vec::new());
    let mut expect_key = false;
    while i < b.len() {
        match b[i] {
            b'{' | b'[' => {
                depth += 1;
                expect_key = depth == 1 && b[i] == b'{';
            }
            b'}' | b']' => depth -= 1,
            b',' if depth == 1 => expect_key = true,
            b'"' => {
                let start = i + 1;
                i += 1;
                while b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                if expect_key {
                    out.push(line[start..i].to_string());
                    expect_key = false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out.truncate(CORE_KEYS.len());
    out
}

/// Counts for the closing summary.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Lines read.
    pub lines: u64,
    /// Lines that are trace events (of any event).
    pub events: u64,
    /// Events of a tracepoint some rule names, read successfully.
    pub matched: u64,
    pub violations: u64,
    /// Instances started (an instance forgotten or reset and started again
    /// counts again).
    pub instances: u64,
    /// Instances monitored at the end of the trace.
    pub live: u64,
    pub lost_markers: u64,
    /// Events the markers say were lost (markers that do not say count 0).
    pub lost_events: u64,
    /// Lines of a bound event that could not be read, skipped.
    pub malformed: u64,
    pub elapsed: Duration,
}

impl Summary {
    pub fn events_per_s(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            self.events as f64 / s
        } else {
            0.0
        }
    }

    fn rate(&self) -> String {
        let r = self.events_per_s();
        if r >= 1e6 {
            format!("{:.2} M events/s", r / 1e6)
        } else if r >= 1e3 {
            format!("{:.1} k events/s", r / 1e3)
        } else {
            format!("{r:.0} events/s")
        }
    }

    pub fn write_text(&self, model: &str, trace: &str, out: &mut dyn Write) -> io::Result<()> {
        let mut s = String::new();
        let _ = writeln!(s, "summary: model {model}, trace {trace}");
        let _ = writeln!(s, "  lines:       {}", self.lines);
        let _ = writeln!(
            s,
            "  events:      {} read, {} matched",
            self.events, self.matched
        );
        let _ = writeln!(s, "  violations:  {}", self.violations);
        let _ = writeln!(
            s,
            "  instances:   {} started, {} live at the end",
            self.instances, self.live
        );
        if self.lost_markers == 0 {
            let _ = writeln!(s, "  lost events: none");
        } else {
            let _ = writeln!(
                s,
                "  lost events: {} markers ({} events): events are missing from the trace, so instances may be out of step; violations near a marker may be artefacts and a clean run proves less",
                self.lost_markers, self.lost_events
            );
        }
        let _ = writeln!(s, "  malformed:   {} lines skipped", self.malformed);
        let _ = writeln!(
            s,
            "  time:        {:.3} s, {}",
            self.elapsed.as_secs_f64(),
            self.rate()
        );
        out.write_all(s.as_bytes())
    }

    pub fn write_json(&self, model: &str, trace: &str, out: &mut dyn Write) -> io::Result<()> {
        let line = format!(
            "{{\"type\":\"summary\",\"model\":{},\"trace\":{},\"lines\":{},\"events\":{},\"matched\":{},\
             \"violations\":{},\"instances\":{},\"instances_live\":{},\"lost_markers\":{},\"lost_events\":{},\
             \"malformed\":{},\"elapsed_s\":{:.6},\"events_per_s\":{:.0}}}\n",
            json_str(model),
            json_str(trace),
            self.lines,
            self.events,
            self.matched,
            self.violations,
            self.instances,
            self.live,
            self.lost_markers,
            self.lost_events,
            self.malformed,
            self.elapsed.as_secs_f64(),
            self.events_per_s()
        );
        out.write_all(line.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(json_str("a\"b\\c\nd\u{1}é"), "\"a\\\"b\\\\c\\nd\\u0001é\"");
    }

    fn v() -> Violation<'static> {
        Violation {
            kind: Kind::Event,
            model: "wwnr",
            model_arg: "wwnr",
            trace: "t\"x",
            line: 9,
            timestamp: b"1.5",
            time_ns: Some(1_500_000_000),
            comm: b"a\"b",
            pid: 3,
            tgid: None,
            cpu: 1,
            scope: "task",
            key: Some(15),
            key_field: Some("pid"),
            state: "running",
            event: "wakeup",
            allowed: vec!["switch_out"],
            finals: vec!["not_running"],
            rule: Some("w.bind:8".into()),
            source: Some("tp:sched_wakeup".into()),
            text: b"  x \"y\"\n",
            constraint: None,
        }
    }

    #[test]
    fn violation_json() {
        let mut out = Vec::new();
        v().write_json(&mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert_eq!(
            s,
            "{\"type\":\"violation\",\"engine\":\"offline\",\"model\":\"wwnr\",\"kind\":\"event\",\
             \"state\":\"running\",\"event\":\"wakeup\",\"allowed\":[\"switch_out\"],\"scope\":\"task\",\
             \"key\":{\"field\":\"pid\",\"value\":15},\"rule\":\"w.bind:8\",\"source\":\"tp:sched_wakeup\",\
             \"time_ns\":1500000000,\"pid\":3,\"tgid\":null,\"cpu\":1,\"comm\":\"a\\\"b\",\
             \"trace\":\"t\\\"x\",\"line\":9,\"timestamp\":\"1.5\",\"text\":\"x \\\"y\\\"\"}\n"
        );
        assert_eq!(core_keys_of(&s), CORE_KEYS);
        let mut g = v();
        g.key = None;
        g.kind = Kind::NotFinal;
        g.allowed = vec![];
        let mut out = Vec::new();
        g.write_json(&mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(s.contains("\"kind\":\"not-final\""), "{s}");
        assert!(s.contains("\"key\":null"), "{s}");
        assert!(s.contains("\"allowed\":[],\"scope\""), "{s}");
        assert!(s.contains(",\"final\":[\"not_running\"],"), "{s}");
        assert_eq!(core_keys_of(&s), CORE_KEYS);
        let mut i = v();
        i.kind = Kind::Invariant;
        i.rule = None;
        i.source = None;
        let mut out = Vec::new();
        i.write_json(&mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(
            s.contains("\"rule\":null,\"source\":null,\"time_ns\":1500000000,\"pid\":null,\"tgid\":null,\"cpu\":null,\"comm\":null,"),
            "{s}"
        );
        assert_eq!(core_keys_of(&s), CORE_KEYS);
    }


    #[test]
    fn violation_text() {
        let mut out = Vec::new();
        v().write_text(&mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(
            s.starts_with("violation: wwnr: event wakeup not allowed in state running\n"),
            "{s}"
        );
        assert!(s.contains("  at:       t\"x:9 (timestamp 1.5)\n"), "{s}");
        assert!(s.contains("  instance: task 15\n"), "{s}");
        assert!(s.contains("  allowed:  switch_out\n"), "{s}");
        assert!(s.ends_with("\n\n"));
    }
}
