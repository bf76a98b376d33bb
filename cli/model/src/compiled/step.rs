//! The reference semantics: one step of one instance.  The C engines'
//! `vk_decide` (include/vigil/vk.h) is this function, line for line; the
//! conformance corpus (tests/conformance) holds them to it.
//!
//! A step on a monitored instance in state `s`, at time `now`:
//!
//! 1. the event must be allowed in `s`, else `Event`;
//! 2. hybrid: the invariant of `s` must still hold (`now < expiry`), else
//!    `Invariant` (a timer that fired late is caught here, as the kernel's
//!    `ha_verify_invariants` does);
//! 3. hybrid: the edge's guard must hold, else `Guard`; a comparison on a
//!    clock never reset passes (the kernel's `ha_monitor_env_invalid`);
//! 4. the edge's clocks are reset to `now`, the state becomes `next`;
//! 5. hybrid: entering a state with an invariant arms its expiry at the
//!    clock's last reset + the bound, so the bound counts from the reset
//!    (the kernel's "invariant representation"); a clock never reset
//!    counts from the state's entry instead (the kernel arms its timer so
//!    but then never fails at an event: vigil fails at both).  A self-loop
//!    that resets nothing keeps the expiry.
//!
//! Timers call [`Compiled::expire`]: once `now >= expiry`, `Invariant`
//! with no event.

use super::*;

impl Compiled {
    /// Whether `rule`'s conditions hold for these field values.
    #[inline]
    pub fn rule_holds(&self, rule: &Rule, fields: &[i64]) -> bool {
        let conds = &self.cmps[rule.cond_first as usize..][..rule.cond_n as usize];
        conds.iter().all(|c| c.op.holds(fields[c.lhs as usize], c.value))
    }

    /// The instance key `rule` picks (0 for scope global).
    #[inline]
    pub fn key_of(&self, rule: &Rule, fields: &[i64]) -> i64 {
        if rule.key == NO_FIELD {
            0
        } else {
            fields[rule.key as usize]
        }
    }

    /// One step of `rule`'s event on `inst` (see the module's comment).
    /// `fields` are the event's (the rule source's order), `now` its time
    /// in ns (unused by plain automata).
    #[inline]
    pub fn decide(&self, rule: &Rule, inst: &mut Inst, fields: &[i64], now: u64) -> Verdict {
        if self.kind == Kind::Ltl {
            return self.ltl_step(rule, inst);
        }
        if rule.event == FORGET {
            let Some(from) = inst.state() else { return Verdict::Ok };
            *inst = Inst::UNMONITORED;
            return if self.finals[from as usize] { Verdict::Ok } else { Verdict::NotFinal { from } };
        }
        if inst.word == 0 {
            if rule.mode == Mode::Plain && self.has_start {
                return Verdict::Ok;
            }
            self.enter_initial(inst, now);
            if rule.mode == Mode::Start {
                return Verdict::Ok;
            }
        }
        let from = (inst.word - 1) as u16;
        let cell = from as usize * self.nevents as usize + rule.event as usize;
        let next = self.next[cell];
        if next == NONE {
            return self.fail(inst, now, Verdict::Event { from });
        }
        if self.kind == Kind::Ha {
            return self.hybrid_step(rule, inst, fields, now, from, cell);
        }
        inst.word = next as u32 + 1;
        Verdict::Ok
    }

    #[inline(never)]
    fn hybrid_step(
        &self,
        rule: &Rule,
        inst: &mut Inst,
        fields: &[i64],
        now: u64,
        from: u16,
        cell: usize,
    ) -> Verdict {
        if now >= inst.expiry_ns {
            return self.fail(inst, now, Verdict::Invariant { from });
        }
        let edge = self.edges[cell];
        if edge.guard != NONE && !self.guard_holds(edge.guard, rule, inst, fields, now) {
            return self.fail(inst, now, Verdict::Guard { from, guard: edge.guard });
        }
        for c in 0..MAX_CLOCKS {
            if edge.resets & (1 << c) != 0 {
                inst.reset_ns[c] = now;
            }
        }
        let next = self.next[cell];
        if next != from || edge.resets != 0 {
            self.arm(inst, next, now);
        }
        inst.word = next as u32 + 1;
        Verdict::Ok
    }

