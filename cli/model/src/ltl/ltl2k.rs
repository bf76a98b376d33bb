//! An LTL model as the C header the Linux kernel's generator writes for it
//! (`rvgen monitor -c ltl`, tools/verification/rvgen/rvgen/ltl2k.py): the
//! `kernel/trace/rv/monitors/NAME/NAME.h` that the kernel's
//! `include/rv/ltl_monitor.h` is combined with.
//!
//! * `#define MONITOR_NAME`, `enum ltl_atom` (`LTL_` + each atom, sorted,
//!   then `LTL_NUM_ATOM`), `ltl_atom_str()` with the kernel's abbreviations
//!   (`PAGEFAULT` → `"pa"`), `enum ltl_buchi_state` (`S0`...,
//!   `RV_NUM_BA_STATES`), each enum followed by its `static_assert`;
//! * `ltl_start()`: the values of the sub-formulas the initial states' labels
//!   use, then one `if (label) __set_bit(Si, mon->states);` per initial state;
//! * `ltl_possible_next_states()`: the values the successors' labels use,
//!   then a `switch` over the state with one `if` per successor.
//!
//! A state's label is a conjunction of propositional sub-formulas of the
//! rule in negation normal form.  As the kernel does, every such sub-formula
//! is one C variable: an atom is its lower-cased name (`bool rt =
//! test_bit(LTL_RT, mon->atoms);`), any other node `val<N>`, N the number
//! the kernel's parser gives that node ([`Values::kernel`] numbers them the
//! same way: every `NAME =` of the file in order, the name first, then the
//! formula's nodes operands first).  Only the values a function uses are
//! declared, each after its operands, and lines longer than 100 columns are
//! broken as the kernel breaks them.
//!
//! What differs from the kernel's output, and why:
//! * the states are numbered in vigil's construction order ([`super::buchi`]);
//!   the kernel's numbering follows Python's hash order, which changes from
//!   run to run for some models (sleep), so only the automaton, not its
//!   numbers, can be the same;
//! * the kernel keeps the literal `true` of `eventually` (`true U F`) in the
//!   labels it belongs to (`if (true && val5)`); vigil's labels leave it out
//!   (`if (val5)`), which means the same;
//! * when the file uses one sub-formula twice, the kernel (which compares
//!   nodes by identity) may keep two labels where vigil keeps one, and would
//!   declare a shared value twice; vigil declares it once.
//!
//! For the kernel's rtapp models pagefault and wakeup the header is the one
//! the kernel's generator writes today, byte for byte; for sleep it is the
//! same up to the states' numbers.  The kernel has no `main.c` counterpart
//! here (neither has `vigil dot2c`): the tracepoint handlers are the
//! monitor author's.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{parse, Buchi, Formula};
use crate::Diagnostic;

/// The kernel generator's `COLUMN_LIMIT` (a tab counts 8 columns).
const COLUMN_LIMIT: usize = 100;
/// The number of a node the kernel creates after parsing (the `false` of
/// `always`, the `true` of `eventually`, the copy of a negated atom): such a
/// node is named by its value, never `val<N>`.
const UNNUMBERED: usize = usize::MAX;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    True,
    False,
    Atom(String),
    Not,
    And,
    Or,
    Imply,
    Until,
    Release,
    Always,
    Eventually,
    Next,
}

/// A node of the rule and the number the kernel's parser gives it.
#[derive(Debug, Clone)]
struct Node {
    id: usize,
    op: Op,
    kids: Vec<Node>,
}

impl Node {
    fn leaf(id: usize, op: Op) -> Node {
        Node { id, op, kids: Vec::new() }
    }

    fn with(id: usize, op: Op, kids: Vec<Node>) -> Node {
        Node { id, op, kids }
    }

    /// `f`'s nodes numbered from `*next` on, operands before their operator
    /// (the order in which the kernel's lark transformer creates them).
    fn numbered(f: &Formula, next: &mut usize) -> Node {
        use Formula::*;
        let (op, kids): (Op, Vec<&Formula>) = match f {
            True => (Op::True, vec![]),
            False => (Op::False, vec![]),
            Atom(a) => (Op::Atom(a.clone()), vec![]),
            Not(a) => (Op::Not, vec![a]),
            And(a, b) => (Op::And, vec![a, b]),
            Or(a, b) => (Op::Or, vec![a, b]),
            Imply(a, b) => (Op::Imply, vec![a, b]),
            Until(a, b) => (Op::Until, vec![a, b]),
            Release(a, b) => (Op::Release, vec![a, b]),
            Always(a) => (Op::Always, vec![a]),
            Eventually(a) => (Op::Eventually, vec![a]),
            Next(a) => (Op::Next, vec![a]),
        };
        let kids = kids.into_iter().map(|k| Node::numbered(k, next)).collect();
        let id = *next;
        *next += 1;
        Node { id, op, kids }
    }

