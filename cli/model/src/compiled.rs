//! The compiled model: a model and its binding, compiled once into the one
//! numeric form every engine reads, and the reference step function that
//! defines what a step means (docs/models.md, "Semantics").
//!
//! The layout is the C header `include/vigil/vk.h` field for field: the
//! offline engine uses these structs directly, the in-process and BPF
//! engines read the same tables as bytes ([`Compiled::to_blob`]).  A plain
//! automaton is the transition table and the rules; hybrid automata add one
//! [`Edge`] per cell (guard, resets) and an invariant per state, behind a
//! constant [`Kind`] so a plain step never looks at them.
//!
//! Engines keep the instances (a hash map offline, a BPF map, thread-local
//! or striped tables in-process) and call [`Compiled::decide`] (or its C
//! twin) on one instance's [`Inst`]; this function is the semantics.

use crate::binding::{Binding, Mode, Op, RuleEvent, Scope};
use crate::guard::{self, Atom, Unit};
use crate::{Diagnostic, Model};

/// "No transition" in `next`, "no guard" in an edge: the one marker.
pub const NONE: u16 = 0xffff;
/// The event number of a `forget` rule.
pub const FORGET: u16 = 0xfffe;
/// "No field" (a rule without a key, an environment variable a source
/// does not carry).
pub const NO_FIELD: u8 = 0xff;
/// Field values an engine gathers per event: the source's own, then COMMON.
pub const MAX_FIELDS: usize = 16;
/// Clocks per instance (the kernel's hybrid automata have one).
pub const MAX_CLOCKS: usize = 2;
/// Environment variables read from an event's fields by guards.
pub const MAX_ENVS: usize = 4;
/// "Never" for a clock's last reset and an instance's expiry.
pub const NEVER: u64 = u64::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// A deterministic automaton: the transition table is all there is.
    Da = 0,
    /// A hybrid automaton: clocks, guards, resets, invariants.
    Ha = 1,
    /// An LTL model: a Büchi automaton stepped on atom values (`ltl`).
    Ltl = 2,
}

/// What an operand of a [`Cmp`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Opnd {
    /// A field of the rule's source (rule conditions).
    Field = 0,
    /// `Cmp::value`.
    Const = 1,
    /// Time since the clock's last reset, in ns.
    Clock = 2,
    /// An environment variable of a guard: the field `Rule::env_fields`
    /// maps it to for the rule that fired.
    Env = 3,
}

/// One comparison `lhs OP rhs`; a run of them ending at `end_term` is an
/// AND, and a guard is an OR of such runs.  `struct vk_cmp` in C.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cmp {
    pub op: Op,
    pub lhs_kind: Opnd,
    pub lhs: u8,
    pub rhs_kind: Opnd,
    pub rhs: u8,
    /// Last comparison of its AND-term.
    pub end_term: bool,
    /// The constant when `rhs_kind` is [`Opnd::Const`].
    pub value: i64,
}

/// A guard: `cmps[first .. first + n]` in disjunctive normal form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guard {
    pub first: u16,
    pub n: u16,
    /// As written, for reports.
    pub text: String,
    pub line: u32,
}

/// A hybrid automaton's cell: its guard and the clocks it resets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// Index into `guards`, or [`NONE`].
    pub guard: u16,
    /// Bit `c`: clock `c` is reset.
    pub resets: u8,
}

impl Edge {
    const PLAIN: Edge = Edge { guard: NONE, resets: 0 };
}

/// A state invariant `clock < limit` (or `<=`): the state must be left
/// before `reset + limit` (`<`), or `reset + limit + 1` (`<=`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invariant {
    pub clock: u8,
    /// Nanoseconds after the clock's reset at which the invariant is false.
    pub expires_after: u64,
    pub text: String,
    pub line: u32,
}

/// A binding rule, compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// A model event, or [`FORGET`].
    pub event: u16,
    pub mode: Mode,
    /// The field that keys the instance, or [`NO_FIELD`] (scope global).
    pub key: u8,
    /// Conditions: `cmps[cond_first .. + cond_n]`, all must hold.
    pub cond_first: u16,
    pub cond_n: u16,
    /// Per environment variable: the field of this rule's source that
    /// carries it, or [`NO_FIELD`].
    pub env_fields: [u8; MAX_ENVS],
    /// Index of the rule's source among the binding's distinct sources.
    pub source: u16,
    pub line: u32,
    /// LTL: what the rule does to its atom (`event` is the atom's index).
    pub atom: Option<crate::binding::AtomAction>,
}

