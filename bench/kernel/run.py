#!/usr/bin/env python3
"""Verifying costs less than tracing: the kernel side of vigil's benchmarks.

The claim of the Linux RV paper (../shared/seeds/002_*), on this kernel:
`perf bench sched messaging` throughput with

  plain     nothing attached
  vigil     `vigil monitor wwnr` (eBPF, table-driven, in-kernel verdicts)
  ftrace    ftrace recording the same tracepoints (sched_switch,
            sched_wakeup) into files as trace-cmd record does (raw per-cpu
            pages; bench/kernel/ftrace-record.sh), for offline checking later
  bpftrace  a bpftrace script doing wwnr's checks (per-task state in a map)

Variants run interleaved in a shuffled order each round (one warm-up round,
then --rounds measured ones); we report the median total time, its IQR, and
each variant's throughput relative to plain.  The tracer is attached and
settled before the timed run and detached after it, so only the cost of
handling events is timed.

Second part: the offline checker's speed, `vigil check wwnr --trace` over a
generated trace (bench/kernel/gen_trace.py), events/s and peak RSS.

    python3 bench/kernel/run.py --vigil build/bin/vigil [--rounds 9] [--out bench/results]
"""

import argparse
import datetime
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time


def _ensure_matplotlib():
    """Plots need matplotlib (Debian: python3-matplotlib); re-run with the
    system python when the python3 on PATH lacks it, as bench/run.py does."""
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    cand = "/usr/bin/python3"
    if (os.environ.get("VIGIL_BENCH_REEXEC") != "1" and os.path.exists(cand)
            and os.path.realpath(sys.executable) != os.path.realpath(cand)):
        os.environ["VIGIL_BENCH_REEXEC"] = "1"
        os.execv(cand, [cand] + sys.argv)


_ensure_matplotlib()

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

BPFTRACE_WWNR = r"""
// wwnr's checks in bpftrace: @s[pid] = 0 unmonitored, 1 not_running, 2 running.
tracepoint:sched:sched_switch
{
  $p = args->prev_pid; $n = args->next_pid;
  if (@s[$p] == 0) {
    if (args->prev_state == 1) { @s[$p] = 1; }
  } else {
    if (@s[$p] != 2) { @violations = count(); delete(@s[$p]); } else { @s[$p] = 1; }
  }
  if (@s[$n] != 0) {
    if (@s[$n] != 1) { @violations = count(); delete(@s[$n]); } else { @s[$n] = 2; }
  }
  @events = count();
}
tracepoint:sched:sched_wakeup
{
  $p = args->pid;
  if (@s[$p] != 0) {
    if (@s[$p] != 1) { @violations = count(); delete(@s[$p]); }
  }
  @events = count();
}
"""


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def ensure_tracefs():
    if not os.path.exists("/sys/kernel/tracing/events"):
        subprocess.run(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"],
                       capture_output=True)
    return os.path.exists("/sys/kernel/tracing/events")


def perf_bench(groups, loops):
    out = sh(["perf", "bench", "sched", "messaging", "-g", str(groups), "-l", str(loops)]).stdout
    m = re.search(r"Total time:\s*([0-9.]+)", out)
    if not m:
        raise RuntimeError("perf bench printed no total time:\n" + out)
    return float(m.group(1))


class Tracer:
    """Start a tracer, let it settle, stop it; collect what it printed."""

    def __init__(self, name, argv, settle, workdir):
        self.name, self.argv, self.settle, self.workdir = name, argv, settle, workdir
        self.proc = None

    def __enter__(self):
        if self.argv:
            self.out = open(os.path.join(self.workdir, self.name + ".out"), "w+")
            self.proc = subprocess.Popen(self.argv, stdout=self.out, stderr=subprocess.STDOUT,
                                         cwd=self.workdir, start_new_session=True)
            time.sleep(self.settle)
            if self.proc.poll() is not None:
                self.out.seek(0)
                raise RuntimeError("%s exited early (%s):\n%s" % (self.name, self.proc.returncode,
                                                                 self.out.read()[-2000:]))
        return self

    def __exit__(self, *exc):
        self.text = ""
        if self.proc:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            self.out.seek(0)
            self.text = self.out.read()
            self.out.close()
        return False


