#!/usr/bin/env python3
"""Before/after comparison of two vigil builds on benchmarks A-M.

    python3 bench/compare.py --base OLD/bin/vigil-cc --new build/bin/vigil-cc

Builds every benchmark of bench/src with both compilers (global and
per-thread), runs the two binaries of each (benchmark, locality) pair
interleaved in a fresh random order every round, after a shared
calibration of the bound count N, and counts instructions per bound with
callgrind (N and 2N bounds, difference / N, so start-up cancels).  Writes
bench/results/compare-<date>.md and compare-latest.json, and a plot.

`make bench-compare BASE=<git revision>` builds the revision in
build/base (a git worktree) and runs this script against the current build.
It is how a change to the engine shows that A-M did not get slower.
"""

import importlib.util
import os
import sys

# These benchmarks measure instrumentation: the static checker, on by default
# when optimising, would remove what it proves (docs/static.md).
os.environ["VIGIL_STATIC"] = "off"

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("vigil_bench_run", os.path.join(HERE, "run.py"))
R = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(R)  # re-execs under /usr/bin/python3 if deps are missing

import argparse  # noqa: E402
import concurrent.futures  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import subprocess  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def build(cc, src, defines, out):
    cmd = [cc, "-O2", "-I" + R.SRC] + ["-D" + d for d in defines] + [
        src, "-Wl,--strip-debug", "-o", out, "-lpthread"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise R.Fatal("build failed: %s\n%s" % (" ".join(cmd), (r.stdout + r.stderr)[-3000:]), 2)
    return out


def build_all(a):
    os.makedirs(a.build_dir, exist_ok=True)
    jobs = []
    for b in a.benchmarks:
        src = os.path.join(R.SRC, "bench_%s.c" % b)
        for loc in a.localities:
            d = ["PERTHREAD"] if loc == "perthread" else []
            for which, cc in (("base", a.base), ("new", a.new)):
                jobs.append(((b, loc, which), cc, src, d,
                             os.path.join(a.build_dir, "%s-%s-%s" % (b, loc, which))))
    paths = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        futs = {ex.submit(build, cc, s, d, o): k for k, cc, s, d, o in jobs}
        for f in concurrent.futures.as_completed(futs):
            paths[futs[f]] = f.result()
    return paths


def median_ratio(new, base, rng, reps=2000):
    """Ratio of medians and a 95% bootstrap interval of it."""
    new, base = np.asarray(new, float), np.asarray(base, float)
    r = float(np.median(new) / np.median(base))
    g = np.random.default_rng(rng.randrange(1 << 30))
    rs = [np.median(g.choice(new, new.size)) / np.median(g.choice(base, base.size))
          for _ in range(reps)]
    lo, hi = np.percentile(rs, [2.5, 97.5])
    return r, float(lo), float(hi)


def measure(a, paths, rng):
    out = {}
    for b in a.benchmarks:
        for loc in a.localities:
            th = a.threads if loc == "perthread" else 1
            env = {"VIGIL_ALGORITHM": a.algorithm}
            cs = [R.Config(w, paths[(b, loc, w)], "vigil", env, th) for w in ("base", "new")]
            n = cs[0].calibrate(a.target_ms * 1e6, a.max_n, a.min_n)
            cs[1].n = n
            R.interleaved(cs, a.warmup, a.rounds, rng)
            base, new = cs[0].samples, cs[1].samples
            r, lo, hi = median_ratio(new, base, rng)
            out["%s-%s" % (b, loc)] = {
                "n": n, "base": base, "new": new,
                "base_median": float(np.median(base)), "new_median": float(np.median(new)),
                "ratio": r, "ratio_ci": [lo, hi]}
            R.log("%s %-9s base %.1f ns  new %.1f ns  new/base %s [%s, %s]" % (
                b, loc, np.median(base), np.median(new), R.fr(r), R.fr(lo), R.fr(hi)))
    return out


def instructions(a, paths):
    tasks = []
    for b in a.benchmarks:
        for loc in a.localities:
            for w in ("base", "new"):
                for m in (a.callgrind_n, 2 * a.callgrind_n):
                    tasks.append(((b, loc, w, m), paths[(b, loc, w)], m))
    got = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        futs = {ex.submit(R.callgrind_ir, p, m, 1, {"VIGIL_ALGORITHM": a.algorithm}): k
                for k, p, m in tasks}
        for f in concurrent.futures.as_completed(futs):
            got[futs[f]] = f.result()
    out = {}
    for b in a.benchmarks:
        for loc in a.localities:
            per = {w: (got[(b, loc, w, 2 * a.callgrind_n)] - got[(b, loc, w, a.callgrind_n)])
                   / a.callgrind_n for w in ("base", "new")}
            out["%s-%s" % (b, loc)] = per
    return out


def report(a, res, path):
    L = []
    w = L.append
    w("# vigil before/after: benchmarks A-M (%s)\n" % res["date"])
    w("base: `%s` (%s)  \nnew: `%s` (%s)  \nalgorithm: %s; %d warm-up + %d measured "
      "rounds, both binaries of a row interleaved in a new random order each round; "
      "one N per row (calibrated on base, ~%g ms per run); per-thread rows run %d threads.\n"
      % (a.base, res["base_rev"], a.new, res["new_rev"], a.algorithm, a.warmup, a.rounds,
         a.target_ms, a.threads))
    w("| bench | locality | N | base ns/bound (median [IQR]) | new ns/bound | new/base "
      "[95% CI] | base instr/bound | new instr/bound |")
    w("|---|---|---:|---:|---:|---:|---:|---:|")
    for key, m in res["time"].items():
        b, loc = key.split("-", 1)
        sb, sn = R.summary(m["base"]), R.summary(m["new"])
        ci = res["instr"].get(key, {})
        w("| %s | %s | %d | %s | %s | %s | %s | %s |" % (
            b, loc, m["n"], R.f1(sb["median"]) + " [" + R.f1(sb["q1"]) + "-" + R.f1(sb["q3"]) + "]",
            R.f1(sn["median"]) + " [" + R.f1(sn["q1"]) + "-" + R.f1(sn["q3"]) + "]",
            "%s [%s-%s]" % (R.fr(m["ratio"]), R.fr(m["ratio_ci"][0]), R.fr(m["ratio_ci"][1])),
            R.f1(ci.get("base", float("nan"))), R.f1(ci.get("new", float("nan")))))
    w("")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def plot(res, path):
    keys = list(res["time"].keys())
    ratios = [res["time"][k]["ratio"] for k in keys]
    fig, ax = plt.subplots(figsize=(10, 3.5))
    ax.bar(range(len(keys)), ratios, color=["C0" if "global" in k else "C1" for k in keys])
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels(keys, rotation=90, fontsize=7)
    ax.set_ylabel("new / base time per bound")
    ax.set_title("vigil after vs before (median ratio; <1 is faster)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def rev(cc):
    root = os.path.dirname(os.path.dirname(os.path.realpath(cc)))
    try:
        return subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip() or "?"
    except OSError:
        return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="vigil-cc of the baseline")
    ap.add_argument("--new", default=os.path.join(R.REPO, "build", "bin", "vigil-cc"))
    ap.add_argument("--build-dir", default=os.path.join(R.REPO, "build", "bench-compare"))
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--benchmarks", default="ABCDEFGHIJKLM")
    ap.add_argument("--localities", default="global,perthread")
    ap.add_argument("--algorithm", default="tags")
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--target-ms", type=float, default=40)
    ap.add_argument("--max-n", type=int, default=10_000_000)
    ap.add_argument("--min-n", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--callgrind-n", type=int, default=100_000)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    a.localities = a.localities.split(",")
    a.base, a.new = os.path.abspath(a.base), os.path.abspath(a.new)
    try:
        paths = build_all(a)
        res = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "base_rev": rev(a.base), "new_rev": rev(a.new)}
        res["time"] = measure(a, paths, random.Random(a.seed))
        res["instr"] = instructions(a, paths)
    except R.Fatal as e:
        R.log("FATAL: %s" % e)
        sys.exit(e.code)
    os.makedirs(a.out, exist_ok=True)
    md = os.path.join(a.out, "compare-%s.md" % res["date"][:10])
    report(a, res, md)
    plot(res, os.path.join(a.out, "fig-compare.png"))
    with open(os.path.join(a.out, "compare-latest.json"), "w") as f:
        json.dump(res, f, indent=1, default=float)
    R.log("wrote %s" % md)


if __name__ == "__main__":
    main()
