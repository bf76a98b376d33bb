//! [`Model`] → Graphviz source and SVG, optionally one transition in red.
//!
//! The picture follows the kernel's model files: an invisible `__init_X`
//! node pointing at the initial state, final states as green double circles,
//! one edge per pair of states carrying all its events (`e1\ne2`, with any
//! hybrid guard / reset kept as `event;guard;reset(clk)` and a state's
//! invariant under its name).  Without a highlight the source parses back
//! into the same model.
//!
//! A highlight `(state, event)` is the transition a violation is about:
//! when the event is allowed in the state, its edge is drawn on its own in
//! red, 2 wide, with a red bold label; when it is not (the usual violation),
//! a red dashed edge leads from the state to a small red `✗ event` node.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::Model;

/// Name of the node a disallowed highlighted event points to.
pub const VIOLATION_NODE: &str = "__vigil_violation";

/// Quote `s` as a DOT string (only `"` needs escaping; `\n` stays the
/// two-character label line break).
fn q(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\\\""))
}

/// An edge label item: `event[;guard][;reset(clk)...]`.
fn event_item(model: &Model, from: usize, event: usize) -> String {
    let mut item = model.events[event].clone();
    for a in model
        .annotations
        .iter()
        .filter(|a| a.from == from && a.event == event)
    {
        if let Some(g) = &a.guard {
            item.push(';');
            item.push_str(g);
        }
        for c in &a.resets {
            item.push_str(&format!(";reset({c})"));
        }
    }
    item
}

/// An LTL model's Büchi automaton: each state with its label (the atoms'
/// condition to enter it; `true` when it has none), an arrow into every
/// initial state.  Not a model vigil reads back: a picture.
fn buchi_to_dot(model: &Model, b: &crate::ltl::Buchi) -> String {
    let mut o = String::from("digraph buchi_automaton {\n\tcenter = true;\n\tsize = \"7,11\";\n");
    for (i, st) in b.states.iter().enumerate() {
        let label = if st.label.is_empty() {
            "true".to_string()
        } else {
            st.label.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(" && ")
        };
        o.push_str(&format!("\t{} [shape = circle, label = {}];\n", q(&model.states[i]), q(&format!("{}\\n{label}", model.states[i]))));
        if st.init {
            let init = format!("__init_{}", model.states[i]);
            o.push_str(&format!("\t{{node [shape = plaintext, style=invis, label=\"\"] {}}};\n", q(&init)));
            o.push_str(&format!("\t{} -> {};\n", q(&init), q(&model.states[i])));
        }
        for &t in &st.succ {
            o.push_str(&format!("\t{} -> {};\n", q(&model.states[i]), q(&model.states[t])));
        }
    }
    o.push_str("}\n");
    o
}

/// Graphviz source; `highlight` = (state, event) drawn in red.
pub fn to_dot(model: &Model, highlight: Option<(usize, usize)>) -> String {
    if let Some(b) = &model.ltl {
        return buchi_to_dot(model, b);
    }
    let init = format!("__init_{}", model.states[model.initial]);
    let mut o = String::new();
    o.push_str("digraph state_automaton {\n");
    o.push_str("\tcenter = true;\n");
    o.push_str("\tsize = \"7,11\";\n");
    o.push_str(&format!(
        "\t{{node [shape = plaintext, style=invis, label=\"\"] {}}};\n",
        q(&init)
    ));
    for (i, s) in model.states.iter().enumerate() {
        let shape = if model.finals[i] {
            "doublecircle"
        } else {
            "circle"
        };
        o.push_str(&format!("\t{{node [shape = {shape}] {}}};\n", q(s)));
    }
    o.push_str(&format!(
        "\t{} -> {};\n",
        q(&init),
        q(&model.states[model.initial])
    ));
    for (i, s) in model.states.iter().enumerate() {
        let mut label = s.clone();
        if let Some(inv) = model.invariants.iter().find(|inv| inv.state == i) {
            label.push_str("\\n");
            label.push_str(&inv.text);
        }
        let color = if model.finals[i] {
            ", color = green3"
        } else {
            ""
        };
        o.push_str(&format!("\t{} [label = {}{color}];\n", q(s), q(&label)));
        // Edges out of s, by target state; events in event order.
        for (t, target) in model.states.iter().enumerate() {
            let mut items = Vec::new();
            let mut red = None;
            for (e, next) in model.function[i].iter().enumerate() {
                if *next != Some(t) {
                    continue;
                }
                if highlight == Some((i, e)) {
                    red = Some(event_item(model, i, e));
                } else {
                    items.push(event_item(model, i, e));
                }
            }
            if !items.is_empty() {
                o.push_str(&format!(
                    "\t{} -> {} [ label = {} ];\n",
                    q(s),
                    q(target),
                    q(&items.join("\\n"))
                ));
            }
            if let Some(item) = red {
                o.push_str(&format!(
                    "\t{} -> {} [ label = {}, color = red, fontcolor = red, penwidth = 2, \
                     fontname = \"Times-Bold\" ];\n",
                    q(s),
                    q(target),
                    q(&item)
                ));
            }
        }
    }
    if let Some((s, e)) = highlight {
        if model.function[s][e].is_none() {
            o.push_str(&format!(
                "\t{} [label = {}, shape = box, style = rounded, color = red, fontcolor = red, \
                 fontsize = 10, width = 0.3, height = 0.2];\n",
                q(VIOLATION_NODE),
                q(&format!("✗ {}", model.events[e]))
            ));
            o.push_str(&format!(
                "\t{} -> {} [ style = dashed, color = red, penwidth = 2 ];\n",
                q(&model.states[s]),
                q(VIOLATION_NODE)
            ));
        }
    }
    o.push_str("\t{ rank = min ;\n");
    o.push_str(&format!("\t\t{};\n", q(&init)));
    o.push_str(&format!("\t\t{};\n", q(&model.states[model.initial])));
    o.push_str("\t}\n");
    o.push_str("}\n");
    o
}