def variants(args, workdir):
    bt = os.path.join(workdir, "wwnr.bt")
    with open(bt, "w") as f:
        f.write(BPFTRACE_WWNR)
    v = {"plain": None,
         "vigil": [args.vigil, "monitor", "wwnr", "--json"],
         "ftrace": [os.path.join(HERE, "ftrace-record.sh"), os.path.join(workdir, "ftrace"),
                    "sched/sched_switch", "sched/sched_wakeup"],
         "bpftrace": ["bpftrace", bt]}
    if args.vigil_old:
        # Another build's monitor in the same interleaved rounds: the BPF
        # statistics of both, side by side (e.g. before and after a change).
        v["vigil-old"] = [args.vigil_old, "monitor", "wwnr", "--json"]
    missing = []
    if args.variants:
        v = {k: a for k, a in v.items()
             if k in ("plain", "vigil-old") or k in args.variants.split(",")}
    for name, argv in list(v.items()):
        if argv and not shutil.which(argv[0]) and not os.path.exists(argv[0]):
            missing.append("%s (%s not found)" % (name, argv[0]))
            del v[name]
    return v, missing


def bpf_progs():
    """id -> (name, run_time_ns, run_cnt) of every loaded BPF program."""
    try:
        out = subprocess.run(["bpftool", "-j", "prog", "show"], text=True,
                             capture_output=True, timeout=30).stdout
        return {p["id"]: (p.get("name", "?"), p.get("run_time_ns", 0), p.get("run_cnt", 0))
                for p in json.loads(out or "[]")}
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return {}


def iqr(xs):
    if len(xs) < 2:
        return 0.0
    q = statistics.quantiles(xs, n=4)
    return q[2] - q[0]


def kernel_part(args, workdir, report):
    if os.geteuid() != 0:
        report["kernel_skipped"] = "not root: cannot attach tracers"
        return
    if not ensure_tracefs():
        report["kernel_skipped"] = "no tracefs"
        return
    vs, missing = variants(args, workdir)
    report["kernel_missing"] = missing
    samples = {k: [] for k in vs}
    notes = {k: [] for k in vs}
    order_log = []
    # The kernel's own BPF run-time statistics (kernel.bpf_stats_enabled):
    # nanoseconds and runs of the programs each BPF variant loaded, a
    # per-event cost independent of perf bench's noise.
    stats_file = "/proc/sys/kernel/bpf_stats_enabled"
    old_stats = None
    try:
        with open(stats_file) as f:
            old_stats = f.read().strip()
        with open(stats_file, "w") as f:
            f.write("1")
    except OSError:
        pass
    progstats = {k: [] for k in vs}
    for rnd in range(args.rounds + 1):
        order = list(vs)
        random.shuffle(order)
        order_log.append(order)
        for name in order:
            before = bpf_progs()
            with Tracer(name, vs[name], args.settle, workdir) as t:
                secs = perf_bench(args.groups, args.loops)
                during = bpf_progs()
            if rnd > 0:
                samples[name].append(secs)
                notes[name].append(t.text[-4000:])
                mine = [v for k, v in during.items() if k not in before]
                if mine:
                    progstats[name].append({"programs": sorted(set(v[0] for v in mine)),
                                            "run_time_ns": sum(v[1] for v in mine),
                                            "run_cnt": sum(v[2] for v in mine)})
            print("round %d %-9s %.3f s" % (rnd, name, secs), flush=True)
    if old_stats is not None:
        with open(stats_file, "w") as f:
            f.write(old_stats)
    res = {}
    base = statistics.median(samples["plain"])
    for name, xs in samples.items():
        med = statistics.median(xs)
        res[name] = {"median_s": med, "iqr_s": iqr(xs), "samples": xs,
                     "throughput_vs_plain": base / med,
                     "slowdown_pct": 100.0 * (med - base) / base}
    # What vigil saw (its JSON summary line) and what bpftrace counted.
    for text in notes.get("vigil", []):
        for line in text.splitlines():
            if '"type":"summary"' in line.replace(" ", ""):
                try:
                    res["vigil"].setdefault("summaries", []).append(json.loads(line))
                except ValueError:
                    pass
    for text in notes.get("bpftrace", []):
        m = re.search(r"@violations:\s*(\d+)", text)
        e = re.search(r"@events:\s*(\d+)", text)
        res["bpftrace"].setdefault("counts", []).append(
            {"violations": int(m.group(1)) if m else 0, "events": int(e.group(1)) if e else 0})
    for name, st in progstats.items():
        per = [x["run_time_ns"] / x["run_cnt"] for x in st if x["run_cnt"]]
        if per:
            res[name]["bpf_ns_per_run"] = {"median": statistics.median(per), "iqr": iqr(per),
                                           "runs": st}
    report["kernel"] = res
    report["kernel_order"] = order_log


