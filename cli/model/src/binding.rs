//! Binding files: which event source feeds each event of a model, and how
//! the model's instances are keyed (docs/models.md, "Bindings").
//!
//! ```text
//! # models/wwnr.bind — wakeup while not running, per task
//! model  wwnr.dot                       # optional, relative to this file
//! scope  task                           # global | cpu | task | thread | object
//! switch_out <- tp:sched:sched_switch key=prev_pid if prev_state == S start
//! switch_out <- tp:sched:sched_switch key=prev_pid if prev_state != S
//! switch_in  <- tp:sched:sched_switch key=next_pid
//! wakeup     <- tp:sched:sched_wakeup key=pid
//! ```
//!
//! A rule is `EVENT <- SOURCE [key=FIELD] [if COND [&& COND]...] [start|run]`:
//!
//! * `EVENT` is one of the model's events, or `forget`: the keyed instance
//!   ends (its state must be a final one, else that is a violation
//!   `not-final`) and is forgotten.
//! * `SOURCE` is `tp:[SYSTEM:]NAME` (a tracepoint of [`crate::sources`]),
//!   `call:[LIB:]FUNC` or `return:[LIB:]FUNC` (a C function's entry or
//!   return: compiled in by vigil-cc, or a uprobe / uretprobe; LIB names
//!   the shared object for uprobes and is ignored in-process).
//! * `key=FIELD` picks the instance.  Default: `common_pid` for scope task
//!   (and its alias thread), `cpu` for scope cpu, none for global; scope
//!   object requires a key.
//! * `COND` is `FIELD OP VALUE`, OP one of `== != < <= > >=`, VALUE an
//!   integer (decimal, `0x` hex, negative) or, for a `*state` field, a task
//!   state letter of [`crate::sources::task_state_code`].  Comparisons are
//!   on signed 64-bit values.
//! * `at_exit final` (a line of its own) asks in-process monitors to check
//!   that every instance still monitored at thread / program exit is in a
//!   final state (`at_exit ignore`, the default, does not).
//! * `start`: if the instance is not monitored yet, start it in the initial
//!   state and do not process this event (the kernel's
//!   `da_handle_start_event`); `run`: start it if needed, then process the
//!   event (`da_handle_start_run_event`).  Without them an event on an
//!   instance that is not monitored is ignored.  A binding with no `start`
//!   or `run` rule starts every instance in the initial state at its first
//!   event.
//!
//! * `const NAME = VALUE[ns|us|ms|s|j]` names a value a hybrid model's
//!   constraints use (`clk < threshold_jiffies`, `clk < DEADLINE_NS()`);
//!   `hz N` converts jiffies to nanoseconds; `env NAME = FIELD` says which
//!   event field a guard's variable (`irq_off == 1`) is read from, when the
//!   field has another name.
//!
//! * For an LTL model (`.ltl`) a rule's EVENT is an atom and it ends with
//!   what it does to it: `true` / `false` (the atom takes the value, then
//!   the automaton steps), `pulse` (true for one step, then false for the
//!   next), or `set true` / `set false` (the value only, no step: an atom
//!   read at the next step, like the kernel's fetched RT).
//!
//! Fields of a rule are numbered `source fields ++ sources::COMMON`.

use std::path::{Path, PathBuf};

use crate::{Diagnostic, Model};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Global,
    Cpu,
    /// Per task (kernel) / per thread (in-process): `thread` is an alias.
    Task,
    /// Keyed by a field (`key=arg0`: per mutex).
    Object,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Global => "global",
            Scope::Cpu => "cpu",
            Scope::Task => "task",
            Scope::Object => "object",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A tracepoint from [`crate::sources::TRACEPOINTS`] (by name).
    Tracepoint { name: String },
    /// A function's entry.  `lib`: shared object for uprobes.
    Call { lib: Option<String>, func: String },
    /// A function's return.
    Return { lib: Option<String>, func: String },
}

impl Source {
    /// The source's field names, in field-index order (own fields, then
    /// [`crate::sources::COMMON`]).
    pub fn fields(&self) -> Vec<&'static str> {
        let own: &[&str] = match self {
            Source::Tracepoint { name } => crate::sources::tracepoint(name)
                .map(|t| t.fields)
                .unwrap_or(&[]),
            Source::Call { .. } => crate::sources::CALL_FIELDS,
            Source::Return { .. } => crate::sources::RETURN_FIELDS,
        };
        own.iter().chain(crate::sources::COMMON).copied().collect()
    }

}

/// As written in a binding (`tp:sched_switch`, `call:f`).
impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Tracepoint { name } => write!(f, "tp:{name}"),
            Source::Call { lib: None, func } => write!(f, "call:{func}"),
            Source::Call { lib: Some(l), func } => write!(f, "call:{l}:{func}"),
            Source::Return { lib: None, func } => write!(f, "return:{func}"),
            Source::Return { lib: Some(l), func } => write!(f, "return:{l}:{func}"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        }
    }

    /// `==` → `Eq` ...; `None` for anything else.
    pub fn parse(s: &str) -> Option<Op> {
        [Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge].into_iter().find(|o| o.as_str() == s)
    }

    #[inline]
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Op::Eq => a == b,
            Op::Ne => a != b,
            Op::Lt => a < b,
            Op::Le => a <= b,
            Op::Gt => a > b,
            Op::Ge => a >= b,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cond {
    /// Index into the rule source's fields.
    pub field: usize,
    pub field_name: String,
    pub op: Op,
    pub value: i64,
    /// The value as written (`S`, `0x10`), for messages and generated code.
    pub value_text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Plain,
    Start,
    Run,
}