    fn formula(&self) -> Formula {
        use Formula::*;
        let k = |i: usize| Box::new(self.kids[i].formula());
        match &self.op {
            Op::True => True,
            Op::False => False,
            Op::Atom(a) => Atom(a.clone()),
            Op::Not => Not(k(0)),
            Op::And => And(k(0), k(1)),
            Op::Or => Or(k(0), k(1)),
            Op::Imply => Imply(k(0), k(1)),
            Op::Until => Until(k(0), k(1)),
            Op::Release => Release(k(0), k(1)),
            Op::Always => Always(k(0)),
            Op::Eventually => Eventually(k(0)),
            Op::Next => Next(k(0)),
        }
    }

    /// The C variable holding this node's value.
    fn name(&self) -> String {
        match &self.op {
            Op::Atom(a) => a.to_lowercase(),
            Op::True => "true".into(),
            Op::False => "false".into(),
            _ => format!("val{}", self.id),
        }
    }

    fn preorder<'a>(&'a self, out: &mut Vec<&'a Node>) {
        out.push(self);
        for k in &self.kids {
            k.preorder(out);
        }
    }

    /// A reference to a defined name takes the definition's formula; the
    /// node keeps its own number (the kernel moves the definition's
    /// operator into the referring node), the operands keep theirs.
    fn substitute(self, defs: &BTreeMap<String, Node>) -> Node {
        if let Op::Atom(name) = &self.op {
            if let Some(def) = defs.get(name) {
                let body = def.clone().substitute(defs);
                return Node { id: self.id, ..body };
            }
        }
        let kids = self.kids.into_iter().map(|k| k.substitute(defs)).collect();
        Node { kids, ..self }
    }
}

/// Negation normal form as [`super::buchi::normal`] computes it, each node
/// numbered as in the kernel, whose rewrites replace a node's operator in
/// place: the rewritten node keeps its number.
fn normal(n: Node) -> Node {
    let Node { id, op, kids } = n;
    let mut kids = kids.into_iter();
    match op {
        Op::True | Op::False | Op::Atom(_) => Node::leaf(id, op),
        Op::Always => Node::with(id, Op::Release, vec![Node::leaf(UNNUMBERED, Op::False), normal(operand(&mut kids))]),
        Op::Eventually => Node::with(id, Op::Until, vec![Node::leaf(UNNUMBERED, Op::True), normal(operand(&mut kids))]),
        Op::Imply => {
            let p = negate(operand(&mut kids));
            Node::with(id, Op::Or, vec![p, normal(operand(&mut kids))])
        }
        Op::Not => Node { id, ..negate(operand(&mut kids)) },
        Op::And | Op::Or | Op::Until | Op::Release | Op::Next => Node::with(id, op, kids.map(normal).collect()),
    }
}

fn operand(kids: &mut impl Iterator<Item = Node>) -> Node {
    kids.next().expect("an operator has its operands")
}

/// `not n` in negation normal form, numbered as [`normal`].
fn negate(n: Node) -> Node {
    let Node { id, op, kids } = n;
    let mut kids = kids.into_iter();
    let both = |kids: std::vec::IntoIter<Node>| kids.map(negate).collect::<Vec<_>>();
    match op {
        Op::True => Node::leaf(id, Op::False),
        Op::False => Node::leaf(id, Op::True),
        Op::Atom(_) => Node::with(id, Op::Not, vec![Node::leaf(UNNUMBERED, op)]),
        Op::Not => Node { id, ..normal(operand(&mut kids)) },
        Op::And => Node::with(id, Op::Or, both(kids)),
        Op::Or => Node::with(id, Op::And, both(kids)),
        Op::Until => Node::with(id, Op::Release, both(kids)),
        Op::Release => Node::with(id, Op::Until, both(kids)),
        Op::Next => Node::with(id, Op::Next, both(kids)),
        Op::Imply => {
            let p = normal(operand(&mut kids));
            Node::with(id, Op::And, vec![p, negate(operand(&mut kids))])
        }
        Op::Always => Node::with(id, Op::Until, vec![Node::leaf(UNNUMBERED, Op::True), negate(operand(&mut kids))]),
        Op::Eventually => Node::with(id, Op::Release, vec![Node::leaf(UNNUMBERED, Op::False), negate(operand(&mut kids))]),
    }
}

