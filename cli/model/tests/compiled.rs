//! The compiled model and the reference step function: every model vigil
//! ships or tests, and every kernel RV model, compiles; a plain step is the
//! model's transition function; the hybrid semantics on small models whose
//! answers are worked out by hand.

use std::path::{Path, PathBuf};

use vigil_model::compiled::{compile, Compiled, Inst, Kind, Verdict, NEVER, NONE};
use vigil_model::{Binding, Model};

mod common;
use common::{dot_files, kernel_rv, repo};


/// vigil's models and test models, and the kernel's RV models when
/// ../shared is there.
fn model_files() -> Vec<PathBuf> {
    let mut out = dot_files(&repo().join("models"));
    out.extend(dot_files(&repo().join("tests/lit/models/inputs")));
    if let Some(k) = kernel_rv() {
        out.extend(dot_files(&k));
    }
    out
}

/// A binding that feeds every event from `call:EVENT`, per task, with the
/// constants and environment variables the hybrid models name.
fn synthetic_binding(m: &Model) -> Binding {
    let mut text = String::from("scope task\nconst threshold_jiffies = 4s\nconst threshold = 1s\nconst DEADLINE_NS = 10ms\n");
    for (i, env) in ["irq_off", "preempt_off", "is_defer", "is_constr_dl"].iter().enumerate() {
        text += &format!("env {env} = arg{i}\n");
    }
    for e in &m.events {
        text += &format!("{e} <- call:{e}\n");
    }
    Binding::from_str(Path::new("synthetic.bind"), &text, m).unwrap_or_else(|d| panic!("{d}"))
}

fn load(p: &Path) -> Option<Model> {
    Model::from_file(p).ok()
}

#[test]
fn every_model_compiles_and_its_table_is_the_function() {
    let mut n = 0;
    for p in model_files() {
        let Some(m) = load(&p) else { continue };
        let c = compile(&m, &synthetic_binding(&m)).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(c.kind == Kind::Ha, m.is_hybrid(), "{}", p.display());
        for s in 0..m.states.len() {
            for e in 0..m.events.len() {
                let want = m.function[s][e].map_or(NONE, |t| t as u16);
                assert_eq!(c.next[s * m.events.len() + e], want, "{} {s} {e}", p.display());
            }
        }
        n += 1;
    }
    assert!(n >= 10, "only {n} models found");
}

/// A tiny deterministic generator (the tests must not depend on a crate).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn a_plain_step_is_the_transition_function() {
    let mut rng = Lcg(7);
    for p in model_files() {
        let Some(m) = load(&p) else { continue };
        if m.is_hybrid() {
            continue;
        }
        let c = compile(&m, &synthetic_binding(&m)).unwrap();
        let mut inst = Inst::UNMONITORED;
        let mut state = None::<usize>;
        for _ in 0..2000 {
            let e = rng.next() as usize % m.events.len();
            let v = c.decide(&c.rules[e], &mut inst, &[0; 16], 0);
            let s = state.unwrap_or(0);
            let want = match m.step(s, e) {
                Some(t) => {
                    state = Some(t);
                    Verdict::Ok
                }
                None => {
                    state = Some(0);
                    Verdict::Event { from: s as u16 }
                }
            };
            assert_eq!(v, want, "{}", p.display());
            assert_eq!(inst.state(), state.map(|s| s as u16));
        }
    }
}

