/*
 * Compiles and runs any header `vigil ltl2k` writes (given with -include
 * NAME.h) with the stand-in monitor, so that every function the header
 * defines is used: built with -Wall -Werror, this checks that the header
 * declares no value it does not use.  Prints the atoms' names and how many
 * of the states are initial when every atom is false.
 */
#include <rv/ltl_monitor.h>

int main(void)
{
	struct ltl_monitor mon;
	unsigned int initial = 0;

	ltl_init(&mon);
	for (unsigned int i = 0; i < LTL_NUM_ATOM; ++i)
		ltl_atom_set(&mon, i, true);
	printf("atoms: %s\n", ltl_atoms_string(&mon));
	for (unsigned int i = 0; i < LTL_NUM_ATOM; ++i)
		ltl_atom_set(&mon, i, false);
	ltl_start(NULL, &mon);
	for (unsigned int i = 0; i < RV_NUM_BA_STATES; ++i)
		initial += test_bit(i, mon.states);
	printf("%u atoms, %u states, %u initial with every atom false\n", (unsigned int)LTL_NUM_ATOM,
	       (unsigned int)RV_NUM_BA_STATES, initial);
	ltl_validate(&mon);
	return 0;
}
