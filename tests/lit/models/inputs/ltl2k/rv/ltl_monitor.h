/*
 * A user-space stand-in for the kernel's <rv/ltl_monitor.h>, for tests:
 * one task's LTL monitor driven by hand, with the kernel's semantics (as
 * vigil's offline engine implements them, docs/models.md "LTL"):
 *
 *   ltl_atom_set     an atom's value, no step;
 *   ltl_atom_update  set it, then one step (or, while the monitor has no
 *                    state, start it once every atom is known: the initial
 *                    states whose labels hold, no verdict);
 *   ltl_atom_pulse   update to the value, then step again with its opposite.
 *
 * A step that leaves no state is a violation: update and pulse return true.
 * vigil's own code, not the kernel's file.  Include the generated NAME.h
 * first, as the kernel's monitors do.
 */
#ifndef MONITOR_NAME
#error "include the header vigil ltl2k wrote first"
#endif

#include <stdio.h>
#include <string.h>

static inline void ltl_init(struct ltl_monitor *mon)
{
	memset(mon, 0, sizeof(*mon));
	for (unsigned int i = 0; i < LTL_NUM_ATOM; ++i)
		__set_bit(i, mon->unknown_atoms);
}

static inline bool ltl_running(const struct ltl_monitor *mon)
{
	for (unsigned int i = 0; i < RV_NUM_BA_STATES; ++i)
		if (test_bit(i, mon->states))
			return true;
	return false;
}

static inline bool ltl_all_atoms_known(const struct ltl_monitor *mon)
{
	for (unsigned int i = 0; i < LTL_NUM_ATOM; ++i)
		if (test_bit(i, mon->unknown_atoms))
			return false;
	return true;
}

static inline void ltl_atom_set(struct ltl_monitor *mon, enum ltl_atom atom, bool value)
{
	__clear_bit(atom, mon->unknown_atoms);
	if (value)
		__set_bit(atom, mon->atoms);
	else
		__clear_bit(atom, mon->atoms);
}

/* One step from every current state; true when none is left. */
static inline bool ltl_validate(struct ltl_monitor *mon)
{
	unsigned long next[sizeof(mon->states) / sizeof(mon->states[0])] = {0};

	if (!ltl_running(mon))
		return false;
	for (unsigned int i = 0; i < RV_NUM_BA_STATES; ++i)
		if (test_bit(i, mon->states))
			ltl_possible_next_states(mon, i, next);
	memcpy(mon->states, next, sizeof(next));
	return !ltl_running(mon);
}

static inline bool ltl_atom_update(struct ltl_monitor *mon, enum ltl_atom atom, bool value)
{
	ltl_atom_set(mon, atom, value);
	if (!ltl_running(mon)) {
		if (ltl_all_atoms_known(mon))
			ltl_start(NULL, mon);
		return false;
	}
	return ltl_validate(mon);
}

static inline bool ltl_atom_pulse(struct ltl_monitor *mon, enum ltl_atom atom, bool value)
{
	bool violated = ltl_atom_update(mon, atom, value);

	ltl_atom_set(mon, atom, !value);
	return ltl_validate(mon) || violated;
}

/* The atoms that are true, by their ltl_atom_str names: "pa,rt". */
static inline const char *ltl_atoms_string(const struct ltl_monitor *mon)
{
	static char buf[512];
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < LTL_NUM_ATOM; ++i)
		if (test_bit(i, mon->atoms))
			len += snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? "," : "",
					ltl_atom_str(i));
	return buf;
}
