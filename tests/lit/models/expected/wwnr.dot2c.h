enum states {
	not_running,
	running,
	state_max,
};

#define INVALID_STATE state_max

enum events {
	switch_in,
	switch_out,
	wakeup,
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
		"not_running",
		"running",
	},
	.event_names = {
		"switch_in",
		"switch_out",
		"wakeup",
	},
	.function = {
		{       running, INVALID_STATE,   not_running },
		{ INVALID_STATE,   not_running, INVALID_STATE },
	},
	.initial_state = not_running,
	.final_states = { 1, 0 },
};

