#!/usr/bin/env python3
"""background.py [--duration S] -- MONITOR ARGS... -- PROGRAM ARGS...

Start MONITOR in the background, wait until it has attached (its
"attached" line on stderr), run PROGRAM once, then wait for MONITOR to
finish (it has --duration).  MONITOR's stdout is copied to ours."""
import subprocess
import sys
import time

args = sys.argv[1:]
assert args[0] == "--duration"
args = args[2:]
assert args[0] == "--"
sep = args.index("--", 1)
monitor, program = args[1:sep], args[sep + 1:]
mon = subprocess.Popen(monitor + ["--duration", sys.argv[2]], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
line = mon.stderr.readline()
if "attached" not in line:
    sys.stderr.write("monitor did not attach: %s%s" % (line, mon.stderr.read()))
    sys.exit(1)
subprocess.run(program, stdout=subprocess.DEVNULL)
out, err = mon.communicate(timeout=120)
sys.stdout.write(out)
sys.stderr.write(err)
sys.exit(0 if mon.returncode in (0, 1) else 1)
