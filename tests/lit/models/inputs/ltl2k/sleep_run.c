/*
 * Drives the header `vigil ltl2k` writes for the kernel's rtapp sleep model
 * (8 states, 4 initial) through the stand-in monitor: a real-time task must
 * sleep for an RT-friendly reason and be woken the RT-friendly way.  Prints
 * each verdict; exits 1 if one is not the expected one.
 */
#include "sleep.h"
#include <rv/ltl_monitor.h>

static int wrong;

static void expect(const char *what, bool violated, bool want)
{
	printf("%s: %s%s\n", what, violated ? "violation" : "ok", violated == want ? "" : "  <-- UNEXPECTED");
	wrong |= violated != want;
}

/* A real-time user task, awake, every other atom false; the monitor started. */
static void rt_task(struct ltl_monitor *mon)
{
	ltl_init(mon);
	for (unsigned int i = 0; i < LTL_NUM_ATOM; ++i)
		ltl_atom_set(mon, i, false);
	ltl_atom_set(mon, LTL_RT, true);
	ltl_atom_update(mon, LTL_SLEEP, false);
}

int main(void)
{
	struct ltl_monitor mon;

	rt_task(&mon);
	printf("started: %s\n", ltl_running(&mon) ? "yes" : "no");
	ltl_atom_set(&mon, LTL_FUTEX_WAIT, true);
	expect("rt task sleeps in futex_wait", ltl_atom_update(&mon, LTL_SLEEP, true), false);
	ltl_atom_set(&mon, LTL_SLEEP, false);
	ltl_atom_set(&mon, LTL_WOKEN_BY_EQUAL_OR_HIGHER_PRIO, true);
	expect("woken by an equal or higher priority", ltl_atom_pulse(&mon, LTL_WAKE, true), false);

	rt_task(&mon);
	ltl_atom_set(&mon, LTL_FUTEX_WAIT, true);
	expect("rt task sleeps in futex_wait", ltl_atom_update(&mon, LTL_SLEEP, true), false);
	ltl_atom_set(&mon, LTL_SLEEP, false);
	expect("woken by a lower priority", ltl_atom_pulse(&mon, LTL_WAKE, true), true);

	rt_task(&mon);
	expect("rt task sleeps for no rt-friendly reason", ltl_atom_update(&mon, LTL_SLEEP, true), true);

	rt_task(&mon);
	ltl_atom_set(&mon, LTL_BLOCK_ON_RT_MUTEX, true);
	expect("rt task blocks on an rt_mutex", ltl_atom_update(&mon, LTL_SLEEP, true), false);

	ltl_init(&mon);
	for (unsigned int i = 0; i < LTL_NUM_ATOM; ++i)
		ltl_atom_set(&mon, i, false);
	ltl_atom_update(&mon, LTL_SLEEP, false);
	expect("normal task sleeps for no reason", ltl_atom_update(&mon, LTL_SLEEP, true), false);
	return wrong;
}
