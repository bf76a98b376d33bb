/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Hybrid automata in the kernel engine (included by monitor.bpf.c): clocks,
 * guards, resets and state invariants, with a bpf_timer per instance so
 * that an invariant fires when time passes without any event, as the
 * kernel's 7.x hybrid monitors do with their per-monitor timer.
 *
 * An instance is a whole struct vk_inst (state, clock resets, expiry), 32
 * bytes: too wide for the compare-and-swap the other kinds use.  It sits in
 * a hash map value with a bpf_spin_lock and a sequence number, and a step
 * is optimistic: copy the instance under the lock, run vk_decide() on the
 * copy with the lock released (a step looks tables up, which a program may
 * not do while holding a lock), then store the result under the lock if
 * the sequence number has not moved, else retry, as the CAS loop does.
 * Tracepoint (tp_btf) programs, timer callbacks and the conformance
 * program may use locks and timers; uprobe programs may not, so the rule
 * loop leaves this path out of them and the loader refuses hybrid models
 * with function sources.
 *
 * Time is bpf_ktime_get_ns() (CLOCK_MONOTONIC, as the timers), or under
 * --conform the event's own timestamp, with no timer: the corpus's `tick`
 * events expire instances instead (expire_all).
 */

/* --conform: the current event's time (vigil_use_timers is 0). */
__u64 vigil_test_now = 0;

static __always_inline __u64 vigil_now(const __u64 *f)
{
	return vigil_use_timers ? bpf_ktime_get_ns() : vigil_test_now;
}

struct vigil_ha_inst {
	struct bpf_spin_lock lock;
	__u32 seq; /* bumped by every stored step */
	struct vk_inst in;
	struct bpf_timer timer;
};

/* Every scope's hybrid instances, by key (0 for scope global).  A plain
 * hash: LRU hashes cannot hold locks or timers.  When it is full, new
 * instances are not monitored (counted as instance failures). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct vigil_ha_inst);
} vigil_ha_inst SEC(".maps");

struct vigil_fields {
	__u64 f[VIGIL_MAX_FIELDS];
};

/*
 * vk_decide and vk_expire as global functions: the verifier checks each
 * once per program instead of once per rule and retry it would be inlined
 * into.  Global functions take pointers to sized memory, which may be NULL.
 */
__noinline int vigil_ha_step(const struct vk_rule *r, struct vk_inst *in, const struct vigil_fields *f,
			     __u64 now, struct vk_result *res)
{
	if (!r || !in || !f || !res)
		return 0;
	*res = vk_decide(0, r, in, (const vk_s64 *)f->f, now);
	return 0;
}

__noinline int vigil_ha_expire(struct vk_inst *in, __u64 now, struct vk_result *res)
{
	if (!in || !res)
		return 0;
	*res = vk_expire(0, in, now);
	return 0;
}

static __always_inline bool inst_equal(const struct vk_inst *a, const struct vk_inst *b)
{
	return a->word == b->word && a->known == b->known && a->reset_ns[0] == b->reset_ns[0] &&
	       a->reset_ns[1] == b->reset_ns[1] && a->expiry_ns == b->expiry_ns;
}

static __always_inline void ha_snapshot(struct vigil_ha_inst *v, struct vk_inst *in, __u32 *seq)
{
	bpf_spin_lock(&v->lock);
	*in = v->in;
	*seq = v->seq;
	bpf_spin_unlock(&v->lock);
}

/* Store `in` if nothing was stored since the snapshot `seq`. */
static __always_inline bool ha_commit(struct vigil_ha_inst *v, const struct vk_inst *in, __u32 seq)
{
	bool ok;

	bpf_spin_lock(&v->lock);
	ok = v->seq == seq;
	if (ok) {
		v->in = *in;
		v->seq = seq + 1;
	}
	bpf_spin_unlock(&v->lock);
	return ok;
}

static int vigil_expire_cb(void *map, __u64 *key, struct vigil_ha_inst *v);

/* (Re)start the instance's timer at its expiry (ha_insert set it up once).
 * A timer left armed for an older expiry finds nothing to do (vk_expire
 * checks the time). */
static __always_inline void ha_arm(struct vigil_ha_inst *v, __u64 expiry, __u64 now)
{
	if (!vigil_use_timers || expiry == VK_NEVER)
		return;
	bpf_timer_start(&v->timer, expiry > now ? expiry - now : 0, 0);
}

/* An invariant found expired with no event: no rule, no task. */
static __always_inline void report_expired(struct vk_result res, __u64 key, __u64 at)
{
	struct vigil_violation *v = record(res, VK_NONE, VIGIL_RULE_TIMER, VIGIL_RULE_TIMER, key);

	if (!v)
		return;
	v->at = at;
	v->pid = 0;
	v->tgid = 0;
	__builtin_memcpy(v->comm, "(timer)", 8);
	bpf_ringbuf_submit(v, 0);
}

