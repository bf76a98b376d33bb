enum states {
	armed,
	fired,
	state_max,
};

#define INVALID_STATE state_max

enum events {
	expire,
	rearm,
	event_max,
};

struct automaton {
	char *state_names[state_max];
	char *event_names[event_max];
	unsigned char function[state_max][event_max];
	unsigned char initial_state;
	bool final_states[state_max];
};

static const struct automaton aut = {
	.state_names = {
		"armed",
		"fired",
	},
	.event_names = {
		"expire",
		"rearm",
	},
	.function = {
		{         fired,         armed },
		{ INVALID_STATE,         armed },
	},
	.initial_state = armed,
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
