/*
 * vigil/vk_ltl.h — the step of an LTL model's instance: the kernel's
 * ltl_atom_set/update/pulse (include/rv/ltl_monitor.h) on a set of Büchi
 * states, the C twin of Compiled::ltl_step and Buchi::{set, update, pulse}
 * (cli/model/src/compiled/step.rs, cli/model/src/ltl/buchi.rs).  Included
 * by vk_step.h; reads the automaton only through VK_LTL* (vk.h).
 *
 * An instance keeps a set of states, not one: `word` bit s is state s.
 * Every loop runs over at most VK_LTL_MAX_STATES states and
 * VK_LTL_MAX_TERMS terms, so that a verifier sees constant bounds.
 */
#ifndef VIGIL_VK_LTL_H
#define VIGIL_VK_LTL_H

/* The bit of state s in a set being built.  A verifier that knows every
 * bit of the set exactly tells apart each subset of states a path can
 * build (2^states paths); BPF makes the bit opaque (monitor.bpf.c). */
#ifndef VK_LTL_BIT
#define VK_LTL_BIT(s) (1u << (s))
#endif

/* Whether state s's label holds for these atoms: the terms are an OR, or
 * the negation of one (whichever was shorter for the compiler). */
VK_INLINE int vk_ltl_label(const struct vk_model *m, const struct vk_ltl_state *st, vk_u32 atoms)
{
	int any = 0;
	for (vk_u32 i = 0; i < VK_LTL_MAX_TERMS && i < st->nterms && !any; i++) {
		const struct vk_ltl_term *t = VK_LTL_TERM(m, (vk_u32)st->first + i);
		any = t && (atoms & t->pos) == t->pos && !(atoms & t->neg);
	}
	return any != !!st->negated;
}

/* The states among `from` whose labels hold. */
static inline vk_u32 vk_ltl_holding(const struct vk_model *m, vk_u32 nstates, vk_u32 from, vk_u32 atoms)
{
	vk_u32 out = 0;
	for (vk_u32 s = 0; s < VK_LTL_MAX_STATES && s < nstates; s++) {
		const struct vk_ltl_state *st = VK_LTL_STATE(m, s);
		if ((from & (1u << s)) && st && vk_ltl_label(m, st, atoms))
			out |= VK_LTL_BIT(s);
	}
	return out;
}

/* One step on the current atoms: the successors of the current states
 * whose labels hold.  Returns 1 on a violation (none does). */
static inline int vk_ltl_validate(const struct vk_model *m, const struct vk_ltl *l, struct vk_inst *in)
{
	vk_u32 succ = 0;
	for (vk_u32 s = 0; s < VK_LTL_MAX_STATES && s < l->nstates; s++) {
		const struct vk_ltl_state *st = VK_LTL_STATE(m, s);
		if ((in->word & (1u << s)) && st)
			succ |= st->succ;
	}
	in->word = vk_ltl_holding(m, l->nstates, succ, in->atoms);
	return in->word == 0;
}

VK_INLINE void vk_ltl_set(struct vk_inst *in, vk_u32 bit, int value)
{
	in->known |= bit;
	in->atoms = value ? in->atoms | bit : in->atoms & ~bit;
}

/* Set, then step.  A monitor not started starts once every atom has a
 * value, in the initial states whose labels hold; none is no verdict
 * (the kernel tries again at the next update). */
static inline int vk_ltl_update(const struct vk_model *m, const struct vk_ltl *l, struct vk_inst *in,
				vk_u32 bit, int value)
{
	vk_ltl_set(in, bit, value);
	if (in->word)
		return vk_ltl_validate(m, l, in);
	vk_u32 all = l->natoms >= 32 ? 0xffffffffu : (1u << l->natoms) - 1;
	if (in->known == all)
		in->word = vk_ltl_holding(m, l->nstates, l->init, in->atoms);
	return 0;
}

/* True for one step, false for the next; the second step only if the
 * monitor still runs (a violation or a failed start ends it). */
