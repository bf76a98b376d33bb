//! A violation found on a stream, as text, as a JSON line, and as a
//! catalog row.

use std::io::{self, Write};

use vigil_trace::report::{json_str, Core};

use crate::catalog::ViolationRow;

pub use vigil_trace::report::Kind;

pub struct Found<'a> {
    pub kind: Kind,
    pub model: &'a str,
    pub model_arg: &'a str,
    pub stream: &'a str,
    pub program: &'a str,
    /// The process id.
    pub pid: i64,
    /// The kernel thread id.
    pub thread: i64,
    pub tseq: i64,
    pub ns: i64,
    /// The stream event (`return pthread_mutex_lock`).
    pub source: String,
    /// The rule's source as the binding writes it (`return:pthread_mutex_lock`);
    /// `None` when time passed.
    pub rule_source: Option<String>,
    pub scope: &'static str,
    pub key: Option<i64>,
    /// The key's field in the rule's source.
    pub key_field: Option<&'static str>,
    pub state: &'a str,
    /// The model event, or `forget`.
    pub event: &'a str,
    pub allowed: Vec<&'a str>,
    /// `binding-file:line`; `None` when time passed (an invariant).
    pub rule: Option<String>,
}

impl Found<'_> {
    fn instance(&self) -> String {
        match self.key {
            None => "global".into(),
            Some(k) if self.scope == "object" => format!("object {k:#x}"),
            Some(k) => format!("{} {k}", self.scope),
        }
    }

    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        let what = match self.kind {
            Kind::Event => format!("event {} not allowed in state {}", self.event, self.state),
            Kind::NotFinal => format!("instance forgotten in non-final state {}", self.state),
            Kind::Guard => format!("guard false for event {} in state {}", self.event, self.state),
            Kind::Invariant => format!("invariant of state {} expired", self.state),
            Kind::Ltl => format!("the property does not hold after {} (the automaton was in {})", self.event, self.state),
        };
        writeln!(out, "violation: {}: {what}", self.model)?;
        writeln!(
            out,
            "  at:       {} ({} pid {}) thread {}, event #{} `{}`, t={}.{:09} s",
            self.stream,
            self.program,
            self.pid,
            self.thread,
            self.tseq,
            self.source,
            self.ns.div_euclid(1_000_000_000),
            self.ns.rem_euclid(1_000_000_000)
        )?;
        writeln!(out, "  instance: {}", self.instance())?;
        writeln!(
            out,
            "  rule:     {}",
            self.rule.as_deref().unwrap_or("(none: time passed)")
        )?;
        if self.kind == Kind::Event {
            let allowed = if self.allowed.is_empty() {
                "nothing (a final state)".to_string()
            } else {
                self.allowed.join(", ")
            };
            writeln!(out, "  allowed:  {allowed}")?;
            writeln!(
                out,
                "  see:      vigil render {} --highlight {}:{}",
                self.model_arg, self.state, self.event
            )?;
        }
        writeln!(out)
    }

    /// One JSON line: the core every engine writes (`pid` the thread,
    /// `tgid` the process, `cpu` and `comm` null: streams do not carry
    /// them), then `stream`, `program`, `tseq` and `stream_event`.
    pub fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut s = String::with_capacity(512);
        let task = self.kind != Kind::Invariant;
        Core {
            engine: "collect",
            model: self.model,
            kind: self.kind,
            state: self.state,
            event: self.event,
            allowed: &self.allowed,
            scope: self.scope,
            key: self.key.map(|k| (self.key_field, k)),
            rule: self.rule.as_deref(),
            source: self.rule_source.as_deref(),
            time_ns: Some(self.ns),
            pid: task.then_some(self.thread),
            tgid: Some(self.pid),
            cpu: None,
            comm: None,
        }
        .write(&mut s);
        writeln!(
            out,
            "{s},\"stream\":{},\"program\":{},\"tseq\":{},\"stream_event\":{}}}",
            json_str(self.stream),
            json_str(self.program),
            self.tseq,
            json_str(&self.source),
        )
    }

    pub fn row(&self) -> ViolationRow {
        ViolationRow {
            stream_id: 0,
            model: self.model.into(),
            kind: self.kind.as_str().into(),
            thread: self.thread,
            tseq: self.tseq,
            ns: self.ns,
            scope: self.scope.into(),
            key: self.key,
            state: self.state.into(),
            event: self.event.into(),
            rule: self
                .rule
                .clone()
                .unwrap_or_else(|| "(none: time passed)".into()),
            source: self.source.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vigil_trace::report::{core_keys_of, CORE_KEYS};

    #[test]
    fn json_core_first() {
        let f = Found {
            kind: Kind::Event,
            model: "mutex",
            model_arg: "mutex",
            stream: "s1",
            program: "t",
            pid: 10,
            thread: 11,
            tseq: 3,
            ns: 5,
            source: "entry pthread_mutex_unlock".into(),
            rule_source: Some("call:pthread_mutex_unlock".into()),
            scope: "object",
            key: Some(0xabc),
            key_field: Some("arg0"),
            state: "unlocked",
            event: "unlock",
            allowed: vec!["lock"],
            rule: Some("m.bind:4".into()),
        };
        let mut out = Vec::new();
        f.write_json(&mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert_eq!(
            s,
            "{\"type\":\"violation\",\"engine\":\"collect\",\"model\":\"mutex\",\"kind\":\"event\",\
             \"state\":\"unlocked\",\"event\":\"unlock\",\"allowed\":[\"lock\"],\"scope\":\"object\",\
             \"key\":{\"field\":\"arg0\",\"value\":2748},\"rule\":\"m.bind:4\",\
             \"source\":\"call:pthread_mutex_unlock\",\"time_ns\":5,\"pid\":11,\"tgid\":10,\"cpu\":null,\
             \"comm\":null,\"stream\":\"s1\",\"program\":\"t\",\"tseq\":3,\
             \"stream_event\":\"entry pthread_mutex_unlock\"}\n"
        );
        assert_eq!(core_keys_of(&s), CORE_KEYS);
    }
}
