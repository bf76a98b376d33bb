use std::path::Path;

use super::lex::{tokenize, Tok};
use super::{is_c_identifier, parse};
use crate::{Diagnostic, EdgeAnnotation, Invariant, Model};

fn p(text: &str) -> Result<Model, Diagnostic> {
    parse(Path::new("t.dot"), text)
}

fn err(text: &str) -> (u32, String) {
    let d = p(text).expect_err("should be refused");
    (d.line, d.message)
}

#[test]
fn tokenizer_strings_and_comments() {
    let toks = tokenize(
        Path::new("t"),
        "# cpp line\n// c++\n/* a\nb */ \"x\\\"y\\n\" -> <a<b>c> 1.5 -.5\n",
    )
    .unwrap();
    let kinds: Vec<_> = toks.iter().map(|t| (t.tok.clone(), t.line)).collect();
    assert_eq!(
        kinds,
        vec![
            (
                Tok::Id {
                    text: "x\"y\\n".into(),
                    quoted: true
                },
                4
            ),
            (Tok::Arrow, 4),
            (Tok::Html("a<b>c".into()), 4),
            (
                Tok::Id {
                    text: "1.5".into(),
                    quoted: false
                },
                4
            ),
            (
                Tok::Id {
                    text: "-.5".into(),
                    quoted: false
                },
                4
            ),
            (Tok::Eof, 5),
        ]
    );
}

#[test]
fn line_continuation_in_string() {
    let toks = tokenize(Path::new("t"), "\"ab\\\ncd\" x").unwrap();
    assert_eq!(
        toks[0].tok,
        Tok::Id {
            text: "abcd".into(),
            quoted: true
        }
    );
    assert_eq!(toks[1].line, 2);
}

const MINI: &str = r#"digraph state_automaton {
	{node [shape = plaintext, style=invis, label=""] "__init_b"};
	{node [shape = circle] "b"};
	{node [shape = circle] "a"};
	"__init_b" -> "b";
	"b" -> "a" [ label = "go\nstop" ];
	"a" -> "b" [ label = "back" ];
}"#;

#[test]
fn order_and_default_final() {
    let m = p(MINI).unwrap();
    assert_eq!(m.name, "t");
    assert_eq!(m.states, vec!["b", "a"]);
    assert_eq!(m.events, vec!["back", "go", "stop"]);
    assert_eq!(m.finals, vec![true, false]);
    assert_eq!(m.function[0], vec![None, Some(1), Some(1)]);
    assert_eq!(m.function[1], vec![Some(0), None, None]);
    assert_eq!(m.state_lines, vec![3, 4]);
    assert_eq!(m.event_lines, vec![7, 6, 6]);
    assert!(!m.is_hybrid());
}

#[test]
fn any_marking_makes_a_state_final() {
    let m = p(r#"digraph g {
        {node [shape = plaintext, style=invis, label=""] "__init_a"};
        {node [shape = doublecircle] "b"};
        {node [shape = circle] "b"};
        {node [shape = circle] "a"};
        "__init_a" -> "a";
        "a" -> "b" [label = "x"];
    }"#)
    .unwrap();
    assert_eq!(m.finals, vec![false, true]);
}

#[test]
fn node_defaults_are_scoped() {
    // The doublecircle default applies inside its subgraph only.
    let m = p(r#"digraph g {
        subgraph s { node [shape = doublecircle]; a; }
        b;
        __init_a -> a;
        a -> b [label = x]; b -> a [label = y];
    }"#)
    .unwrap();
    assert_eq!(m.states, vec!["a", "b"]);
    assert_eq!(m.finals, vec![true, false]);
}

#[test]
fn edge_defaults_and_chains() {
    let m = p(r#"digraph g { __init_a; a; b; c; __init_a -> a;
        edge [label = "e"]; a -> b -> c; c -> a [label = "f"]; }"#)
    .unwrap();
    assert_eq!(m.events, vec!["e", "f"]);
    assert_eq!(m.function[0], vec![Some(1), None]);
    assert_eq!(m.function[1], vec![Some(2), None]);
    assert_eq!(m.function[2], vec![None, Some(0)]);
}

#[test]
fn string_concatenation() {
    let m = p("digraph g { __init_a; a; __init_a -> a; a -> a [label = \"x\" + \"y\"]; }").unwrap();
    assert_eq!(m.events, vec!["xy"]);
}

#[test]
fn hybrid_labels() {
    let m = p(r#"digraph g {
        {node [shape = plaintext, style=invis, label=""] "__init_a"};
        {node [shape = circle] "a"};
        {node [shape = circle] "b"};
        "__init_a" -> "a";
        "a" [label = "a\nclk < 10"];
        "a" -> "b" [ label = "go;x == 1;reset(clk)\nalso" ];
        "b" -> "a" [ label = "back;reset( clk )" ];
    }"#)
    .unwrap();
    assert!(m.is_hybrid());
    assert_eq!(m.events, vec!["also", "back", "go"]);
    assert_eq!(
        m.annotations,
        vec![
            EdgeAnnotation {
                from: 0,
                event: 2,
                guard: Some("x == 1".into()),
                resets: vec!["clk".into()],
                line: 7
            },
            EdgeAnnotation {
                from: 1,
                event: 1,
                guard: None,
                resets: vec!["clk".into()],
                line: 8
            },
        ]
    );
    assert_eq!(
        m.invariants,
        vec![Invariant {
            state: 0,
            text: "clk < 10".into(),
            line: 6
        }]
    );
    assert_eq!(m.unsupported().len(), 4);
}

