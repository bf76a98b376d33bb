//! The graph → the automaton: the kernel's reading of the node and edge
//! statements, in its canonical order, with everything dot2c could not
//! turn into valid C (or that is not deterministic) refused.

use std::collections::BTreeMap;
use std::path::Path;

use super::parse::{Attrs, EdgeStmt, Graph, Value};
use super::{is_c_identifier, INIT_MARKER, RESERVED};
use crate::{Diagnostic, EdgeAnnotation, Invariant, Model};

struct StateInfo {
    line: u32,
    marked: bool,
}

/// One event of one edge label.
struct Transition {
    from: String,
    to: String,
    event: String,
    guard: Option<String>,
    resets: Vec<String>,
    line: u32,
}

/// `function[state][event]`: the next state, `None` where the event is not
/// allowed.
type TransitionFunction = Vec<Vec<Option<usize>>>;

/// The `__init_X` node and the initial state X it names.
struct InitialMarker<'g> {
    name: &'g str,
    /// Its first mention.
    line: u32,
    state: &'g str,
}

/// States and events in the kernel dot2c's order (the initial state, then
/// the other states sorted; events sorted), with the line each is first
/// written on.
struct Order {
    states: Vec<String>,
    events: Vec<String>,
    state_lines: Vec<u32>,
    event_lines: Vec<u32>,
}

impl Order {
    fn state_ix(&self, s: &str) -> usize {
        self.states.iter().position(|x| x == s).expect("state")
    }

    fn event_ix(&self, e: &str) -> usize {
        self.events.iter().position(|x| x == e).expect("event")
    }
}

fn is_marked_shape(attrs: &Attrs) -> bool {
    attrs.get("shape").is_some_and(|v| {
        v.text.eq_ignore_ascii_case("doublecircle") || v.text.eq_ignore_ascii_case("ellipse")
    })
}

/// `reset(NAME)` (spaces allowed) → `Some(Ok(NAME))`; a malformed reset →
/// `Some(Err(..))`; anything else (a guard) → `None`.
fn parse_reset(part: &str) -> Option<Result<String, String>> {
    let rest = part.strip_prefix("reset")?.trim_start();
    let inner = rest.strip_prefix('(')?;
    let Some(inner) = inner.trim_end().strip_suffix(')') else {
        return Some(Err(format!(
            "malformed clock reset `{part}`: expected `reset(CLOCK)`"
        )));
    };
    let clock = inner.trim();
    if is_c_identifier(clock) {
        Some(Ok(clock.to_string()))
    } else {
        Some(Err(format!(
            "malformed clock reset `{part}`: `{clock}` is not a valid C identifier"
        )))
    }
}

fn show_label(label: &str) -> String {
    format!("\"{label}\"")
}

/// The kernel's reading of `graph` as an automaton, named after the file
/// stem of `path`.
pub(super) fn build(path: &Path, graph: &Graph) -> Result<Model, Diagnostic> {
    let b = Builder { path, graph };
    let marker = b.initial_marker()?;
    let states = b.states(&marker)?;
    let transitions = b.transitions(marker.state, &states)?;
    let order = b.canonical_order(marker.state, &states, &transitions)?;
    let (function, annotations) = b.transition_function(&order, &transitions)?;
    let invariants = b.state_invariants(&order)?;
    let finals = finals(&order, &states);
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();

    Ok(Model {
        name,
        path: path.to_path_buf(),
        states: order.states,
        events: order.events,
        initial: 0,
        finals,
        function,
        annotations,
        invariants,
        state_lines: order.state_lines,
        event_lines: order.event_lines,
        ltl: None,
    })
}

/// What the steps of [`build`] share: the graph, and the file messages are
/// about.
struct Builder<'g> {
    path: &'g Path,
    graph: &'g Graph,
}

