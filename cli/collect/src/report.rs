//! A violation found on a stream, as text, as a JSON line, and as a
//! catalog row.

use std::io::{self, Write};

use vigil_trace::report::json_str;

use crate::catalog::ViolationRow;

pub use vigil_trace::report::Kind;

pub struct Found<'a> {
    pub kind: Kind,
    pub model: &'a str,
    pub model_arg: &'a str,
    pub stream: &'a str,
    pub program: &'a str,
    pub pid: i64,
    pub thread: i64,
    pub tseq: i64,
    pub ns: i64,
    /// The stream event (`return pthread_mutex_lock`).
    pub source: String,
    pub scope: &'static str,
    pub key: Option<i64>,
    pub state: &'a str,
    /// The model event, or `forget`.
    pub event: &'a str,
    pub allowed: Vec<&'a str>,
    /// `binding-file:line`.
    pub rule: String,
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
        writeln!(out, "  rule:     {}", self.rule)?;
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

    pub fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        let allowed: Vec<String> = self.allowed.iter().map(|s| json_str(s)).collect();
        writeln!(
            out,
            "{{\"type\":\"violation\",\"kind\":{},\"model\":{},\"stream\":{},\"program\":{},\"pid\":{},\"thread\":{},\"tseq\":{},\"ns\":{},\"source\":{},\"scope\":{},\"key\":{},\"state\":{},\"event\":{},\"allowed\":[{}],\"rule\":{}}}",
            json_str(self.kind.as_str()),
            json_str(self.model),
            json_str(self.stream),
            json_str(self.program),
            self.pid,
            self.thread,
            self.tseq,
            self.ns,
            json_str(&self.source),
            json_str(self.scope),
            self.key.map_or("null".into(), |k| k.to_string()),
            json_str(self.state),
            json_str(self.event),
            allowed.join(","),
            json_str(&self.rule)
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
            rule: self.rule.clone(),
            source: self.source.clone(),
        }
    }
}
