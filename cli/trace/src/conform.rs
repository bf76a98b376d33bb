//! The conformance corpus (tests/conformance/): one case is a directory
//! with a binding (`binding.bind`, whose `model` line names the model), an
//! event list (`events`) and the verdicts every engine must give
//! (`expected`).  This module reads a case, runs it through the reference
//! step function and through the offline engine, and writes the numeric
//! form the C engines read (docs/models.md, "Conformance").
//!
//! `events`, one per line (`#` comments):
//!
//! ```text
//! 1000 call:lock arg0=0x10           # time in ns, source, fields by name
//! 2500 tp:sched_switch prev_pid=7 prev_state=S next_pid=0
//! 9000 tick                          # time passes, no event
//! ```
//!
//! A verdict is `LINE KIND key=KEY state=STATE event=EVENT [at=NS]`: the
//! events line that caused it (or revealed it, for an invariant that
//! expired before it, `at` being the expiry).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use vigil_model::compiled::{compile, Compiled, Inst, Verdict, FORGET, MAX_FIELDS, NONE};
use vigil_model::{sources, Binding, Diagnostic, Model};

use crate::engine::{Machine, Rule};

/// One event of a case.
#[derive(Debug, Clone)]
pub struct Event {
    pub line: u32,
    pub ts: u64,
    /// Index into `Compiled::sources`, or `None` for `tick` and for a
    /// source no rule names (time still passes).
    pub source: Option<u16>,
    pub fields: [i64; MAX_FIELDS],
}

pub struct Case {
    pub dir: PathBuf,
    pub model: Model,
    pub binding: Binding,
    pub compiled: Arc<Compiled>,
    pub events: Vec<Event>,
    /// `None` when the case has no `expected` file yet.
    pub expected: Option<Vec<String>>,
}

/// Read a case directory.
pub fn load(dir: &Path) -> Result<Case, Diagnostic> {
    let bind_path = dir.join("binding.bind");
    let model_path = Binding::model_path(&bind_path)?
        .ok_or_else(|| Diagnostic::new(&bind_path, 0, "a conformance binding names its model (`model FILE`)"))?;
    let model = Model::from_file(&model_path)?;
    let binding = Binding::from_file(&bind_path, &model)?;
    let compiled = Arc::new(compile(&model, &binding)?);
    let ev_path = dir.join("events");
    let text = std::fs::read_to_string(&ev_path)
        .map_err(|e| Diagnostic::new(&ev_path, 0, format!("cannot read events: {e}")))?;
    let mut events = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if !line.is_empty() {
            let n = i as u32 + 1;
            events.push(parse_event(&binding, &compiled, line, n).map_err(|m| Diagnostic::new(&ev_path, n, m))?);
        }
    }
    let expected = std::fs::read_to_string(dir.join("expected"))
        .ok()
        .map(|t| t.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).map(str::to_string).collect());
    Ok(Case { dir: dir.to_path_buf(), model, binding, compiled, events, expected })
}

fn parse_event(b: &Binding, c: &Compiled, line: &str, n: u32) -> Result<Event, String> {
    let mut words = line.split_whitespace();
    let ts = words.next().unwrap_or("");
    let ts: u64 = ts.parse().map_err(|_| format!("`{ts}` is not a time in ns"))?;
    let src = words.next().ok_or("expected `TIME SOURCE [FIELD=VALUE]...` or `TIME tick`")?;
    let mut ev = Event { line: n, ts, source: None, fields: [0; MAX_FIELDS] };
    if src == "tick" {
        if let Some(w) = words.next() {
            return Err(format!("unexpected `{w}` after `tick`"));
        }
        return Ok(ev);
    }
    let rule = b.rules.iter().find(|r| r.source.to_string() == src || short(&r.source.to_string()) == src);
    let Some(rule) = rule else {
        return Err(format!("no rule of the binding has source `{src}`"));
    };
    let full = rule.source.to_string();
    ev.source = c.sources.iter().position(|s| *s == full).map(|i| i as u16);
    let names = rule.source.fields();
    for w in words {
        let (name, value) = w.split_once('=').ok_or_else(|| format!("expected FIELD=VALUE, found `{w}`"))?;
        let f = names
            .iter()
            .position(|x| *x == name)
            .ok_or_else(|| format!("{full} has no field `{name}`; its fields are {}", names.join(", ")))?;
        ev.fields[f] = value_of(name, value).ok_or_else(|| format!("`{value}` is not a value for `{name}`"))?;
    }
    Ok(ev)
}

/// `tp:sched:sched_switch` is also written `tp:sched_switch`.
fn short(s: &str) -> String {
    match s.strip_prefix("tp:").and_then(|r| r.split_once(':')) {
        Some((_, name)) => format!("tp:{name}"),
        None => s.to_string(),
    }
}

fn value_of(name: &str, v: &str) -> Option<i64> {
    if name.ends_with("state") {
        if let Some(code) = sources::task_state_code(v) {
            return Some(code);
        }
    }
    vigil_model::binding::parse_int(v)
}

/// A verdict as the corpus writes it.
pub fn verdict_line(c: &Compiled, line: u32, key: i64, v: Verdict, event: Option<u16>, at: Option<u64>) -> String {
    let state = state_text(c, v);
    let event = match event {
        None => "none",
        Some(FORGET) => "forget",
        Some(e) => &c.events[e as usize],
    };
    let mut s = format!("{line} {} key={key} state={state} event={event}", v.kind());
    if let Some(at) = at {
        s += &format!(" at={at}");
    }
    s
}