/// A definition used twice gives its numbers to two places; when the two
/// differ (one of them negated) the later one gets numbers of its own, so a
/// name never means two values.
fn distinct_ids(root: &mut Node) {
    fn max_id(n: &Node) -> usize {
        n.kids.iter().map(max_id).chain([if n.id == UNNUMBERED { 0 } else { n.id }]).max().unwrap_or(0)
    }
    fn walk(n: &mut Node, seen: &mut BTreeMap<usize, Formula>, fresh: &mut usize) {
        if n.id != UNNUMBERED && !matches!(n.op, Op::True | Op::False | Op::Atom(_)) {
            let f = n.formula();
            match seen.get(&n.id) {
                Some(g) if *g != f => {
                    n.id = *fresh;
                    *fresh += 1;
                    seen.insert(n.id, f);
                }
                Some(_) => {}
                None => {
                    seen.insert(n.id, f);
                }
            }
        }
        for k in &mut n.kids {
            walk(k, seen, fresh);
        }
    }
    let mut fresh = max_id(root) + 1;
    walk(root, &mut BTreeMap::new(), &mut fresh);
}

/// The rule in negation normal form, every node numbered as the kernel's
/// generator numbers it: what names the values in the header.
#[derive(Debug, Clone)]
pub struct Values {
    root: Node,
}

impl Values {
    /// The rule of the `.ltl` file `text`, numbered as the kernel's parser
    /// numbers the file: the definitions in order, each its name first, then
    /// its formula, operands before operators.
    pub fn kernel(path: &Path, text: &str) -> Result<Values, Diagnostic> {
        let (rule, line) = parse::file(path, text)?;
        let mut next = 0;
        let mut defs = BTreeMap::new();
        for (name, body, line) in parse::definitions(path, text)? {
            let f = parse::formula(&body).map_err(|m| Diagnostic::new(path, line, format!("{name}: {m}")))?;
            next += 1; // the defined name is a node too
            defs.insert(name, Node::numbered(&f, &mut next));
        }
        let body = defs.remove("RULE").ok_or_else(|| Diagnostic::new(path, line, "no RULE"))?;
        let values = Values::of(body.substitute(&defs));
        debug_assert_eq!(values.root.formula(), super::buchi::normal(&rule));
        Ok(values)
    }

    /// A rule without its file: numbered as the kernel numbers the file
    /// `RULE = rule` (the name 0, the formula's nodes from 1).
    pub fn of_rule(rule: &Formula) -> Values {
        Values::of(Node::numbered(rule, &mut 1))
    }

    fn of(rule: Node) -> Values {
        let mut root = normal(rule);
        distinct_ids(&mut root);
        Values { root }
    }

    /// The variable of each propositional sub-formula (the first node, in
    /// the kernel's order, when several have the same formula).
    fn names(&self) -> BTreeMap<Formula, String> {
        let mut nodes = Vec::new();
        self.root.preorder(&mut nodes);
        let mut names = BTreeMap::new();
        for n in nodes {
            let f = n.formula();
            if f.is_propositional() {
                names.entry(f).or_insert_with(|| n.name());
            }
        }
        names
    }

    /// The declarations of the values in `required` and of those they are
    /// computed from: the kernel's walk (the rule's nodes, operators before
    /// operands, then the atoms), reversed so that each comes after its
    /// operands; a value met twice is declared once, before its first use.
    fn declarations(&self, atoms: &[String], mut required: BTreeSet<String>) -> Vec<String> {
        let mut nodes = Vec::new();
        self.root.preorder(&mut nodes);
        let mut decls: Vec<(String, String)> = Vec::new();
        for n in nodes {
            let name = n.name();
            if !required.contains(&name) {
                continue;
            }
            let operands: Vec<String> = n.kids.iter().map(Node::name).collect();
            let value = match n.op {
                Op::And => format!("{} && {}", operands[0], operands[1]),
                Op::Or => format!("{} || {}", operands[0], operands[1]),
                Op::Not => format!("!{}", operands[0]),
                _ => continue,
            };
            required.extend(operands);
            decls.push((name.clone(), format!("\tbool {name} = {value};")));
        }
        for atom in atoms {
            let name = atom.to_lowercase();
            if required.contains(&name) {
                decls.push((name.clone(), format!("\tbool {name} = test_bit(LTL_{atom}, mon->atoms);")));
            }
        }
        decls.reverse();
        let mut declared = BTreeSet::new();
        decls
            .into_iter()
            .filter(|(name, _)| declared.insert(name.clone()))
            .flat_map(|(_, line)| break_long_line(&line, "\t     "))
            .collect()
    }
}