static inline int vk_ltl_pulse(const struct vk_model *m, const struct vk_ltl *l, struct vk_inst *in,
			       vk_u32 bit)
{
	int violated = vk_ltl_update(m, l, in, bit, 1);
	vk_ltl_set(in, bit, 0);
	if (!in->word)
		return violated;
	return vk_ltl_validate(m, l, in) || violated;
}

/* One LTL rule on an instance.  `forget` ends the task's monitor with no
 * verdict, as the kernel's task exit does.  A violation names the states
 * the instance was in before the rule (after the start, if it started in
 * this very step). */
VK_INLINE struct vk_result vk_ltl_decide(const struct vk_model *m, const struct vk_rule *r,
					 struct vk_inst *in)
{
	const struct vk_ltl *l = VK_LTL(m);
	if (r->event == VK_FORGET) {
		in->word = in->known = in->atoms = 0;
		return (struct vk_result){ .verdict = VK_OK };
	}
	if (!l)
		return (struct vk_result){ .verdict = VK_OK };
	vk_u32 before = in->word, bit = 1u << (r->event & 31);
	int violated;
	switch (r->atom_op) {
	case VK_ATOM_SET:
		vk_ltl_set(in, bit, r->atom_value);
		violated = 0;
		break;
	case VK_ATOM_UPDATE:
		violated = vk_ltl_update(m, l, in, bit, r->atom_value);
		break;
	default:
		violated = vk_ltl_pulse(m, l, in, bit);
	}
	if (!violated)
		return (struct vk_result){ .verdict = VK_OK };
	return (struct vk_result){ .verdict = VK_V_LTL, .states = before ? before : in->word };
}

/* vk_model_open's checks of the LTL section: counts against the header,
 * every state set and atom set within its automaton, every label's terms
 * within the section. */
static inline const char *vk_ltl_open(struct vk_model *m, const vk_u8 *b)
{
	const struct vk_header *h = m->h;
	m->ltl = 0;
	m->ltl_states = 0;
	m->ltl_terms = 0;
	if (h->kind != VK_LTL)
		return 0;
	if (h->off_ltl == 0 || (h->off_ltl & 7) || (vk_u64)h->off_ltl + sizeof(struct vk_ltl) > h->size)
		return "an LTL model without its automaton";
	const struct vk_ltl *l = (const struct vk_ltl *)(b + h->off_ltl);
	if (l->nstates != h->nstates || l->nstates > VK_LTL_MAX_STATES || l->natoms != h->nevents ||
	    l->natoms > 32 || h->nclocks)
		return "the automaton of the LTL model does not match its counts";
	vk_u64 end = h->off_ltl + sizeof *l + (vk_u64)l->nstates * sizeof(struct vk_ltl_state) +
		     (vk_u64)l->nterms * sizeof(struct vk_ltl_term);
	if (end > h->size)
		return "the automaton of the LTL model is out of bounds";
	vk_u32 states = l->nstates >= 32 ? 0xffffffffu : (1u << l->nstates) - 1;
	vk_u32 atoms = l->natoms >= 32 ? 0xffffffffu : (1u << l->natoms) - 1;
	m->ltl = l;
	m->ltl_states = (const struct vk_ltl_state *)(l + 1);
	m->ltl_terms = (const struct vk_ltl_term *)(m->ltl_states + l->nstates);
	if (l->init & ~states)
		return "an initial state of the LTL model is no state";
	for (vk_u32 s = 0; s < l->nstates; s++) {
		const struct vk_ltl_state *st = &m->ltl_states[s];
		if ((st->succ & ~states) || st->nterms > VK_LTL_MAX_TERMS || st->negated > 1 ||
		    (vk_u32)st->first + st->nterms > l->nterms)
			return "a state of the LTL model is out of bounds";
	}
	for (vk_u32 t = 0; t < l->nterms; t++)
		if ((m->ltl_terms[t].pos | m->ltl_terms[t].neg) & ~atoms)
			return "a label of the LTL model names no atom";
	return 0;
}

#endif