fn compile_text(dot: &str, bind: &str) -> Result<Compiled, String> {
    let dir = std::env::temp_dir().join(format!("vigil-compiled-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("m{}.dot", dot.len()));
    std::fs::write(&path, dot).unwrap();
    let m = Model::from_file(&path).map_err(|d| d.message)?;
    let b = Binding::from_str(Path::new("t.bind"), bind, &m).map_err(|d| d.to_string())?;
    compile(&m, &b).map_err(|d| d.to_string())
}

/// armed --rearm;reset(clk)--> armed, armed --expire;clk >= 10ms--> fired,
/// armed has the invariant clk < 20ms.
const TIMER: &str = r#"digraph state_automaton {
	{node [shape = plaintext, style=invis, label=""] "__init_armed"};
	{node [shape = doublecircle] "armed"};
	{node [shape = circle] "fired"};
	"__init_armed" -> "armed";
	"armed" [label = "armed\nclk < 20ms"];
	"armed" -> "armed" [ label = "rearm;reset(clk)" ];
	"armed" -> "fired" [ label = "expire;clk >= 10ms" ];
	"fired" -> "armed" [ label = "rearm;reset(clk)" ];
}"#;

const MS: u64 = 1_000_000;

#[test]
fn guards_resets_and_invariants() {
    let c = compile_text(TIMER, "scope global\nexpire <- call:expire\nrearm <- call:rearm\n").unwrap();
    assert_eq!(c.kind, Kind::Ha);
    let (expire, rearm) = (&c.rules[0], &c.rules[1]);
    let f = [0i64; 16];
    // Started at 0 in armed: the invariant counts from the state's entry
    // while the clock was never reset; a guard on that clock passes.
    let mut i = Inst::UNMONITORED;
    assert_eq!(c.decide(rearm, &mut i, &f, 0), Verdict::Ok);
    assert_eq!((i.reset_ns[0], i.expiry_ns), (0, 20 * MS));
    assert_eq!(c.decide(expire, &mut i, &f, 5 * MS), Verdict::Guard { from: 0, guard: 0 });
    assert_eq!(i.state(), Some(0), "reset to the initial state (no start rules)");
    // Reset at 10ms by the restart: expire is allowed from 20ms, the
    // invariant fails at 30ms.
    let mut i = Inst::UNMONITORED;
    assert_eq!(c.decide(rearm, &mut i, &f, 10 * MS), Verdict::Ok);
    assert_eq!(c.decide(expire, &mut i, &f, 20 * MS), Verdict::Ok);
    assert_eq!(i.expiry_ns, NEVER, "fired has no invariant");
    assert_eq!(c.decide(rearm, &mut i, &f, 21 * MS), Verdict::Ok);
    assert_eq!(i.expiry_ns, 41 * MS);
    assert_eq!(c.expire(&mut i, 41 * MS - 1), Verdict::Ok);
    assert_eq!(c.expire(&mut i, 41 * MS), Verdict::Invariant { from: 0 });
    // A late timer is caught by the next event.
    let mut i = Inst::UNMONITORED;
    c.decide(rearm, &mut i, &f, 0);
    assert_eq!(c.decide(expire, &mut i, &f, 25 * MS), Verdict::Invariant { from: 0 });
}

#[test]
fn environment_variables_come_from_fields() {
    let opid = r#"digraph state_automaton {
	{node [shape = plaintext, style=invis, label=""] "__init_any"};
	{node [shape = doublecircle] "any"};
	"__init_any" -> "any";
	"any" -> "any" [ label = "waking;irq_off == 1 && preempt_off == 1\nresched;irq_off == 1 || 1 == preempt_off" ];
}"#;
    let c = compile_text(opid, "scope cpu\nenv irq_off = arg1\nenv preempt_off = arg2\nwaking <- call:w\nresched <- call:r\n").unwrap();
    let mut i = Inst::UNMONITORED;
    let f = |irq: i64, pre: i64| {
        let mut f = [0i64; 16];
        f[1] = irq;
        f[2] = pre;
        f
    };
    assert_eq!(c.decide(&c.rules[1], &mut i, &f(1, 1), 0), Verdict::Ok);
    assert_eq!(c.decide(&c.rules[1], &mut i, &f(0, 1), 0), Verdict::Ok);
    assert_eq!(c.decide(&c.rules[1], &mut i, &f(0, 0), 0), Verdict::Guard { from: 0, guard: 1 });
    assert_eq!(c.decide(&c.rules[0], &mut i, &f(1, 1), 0), Verdict::Ok);
    assert_eq!(c.decide(&c.rules[0], &mut i, &f(0, 0), 0), Verdict::Guard { from: 0, guard: 0 });
    // Without an `env` line the field must have the variable's name.
    let e = compile_text(opid, "scope cpu\nwaking <- call:w\nresched <- call:r\n").unwrap_err();
    assert!(e.contains("t.bind:2: the guard `irq_off == 1 || 1 == preempt_off`") || e.contains("t.bind:2: the guard `irq_off == 1 && preempt_off == 1`"), "{e}");
    assert!(e.contains("reads `irq_off`, which call:w does not carry") || e.contains("which call:r"), "{e}");
    assert!(e.contains("`env irq_off = FIELD`"), "{e}");
}

#[test]
fn constants_units_and_their_errors() {
    let stall = TIMER.replace("clk < 20ms", "clk < threshold_jiffies");
    let e = compile_text(&stall, "scope task\nexpire <- call:expire\nrearm <- call:rearm\n").unwrap_err();
    assert!(e.contains(":6: invariant `clk < threshold_jiffies`: `threshold_jiffies` is not defined: give its value in the binding, `const threshold_jiffies = VALUE`"), "{e}");
    let e = compile_text(&stall, "scope task\nconst threshold_jiffies = 100j\nexpire <- call:expire\nrearm <- call:rearm\n").unwrap_err();
    assert!(e.contains("100j is in jiffies: give the tick rate in the binding (`hz 250`)"), "{e}");
    let c = compile_text(&stall, "scope task\nhz 250\nconst threshold_jiffies = 100j\nexpire <- call:expire\nrearm <- call:rearm\n").unwrap();
    assert_eq!(c.invariants[0].as_ref().unwrap().expires_after, 400 * MS);
    let bad = TIMER.replace("clk < 20ms", "clk > 20ms");
    let e = compile_text(&bad, "scope task\nexpire <- call:expire\nrearm <- call:rearm\n").unwrap_err();
    assert!(e.contains("bounds a clock from above"), "{e}");
    let bad = TIMER.replace("clk < 20ms", "other < 20ms");
    let e = compile_text(&bad, "scope task\nexpire <- call:expire\nrearm <- call:rearm\n").unwrap_err();
    assert!(e.contains("`other` is not a clock (a clock is what an edge resets: clk)"), "{e}");
    let bad = TIMER.replace("clk >= 10ms", "clk >= 10 lightyears");
    let e = compile_text(&bad, "scope task\nexpire <- call:expire\nrearm <- call:rearm\n").unwrap_err();
    assert!(e.contains(":8: guard `clk >= 10 lightyears`: unexpected `lightyears`"), "{e}");
}
