// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * vigil-bpf-record: vigil record's loader (docs/record.md).  Loads
 * record.bpf.c, attaches its uprobe/uretprobe programs to functions and its
 * tracepoint program to tracepoints, runs the command, and streams every
 * event into the event stream (docs/stream-format.md) with libvigil's own
 * writer, until the command exits, --duration, or SIGINT/SIGTERM.
 *
 *   vigil-bpf-record [--uprobe BINARY:FUNC[+OFFSET]]... [--tracepoint SYSTEM:NAME]...
 *                    [--stream DEST] [--system-wide] [--duration S] [--ring-size BYTES]
 *                    [-- COMMAND ARGS...]
 *
 * Exit status: the command's (128+N if killed by signal N); 0 without a
 * command; 2 for errors (nothing is started then).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "loader_util.h"
#include "record.h"
#include "record_loader.h"
#include "record.skel.h"
#include "stream.h" /* runtime/stream.h: vg_link_poll, vg_stream_now_* */

#define DEFAULT_RING (8u << 20)
#define MAX_RING (1u << 30)
#define MAX_LINKS 4096

static struct {
	const char *stream;
	bool stream_from_env;
	bool system_wide;
	double duration;
	size_t ring_size;
	char **command;
} opt = { .ring_size = DEFAULT_RING };

static struct record_bpf *skel;
static struct bpf_link *links[MAX_LINKS];
static int nlinks;
static volatile sig_atomic_t exiting;

static void usage(FILE *f)
{
	fprintf(f, "usage: vigil-bpf-record [--uprobe BINARY:FUNC[+OFFSET]]... [--tracepoint SYSTEM:NAME]...\n"
		   "                        [--stream DEST] [--system-wide] [--duration S] [--ring-size BYTES]\n"
		   "                        [-- COMMAND ARGS...]\n"
		   "Streams uprobe and tracepoint events of COMMAND (or of every process) to DEST\n"
		   "(tcp://HOST:PORT, unix:PATH or file:PATH; default $VIGIL_STREAM), in discard mode.\n");
}

/* BYTES with an optional K, M or G suffix: a power of two from the page
 * size to 1 GiB (what a BPF ring buffer can be). */
static size_t parse_ring_size(const char *v)
{
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	long page = sysconf(_SC_PAGESIZE);

	switch (*end) {
	case 'k': case 'K': n <<= 10; end++; break;
	case 'm': case 'M': n <<= 20; end++; break;
	case 'g': case 'G': n <<= 30; end++; break;
	}
	if (end == v || *end || !n || (n & (n - 1)) || n < (unsigned long long)page || n > MAX_RING)
		lu_die("--ring-size %s: expected a power of two from %ld bytes to 1G (K, M, G suffixes allowed)",
		       v, page);
	return n;
}

static void parse_args(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "--system-wide")) {
			opt.system_wide = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (!v && a[0] == '-') {
			usage(stderr);
			lu_die("unknown or incomplete option `%s`", a);
		} else if (!strcmp(a, "--uprobe")) {
			probes_add_uprobe(argv[++i]);
		} else if (!strcmp(a, "--tracepoint")) {
			probes_add_tracepoint(argv[++i]);
		} else if (!strcmp(a, "--stream")) {
			opt.stream = argv[++i];
		} else if (!strcmp(a, "--ring-size")) {
			opt.ring_size = parse_ring_size(argv[++i]);
		} else if (!strcmp(a, "--duration")) {
			char *end;

			opt.duration = strtod(argv[++i], &end);
			if (*end || end == argv[i] || !(opt.duration > 0))
				lu_die("--duration takes a positive number of seconds, not `%s`", argv[i]);
		} else {
			usage(stderr);
			lu_die("unknown option or unexpected argument `%s` (a command goes after `--`)", a);
		}
	}
	if (i < argc)
		opt.command = &argv[i];
}

/* Everything that can be wrong with the arguments, the files and the
 * kernel is found here, before anything is loaded or started. */
static void check_setup(void)
{
	if (!opt.stream) {
		opt.stream = getenv("VIGIL_STREAM");
		opt.stream_from_env = true;
	}
	if (!opt.stream || !*opt.stream)
		lu_die("no stream destination: give --stream DEST or set VIGIL_STREAM "
		       "(tcp://HOST:PORT, unix:PATH or file:PATH)");
	if (!nprobes)
		lu_die("nothing to record: give --uprobe BINARY:FUNC or --tracepoint SYSTEM:NAME");
	if (!opt.command && !opt.system_wide)
		lu_die("no command: give one after `--`, or --system-wide to record every process");
	probes_resolve_uprobes();
	if (opt.command) {
		char *path = lu_find_in_path(opt.command[0]);

		if (!path)
			lu_die("cannot find the command %s", opt.command[0]);
		free(path);
	}
	if (geteuid() != 0)
		lu_die("vigil record loads eBPF programs and needs root (CAP_BPF and CAP_PERFMON); "
		       "run it with sudo");
	probes_resolve_tracepoints();
}

