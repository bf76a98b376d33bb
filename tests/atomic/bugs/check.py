#!/usr/bin/env python3
"""One bug of the corpus end to end, for the lit tests (tests/lit/atomic-bugs).

  check.py BUG --vigil-cc PATH [options]

Builds BUG/bug.c plain (clang-19) and with `vigil-cc --vigil-atomic`, and
BUG/fixed.c with vigil-cc, then prints one line per step (FileCheck reads
them) and exits 1 if a step failed:

  plain:   the uninstrumented bug.c shows its failure in one of --plain-runs
           runs (stops at the first).  Per-run rates are 75-100% unloaded
           (README.md); 40 runs at a rate of 0.2 miss with probability
           1.3e-4, so if none failed the step is retried once (--plain-runs
           more runs) before it fails: a rate that low means a loaded
           machine, and the message says so.
  find:    VIGIL_ATOMIC_MODE=find reports the bug -- a JSON line with
           "kind":"atomicity", a non-serializable pattern, in the bug's
           function with first/second access on the bug's lines (--expect)
           -- in one of --find-runs runs (stops at the first).
  prevent: VIGIL_ATOMIC_MODE=prevent, --prevent-runs runs: how many showed
           the failure (the test wants 0), how many violations were
           reported / prevented / timed out (VIGIL_STATS=1 counters summed).
  fixed:   fixed.c under prevent and find, --fixed-runs runs each: how many
           "kind":"atomicity" lines (and a list of them with -v).

VIGIL_ON_FAILURE=log always (the default, abort, would end the run at the
first report).  Reports go to a fresh VIGIL_REPORT file per run.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PATTERNS = {"RWR", "WWR", "WRW", "RWW"}
STAT_KEYS = ("violations", "prevented", "timeouts", "held", "remotes",
             "unmonitored_no_slot", "unmonitored_thread_full", "unmonitored_no_watchpoint")


def build(cmd, src, out):
    p = subprocess.run(shlex.split(cmd) + [src, "-o", out], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        print("build failed: %s %s\n%s" % (cmd, src, p.stdout))
        sys.exit(1)


def read_reports(path):
    """(violation objects, summed stats) of one run's VIGIL_REPORT file."""
    viol, stats = [], {}
    try:
        f = open(path, errors="replace")
    except FileNotFoundError:
        return viol, stats
    with f:
        for line in f:
            try:
                o = json.loads(line)
            except ValueError:
                continue
            if o.get("kind") == "atomicity":
                viol.append(o)
            elif o.get("kind") == "atomic-stats":
                for k in STAT_KEYS:
                    stats[k] = stats.get(k, 0) + int(o.get(k, 0))
    return viol, stats


def trained_runs(exe, args, tmp, wl):
    """Train mode on exe, args.fixed_train runs adding to the whitelist wl:
    the number of entries (lines that are not comments)."""
    env = {"VIGIL_ATOMIC_MODE": "train", "VIGIL_ATOMIC_WHITELIST": wl}
    for i in range(args.fixed_train):
        run(exe, [args.fixed_scale], env, args.timeout, tmp)
    try:
        with open(wl) as f:
            return sum(1 for line in f if line.strip() and not line.startswith("#"))
    except FileNotFoundError:
        return 0


def run(exe, args, env, timeout, tmp):
    """One run: (failed, message, violations, stats)."""
    rep = os.path.join(tmp, "report.jsonl")
    if os.path.exists(rep):
        os.remove(rep)
    e = dict(os.environ)
    e.update(env)
    if env:
        e.update({"VIGIL_ON_FAILURE": "log", "VIGIL_REPORT": rep, "VIGIL_STATS": "1"})
    try:
        p = subprocess.run([exe] + args, env=e, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, errors="replace", timeout=timeout)
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        rc, err = None, "timeout"
    # the program's own failure line starts with the bug's name
    own = [l for l in err.splitlines() if re.match(r"^[a-z]+-\d+: ", l)]
    msg = own[-1] if own else ("timeout" if rc is None else "exit %s" % rc if rc else "")
    if rc is not None and rc < 0:
        msg = "signal %d" % -rc
    viol, stats = read_reports(rep)
    return rc != 0, msg, viol, stats