/// The columns a line takes, a tab counted as 8 (the kernel's `line_len`).
fn columns(line: &str) -> usize {
    line.len() + 7 * line.matches('\t').count()
}

/// A line past [`COLUMN_LIMIT`] broken at the last space that leaves the
/// first part within it; the rest continues on lines starting `indent`.
/// A part with no such space stays long (the kernel's loop would not end).
fn break_long_line(line: &str, indent: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line.to_string();
    let mut floor = 0; // a break inside the indentation would not shorten
    while columns(&rest) > COLUMN_LIMIT {
        let excess = columns(&rest) - COLUMN_LIMIT;
        let head = &rest[..rest.len().saturating_sub(excess)];
        let Some(at) = head.rfind(' ').filter(|&at| at >= floor) else {
            break;
        };
        out.push(rest[..at].to_string());
        rest = format!("{indent}{}", &rest[at + 1..]);
        floor = indent.len();
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// The kernel's `ltl_atom_str` names: each `_`-separated word cut to two
/// letters ("is", "by", "or", "and" dropped), but the longest prefix the
/// atom shares with another atom and the rest are cut separately, so that
/// `WAKE` beside `WOKEN_...` is `wak`.
pub fn abbreviate(atoms: &[String]) -> Vec<String> {
    fn shorten(s: &str) -> String {
        let lower = s.to_lowercase();
        let words: Vec<&str> = lower.split('_').filter(|w| !["is", "by", "or", "and"].contains(w)).collect();
        words.iter().map(|w| &w[..w.len().min(2)]).collect::<Vec<_>>().join("_")
    }
    let shared_prefix = |atom: &str| {
        (0..=atom.len()).rev().find(|&i| atoms.iter().filter(|a| a.starts_with(&atom[..i])).count() > 1).unwrap_or(0)
    };
    atoms
        .iter()
        .map(|atom| {
            let (shared, unique) = atom.split_at(shared_prefix(atom));
            shorten(shared) + &shorten(unique)
        })
        .collect()
}

/// `(a && b)` over the sorted variables of a label; `(true)` when empty.
fn condition(label: &BTreeSet<String>) -> String {
    if label.is_empty() {
        return "(true)".into();
    }
    format!("({})", label.iter().cloned().collect::<Vec<_>>().join(" && "))
}

/// The variables of every state's label.
fn labels(buchi: &Buchi, values: &Values) -> Vec<BTreeSet<String>> {
    let names = values.names();
    buchi
        .states
        .iter()
        .map(|s| {
            s.label
                .iter()
                .map(|f| names.get(f).cloned().unwrap_or_else(|| panic!("ltl2k: the label {f} is not a sub-formula of the rule the values were numbered from")))
                .collect()
        })
        .collect()
}

fn preamble(name: &str) -> Vec<String> {
    [
        "/* SPDX-License-Identifier: GPL-2.0 */",
        "",
        "/*",
        " * C implementation of Buchi automaton, automatically generated by",
        " * tools/verification/rvgen from the linear temporal logic specification.",
        " * For further information, see kernel documentation:",
        " *   Documentation/trace/rv/linear_temporal_logic.rst",
        " */",
        "",
        "#include <linux/rv.h>",
        "",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("#define MONITOR_NAME {name}"), String::new()])
    .collect()
}

fn atom_enum(atoms: &[String]) -> Vec<String> {
    let mut b = vec!["enum ltl_atom {".to_string()];
    b.extend(atoms.iter().map(|a| format!("\tLTL_{a},")));
    b.extend(["\tLTL_NUM_ATOM".into(), "};".into(), "static_assert(LTL_NUM_ATOM <= RV_MAX_LTL_ATOM);".into()]);
    b
}

fn atom_str(atoms: &[String]) -> Vec<String> {
    let mut b: Vec<String> = ["static const char *ltl_atom_str(enum ltl_atom atom)", "{", "\tstatic const char *const names[] = {"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    b.extend(abbreviate(atoms).iter().map(|a| format!("\t\t\"{a}\",")));
    b.extend(["\t};", "", "\treturn names[atom];", "}"].iter().map(|s| s.to_string()));
    b
}

fn state_enum(nr_states: usize) -> Vec<String> {
    let mut b = vec!["enum ltl_buchi_state {".to_string()];
    b.extend((0..nr_states).map(|i| format!("\tS{i},")));
    b.extend(["\tRV_NUM_BA_STATES".into(), "};".into(), "static_assert(RV_NUM_BA_STATES <= RV_MAX_BA_STATES);".into()]);
    b
}

/// `ltl_start`: the initial states whose labels hold.
fn start_fn(buchi: &Buchi, values: &Values, labels: &[BTreeSet<String>]) -> Vec<String> {
    let initial: Vec<usize> = (0..buchi.states.len()).filter(|&s| buchi.states[s].init).collect();
    let required = initial.iter().flat_map(|&s| labels[s].iter().cloned()).collect();
    let mut b = vec!["static void ltl_start(struct task_struct *task, struct ltl_monitor *mon)".to_string(), "{".to_string()];
    b.extend(values.declarations(&buchi.atoms, required));
    b.push(String::new());
    for s in initial {
        b.extend(break_long_line(&format!("\tif {}", condition(&labels[s])), "\t   "));
        b.push(format!("\t\t__set_bit(S{s}, mon->states);"));
    }
    b.push("}".into());
    b
}

/// `ltl_possible_next_states`: the successors of `state` whose labels hold.
fn next_states_fn(buchi: &Buchi, values: &Values, labels: &[BTreeSet<String>]) -> Vec<String> {
    let required = buchi.states.iter().flat_map(|s| s.succ.iter().flat_map(|&t| labels[t].iter().cloned())).collect();
    let mut b: Vec<String> = [
        "static void",
        "ltl_possible_next_states(struct ltl_monitor *mon, unsigned int state, unsigned long *next)",
        "{",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    b.extend(values.declarations(&buchi.atoms, required));
    b.extend([String::new(), "\tswitch (state) {".into()]);
    for (s, state) in buchi.states.iter().enumerate() {
        b.push(format!("\tcase S{s}:"));
        for &t in &state.succ {
            b.extend(break_long_line(&format!("\t\tif {}", condition(&labels[t])), "\t\t   "));
            b.push(format!("\t\t\t__set_bit(S{t}, next);"));
        }
        b.push("\t\tbreak;".into());
    }
    b.extend(["\t}".into(), "}".into()]);
    b
}

/// The kernel's `NAME.h` for the automaton `buchi` of a rule, its values
/// named by `values` (built from the same rule).
///
/// # Panics
///
/// When a state's label is not a sub-formula of the rule of `values`.
pub fn ltl2k(name: &str, buchi: &Buchi, values: &Values) -> String {
    let labels = labels(buchi, values);
    let mut b = preamble(name);
    for part in [
        atom_enum(&buchi.atoms),
        atom_str(&buchi.atoms),
        state_enum(buchi.states.len()),
        start_fn(buchi, values, &labels),
        next_states_fn(buchi, values, &labels),
    ] {
        b.extend(part);
        b.push(String::new());
    }
    b.join("\n")
}

/// An atom whose C variable would not compile: a C keyword, a parameter
/// of the generated functions, or a name the values use.
fn c_clash(atom: &str) -> Option<&'static str> {
    let var = atom.to_lowercase();
    if !crate::dot::is_c_identifier(&var) {
        return Some("a C keyword");
    }
    if ["task", "mon", "state", "next"].contains(&var.as_str()) {
        return Some("a parameter of the generated functions");
    }
    if var.strip_prefix("val").is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit())) {
        return Some("the name of a sub-formula's value (valN)");
    }
    None
}

