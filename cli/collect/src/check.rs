//! `vigil collect --check MODEL`: the automaton models run on the events as
//! they arrive, with the engine `vigil check` uses (vigil_trace::engine),
//! one set of instances per producer stream.
//!
//! Events of a stream's threads are merged in time order before they reach
//! the engine: each thread's events wait in a queue until the stream's
//! next `mark` (docs/stream-format.md) says every event before some time
//! has arrived; those are then taken in time order across threads.  An
//! event that arrives after a mark covering its time is processed at once
//! and counted as late (its order against other threads is not certain).
//! At the stream's end, or when its last connection closes, everything
//! queued is processed.  Only events some rule needs are queued.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::io::Write;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use vigil_model::binding::Scope;
use vigil_model::{Binding, Model};
use vigil_stream::{Batch, EventDecl, EventKind, Hello};
use vigil_trace::engine::{Compiled, Machine, Rule, Verdict, FORGET};

use crate::catalog::ViolationRow;
use crate::report::{self, Found};
use crate::route::{self, Get, Route};

/// A model and its binding, as the user named them.
pub struct ModelRun {
    pub model: Model,
    pub binding: Binding,
    /// How to name the model to `vigil render`.
    pub model_arg: String,
    /// `model` and `binding` compiled (vigil_model::compiled::compile).
    pub compiled: Arc<Compiled>,
}

pub enum CheckWork {
    Hello { stream: String, hello: Box<Hello> },
    Schema { stream: String, decls: Vec<EventDecl> },
    Batch { stream: String, batch: Arc<Batch> },
    Mark { stream: String, ns: i64 },
    End { stream: String },
    /// The stream's last connection closed without an end.
    Idle { stream: String },
}

/// What the checker saw, for the summary.
#[derive(Debug, Default, Clone, Copy)]
pub struct CheckTotals {
    pub events: u64,
    pub fired: u64,
    pub violations: u64,
    pub late: u64,
    /// Rule firings skipped because a field is not in the stream.
    pub skipped: u64,
}

/// The checker thread's handle.
pub struct Checker {
    tx: Option<SyncSender<CheckWork>>,
    handle: Option<JoinHandle<CheckTotals>>,
    /// Violations, for the store's catalog.
    pub found: Receiver<(String, ViolationRow)>,
}

impl Checker {
    pub fn start(runs: Vec<ModelRun>, json: bool, out: Box<dyn Write + Send>) -> Checker {
        let (tx, rx) = mpsc::sync_channel(4096);
        let (ftx, found) = mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("vigil-check".into())
            .spawn(move || {
                let runs: Vec<Run> = runs.into_iter().map(Run::new).collect();
                let mut t = Thread {
                    runs,
                    streams: HashMap::new(),
                    totals: CheckTotals::default(),
                    json,
                    out,
                    found: ftx,
                    warned: Vec::new(),
                };
                for w in rx {
                    t.handle(w);
                }
                t.totals
            })
            .expect("spawning the checker thread");
        Checker {
            tx: Some(tx),
            handle: Some(handle),
            found,
        }
    }

    pub fn send(&self, w: CheckWork) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(w);
        }
    }

    /// Processes everything sent so far and stops.
    pub fn finish(&mut self) -> CheckTotals {
        self.tx = None;
        self.handle
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default()
    }
}

struct Run {
    m: ModelRun,
    rules: Vec<Rule>,
}

impl Run {
    fn new(m: ModelRun) -> Run {
        let rules = (0..m.binding.rules.len())
            .map(|i| Rule::compile(&m.compiled, i))
            .collect();
        Run { m, rules }
    }
}

/// One queued event: its words live in the thread's arena.
#[derive(Debug, Clone, Copy)]
struct Ev {
    ns: i64,
    tseq: i64,
    id: u32,
    start: u32,
    len: u8,
}

#[derive(Default)]
struct ThreadQ {
    q: VecDeque<Ev>,
    words: Vec<u64>,
    /// Open calls (entry id, start in `stack`, words), innermost last.
    calls: Vec<(u32, usize, usize)>,
    stack: Vec<u64>,
}

struct StreamCheck {
    program: String,
    pid: i64,
    decls: Vec<EventDecl>,
    /// [run][event id]: the rules the event feeds.
    routes: Vec<Vec<Vec<Route>>>,
    /// Per event id: an entry whose arguments a return rule reads.
    keep_entry: Vec<bool>,
    /// Per return event id: the entry event of the same function.
    entry_of: Vec<Option<u32>>,
    machines: Vec<Machine>,
    threads: HashMap<i64, ThreadQ>,
    /// Every event before this has been processed.
    done_until: i64,
}

struct Thread {
    runs: Vec<Run>,
    streams: HashMap<String, StreamCheck>,
    totals: CheckTotals,
    json: bool,
    out: Box<dyn Write + Send>,
    found: Sender<(String, ViolationRow)>,
    /// (run, rule) pairs already warned about.
    warned: Vec<(usize, usize)>,
}

