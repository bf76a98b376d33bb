//! The offline checker: stream a trace, map lines to model events through
//! the binding's rules, step one automaton per instance.
//!
//! The semantics are [`crate::engine`]'s, shared with `vigil collect --check`.
//!
//! Memory is constant in the trace's length: one reused line buffer and
//! one map entry per live instance.

use std::io::{self, BufRead, Write};
use std::time::Instant;

use vigil_model::binding::{Binding, Scope, Source};
use vigil_model::sources;
use vigil_model::{Diagnostic, Model};

use std::sync::Arc;

use crate::engine::{Machine, Rule, Verdict, FORGET};
use crate::format::{self, FieldSrc, Format, Kind};
use crate::line::{format_ns, lost_marker, parse_header, timestamp_ns, Header};
use crate::report::{self, Summary, Violation};

/// Fields per source, at most (own fields + the common ones).
const MAX_FIELDS: usize = 16;

/// How the checker reports.
#[derive(Debug, Clone)]
pub struct Config {
    /// JSON Lines instead of text.
    pub json: bool,
    /// Malformed-line and lost-events warnings printed at most (all are
    /// counted).
    pub max_warnings: u64,
    /// Put before each warning line (`vigil: `).
    pub prefix: String,
    /// The model as the user named it, for `vigil render` hints.
    pub model_arg: String,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            json: false,
            max_warnings: 10,
            prefix: String::new(),
            model_arg: String::new(),
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Getter {
    Key(usize, Kind),
    Preempt(usize),
    Pid,
    Tgid,
    Cpu,
}

#[derive(Debug, Clone)]
struct Need {
    field: usize,
    name: &'static str,
    get: Getter,
}

#[derive(Debug)]
struct EventPlan {
    name: &'static str,
    fmt: &'static Format,
    /// The last key of the text any rule needs; `None`: none (the header
    /// is enough).
    stop: Option<usize>,
    needs: Vec<Need>,
    rules: Vec<Rule>,
}

/// The state of one [`Checker::run`].
struct RunState<'t> {
    trace: &'t str,
    s: Summary,
    warned: u64,
    vals: [i64; MAX_FIELDS],
    /// Trace time of the last record, ns (hybrid automata only).
    now: u64,
}

extern "C" {
    #[link_name = "memchr"]
    fn libc_memchr(
        s: *const std::ffi::c_void,
        c: std::ffi::c_int,
        n: usize,
    ) -> *mut std::ffi::c_void;
}

/// The C library's `memchr` (vectorised), which std does not expose.
#[inline]
fn memchr(b: u8, s: &[u8]) -> Option<usize> {
    // SAFETY: `s` is a valid slice of `s.len()` bytes; memchr reads no more.
    let p = unsafe { libc_memchr(s.as_ptr().cast(), b as std::ffi::c_int, s.len()) };
    if p.is_null() {
        None
    } else {
        Some(p as usize - s.as_ptr() as usize)
    }
}

/// A model and its binding, compiled for offline checking.
pub struct Checker<'a> {
    model: &'a Model,
    binding: &'a Binding,
    plans: Vec<EventPlan>,
    machine: Machine,
}

fn rule_source_name(source: &Source) -> String {
    source.to_string()
}

