/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Automatically generated C representation of timer automaton
 * For further information about this format, see kernel documentation:
 *   Documentation/trace/rv/deterministic_automata.rst
 */

#define MONITOR_NAME timer

enum states_timer {
	armed_timer,
	fired_timer,
	state_max_timer,
};

#define INVALID_STATE state_max_timer

enum events_timer {
	expire_timer,
	rearm_timer,
	event_max_timer,
};

struct automaton_timer {
	char *state_names[state_max_timer];
	char *event_names[event_max_timer];
	unsigned char function[state_max_timer][event_max_timer];
	unsigned char initial_state;
	bool final_states[state_max_timer];
};

static const struct automaton_timer automaton_timer = {
	.state_names = {
		"armed",
		"fired",
	},
	.event_names = {
		"expire",
		"rearm",
	},
	.function = {
		{         fired_timer,         armed_timer },
		{       INVALID_STATE,         armed_timer },
	},
	.initial_state = armed_timer,
	.final_states = { 1, 0 },
};

/*
 * timer is a hybrid automaton. vigil does not implement its guards, clock
 * resets and invariants: the tables above are the untimed automaton (every
 * transition is taken whatever its guard; there are no clocks).
 *   timer.dot:6: invariant of state armed: clk < 10ms
 *   timer.dot:7: armed -> armed on rearm: reset(clk)
 *   timer.dot:8: armed -> fired on expire: guard clk >= 10ms
 *   timer.dot:10: fired -> armed on rearm: reset(clk)
 */