impl Thread {
    fn handle(&mut self, w: CheckWork) {
        match w {
            CheckWork::Hello { stream, hello } => {
                let runs = &self.runs;
                let sc = self.streams.entry(stream).or_insert_with(|| StreamCheck {
                    program: hello.program.clone(),
                    pid: hello.pid as i64,
                    decls: Vec::new(),
                    routes: vec![Vec::new(); runs.len()],
                    keep_entry: Vec::new(),
                    entry_of: Vec::new(),
                    machines: runs.iter().map(|r| Machine::new(r.m.compiled.clone())).collect(),
                    threads: HashMap::new(),
                    done_until: i64::MIN,
                });
                sc.declare(runs, &hello.events);
            }
            CheckWork::Schema { stream, decls } => {
                if let Some(sc) = self.streams.get_mut(&stream) {
                    sc.declare(&self.runs, &decls);
                }
            }
            CheckWork::Batch { stream, batch } => self.batch(&stream, &batch),
            CheckWork::Mark { stream, ns } => self.process(&stream, ns),
            CheckWork::End { stream } | CheckWork::Idle { stream } => {
                self.process(&stream, i64::MAX)
            }
        }
    }

    fn batch(&mut self, stream: &str, b: &Batch) {
        let Some(sc) = self.streams.get_mut(stream) else { return };
        let th = b.header.thread;
        let late_before = sc.done_until;
        let tq = sc.threads.entry(th).or_default();
        let mut late = false;
        for r in b.records() {
            self.totals.events += 1;
            let id = r.id as usize;
            let wanted = sc.keep_entry.get(id).copied().unwrap_or(false)
                || sc.routes.iter().any(|per| per.get(id).is_some_and(|v| !v.is_empty()));
            if !wanted {
                continue;
            }
            let ns = b.time_ns(&r);
            late |= ns < late_before;
            let start = tq.words.len() as u32;
            tq.words.extend(r.args.iter());
            tq.q.push_back(Ev {
                ns,
                tseq: r.tseq,
                id: r.id,
                start,
                len: r.args.len() as u8,
            });
        }
        if late {
            // Behind a mark already passed: process now, in order per thread.
            self.totals.late += 1;
            self.process(stream, late_before);
        }
    }

    /// Processes every queued event before `until`, in time order across
    /// the stream's threads.
    fn process(&mut self, stream: &str, until: i64) {
        let Some(mut sc) = self.streams.remove(stream) else { return };
        let mut heap: BinaryHeap<Reverse<(i64, i64)>> = sc
            .threads
            .iter()
            .filter_map(|(&t, q)| q.q.front().map(|e| Reverse((e.ns, t))))
            .collect();
        while let Some(Reverse((ns, t))) = heap.pop() {
            if ns >= until && until != i64::MAX {
                break;
            }
            let tq = sc.threads.get_mut(&t).expect("queued thread");
            let ev = tq.q.pop_front().expect("queued event");
            let words: Vec<u64> = tq.words[ev.start as usize..ev.start as usize + ev.len as usize].to_vec();
            if tq.q.is_empty() {
                tq.words.clear();
            } else {
                heap.push(Reverse((tq.q[0].ns, t)));
            }
            self.step(stream, &mut sc, t, &ev, &words);
        }
        sc.done_until = sc.done_until.max(until);
        self.streams.insert(stream.to_string(), sc);
    }

    fn step(&mut self, stream: &str, sc: &mut StreamCheck, thread: i64, ev: &Ev, words: &[u64]) {
        let id = ev.id as usize;
        let tq = sc.threads.get_mut(&thread).expect("thread");
        if sc.keep_entry[id] {
            tq.calls.push((ev.id, tq.stack.len(), words.len()));
            tq.stack.extend_from_slice(words);
        }
        let entry_words: Option<Vec<u64>> = sc.entry_of[id].and_then(|entry| {
            let pos = tq.calls.iter().rposition(|c| c.0 == entry)?;
            let (_, start, len) = tq.calls[pos];
            let w = tq.stack[start..start + len].to_vec();
            tq.stack.truncate(start);
            tq.calls.truncate(pos);
            Some(w)
        });
        for ri in 0..self.runs.len() {
            if sc.machines[ri].timed() {
                let mut found = Vec::new();
                sc.machines[ri].expire(ev.ns.max(0) as u64, |key, v, _| found.push((key, v)));
                for (key, v) in found {
                    self.violation(stream, sc, ri, None, thread, ev, key, v);
                }
            }
            for k in 0..sc.routes[ri].get(id).map_or(0, |v| v.len()) {
                let route = &sc.routes[ri][id][k];
                let mut vals = [0i64; 16];
                let ok = route.missing.is_none()
                    && route.gets.iter().all(|&(f, g)| match value(g, words, entry_words.as_deref(), thread, sc.pid) {
                        Some(v) => {
                            vals[f] = v;
                            true
                        }
                        None => false,
                    });
                let rule_idx = route.rule;
                if !ok {
                    let what = route.missing.unwrap_or("the matching call's arguments");
                    self.skip(ri, rule_idx, what);
                    continue;
                }
                let run = &self.runs[ri];
                let rule = &run.rules[rule_idx];
                let machine = &mut sc.machines[ri];
                if !machine.holds(rule, &vals) {
                    continue;
                }
                self.totals.fired += 1;
                let key = machine.key_of(rule, &vals);
                let v = machine.fire(rule, key, &vals, ev.ns.max(0) as u64);
                if v != Verdict::Ok {
                    self.violation(stream, sc, ri, Some(rule_idx), thread, ev, key, v);
                }
            }
        }
    }

