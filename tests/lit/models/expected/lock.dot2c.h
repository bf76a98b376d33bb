enum states {
	unlocked,
	locked,
	state_max,
};

#define INVALID_STATE state_max

enum events {
	lock,
	trylock_fail,
	trylock_ok,
	unlock,
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
		"unlocked",
		"locked",
	},
	.event_names = {
		"lock",
		"trylock_fail",
		"trylock_ok",
		"unlock",
	},
	.function = {
		{        locked, INVALID_STATE,        locked, INVALID_STATE },
		{ INVALID_STATE,        locked, INVALID_STATE,      unlocked },
	},
	.initial_state = unlocked,
	.final_states = { 1, 0 },
};