def offline_part(args, workdir, report):
    gen = os.path.join(HERE, "gen_trace.py")
    trace = os.path.join(workdir, "offline.trace")
    t0 = time.time()
    sh([sys.executable, gen, "--size", "%dM" % args.trace_mb, "--violations", "5", "--seed", "1",
        trace])
    size = os.path.getsize(trace)
    runs = []
    for _ in range(args.offline_runs):
        p = subprocess.run(["/usr/bin/time", "-v", args.vigil, "check", "wwnr", "--trace", trace,
                            "--json"], text=True, capture_output=True)
        if p.returncode not in (0, 1):
            raise RuntimeError("vigil check failed:\n" + p.stderr[-2000:])
        summary = None
        for line in p.stdout.splitlines():
            if '"type":"summary"' in line.replace(" ", ""):
                summary = json.loads(line)
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
        wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([0-9.]+)", p.stderr)
        secs = None
        if wall:
            h = int(wall.group(1) or 0)
            secs = h * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
        runs.append({"summary": summary, "rss_kb": int(rss.group(1)) if rss else None,
                     "wall_s": secs})
    os.unlink(trace)
    evs = [r["summary"].get("events_per_s") for r in runs if r["summary"]]
    report["offline"] = {"trace_bytes": size, "gen_s": time.time() - t0, "runs": runs,
                         "events_per_s_median": statistics.median(evs) if evs else None,
                         "events_per_s_iqr": iqr(evs) if evs else None}


