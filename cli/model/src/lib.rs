//! vigil's automaton model — the one model every front end produces and
//! every engine consumes (docs/models.md).
//!
//! * [`dot`]: the Linux kernel's Graphviz `.dot` conventions → [`Model`]
//! * [`dot2c`]: [`Model`] → C, byte-compatible with the kernel's dot2c/dot2k
//! * [`render`]: [`Model`] → Graphviz source (optionally one transition in
//!   red) and SVG through `dot -Tsvg`
//! * [`compiled`]: a model and its binding compiled into the one numeric
//!   form every engine reads, and the reference step function
//! * [`guard`]: hybrid constraints (`clk < 100us`) in normal form
//! * [`binding`]: a binding file: which event source feeds each model event
//! * [`sources`]: the catalogue of event sources vigil knows (tracepoints
//!   and their fields, function call/return), shared by the offline checker,
//!   the eBPF monitor and the in-process monitors
//!
//! Every error is a [`Diagnostic`] carrying the file and line it is about.

use std::fmt;
use std::path::{Path, PathBuf};

pub mod binding;
pub mod compiled;
pub mod dot;
pub mod dot2c;
pub mod guard;
pub mod ltl;
pub mod render;
pub mod sources;

pub use binding::{AtomAction, Binding, Cond, Mode, Op, Rule, RuleEvent, Scope, Source};

/// An error (or warning) about an input file, printed `file:line: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: PathBuf,
    /// 1-based; 0 when the problem is about the file as a whole.
    pub line: u32,
    pub message: String,
}

impl Diagnostic {
    pub fn new(file: &Path, line: u32, message: impl Into<String>) -> Self {
        Diagnostic {
            file: file.to_path_buf(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}: {}", self.file.display(), self.line, self.message)
        } else {
            write!(f, "{}: {}", self.file.display(), self.message)
        }
    }
}

impl std::error::Error for Diagnostic {}

/// A place in an input file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Line(pub u32);

/// A hybrid-automaton annotation on an edge: `event;guard;reset(clk)`.
/// vigil parses these and keeps them, but its engines check the untimed
/// automaton only: every tool that runs a model with guards, resets or
/// invariants says so (see [`Model::unsupported`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeAnnotation {
    pub from: usize,
    pub event: usize,
    /// The guard as written (`irq_off == 1`), if any.
    pub guard: Option<String>,
    /// Clocks reset on this edge (`reset(clk)` → `clk`).
    pub resets: Vec<String>,
    pub line: u32,
}

/// A state invariant from a hybrid automaton (`clk < threshold_jiffies`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invariant {
    pub state: usize,
    pub text: String,
    pub line: u32,
}

/// A deterministic automaton, in the kernel's canonical order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    /// Model name: the file's stem (`wwnr.dot` → `wwnr`).
    pub name: String,
    pub path: PathBuf,
    /// Initial state first, then the others sorted (kernel dot2c order).
    pub states: Vec<String>,
    /// Sorted (kernel dot2c order).
    pub events: Vec<String>,
    /// Always 0 (the initial state comes first); kept for readability.
    pub initial: usize,
    /// Per state: marked (doublecircle / ellipse), or the initial state when
    /// nothing is marked.
    pub finals: Vec<bool>,
    /// `function[state][event]`: the next state, `None` where the event is
    /// not allowed.
    pub function: Vec<Vec<Option<usize>>>,
    /// Hybrid annotations (guards / clock resets) on edges.
    pub annotations: Vec<EdgeAnnotation>,
    /// Hybrid state invariants.
    pub invariants: Vec<Invariant>,
    /// Line of each state's first mention and each event's first use, for
    /// messages (same indexing as `states` / `events`).
    pub state_lines: Vec<u32>,
    pub event_lines: Vec<u32>,
    /// An LTL model (`.ltl`): its Büchi automaton.  `states` then name the
    /// automaton's states (`S0`...), `events` are its atoms, and `function`
    /// has no transition (the automaton steps on atom values, not events).
    pub ltl: Option<ltl::Buchi>,
}

impl Model {
    /// Parse a `.dot` model (see [`dot::parse`]) or an `.ltl` one (see
    /// [`ltl`]).
    pub fn from_file(path: &Path) -> Result<Model, Diagnostic> {
        if path.extension().is_some_and(|e| e == "ltl") {
            return ltl::LtlModel::from_file(path)?.to_model();
        }
        dot::parse_file(path)
    }

    pub fn state_index(&self, name: &str) -> Option<usize> {
        self.states.iter().position(|s| s == name)
    }

    pub fn event_index(&self, name: &str) -> Option<usize> {
        self.events.iter().position(|e| e == name)
    }

    /// Events allowed in `state`, in event order.
    pub fn allowed(&self, state: usize) -> Vec<&str> {
        self.function[state]
            .iter()
            .enumerate()
            .filter(|(_, next)| next.is_some())
            .map(|(e, _)| self.events[e].as_str())
            .collect()
    }

    /// One step: the next state, or `None` when `event` is not allowed.
    #[inline]
    pub fn step(&self, state: usize, event: usize) -> Option<usize> {
        self.function[state][event]
    }

    /// True when the model has hybrid parts (guards, resets, invariants).
    pub fn is_hybrid(&self) -> bool {
        !self.annotations.is_empty() || !self.invariants.is_empty()
    }

    /// The automaton without its hybrid parts, for engines that have no
    /// clocks yet (they print [`Model::unsupported`] first).
    pub fn untimed(&self) -> Model {
        let mut m = self.clone();
        m.annotations.clear();
        m.invariants.clear();
        m
    }

    /// One message per hybrid part vigil's engines do not check, as
    /// `file:line: warning: ...`.  Tools print these before running the
    /// model; nothing is silently dropped.
    pub fn unsupported(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for a in &self.annotations {
            if let Some(g) = &a.guard {
                out.push(Diagnostic::new(
                    &self.path,
                    a.line,
                    format!(
                        "warning: guard `{g}` on event {} from state {} is not implemented: \
                         vigil checks the untimed automaton (the transition is taken whatever the guard)",
                        self.events[a.event], self.states[a.from]
                    ),
                ));
            }
            for c in &a.resets {
                out.push(Diagnostic::new(
                    &self.path,
                    a.line,
                    format!(
                        "warning: clock reset `reset({c})` on event {} from state {} is not implemented: \
                         vigil has no clocks",
                        self.events[a.event], self.states[a.from]
                    ),
                ));
            }
        }
        for i in &self.invariants {
            out.push(Diagnostic::new(
                &self.path,
                i.line,
                format!(
                    "warning: invariant `{}` of state {} is not implemented: vigil has no clocks",
                    i.text, self.states[i.state]
                ),
            ));
        }
        out
    }
}
