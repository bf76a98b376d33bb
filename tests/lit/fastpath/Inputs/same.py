"""same.py FAST SLOW SCRIPT...: runs both programs with each script (argv[1]),
VIGIL_STATS=1 and VIGIL_ON_FAILURE=log, and fails unless their output is the
same apart from what a build with the inline fast path may change: the
thread line (pid, program name) and VIGIL_STATS's slow-events column.
Prints one line per script: its passes and failures."""
import os
import re
import subprocess
import sys

env = dict(os.environ, VIGIL_STATS="1", VIGIL_ON_FAILURE="log", VIGIL_BACKTRACE="0")


def run(prog, script):
    out = subprocess.run([prog, script], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=60).stdout
    lines, stats = [], None
    for line in out.splitlines():
        if line.strip().startswith("thread:"):
            continue
        m = re.match(r"\s*(\S+:\d+:\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", line)
        if m:  # assertion instances slow-events passes failures dropped
            stats = (m.group(4), m.group(5))
            line = "%s %s - %s %s %s" % (m.group(1), m.group(2), m.group(4),
                                         m.group(5), m.group(6))
        lines.append(line)
    return lines, stats


status = 0
for script in sys.argv[3:]:
    fast, stats = run(sys.argv[1], script)
    slow, _ = run(sys.argv[2], script)
    if fast != slow:
        status = 1
        print("%s: the inline path differs from the runtime's:" % script)
        print("\n".join("  fast: " + l for l in fast))
        print("\n".join("  slow: " + l for l in slow))
        continue
    print("%s: passes %s failures %s" % (script, stats[0], stats[1]) if stats
          else "%s: no statistics" % script)
sys.exit(status)
