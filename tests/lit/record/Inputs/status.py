#!/usr/bin/env python3
"""status.py CODE CMD ARGS...: run CMD (stdout and stderr passed through)
and succeed iff its exit status is CODE.  lit's internal shell has no `$?`;
vigil record exits with its command's status, or 2 for its own errors."""
import subprocess
import sys

code = int(sys.argv[1])
r = subprocess.run(sys.argv[2:])
if r.returncode != code:
    sys.stderr.write("status.py: %s exited with %d, expected %d\n" % (sys.argv[2], r.returncode, code))
    sys.exit(1)
