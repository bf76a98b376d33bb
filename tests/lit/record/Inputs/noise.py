#!/usr/bin/env python3
"""noise.py NOISE... -- CMD...: start NOISE (another process, in the
background), give it 0.2 s to get going, run CMD, then stop NOISE; exit
with CMD's status.  What NOISE does must not appear in a recording of CMD
alone."""
import subprocess
import sys
import time

sep = sys.argv.index("--")
noise = subprocess.Popen(sys.argv[1:sep])
try:
    time.sleep(0.2)
    r = subprocess.run(sys.argv[sep + 1:])
finally:
    noise.kill()
    noise.wait()
sys.exit(r.returncode)
