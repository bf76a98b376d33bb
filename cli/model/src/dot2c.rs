//! [`Model`] → C in the kernel's dot2c (standalone) / dot2k (`--name`) form.
//!
//! The text is byte-for-byte what the Linux kernel's generator
//! (`tools/verification/rvgen`: `dot2c FILE` and the `NAME.h` that
//! `rvgen monitor -c da -n NAME` writes) prints for a deterministic
//! automaton:
//!
//! * `enum states` (initial state first), `#define INVALID_STATE`,
//!   `enum events`, every enumerator followed by a comma;
//! * `struct automaton` whose `function` and `initial_state` have the
//!   smallest unsigned type holding `state_max` (char up to 255 states,
//!   short up to 65535, int above);
//! * `static const struct automaton aut = { ... };` with the names one a
//!   line, the transition table right-aligned in columns as wide as the
//!   longest state name (or `INVALID_STATE`) — or one entry a line when a row
//!   would pass 100 columns — and `final_states`.
//!
//! Standalone output ends with an empty line, as the kernel's `print()` does;
//! the dot2k form starts with the kernel's generated-file comment and
//! `#define MONITOR_NAME`, suffixes every identifier with `_NAME` and ends
//! with the closing `};` line, as the file dot2k writes.
//!
//! A hybrid automaton gets the same untimed tables followed by a C comment
//! listing every guard, clock reset and invariant with its line: vigil does
//! not implement them (the kernel's generator would add clock environments).

use crate::Model;

const INVALID_STATE: &str = "INVALID_STATE";
/// The kernel's `line_length`: past it, a table row goes one entry a line.
const LINE_LENGTH: usize = 100;

/// The smallest unsigned C type holding every state index and `state_max`
/// (the kernel's `get_minimun_type`).
pub fn min_type(nr_states: usize) -> &'static str {
    if nr_states > 65535 {
        "unsigned int"
    } else if nr_states > 255 {
        "unsigned short"
    } else {
        "unsigned char"
    }
}

/// The C source for `model`; `name` gives dot2k-style suffixed identifiers.
pub fn generate(model: &Model, name: Option<&str>) -> String {
    let suffix = name.map(|n| format!("_{n}")).unwrap_or_default();
    let (enum_states, enum_events, struct_def, var) = match name {
        None => (
            "states".to_string(),
            "events".to_string(),
            "automaton".to_string(),
            "aut".to_string(),
        ),
        Some(n) => (
            format!("states_{n}"),
            format!("events_{n}"),
            format!("automaton_{n}"),
            format!("automaton_{n}"),
        ),
    };
    let min_type = min_type(model.states.len());

    // Lines joined with "\n" at the end; some carry their own trailing "\n"
    // (an empty line after them), as in the kernel's buffers.
    let mut b: Vec<String> = Vec::new();
    if let Some(n) = name {
        b.push("/* SPDX-License-Identifier: GPL-2.0 */".into());
        b.push("/*".into());
        b.push(format!(
            " * Automatically generated C representation of {n} automaton"
        ));
        b.push(" * For further information about this format, see kernel documentation:".into());
        b.push(" *   Documentation/trace/rv/deterministic_automata.rst".into());
        b.push(" */".into());
        b.push(String::new());
        b.push(format!("#define MONITOR_NAME {n}"));
        b.push(String::new());
    }

    b.push(format!("enum {enum_states} {{"));
    for s in &model.states {
        b.push(format!("\t{s}{suffix},"));
    }
    b.push(format!("\tstate_max{suffix},"));
    b.push("};\n".into());

    b.push(format!("#define {INVALID_STATE} state_max{suffix}\n"));

    b.push(format!("enum {enum_events} {{"));
    for e in &model.events {
        b.push(format!("\t{e}{suffix},"));
    }
    b.push(format!("\tevent_max{suffix},"));
    b.push("};\n".into());

    b.push(format!("struct {struct_def} {{"));
    b.push(format!("\tchar *state_names[state_max{suffix}];"));
    b.push(format!("\tchar *event_names[event_max{suffix}];"));
    b.push(format!(
        "\t{min_type} function[state_max{suffix}][event_max{suffix}];"
    ));
    b.push(format!("\t{min_type} initial_state;"));
    b.push(format!("\tbool final_states[state_max{suffix}];"));
    b.push("};\n".into());

    b.push(format!("static const struct {struct_def} {var} = {{"));
    b.push("\t.state_names = {".into());
    b.push(quoted_per_line(&model.states));
    b.push("\t},".into());
    b.push("\t.event_names = {".into());
    b.push(quoted_per_line(&model.events));
    b.push("\t},".into());
    b.push("\t.function = {".into());
    b.push(function_rows(model, &suffix));
    b.push("\t},".into());
    b.push(format!(
        "\t.initial_state = {}{suffix},",
        model.states[model.initial]
    ));
    let finals: Vec<&str> = model
        .finals
        .iter()
        .map(|f| if *f { "1" } else { "0" })
        .collect();
    b.push(format!("\t.final_states = {{ {} }},", finals.join(", ")));
    b.push("};\n".into());

    let mut out = b.join("\n");
    if name.is_none() {
        // dot2c prints the buffer with print(), which adds a newline.
        out.push('\n');
    } else {
        // dot2k writes the buffer to NAME.h as it is (ending "};\n"); a
        // comment block below gets an empty line before it, as above.
    }
    if model.is_hybrid() {
        if name.is_some() {
            out.push('\n');
        }
        out.push_str(&hybrid_comment(model));
    }
    out
}