/// What a rule of an LTL model's binding does to its atom (the kernel's
/// `ltl_atom_set`, `ltl_atom_update`, `ltl_atom_pulse`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomAction {
    /// `set true|false`: the value changes, no step.
    Set(bool),
    /// `true|false`: the value changes, then one step.
    Update(bool),
    /// `pulse`: true for one step, then false for the next.
    Pulse,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleEvent {
    /// Index into the model's events.
    Event(usize),
    /// End and forget the keyed instance.
    Forget,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Line in the binding file.
    pub line: u32,
    pub event: RuleEvent,
    pub source: Source,
    /// Index into the source's fields; `None` for scope global.
    pub key: Option<usize>,
    pub conds: Vec<Cond>,
    pub mode: Mode,
    /// LTL models: what the rule does to its atom (`event` is the atom).
    pub atom: Option<AtomAction>,
}

impl Rule {
    /// The name of the field that keys the instance (`None` for scope
    /// global), as reports name it.
    pub fn key_field(&self) -> Option<&'static str> {
        self.key.and_then(|i| self.source.fields().get(i).copied())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub path: PathBuf,
    /// The `model` line, resolved against the binding file's directory.
    pub model: Option<PathBuf>,
    pub model_line: u32,
    pub scope: Scope,
    pub rules: Vec<Rule>,
    /// `at_exit final` (its line): an instance still monitored when its
    /// thread or the program exits must be in a final state, else that is a
    /// violation `not-final-at-exit`.  Only in-process monitors have a
    /// meaningful end; `vigil check` and `vigil monitor` warn that they
    /// ignore it.  Default (`at_exit ignore`): no check.
    pub at_exit_final: Option<u32>,
    /// `const NAME = VALUE`: values a hybrid model's constraints name.
    pub consts: Vec<Const>,
    /// `hz N` (its value and line): the tick rate that converts jiffies
    /// (`10j`, `const x = 250j`) to nanoseconds.
    pub hz: Option<(i64, u32)>,
    /// `env NAME = FIELD`: a guard's variable NAME is the event's FIELD
    /// (without one, the field of the same name).
    pub envs: Vec<EnvAlias>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvAlias {
    pub name: String,
    pub field: String,
    pub line: u32,
}

/// A named value of a binding (`const threshold_jiffies = 4s`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Const {
    pub name: String,
    pub value: i64,
    pub unit: crate::guard::Unit,
    pub line: u32,
}

impl Binding {
    /// True when some rule has mode `start` or `run` (else every instance is
    /// started at its first event).
    pub fn has_start_rules(&self) -> bool {
        self.rules.iter().any(|r| r.mode != Mode::Plain)
    }

    /// Read only the `model` line (to find the model before the whole
    /// binding can be checked against it).
    pub fn model_path(path: &Path) -> Result<Option<PathBuf>, Diagnostic> {
        parse::model_path(path)
    }

    /// Parse and check a binding against its model: every event exists in
    /// the model, every field exists for its source, every tracepoint is in
    /// the catalogue.
    pub fn from_file(path: &Path, model: &Model) -> Result<Binding, Diagnostic> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Diagnostic::new(path, 0, format!("cannot read binding: {e}")))?;
        parse::parse(path, &text, model)
    }

    pub fn from_str(path: &Path, text: &str, model: &Model) -> Result<Binding, Diagnostic> {
        parse::parse(path, text, model)
    }

    /// What `vigil check` and `vigil monitor` ignore in this binding:
    /// `at_exit final` has a meaning only in-process (a thread or program
    /// exit); a trace or a live kernel has no such end.
    pub fn out_of_process_warnings(&self) -> Vec<Diagnostic> {
        match self.at_exit_final {
            Some(line) => vec![Diagnostic::new(
                &self.path,
                line,
                "warning: `at_exit final` is checked only by in-process monitors (vigil-cc); ignored here",
            )],
            None => Vec::new(),
        }
    }

    /// Warnings about a binding that parsed (not errors): one per model
    /// event that no rule feeds, as `file: warning: ...`.  Tools print them
    /// before running the model.
    pub fn warnings(&self, model: &Model) -> Vec<Diagnostic> {
        let fed = |e: usize| {
            self.rules
                .iter()
                .any(|r| r.event == RuleEvent::Event(e))
        };
        (0..model.events.len())
            .filter(|&e| !fed(e))
            .map(|e| {
                Diagnostic::new(
                    &self.path,
                    0,
                    format!(
                        "warning: no rule feeds event `{}` of model {}: the monitor never sees it",
                        model.events[e], model.name
                    ),
                )
            })
            .collect()
    }

    /// The rule at `line` of the binding file, if any.
    pub fn rule_at(&self, line: u32) -> Option<&Rule> {
        self.rules.iter().find(|r| r.line == line)
    }
}

mod parse;

pub use parse::parse_int;