    /// An LTL rule: the kernel's `ltl_atom_set/update/pulse` on the
    /// instance's Büchi state set (crate::ltl).  `forget` ends the task's
    /// monitor with no verdict, as the kernel's task exit does.
    fn ltl_step(&self, rule: &Rule, inst: &mut Inst) -> Verdict {
        use crate::binding::AtomAction;
        let b = self.ltl.as_ref().expect("an LTL model has its automaton");
        if rule.event == FORGET {
            *inst = Inst::UNMONITORED;
            return Verdict::Ok;
        }
        let mut m = crate::ltl::LtlInst { states: inst.word, atoms: inst.atoms, known: inst.known };
        let before = m.states;
        let atom = rule.event as usize;
        let violated = match rule.atom {
            Some(AtomAction::Set(v)) => {
                b.set(&mut m, atom, v);
                false
            }
            Some(AtomAction::Update(v)) => b.update(&mut m, atom, v),
            Some(AtomAction::Pulse) | None => b.pulse(&mut m, atom, true),
        };
        inst.word = m.states;
        inst.atoms = m.atoms;
        inst.known = m.known;
        if violated {
            Verdict::Ltl { states: if before != 0 { before } else { m.states } }
        } else {
            Verdict::Ok
        }
    }

    /// A timer: the instance's invariant has expired by `now`.
    pub fn expire(&self, inst: &mut Inst, now: u64) -> Verdict {
        match inst.state() {
            Some(from) if now >= inst.expiry_ns => self.fail(inst, now, Verdict::Invariant { from }),
            _ => Verdict::Ok,
        }
    }

    fn enter_initial(&self, inst: &mut Inst, now: u64) {
        *inst = Inst { word: 1, ..Inst::UNMONITORED };
        if self.kind == Kind::Ha {
            self.arm(inst, 0, now);
        }
    }

    fn arm(&self, inst: &mut Inst, state: u16, now: u64) {
        inst.expiry_ns = match &self.invariants[state as usize] {
            None => NEVER,
            Some(inv) => {
                let base = inst.reset_ns[inv.clock as usize];
                let base = if base == NEVER { now } else { base };
                base.saturating_add(inv.expires_after)
            }
        };
    }

    fn fail(&self, inst: &mut Inst, now: u64, v: Verdict) -> Verdict {
        if self.has_start {
            *inst = Inst::UNMONITORED;
        } else {
            self.enter_initial(inst, now);
        }
        v
    }

    fn guard_holds(&self, g: u16, rule: &Rule, inst: &Inst, fields: &[i64], now: u64) -> bool {
        let g = &self.guards[g as usize];
        let mut term = true;
        for c in &self.cmps[g.first as usize..][..g.n as usize] {
            term &= self.cmp_holds(c, rule, inst, fields, now);
            if c.end_term {
                if term {
                    return true;
                }
                term = true;
            }
        }
        false
    }

    fn cmp_holds(&self, c: &Cmp, rule: &Rule, inst: &Inst, fields: &[i64], now: u64) -> bool {
        let Some(a) = operand(c.lhs_kind, c.lhs, c.value, rule, inst, fields, now) else {
            return true;
        };
        let Some(b) = operand(c.rhs_kind, c.rhs, c.value, rule, inst, fields, now) else {
            return true;
        };
        c.op.holds(a, b)
    }
}

/// An operand's value; `None` for a clock never reset (the comparison then
/// passes).
fn operand(kind: Opnd, i: u8, value: i64, rule: &Rule, inst: &Inst, fields: &[i64], now: u64) -> Option<i64> {
    match kind {
        Opnd::Const => Some(value),
        Opnd::Field => Some(fields[i as usize]),
        Opnd::Env => Some(fields[rule.env_fields[i as usize] as usize]),
        Opnd::Clock => {
            let r = inst.reset_ns[i as usize];
            (r != NEVER).then(|| now.saturating_sub(r).min(i64::MAX as u64) as i64)
        }
    }
}
