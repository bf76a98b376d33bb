//! The automaton engine shared by the offline checker (`vigil check`, over
//! ftrace text) and the collector (`vigil collect --check`, over event
//! streams): compiled rules and one automaton per instance.
//!
//! Semantics are the kernel's (and the binding language's, see
//! [`vigil_model::binding`]):
//!
//! * every rule whose source is the event's and whose conditions hold
//!   fires, in binding order;
//! * the rule's key field picks the instance (scope global: one instance);
//! * `start`: an instance not monitored yet starts in the initial state and
//!   the event is not processed; `run`: it starts, then the event is
//!   processed; a plain rule ignores instances not monitored yet, except
//!   when the binding has no `start`/`run` rule at all: then every instance
//!   starts at its first event;
//! * `forget`: the instance ends, a violation if its state is not final;
//! * after a violation the instance is reset, as the kernel does after its
//!   reactor ran: not monitored when the binding has start rules, else back
//!   in the initial state.
//!
//! What a front end does is read the fields a rule needs into a value
//! array indexed like the rule's source fields ([`vigil_model::Source::fields`]),
//! then call [`Rule::fires`] and [`Machine::fire`].

use std::collections::hash_map::Entry;

use vigil_model::binding::{Binding, Mode, Op, RuleEvent};
use vigil_model::Model;

use crate::fxhash::FxHashMap;

/// "no transition" in the flattened table.
const NONE: u32 = u32::MAX;
/// The event number of `forget`.
pub const FORGET: u32 = u32::MAX;

/// One binding rule, compiled: which model event it feeds, the field that
/// keys the instance and its conditions (field indices are the source's).
#[derive(Debug, Clone)]
pub struct Rule {
    /// Index into the binding's rules.
    pub index: usize,
    /// Model event, or [`FORGET`].
    pub event: u32,
    pub key: Option<usize>,
    pub conds: Vec<(usize, Op, i64)>,
    pub mode: Mode,
}

impl Rule {
    pub fn compile(binding: &Binding, index: usize) -> Rule {
        let rule = &binding.rules[index];
        Rule {
            index,
            event: match rule.event {
                RuleEvent::Event(e) => e as u32,
                RuleEvent::Forget => FORGET,
            },
            key: rule.key,
            conds: rule
                .conds
                .iter()
                .map(|c| (c.field, c.op, c.value))
                .collect(),
            mode: rule.mode,
        }
    }

    /// The fields this rule reads: its conditions' and its key.
    pub fn fields(&self) -> impl Iterator<Item = usize> + '_ {
        self.conds.iter().map(|c| c.0).chain(self.key)
    }

    /// Whether the conditions hold for these field values.
    #[inline]
    pub fn holds(&self, vals: &[i64]) -> bool {
        self.conds.iter().all(|&(f, op, v)| op.holds(vals[f], v))
    }

    /// The instance key for these field values (0 for scope global).
    #[inline]
    pub fn key_of(&self, vals: &[i64]) -> i64 {
        self.key.map_or(0, |k| vals[k])
    }
}

/// What one rule firing did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Ok,
    /// The event was not allowed in this state (the instance is reset).
    Violation(u32),
    /// Forgotten in this non-final state.
    NotFinal(u32),
}

/// The automata: a flattened transition table and the live instances.
pub struct Machine {
    nev: usize,
    table: Vec<u32>,
    finals: Vec<bool>,
    has_start: bool,
    inst: FxHashMap<i64, u32>,
    started: u64,
}

impl Machine {
    pub fn new(model: &Model, binding: &Binding) -> Machine {
        let nev = model.events.len();
        let mut table = Vec::with_capacity(model.states.len() * nev);
        for row in &model.function {
            table.extend(row.iter().map(|n| n.map_or(NONE, |s| s as u32)));
        }
        Machine {
            nev,
            table,
            finals: model.finals.clone(),
            has_start: binding.has_start_rules(),
            inst: FxHashMap::default(),
            started: 0,
        }
    }

    /// Instances started so far.
    pub fn started(&self) -> u64 {
        self.started
    }

    /// Instances monitored now.
    pub fn live(&self) -> u64 {
        self.inst.len() as u64
    }

    /// Fires `event` ([`FORGET`] or a model event) on the instance `key`.
    #[inline]
    pub fn fire(&mut self, event: u32, key: i64, mode: Mode) -> Step {
        if event == FORGET {
            return match self.inst.remove(&key) {
                Some(s) if !self.finals[s as usize] => Step::NotFinal(s),
                _ => Step::Ok,
            };
        }
        let state = match self.inst.entry(key) {
            Entry::Occupied(o) => o.into_mut(),
            Entry::Vacant(v) => {
                if mode == Mode::Plain && self.has_start {
                    return Step::Ok;
                }
                self.started += 1;
                let s = v.insert(0);
                if mode == Mode::Start {
                    return Step::Ok;
                }
                s
            }
        };
        let from = *state;
        let next = self.table[from as usize * self.nev + event as usize];
        if next != NONE {
            *state = next;
            return Step::Ok;
        }
        if self.has_start {
            self.inst.remove(&key);
        } else {
            *state = 0;
        }
        Step::Violation(from)
    }
}