/// The header for the `.ltl` file `text` at `path`, `MONITOR_NAME` `name`
/// (default: the file's stem).  Errors are the parser's `FILE:LINE`
/// diagnostics, an unsatisfiable rule, or an atom whose lower-cased name
/// cannot be the C variable the kernel's form declares for it.
pub fn generate(path: &Path, text: &str, name: Option<&str>) -> Result<String, Diagnostic> {
    let model = super::parse(path, text)?;
    for atom in &model.atoms {
        if let Some(what) = c_clash(atom) {
            return Err(Diagnostic::new(
                path,
                model.rule_line,
                format!("atom {atom}: the kernel's header declares it as `bool {}`, which is {what}; rename the atom", atom.to_lowercase()),
            ));
        }
    }
    let buchi = model.to_model()?.ltl.expect("an LTL model carries its automaton");
    let values = Values::kernel(path, text)?;
    Ok(ltl2k(name.unwrap_or(&model.name), &buchi, &values))
}


#[cfg(test)]
mod tests {
    use super::*;

    fn header(text: &str) -> String {
        generate(Path::new("m.ltl"), text, None).unwrap()
    }

    /// What the kernel's generator writes for its pagefault model today.
    const PAGEFAULT: &str = "/* SPDX-License-Identifier: GPL-2.0 */\n\n/*\n \
* C implementation of Buchi automaton, automatically generated by\n \
* tools/verification/rvgen from the linear temporal logic specification.\n \
* For further information, see kernel documentation:\n \
*   Documentation/trace/rv/linear_temporal_logic.rst\n */\n\n\
#include <linux/rv.h>\n\n#define MONITOR_NAME pagefault\n\n\
enum ltl_atom {\n\tLTL_PAGEFAULT,\n\tLTL_RT,\n\tLTL_NUM_ATOM\n};\n\
static_assert(LTL_NUM_ATOM <= RV_MAX_LTL_ATOM);\n\n\
static const char *ltl_atom_str(enum ltl_atom atom)\n{\n\tstatic const char *const names[] = {\n\
\t\t\"pa\",\n\t\t\"rt\",\n\t};\n\n\treturn names[atom];\n}\n\n\
enum ltl_buchi_state {\n\tS0,\n\tRV_NUM_BA_STATES\n};\n\
static_assert(RV_NUM_BA_STATES <= RV_MAX_BA_STATES);\n\n\
static void ltl_start(struct task_struct *task, struct ltl_monitor *mon)\n{\n\
\tbool rt = test_bit(LTL_RT, mon->atoms);\n\
\tbool pagefault = test_bit(LTL_PAGEFAULT, mon->atoms);\n\
\tbool val3 = !pagefault;\n\tbool val1 = !rt;\n\tbool val4 = val1 || val3;\n\n\
\tif (val4)\n\t\t__set_bit(S0, mon->states);\n}\n\n\
static void\nltl_possible_next_states(struct ltl_monitor *mon, unsigned int state, unsigned long *next)\n{\n\
\tbool rt = test_bit(LTL_RT, mon->atoms);\n\
\tbool pagefault = test_bit(LTL_PAGEFAULT, mon->atoms);\n\
\tbool val3 = !pagefault;\n\tbool val1 = !rt;\n\tbool val4 = val1 || val3;\n\n\
\tswitch (state) {\n\tcase S0:\n\t\tif (val4)\n\t\t\t__set_bit(S0, next);\n\t\tbreak;\n\t}\n}\n";