/// The state a verdict names: one state, or for LTL the set of Büchi
/// states the task was in (`S0,S2`).
pub fn state_text(c: &Compiled, v: Verdict) -> String {
    match v {
        Verdict::Ltl { states } => {
            let set: Vec<&str> = (0..c.states.len()).filter(|&s| states & (1 << s) != 0).map(|s| c.states[s].as_str()).collect();
            if set.is_empty() { "none".to_string() } else { set.join(",") }
        }
        _ => c.states[v.from().unwrap_or(0) as usize].clone(),
    }
}

/// The reference: [`Compiled::decide`] on instances in a sorted map,
/// expiries found by scanning every instance (no heap, no hashing: a
/// second, simpler driver for the offline engine to agree with).
pub fn run_reference(case: &Case) -> Vec<String> {
    let c = &*case.compiled;
    let mut inst: BTreeMap<i64, Inst> = BTreeMap::new();
    let mut out = Vec::new();
    for ev in &case.events {
        loop {
            let due = inst.iter().filter(|(_, i)| i.expiry_ns <= ev.ts).min_by_key(|(k, i)| (i.expiry_ns, **k));
            let Some((&key, &i)) = due else { break };
            let at = i.expiry_ns;
            let mut i = i;
            let v = c.expire(&mut i, at);
            store(&mut inst, key, i);
            out.push(verdict_line(c, ev.line, key, v, None, Some(at)));
        }
        let Some(src) = ev.source else { continue };
        for r in c.rules.iter().filter(|r| r.source == src) {
            if !c.rule_holds(r, &ev.fields) {
                continue;
            }
            let key = c.key_of(r, &ev.fields);
            let mut i = inst.get(&key).copied().unwrap_or(Inst::UNMONITORED);
            let v = c.decide(r, &mut i, &ev.fields, ev.ts);
            store(&mut inst, key, i);
            if v != Verdict::Ok {
                out.push(verdict_line(c, ev.line, key, v, Some(r.event), None));
            }
        }
    }
    out
}

fn store(inst: &mut BTreeMap<i64, Inst>, key: i64, i: Inst) {
    if i.is_empty() {
        inst.remove(&key);
    } else {
        inst.insert(key, i);
    }
}

/// The offline engine (`vigil check`, `vigil collect --check`).
pub fn run_offline(case: &Case) -> Vec<String> {
    let c = &*case.compiled;
    let mut m = Machine::new(case.compiled.clone());
    let rules: Vec<Rule> = (0..c.rules.len()).map(|i| Rule::compile(c, i)).collect();
    let mut out = Vec::new();
    for ev in &case.events {
        m.expire(ev.ts, |key, v, at| out.push(verdict_line(c, ev.line, key, v, None, Some(at))));
        let Some(src) = ev.source else { continue };
        for r in rules.iter().filter(|r| c.rules[r.index].source == src) {
            if !m.holds(r, &ev.fields) {
                continue;
            }
            let key = m.key_of(r, &ev.fields);
            let v = m.fire(r, key, &ev.fields, ev.ts);
            if v != Verdict::Ok {
                out.push(verdict_line(c, ev.line, key, v, Some(r.event), None));
            }
        }
    }
    out
}

/// The events as the C engines read them: `LINE TS SOURCE F0 .. F15` per
/// line, SOURCE -1 for time passing.
pub fn numeric_events(case: &Case) -> String {
    let mut s = String::new();
    for ev in &case.events {
        let src = ev.source.map_or(-1, |x| x as i64);
        s += &format!("{} {} {src}", ev.line, ev.ts);
        for f in ev.fields {
            s += &format!(" {f}");
        }
        s.push('\n');
    }
    s
}

/// A random event list for a case's binding, `n` events long: mostly events
/// the instance's state allows (so runs go deep), some it does not, random
/// field values for conditions and guards, time steps that sometimes pass
/// an invariant's bound, `tick`s, and now and then a `forget` rule's source
/// when there is one.  Deterministic in `seed` (and, for a binding without
/// `forget`, the same list as before forgets were drawn).
pub fn random_events(c: &Compiled, b: &Binding, n: usize, seed: u64) -> String {
    let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move |m: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % m.max(1)
    };
    let keys = 3i64;
    let has_forget = c.rules.iter().any(|r| r.event == FORGET);
    let mut state = vec![0u16; keys as usize];
    let mut out = String::new();
    let mut ts: u64 = 0;
    for _ in 0..n {
        ts += match next(10) {
            0 => 2 + next(20_000),
            _ => 1 + next(600),
        };
        if next(12) == 0 {
            out += &format!("{ts} tick\n");
            continue;
        }
        let k = next(keys as u64) as usize;
        let allowed: Vec<u16> = (0..c.nevents).filter(|&e| c.next[state[k] as usize * c.nevents as usize + e as usize] != NONE).collect();
        let event = if has_forget && next(25) == 0 {
            FORGET
        } else if !allowed.is_empty() && next(5) != 0 {
            allowed[next(allowed.len() as u64) as usize]
        } else {
            next(c.nevents as u64) as u16
        };
        let rules: Vec<usize> = (0..c.rules.len()).filter(|&r| c.rules[r].event == event).collect();
        let Some(&r) = rules.get(next(rules.len().max(1) as u64) as usize) else { continue };
        let rule = &b.rules[r];
        let names = rule.source.fields();
        let mut line = format!("{ts} {}", rule.source);
        for (i, name) in names.iter().enumerate() {
            let v = if Some(i) == rule.key { k as i64 } else { [0, 1, 1, 1, 2, -1][next(6) as usize] };
            if v != 0 {
                line += &format!(" {name}={v}");
            }
        }
        let to = if event == FORGET { NONE } else { c.next[state[k] as usize * c.nevents as usize + event as usize] };
        state[k] = if to == NONE { 0 } else { to };
        out += &line;
        out.push('\n');
    }
    out
}