/// The compiled model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiled {
    pub kind: Kind,
    pub scope: Scope,
    pub has_start: bool,
    pub check_exit: bool,
    pub nstates: u16,
    pub nevents: u16,
    /// `next[state * nevents + event]`, [`NONE`] where not allowed.
    pub next: Vec<u16>,
    pub finals: Vec<bool>,
    /// Per cell, like `next`; empty for [`Kind::Da`].
    pub edges: Vec<Edge>,
    /// Per state; empty for [`Kind::Da`].
    pub invariants: Vec<Option<Invariant>>,
    pub cmps: Vec<Cmp>,
    pub guards: Vec<Guard>,
    pub rules: Vec<Rule>,
    /// The binding's distinct sources, as written (`tp:sched_switch`).
    pub sources: Vec<String>,
    pub clocks: Vec<String>,
    pub envs: Vec<String>,
    pub model_name: String,
    /// The model's and the binding's files, as engines name them in
    /// reports (`vigil render MODEL`, `BINDING:LINE`).
    pub model_path: String,
    pub binding_path: String,
    pub states: Vec<String>,
    pub events: Vec<String>,
    /// [`Kind::Ltl`]: the automaton (`states` name its states, `events`
    /// its atoms).
    pub ltl: Option<crate::ltl::Buchi>,
}

/// One instance's state, as every engine stores it (`struct vk_inst`).
/// The C struct is 32 bytes: `word`, then `known` in what the other kinds
/// leave zero, then `atoms` in a union with `reset_ns` (an LTL model has
/// no clock), then `expiry_ns` (never armed for LTL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inst {
    /// 0: not monitored; otherwise the state + 1.
    pub word: u32,
    /// Time of each clock's last reset, [`NEVER`] before the first.
    pub reset_ns: [u64; MAX_CLOCKS],
    /// When the current state's invariant turns false, or [`NEVER`].
    pub expiry_ns: u64,
    /// [`Kind::Ltl`]: `word` is the set of Büchi states (0: not started),
    /// these the atoms' values and which atoms are known.
    pub atoms: u32,
    pub known: u32,
}

impl Inst {
    pub const UNMONITORED: Inst = Inst { word: 0, reset_ns: [NEVER; MAX_CLOCKS], expiry_ns: NEVER, atoms: 0, known: 0 };

    /// Nothing to keep: not monitored, and (LTL) no atom known.
    pub fn is_empty(&self) -> bool {
        self.word == 0 && self.known == 0
    }

    pub fn state(&self) -> Option<u16> {
        self.word.checked_sub(1).map(|s| s as u16)
    }
}

/// What one step decided.  Every violation leaves the instance reset
/// (not monitored when the binding has start rules, else in the initial
/// state), as the kernel does after its reactor ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Ok,
    /// The event is not allowed in `from`.
    Event { from: u16 },
    /// The edge's guard is false.
    Guard { from: u16, guard: u16 },
    /// Time passed the invariant of `from` (at an event, or on a timer).
    Invariant { from: u16 },
    /// `forget` in a state that is not final.
    NotFinal { from: u16 },
    /// LTL: no state of the automaton accepts the atoms; `states` is the
    /// set it was in.
    Ltl { states: u32 },
}

impl Verdict {
    pub fn kind(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Event { .. } => "event",
            Verdict::Guard { .. } => "guard",
            Verdict::Invariant { .. } => "invariant",
            Verdict::NotFinal { .. } => "not-final",
            Verdict::Ltl { .. } => "ltl",
        }
    }

    pub fn from(self) -> Option<u16> {
        match self {
            Verdict::Ok | Verdict::Ltl { .. } => None,
            Verdict::Event { from }
            | Verdict::Guard { from, .. }
            | Verdict::Invariant { from }
            | Verdict::NotFinal { from } => Some(from),
        }
    }
}

mod blob;
mod build;
pub mod labels;
mod step;

pub use build::compile;