static void load(void)
{
	bool any[P_TRACEPOINT + 1] = { 0 };
	int err;

	for (int i = 0; i < nprobes; i++)
		any[probes[i].kind] = true;
	skel = record_bpf__open();
	if (!skel) {
		lu_libbpf_log_print();
		lu_die("cannot open the BPF object: %s", strerror(errno));
	}
	skel->rodata->system_wide = opt.system_wide;
	skel->rodata->wakeup_bytes = opt.ring_size / 4;
	bpf_map__set_max_entries(skel->maps.events, opt.ring_size);
	/* Only the programs some probe needs are loaded. */
	bpf_program__set_autoload(skel->progs.uprobe_entry, any[P_ENTRY] || any[P_OFFSET]);
	bpf_program__set_autoload(skel->progs.uprobe_return, any[P_RETURN]);
	bpf_program__set_autoload(skel->progs.tracepoint_record, any[P_TRACEPOINT]);
	bpf_program__set_autoload(skel->progs.follow_fork, any[P_TRACEPOINT] && !opt.system_wide);
	err = record_bpf__load(skel);
	if (err) {
		lu_libbpf_log_print();
		lu_die("cannot load the BPF program: %s", strerror(-err));
	}
}

static void add_link(struct bpf_link *l, const struct probe *p)
{
	int err = -errno;

	if (!l) {
		lu_libbpf_log_print();
		if (p->kind == P_TRACEPOINT)
			lu_die("cannot attach to tracepoint %s: %s", p->spec, strerror(-err));
		lu_die("cannot attach a %s to %s in %s: %s", p->kind == P_RETURN ? "uretprobe" : "uprobe",
		       p->func, p->path, strerror(-err));
	}
	if (nlinks == MAX_LINKS)
		lu_die("too many probes (at most %d)", MAX_LINKS);
	links[nlinks++] = l;
}

/* Uprobes are limited to the command's process by the kernel (pid);
 * tracepoints to its process tree by the BPF program (`traced`). */
static void attach(pid_t pid)
{
	if (bpf_program__autoload(skel->progs.follow_fork)) {
		struct bpf_link *l = bpf_program__attach(skel->progs.follow_fork);

		if (!l) {
			lu_libbpf_log_print();
			lu_die("cannot attach to sched_process_fork (to follow the command's children): %s",
			       strerror(errno));
		}
		links[nlinks++] = l;
	}
	for (int i = 0; i < nprobes; i++) {
		const struct probe *p = &probes[i];

		if (p->kind == P_TRACEPOINT) {
			LIBBPF_OPTS(bpf_tracepoint_opts, to, .bpf_cookie = VIGIL_COOKIE(i, p->bytes));
			add_link(bpf_program__attach_tracepoint_opts(skel->progs.tracepoint_record, p->system,
								     p->name, &to),
				 p);
		} else {
			LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = p->func, .retprobe = p->kind == P_RETURN,
				    .bpf_cookie = VIGIL_COOKIE(i, 0));
			add_link(bpf_program__attach_uprobe_opts(p->kind == P_RETURN ? skel->progs.uprobe_return
										    : skel->progs.uprobe_entry,
								 opt.system_wide ? -1 : pid, p->path, p->offset, &uo),
				 p);
		}
	}
}

static void on_signal(int sig)
{
	if (sig != SIGCHLD)
		exiting = 1;
}

/* No SA_RESTART: a signal ends the main loop's poll at once, and a second
 * SIGINT interrupts the wait for the command. */
static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
}

static void announce(pid_t child)
{
	int nu = 0, nt = 0;

	for (int i = 0; i < nprobes; i++) {
		nu += probes[i].kind == P_ENTRY || probes[i].kind == P_OFFSET;
		nt += probes[i].kind == P_TRACEPOINT;
	}
	fprintf(stderr, "vigil record: %d function%s, %d tracepoint%s", nu, nu == 1 ? "" : "s", nt,
		nt == 1 ? "" : "s");
	if (opt.system_wide)
		fprintf(stderr, ", every process");
	if (child > 0)
		fprintf(stderr, "; running %s (pid %d)", opt.command[0], (int)child);
	if (opt.duration > 0)
		fprintf(stderr, "; for %g s", opt.duration);
	else if (child <= 0)
		fprintf(stderr, "; Ctrl-C to stop");
	fprintf(stderr, "; streaming to %s\n", opt.stream);
}

/* Polls the ring buffer and the stream's destination together (the ring
 * buffer's epoll fd is the link's wake-up fd), never longer than the flush
 * interval: a slow collector never stops the reading.  Returns when the
 * command exited (its status in *status), at --duration or on a signal. */