    #[cold]
    fn skip(&mut self, run: usize, rule: usize, what: &str) {
        self.totals.skipped += 1;
        if self.warned.contains(&(run, rule)) {
            return;
        }
        self.warned.push((run, rule));
        let b = &self.runs[run].m.binding;
        let line = b.rules[self.runs[run].rules[rule].index].line;
        eprintln!(
            "vigil collect: {}:{line}: warning: `{what}` is not in the stream: this rule is not checked",
            b.path.display()
        );
    }

    #[allow(clippy::too_many_arguments)]
    #[cold]
    fn violation(
        &mut self,
        stream: &str,
        sc: &StreamCheck,
        run: usize,
        rule: Option<usize>,
        thread: i64,
        ev: &Ev,
        key: i64,
        verdict: Verdict,
    ) {
        self.totals.violations += 1;
        let r = &self.runs[run];
        let m = &r.m.model;
        let state = verdict.from().unwrap_or(0) as u32;
        let kind = match verdict {
            Verdict::Guard { .. } => report::Kind::Guard,
            Verdict::Invariant { .. } => report::Kind::Invariant,
            Verdict::Ltl { .. } => report::Kind::Ltl,
            Verdict::NotFinal { .. } => report::Kind::NotFinal,
            _ => report::Kind::Event,
        };
        let decl = &sc.decls[ev.id as usize];
        let event = match rule.map(|i| r.rules[i].event) {
            None => "none".to_string(),
            Some(FORGET) => "forget".to_string(),
            Some(e) => m.events[e as usize].clone(),
        };
        let brule = rule.map(|i| &r.m.binding.rules[r.rules[i].index]);
        let rule_at = brule.map(|b| format!("{}:{}", r.m.binding.path.display(), b.line));
        let f = Found {
            kind,
            model: &m.name,
            model_arg: &r.m.model_arg,
            stream,
            program: &sc.program,
            pid: sc.pid,
            thread,
            tseq: ev.tseq,
            ns: ev.ns,
            source: format!("{} {}", decl.kind.as_str(), decl.name),
            rule_source: brule.map(|b| b.source.to_string()),
            scope: r.m.binding.scope.as_str(),
            key: (r.m.binding.scope != Scope::Global).then_some(key),
            key_field: brule.and_then(|b| b.key_field()),
            state: &vigil_trace::conform::state_text(&r.m.compiled, verdict),
            event: &event,
            allowed: m.allowed(state as usize),
            rule: rule_at,
        };
        let _ = if self.json {
            f.write_json(&mut self.out)
        } else {
            f.write_text(&mut self.out)
        };
        let _ = self.out.flush();
        let _ = self.found.send((stream.to_string(), f.row()));
    }
}

fn value(g: Get, words: &[u64], entry: Option<&[u64]>, thread: i64, pid: i64) -> Option<i64> {
    match g {
        Get::Word(i) => words.get(i).map(|&w| w as i64),
        Get::EntryWord(i) => entry.and_then(|e| e.get(i)).map(|&w| w as i64),
        Get::Ret => words.last().map(|&w| w as i64),
        Get::Thread => Some(thread),
        Get::Pid => Some(pid),
        Get::Missing(_) => None,
    }
}

impl StreamCheck {
    fn declare(&mut self, runs: &[Run], decls: &[EventDecl]) {
        let known = self.decls.len();
        for d in decls.iter().filter(|d| d.id as usize >= known) {
            self.decls.push(d.clone());
            for (ri, r) in runs.iter().enumerate() {
                self.routes[ri].push(route::routes(&r.m.binding, &r.rules, d));
            }
            self.keep_entry.push(false);
            self.entry_of.push(None);
        }
        // A return rule that reads arguments keeps its function's entries.
        for i in 0..self.decls.len() {
            let d = &self.decls[i];
            if d.kind != EventKind::Return {
                continue;
            }
            let reads_args = self.routes.iter().any(|per| {
                per[i].iter().any(|r| r.gets.iter().any(|g| matches!(g.1, Get::EntryWord(_))))
            });
            let entry = self
                .decls
                .iter()
                .position(|e| e.kind == EventKind::Entry && e.name == d.name);
            if let (true, Some(e)) = (reads_args, entry) {
                self.entry_of[i] = Some(e as u32);
                self.keep_entry[e] = true;
            }
        }
    }
}
