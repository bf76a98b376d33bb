/*
 * vigil/vk_step.h — vk_decide(), the step of one instance: the C twin of
 * cli/model/src/compiled/step.rs (read that file's comment for the
 * semantics; the order of the checks here is the same).  Included by vk.h.
 * LTL models step in vk_ltl.h.
 */
#ifndef VIGIL_VK_STEP_H
#define VIGIL_VK_STEP_H

#include "vk_ltl.h"

VK_INLINE int vk_op_holds(vk_u8 op, vk_s64 a, vk_s64 b)
{
	switch (op) {
	case VK_EQ: return a == b;
	case VK_NE: return a != b;
	case VK_LT: return a < b;
	case VK_LE: return a <= b;
	case VK_GT: return a > b;
	default: return a >= b;
	}
}

/* Whether the rule's conditions (field OP constant, all of them) hold. */
VK_INLINE int vk_rule_holds(const struct vk_model *m, const struct vk_rule *r, const vk_s64 *f)
{
	for (vk_u32 i = 0; i < VK_MAX_RULE_CONDS && i < r->cond_n; i++) {
		const struct vk_cmp *c = VK_CMP(m, r->cond_first + i);
		if (!c || !vk_op_holds(c->op, f[c->lhs & (VK_MAX_FIELDS - 1)], c->value))
			return 0;
	}
	return 1;
}

VK_INLINE vk_s64 vk_key_of(const struct vk_rule *r, const vk_s64 *f)
{
	return r->key == VK_NO_FIELD ? 0 : f[r->key & (VK_MAX_FIELDS - 1)];
}

/* An operand's value; 0 (and *known = 0) for a clock never reset. */
VK_INLINE vk_s64 vk_operand(vk_u8 kind, vk_u8 i, vk_s64 value, const struct vk_rule *r,
				const struct vk_inst *in, const vk_s64 *f, vk_u64 now, int *known)
{
	switch (kind) {
	case VK_CONST: return value;
	case VK_FIELD: return f[i & (VK_MAX_FIELDS - 1)];
	case VK_ENV: return f[r->env_fields[i & (VK_MAX_ENVS - 1)] & (VK_MAX_FIELDS - 1)];
	default: {
		vk_u64 reset = in->reset_ns[i & (VK_MAX_CLOCKS - 1)];
		if (reset == VK_NEVER) {
			*known = 0;
			return 0;
		}
		vk_u64 d = now > reset ? now - reset : 0;
		return d > 0x7fffffffffffffffull ? (vk_s64)0x7fffffffffffffffll : (vk_s64)d;
	}
	}
}

VK_INLINE int vk_guard_holds(const struct vk_model *m, vk_u16 g, const struct vk_rule *r,
				 const struct vk_inst *in, const vk_s64 *f, vk_u64 now)
{
	const struct vk_guard *gd = VK_GUARD(m, g);
	int term = 1;
	for (vk_u32 i = 0; gd && i < VK_MAX_GUARD_CMPS && i < gd->n; i++) {
		const struct vk_cmp *c = VK_CMP(m, gd->first + i);
		if (!c)
			return 0;
		int known = 1;
		vk_s64 a = vk_operand(c->lhs_kind, c->lhs, c->value, r, in, f, now, &known);
		vk_s64 b = vk_operand(c->rhs_kind, c->rhs, c->value, r, in, f, now, &known);
		term &= !known || vk_op_holds(c->op, a, b);
		if (c->end_term) {
			if (term)
				return 1;
			term = 1;
		}
	}
	return 0;
}

VK_INLINE void vk_arm(const struct vk_model *m, struct vk_inst *in, vk_u16 state, vk_u64 now)
{
	const struct vk_inv *inv = VK_INV(m, state);
	if (!inv || !inv->present) {
		in->expiry_ns = VK_NEVER;
		return;
	}
	vk_u64 base = in->reset_ns[inv->clock & (VK_MAX_CLOCKS - 1)];
	if (base == VK_NEVER)
		base = now;
	vk_u64 e = base + inv->expires_after;
	in->expiry_ns = e < base ? VK_NEVER : e;
}

