#!/usr/bin/env python3
"""Run a command while a private ftrace instance records some tracepoints,
then write the instance's text trace (what `vigil check` reads).

    ftrace_run.py OUT EVENT[,EVENT...] -- COMMAND...     EVENT as sched/sched_switch

A tracefs instance (instances/vigil-PID) keeps the global buffer untouched
and is removed afterwards, whatever happens.  Exit status: the command's.
"""
import os
import shutil
import subprocess
import sys

T = "/sys/kernel/tracing"


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    out, events, sep, *cmd = sys.argv[1:]
    assert sep == "--" and cmd, __doc__
    inst = os.path.join(T, "instances", f"vigil-{os.getpid()}")
    os.mkdir(inst)
    try:
        write(os.path.join(inst, "buffer_size_kb"), "16384")
        write(os.path.join(inst, "options/record-tgid"), "1")
        for e in events.split(","):
            write(os.path.join(inst, "events", e, "enable"), "1")
        write(os.path.join(inst, "tracing_on"), "1")
        rc = subprocess.run(cmd).returncode
        write(os.path.join(inst, "tracing_on"), "0")
        with open(os.path.join(inst, "trace")) as src, open(out, "w") as dst:
            shutil.copyfileobj(src, dst)
        return rc
    finally:
        for e in events.split(","):
            try:
                write(os.path.join(inst, "events", e, "enable"), "0")
            except OSError:
                pass
        os.rmdir(inst)


if __name__ == "__main__":
    sys.exit(main())
