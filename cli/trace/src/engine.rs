//! The automaton engine shared by the offline checker (`vigil check`, over
//! ftrace text) and the collector (`vigil collect --check`, over event
//! streams): the compiled model ([`vigil_model::compiled`]), one
//! [`Inst`] per instance in a hash map, and for hybrid automata a heap of
//! expiries that trace time fires.
//!
//! The step is [`Compiled::decide`], the reference semantics every engine
//! follows; in words (and the binding language's, see
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
//! call [`Machine::expire`] with the event's time (hybrid automata only),
//! then [`Machine::holds`] and [`Machine::fire`] for each of its rules.

use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::BinaryHeap;
use std::sync::Arc;

pub use vigil_model::compiled::{Compiled, Inst, Kind, Verdict, FORGET, NEVER, NO_FIELD};
use vigil_model::binding::Mode;

use crate::fxhash::FxHashMap;

/// One binding rule as a front end plans it: which fields to read.
#[derive(Debug, Clone)]
pub struct Rule {
    /// Index into the binding's rules (and the compiled rules).
    pub index: usize,
    /// Model event, or [`FORGET`].
    pub event: u16,
    pub mode: Mode,
    fields: Vec<usize>,
}

impl Rule {
    pub fn compile(c: &Compiled, index: usize) -> Rule {
        let r = &c.rules[index];
        let mut fields: Vec<usize> = c.cmps[r.cond_first as usize..][..r.cond_n as usize]
            .iter()
            .map(|k| k.lhs as usize)
            .collect();
        if r.key != NO_FIELD {
            fields.push(r.key as usize);
        }
        fields.extend(r.env_fields.iter().filter(|&&f| f != NO_FIELD).map(|&f| f as usize));
        let mut seen = 0u32;
        fields.retain(|&f| {
            let first = seen & (1 << f) == 0;
            seen |= 1 << f;
            first
        });
        Rule { index, event: r.event, mode: r.mode, fields }
    }

    /// The fields this rule reads: its conditions', its key and the
    /// environment variables of its event's guards.
    pub fn fields(&self) -> impl Iterator<Item = usize> + '_ {
        self.fields.iter().copied()
    }
}

/// The automata: the compiled model and the live instances.
pub struct Machine {
    c: Arc<Compiled>,
    inst: FxHashMap<i64, Inst>,
    /// Hybrid automata: (expiry, key), earliest first; stale entries (the
    /// instance moved on) are skipped when popped.
    timers: BinaryHeap<Reverse<(u64, i64)>>,
    started: u64,
}

impl Machine {
    pub fn new(c: Arc<Compiled>) -> Machine {
        Machine { c, inst: FxHashMap::default(), timers: BinaryHeap::new(), started: 0 }
    }

    pub fn compiled(&self) -> &Compiled {
        &self.c
    }

    /// Instances started so far.
    pub fn started(&self) -> u64 {
        self.started
    }

    /// Instances monitored now.
    pub fn live(&self) -> u64 {
        self.inst.len() as u64
    }

    /// True when time matters (the model has clocks or guards).
    pub fn timed(&self) -> bool {
        self.c.kind == Kind::Ha
    }

    #[inline]
    pub fn holds(&self, r: &Rule, vals: &[i64]) -> bool {
        self.c.rule_holds(&self.c.rules[r.index], vals)
    }

    #[inline]
    pub fn key_of(&self, r: &Rule, vals: &[i64]) -> i64 {
        self.c.key_of(&self.c.rules[r.index], vals)
    }

    /// Fires `r` on the instance `key`, at `now_ns` (trace time).
    #[inline]
    pub fn fire(&mut self, r: &Rule, key: i64, vals: &[i64], now_ns: u64) -> Verdict {
        let rule = &self.c.rules[r.index];
        let (v, expiry) = match self.inst.entry(key) {
            Entry::Occupied(mut o) => {
                let before = o.get().expiry_ns;
                let v = self.c.decide(rule, o.get_mut(), vals, now_ns);
                let after = o.get().expiry_ns;
                if o.get().is_empty() {
                    o.remove();
                    return v;
                }
                (v, (after != before).then_some(after))
            }
            Entry::Vacant(slot) => {
                let mut i = Inst::UNMONITORED;
                let v = self.c.decide(rule, &mut i, vals, now_ns);
                if i.is_empty() {
                    return v;
                }
                self.started += 1;
                slot.insert(i);
                (v, Some(i.expiry_ns))
            }
        };
        if let Some(at) = expiry.filter(|&at| at != NEVER) {
            self.timers.push(Reverse((at, key)));
        }
        v
    }

    /// Fires every expiry at or before `now_ns`, earliest first: `found`
    /// gets the key, the verdict and the time the invariant turned false.
    pub fn expire(&mut self, now_ns: u64, mut found: impl FnMut(i64, Verdict, u64)) {
        while let Some(&Reverse((at, key))) = self.timers.peek() {
            if at > now_ns {
                break;
            }
            self.timers.pop();
            let Some(inst) = self.inst.get_mut(&key) else { continue };
            if inst.expiry_ns != at {
                continue;
            }
            let v = self.c.expire(inst, at);
            let (word, next) = (inst.word, inst.expiry_ns);
            if word == 0 {
                self.inst.remove(&key);
            } else if next != NEVER {
                self.timers.push(Reverse((next, key)));
            }
            if v != Verdict::Ok {
                found(key, v, at);
            }
        }
    }
}