VK_INLINE void vk_enter_initial(const struct vk_model *m, struct vk_inst *in, vk_u64 now)
{
	in->word = 1;
	for (int c = 0; c < VK_MAX_CLOCKS; c++)
		in->reset_ns[c] = VK_NEVER;
	in->expiry_ns = VK_NEVER;
	if (VK_KIND(m) == VK_HA)
		vk_arm(m, in, 0, now);
}

VK_INLINE void vk_unmonitor(struct vk_inst *in)
{
	in->word = 0;
	for (int c = 0; c < VK_MAX_CLOCKS; c++)
		in->reset_ns[c] = VK_NEVER;
	in->expiry_ns = VK_NEVER;
}

/* A violation: reset the instance as the kernel does after its reactor. */
VK_INLINE struct vk_result vk_fail(const struct vk_model *m, struct vk_inst *in, vk_u64 now,
				   vk_u8 verdict, vk_u16 from, vk_u16 guard)
{
	if (VK_HAS_START(m))
		vk_unmonitor(in);
	else
		vk_enter_initial(m, in, now);
	return (struct vk_result){ .verdict = verdict, .from = from, .guard = guard };
}

VK_INLINE struct vk_result vk_hybrid_step(const struct vk_model *m, const struct vk_rule *r,
					      struct vk_inst *in, const vk_s64 *f, vk_u64 now,
					      vk_u16 from, vk_u32 cell)
{
	if (now >= in->expiry_ns)
		return vk_fail(m, in, now, VK_V_INVARIANT, from, VK_NONE);
	struct vk_edge e = VK_EDGE(m, cell);
	if (e.guard != VK_NONE && !vk_guard_holds(m, e.guard, r, in, f, now))
		return vk_fail(m, in, now, VK_V_GUARD, from, e.guard);
	for (int c = 0; c < VK_MAX_CLOCKS; c++)
		if (e.resets & (1u << c))
			in->reset_ns[c] = now;
	vk_u16 next = VK_NEXT(m, cell);
	if (next != from || e.resets)
		vk_arm(m, in, next, now);
	in->word = (vk_u32)next + 1;
	return (struct vk_result){ .verdict = VK_OK };
}

/* `forget` on a state word (0: not monitored, else state + 1). */
VK_INLINE struct vk_result vk_forget_word(const struct vk_model *m, vk_u32 *word)
{
	vk_u32 w = *word;
	*word = 0;
	if (w == 0 || VK_FINAL(m, w - 1))
		return (struct vk_result){ .verdict = VK_OK };
	return (struct vk_result){ .verdict = VK_V_NOT_FINAL, .from = (vk_u16)(w - 1) };
}

/* A model event (not `forget`) of a plain automaton on a state word. */
VK_INLINE struct vk_result vk_event_word(const struct vk_model *m, const struct vk_rule *r,
					 vk_u32 *word)
{
	vk_u32 w = *word;
	if (w == 0) {
		if (r->mode == VK_PLAIN && VK_HAS_START(m))
			return (struct vk_result){ .verdict = VK_OK };
		w = 1;
		if (r->mode == VK_START) {
			*word = 1;
			return (struct vk_result){ .verdict = VK_OK };
		}
	}
	vk_u16 from = (vk_u16)(w - 1);
	vk_u16 next = VK_NEXT(m, (vk_u32)from * VK_NEVENTS(m) + r->event);
	if (next == VK_NONE) {
		*word = VK_HAS_START(m) ? 0 : 1;
		return (struct vk_result){ .verdict = VK_V_EVENT, .from = from };
	}
	*word = (vk_u32)next + 1;
	return (struct vk_result){ .verdict = VK_OK };
}

/* The step of a plain automaton (kind VK_DA) on the state word alone:
 * exactly what vk_decide() does for such a model, for engines that store
 * only the word (the in-process runtime, BPF).  No clock, no field. */