#[test]
fn refusals() {
    let (l, m) = err("graph g { }");
    assert_eq!(l, 1);
    assert!(m.starts_with("not a digraph"), "{m}");
    let (l, m) = err("digraph g {\n a;\n \"b\n}\n");
    assert_eq!(l, 3);
    assert!(m.contains("unterminated string"), "{m}");
    let (l, m) = err("digraph g {\n __init_a; a;\n a -> ;\n}");
    assert_eq!(l, 3);
    assert!(m.contains("missing target state after `->`"), "{m}");
    let (l, m) = err("digraph g {\n { a;\n}\n");
    assert_eq!(l, 1);
    assert!(m.contains("unbalanced braces"), "{m}");
    let (l, m) = err("digraph g {\n a; a -> a [label=x];\n}\n");
    assert_eq!(l, 1);
    assert!(m.starts_with("no initial state"), "{m}");
    let (l, m) = err("digraph g {\n __init_a; a;\n __init_b; b;\n}\n");
    assert_eq!(l, 3);
    assert!(
        m.contains("two initial states: `__init_a` (line 2) and `__init_b` (line 3)"),
        "{m}"
    );
    let (l, m) = err("digraph g {\n __init_a; a; b; c; __init_a -> a;\n a -> b [label=x];\n a -> c [label=\"y\\nx\"];\n}");
    assert_eq!(l, 4);
    assert!(
        m.contains("event `x` leads from state `a` to `b` (line 3) and to `c` (line 4)"),
        "{m}"
    );
    let (l, m) = err("digraph g {\n __init_a; a; __init_a -> a;\n a -> zz [label=x];\n}");
    assert_eq!(l, 3);
    assert!(m.contains("edge to undeclared state `zz`"), "{m}");
    let (l, m) = err("digraph g {\n __init_a; a; __init_a -> a;\n a -> a [label=\"x\\n\"];\n}");
    assert_eq!(l, 3);
    assert!(m.starts_with("empty event name"), "{m}");
    let (l, m) = err("digraph g {\n __init_a; a; \"b-c\"; __init_a -> a;\n}");
    assert_eq!(l, 2);
    assert!(
        m.contains("state name `b-c` is not a valid C identifier"),
        "{m}"
    );
    let (_, m) = err("digraph g {\n __init_a; a; __init_a -> a;\n a -> a [label=\"int\"];\n}");
    assert!(
        m.contains("event name `int` is not a valid C identifier"),
        "{m}"
    );
    let (_, m) = err("digraph g { __init_a; a; __init_a -> a; a -> a [label=a]; }");
    assert!(m.contains("both a state"), "{m}");
    let (_, m) = err("digraph g { __init_a; a; __init_a -> a; }");
    assert!(m.contains("no events"), "{m}");
    let (_, m) = err("digraph g { __init_a; __init_a -> a; a -> a [label=x]; }");
    assert!(
        m.contains("initial state `a` (marked by `__init_a`) is not declared"),
        "{m}"
    );
    let (_, m) = err("digraph g { __init_a; a; __init_a -> a; a -> a; }");
    assert!(m.contains("has no label"), "{m}");
    let (_, m) = err("digraph g { __init_a; a; __init_a -> a; a -> a [label=\"x;g1;g2\"]; }");
    assert!(m.contains("two guards"), "{m}");
    let (_, m) = err("digraph g { __init_a; a; __init_a -> a; a -> a [label=\"x;reset(1c)\"]; }");
    assert!(m.contains("malformed clock reset"), "{m}");
    let (_, m) = err("digraph g { __init_a; a; __init_a -> a; a -- a [label=x]; }");
    assert!(m.contains("undirected"), "{m}");
    let (l, m) = err("digraph g { __init_a; a; __init_a -> a; a -> a [label=x]; }\n}");
    assert_eq!(l, 2);
    assert!(m.contains("unbalanced braces"), "{m}");
    let (_, m) = err("");
    assert!(m.contains("empty"), "{m}");
    let (l, m) = err("digraph g {\n /* never closed\n");
    assert_eq!(l, 2);
    assert!(m.contains("unterminated comment"), "{m}");
}

#[test]
fn c_identifiers() {
    assert!(is_c_identifier("sched_switch_in"));
    assert!(is_c_identifier("_x9"));
    assert!(!is_c_identifier("9x"));
    assert!(!is_c_identifier("a-b"));
    assert!(!is_c_identifier(""));
    assert!(!is_c_identifier("while"));
    assert!(!is_c_identifier("é"));
}