    #[test]
    fn pagefault_is_the_kernels_header() {
        let text = "# a comment\nRULE = always (RT imply not PAGEFAULT)\n";
        assert_eq!(generate(Path::new("/m/pagefault.ltl"), text, None).unwrap(), PAGEFAULT);
        let named = generate(Path::new("/m/pagefault.ltl"), text, Some("pf")).unwrap();
        assert!(named.contains("\n#define MONITOR_NAME pf\n"));
        assert_eq!(header(text), header(text), "deterministic");
        // Without its file, a rule is numbered as the file `RULE = rule`.
        let m = super::super::parse(Path::new("pagefault.ltl"), text).unwrap();
        assert_eq!(ltl2k("pagefault", &m.buchi().unwrap(), &Values::of_rule(&m.rule)), PAGEFAULT);
    }

    /// Checked against the kernel's generator on the same file: every
    /// definition is numbered, name first; a negated atom or definition
    /// keeps the number of the node it replaces.
    #[test]
    fn values_are_numbered_as_the_kernels_parser_numbers_them() {
        let h = header("RULE = always ((A and B) imply (OK or not BAD))\nOK = C or D\nBAD = E and not F\n");
        let start = &h[h.find("ltl_start").unwrap()..h.find("ltl_possible_next_states").unwrap()];
        let decls: Vec<&str> = start.lines().filter(|l| l.starts_with("\tbool val")).collect();
        assert_eq!(
            decls,
            [
                "\tbool val15 = !e;",
                "\tbool val6 = val15 || f;",
                "\tbool val4 = c || d;",
                "\tbool val7 = val4 || val6;",
                "\tbool val2 = !b;",
                "\tbool val1 = !a;",
                "\tbool val3 = val1 || val2;",
                "\tbool val8 = val3 || val7;",
            ]
        );
        assert!(start.contains("\n\tbool f = test_bit(LTL_F, mon->atoms);\n\tbool e = test_bit(LTL_E, mon->atoms);\n"), "{start}");
        assert!(start.contains("\tif (val8)\n\t\t__set_bit(S0, mon->states);\n"), "{start}");
    }

