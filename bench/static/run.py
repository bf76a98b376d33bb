#!/usr/bin/env python3
"""The lwIP echo server with and without vigil's safer interface (issue 13,
Collie's echo benchmark, 2017; examples/lwip/README.md).

Three builds of the same program (examples/lwip: the echo server echo.c,
the driver echo_main.c, and the load generator echo_client.c, compiled once
with plain clang and linked into all three):

  unmodified    clang-19 -O2 -flto=full, no vigil: lwIP's callbacks are the
                application's own
  instrumented  vigil-cc --vigil-static=off -O2: the callbacks go through
                vigil_lwip.h's wrappers and its three assertions are checked
                at run time
  pruned        vigil-cc --vigil-static=prune -O2: the same, after the static
                checker proved the assertions and removed them

Each runs the in-process echo benchmark on Debian's liblwip 2.1.3 (traffic
looped back inside lwIP, nothing leaves the process), 512-byte messages:

  ping-pong     4 connections, one message in flight on each (Collie's
                load generator: every client thread writes a message and
                reads the echo), MESSAGES in all
  stream        4 connections, as many messages in flight as the window
                takes

Rounds alternate the builds (a new random order each round); throughput is
messages echoed per second (median over the rounds, min–max), each build's
ratio to unmodified is the median of its per-round ratios.  Instructions
per message come from one callgrind run of each build (total Ir / messages,
and the Ir spent inside the server's callbacks).

    python3 bench/static/run.py                  # about 1-2 minutes on 2 cores
    python3 bench/static/run.py --quick --out /tmp/s   # smoke test

Writes OUT/static-YYYY-MM-DD.md, .json (every raw sample) and .png.  Exit
status: 0 success; 2 a build failed or a tool is missing; 4 some run failed
(reported, not counted).
"""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
REPO = os.path.dirname(BENCH)
EXAMPLE = os.path.join(REPO, "examples", "lwip")


