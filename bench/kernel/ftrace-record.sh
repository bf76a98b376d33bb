#!/usr/bin/env bash
# Record tracepoints with ftrace into files until SIGINT/SIGTERM, as
# trace-cmd record does (raw per-cpu ring-buffer pages copied to disk), or,
# with --text, the formatted trace_pipe text that `vigil check` reads.
# trace-cmd itself cannot run in this sandbox (it insists on writing
# /proc/sys/kernel/ftrace_enabled, which is read-only here).
#   ftrace-record.sh [--text] OUTDIR EVENT...      EVENT as sched/sched_switch
set -u
text=0
[ "${1:-}" = --text ] && { text=1; shift; }
out=$1; shift
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T
mkdir -p "$out"
echo 0 > $T/tracing_on
echo > $T/trace
for e in "$@"; do echo 1 > "$T/events/$e/enable"; done
pids=()
if [ $text = 1 ]; then
  cat $T/trace_pipe > "$out/trace.txt" & pids+=($!)
else
  for d in $T/per_cpu/cpu*; do
    cat "$d/trace_pipe_raw" > "$out/$(basename "$d").raw" & pids+=($!)
  done
fi
echo 1 > $T/tracing_on
stop() {
  echo 0 > $T/tracing_on
  for e in "$@"; do echo 0 > "$T/events/$e/enable"; done
  sleep 0.2
  kill "${pids[@]}" 2>/dev/null
  wait 2>/dev/null
  du -sb "$out" | awk '{print "recorded bytes:", $1}'
  exit 0
}
trap 'stop "$@"' INT TERM
while :; do sleep 1; done
