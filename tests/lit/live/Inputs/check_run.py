#!/usr/bin/env python3
"""Records a program's run with ftrace, checks the trace with a shipped
model, and says whether the program's victim thread (it prints `victim tid
N`) was reported with a violation of the given kind.

    check_run.py VIGIL MODEL KIND EVENTS -- PROGRAM [ARGS...]
Prints the program's last line, then `victim: reported` (with each
violation) or `victim: not reported`.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    vigil, model, kind, events, sep, prog, *mode = sys.argv[1:]
    assert sep == "--", __doc__
    with tempfile.TemporaryDirectory() as d:
        trace = os.path.join(d, "trace.txt")
        run = subprocess.run([sys.executable, os.path.join(HERE, "ftrace_run.py"), trace,
                              events, "--", prog, *mode],
                             capture_output=True, text=True, check=True)
        tid = int(run.stdout.split("victim tid ")[1].split()[0])
        delay = run.stdout.strip().splitlines()[-1]
        chk = subprocess.run([vigil, "check", model, "--trace", trace, "--json"],
                             capture_output=True, text=True)
        if chk.returncode not in (0, 1):
            sys.exit(f"vigil check failed: {chk.stderr}")
        found = [v for v in map(json.loads, chk.stdout.splitlines())
                 if v["type"] == "violation" and v["kind"] == kind and v["key"] and v["key"]["value"] == tid]
        print(delay.replace(f"{tid}", "TID"))
        print("victim: reported" if found else "victim: not reported")
        for v in found:
            what = f"`{v['constraint']}` " if "constraint" in v else ""
            print(f"  {v['kind']} {what}in state {v['state']} after {v['event']} at {v['timestamp']}")


if __name__ == "__main__":
    main()
