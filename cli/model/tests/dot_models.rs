//! The .dot front end, dot2c and render on real model files: vigil's own
//! (models/, tests/lit/models/inputs/) and the Linux kernel's RV models in
//! <repo>/../shared/models/kernel-rv/ (read in place; when that directory is
//! missing the kernel tests say so and check nothing else).

use std::path::{Path, PathBuf};

use vigil_model::{dot, dot2c, render, Model};

mod common;
use common::{dot_files, kernel_rv, repo};


fn inputs() -> PathBuf {
    repo().join("tests/lit/models/inputs")
}

fn expected(name: &str) -> String {
    let p = repo().join("tests/lit/models/expected").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}



fn load(path: &Path) -> Model {
    Model::from_file(path).unwrap_or_else(|d| panic!("{d}"))
}

/// The canonical order: initial first, the rest sorted, events sorted, no
/// duplicates; tables the right shape.
fn check_invariants(m: &Model) {
    assert_eq!(m.initial, 0);
    let rest = &m.states[1..];
    assert!(rest.windows(2).all(|w| w[0] < w[1]), "{:?}", m.states);
    assert!(!rest.contains(&m.states[0]));
    assert!(m.events.windows(2).all(|w| w[0] < w[1]), "{:?}", m.events);
    assert_eq!(m.finals.len(), m.states.len());
    assert!(m.finals.iter().any(|f| *f));
    assert_eq!(m.function.len(), m.states.len());
    assert!(m.function.iter().all(|row| row.len() == m.events.len()));
    assert_eq!(m.state_lines.len(), m.states.len());
    assert_eq!(m.event_lines.len(), m.events.len());
    assert!(m.state_lines.iter().chain(&m.event_lines).all(|l| *l > 0));
    // Every event is used somewhere.
    for e in 0..m.events.len() {
        assert!(
            m.function.iter().any(|row| row[e].is_some()),
            "{}",
            m.events[e]
        );
    }
}