    /// The kernel writes `if (true && val1)` here: vigil's labels leave the
    /// `true` of `eventually` out.  An empty label is `(true)` in both.
    #[test]
    fn eventually_and_unlabelled_states() {
        let h = header("RULE = always (A imply eventually B)\n");
        assert!(h.contains("\tif (true)\n\t\t__set_bit(S1, mon->states);\n"), "{h}");
        assert!(h.contains("\t\tif (val1)\n\t\t\t__set_bit(S2, next);\n"), "{h}");
        assert!(!h.contains("true &&"), "{h}");
        assert_eq!(h.matches("mon->states);").count(), 3, "three initial states: {h}");
    }

    #[test]
    fn only_the_values_a_function_uses_are_declared() {
        // The initial state's label is A; the others need B.
        let h = header("RULE = A and next always B\n");
        let start = &h[h.find("ltl_start").unwrap()..h.find("ltl_possible_next_states").unwrap()];
        assert!(start.contains("bool a = ") && !start.contains("bool b = "), "{start}");
        let next = &h[h.find("ltl_possible_next_states").unwrap()..];
        assert!(next.contains("bool b = ") && !next.contains("bool a = "), "{next}");
    }

    /// The kernel would negate a definition used negated and not negated in
    /// place for both uses and declare its values twice; vigil gives the
    /// negated copy numbers of its own.
    #[test]
    fn a_definition_used_twice_gets_distinct_names() {
        let h = header("DEF = B or C\nRULE = not (not DEF and DEF) or always DEF\n");
        for f in ["ltl_start", "ltl_possible_next_states("] {
            let body = &h[h.find(f).unwrap()..];
            let body = &body[..body.find("\n}\n").unwrap()];
            let names: Vec<&str> = body.lines().filter_map(|l| l.strip_prefix("\tbool ")).map(|l| l.split(' ').next().unwrap()).collect();
            let unique: BTreeSet<&&str> = names.iter().collect();
            assert_eq!(names.len(), unique.len(), "declared twice: {body}");
        }
        assert_meaning(&h, "DEF = B or C\nRULE = not (not DEF and DEF) or always DEF\n");
    }

    #[test]
    fn long_lines_are_broken_as_the_kernel_breaks_them() {
        let line = "\tbool woken_by_equal_or_higher_prio = test_bit(LTL_WOKEN_BY_EQUAL_OR_HIGHER_PRIO, mon->atoms);";
        assert_eq!(
            break_long_line(line, "\t     "),
            ["\tbool woken_by_equal_or_higher_prio = test_bit(LTL_WOKEN_BY_EQUAL_OR_HIGHER_PRIO,", "\t     mon->atoms);"]
        );
        let short = "\tbool rt = test_bit(LTL_RT, mon->atoms);";
        assert_eq!(break_long_line(short, "\t     "), [short]);
        // No space to break at: left long rather than looping.
        let word = format!("\t\tif ({})", "x".repeat(120));
        assert_eq!(break_long_line(&word, "\t\t   "), ["\t\tif".to_string(), format!("\t\t   ({})", "x".repeat(120))]);
        let h = header("RULE = (A_RATHER_LONG_ATOM_NAME_FOR_NUMBER_ONE until B) and (A_RATHER_LONG_ATOM_NAME_FOR_NUMBER_TWO until C)\n");
        assert!(h.lines().all(|l| columns(l) <= COLUMN_LIMIT), "{h}");
        // 8 + 85 columns in ltl_start, 16 + 85 in the switch.
        assert!(h.contains("\n\tif (a_rather_long_atom_name_for_number_one && a_rather_long_atom_name_for_number_two)\n"), "{h}");
        assert!(h.contains("\n\t\tif (a_rather_long_atom_name_for_number_one &&\n\t\t   a_rather_long_atom_name_for_number_two)\n"), "{h}");
    }

    #[test]
    fn atom_names_are_the_kernels_abbreviations() {
        let atoms: Vec<String> = ["ABORT_SLEEP", "IS_IDLE", "KERNEL_THREAD", "KTHREAD_SHOULD_STOP", "RT", "WAKE", "WOKEN_BY_NMI", "WOKEN_BY_SOFTIRQ", "_X"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(abbreviate(&atoms), ["ab_sl", "id", "ker_th", "kth_sh_st", "rt", "wak", "wo_nm", "wo_so", "_x"]);
    }

    #[test]
    fn errors() {
        let e = generate(Path::new("m.ltl"), "RULE = always (RT imply not PAGEFAULT\n", None).unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (1, "RULE: missing `)`"));
        let e = generate(Path::new("m.ltl"), "\nRULE = always false\n", None).unwrap_err();
        assert!(e.line == 2 && e.message.contains("unsatisfiable"), "{e}");
        for (atom, what) in [("STATE", "a parameter"), ("INT", "a C keyword"), ("VAL3", "valN"), ("TRUE", "a C keyword")] {
            let e = generate(Path::new("m.ltl"), &format!("# x\nRULE = always (A or {atom})\n"), None).unwrap_err();
            assert!(e.line == 2 && e.message.contains(&format!("atom {atom}:")) && e.message.contains(what), "{e}");
        }
    }