VK_INLINE struct vk_result vk_step_word(const struct vk_model *m, const struct vk_rule *r,
					vk_u32 *word)
{
	if (r->event == VK_FORGET)
		return vk_forget_word(m, word);
	return vk_event_word(m, r, word);
}

/* One step of rule r's event on instance in, at time now (ns). */
VK_INLINE struct vk_result vk_decide(const struct vk_model *m, const struct vk_rule *r,
				     struct vk_inst *in, const vk_s64 *f, vk_u64 now)
{
	if (VK_KIND(m) == VK_DA)
		return vk_step_word(m, r, &in->word);
	if (VK_KIND(m) == VK_LTL)
		return vk_ltl_decide(m, r, in);
	if (r->event == VK_FORGET) {
		if (in->word == 0)
			return (struct vk_result){ .verdict = VK_OK };
		vk_u16 from = (vk_u16)(in->word - 1);
		vk_unmonitor(in);
		if (VK_FINAL(m, from))
			return (struct vk_result){ .verdict = VK_OK };
		return (struct vk_result){ .verdict = VK_V_NOT_FINAL, .from = from };
	}
	if (in->word == 0) {
		if (r->mode == VK_PLAIN && VK_HAS_START(m))
			return (struct vk_result){ .verdict = VK_OK };
		vk_enter_initial(m, in, now);
		if (r->mode == VK_START)
			return (struct vk_result){ .verdict = VK_OK };
	}
	vk_u16 from = (vk_u16)(in->word - 1);
	vk_u32 cell = (vk_u32)from * VK_NEVENTS(m) + r->event;
	vk_u16 next = VK_NEXT(m, cell);
	if (next == VK_NONE)
		return vk_fail(m, in, now, VK_V_EVENT, from, VK_NONE);
	if (VK_KIND(m) == VK_HA)
		return vk_hybrid_step(m, r, in, f, now, from, cell);
	in->word = (vk_u32)next + 1;
	return (struct vk_result){ .verdict = VK_OK };
}

/* A timer: the instance's invariant has expired by now.  An LTL instance
 * has none, whatever its engine left in expiry_ns. */
VK_INLINE struct vk_result vk_expire(const struct vk_model *m, struct vk_inst *in, vk_u64 now)
{
	if (in->word == 0 || now < in->expiry_ns || VK_KIND(m) == VK_LTL)
		return (struct vk_result){ .verdict = VK_OK };
	return vk_fail(m, in, now, VK_V_INVARIANT, (vk_u16)(in->word - 1), VK_NONE);
}

/* The names section holds, NUL-terminated: the model's name, its file, the
 * binding's file, then the states, the events and the sources. */
enum { VK_NAME_MODEL = 0, VK_NAME_MODEL_FILE = 1, VK_NAME_BINDING_FILE = 2, VK_NAME_STATES = 3 };

static inline vk_u64 vk_nnames(const struct vk_model *m)
{
	return VK_NAME_STATES + (vk_u64)m->h->nstates + m->h->nevents + m->h->nsources;
}

/* How many complete names the section holds (0 unless it ends in NUL). */
static inline vk_u64 vk_count_names(const struct vk_model *m)
{
	vk_u32 len = m->h->names_len;
	vk_u64 n = 0;
	if (len == 0 || m->names[len - 1] != 0)
		return 0;
	for (vk_u32 i = 0; i < len; i++)
		n += m->names[i] == 0;
	return n;
}

/* Every name, in one pass: out must hold vk_nnames(m) pointers. */
static inline void vk_model_names(const struct vk_model *m, const char **out)
{
	const char *p = m->names;
	for (vk_u64 i = 0, n = vk_nnames(m); i < n; i++) {
		out[i] = p;
		while (*p)
			p++;
		p++;
	}
}

/* Map a blob; 0 on success, else a static message.  Every offset and
 * count is checked against the size, and every index the tables hold
 * against its table, so a step never reads outside the blob. */
