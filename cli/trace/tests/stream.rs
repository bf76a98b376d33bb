//! Streams a generated 200,000-line trace through the checker, with the
//! shipped wwnr model and binding, and checks every count and every
//! violation's line.  The trace is produced on the fly by a `Read`
//! implementation, never held in memory, in both ftrace and `trace-cmd
//! report` formats.

use std::io::{BufReader, Read};
use std::path::Path;

use vigil_model::{Binding, Model};
use vigil_trace::{Checker, Config, Summary};

const LINES: u64 = 200_000;

/// What the generator wrote, to compare with what the checker found.
#[derive(Debug, Default)]
struct Expect {
    lines: u64,
    events: u64,
    malformed: u64,
    lost_markers: u64,
    lost_events: u64,
    violations: Vec<u64>,
    tasks_started: u64,
}

/// The scheduler of a toy machine, one line at a time: for task p on cpu
/// c, `wakeup p`, `switch idle -> p`, `switch p (S) -> idle`.  Every 997th
/// cycle a wakeup of the running task is seeded between the last two;
/// every 4999th cycle a lost-events marker, every 6997th a malformed
/// wakeup (pid=xyz) are added.
struct Gen {
    trace_cmd: bool,
    pending: Vec<u8>,
    pos: usize,
    cycle: u64,
    line: u64,
    usec: u64,
    seen: std::collections::HashSet<i64>,
    expect: std::rc::Rc<std::cell::RefCell<Expect>>,
}

const TASKS: i64 = 300;

impl Gen {
    fn new(trace_cmd: bool) -> (Gen, std::rc::Rc<std::cell::RefCell<Expect>>) {
        let expect = std::rc::Rc::new(std::cell::RefCell::new(Expect::default()));
        let g = Gen {
            trace_cmd,
            pending: Vec::new(),
            pos: 0,
            cycle: 0,
            line: 0,
            usec: 0,
            seen: Default::default(),
            expect: expect.clone(),
        };
        (g, expect)
    }

    fn push(&mut self, text: String, event: bool) -> bool {
        if self.line == LINES {
            return false;
        }
        self.line += 1;
        let mut e = self.expect.borrow_mut();
        e.lines += 1;
        if event {
            e.events += 1;
        }
        self.pending.extend_from_slice(text.as_bytes());
        true
    }

    fn ts(&mut self) -> String {
        self.usec += 7;
        format!(
            "{}.{:06}",
            1000 + self.usec / 1_000_000,
            self.usec % 1_000_000
        )
    }

    fn header(&mut self, comm: &str, pid: i64, cpu: i64) -> String {
        let ts = self.ts();
        if self.trace_cmd {
            format!("{comm:>16}-{pid:<5} [{cpu:03}] {ts}: ")
        } else {
            format!("{comm:>16}-{pid:<7} [{cpu:03}] d..2. {ts}: ")
        }
    }

    fn wakeup(&mut self, pid: i64, cpu: i64, bad: bool) -> String {
        let h = self.header("<idle>", 0, cpu ^ 1);
        let p = if bad {
            "xyz".to_string()
        } else {
            pid.to_string()
        };
        if self.trace_cmd && !bad {
            format!("{h}sched_wakeup:         Web Content:{p} [120] CPU:{cpu:03}\n")
        } else {
            format!("{h}sched_wakeup: comm=Web Content pid={p} prio=120 target_cpu={cpu:03}\n")
        }
    }

    fn switch(&mut self, prev: i64, state: &str, next: i64, cpu: i64) -> String {
        let comm = |p: i64| {
            if p == 0 {
                format!("swapper/{cpu}")
            } else {
                "task-x".to_string()
            }
        };
        let h = self.header(if prev == 0 { "<idle>" } else { "task-x" }, prev, cpu);
        if self.trace_cmd {
            format!(
                "{h}sched_switch:         {}:{prev} [120] {state} ==> {}:{next} [120]\n",
                comm(prev),
                comm(next)
            )
        } else {
            format!(
                "{h}sched_switch: prev_comm={} prev_pid={prev} prev_prio=120 prev_state={state} ==> next_comm={} next_pid={next} next_prio=120\n",
                comm(prev),
                comm(next)
            )
        }
    }

