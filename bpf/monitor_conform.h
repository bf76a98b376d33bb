/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#ifndef VIGIL_BPF_MONITOR_CONFORM_H
#define VIGIL_BPF_MONITOR_CONFORM_H

#include "monitor_model.h"

struct monitor_bpf;

/* Run the conformance events of EVENTS (`vigil conform`'s numeric form) through
 * the loaded program and print its verdicts; the exit status. */
int conform_run(struct monitor_bpf *skel, const struct monitor_model *m, const char *events);

#endif
