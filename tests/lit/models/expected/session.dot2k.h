/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Automatically generated C representation of session automaton
 * For further information about this format, see kernel documentation:
 *   Documentation/trace/rv/deterministic_automata.rst
 */

#define MONITOR_NAME session

enum states_session {
	disconnected_session,
	authenticating_session,
	closing_session,
	established_session,
	state_max_session,
};

#define INVALID_STATE state_max_session

enum events_session {
	auth_fail_session,
	auth_ok_session,
	close_session,
	closed_session,
	connect_session,
	recv_session,
	send_session,
	timeout_session,
	event_max_session,
};

struct automaton_session {
	char *state_names[state_max_session];
	char *event_names[event_max_session];
	unsigned char function[state_max_session][event_max_session];
	unsigned char initial_state;
	bool final_states[state_max_session];
};

static const struct automaton_session automaton_session = {
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
			authenticating_session,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
		},
		{
			disconnected_session,
			established_session,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			disconnected_session,
		},
		{
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			disconnected_session,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
		},
		{
			INVALID_STATE,
			INVALID_STATE,
			closing_session,
			INVALID_STATE,
			INVALID_STATE,
			established_session,
			established_session,
			disconnected_session,
		},
	},
	.initial_state = disconnected_session,
	.final_states = { 1, 0, 1, 0 },
};