def _load_suite():
    """bench/run.py as a module (statistics, logging; it re-runs this script
    with /usr/bin/python3 when the python3 on PATH lacks scipy/matplotlib)."""
    spec = importlib.util.spec_from_file_location("vigil_bench_suite",
                                                  os.path.join(BENCH, "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


base = _load_suite()

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import shlex  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

log, summary, Fatal = base.log, base.summary, base.Fatal

BUILDS = ["unmodified", "instrumented", "pruned"]
# The A/A control: the unmodified binary once more each round, compared
# with unmodified like the others; its ratio shows the measurement noise.
RUNS = BUILDS + ["control"]
LABEL = {"unmodified": "unmodified (clang -O2)", "instrumented": "instrumented (static off)",
         "pruned": "pruned (static prune)", "control": "unmodified again (A/A control)"}
TARGET = {"instrumented": 0.95, "pruned": 0.994}
WORKLOADS = ["ping-pong", "stream"]
CONNECTIONS = 4
SIZE = 512
LWIP_CFLAGS = ["-I/usr/include/lwip"]
LWIP_LIBS = ["-llwip", "-lpthread"]
# DWARF 4: valgrind 3.19 (callgrind) cannot read clang 19's default DWARF 5
CFLAGS = ["-O2", "-g", "-gdwarf-4", "-std=c11", "-Wall", "-Wextra"]
OUT_RE = re.compile(r"echo: (\d+) messages of (\d+) bytes, (\d+) connections, (\S+): ([\d.]+) s, "
                    r"(\d+) messages/s, ([\d.]+) MB/s, mismatches (\d+), failed connections (\d+)")
CALLBACKS = ["echo_accept", "echo_recv", "echo_sent", "echo_poll", "echo_err"]
CG_RE = re.compile(r"^\s*([\d,]+)\s+\([\s\d.]+%\)\s+(\S+?):(\w+)\s+\[")


class RunError(Exception):
    pass


# --------------------------------------------------------------------------
# building


def source_key(a):
    """What a build depends on: the example's sources, the toolchain (vigil-cc,
    its plugins and runtime, clang) and the flags."""
    h = hashlib.sha256()
    for n in sorted(os.listdir(EXAMPLE)):
        if n.endswith((".c", ".h")):
            h.update(n.encode() + base.sha256_file(os.path.join(EXAMPLE, n)).encode())
    root = os.path.dirname(os.path.dirname(os.path.realpath(a.vigil_cc)))
    for p in [os.path.realpath(a.vigil_cc)] + [os.path.join(root, "lib", n) for n in
                                              sorted(os.listdir(os.path.join(root, "lib")))]:
        if os.path.isfile(p):
            h.update(p.encode() + base.sha256_file(p).encode())
    h.update(base.sh([a.clang, "--version"]).encode())
    return h.hexdigest()


def build(a, name, cmd, key):
    """cmd -o build_dir/name, unless already built from the same sources;
    returns (path, the command's output)."""
    out = os.path.join(a.build_dir, name)
    path, output, _ = base.cached_build(name, cmd + ["-o", out], out, key, timeout=600)
    return path, output


def build_all(a):
    os.makedirs(a.build_dir, exist_ok=True)
    key = source_key(a)
    src = lambda *names: [os.path.join(EXAMPLE, n) for n in names]  # noqa: E731
    client, _ = build(a, "echo_client.o", [a.clang] + CFLAGS + LWIP_CFLAGS +
                      ["-c"] + src("echo_client.c"), key)
    server = src("echo.c", "echo_main.c")
    vig = src("vigil_lwip.c")
    cmds = {
        "unmodified": [a.clang] + CFLAGS + ["-flto=full", "-fuse-ld=lld"] + LWIP_CFLAGS,
        "instrumented": [a.vigil_cc, "--vigil-static=off"] + CFLAGS + LWIP_CFLAGS,
        "pruned": [a.vigil_cc, "--vigil-static=prune"] + CFLAGS + LWIP_CFLAGS,
        "report": [a.vigil_cc, "--vigil-static=report"] + CFLAGS + LWIP_CFLAGS,
    }
    paths, outputs = {}, {}
    for b, cmd in cmds.items():
        files = server + ([] if b == "unmodified" else vig) + [client]
        paths[b], outputs[b] = build(a, "echo-" + b, cmd + files + LWIP_LIBS, key)
        outputs[b + "_cmd"] = shlex.join(cmd + files + LWIP_LIBS)
    return paths, outputs


def verdicts(report_output):
    """The static checker's lines of the report build, without the warnings."""
    return [line for line in report_output.splitlines() if line.startswith("vigil: static:")]


# --------------------------------------------------------------------------
# running


def run_echo(a, path, workload, messages, prefix=()):
    """One run: the parsed result line plus the process's CPU time."""
    cmd = list(prefix) + [path, "-c", str(CONNECTIONS), "-s", str(SIZE), "-m",
                          "stream" if workload == "stream" else "pingpong", str(messages)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=base.clean_env({}))
        try:
            _, status, ru = os.wait4(p.pid, 0)
        except KeyboardInterrupt:
            p.kill()
            raise
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - t
        out.seek(0)
        err.seek(0)
        text, etext = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    m = OUT_RE.search(text)
    if p.returncode != 0 or not m:
        raise RunError("%s: exit %d: %s %s" % (shlex.join(cmd), p.returncode, text.strip(),
                                               etext.strip()[-400:]))
    got, mism, failed = int(m.group(1)), int(m.group(8)), int(m.group(9))
    if got != messages or mism or failed:
        raise RunError("%s: %s" % (shlex.join(cmd), text.strip()))
    return {"messages": got, "seconds": float(m.group(5)), "msgs_per_s": float(m.group(6)),
            "mb_per_s": float(m.group(7)), "wall": wall,
            "cpu_s": ru.ru_utime + ru.ru_stime, "stderr_tail": etext[-200:]}


def rounds(a, paths, rng):
    """Every build once a round per workload, in a new random order."""
    paths = dict(paths, control=paths["unmodified"])
    samples = {(w, b): [] for w in WORKLOADS for b in RUNS}
    failures = []
    for w in WORKLOADS:  # warm-up: page cache, first touch of lwIP's heap
        for b in BUILDS:
            run_echo(a, paths[b], w, a.messages[w] // 10)
    for r in range(a.rounds):
        # a workload's three runs back to back, so that the runs a per-round
        # ratio compares are a fraction of a second apart
        order = []
        for w in rng.sample(WORKLOADS, len(WORKLOADS)):
            order += [(w, b) for b in rng.sample(RUNS, len(RUNS))]
        t = time.monotonic()
        for w, b in order:
            try:
                s = run_echo(a, paths[b], w, a.messages[w])
                s["round"] = r
                samples[(w, b)].append(s)
            except RunError as e:
                failures.append("round %d, %s/%s: %s" % (r + 1, w, b, e))
        log("round %d/%d: %.1f s, load %.1f" % (r + 1, a.rounds, time.monotonic() - t,
                                                os.getloadavg()[0]))
    return samples, failures


def callgrind(a, path, workdir):
    """Total Ir of a ping-pong run, and the inclusive Ir of the server's
    callbacks (the wrapper fn__vigil where there is one: it holds fn)."""
    cg = os.path.join(workdir, "cg.%s" % os.path.basename(path))
    run_echo(a, path, "ping-pong", a.callgrind_messages,
             prefix=["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg])
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", cg],
                         capture_output=True, text=True, timeout=300).stdout
    total, incl = None, {}
    for line in ann.splitlines():
        if total is None and line.strip().endswith("PROGRAM TOTALS"):
            total = int(line.split()[0].replace(",", ""))
        m = CG_RE.match(line)
        if m and m.group(2).endswith("echo.c"):
            incl[m.group(3)] = incl.get(m.group(3), 0) + int(m.group(1).replace(",", ""))
    cb = sum(incl.get(f + "__vigil", incl.get(f, 0)) for f in CALLBACKS)
    n = a.callgrind_messages
    return {"ir": total, "messages": n, "ir_per_message": total / n if total else None,
            "callback_ir": cb, "callback_ir_per_message": cb / n,
            "callbacks": {k: v for k, v in incl.items() if k.split("__")[0] in CALLBACKS}}


# --------------------------------------------------------------------------
# analysis and report


def analyse(res):
    an = {}
    for w in WORKLOADS:
        base_by_round = {s["round"]: s["msgs_per_s"]
                         for s in res["samples"]["%s/unmodified" % w]}
        base_med = base_best = None
        for b in RUNS:
            ss = res["samples"]["%s/%s" % (w, b)]
            if not ss:
                an["%s/%s" % (w, b)] = {"n": 0}
                continue
            tp = [s["msgs_per_s"] for s in ss]
            cpu = [1e6 * s["cpu_s"] / s["messages"] for s in ss]
            d = {"n": len(ss), "msgs_per_s": summary(tp), "min": min(tp), "max": max(tp),
                 "mb_per_s": summary([s["mb_per_s"] for s in ss]),
                 "cpu_us_per_message": summary(cpu)}
            if b == "unmodified":
                base_med, base_best = d["msgs_per_s"]["median"], max(tp)
            else:
                pr = [s["msgs_per_s"] / base_by_round[s["round"]] for s in ss
                      if s["round"] in base_by_round]
                d["ratio_of_medians"] = d["msgs_per_s"]["median"] / base_med if base_med else None
                d["ratio"] = float(np.median(pr)) if pr else None
                d["ratio_rounds"] = dict(summary(pr), min=min(pr), max=max(pr)) if pr else {}
                # the least disturbed run of each build: robust to slow-downs
                # caused by other load on the machine, which only lower it
                d["ratio_best"] = max(tp) / base_best if base_best else None
            an["%s/%s" % (w, b)] = d
    cg = res.get("callgrind", {})
    if cg.get("unmodified", {}).get("ir_per_message"):
        for b in BUILDS[1:]:
            if cg.get(b, {}).get("ir_per_message"):
                cg[b]["ir_ratio"] = cg[b]["ir_per_message"] / cg["unmodified"]["ir_per_message"]
                cg[b]["ir_added_per_message"] = (cg[b]["ir_per_message"] -
                                                 cg["unmodified"]["ir_per_message"])
    return an


def targets(res):
    """One line per target: judged on ping-pong's median per-round ratio,
    with the best-run ratio and callgrind's instruction ratio beside it."""
    out = []
    for b, t in TARGET.items():
        d = res["analysis"].get("ping-pong/%s" % b, {})
        if d.get("ratio") is None:
            continue
        rr = d["ratio_rounds"]
        ir = res.get("callgrind", {}).get(b, {}).get("ir_ratio")
        out.append("%s: %.1f%% of unmodified throughput (per-round ratios Q1–Q3 %.1f–%.1f%%, "
                   "best runs %.1f%%%s; target >= %.1f%%: %s)" % (
                       b, 100 * d["ratio"], 100 * rr["q1"], 100 * rr["q3"],
                       100 * d["ratio_best"],
                       ", instructions/message %.2f%% of unmodified's" % (100 * ir) if ir else "",
                       100 * t, "met" if d["ratio"] >= t else "missed"))
    d = res["analysis"].get("ping-pong/control", {})
    if d.get("ratio") is not None:
        out.append("A/A control (unmodified against itself): %.1f%% (per-round ratios Q1–Q3 "
                   "%.1f–%.1f%%): the measurement's noise" % (
                       100 * d["ratio"], 100 * d["ratio_rounds"]["q1"],
                       100 * d["ratio_rounds"]["q3"]))
    return out


def fk(x):
    if x is None:
        return "–"
    return "%.0f k" % (x / 1e3) if x >= 1e4 else "%.0f" % x


def write_report(res, path):
    env, an, p = res["environment"], res["analysis"], res["params"]
    L = ["# The lwIP echo server, unmodified, instrumented and pruned — %s" % env["date"][:10], "",
         "`python3 bench/static/run.py` (part of `make bench`); %d interleaved rounds; %s; %s, "
         "%d CPUs; vigil %s; lwIP %s (Debian liblwip-dev); load average %.1f at start, %.1f at "
         "end; seed %d; %.0f s in all." % (
             p["rounds"], env["cpu"], env["kernel"], env["cpus"], env["vigil_git"], env["lwip"],
             env["loadavg_start"][0], env["loadavg_end"][0], p["seed"], res["seconds"]["total"]),
         "",
         "The echo server of examples/lwip and its load generator in one process, traffic "
         "looped back inside lwIP; %d-byte messages, %d connections; **ping-pong**: one message "
         "in flight per connection (Collie's load generator), %d messages a run; **stream**: "
         "as many as the window takes, %d a run. Every byte echoed is checked. Throughput = "
         "messages / the client's time from connecting to the last byte echoed. Medians over "
         "the rounds, min–max; \"× unmodified\" is the median of the per-round ratios (each run "
         "divided by the unmodified run of its round, run next to it), with their quartiles "
         "and range; \"best ÷ best\" divides the build's fastest run by unmodified's fastest "
         "(other load on the machine only slows a run down). The A/A control runs the "
         "unmodified binary a second time each round and is compared like the others: how far "
         "its ratio strays from 1 is the noise of the measurement. CPU time: user + system of "
         "the whole process." % (SIZE, CONNECTIONS, p["messages_pingpong"],
                                          p["messages_stream"]), ""]
    L += ["## Throughput", "",
          "| workload | build | n | messages/s (median) | min–max | MB/s | × unmodified "
          "(median per-round ratio) | per-round Q1–Q3 | per-round min–max | best ÷ best | "
          "CPU µs/message |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for w in WORKLOADS:
        for b in RUNS:
            d = an["%s/%s" % (w, b)]
            if not d["n"]:
                L.append("| %s | %s | 0 | failed | | | | | | | |" % (w, LABEL[b]))
                continue
            rr = d.get("ratio_rounds", {})
            L.append("| %s | %s | %d | %s | %s–%s | %.0f | %s | %s | %s | %s | %.3f |" % (
                w, LABEL[b], d["n"], fk(d["msgs_per_s"]["median"]), fk(d["min"]), fk(d["max"]),
                d["mb_per_s"]["median"], "%.3f" % d["ratio"] if d.get("ratio") else "1",
                "%.3f–%.3f" % (rr["q1"], rr["q3"]) if rr else "–",
                "%.3f–%.3f" % (rr["min"], rr["max"]) if rr else "–",
                "%.3f" % d["ratio_best"] if d.get("ratio_best") else "1",
                d["cpu_us_per_message"]["median"]))
    L += [""] + ["- " + t for t in targets(res)] + [""]
    L += write_callgrind(res) + write_verdicts(res)
    if res["failures"]:
        L += ["## Failed runs (not counted)", ""] + ["- " + f for f in res["failures"]] + [""]
    with open(path, "w") as fh:
        fh.write("\n".join(L))


def write_callgrind(res):
    cg = res.get("callgrind")
    if not cg:
        return []
    n = cg["unmodified"]["messages"]
    L = ["## Instructions (callgrind, ping-pong, %d messages)" % n, "",
         "Whole process: lwIP, the load generator, the server and libvigil's start-up. The "
         "server's callbacks: Ir inside accept, recv, sent, poll and err (with what they call "
         "in lwIP), through the wrapper where there is one.", "",
         "| build | Ir | Ir/message | × unmodified | added Ir/message | callbacks Ir/message |",
         "|---|---|---|---|---|---|"]
    for b in BUILDS:
        c = cg[b]
        L.append("| %s | %s | %.1f | %s | %s | %.1f |" % (
            LABEL[b], format(c["ir"], ","), c["ir_per_message"],
            "%.4f" % c["ir_ratio"] if "ir_ratio" in c else "1",
            "%+.1f" % c["ir_added_per_message"] if "ir_added_per_message" in c else "–",
            c["callback_ir_per_message"]))
    return L + [""]


def write_verdicts(res):
    L = ["## Static verdicts (`--vigil-static=report`)", "", "```"]
    L += res["verdicts"] or ["(none printed)"]
    L += ["```", "", "Prune build: `%s`" % (res["prune_summary"] or "–"), "",
          "## Builds", ""]
    for b in BUILDS:
        L.append("- %s: `%s`" % (b, res["commands"][b]))
    return L + [""]


def plot(res, path):
    an, cg = res["analysis"], res.get("callgrind", {})
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    ax = axes[0]
    width = 0.35
    for i, w in enumerate(WORKLOADS):
        ys, lo, hi = [], [], []
        for b in RUNS:
            d = an["%s/%s" % (w, b)]
            r = d.get("ratio", 1.0) if b != "unmodified" else 1.0
            rr = d.get("ratio_rounds", {"q1": r, "q3": r})
            ys.append(r or 0)
            lo.append(max(0, (r or 0) - rr["q1"]))
            hi.append(max(0, rr["q3"] - (r or 0)))
        x = np.arange(len(RUNS)) + i * width
        ax.bar(x, ys, width, yerr=[lo, hi], capsize=3, label=w)
    for b, t in TARGET.items():
        ax.axhline(t, color="g" if b == "pruned" else "orange", ls="--", lw=0.8,
                   label="target %s %.1f%%" % (b, 100 * t))
    ax.set_xticks(np.arange(len(RUNS)) + width / 2)
    ax.set_xticklabels([LABEL[b].replace(" (", "\n(") for b in RUNS], fontsize=8)
    ax.set_ylim(0.6, 1.3)
    ax.set_ylabel("throughput ÷ unmodified\n(median per-round ratio, bars Q1–Q3)")
    ax.set_title("lwIP echo, %d-byte messages" % SIZE)
    ax.legend(fontsize=7, loc="upper left", ncol=2)
    ax = axes[1]
    if cg:
        ys = [cg[b]["ir_per_message"] for b in BUILDS]
        cb = [cg[b]["callback_ir_per_message"] for b in BUILDS]
        x = np.arange(len(BUILDS))
        ax.bar(x, ys, 0.6, label="whole process")
        ax.bar(x, cb, 0.6, label="server callbacks")
        for xi, y in zip(x, ys):
            ax.text(xi, y, "%.0f" % y, ha="center", va="bottom", fontsize=8)
        ax.set_xticks(x)
        ax.set_xticklabels([LABEL[b].replace(" (", "\n(") for b in BUILDS], fontsize=8)
        ax.set_ylim(0, 1.15 * max(ys))
        ax.set_ylabel("instructions per message (callgrind)")
        ax.set_title("Instructions per echoed message (ping-pong)")
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --------------------------------------------------------------------------
# driver


def environment(a):
    return base.machine(a.clang, lwip=base.sh(["pkg-config", "--modversion", "lwip"]))


def measure(a):
    for tool in [a.clang, a.vigil_cc, "pkg-config"] + \
            ([] if a.no_callgrind else ["valgrind", "callgrind_annotate"]):
        if not shutil.which(tool):
            raise Fatal("%s not found (make build; Debian: clang-19, valgrind, pkg-config)" % tool,
                        2)
    if not os.path.exists("/usr/include/lwip/lwip/tcp.h"):
        raise Fatal("lwIP's headers are missing (Debian: apt-get install liblwip-dev)", 2)
    t0 = time.monotonic()
    res = {"environment": environment(a),
           "params": {k: v for k, v in vars(a).items()
                      if isinstance(v, (int, float, str, bool))}}
    res["params"].update(messages_pingpong=a.messages["ping-pong"],
                         messages_stream=a.messages["stream"])
    paths, outputs = build_all(a)
    res["verdicts"] = verdicts(outputs["report"])
    prune = [line for line in outputs["pruned"].splitlines() if "assertions:" in line]
    res["prune_summary"] = prune[-1] if prune else None
    res["commands"] = {b: outputs[b + "_cmd"] for b in BUILDS}
    res["seconds"] = {"build": time.monotonic() - t0}
    log("builds ready (%.1f s); %s" % (res["seconds"]["build"], res["prune_summary"]))
    t = time.monotonic()
    samples, res["failures"] = rounds(a, paths, random.Random(a.seed))
    res["samples"] = {"%s/%s" % k: v for k, v in samples.items()}
    res["seconds"]["rounds"] = time.monotonic() - t
    if not a.no_callgrind:
        t = time.monotonic()
        with tempfile.TemporaryDirectory() as d:
            res["callgrind"] = {b: callgrind(a, paths[b], d) for b in BUILDS}
        res["seconds"]["callgrind"] = time.monotonic() - t
        log("callgrind: %s Ir/message (%.1f s)" % (
            ", ".join("%s %.0f" % (b, c["ir_per_message"]) for b, c in res["callgrind"].items()),
            res["seconds"]["callgrind"]))
    res["environment"]["loadavg_end"] = os.getloadavg()
    res["seconds"]["total"] = time.monotonic() - t0
    return res


def write_outputs(res, out):
    os.makedirs(out, exist_ok=True)
    res["analysis"] = analyse(res)
    stem = os.path.join(out, "static-%s" % res["environment"]["date"][:10])
    with open(stem + ".json", "w") as fh:
        json.dump(res, fh, indent=1, default=float)
    write_report(res, stem + ".md")
    plot(res, stem + ".png")
    return stem


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vigil-cc", default=os.path.join(REPO, "build", "bin", "vigil-cc"))
    ap.add_argument("--clang", default="clang-19")
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "bench", "static"))
    ap.add_argument("--out", default=os.path.join(BENCH, "results"))
    ap.add_argument("--quick", action="store_true", help="smoke test: small runs, 2 rounds")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--report-only", metavar="JSON",
                    help="rewrite the report and plot from a previous static-DATE.json")
    q = "--quick" in sys.argv
    ap.add_argument("--rounds", type=int, default=2 if q else 60)
    ap.add_argument("--pingpong-messages", type=int, default=20000 if q else 60000)
    ap.add_argument("--stream-messages", type=int, default=20000 if q else 80000)
    ap.add_argument("--callgrind-messages", type=int, default=4000 if q else 20000)
    a = ap.parse_args()
    if a.seed is None:
        a.seed = random.SystemRandom().randrange(1 << 31)
    a.messages = {"ping-pong": a.pingpong_messages, "stream": a.stream_messages}
    a.vigil_cc = os.path.abspath(a.vigil_cc)
    a.build_dir, a.out = os.path.abspath(a.build_dir), os.path.abspath(a.out)
    return a


def main():
    a = parse_args()
    if a.report_only:
        with open(a.report_only) as fh:
            res = json.load(fh)
        log("rewrote %s.md/.png" % write_outputs(res, a.out))
        return
    try:
        res = measure(a)
    except (Fatal, RunError) as e:
        log("FATAL: %s" % e)
        sys.exit(getattr(e, "code", 4))
    stem = write_outputs(res, a.out)
    log("wrote %s.md, .json, .png; total %.0f s" % (stem, res["seconds"]["total"]))
    for line in targets(res):
        log(line)
    if res["failures"]:
        log("%d run(s) failed (listed in the report)" % len(res["failures"]))
        sys.exit(4)


if __name__ == "__main__":
    main()
