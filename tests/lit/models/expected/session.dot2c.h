enum states {
	disconnected,
	authenticating,
	closing,
	established,
	state_max,
};

#define INVALID_STATE state_max

enum events {
	auth_fail,
	auth_ok,
	close,
	closed,
	connect,
	recv,
	send,
	timeout,
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
		"disconnected",
		"authenticating",
		"closing",
		"established",
	},
	.event_names = {
		"auth_fail",
		"auth_ok",
		"close",
		"closed",
		"connect",
		"recv",
		"send",
		"timeout",
	},
	.function = {
		{
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			authenticating,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
		},
		{
			disconnected,
			established,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			disconnected,
		},
		{
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			disconnected,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
		},
		{
			INVALID_STATE,
			INVALID_STATE,
			closing,
			INVALID_STATE,
			INVALID_STATE,
			established,
			established,
			disconnected,
		},
	},
	.initial_state = disconnected,
	.final_states = { 1, 0, 1, 0 },
};

