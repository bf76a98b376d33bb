enum states {
	idle,
	done,
	running,
	waiting,
	state_max,
};

#define INVALID_STATE state_max

enum events {
	finish,
	preempt,
	reset,
	resume,
	start,
	submit,
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
		"idle",
		"done",
		"running",
		"waiting",
	},
	.event_names = {
		"finish",
		"preempt",
		"reset",
		"resume",
		"start",
		"submit",
	},
	.function = {
		{
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			waiting,
		},
		{
			INVALID_STATE,
			INVALID_STATE,
			idle,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
		},
		{
			done,
			waiting,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
		},
		{
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			running,
			running,
			INVALID_STATE,
		},
	},
	.initial_state = idle,
	.final_states = { 1, 0, 0, 0 },
};

