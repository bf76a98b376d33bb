/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Automatically generated C representation of lock automaton
 * For further information about this format, see kernel documentation:
 *   Documentation/trace/rv/deterministic_automata.rst
 */

#define MONITOR_NAME lock

enum states_lock {
	unlocked_lock,
	locked_lock,
	state_max_lock,
};

#define INVALID_STATE state_max_lock

enum events_lock {
	lock_lock,
	trylock_fail_lock,
	trylock_ok_lock,
	unlock_lock,
	event_max_lock,
};

struct automaton_lock {
	char *state_names[state_max_lock];
	char *event_names[event_max_lock];
	unsigned char function[state_max_lock][event_max_lock];
	unsigned char initial_state;
	bool final_states[state_max_lock];
};

static const struct automaton_lock automaton_lock = {
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
		{        locked_lock,      INVALID_STATE,        locked_lock,      INVALID_STATE },
		{      INVALID_STATE,        locked_lock,      INVALID_STATE,      unlocked_lock },
	},
	.initial_state = unlocked_lock,
	.final_states = { 1, 0 },
};