/// `\t\t"name",` one a line (no trailing newline).
fn quoted_per_line(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("\t\t\"{n}\","))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The rows of `.function`, in the kernel's layout.
fn function_rows(model: &Model, suffix: &str) -> String {
    let nr_events = model.events.len();
    let longest = model
        .states
        .iter()
        .map(|s| s.len())
        .max()
        .unwrap_or(0)
        .max(INVALID_STATE.len());
    let width = longest + suffix.len();
    // "\t\t{ " ... "}" counted as 2 * 8 + 2 + 1 columns, ", " per entry.
    let too_long = 2 * 8 + 2 + 1 + (width + 2) * nr_events > LINE_LENGTH;
    let mut rows = Vec::with_capacity(model.states.len());
    for row in &model.function {
        let mut line = String::from(if too_long { "\t\t{\n" } else { "\t\t{ " });
        for (y, next) in row.iter().enumerate() {
            let entry = match next {
                Some(t) => format!("{}{suffix}", model.states[*t]),
                None => INVALID_STATE.to_string(),
            };
            if too_long {
                line.push_str("\t\t\t");
                line.push_str(&entry);
            } else {
                line.push_str(&format!("{entry:>width$}"));
            }
            if y + 1 != nr_events {
                line.push_str(if too_long { ",\n" } else { ", " });
            } else {
                line.push_str(if too_long { ",\n\t\t}," } else { " }," });
            }
        }
        rows.push(line);
    }
    rows.join("\n")
}

/// Keep a text from closing the C comment it is printed in.
fn comment_safe(s: &str) -> String {
    s.replace("*/", "* /")
}

