#!/usr/bin/env python3
"""False positives: the correct programs (../correct/*.c) and every bug's
fixed.c, built with `vigil-cc --vigil-atomic`, run --runs times each under
VIGIL_ATOMIC_MODE=find and =detect (VIGIL_ON_FAILURE=log).  Prints every
distinct reported atomic region (program, variable, pattern, function,
first-second lines, remote line) and the number of distinct ones; exits 1
if a run failed, or if that number is above --max (the count measured and
listed in README.md, "False positives": it must not grow).

  fp.py --vigil-cc build/bin/vigil-cc [--runs 3] [--max N]
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORRECT = os.path.join(os.path.dirname(HERE), "correct")
# argv[1] of the fixed programs: a fraction of their default length
SCALE = {"apache-21287": "0.1", "apache-25520": "0.2", "apache-46215": "0.2",
         "mozilla-225525": "0.2", "mysql-3596": "0.05", "mysql-791": "0.2"}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vigil-cc", required=True)
    ap.add_argument("--flags", default="-O1 -g -pthread")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--max", type=int, help="fail if more distinct reported ARs than this")
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()

    progs = [("correct/" + f[:-2], os.path.join(CORRECT, f), [])
             for f in sorted(os.listdir(CORRECT)) if f.endswith(".c")]
    progs += [(b + "/fixed", os.path.join(HERE, b, "fixed.c"), [SCALE.get(b, "1")])
              for b in sorted(os.listdir(HERE)) if os.path.isfile(os.path.join(HERE, b, "fixed.c"))]
    tmp = tempfile.mkdtemp(prefix="atomic-fp-")
    seen, failed = {}, 0
    for name, src, argv in progs:
        exe = os.path.join(tmp, name.replace("/", "-"))
        p = subprocess.run(shlex.split("%s --vigil-atomic %s" % (args.vigil_cc, args.flags)) +
                           [src, "-o", exe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        if p.returncode:
            print("build failed: %s\n%s" % (src, p.stdout))
            return 1
        for mode in ("find", "detect"):
            for i in range(args.runs):
                rep = exe + ".jsonl"
                if os.path.exists(rep):
                    os.remove(rep)
                env = dict(os.environ, VIGIL_ATOMIC_MODE=mode, VIGIL_ON_FAILURE="log",
                           VIGIL_REPORT=rep, VIGIL_ATOMIC_PAUSE_RATE="0.002",
                           VIGIL_ATOMIC_PAUSE_MS="2",
                           # a thread paused for more than a quarter of its time stops
                           # pausing: mysql-3596/fixed otherwise loops into 3-30 s runs
                           # (docs/atomic.md, find mode)
                           VIGIL_ATOMIC_PAUSE_SHARE="0.25")
                try:
                    r = subprocess.run([exe] + argv, env=env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, timeout=args.timeout)
                    rc = r.returncode
                except subprocess.TimeoutExpired:
                    rc = "timeout"
                if rc != 0:
                    failed += 1
                    print("run failed: %s %s run %d: %s" % (name, mode, i, rc))
                if not os.path.exists(rep):
                    continue
                for line in open(rep, errors="replace"):
                    try:
                        o = json.loads(line)
                    except ValueError:
                        continue
                    if o.get("kind") != "atomicity":
                        continue
                    key = (name, o.get("variable"), o.get("function"), o["first"].get("line"),
                           o["second"].get("line"))
                    d = seen.setdefault(key, {"patterns": set(), "remotes": set(),
                                              "modes": set(), "n": 0})
                    d["patterns"].add(o.get("pattern"))
                    d["remotes"].add("%s:%s" % (o["remote"].get("line"), o["remote"].get("via")))
                    d["modes"].add(mode)
                    d["n"] += 1
    shutil.rmtree(tmp, ignore_errors=True)
    for (name, var, fn, a, b), d in sorted(seen.items(), key=str):
        print("report: %s: %s %s in %s, lines %s-%s, remote %s (%s, %d reports)" % (
            name, var, "/".join(sorted(d["patterns"])), fn, a, b,
            " ".join(sorted(d["remotes"])), "+".join(sorted(d["modes"])), d["n"]))
    n = len(seen)
    print("false positives: %d distinct atomic regions reported in %d programs, %d failed runs"
          % (n, len(progs), failed))
    if args.max is not None and n > args.max:
        print("MORE false positives than the %d measured (README.md, False positives)" % args.max)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