static inline const char *vk_model_open(struct vk_model *m, const void *blob, vk_u64 size)
{
	const vk_u8 *b = (const vk_u8 *)blob;
	const struct vk_header *h = (const struct vk_header *)blob;
	if (size < sizeof *h || ((vk_u64)(unsigned long)blob & 7))
		return "truncated or misaligned model";
	if (h->magic != VK_MAGIC)
		return "not a compiled vigil model (bad magic)";
	if (h->abi != VK_ABI)
		return "compiled model of another ABI version";
	if (h->size > size)
		return "compiled model larger than its buffer";
	if (h->nstates == 0 || h->kind > VK_LTL || h->scope > VK_OBJECT || h->nclocks > VK_MAX_CLOCKS ||
	    h->nenvs > VK_MAX_ENVS)
		return "compiled model with no state, or of an unknown kind";
	vk_u64 cells = (vk_u64)h->nstates * h->nevents;
	struct { vk_u32 off; vk_u64 len; } sec[] = {
		{ h->off_next, cells * 2 },
		{ h->off_final, h->nstates },
		{ h->off_edge, h->kind == VK_HA ? cells * sizeof(struct vk_edge) : 0 },
		{ h->off_inv, h->kind == VK_HA ? h->nstates * sizeof(struct vk_inv) : 0 },
		{ h->off_cmp, h->ncmps * sizeof(struct vk_cmp) },
		{ h->off_guard, h->nguards * sizeof(struct vk_guard) },
		{ h->off_rule, h->nrules * sizeof(struct vk_rule) },
		{ h->off_names, h->names_len },
	};
	for (unsigned i = 0; i < sizeof sec / sizeof sec[0]; i++)
		if ((sec[i].off & 7) || sec[i].off + sec[i].len > h->size)
			return "a section of the compiled model is out of bounds";
	m->h = h;
	m->next = (const vk_u16 *)(b + h->off_next);
	m->finals = b + h->off_final;
	m->edges = (const struct vk_edge *)(b + h->off_edge);
	m->inv = (const struct vk_inv *)(b + h->off_inv);
	m->cmps = (const struct vk_cmp *)(b + h->off_cmp);
	m->guards = (const struct vk_guard *)(b + h->off_guard);
	m->rules = (const struct vk_rule *)(b + h->off_rule);
	m->names = (const char *)(b + h->off_names);
	m->nevents = h->nevents;
	m->has_start = h->has_start;
	m->kind = h->kind;
	const char *ltl = vk_ltl_open(m, b);
	if (ltl)
		return ltl;
	for (vk_u64 i = 0; i < cells; i++) {
		if (m->next[i] != VK_NONE && m->next[i] >= h->nstates)
			return "a transition leads to no state";
		if (h->kind == VK_HA && m->edges[i].guard != VK_NONE && m->edges[i].guard >= h->nguards)
			return "an edge names no guard";
	}
	for (vk_u16 i = 0; i < h->nguards; i++)
		if ((vk_u32)m->guards[i].first + m->guards[i].n > h->ncmps)
			return "a guard is out of bounds";
	for (vk_u16 i = 0; h->kind == VK_HA && i < h->nstates; i++)
		if (m->inv[i].present && m->inv[i].clock >= VK_MAX_CLOCKS)
			return "an invariant names no clock";
	if (vk_count_names(m) != vk_nnames(m))
		return "the names of the compiled model do not match its counts";
	for (vk_u16 i = 0; i < h->nrules; i++) {
		const struct vk_rule *r = &m->rules[i];
		if ((r->event != VK_FORGET && r->event >= h->nevents) || r->mode > VK_RUN ||
		    (vk_u32)r->cond_first + r->cond_n > h->ncmps ||
		    (r->key != VK_NO_FIELD && r->key >= VK_MAX_FIELDS) || r->source >= h->nsources ||
		    r->atom_op > VK_ATOM_UPDATE || r->atom_value > 1)
			return "a rule is out of bounds";
		for (int e = 0; e < VK_MAX_ENVS; e++)
			if (r->env_fields[e] != VK_NO_FIELD && r->env_fields[e] >= VK_MAX_FIELDS)
				return "a rule reads no field";
	}
	return 0;
}

#endif