    /// Produce the next cycle's lines; false at the end.
    fn refill(&mut self) -> bool {
        if self.line == 0 {
            let head = if self.trace_cmd {
                "cpus=2\n"
            } else {
                "# tracer: nop\n#\n"
            };
            for l in head.split_inclusive('\n') {
                self.push(l.to_string(), false);
            }
        }
        let c = self.cycle;
        self.cycle += 1;
        let pid = 100 + (c as i64 % TASKS);
        let cpu = c as i64 % 2;
        if c % 4999 == 4998 {
            self.push("CPU:1 [LOST 5 EVENTS]\n".into(), false);
            let mut e = self.expect.borrow_mut();
            e.lost_markers += 1;
            e.lost_events += 5;
        }
        if c % 6997 == 6996 {
            let l = self.wakeup(pid, cpu, true);
            if self.push(l, true) {
                self.expect.borrow_mut().malformed += 1;
            }
        }
        let l = self.wakeup(pid, cpu, false);
        let ok = self.push(l, true);
        let l = self.switch(0, "R", pid, cpu);
        let ok = ok && self.push(l, true);
        // Monitored once it has switched out asleep (the previous cycle).
        let monitored = self.seen.contains(&pid);
        if ok && c % 997 == 996 && monitored {
            let l = self.wakeup(pid, cpu, false);
            if self.push(l, true) {
                let line = self.line;
                self.expect.borrow_mut().violations.push(line);
                // Reset: not monitored until its next S switch-out.
                self.seen.remove(&pid);
            }
        }
        let l = self.switch(pid, "S", 0, cpu);
        if ok && self.push(l, true) && self.seen.insert(pid) {
            self.expect.borrow_mut().tasks_started += 1;
        }
        self.line < LINES
    }
}

impl Read for Gen {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.pos == self.pending.len() {
            self.pending.clear();
            self.pos = 0;
            let more = self.refill();
            if self.pending.is_empty() && !more {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.pending.len() - self.pos);
        buf[..n].copy_from_slice(&self.pending[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

fn models() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models")
}

fn check(trace_cmd: bool) -> (Summary, String, Expect) {
    let model = Model::from_file(&models().join("wwnr.dot")).expect("the .dot parser reads wwnr");
    let binding = Binding::from_file(&models().join("wwnr.bind"), &model).unwrap();
    let mut checker = Checker::new(&model, &binding).unwrap();
    let (gen, expect) = Gen::new(trace_cmd);
    let mut out = Vec::new();
    let mut warn = Vec::new();
    let cfg = Config {
        json: true,
        max_warnings: 1000,
        ..Config::default()
    };
    let s = checker
        .run(
            "gen",
            BufReader::with_capacity(1 << 16, gen),
            &mut out,
            &mut warn,
            &cfg,
        )
        .unwrap();
    let e = std::rc::Rc::try_unwrap(expect).unwrap().into_inner();
    let warn = String::from_utf8(warn).unwrap();
    assert_eq!(
        warn.lines().count() as u64,
        e.malformed + e.lost_markers,
        "{warn}"
    );
    (s, String::from_utf8(out).unwrap(), e)
}

fn verify(trace_cmd: bool) {
    let (s, out, e) = check(trace_cmd);
    assert_eq!(s.lines, LINES);
    assert_eq!(s.lines, e.lines);
    assert_eq!(s.events, e.events);
    assert_eq!(s.matched, e.events - e.malformed);
    assert_eq!(s.malformed, e.malformed);
    assert!(e.malformed >= 2, "{e:?}");
    assert_eq!(
        (s.lost_markers, s.lost_events),
        (e.lost_markers, e.lost_events)
    );
    assert!(e.violations.len() >= 40, "{e:?}");
    assert_eq!(s.violations, e.violations.len() as u64);
    // Every task starts once, and again after each violation.
    assert_eq!(s.instances, TASKS as u64 + e.violations.len() as u64);
    assert_eq!(s.instances, e.tasks_started);
    assert_eq!(s.live, TASKS as u64);
    let found: Vec<u64> = out
        .lines()
        .map(|l| {
            let i = l.find("\"line\":").unwrap() + 7;
            l[i..].split(',').next().unwrap().parse().unwrap()
        })
        .collect();
    assert_eq!(found, e.violations);
    assert!(out
        .lines()
        .all(|l| l.contains("\"state\":\"running\",\"event\":\"wakeup\"")));
}

#[test]
fn ftrace_200k_lines() {
    verify(false);
}

#[test]
fn trace_cmd_report_200k_lines() {
    verify(true);
}