/// SVG of [`to_dot`], through Graphviz's `dot -Tsvg`.
pub fn to_svg(model: &Model, highlight: Option<(usize, usize)>) -> Result<Vec<u8>, String> {
    dot_to_svg(&to_dot(model, highlight))
}

/// Run `dot -Tsvg` on Graphviz source.
pub fn dot_to_svg(source: &str) -> Result<Vec<u8>, String> {
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!("cannot run Graphviz `dot` ({e}); install Graphviz (apt-get install graphviz)")
        })?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = source.as_bytes().to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("Graphviz `dot` failed: {e}"))?;
    let written = writer
        .join()
        .map_err(|_| "writing to Graphviz `dot` panicked".to_string())?;
    if !out.status.success() {
        return Err(format!(
            "Graphviz `dot -Tsvg` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    written.map_err(|e| format!("cannot write to Graphviz `dot`: {e}"))?;
    Ok(out.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const M: &str = r#"digraph state_automaton {
	{node [shape = plaintext, style=invis, label=""] "__init_idle"};
	{node [shape = doublecircle] "idle"};
	{node [shape = circle] "busy"};
	"__init_idle" -> "idle";
	"idle" [label = "idle\nclk < 5"];
	"idle" -> "busy" [ label = "start;reset(clk)\nkick" ];
	"busy" -> "idle" [ label = "stop;x == 1" ];
}"#;

    fn model() -> Model {
        crate::dot::parse(Path::new("m.dot"), M).unwrap()
    }

    #[test]
    fn round_trips() {
        let m = model();
        let text = to_dot(&m, None);
        assert!(
            text.contains("\"idle\" -> \"busy\" [ label = \"kick\\nstart;reset(clk)\" ];"),
            "{text}"
        );
        assert!(
            text.contains("\"idle\" [label = \"idle\\nclk < 5\", color = green3];"),
            "{text}"
        );
        let back = crate::dot::parse(Path::new("m.dot"), &text).unwrap();
        assert_eq!(back.states, m.states);
        assert_eq!(back.events, m.events);
        assert_eq!(back.function, m.function);
        assert_eq!(back.finals, m.finals);
        assert_eq!(back.invariants.len(), 1);
        assert_eq!(back.annotations.len(), 2);
    }

    #[test]
    fn allowed_highlight_is_its_own_red_edge() {
        let m = model();
        let (s, e) = (
            m.state_index("idle").unwrap(),
            m.event_index("kick").unwrap(),
        );
        let text = to_dot(&m, Some((s, e)));
        assert!(
            text.contains("\"idle\" -> \"busy\" [ label = \"start;reset(clk)\" ];"),
            "{text}"
        );
        assert!(text.contains("\"idle\" -> \"busy\" [ label = \"kick\", color = red, fontcolor = red, penwidth = 2, fontname = \"Times-Bold\" ];"), "{text}");
        assert!(!text.contains(VIOLATION_NODE));
    }

    #[test]
    fn disallowed_highlight_points_to_a_cross() {
        let m = model();
        let (s, e) = (
            m.state_index("busy").unwrap(),
            m.event_index("kick").unwrap(),
        );
        let text = to_dot(&m, Some((s, e)));
        assert!(
            text.contains("\"__vigil_violation\" [label = \"✗ kick\""),
            "{text}"
        );
        assert!(
            text.contains(
                "\"busy\" -> \"__vigil_violation\" [ style = dashed, color = red, penwidth = 2 ];"
            ),
            "{text}"
        );
    }
}
