#!/usr/bin/env python3
"""Build and run the atomicity-violation bug corpus (tests/atomic/bugs/*/).

For every bug directory (one with bug.c) this builds bug.c and fixed.c with
the given compiler command, runs each binary N times with the given
environment, and prints a table: runs, failures (non-zero exit, signal or
timeout), and -- when VIGIL_REPORT is set -- how many JSON lines with
"kind":"atomicity" the runs appended to that file (one per reported
violation, as runtime/atomic_report.c writes them; the VIGIL_STATS summary
line, "kind":"atomic-stats", is not counted).

Examples:
  tests/atomic/bugs/run.py                        # plain clang-19, 20 runs
  tests/atomic/bugs/run.py -n 100 --json out.json
  tests/atomic/bugs/run.py --cc 'build/bin/vigil-cc --vigil-atomic -O1 -g -pthread' \\
      --env VIGIL_ATOMIC_MODE=prevent --report /tmp/atomic.jsonl
  tests/atomic/bugs/run.py --only apache-25520 --which bug -n 5 --arg 2
  tests/atomic/bugs/run.py --correct -n 10 --report /tmp/fp.jsonl   # false positives

Stdlib only.  Each run has a timeout (--timeout) and the whole invocation a
budget (--budget); runs that would exceed the budget are skipped and counted
as such.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CC = "clang-19 -O1 -g -pthread"


def count_reports(path):
    """Lines of a JSONL file that are atomicity-violation reports: the runtime
    (runtime/atomic_report.c) writes one object with "kind":"atomicity" per
    violation; other lines (e.g. the "atomic-stats" summary) are not counted."""
    n = 0
    try:
        with open(path, "r", errors="replace") as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    obj = json.loads(line)
                except ValueError:
                    if '"kind":"atomicity"' in line.replace(" ", ""):
                        n += 1
                    continue
                if isinstance(obj, dict) and obj.get("kind") == "atomicity":
                    n += 1
    except FileNotFoundError:
        pass
    return n


def build(cc, src, out, log):
    cmd = shlex.split(cc) + [src, "-o", out]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        log.write("build failed: %s\n%s\n" % (" ".join(cmd), p.stdout))
    return p.returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cc", default=DEFAULT_CC,
                    help="compiler command, source and -o are appended (default: %(default)s)")
    ap.add_argument("-n", "--runs", type=int, default=20, help="runs per binary (default 20)")
    ap.add_argument("--env", action="append", default=[], metavar="K=V",
                    help="environment for the runs (repeatable)")
    ap.add_argument("--report", metavar="FILE",
                    help="set VIGIL_REPORT=FILE per run (a fresh file per binary) and count "
                         "atomicity-violation lines (\"kind\":\"atomicity\")")
    ap.add_argument("--only", action="append", default=[], help="bug directory names to run")
    ap.add_argument("--which", choices=["bug", "fixed", "both"], default="both")
    ap.add_argument("--arg", action="append", default=[],
                    help="argument passed to every run (the programs take a scale factor)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per run (default 20)")
    ap.add_argument("--budget", type=float, default=1800.0,
                    help="seconds for the whole invocation (default 1800)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON ('-': stdout)")
    ap.add_argument("--builddir", help="where to put binaries (default: a temporary directory)")
    ap.add_argument("--correct", action="store_true",
                    help="run the correct programs of ../correct/*.c instead of the bugs")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each failing run's stderr")
    args = ap.parse_args()

    srcdir = HERE
    if args.correct:
        srcdir = os.path.join(os.path.dirname(HERE), "correct")
        bugs = sorted(f[:-2] for f in os.listdir(srcdir) if f.endswith(".c"))
    else:
        bugs = sorted(d for d in os.listdir(HERE)
                      if os.path.isfile(os.path.join(HERE, d, "bug.c")))
    if args.only:
        unknown = set(args.only) - set(bugs)
        if unknown:
            ap.error("unknown bug(s): %s" % ", ".join(sorted(unknown)))
        bugs = [b for b in bugs if b in args.only]
    which = ["bug", "fixed"] if args.which == "both" else [args.which]
    if args.correct:
        which = ["correct"]

    env = dict(os.environ)
    for kv in args.env:
        k, sep, v = kv.partition("=")
        if not sep:
            ap.error("--env wants K=V, got %r" % kv)
        env[k] = v

    builddir = args.builddir or tempfile.mkdtemp(prefix="atomic-bugs-")
    os.makedirs(builddir, exist_ok=True)
    start = time.monotonic()
    results = []
    for bug in bugs:
        for kind in which:
            if kind == "correct":
                src = os.path.join(srcdir, bug + ".c")
            else:
                src = os.path.join(HERE, bug, kind + ".c")
            row = {"bug": bug, "program": kind, "runs": 0, "failures": 0, "timeouts": 0,
                   "skipped": 0, "reports": None, "seconds": 0.0, "built": False,
                   "messages": []}
            results.append(row)
            if not os.path.isfile(src):
                row["messages"].append("no %s.c" % kind)
                continue
            exe = os.path.join(builddir, "%s-%s" % (bug, kind))
            if not build(args.cc, src, exe, sys.stderr):
                continue
            row["built"] = True
            run_env = dict(env)
            report = None
            if args.report:
                root, ext = os.path.splitext(args.report)
                report = "%s.%s-%s%s" % (root, bug, kind, ext or ".jsonl")
                if os.path.exists(report):
                    os.remove(report)
                run_env["VIGIL_REPORT"] = report
            t0 = time.monotonic()
            for i in range(args.runs):
                left = args.budget - (time.monotonic() - start)
                if left <= 1:
                    row["skipped"] = args.runs - i
                    break
                try:
                    p = subprocess.run([exe] + args.arg, env=run_env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, text=True, errors="replace",
                                       timeout=min(args.timeout, left))
                    rc = p.returncode
                    err = p.stderr.strip()
                except subprocess.TimeoutExpired:
                    rc, err = None, "timeout"
                    row["timeouts"] += 1
                row["runs"] += 1
                if rc != 0:
                    row["failures"] += 1
                    msg = err.splitlines()[-1] if err else "exit %s" % rc
                    if rc is not None and rc < 0:
                        msg = "signal %d" % -rc
                    if len(row["messages"]) < 3:
                        row["messages"].append(msg)
                    if args.verbose:
                        print("  %s/%s run %d: %s" % (bug, kind, i, err or msg), file=sys.stderr)
            row["seconds"] = round(time.monotonic() - t0, 2)
            if report:
                row["reports"] = count_reports(report)

    hdr = "%-16s %-6s %5s %8s %8s %8s %8s" % ("bug", "prog", "runs", "failures", "timeouts",
                                             "reports", "seconds")
    print("compiler: %s" % args.cc)
    if args.env:
        print("env: %s" % " ".join(args.env))
    print(hdr)
    print("-" * len(hdr))
    for r in results:
        rep = "-" if r["reports"] is None else str(r["reports"])
        runs = str(r["runs"]) if r["built"] else "build!"
        extra = " (skipped %d)" % r["skipped"] if r["skipped"] else ""
        print("%-16s %-6s %5s %8d %8d %8s %8.1f%s" % (r["bug"], r["program"], runs, r["failures"],
                                                    r["timeouts"], rep, r["seconds"], extra))
    if args.json:
        doc = {"compiler": args.cc, "env": args.env, "runs_per_binary": args.runs,
               "args": args.arg, "results": results}
        if args.json == "-":
            json.dump(doc, sys.stdout, indent=2)
            print()
        else:
            with open(args.json, "w") as f:
                json.dump(doc, f, indent=2)
    # exit status: 0 if every build succeeded and no fixed/correct program failed
    bad = any(not r["built"] for r in results) or any(
        r["program"] in ("fixed", "correct") and r["failures"] for r in results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