def plot(report, out_png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    k = report.get("kernel")
    if not k:
        return False
    names = list(k)
    meds = [k[n]["throughput_vs_plain"] for n in names]
    errs = []
    for n in names:
        xs = k[n]["samples"]
        base = k["plain"]["median_s"]
        q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
        errs.append([base / q[1] - base / q[2], base / q[0] - base / q[1]])
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar(names, meds, yerr=list(zip(*errs)), capsize=4,
           color=["#888", "#2a7", "#d83", "#37b", "#9c4"][:len(names)])
    ax.set_ylabel("throughput relative to plain")
    ax.set_ylim(0, 1.1)
    ax.set_title("perf bench sched messaging (median, IQR)")
    for i, m in enumerate(meds):
        ax.text(i, m + 0.02, "%.3f" % m, ha="center")
    fig.tight_layout()
    fig.savefig(out_png, dpi=120)
    return True


def markdown(report):
    L = ["# Kernel monitors: verifying vs tracing (%s)" % report["date"], "",
         "Machine: %s, kernel %s, %d cpus.  Commit %s.  Command: `%s`." % (
             report["machine"], report["kernel_release"], os.cpu_count(), report["commit"],
             report["command"]), ""]
    k = report.get("kernel")
    if k:
        L += ["`perf bench sched messaging -g %d -l %d`, %d measured rounds after one warm-up, "
              "variants interleaved in shuffled order." % (report["groups"], report["loops"],
                                                            report["rounds"]), "",
              "| variant | median time (s) | IQR (s) | throughput vs plain | slowdown |",
              "|---|---|---|---|---|"]
        for n, r in k.items():
            L.append("| %s | %.3f | %.3f | %.3f | %+.1f%% |" % (
                n, r["median_s"], r["iqr_s"], r["throughput_vs_plain"], r["slowdown_pct"]))
        L.append("")
        if "vigil" in k and "ftrace" in k and "plain" in k:
            base = k["plain"]["median_s"]
            cv = k["vigil"]["median_s"] - base
            cf = k["ftrace"]["median_s"] - base
            L.append("Added time, vigil / ftrace: %.2f (%.3f s vs %.3f s per run)." % (
                cv / cf if cf > 0 else float("nan"), cv, cf))
        if "vigil" in k and "bpftrace" in k and "plain" in k:
            base = k["plain"]["median_s"]
            cv = k["vigil"]["median_s"] - base
            cb = k["bpftrace"]["median_s"] - base
            L.append("Added time, vigil / bpftrace: %.2f (%.3f s vs %.3f s per run)." % (
                cv / cb if cb > 0 else float("nan"), cv, cb))
        per = [(n, r["bpf_ns_per_run"]) for n, r in k.items() if "bpf_ns_per_run" in r]
        if per:
            L.append("")
            L.append("Kernel-measured cost of the BPF programs each variant loaded "
                     "(kernel.bpf_stats_enabled: run_time_ns / run_cnt, summed over the "
                     "variant's programs, median over rounds):")
            L.append("")
            for n, b in per:
                progs = b["runs"][0]["programs"] if b["runs"] else []
                L.append("- %s: %.0f ns per program run (IQR %.0f), programs %s" % (
                    n, b["median"], b["iqr"], ", ".join(progs)))
        s = k.get("vigil", {}).get("summaries")
        if s:
            L.append("")
            L.append("vigil's own counts per run (events seen / processed / violations): " +
                     ", ".join("%s/%s/%s" % (x.get("events_seen"), x.get("events_processed"),
                                             x.get("violations")) for x in s))
        c = k.get("bpftrace", {}).get("counts")
        if c:
            L.append("bpftrace's counts per run (events / violations): " +
                     ", ".join("%d/%d" % (x["events"], x["violations"]) for x in c))
        L.append("")
    elif report.get("kernel_skipped"):
        L += ["Kernel part skipped: %s." % report["kernel_skipped"], ""]
    if report.get("kernel_missing"):
        L += ["Variants not run: %s." % ", ".join(report["kernel_missing"]), ""]
    o = report.get("offline")
    if o:
        L += ["## Offline checker", "",
              "`vigil check wwnr --trace` over a generated %.0f MB ftrace text trace "
              "(sched_switch + sched_wakeup, 5 seeded violations), %d runs:" % (
                  o["trace_bytes"] / 1e6, len(o["runs"])), ""]
        for r in o["runs"]:
            s = r["summary"] or {}
            L.append("- %s events in %s s wall: %s events/s, peak RSS %s kB, %s violations" % (
                s.get("events"), r["wall_s"], s.get("events_per_s"), r["rss_kb"],
                s.get("violations")))
        if o.get("events_per_s_median"):
            L.append("")
            L.append("Median: %.2f M events/s (IQR %.2f M)." % (
                o["events_per_s_median"] / 1e6, (o["events_per_s_iqr"] or 0) / 1e6))
        L.append("")
    return "\n".join(L)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vigil", default=os.path.join(ROOT, "build/bin/vigil"))
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--groups", type=int, default=5)
    ap.add_argument("--loops", type=int, default=300)
    ap.add_argument("--settle", type=float, default=1.5)
    ap.add_argument("--trace-mb", type=int, default=1024)
    ap.add_argument("--offline-runs", type=int, default=3)
    ap.add_argument("--variants", help="comma-separated subset of vigil,ftrace,bpftrace")
    ap.add_argument("--vigil-old", help="another vigil build: its `monitor wwnr` runs as variant "
                    "vigil-old in the same rounds")
    ap.add_argument("--no-kernel", action="store_true")
    ap.add_argument("--no-offline", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results"))
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite the report and plot from OUT/kernel.json, measure nothing")
    args = ap.parse_args()
    if args.report_only:
        with open(os.path.join(args.out, "kernel.json")) as f:
            report = json.load(f)
        if plot(report, os.path.join(args.out, "fig-kernel-throughput.png")):
            report["plot"] = "fig-kernel-throughput.png"
        md = markdown(report)
        with open(os.path.join(args.out, "kernel-%s.md" % report["date"]), "w") as f:
            f.write(md + "\n")
        print(md)
        return
    args.vigil = os.path.abspath(args.vigil)
    os.makedirs(args.out, exist_ok=True)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], text=True,
                            capture_output=True).stdout.strip()
    report = {"date": datetime.date.today().isoformat(), "commit": commit,
              "machine": os.uname().nodename, "kernel_release": os.uname().release,
              "groups": args.groups, "loops": args.loops, "rounds": args.rounds,
              "command": " ".join(["python3", "bench/kernel/run.py"] + sys.argv[1:])}
    with tempfile.TemporaryDirectory(prefix="vigil-kbench-") as work:
        if not args.no_kernel:
            kernel_part(args, work, report)
        if not args.no_offline:
            offline_part(args, work, report)
    with open(os.path.join(args.out, "kernel.json"), "w") as f:
        json.dump(report, f, indent=1)
    if plot(report, os.path.join(args.out, "fig-kernel-throughput.png")):
        report["plot"] = "fig-kernel-throughput.png"
    md = markdown(report)
    with open(os.path.join(args.out, "kernel-%s.md" % report["date"]), "w") as f:
        f.write(md + "\n")
    print(md)


if __name__ == "__main__":
    main()