impl<'a> Checker<'a> {
    /// Compile; refuses bindings whose sources never appear in an ftrace
    /// text trace (functions, bare tracepoints).
    pub fn new(model: &'a Model, binding: &'a Binding) -> Result<Checker<'a>, Diagnostic> {
        let compiled = Arc::new(vigil_model::compiled::compile(model, binding)?);
        let mut plans: Vec<EventPlan> = Vec::new();
        for (index, rule) in binding.rules.iter().enumerate() {
            let err = |msg: String| Diagnostic::new(&binding.path, rule.line, msg);
            let name = match &rule.source {
                Source::Tracepoint { name } => name,
                other => {
                    return Err(err(format!(
                        "{} is a C function: it never appears in an ftrace trace, so this binding \
                         cannot be checked offline; monitor it in-process (vigil cc) or live (uprobes)",
                        rule_source_name(other)
                    )))
                }
            };
            let tp = sources::tracepoint(name)
                .ok_or_else(|| err(format!("unknown tracepoint `{name}`")))?;
            if tp.system.is_empty() {
                return Err(err(format!(
                    "tp:{} is a bare tracepoint with no trace event: it never appears in an ftrace \
                     trace, so it can only be monitored live (vigil monitor)",
                    tp.name
                )));
            }
            let fmt = format::format(tp.name).ok_or_else(|| {
                err(format!(
                    "tp:{} has no ftrace text format in vigil's offline checker",
                    tp.name
                ))
            })?;
            let fields = rule.source.fields();
            if fields.len() > MAX_FIELDS {
                return Err(err(format!("tp:{} has too many fields", tp.name)));
            }
            let pi = match plans.iter().position(|p| p.name == tp.name) {
                Some(i) => i,
                None => {
                    plans.push(EventPlan {
                        name: tp.name,
                        fmt,
                        stop: None,
                        needs: Vec::new(),
                        rules: Vec::new(),
                    });
                    plans.len() - 1
                }
            };
            let plan = &mut plans[pi];
            let compiled_rule = Rule::compile(&compiled, index);
            for f in compiled_rule.fields() {
                if plan.needs.iter().any(|n| n.field == f) {
                    continue;
                }
                let fname = fields[f];
                let get = match fname {
                    "common_pid" => Getter::Pid,
                    "tgid" => Getter::Tgid,
                    "cpu" => Getter::Cpu,
                    _ => match format::field_source(fmt, fname) {
                        Some(FieldSrc::Key(i, k)) => Getter::Key(i, k),
                        Some(FieldSrc::Preempt(i)) => Getter::Preempt(i),
                        None => {
                            return Err(err(format!(
                                "field `{fname}` of tp:{} is not in its ftrace text",
                                tp.name
                            )))
                        }
                    },
                };
                if let Getter::Key(i, _) | Getter::Preempt(i) = get {
                    plan.stop = Some(plan.stop.map_or(i, |s| s.max(i)));
                }
                plan.needs.push(Need {
                    field: f,
                    name: fname,
                    get,
                });
            }
            plan.rules.push(compiled_rule);
        }
        Ok(Checker {
            model,
            binding,
            plans,
            machine: Machine::new(compiled),
        })
    }

    /// Check a whole trace.  `trace` names it in messages.  Violations go to
    /// `out`, warnings to `warn`; the summary is returned, not printed.
    ///
    /// Lines are read in place from `input`'s buffer (give it a large one);
    /// only a line that straddles two fills is copied, into one reused
    /// buffer.  Memory stays constant whatever the trace's length.
    pub fn run<R: BufRead>(
        &mut self,
        trace: &str,
        mut input: R,
        out: &mut dyn Write,
        warn: &mut dyn Write,
        cfg: &Config,
    ) -> io::Result<Summary> {
        let t0 = Instant::now();
        let mut st = RunState {
            trace,
            s: Summary::default(),
            warned: 0,
            vals: [0; MAX_FIELDS],
            now: 0,
        };
        let mut carry: Vec<u8> = Vec::with_capacity(4096);
        loop {
            let chunk = match input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let n = chunk.len();
            if n == 0 {
                if !carry.is_empty() {
                    self.line(&mut st, &carry, out, warn, cfg)?;
                }
                break;
            }
            let mut pos = 0;
            if !carry.is_empty() {
                match memchr(b'\n', chunk) {
                    Some(i) => {
                        carry.extend_from_slice(&chunk[..i]);
                        self.line(&mut st, &carry, out, warn, cfg)?;
                        carry.clear();
                        pos = i + 1;
                    }
                    None => {
                        carry.extend_from_slice(chunk);
                        input.consume(n);
                        continue;
                    }
                }
            }
            while let Some(i) = memchr(b'\n', &chunk[pos..]) {
                self.line(&mut st, &chunk[pos..pos + i], out, warn, cfg)?;
                pos += i + 1;
            }
            carry.extend_from_slice(&chunk[pos..]);
            input.consume(n);
        }
        let mut s = st.s;
        s.instances = self.machine.started();
        s.live = self.machine.live();
        s.elapsed = t0.elapsed();
        Ok(s)
    }

    /// One line, without its newline.
    #[inline]
    fn line(
        &mut self,
        st: &mut RunState<'_>,
        mut line: &[u8],
        out: &mut dyn Write,
        warn: &mut dyn Write,
        cfg: &Config,
    ) -> io::Result<()> {
        st.s.lines += 1;
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        let h = match parse_header(line) {
            Some(h) => h,
            None => {
                if let Some(lost) = lost_marker(line) {
                    st.s.lost_markers += 1;
                    st.s.lost_events += lost.unwrap_or(0);
                    let what = match lost {
                        Some(n) => format!("{n} events lost here"),
                        None => "events lost here".to_string(),
                    };
                    self.warn(warn, cfg, st, &what)?;
                }
                return Ok(());
            }
        };
        st.s.events += 1;
        if self.machine.timed() {
            self.advance(st, &h, line, out, cfg)?;
        }
        let pi = match self
            .plans
            .iter()
            .position(|p| format::eq_bytes(p.name.as_bytes(), h.event))
        {
            Some(pi) => pi,
            None => return Ok(()),
        };
        let plan = &self.plans[pi];
        let found = match plan.stop {
            Some(stop) => format::split(plan.fmt, h.fields, stop),
            None => format::Found::empty(),
        };
        // The field that could not be read, and whether it was there.
        let mut bad: Option<(&'static str, Getter, bool)> = None;
        for need in &plan.needs {
            let v = match need.get {
                Getter::Key(i, kind) => match found.get(h.fields, i) {
                    Some(v) => format::value(kind, v, found.plugin),
                    None => {
                        bad = Some((need.name, need.get, false));
                        break;
                    }
                },
                Getter::Preempt(i) if !found.plugin => found
                    .get(h.fields, i)
                    .map(|v| (v.last() == Some(&b'+')) as i64),
                Getter::Preempt(_) => None,
                Getter::Pid => Some(h.pid),
                Getter::Tgid => h.tgid,
                Getter::Cpu => Some(h.cpu),
            };
            match v {
                Some(v) => st.vals[need.field] = v,
                None => {
                    bad = Some((need.name, need.get, true));
                    break;
                }
            }
        }
        if bad.is_some() || found.broken {
            st.s.malformed += 1;
            let msg = match bad {
                Some((_, Getter::Tgid, _)) => format!(
                    "{} event without a tgid column (record the trace with the record-tgid option): line skipped",
                    plan.name
                ),
                Some((_, Getter::Preempt(_), _)) if found.plugin => format!(
                    "{} event in trace-cmd's sched plugin format, which does not say whether the task was preempted (field `preempt`): line skipped",
                    plan.name
                ),
                Some((f, get, present)) => {
                    let what = match get {
                        _ if !present => "is missing",
                        Getter::Key(_, Kind::State) => "is not a task state",
                        Getter::Key(_, Kind::IrqRet) => "is neither handled nor unhandled",
                        _ => "is not a number",
                    };
                    format!("malformed {} event: field `{f}` {what}: line skipped", plan.name)
                }
                None => format!(
                    "malformed {} event: fields repeated or out of order: line skipped",
                    plan.name
                ),
            };
            return self.warn(warn, cfg, st, &msg);
        }
        st.s.matched += 1;
        for r in plan.rules.iter() {
            if !self.machine.holds(r, &st.vals) {
                continue;
            }
            let key = self.machine.key_of(r, &st.vals);
            let v = self.machine.fire(r, key, &st.vals, st.now);
            if v == Verdict::Ok {
                continue;
            }
            st.s.violations += 1;
            self.report(out, cfg, st.trace, st.s.lines, &h, line, Some(r), key, v, None)?;
        }
        Ok(())
    }

    /// Trace time moves to this record's: invariants that expired before
    /// it are violations (reported at their expiry, seen at this line).
    fn advance(
        &mut self,
        st: &mut RunState<'_>,
        h: &Header<'_>,
        line: &[u8],
        out: &mut dyn Write,
        cfg: &Config,
    ) -> io::Result<()> {
        match timestamp_ns(h.timestamp) {
            Some(t) => st.now = st.now.max(t),
            None => return Ok(()),
        }
        let mut found = Vec::new();
        self.machine.expire(st.now, |key, v, at| found.push((key, v, at)));
        for (key, v, at) in found {
            st.s.violations += 1;
            self.report(out, cfg, st.trace, st.s.lines, h, line, None, key, v, Some(at))?;
        }
        Ok(())
    }

    #[cold]
    fn warn(
        &self,
        warn: &mut dyn Write,
        cfg: &Config,
        st: &mut RunState<'_>,
        msg: &str,
    ) -> io::Result<()> {
        st.warned += 1;
        let (trace, line) = (st.trace, st.s.lines);
        if st.warned <= cfg.max_warnings {
            writeln!(warn, "{}{trace}:{line}: warning: {msg}", cfg.prefix)?;
        } else if st.warned == cfg.max_warnings + 1 {
            writeln!(
                warn,
                "{}{trace}: warning: more warnings not shown (--max-warnings {}); the summary counts them",
                cfg.prefix, cfg.max_warnings
            )?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    #[cold]
    fn report(
        &self,
        out: &mut dyn Write,
        cfg: &Config,
        trace: &str,
        line_no: u64,
        h: &Header<'_>,
        text: &[u8],
        rule: Option<&Rule>,
        key: i64,
        verdict: Verdict,
        expired_at: Option<u64>,
    ) -> io::Result<()> {
        let m = self.model;
        let c = self.machine.compiled();
        let state = verdict.from().unwrap_or(0) as usize;
        let state_text = crate::conform::state_text(c, verdict);
        let (kind, constraint) = match verdict {
            Verdict::Guard { guard, .. } => {
                let g = &c.guards[guard as usize];
                (report::Kind::Guard, Some((g.text.as_str(), format!("{}:{}", m.path.display(), g.line))))
            }
            Verdict::Invariant { from } => {
                let i = c.invariants[from as usize].as_ref().expect("an invariant expired");
                (report::Kind::Invariant, Some((i.text.as_str(), format!("{}:{}", m.path.display(), i.line))))
            }
            Verdict::NotFinal { .. } => (report::Kind::NotFinal, None),
            Verdict::Ltl { .. } => (report::Kind::Ltl, None),
            _ => (report::Kind::Event, None),
        };
        let at = expired_at.map(format_ns);
        let brule = rule.map(|r| &self.binding.rules[r.index]);
        let v = Violation {
            kind,
            constraint,
            model: &m.name,
            model_arg: if cfg.model_arg.is_empty() {
                &m.name
            } else {
                &cfg.model_arg
            },
            trace,
            line: line_no,
            timestamp: at.as_deref().map_or(h.timestamp, str::as_bytes),
            time_ns: expired_at
                .or_else(|| crate::line::timestamp_ns(h.timestamp))
                .and_then(|t| i64::try_from(t).ok()),
            comm: h.comm,
            pid: h.pid,
            tgid: h.tgid,
            cpu: h.cpu,
            scope: self.binding.scope.as_str(),
            key: if self.binding.scope == Scope::Global {
                None
            } else {
                Some(key)
            },
            key_field: brule.and_then(|r| r.key_field()),
            state: &state_text,
            event: match rule {
                None => "none",
                Some(r) if r.event == FORGET => "forget",
                Some(r) => &m.events[r.event as usize],
            },
            allowed: if m.ltl.is_some() { Vec::new() } else { m.allowed(state) },
            finals: m
                .states
                .iter()
                .zip(&m.finals)
                .filter(|(_, f)| **f)
                .map(|(s, _)| s.as_str())
                .collect(),
            rule: brule.map(|r| format!("{}:{}", self.binding.path.display(), r.line)),
            source: brule.map(|r| r.source.to_string()),
            text,
        };
        if cfg.json {
            v.write_json(out)
        } else {
            v.write_text(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    pub(crate) fn wwnr() -> Model {
        Model {
            name: "wwnr".into(),
            path: PathBuf::from("wwnr.dot"),
            states: vec!["not_running".into(), "running".into()],
            events: vec!["switch_in".into(), "switch_out".into(), "wakeup".into()],
            initial: 0,
            finals: vec![true, false],
            function: vec![vec![Some(1), None, Some(0)], vec![None, Some(0), None]],
            annotations: vec![],
            invariants: vec![],
            state_lines: vec![1, 2],
            event_lines: vec![1, 2, 3],
            ltl: None,
        }
    }

    const WWNR_BIND: &str = "scope task
switch_out <- tp:sched:sched_switch key=prev_pid if prev_state == S start
switch_out <- tp:sched:sched_switch key=prev_pid if prev_state != S
switch_in  <- tp:sched:sched_switch key=next_pid
wakeup     <- tp:sched:sched_wakeup key=pid
";

    fn run(model: &Model, bind: &str, trace: &str) -> (Summary, String, String) {
        let b = Binding::from_str(Path::new("t.bind"), bind, model).unwrap();
        let mut c = Checker::new(model, &b).unwrap();
        let mut out = Vec::new();
        let mut warn = Vec::new();
        let cfg = Config {
            json: true,
            ..Config::default()
        };
        let s = c
            .run("t", trace.as_bytes(), &mut out, &mut warn, &cfg)
            .unwrap();
        (
            s,
            String::from_utf8(out).unwrap(),
            String::from_utf8(warn).unwrap(),
        )
    }

    fn sw(prev: i64, state: &str, next: i64) -> String {
        format!(
            " a-{prev} [000] d..2. 1.0: sched_switch: prev_comm=a prev_pid={prev} prev_prio=120 prev_state={state} ==> next_comm=b next_pid={next} next_prio=120\n"
        )
    }

    fn wk(pid: i64) -> String {
        format!(" w-99 [001] d..2. 1.0: sched_wakeup: comm=x pid={pid} prio=120 target_cpu=001\n")
    }

    #[test]
    fn wwnr_holds_and_fails() {
        let m = wwnr();
        // 5 sleeps (start), is woken, runs, sleeps again, is woken.
        let t = [sw(5, "S", 0), wk(5), sw(0, "R", 5), sw(5, "S", 0), wk(5)].concat();
        let (s, out, warn) = run(&m, WWNR_BIND, &t);
        assert_eq!(s.violations, 0, "{out}");
        assert_eq!(
            (s.lines, s.events, s.matched, s.instances, s.live),
            (5, 5, 5, 1, 1)
        );
        assert_eq!(warn, "");
        // Woken while running (line 4).
        let t = [sw(5, "S", 0), wk(5), sw(0, "R", 5), wk(5), sw(5, "R+", 0)].concat();
        let (s, out, _) = run(&m, WWNR_BIND, &t);
        assert_eq!(s.violations, 1);
        assert!(out.contains("\"line\":4,"), "{out}");
        assert!(
            out.contains("\"state\":\"running\",\"event\":\"wakeup\",\"allowed\":[\"switch_out\"]"),
            "{out}"
        );
        assert!(out.contains("\"rule\":\"t.bind:5\""), "{out}");
        // Reset: not monitored again until it sleeps.
        assert_eq!(s.live, 0);
    }

    #[test]
    fn lines_across_buffer_fills() {
        let m = wwnr();
        let b = Binding::from_str(Path::new("t.bind"), WWNR_BIND, &m).unwrap();
        // Woken while running at line 4; the last line has no newline, and
        // one uses CRLF.
        let t = [
            sw(5, "S", 0),
            wk(5).replace('\n', "\r\n"),
            sw(0, "R", 5),
            wk(5),
            sw(5, "R+", 0),
        ]
        .concat();
        let t = t.trim_end();
        for cap in [1, 2, 7, 64, 100, 4096] {
            let mut c = Checker::new(&m, &b).unwrap();
            let (mut out, mut warn) = (Vec::new(), Vec::new());
            let input = std::io::BufReader::with_capacity(cap, t.as_bytes());
            let cfg = Config {
                json: true,
                ..Config::default()
            };
            let s = c.run("t", input, &mut out, &mut warn, &cfg).unwrap();
            let out = String::from_utf8(out).unwrap();
            assert_eq!(
                (s.lines, s.matched, s.violations),
                (5, 5, 1),
                "cap {cap}: {out}"
            );
            assert!(out.contains("\"line\":4,"), "cap {cap}: {out}");
            assert!(warn.is_empty());
        }
    }

    #[test]
    fn unmonitored_instances_are_ignored_with_start_rules() {
        let m = wwnr();
        // Never slept: nothing monitored, wakeups of running tasks unseen.
        let t = [sw(0, "R", 5), wk(5), wk(5)].concat();
        let (s, _, _) = run(&m, WWNR_BIND, &t);
        assert_eq!((s.violations, s.instances), (0, 0));
    }

    #[test]
    fn without_start_rules_every_instance_starts() {
        let m = wwnr();
        let bind = "scope task\nswitch_in <- tp:sched_switch key=next_pid\nswitch_out <- tp:sched_switch key=prev_pid\nwakeup <- tp:sched_wakeup key=pid\n";
        // 5 is switched in from nothing: starts in not_running, then running.
        let t = [sw(7, "R", 5), wk(5), wk(5), sw(5, "S", 0)].concat();
        let (s, out, _) = run(&m, bind, &t);
        // Line 1: 7 starts not_running and switches out: violation; 5 runs.
        // Line 2: violation, reset to not_running; line 3 fine; line 4 switch_out
        // from not_running: violation.
        assert_eq!(s.violations, 3, "{out}");
        assert!(out.contains("\"line\":1,"));
        assert!(out.contains("\"line\":2,"));
        assert!(out.contains("\"line\":4,"));
        assert_eq!(s.instances, 3); // 7, 5 and 0
        assert_eq!(s.live, 3); // reset to the initial state, not forgotten
    }

    #[test]
    fn run_mode_starts_and_processes() {
        let m = wwnr();
        let bind = "scope task\nswitch_in <- tp:sched_switch key=next_pid run\nswitch_out <- tp:sched_switch key=prev_pid\nwakeup <- tp:sched_wakeup key=pid\n";
        let t = [wk(5), sw(0, "R", 5), wk(5)].concat();
        let (s, out, _) = run(&m, bind, &t);
        assert_eq!(s.violations, 1, "{out}");
        assert!(out.contains("\"line\":3,"));
        assert_eq!(s.instances, 1);
    }

    #[test]
    fn forget_in_a_non_final_state() {
        let m = wwnr();
        let bind = format!("{WWNR_BIND}forget <- tp:sched_process_exit key=pid\n");
        let exit = |pid: i64| {
            format!(" a-{pid} [000] .... 2.0: sched_process_exit: comm=a pid={pid} prio=120 group_dead=true\n")
        };
        let t = [
            sw(5, "S", 0),
            sw(0, "R", 5),
            exit(5),
            sw(6, "S", 0),
            exit(6),
            exit(7),
        ]
        .concat();
        let (s, out, _) = run(&m, &bind, &t);
        assert_eq!(s.violations, 1, "{out}");
        assert!(out.contains("\"kind\":\"not-final\""), "{out}");
        assert!(out.contains("\"line\":3,"), "{out}");
        assert!(out.contains("\"event\":\"forget\""), "{out}");
        assert_eq!(s.live, 0);
    }

    #[test]
    fn malformed_and_lost_lines() {
        let m = wwnr();
        let t = [
            sw(5, "S", 0),
            " w-99 [001] d..2. 1.0: sched_wakeup: comm=x pid=abc prio=120 target_cpu=001\n".into(),
            " w-99 [001] d..2. 1.0: sched_wakeup: comm=x\n".into(),
            "CPU:1 [LOST 17 EVENTS]\n".into(),
            "# comment\n\n".into(),
            " w-99 [001] d..2. 1.0: other_event: pid=5\n".into(),
        ]
        .concat();
        let (s, _, warn) = run(&m, WWNR_BIND, &t);
        assert_eq!((s.lines, s.events, s.matched, s.malformed), (7, 4, 1, 2));
        assert_eq!((s.lost_markers, s.lost_events), (1, 17));
        assert!(
            warn.contains("t:2: warning: malformed sched_wakeup event: field `pid`"),
            "{warn}"
        );
        assert!(warn.contains("t:3: warning:"), "{warn}");
        assert!(warn.contains("t:4: warning: 17 events lost here"), "{warn}");
    }

    #[test]
    fn warnings_are_capped() {
        let m = wwnr();
        let bad = " w-99 [001] d..2. 1.0: sched_wakeup: comm=x\n".repeat(30);
        let b = Binding::from_str(Path::new("t.bind"), WWNR_BIND, &m).unwrap();
        let mut c = Checker::new(&m, &b).unwrap();
        let (mut out, mut warn) = (Vec::new(), Vec::new());
        let cfg = Config {
            max_warnings: 3,
            prefix: "vigil: ".into(),
            ..Config::default()
        };
        let s = c
            .run("t", bad.as_bytes(), &mut out, &mut warn, &cfg)
            .unwrap();
        assert_eq!(s.malformed, 30);
        let warn = String::from_utf8(warn).unwrap();
        assert_eq!(warn.lines().count(), 4, "{warn}");
        assert!(warn.starts_with("vigil: t:1: warning"));
        assert!(warn.contains("more warnings not shown"));
    }

    #[test]
    fn scopes_cpu_global_object() {
        // A two-state toggle: on/off, events on / off.
        let m = Model {
            name: "toggle".into(),
            path: PathBuf::from("toggle.dot"),
            states: vec!["off".into(), "on".into()],
            events: vec!["off".into(), "on".into()],
            initial: 0,
            finals: vec![true, false],
            function: vec![vec![None, Some(1)], vec![Some(0), None]],
            annotations: vec![],
            invariants: vec![],
            state_lines: vec![1, 2],
            event_lines: vec![1, 2],
            ltl: None,
        };
        let entry = |cpu: i64, irq: i64| {
            format!(" a-1 [{cpu:03}] d.h1. 1.0: irq_handler_entry: irq={irq} name=x\n")
        };
        let exit = |cpu: i64, irq: i64| {
            format!(" a-1 [{cpu:03}] d.h1. 1.0: irq_handler_exit: irq={irq} ret=handled\n")
        };
        let rules = "on <- tp:irq_handler_entry\noff <- tp:irq_handler_exit\n";
        // Per cpu: nested on two cpus is fine, twice on one is not.
        let t = [
            entry(0, 1),
            entry(1, 2),
            exit(0, 1),
            exit(1, 2),
            entry(1, 3),
            entry(1, 4),
        ]
        .concat();
        let (s, out, _) = run(&m, &format!("scope cpu\n{rules}"), &t);
        assert_eq!(s.violations, 1, "{out}");
        assert!(
            out.contains("\"line\":6,")
                && out.contains("\"scope\":\"cpu\",\"key\":{\"field\":\"cpu\",\"value\":1},"),
            "{out}"
        );
        // Global: line 2 is already a second `on`; after the reset to off,
        // lines 3 and 4 are `off` twice, line 6 `on` twice.
        let (s, out, _) = run(&m, &format!("scope global\n{rules}"), &t);
        assert_eq!(s.violations, 4, "{out}");
        assert_eq!(s.instances, 1);
        assert!(
            out.contains("\"line\":2,") && out.contains("\"key\":null"),
            "{out}"
        );
        // Per object (irq): entries of 3 and 4 are different objects.
        let obj = "scope object\non <- tp:irq_handler_entry key=irq\noff <- tp:irq_handler_exit key=irq if ret == 1\n";
        let (s, out, _) = run(&m, obj, &[t.clone(), exit(0, 9)].concat());
        assert_eq!(s.violations, 1, "{out}");
        assert!(
            out.contains("\"line\":7,") && out.contains("\"scope\":\"object\",\"key\":{\"field\":\"irq\",\"value\":9},"),
            "{out}"
        );
    }

    #[test]
    fn offline_sources_only() {
        let m = wwnr();
        for (bind, want) in [
            (
                "scope task\nwakeup <- tp:sched_entry_tp\n",
                "can only be monitored live",
            ),
            ("scope task\nwakeup <- call:f\n", "C function"),
        ] {
            let b = Binding::from_str(Path::new("t.bind"), bind, &m).unwrap();
            let e = Checker::new(&m, &b).err().unwrap();
            assert_eq!(e.line, 2);
            assert!(e.message.contains(want), "{e}");
        }
    }

    #[test]
    fn trace_cmd_plugin_lines_and_preempt() {
        let m = wwnr();
        let t = "\
cpus=2
            bash-5     [000]  1.000001: sched_switch:         bash:5 [120] S ==> swapper/0:0 [120]
          <idle>-0     [001]  1.000002: sched_wakeup:         bash:5 [120] CPU:000
          <idle>-0     [000]  1.000003: sched_switch:         swapper/0:0 [120] R ==> bash:5 [120]
          <idle>-0     [001]  1.000004: sched_wakeup:         bash:5 [120]<CANT FIND FIELD success> CPU:000
";
        let (s, out, warn) = run(&m, WWNR_BIND, t);
        assert_eq!(
            (s.events, s.matched, s.violations),
            (4, 4, 1),
            "{out}{warn}"
        );
        assert!(out.contains("\"line\":5,"), "{out}");
        // preempt from R+, and a plugin line cannot say.
        let bind = "scope task\nswitch_out <- tp:sched_switch key=prev_pid if preempt == 1\n";
        let t = [sw(5, "R+", 0), sw(6, "R", 0)].concat();
        let (s, out, _) = run(&m, bind, &t);
        assert_eq!(s.instances, 1, "{out}");
        let (s, _, warn) = run(
            &m,
            bind,
            "  a-5 [000] 1.0: sched_switch: a:5 [120] R ==> b:0 [120]\n",
        );
        assert_eq!(s.malformed, 1);
        assert!(warn.contains("preempted"), "{warn}");
    }
}