def describe(o):
    return "%s %s in %s (first %s:%s, second %s:%s, remote %s:%s via %s, %s)" % (
        o.get("variable"), o.get("pattern"), o.get("function"),
        os.path.basename(o["first"].get("file", "")), o["first"].get("line"),
        os.path.basename(o["second"].get("file", "")), o["second"].get("line"),
        os.path.basename(o["remote"].get("file", "")), o["remote"].get("line"),
        o["remote"].get("via"),
        "prevented" if o.get("prevented") else "timed out" if o.get("timed_out")
        else "not prevented")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bug")
    ap.add_argument("--vigil-cc", required=True)
    ap.add_argument("--cc", default="clang-19")
    ap.add_argument("--flags", default="-O1 -g -pthread")
    ap.add_argument("--expect", required=True, metavar="FUNC:LINE,LINE,...",
                    help="the bug's report: the function and the lines its first and "
                         "second access may be on")
    ap.add_argument("--plain-runs", type=int, default=40)
    ap.add_argument("--find-runs", type=int, default=10)
    ap.add_argument("--find-scale", default="1", help="argv[1] of the find runs")
    ap.add_argument("--find-env", action="append", default=[], metavar="K=V")
    ap.add_argument("--prevent-runs", type=int, default=30)
    ap.add_argument("--prevent-scale", default="1", help="argv[1] of the prevent runs")
    ap.add_argument("--fixed-runs", type=int, default=3)
    ap.add_argument("--fixed-scale", default="1")
    ap.add_argument("--fixed-find-env", action="append", default=[], metavar="K=V",
                    help="environment of fixed.c's find runs (default: --find-env)")
    ap.add_argument("--fixed-allow", action="append", default=[], metavar="FUNC:VAR",
                    help="a known false positive of fixed.c (README.md, False positives): "
                         "reports of VAR in FUNC are listed but do not fail the check")
    ap.add_argument("--fixed-train", type=int, default=0, metavar="RUNS",
                    help="then train on fixed.c (VIGIL_ATOMIC_MODE=train, RUNS runs into one "
                         "whitelist) and run it again under prevent and find with that "
                         "whitelist: every report, known false positive or not, fails")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per run")
    ap.add_argument("--skip", action="append", default=[],
                    choices=["plain", "find", "prevent", "fixed"])
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    def verdict(step, good):
        """The step's suffix; clears ok when the step failed."""
        nonlocal ok
        if not good:
            ok = False
            return " [FAILED]"
        return ""

    func, _, lines = args.expect.partition(":")
    want_lines = {int(x) for x in lines.split(",") if x}
    src = os.path.join(HERE, args.bug)
    tmp = tempfile.mkdtemp(prefix="atomic-%s-" % args.bug)
    vcc = "%s --vigil-atomic %s" % (args.vigil_cc, args.flags)
    plain, vbug, vfixed = (os.path.join(tmp, n) for n in ("plain", "bug", "fixed"))
    build("%s %s" % (args.cc, args.flags), os.path.join(src, "bug.c"), plain)
    build(vcc, os.path.join(src, "bug.c"), vbug)
    build(vcc, os.path.join(src, "fixed.c"), vfixed)
    ok = True
    t_all = time.monotonic()

    if "plain" not in args.skip:
        t0 = time.monotonic()
        seen, n = None, 0
        for rnd in range(2):
            for i in range(args.plain_runs):
                n += 1
                failed, msg, _, _ = run(plain, [], {}, args.timeout, tmp)
                if failed:
                    seen = msg
                    break
            if seen:
                break
            if rnd == 0:
                print("plain: no failure in %d runs; the machine is probably loaded (the "
                      "bug's window needs two threads really running at once); retrying "
                      "%d more" % (n, args.plain_runs))
        if seen:
            print("plain: failure in run %d: %s (%.1f s)" % (n, seen, time.monotonic() - t0))
        else:
            ok = False
            print("plain: [FAILED] no failure in %d runs of the uninstrumented bug.c (expected "
                  "rate 75-100%% per run unloaded; load average %s)"
                  % (n, os.getloadavg()[0]))

    if "find" not in args.skip:
        t0 = time.monotonic()
        env = {"VIGIL_ATOMIC_MODE": "find"}
        for kv in args.find_env:
            k, _, v = kv.partition("=")
            env[k] = v
        found, n, other = None, 0, []
        for i in range(args.find_runs):
            n += 1
            _, _, viol, _ = run(vbug, [args.find_scale], env, args.timeout, tmp)
            for o in viol:
                if (o.get("function") == func and o.get("pattern") in PATTERNS and
                        o["first"].get("line") in want_lines and
                        o["second"].get("line") in want_lines):
                    found = o
                    break
                other.append(o)
            if found:
                break
        if found:
            print("find: reported in run %d: %s (%.1f s)%s" % (
                n, describe(found), time.monotonic() - t0, verdict("find", True)))
        else:
            print("find: no report in %s on lines %s in %d runs (%.1f s)%s" % (
                func, sorted(want_lines), n, time.monotonic() - t0, verdict("find", False)))
            for o in other[:5]:
                print("  other report: %s" % describe(o))

    if "prevent" not in args.skip:
        t0 = time.monotonic()
        fails, msgs, stats = 0, [], {}
        for i in range(args.prevent_runs):
            failed, msg, viol, st = run(vbug, [args.prevent_scale],
                                        {"VIGIL_ATOMIC_MODE": "prevent"}, args.timeout, tmp)
            for k, v in st.items():
                stats[k] = stats.get(k, 0) + v
            if failed:
                fails += 1
                if len(msgs) < 3:
                    msgs.append(msg)
                if args.verbose:
                    for o in viol:
                        print("  run %d: %s" % (i, describe(o)))
        print("prevent: %d failures in %d runs (scale %s; %.1f s; %s)%s" % (
            fails, args.prevent_runs, args.prevent_scale, time.monotonic() - t0,
            ", ".join("%s %d" % (k, stats.get(k, 0)) for k in STAT_KEYS[:4]),
            verdict("prevent", fails == 0)))
        for m in msgs:
            print("  prevent failure: %s" % m)

    if "fixed" not in args.skip:
        t0 = time.monotonic()
        counts, fails, seen = {}, 0, {}
        for mode in ("prevent", "find"):
            env = {"VIGIL_ATOMIC_MODE": mode}
            if mode == "find":
                for kv in args.fixed_find_env or args.find_env:
                    k, _, v = kv.partition("=")
                    env[k] = v
            counts[mode] = 0
            for i in range(args.fixed_runs):
                failed, msg, viol, _ = run(vfixed, [args.fixed_scale], env, args.timeout, tmp)
                fails += failed
                counts[mode] += len(viol)
                for o in viol:
                    key = (o.get("variable"), o.get("pattern"), o.get("function"),
                           o["first"].get("line"), o["second"].get("line"))
                    seen[key] = seen.get(key, 0) + 1
        allowed = {tuple(x.split(":", 1)) for x in args.fixed_allow}
        unknown = sum(c for k, c in seen.items() if (k[2], k[0]) not in allowed)
        print("fixed: %d reports in prevent mode, %d in find mode, %d not known false "
              "positives, %d failed runs, %d runs each (%.1f s)%s" % (
                  counts["prevent"], counts["find"], unknown, fails, args.fixed_runs,
                  time.monotonic() - t0, verdict("fixed", fails == 0 and unknown == 0)))
        for (var, pat, fn, a, b), c in sorted(seen.items(), key=str):
            print("  fixed report: %s %s in %s lines %s-%s (x%d)%s" % (
                var, pat, fn, a, b, c,
                " known false positive" if (fn, var) in allowed else " UNEXPECTED"))

    if "fixed" not in args.skip and args.fixed_train:
        t0 = time.monotonic()
        wl = os.path.join(tmp, "whitelist")
        entries = trained_runs(vfixed, args, tmp, wl)
        counts, fails = {}, 0
        for mode in ("prevent", "find"):
            env = {"VIGIL_ATOMIC_MODE": mode, "VIGIL_ATOMIC_WHITELIST": wl}
            counts[mode] = 0
            for i in range(args.fixed_runs):
                failed, msg, viol, _ = run(vfixed, [args.fixed_scale], env, args.timeout, tmp)
                fails += failed
                counts[mode] += len(viol)
        print("trained: %d whitelist entries from %d train runs; then %d reports in prevent "
              "mode, %d in find mode, %d failed runs (%.1f s)%s" % (
                  entries, args.fixed_train, counts["prevent"], counts["find"], fails,
                  time.monotonic() - t0,
                  verdict("trained", fails == 0 and not counts["prevent"] and not counts["find"])))

    shutil.rmtree(tmp, ignore_errors=True)
    print("total: %.1f s, %s" % (time.monotonic() - t_all, "ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
