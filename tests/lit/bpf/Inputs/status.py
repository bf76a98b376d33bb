#!/usr/bin/env python3
"""status.py CODES CMD ARGS...: run CMD (stdout, stderr passed through) and
succeed iff its exit status is one of CODES (comma-separated, e.g. 0,1).
lit's internal shell has no `$?`; vigil monitor exits 0 (no violation),
1 (violations) or 2 (error)."""
import subprocess
import sys

codes = {int(c) for c in sys.argv[1].split(",")}
r = subprocess.run(sys.argv[2:])
if r.returncode not in codes:
    sys.stderr.write("status.py: %s exited with %d, expected one of %s\n"
                     % (sys.argv[2], r.returncode, sorted(codes)))
    sys.exit(1)