static void run_loop(struct ring_buffer *rb, pid_t child, int *status)
{
	uint64_t flush_ms = stream_flush_ms(), now = vg_stream_now_ms();
	uint64_t next_flush = now + flush_ms, end = opt.duration > 0 ? now + (uint64_t)(opt.duration * 1000) : 0;
	int err;

	while (!exiting) {
		now = vg_stream_now_ms();
		uint64_t until = end && end < next_flush ? end : next_flush;

		vg_link_poll(until > now ? (int)(until - now) : 0, ring_buffer__epoll_fd(rb));
		/* the time before a complete drain: every event stamped earlier is in it */
		uint64_t drained = vg_stream_now_ns();

		err = ring_buffer__consume(rb);
		if (err < 0 && err != -EINTR) {
			lu_warn("reading the ring buffer: %s; stopping", strerror(-err));
			break;
		}
		if (vg_stream_now_ms() >= next_flush) {
			stream_flush(drained);
			next_flush = vg_stream_now_ms() + flush_ms;
		}
		if (child > 0 && waitpid(child, status, WNOHANG) == child)
			return;
		if (end && vg_stream_now_ms() >= end)
			break;
	}
	*status = -1;
}

/* Events the kernel did not run our program for: a BPF program was
 * already running on that cpu (e.g. a tracepoint hit inside another
 * program).  The kernel counts them per program; they took no sequence
 * number, so the stream cannot show them: said here. */
static void warn_missed(void)
{
	struct bpf_program *prog;
	unsigned long long missed = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			missed += info.recursion_misses;
	}
	if (missed)
		lu_warn("%llu events were not seen: the kernel skipped our BPF program because another "
			"one was running on the same cpu (not in the stream's lost counts)",
			missed);
}

static void warn_untracked(void)
{
	int ncpus = libbpf_num_possible_cpus();
	__u64 *vals = lu_xcalloc(ncpus > 0 ? ncpus : 1, sizeof(__u64)), sum = 0;
	__u32 k = VIGIL_REC_UNTRACKED;

	if (ncpus > 0 &&
	    !bpf_map__lookup_elem(skel->maps.counters, &k, sizeof(k), vals, ncpus * sizeof(__u64), 0))
		for (int i = 0; i < ncpus; i++)
			sum += vals[i];
	free(vals);
	if (sum)
		lu_warn("%llu events of threads beyond the first %u were neither recorded nor counted",
			(unsigned long long)sum, bpf_map__max_entries(skel->maps.threads));
}

/* Stops recording: detaches (in-flight programs finish), ends a command
 * still running, reads the rest, ends the stream, then reaps the command. */
static int finish(struct ring_buffer *rb, pid_t child, int status)
{
	for (int i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	nlinks = 0;
	if (child > 0 && status < 0)
		kill(child, SIGTERM);
	ring_buffer__consume(rb);
	stream_finish(bpf_map__fd(skel->maps.threads));
	warn_untracked();
	warn_missed();
	ring_buffer__free(rb);
	record_bpf__destroy(skel);
	if (child <= 0)
		return 0;
	while (status < 0 && waitpid(child, &status, 0) < 0) {
		if (errno != EINTR)
			return LU_EXIT_ERROR;
		kill(child, SIGKILL); /* a second SIGINT/SIGTERM: do not wait any longer */
	}
	return lu_exit_status(status);
}

int main(int argc, char **argv)
{
	const char *debug = getenv("VIGIL_BPF_DEBUG");
	struct ring_buffer *rb;
	pid_t child = -1;
	int gate = -1, status = -1;
	char *program;

	lu_prog_name = "vigil record";
	parse_args(argc, argv);
	check_setup();
	lu_libbpf_log_init(debug && *debug && strcmp(debug, "0"));
	stream_open(opt.stream);
	load();
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), stream_on_record, NULL, NULL);
	if (!rb)
		lu_die("cannot open the ring buffer: %s", strerror(errno));
	if (opt.command) {
		__u8 one = 1;

		/* VIGIL_STREAM named our destination, not the command's. */
		if (opt.stream_from_env)
			unsetenv("VIGIL_STREAM");
		child = lu_child_start(opt.command, &gate);
		__u32 tgid = child;
		if (bpf_map__update_elem(skel->maps.traced, &tgid, sizeof(tgid), &one, sizeof(one), BPF_ANY))
			lu_die("cannot fill the map of traced processes: %s", strerror(errno));
	}
	attach(child);
	program = opt.command ? lu_find_in_path(opt.command[0]) : lu_xstrdup("system-wide");
	stream_start(program, child > 0 ? child : getpid());
	install_signals();
	announce(child);
	lu_child_release(&gate);
	run_loop(rb, child, &status);
	return finish(rb, child, status);
}