/// The C comment listing a hybrid automaton's constraints, by line.
pub fn hybrid_comment(model: &Model) -> String {
    let mut items: Vec<(u32, String)> = Vec::new();
    for inv in &model.invariants {
        items.push((
            inv.line,
            format!(
                "invariant of state {}: {}",
                model.states[inv.state],
                comment_safe(&inv.text)
            ),
        ));
    }
    for a in &model.annotations {
        let to = model.function[a.from][a.event]
            .map(|t| model.states[t].as_str())
            .unwrap_or("?");
        let mut what = Vec::new();
        if let Some(g) = &a.guard {
            what.push(format!("guard {}", comment_safe(g)));
        }
        for c in &a.resets {
            what.push(format!("reset({c})"));
        }
        items.push((
            a.line,
            format!(
                "{} -> {} on {}: {}",
                model.states[a.from],
                to,
                model.events[a.event],
                what.join(", ")
            ),
        ));
    }
    items.sort_by_key(|(line, _)| *line);
    let file = model
        .path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| model.name.clone());
    let mut out = String::new();
    out.push_str("/*\n");
    out.push_str(&format!(
        " * {} is a hybrid automaton. vigil does not implement its guards, clock\n",
        model.name
    ));
    out.push_str(" * resets and invariants: the tables above are the untimed automaton (every\n");
    out.push_str(" * transition is taken whatever its guard; there are no clocks).\n");
    for (line, text) in items {
        out.push_str(&format!(" *   {file}:{line}: {text}\n"));
    }
    out.push_str(" */\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn model(text: &str) -> Model {
        crate::dot::parse(Path::new("m.dot"), text).unwrap()
    }

    const TWO: &str = r#"digraph state_automaton {
	{node [shape = plaintext, style=invis, label=""] "__init_off"};
	{node [shape = doublecircle] "off"};
	{node [shape = circle] "on"};
	"__init_off" -> "off";
	"off" -> "on" [ label = "press" ];
	"on" -> "off" [ label = "press\nreset" ];
}"#;

    #[test]
    fn standalone_form() {
        let c = generate(&model(TWO), None);
        let want = "enum states {\n\toff,\n\ton,\n\tstate_max,\n};\n\n\
#define INVALID_STATE state_max\n\n\
enum events {\n\tpress,\n\treset,\n\tevent_max,\n};\n\n\
struct automaton {\n\tchar *state_names[state_max];\n\tchar *event_names[event_max];\n\
\tunsigned char function[state_max][event_max];\n\tunsigned char initial_state;\n\
\tbool final_states[state_max];\n};\n\n\
static const struct automaton aut = {\n\t.state_names = {\n\t\t\"off\",\n\t\t\"on\",\n\t},\n\
\t.event_names = {\n\t\t\"press\",\n\t\t\"reset\",\n\t},\n\t.function = {\n\
\t\t{            on, INVALID_STATE },\n\t\t{           off,           off },\n\t},\n\
\t.initial_state = off,\n\t.final_states = { 1, 0 },\n};\n\n";
        assert_eq!(c, want);
    }

    #[test]
    fn dot2k_form() {
        let c = generate(&model(TWO), Some("sw"));
        assert!(c.starts_with("/* SPDX-License-Identifier: GPL-2.0 */\n/*\n * Automatically generated C representation of sw automaton\n"));
        assert!(c.contains("\n#define MONITOR_NAME sw\n\nenum states_sw {\n\toff_sw,\n\ton_sw,\n\tstate_max_sw,\n};\n"));
        assert!(c.contains("#define INVALID_STATE state_max_sw\n"));
        assert!(c.contains("static const struct automaton_sw automaton_sw = {\n"));
        // Width: longest name (INVALID_STATE, 13) + "_sw".
        assert!(
            c.contains("\t\t{            on_sw,    INVALID_STATE },\n"),
            "{c}"
        );
        assert!(c.contains("\t.initial_state = off_sw,\n"));
        assert!(c.ends_with("\t.final_states = { 1, 0 },\n};\n"));
    }

    #[test]
    fn long_rows_go_one_entry_a_line() {
        // 19 + (13 + 2) * 6 = 109 > 100
        let text = r#"digraph g { __init_a; a; __init_a -> a;
            a -> a [label = "e1\ne2\ne3\ne4\ne5\ne6"]; }"#;
        let c = generate(&model(text), None);
        assert!(c.contains("\t.function = {\n\t\t{\n\t\t\ta,\n\t\t\ta,\n\t\t\ta,\n\t\t\ta,\n\t\t\ta,\n\t\t\ta,\n\t\t},\n\t},\n"), "{c}");
        // 19 + 15 * 5 = 94: one line.
        let text = r#"digraph g { __init_a; a; __init_a -> a;
            a -> a [label = "e1\ne2\ne3\ne4\ne5"]; }"#;
        let c = generate(&model(text), None);
        assert!(c.contains("\t\t{             a,             a,             a,             a,             a },\n"), "{c}");
    }

    #[test]
    fn smallest_type() {
        assert_eq!(min_type(2), "unsigned char");
        assert_eq!(min_type(255), "unsigned char");
        assert_eq!(min_type(256), "unsigned short");
        assert_eq!(min_type(65535), "unsigned short");
        assert_eq!(min_type(65536), "unsigned int");
    }

    #[test]
    fn hybrid_gets_a_comment() {
        let text = r#"digraph g {
	{node [shape = plaintext, style=invis, label=""] "__init_a"};
	{node [shape = circle] "a"};
	"__init_a" -> "a";
	"a" [label = "a\nclk < LIMIT_NS()"];
	"a" -> "a" [ label = "tick;reset(clk)\nwait;x == 1" ];
}"#;
        let m = model(text);
        let c = generate(&m, None);
        let untimed = c.split("/*\n").next().unwrap();
        assert!(untimed.ends_with("};\n\n"));
        assert!(
            c.contains(" *   m.dot:5: invariant of state a: clk < LIMIT_NS()\n"),
            "{c}"
        );
        assert!(
            c.contains(" *   m.dot:6: a -> a on tick: reset(clk)\n"),
            "{c}"
        );
        assert!(
            c.contains(" *   m.dot:6: a -> a on wait: guard x == 1\n"),
            "{c}"
        );
        assert!(c.ends_with(" */\n"));
        let k = generate(&m, Some("h"));
        assert!(k.contains("};\n\n/*\n * m is a hybrid automaton"), "{k}");
    }
}