/* A new instance, stored only if the step left something to keep. */
static __always_inline int ha_insert(__u64 key, const struct vk_inst *in, __u64 now)
{
	struct vigil_ha_inst init = {};
	struct vigil_ha_inst *v;

	init.in = *in;
	if (bpf_map_update_elem(&vigil_ha_inst, &key, &init, BPF_NOEXIST))
		return bpf_map_lookup_elem(&vigil_ha_inst, &key) ? -1 : -2;
	v = bpf_map_lookup_elem(&vigil_ha_inst, &key);
	if (!v)
		return 0;
	/* Once per instance, not per step: the timer lives as long as the
	 * map element (deleting the element cancels it). */
	if (vigil_use_timers) {
		bpf_timer_init(&v->timer, &vigil_ha_inst, 1 /* CLOCK_MONOTONIC */);
		bpf_timer_set_callback(&v->timer, vigil_expire_cb);
	}
	ha_arm(v, in->expiry_ns, now);
	return 0;
}

/* One rule of a hybrid automaton on its instance (see the top). */
static __always_inline void apply_ha(void *ctx, const struct vk_rule *r, __u32 id, __u64 *f, __u32 src,
				     __u64 now)
{
	__u64 key = (__u64)vk_key_of(r, (const vk_s64 *)f);

	for (int i = 0; i < MAX_RETRY; i++) {
		struct vigil_ha_inst *v = bpf_map_lookup_elem(&vigil_ha_inst, &key);
		struct vk_inst in = { .reset_ns = { VK_NEVER, VK_NEVER }, .expiry_ns = VK_NEVER }, before;
		struct vk_result res = {};
		__u32 seq = 0;

		if (v)
			ha_snapshot(v, &in, &seq);
		before = in;
		vigil_ha_step(r, &in, (const struct vigil_fields *)f, now, &res);
		if (inst_equal(&in, &before) && res.verdict == VK_OK)
			return;
		if (!v) {
			int err = ha_insert(key, &in, now);

			if (err == -1)
				continue; /* another cpu created it: step again */
			if (err == -2) {
				count(VIGIL_CNT_NOINST);
				return;
			}
		} else if (!ha_commit(v, &in, seq)) {
			continue;
		} else if (in.word == 0) {
			bpf_map_delete_elem(&vigil_ha_inst, &key);
		} else if (in.expiry_ns != before.expiry_ns) {
			ha_arm(v, in.expiry_ns, now);
		}
		count(VIGIL_CNT_PROCESSED);
		if (before.word == 0 && in.word != 0)
			count(VIGIL_CNT_STARTS);
		if (res.verdict != VK_OK)
			report(ctx, res, r, id, src, key, KERNEL);
		return;
	}
}

/* Expire one instance at `at` (its expiry); a violation may re-arm it (the
 * initial state's invariant).  Returns the new expiry. */
static __always_inline __u64 ha_expire_at(struct vigil_ha_inst *v, __u64 *key, __u64 at)
{
	for (int i = 0; i < MAX_RETRY; i++) {
		struct vk_inst in;
		struct vk_result res = {};
		__u32 seq;

		ha_snapshot(v, &in, &seq);
		if (in.word == 0 || at < in.expiry_ns)
			return in.word ? in.expiry_ns : VK_NEVER;
		vigil_ha_expire(&in, at, &res);
		if (!ha_commit(v, &in, seq))
			continue;
		if (res.verdict != VK_OK)
			report_expired(res, *key, at);
		return in.word ? in.expiry_ns : VK_NEVER;
	}
	return VK_NEVER;
}

/* The timer: the invariant's deadline passed with no event. */
static int vigil_expire_cb(void *map, __u64 *key, struct vigil_ha_inst *v)
{
	__u64 now = bpf_ktime_get_ns();
	__u64 next = ha_expire_at(v, key, now);

	if (next != VK_NEVER)
		bpf_timer_start(&v->timer, next > now ? next - now : 0, 0);
	return 0;
}

/* --conform's `tick` and the time before each event: every instance whose
 * expiry is at or before `now` expires at its expiry, again if that re-arms
 * it within `now` (the runner sorts the verdicts by time, then key). */
static long expire_one(void *map, __u64 *key, struct vigil_ha_inst *v, __u64 *now)
{
	for (int i = 0; i < 16; i++) {
		struct vk_inst in;
		__u32 seq;

		ha_snapshot(v, &in, &seq);
		if (in.word == 0 || in.expiry_ns > *now)
			break;
		ha_expire_at(v, key, in.expiry_ns);
	}
	return 0;
}

static __always_inline void expire_all(__u64 now)
{
	bpf_for_each_map_elem(&vigil_ha_inst, expire_one, &now, 0);
}
