/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * vigil-bpf-record's pieces (docs/record.md):
 *
 *   record.c          options, loading, attaching, the main loop, the command
 *   record_probes.c   --uprobe/--tracepoint specs: parsed, resolved, declared
 *   record_tracefs.c  tracefs: where it is, a tracepoint's format file
 *   record_stream.c   ring-buffer records into per-thread batches, marks, end
 */
#ifndef VIGIL_BPF_RECORD_LOADER_H
#define VIGIL_BPF_RECORD_LOADER_H

#include <stdbool.h>
#include <stdint.h>

#include "vigil/stream.h"

enum probe_kind { P_ENTRY, P_RETURN, P_OFFSET, P_TRACEPOINT };

/* Stream argument types: indexes of runtime/stream_schema.c's names. */
enum { T_I64, T_U64, T_PTR };

/* One scalar field of a tracepoint's raw record. */
struct tp_field {
	char *name;
	uint32_t offset, size;
	uint8_t type; /* T_I64, T_U64 or T_PTR */
};

/* One attachment: the BPF cookie is its index in the probe table. */
struct probe {
	enum probe_kind kind;
	const char *spec;    /* as given, for messages */
	char *path;          /* uprobes: the binary or library */
	char *func;          /* uprobes */
	uint64_t offset;     /* P_OFFSET: bytes into func */
	char *system, *name; /* tracepoints */
	int nfields;
	struct tp_field fields[VIGIL_STREAM_MAX_ARGS];
	uint32_t bytes;      /* tracepoints: raw-record bytes to copy */
	uint32_t id;         /* the stream's event id */
	unsigned nargs;      /* argument words per record */
};

extern struct probe *probes;
extern int nprobes;

/* record_probes.c */
void probes_add_uprobe(const char *spec);     /* entry and return, or one offset probe */
void probes_add_tracepoint(const char *spec);
void probes_resolve_uprobes(void);           /* every binary and function exists */
void probes_resolve_tracepoints(void);       /* every tracepoint exists; fields read */
void probes_declare(void);                   /* the stream's event table */

/* record_tracefs.c */
/* The events directory of tracefs, mounting tracefs if it is not (root). */
const char *tracefs_events_dir(void);
/* 0, or -1 when the tracepoint does not exist (errno), fills the fields. */
int tracefs_read_format(const char *system, const char *name, struct probe *p);

/* record_stream.c */
/* Opens the destination (VIGIL_STREAM_* knobs read, discard mode): exits
 * with a message when it cannot be. */
void stream_open(const char *dest);
/* hello names `program` and `pid`, the traced command (not the loader);
 * the event table is announced (a file: destination gets its hello now). */
void stream_start(const char *program, int pid);
int stream_on_record(void *ctx, void *data, size_t size); /* ring_buffer callback */
/* Ships every thread's pending events; a mark for `drained_ns` if any. */
void stream_flush(uint64_t drained_ns);
/* Ships the rest, sends `end` with the BPF side's per-thread totals (map fd
 * of `threads`), waits for acknowledgements up to the linger time. */
void stream_finish(int threads_fd);
unsigned stream_flush_ms(void);

#endif /* VIGIL_BPF_RECORD_LOADER_H */