/// Rendering (without highlight) gives a model that means the same.
fn check_round_trip(m: &Model) {
    let text = render::to_dot(m, None);
    let back = dot::parse(&m.path, &text).unwrap_or_else(|d| panic!("{d}\n{text}"));
    assert_eq!(back.states, m.states);
    assert_eq!(back.events, m.events);
    assert_eq!(back.function, m.function);
    assert_eq!(back.finals, m.finals);
    let guards = |m: &Model| {
        let mut v: Vec<_> = m
            .annotations
            .iter()
            .map(|a| (a.from, a.event, a.guard.clone(), a.resets.clone()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(guards(&back), guards(m));
    let invs = |m: &Model| {
        let mut v: Vec<_> = m
            .invariants
            .iter()
            .map(|i| (i.state, i.text.clone()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(invs(&back), invs(m));
    // Same C, but for the lines the hybrid comment cites.
    let untimed = |m: &Model| {
        let c = dot2c::generate(m, None);
        c.split("\n/*\n").next().unwrap().to_string()
    };
    assert_eq!(untimed(&back), untimed(m));
}

#[test]
fn every_kernel_model_parses_and_generates() {
    let Some(dir) = kernel_rv() else { return };
    let files = dot_files(&dir);
    assert!(files.len() >= 13, "{files:?}");
    for f in &files {
        let m = load(f);
        check_invariants(&m);
        check_round_trip(&m);
        let name = m.name.clone();
        let c = dot2c::generate(&m, None);
        assert!(c.starts_with("enum states {\n"), "{}", f.display());
        assert!(c.ends_with(if m.is_hybrid() { " */\n" } else { "};\n\n" }));
        let k = dot2c::generate(&m, Some(&name));
        assert!(k.contains(&format!(
            "static const struct automaton_{name} automaton_{name} = {{\n"
        )));
        assert_eq!(m.is_hybrid(), !m.unsupported().is_empty());
    }
}

#[test]
fn kernel_model_facts() {
    let Some(dir) = kernel_rv() else { return };
    let wip = load(&dir.join("wip.dot"));
    assert_eq!(wip.states, ["preemptive", "non_preemptive"]);
    assert_eq!(
        wip.events,
        ["preempt_disable", "preempt_enable", "sched_waking"]
    );
    assert_eq!(wip.finals, [true, false]);
    assert_eq!(wip.function[0], [Some(1), None, None]);
    assert_eq!(wip.function[1], [None, Some(0), Some(1)]);

    // The kernel's wwnr marks not_running with `shape = ellipse`, then
    // redeclares it plaintext: still final.
    let wwnr = load(&dir.join("wwnr.dot"));
    assert_eq!(wwnr.finals, [true, false]);

    let sssw = load(&dir.join("sched/sssw.dot"));
    assert_eq!(sssw.states[0], "runnable");
    assert_eq!(sssw.finals, [true, false, false, false]);

    let nrp = load(&dir.join("sched/nrp.dot"));
    assert_eq!(
        nrp.states,
        [
            "preempt_irq",
            "any_thread_running",
            "nested_preempt",
            "rescheduling"
        ]
    );
    assert_eq!(nrp.finals, [false, true, false, false]);

    let stall = load(&dir.join("stall.dot"));
    assert_eq!(stall.invariants.len(), 1);
    assert_eq!(stall.invariants[0].text, "clk < threshold_jiffies");
    assert_eq!(stall.states[stall.invariants[0].state], "enqueued");
    assert_eq!(stall.invariants[0].line, 9);
    assert_eq!(stall.annotations.len(), 2);
    assert!(stall
        .annotations
        .iter()
        .all(|a| a.guard.is_none() && a.resets == ["clk"]));
    // running -> running carries "sched_switch_in\nsched_wakeup" untimed.
    let running = stall.state_index("running").unwrap();
    let wakeup = stall.event_index("sched_wakeup").unwrap();
    assert_eq!(stall.step(running, wakeup), Some(running));

    let opid = load(&dir.join("sched/opid.dot"));
    let guards: Vec<_> = opid
        .annotations
        .iter()
        .map(|a| a.guard.clone().unwrap())
        .collect();
    assert_eq!(guards, ["irq_off == 1", "irq_off == 1 && preempt_off == 1"]);

    let nomiss = load(&dir.join("deadline/nomiss.dot"));
    assert_eq!(nomiss.invariants.len(), 2);
    let sleeping = nomiss.state_index("sleeping").unwrap();
    let throttle = nomiss.event_index("dl_throttle").unwrap();
    let a = nomiss
        .annotations
        .iter()
        .find(|a| a.from == sleeping && a.event == throttle)
        .unwrap();
    assert_eq!(
        a.guard.as_deref(),
        Some("is_constr_dl == 1 || is_defer == 1")
    );
    assert_eq!(a.line, 33);
}

#[test]
fn vigil_models_match_the_goldens() {
    let cases = [
        (repo().join("models/wwnr.dot"), "wwnr"),
        (inputs().join("lock.dot"), "lock"),
        (inputs().join("session.dot"), "session"),
        (inputs().join("quirks.dot"), "quirks"),
        (inputs().join("timer.dot"), "timer"),
    ];
    for (path, name) in cases {
        let m = load(&path);
        check_invariants(&m);
        check_round_trip(&m);
        assert_eq!(
            dot2c::generate(&m, None),
            expected(&format!("{name}.dot2c.h")),
            "{name}"
        );
        assert_eq!(
            dot2c::generate(&m, Some(name)),
            expected(&format!("{name}.dot2k.h")),
            "{name}"
        );
    }
}

#[test]
fn quirks_means_the_kernel_style_model() {
    let m = load(&inputs().join("quirks.dot"));
    assert_eq!(m.states, ["idle", "done", "running", "waiting"]);
    assert_eq!(
        m.events,
        ["finish", "preempt", "reset", "resume", "start", "submit"]
    );
    // Nothing marked: the initial state is final.
    assert_eq!(m.finals, [true, false, false, false]);
    // `"do" + "ne"` and the `re\<newline>set` continuation.
    let done = m.state_index("done").unwrap();
    assert_eq!(m.step(done, m.event_index("reset").unwrap()), Some(0));
    assert_eq!(m.state_lines[done], 11);
}

#[test]
fn malformed_inputs_name_their_line() {
    let dir = inputs().join("malformed");
    let cases: &[(&str, u32, &str)] = &[
        ("not-digraph.dot", 1, "not a digraph"),
        ("unterminated-string.dot", 5, "unterminated string"),
        ("unterminated-comment.dot", 5, "unterminated comment"),
        ("missing-target.dot", 5, "missing target state after `->`"),
        ("unclosed-brace.dot", 1, "is a `}` missing after line 5?"),
        ("extra-brace.dot", 7, "closes nothing"),
        ("no-initial.dot", 3, "no initial state"),
        (
            "two-initials.dot",
            4,
            "two initial states: `__init_a` (line 2) and `__init_b` (line 4)",
        ),
        (
            "nondeterministic.dot",
            9,
            "event `go` leads from state `idle` to `left` (line 7) and to `right` (line 9)",
        ),
        ("undeclared-state.dot", 6, "edge to undeclared state `busy`"),
        ("unlabelled-edge.dot", 5, "has no label"),
        ("empty-event.dot", 5, "empty event name"),
        (
            "bad-state-name.dot",
            4,
            "state name `in-progress` is not a valid C identifier",
        ),
        (
            "bad-event-name.dot",
            5,
            "event name `2nd_tick` is not a valid C identifier",
        ),
    ];
    let mut seen = dot_files(&dir);
    for (file, line, msg) in cases {
        let path = dir.join(file);
        let d = Model::from_file(&path).expect_err(file);
        assert_eq!(d.file, path);
        assert_eq!(d.line, *line, "{file}: {d}");
        assert!(d.message.contains(msg), "{file}: {d}");
        seen.retain(|p| p != &path);
    }
    assert!(seen.is_empty(), "malformed inputs without a case: {seen:?}");
}

#[test]
fn missing_file_is_a_diagnostic() {
    let d = Model::from_file(Path::new("/nonexistent/m.dot")).unwrap_err();
    assert_eq!(d.line, 0);
    assert!(d
        .to_string()
        .starts_with("/nonexistent/m.dot: cannot read model"));
}

#[test]
fn svg_highlights_in_red() {
    if std::process::Command::new("dot")
        .arg("-V")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED: Graphviz `dot` is not installed");
        return;
    }
    let m = load(&repo().join("models/wwnr.dot"));
    let running = m.state_index("running").unwrap();
    let wakeup = m.event_index("wakeup").unwrap();
    let svg = String::from_utf8(render::to_svg(&m, Some((running, wakeup))).unwrap()).unwrap();
    assert!(
        svg.contains("<title>running&#45;&gt;__vigil_violation</title>"),
        "{svg}"
    );
    assert!(
        svg.contains("stroke=\"red\" stroke-width=\"2\" stroke-dasharray=\"5,2\""),
        "{svg}"
    );
    assert!(svg.contains("✗ wakeup"));
    let plain = String::from_utf8(render::to_svg(&m, None).unwrap()).unwrap();
    assert!(!plain.contains("red"));
    assert!(render::dot_to_svg("digraph {").is_err());
}

/// Found by fuzzing (tests/fuzz-rust, target dot): the same guarded
/// transition written on two edges gave two annotations, which `render`
/// drew as one label with two guards, so the rendering (documented to parse
/// back into the same model) was refused.  Now one annotation; two
/// different guards on one transition are refused with the line.
#[test]
fn repeated_guarded_edge_renders_back() {
    let text = r#"digraph g {
        {node [shape = plaintext, style=invis, label=""] "__init_a"};
        {node [shape = circle] "a"};
        {node [shape = circle] "b"};
        "__init_a" -> "a";
        "a" -> "b" [ label = "go;x == 1;reset(clk)" ];
        "a" -> "b" [ label = "go;x == 1;reset(clk)" ];
        "a" -> "b" [ label = "go;reset(t)" ];
        "b" -> "a" [ label = "back" ];
    }"#;
    let m = dot::parse(Path::new("rep.dot"), text).unwrap();
    assert_eq!(m.annotations.len(), 1, "{:?}", m.annotations);
    assert_eq!(m.annotations[0].guard.as_deref(), Some("x == 1"));
    assert_eq!(m.annotations[0].resets, vec!["clk", "t"]);
    assert_eq!(m.annotations[0].line, 6);
    let src = render::to_dot(&m, None);
    let again = dot::parse(Path::new("rep.dot"), &src).unwrap_or_else(|d| panic!("{d}\n{src}"));
    assert_eq!(
        again.annotations,
        m.annotations
            .iter()
            .map(|a| vigil_model::EdgeAnnotation {
                line: again.annotations[0].line,
                ..a.clone()
            })
            .collect::<Vec<_>>()
    );

    let two = text.replace(
        r#""a" -> "b" [ label = "go;reset(t)" ];"#,
        r#""a" -> "b" [ label = "go;y == 2" ];"#,
    );
    let e = dot::parse(Path::new("rep.dot"), &two).unwrap_err();
    assert_eq!(e.line, 8, "{e}");
    assert!(
        e.to_string()
            .starts_with("rep.dot:8: two guards (`x == 1` on line 6 and `y == 2`)"),
        "{e}"
    );
}
