/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Automatically generated C representation of quirks automaton
 * For further information about this format, see kernel documentation:
 *   Documentation/trace/rv/deterministic_automata.rst
 */

#define MONITOR_NAME quirks

enum states_quirks {
	idle_quirks,
	done_quirks,
	running_quirks,
	waiting_quirks,
	state_max_quirks,
};

#define INVALID_STATE state_max_quirks

enum events_quirks {
	finish_quirks,
	preempt_quirks,
	reset_quirks,
	resume_quirks,
	start_quirks,
	submit_quirks,
	event_max_quirks,
};

struct automaton_quirks {
	char *state_names[state_max_quirks];
	char *event_names[event_max_quirks];
	unsigned char function[state_max_quirks][event_max_quirks];
	unsigned char initial_state;
	bool final_states[state_max_quirks];
};

static const struct automaton_quirks automaton_quirks = {
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
			waiting_quirks,
		},
		{
			INVALID_STATE,
			INVALID_STATE,
			idle_quirks,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
		},
		{
			done_quirks,
			waiting_quirks,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
		},
		{
			INVALID_STATE,
			INVALID_STATE,
			INVALID_STATE,
			running_quirks,
			running_quirks,
			INVALID_STATE,
		},
	},
	.initial_state = idle_quirks,
	.final_states = { 1, 0, 0, 0 },
};