impl<'g> Builder<'g> {
    fn diag(&self, line: u32, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.path, line, msg)
    }

    /// The one `__init_X` node, and X.
    fn initial_marker(&self) -> Result<InitialMarker<'g>, Diagnostic> {
        let g = self.graph;
        // Each `__init_` name with the line of its first mention, in file order.
        let mut markers: Vec<(&str, u32)> = Vec::new();
        let mentions = g.nodes.iter().map(|n| (n.name.as_str(), n.line)).chain(
            g.edges
                .iter()
                .flat_map(|e| [(e.from.as_str(), e.from_line), (e.to.as_str(), e.to_line)]),
        );
        for (name, line) in mentions {
            if !name.starts_with(INIT_MARKER) {
                continue;
            }
            match markers.iter_mut().find(|(m, _)| *m == name) {
                Some(seen) => seen.1 = seen.1.min(line),
                None => markers.push((name, line)),
            }
        }
        markers.sort_by_key(|(_, line)| *line);
        let (marker, marker_line) = match markers.as_slice() {
            [] => {
                return Err(self.diag(
                    g.line,
                    "no initial state: mark it with an invisible node `__init_X` and an edge \
                     `\"__init_X\" -> \"X\"` (X: the initial state)",
                ))
            }
            [one] => *one,
            [(a, la), (b, lb), ..] => {
                return Err(self.diag(
                    *lb,
                    format!(
                        "two initial states: `{a}` (line {la}) and `{b}` (line {lb}); \
                         an automaton has exactly one `__init_` marker"
                    ),
                ))
            }
        };
        let initial = &marker[INIT_MARKER.len()..];
        if initial.is_empty() {
            return Err(self.diag(
                marker_line,
                format!("`{marker}` names no initial state: write `__init_X` for initial state X"),
            ));
        }
        Ok(InitialMarker {
            name: marker,
            line: marker_line,
            state: initial,
        })
    }

    /// Every node statement declares a state; the initial one must be among
    /// them.
    fn states(
        &self,
        marker: &InitialMarker<'g>,
    ) -> Result<BTreeMap<&'g str, StateInfo>, Diagnostic> {
        let mut states: BTreeMap<&str, StateInfo> = BTreeMap::new();
        for n in &self.graph.nodes {
            if n.name.starts_with(INIT_MARKER) {
                continue;
            }
            let info = states.entry(&n.name).or_insert(StateInfo {
                line: n.line,
                marked: false,
            });
            info.marked |= is_marked_shape(&n.attrs);
        }
        for (name, info) in &states {
            if !is_c_identifier(name) {
                return Err(self.diag(
                    info.line,
                    format!("state name `{name}` is not a valid C identifier (dot2c emits it as a C enumerator)"),
                ));
            }
            if RESERVED.contains(name) {
                return Err(self.diag(
                    info.line,
                    format!("state name `{name}` is reserved: the generated C defines it"),
                ));
            }
        }
        let initial = marker.state;
        if !states.contains_key(initial) {
            return Err(self.diag(
                marker.line,
                format!(
                    "initial state `{initial}` (marked by `{}`) is not declared: \
                     add a node statement such as `{{node [shape = doublecircle] \"{initial}\"}};`",
                    marker.name
                ),
            ));
        }
        Ok(states)
    }

    /// Edges → transitions: one per event of each edge's label.
    fn transitions(
        &self,
        initial: &str,
        states: &BTreeMap<&str, StateInfo>,
    ) -> Result<Vec<Transition>, Diagnostic> {
        let mut transitions: Vec<Transition> = Vec::new();
        for e in &self.graph.edges {
            let Some(label) = self.edge_label(e, initial, states)? else {
                continue;
            };
            for item in label.text.split("\\n") {
                transitions.push(self.label_item(e, label, item)?);
            }
        }
        Ok(transitions)
    }

    /// The label of an edge between two declared states; `None` for the
    /// initial marker's edge, which carries no events.
    fn edge_label<'e>(
        &self,
        e: &'e EdgeStmt,
        initial: &str,
        states: &BTreeMap<&str, StateInfo>,
    ) -> Result<Option<&'e Value>, Diagnostic> {
        let label = e.attrs.get("label");
        if e.to.starts_with(INIT_MARKER) {
            return Err(self.diag(
                e.to_line,
                format!(
                    "edge into the initial marker `{}`: it only points to the initial state",
                    e.to
                ),
            ));
        }
        if e.from.starts_with(INIT_MARKER) {
            if e.to != initial {
                return Err(self.diag(
                    e.to_line,
                    format!(
                        "the initial marker `{}` points to `{}`; it must point to `{initial}`",
                        e.from, e.to
                    ),
                ));
            }
            if let Some(l) = label.filter(|l| !l.text.is_empty()) {
                return Err(self.diag(
                    l.line,
                    format!(
                        "the initial marker's edge carries no events (label {})",
                        show_label(&l.text)
                    ),
                ));
            }
            return Ok(None);
        }
        for (end, line, dir) in [(&e.from, e.from_line, "from"), (&e.to, e.to_line, "to")] {
            if !states.contains_key(end.as_str()) {
                return Err(self.diag(
                    line,
                    format!(
                        "edge {dir} undeclared state `{end}`: declare every state with a node \
                         statement, e.g. `{{node [shape = circle] \"{end}\"}};`"
                    ),
                ));
            }
        }
        let Some(label) = label else {
            return Err(self.diag(
                e.from_line,
                format!(
                    "edge `{}` -> `{}` has no label: every transition needs at least one event \
                     (`[ label = \"event\" ]`)",
                    e.from, e.to
                ),
            ));
        };
        if label.html {
            return Err(self.diag(
                label.line,
                "unsupported: an HTML label on a transition; write the events as a quoted string",
            ));
        }
        Ok(Some(label))
    }

    /// One `event[;guard][;reset(clk)]` item of the label of edge `e`.
    fn label_item(
        &self,
        e: &EdgeStmt,
        label: &Value,
        item: &str,
    ) -> Result<Transition, Diagnostic> {
        let mut parts = item.split(';');
        let event = parts.next().unwrap_or("").trim();
        if event.is_empty() {
            return Err(self.diag(
                label.line,
                format!(
                    "empty event name in label {} of edge `{}` -> `{}`",
                    show_label(&label.text),
                    e.from,
                    e.to
                ),
            ));
        }
        if !is_c_identifier(event) {
            return Err(self.diag(
                label.line,
                format!("event name `{event}` is not a valid C identifier (dot2c emits it as a C enumerator)"),
            ));
        }
        if RESERVED.contains(&event) {
            return Err(self.diag(
                label.line,
                format!("event name `{event}` is reserved: the generated C defines it"),
            ));
        }
        let mut guard: Option<String> = None;
        let mut resets = Vec::new();
        for part in parts {
            let part = part.trim();
            if part.is_empty() {
                return Err(self.diag(
                    label.line,
                    format!(
                        "empty constraint after `;` in event `{event}` of label {}",
                        show_label(&label.text)
                    ),
                ));
            }
            match parse_reset(part) {
                Some(Ok(clock)) => resets.push(clock),
                Some(Err(msg)) => return Err(self.diag(label.line, msg)),
                None => {
                    if let Some(first) = &guard {
                        return Err(self.diag(
                            label.line,
                            format!(
                                "two guards (`{first}` and `{part}`) on event `{event}`: \
                                 combine them into one with && or ||"
                            ),
                        ));
                    }
                    guard = Some(part.to_string());
                }
            }
        }
        Ok(Transition {
            from: e.from.clone(),
            to: e.to.clone(),
            event: event.to_string(),
            guard,
            resets,
            line: label.line,
        })
    }

    fn canonical_order(
        &self,
        initial: &str,
        states: &BTreeMap<&str, StateInfo>,
        transitions: &[Transition],
    ) -> Result<Order, Diagnostic> {
        let mut state_names: Vec<String> = vec![initial.to_string()];
        state_names.extend(
            states
                .keys()
                .filter(|s| **s != initial)
                .map(|s| s.to_string()),
        );
        let mut event_first: BTreeMap<&str, u32> = BTreeMap::new();
        for t in transitions {
            event_first.entry(&t.event).or_insert(t.line);
        }
        if event_first.is_empty() {
            return Err(self.diag(
                self.graph.line,
                "the automaton has no events: no edge between states carries a label",
            ));
        }
        let event_names: Vec<String> = event_first.keys().map(|s| s.to_string()).collect();
        for ev in &event_names {
            if let Some(info) = states.get(ev.as_str()) {
                return Err(self.diag(
                    event_first[ev.as_str()],
                    format!(
                        "`{ev}` is both a state (line {}) and an event: dot2c would emit the C \
                         enumerator twice; rename one",
                        info.line
                    ),
                ));
            }
        }
        let state_lines = state_names
            .iter()
            .map(|s| states[s.as_str()].line)
            .collect();
        let event_lines = event_names
            .iter()
            .map(|e| event_first[e.as_str()])
            .collect();
        Ok(Order {
            states: state_names,
            events: event_names,
            state_lines,
            event_lines,
        })
    }

    /// `function[state][event]`, checking determinism, and the hybrid
    /// annotations of the transitions.
    fn transition_function(
        &self,
        order: &Order,
        transitions: &[Transition],
    ) -> Result<(TransitionFunction, Vec<EdgeAnnotation>), Diagnostic> {
        let ns = order.states.len();
        let ne = order.events.len();
        let mut function: TransitionFunction = vec![vec![None; ne]; ns];
        let mut cell_line: Vec<Vec<u32>> = vec![vec![0; ne]; ns];
        let mut annotations = Vec::new();
        for t in transitions {
            let (s, ev, to) = (
                order.state_ix(&t.from),
                order.event_ix(&t.event),
                order.state_ix(&t.to),
            );
            match function[s][ev] {
                Some(prev) if prev != to => {
                    return Err(self.diag(
                        t.line,
                        format!(
                            "nondeterministic: event `{}` leads from state `{}` to `{}` (line {}) \
                             and to `{}` (line {})",
                            t.event, t.from, order.states[prev], cell_line[s][ev], t.to, t.line
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    function[s][ev] = Some(to);
                    cell_line[s][ev] = t.line;
                }
            }
            if t.guard.is_some() || !t.resets.is_empty() {
                self.annotate(&mut annotations, t, s, ev)?;
            }
        }
        Ok((function, annotations))
    }

    /// Record the guard and resets of `t` (from state `s` on event `ev`).
    fn annotate(
        &self,
        annotations: &mut Vec<EdgeAnnotation>,
        t: &Transition,
        s: usize,
        ev: usize,
    ) -> Result<(), Diagnostic> {
        // The same transition written on several edges: one annotation,
        // as the renderer draws it (one label item per event), so that
        // the rendering parses back.  Two different guards cannot be
        // combined silently.
        let Some(a) = annotations
            .iter_mut()
            .find(|a| a.from == s && a.event == ev)
        else {
            annotations.push(EdgeAnnotation {
                from: s,
                event: ev,
                guard: t.guard.clone(),
                resets: t.resets.clone(),
                line: t.line,
            });
            return Ok(());
        };
        match (&a.guard, &t.guard) {
            (Some(first), Some(g)) if first != g => {
                return Err(self.diag(
                    t.line,
                    format!(
                        "two guards (`{first}` on line {} and `{g}`) on event `{}` from \
                         state `{}`: combine them into one with && or ||",
                        a.line, t.event, t.from
                    ),
                ));
            }
            (None, Some(g)) => a.guard = Some(g.clone()),
            _ => {}
        }
        for c in &t.resets {
            if !a.resets.contains(c) {
                a.resets.push(c.clone());
            }
        }
        Ok(())
    }

    /// Hybrid state invariants: a state label `name\ninvariant`.
    fn state_invariants(&self, order: &Order) -> Result<Vec<Invariant>, Diagnostic> {
        let mut invariants: Vec<Invariant> = Vec::new();
        for n in &self.graph.nodes {
            if n.name.starts_with(INIT_MARKER) {
                continue;
            }
            let Some(label) = n.attrs.get("label") else {
                continue;
            };
            if label.html {
                continue;
            }
            let mut parts = label.text.split("\\n");
            parts.next();
            let rest: Vec<&str> = parts.collect();
            match rest.as_slice() {
                [] => {}
                [inv] => {
                    let text = inv.trim();
                    if text.is_empty() {
                        return Err(self.diag(
                            label.line,
                            format!(
                                "empty invariant in the label {} of state `{}`",
                                show_label(&label.text),
                                n.name
                            ),
                        ));
                    }
                    let i = Invariant {
                        state: order.state_ix(&n.name),
                        text: text.to_string(),
                        line: label.line,
                    };
                    if !invariants
                        .iter()
                        .any(|x| x.state == i.state && x.text == i.text)
                    {
                        invariants.push(i);
                    }
                }
                _ => {
                    return Err(self.diag(
                        label.line,
                        format!(
                        "the label of state `{}` has {} invariants; a state carries at most one \
                             (`name\\ninvariant`)",
                        n.name,
                        rest.len()
                    ),
                    ))
                }
            }
        }
        Ok(invariants)
    }
}

/// Per state in `order`: marked; when none is, the initial state.
fn finals(order: &Order, states: &BTreeMap<&str, StateInfo>) -> Vec<bool> {
    let mut finals: Vec<bool> = order
        .states
        .iter()
        .map(|s| states[s.as_str()].marked)
        .collect();
    if !finals.iter().any(|f| *f) {
        finals[0] = true;
    }
    finals
}