    /// The header read back: each declared value, each `if`, evaluated on
    /// every valuation of the atoms, must give the automaton's own steps.
    #[test]
    fn the_header_means_the_automaton() {
        for text in [
            "RULE = always (RT imply not PAGEFAULT)\n",
            "RULE = always ((RT and SLEEP) imply (OK or ALLOW))\nOK = (A or B) and ((not WAKE) until GOOD)\nGOOD = C or D\nALLOW = E\n",
            "RULE = always (A imply next (B until C))\n",
            "RULE = eventually (A and next not B) or always C\n",
            "RULE = not ((A imply B) until (C and not A))\n",
        ] {
            assert_meaning(&header(text), text);
        }
    }

    /// A tiny reader of the generated C: `bool x = ...;` and `if (...)`
    /// followed by `__set_bit(Sk, ...)`.
    struct Reader<'a> {
        atoms: &'a [String],
        set: u64,
        vals: BTreeMap<String, bool>,
    }

    impl Reader<'_> {
        fn value(&self, name: &str) -> bool {
            match name {
                "true" => true,
                "false" => false,
                _ => *self.vals.get(name).unwrap_or_else(|| panic!("{name} used undeclared")),
            }
        }

        fn declare(&mut self, decl: &str) {
            let (name, expr) = decl.trim_end_matches(';').split_once(" = ").unwrap();
            let v = if let Some(atom) = expr.strip_prefix("test_bit(LTL_") {
                let atom = atom.split(',').next().unwrap();
                self.set & (1 << self.atoms.iter().position(|a| a == atom).unwrap()) != 0
            } else if let Some(x) = expr.strip_prefix('!') {
                !self.value(x)
            } else if let Some((x, y)) = expr.split_once(" && ") {
                self.value(x) && self.value(y)
            } else {
                let (x, y) = expr.split_once(" || ").unwrap();
                self.value(x) || self.value(y)
            };
            assert!(self.vals.insert(name.to_string(), v).is_none(), "{name} declared twice");
        }

        /// The states a function's body sets, per `case` (one list for ltl_start).
        fn run(&mut self, body: &str) -> BTreeMap<usize, BTreeSet<usize>> {
            self.vals.clear();
            let joined = body.replace("\n\t     ", " ").replace("\n\t\t   ", " ").replace("\n\t   ", " ");
            let (mut case, mut taken, mut out) = (0, false, BTreeMap::new());
            for line in joined.lines().map(str::trim) {
                if let Some(decl) = line.strip_prefix("bool ") {
                    self.declare(decl);
                } else if let Some(s) = line.strip_prefix("case S") {
                    case = s.trim_end_matches(':').parse().unwrap();
                } else if let Some(cond) = line.strip_prefix("if (") {
                    taken = cond.trim_end_matches(')').split(" && ").all(|v| self.value(v));
                } else if let Some(s) = line.strip_prefix("__set_bit(S") {
                    let s: usize = s.split(',').next().unwrap().parse().unwrap();
                    let entry: &mut BTreeSet<usize> = out.entry(case).or_default();
                    if taken {
                        entry.insert(s);
                    }
                }
            }
            out
        }
    }

    fn assert_meaning(h: &str, text: &str) {
        let b = super::super::parse(Path::new("m.ltl"), text).unwrap().buchi().unwrap();
        let start = &h[h.find("ltl_start").unwrap()..h.find("static void\nltl_possible").unwrap()];
        let next = &h[h.find("ltl_possible_next_states").unwrap()..];
        for set in 0..1u64 << b.atoms.len() {
            let mut r = Reader { atoms: &b.atoms, set, vals: BTreeMap::new() };
            let want: BTreeSet<usize> = (0..b.states.len()).filter(|&s| b.states[s].init && b.label_holds(s, set)).collect();
            assert_eq!(r.run(start).remove(&0).unwrap_or_default(), want, "start, atoms {set:b}: {text}");
            let got = r.run(next);
            for (s, state) in b.states.iter().enumerate() {
                let want: BTreeSet<usize> = state.succ.iter().copied().filter(|&t| b.label_holds(t, set)).collect();
                assert_eq!(got.get(&s).cloned().unwrap_or_default(), want, "S{s}, atoms {set:b}: {text}");
            }
        }
    }
}
