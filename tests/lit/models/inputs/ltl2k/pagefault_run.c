/*
 * Drives the pagefault header `vigil ltl2k` writes (RULE = always (RT imply
 * not PAGEFAULT)) through the stand-in monitor, on the scenario of the
 * kernel's pagefault test: a task that is not real-time faults (fine), then
 * becomes real-time and faults (a violation: no next state).  Prints each
 * verdict; exits 1 if one is not the expected one.
 */
#include "pagefault.h"
#include <rv/ltl_monitor.h>

static int wrong;

static void expect(const char *what, bool violated, bool want, const struct ltl_monitor *mon)
{
	printf("%s: %s (atoms: %s)%s\n", what, violated ? "violation" : "ok", ltl_atoms_string(mon),
	       violated == want ? "" : "  <-- UNEXPECTED");
	wrong |= violated != want;
}

int main(void)
{
	struct ltl_monitor mon;

	ltl_init(&mon);
	ltl_atom_set(&mon, LTL_RT, false);
	expect("normal task faults", ltl_atom_pulse(&mon, LTL_PAGEFAULT, true), false, &mon);
	printf("started: %s\n", ltl_running(&mon) ? "yes" : "no");
	expect("normal task faults again", ltl_atom_pulse(&mon, LTL_PAGEFAULT, true), false, &mon);
	ltl_atom_set(&mon, LTL_RT, true);
	expect("rt task faults", ltl_atom_pulse(&mon, LTL_PAGEFAULT, true), true, &mon);
	printf("started: %s\n", ltl_running(&mon) ? "yes" : "no");

	/* Real-time from its first fault: the start fails silently, as in the kernel. */
	ltl_init(&mon);
	ltl_atom_set(&mon, LTL_RT, true);
	expect("task rt from the start faults", ltl_atom_pulse(&mon, LTL_PAGEFAULT, true), false, &mon);
	printf("started: %s\n", ltl_running(&mon) ? "yes" : "no");
	return wrong;
}
