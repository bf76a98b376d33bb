"""Run a command, then print `exit N` with its exit status; exit 0."""
import subprocess
import sys

status = subprocess.call(sys.argv[1:])
sys.stdout.flush()
print("exit", status)
