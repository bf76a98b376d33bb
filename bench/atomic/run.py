#!/usr/bin/env python3
"""vigil atomic regions (Kivati, seed 004) on real multithreaded workloads.

Two real C programs, unmodified (bench/atomic/workloads/README.md):

  civetweb  CivetWeb 1.16's stand-alone server (4 worker threads) serving a
            4 KiB file to loadgen.c (4 keep-alive connections, a fixed
            number of requests) over 127.0.0.1; measure: the load
            generator's elapsed time (and its latency percentiles)
  pigz      pigz 2.8 (-p 2) compressing a fixed generated text file to
            /dev/null; measure: wall time

each built as plain clang-19 -O2, vigil-cc --vigil-atomic (run in prevent,
find and prevent-with-a-trained-whitelist mode: the same binary, by
environment), vigil-cc --vigil-atomic=watchpoints (prevent) and clang-19
-fsanitize=thread, run interleaved (every round all configurations in a new
random order), medians and IQR, ratios to plain, TSan against vigil.  Per
vigil run, the counters of its VIGIL_REPORT "atomic-stats" line per second
(the paper's Table 4 and Table 8: begins, ends, remotes, holds, timeouts,
unmonitored ARs); one more run of every configuration under `perf stat`
counts system calls, futex calls, ioctls and signals (traps); callgrind
counts instructions of pigz plain vs vigil on a smaller input.

    python3 bench/atomic/run.py                 # about 3-4 minutes on 2 cores
    python3 bench/atomic/run.py --quick --out /tmp/a   # smoke test

Writes OUT/atomic-YYYY-MM-DD.md, OUT/atomic-YYYY-MM-DD.json (every raw
sample) and OUT/atomic-YYYY-MM-DD.png.  Exit status: 0 success; 2 a build
failed or a tool is missing; 4 some run failed or timed out (reported, not
counted).
"""

import importlib.util
import os
import sys

# These benchmarks measure instrumentation: the static checker, on by default
# when optimising, would remove what it proves (docs/static.md).
os.environ["VIGIL_STATIC"] = "off"

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
REPO = os.path.dirname(BENCH)
WL = os.path.join(HERE, "workloads")


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
import shutil  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

log, summary, Fatal = base.log, base.summary, base.Fatal

CW_FLAGS = ["-DNO_SSL", "-DNO_CGI", "-DNO_CACHING", "-I" + os.path.join(WL, "civetweb", "include"),
            os.path.join(WL, "civetweb", "src", "civetweb.c"),
            os.path.join(WL, "civetweb", "src", "main.c"), "-ldl"]
PZ_FLAGS = ["-DNOZOPFLI"] + [os.path.join(WL, "pigz", f) for f in ("pigz.c", "yarn.c", "try.c")] + \
    ["-lz", "-lm"]
WORKLOADS = {"civetweb": CW_FLAGS, "pigz": PZ_FLAGS}
BUILDS = ["plain", "vigil", "watch", "tsan"]
# configuration -> (build, environment)
VARIANTS = {
    "plain": ("plain", {}),
    "prevent": ("vigil", {"VIGIL_ATOMIC_MODE": "prevent"}),
    "find": ("vigil", {"VIGIL_ATOMIC_MODE": "find"}),
    "trained": ("vigil", {"VIGIL_ATOMIC_MODE": "prevent"}),  # + the whitelist of train mode
    "watch": ("watch", {"VIGIL_ATOMIC_MODE": "prevent"}),
    "tsan": ("tsan", {}),
}
# Find mode pauses a begin for 20 ms (every AR's first, then 1 in 100):
# on the server that is about 100x slower, so it runs a fraction of the work
# and its time is scaled up to the whole (said in the report).
SCALE = {("civetweb", "find"): 20, ("pigz", "find"): 4}
LABEL = {"plain": "plain clang -O2", "prevent": "vigil prevent", "find": "vigil find",
         "trained": "vigil prevent, trained whitelist", "watch": "vigil watchpoints (prevent)",
         "tsan": "ThreadSanitizer"}
STAT_KEYS = ["begins", "ends", "clears", "self_loops", "whitelisted", "unmonitored_no_slot",
             "unmonitored_no_watchpoint", "unmonitored_thread_full", "remotes", "remote_repeats",
             "held", "timeouts", "serializable", "violations", "prevented", "pauses"]
LOADGEN_RE = re.compile(r"requests (\d+) errors (\d+) reconnects (\d+) elapsed_ns (\d+) rps ([\d.]+) "
                        r"p50_us (\d+) p90_us (\d+) p99_us (\d+) bytes (\d+)")
PERF_EVENTS = ["raw_syscalls:sys_enter", "syscalls:sys_enter_futex", "syscalls:sys_enter_ioctl",
               "signal:signal_deliver", "context-switches"]
SERVER_THREADS = 4
CONNECTIONS = 4
PAGE_BYTES = 4096


class RunError(Exception):
    pass


# --------------------------------------------------------------------------
# building and inputs


def toolchain_id(a):
    h = hashlib.sha256()
    root = os.path.dirname(os.path.dirname(os.path.realpath(a.vigil_cc)))
    for p in [os.path.realpath(a.vigil_cc)] + [os.path.join(root, "lib", n) for n in
                                              sorted(os.listdir(os.path.join(root, "lib")))]:
        if os.path.isfile(p):
            h.update(p.encode() + base.sha256_file(p).encode())
    h.update(base.sh([a.clang, "--version"]).encode())
    return h.hexdigest()


def tree_hash(d):
    h = hashlib.sha256()
    for root, _, files in sorted(os.walk(d)):
        for f in sorted(files):
            p = os.path.join(root, f)
            h.update(p.encode())
            with open(p, "rb") as fh:
                h.update(fh.read())
    return h.hexdigest()


def build(a, name, cmd, key_extra):
    out = os.path.join(a.build_dir, "bin", name)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    path, _, cached = base.cached_build(name, cmd + ["-o", out], out, key_extra)
    return path, cached


def build_all(a):
    tid = toolchain_id(a)
    src = tree_hash(WL)
    # DWARF 4: valgrind 3.19 (callgrind) cannot read clang 19's default DWARF 5
    common = ["-O2", "-g", "-gdwarf-4", "-pthread"]
    paths, cached, failed = {}, [], {}
    for w, flags in WORKLOADS.items():
        for b in BUILDS:
            if b == "plain":
                cmd = [a.clang] + common + flags
            elif b == "tsan":
                cmd = [a.clang, "-fsanitize=thread"] + common + flags
            elif b == "vigil":
                cmd = [a.vigil_cc, "--vigil-atomic"] + common + flags
            else:
                cmd = [a.vigil_cc, "--vigil-atomic=watchpoints"] + common + flags
            try:
                paths[(w, b)], c = build(a, "%s-%s" % (w, b), cmd, tid + src)
                if c:
                    cached.append("%s-%s" % (w, b))
            except Fatal as e:
                if b != "watch":
                    raise
                failed[(w, b)] = str(e)
                log("watchpoint build of %s failed: column pending" % w)
    paths["loadgen"], _ = build(a, "loadgen", [a.clang, "-O2", "-pthread",
                                               os.path.join(WL, "loadgen.c")], tid + src)
    log("builds ready (%d cached)" % len(cached))
    return paths, failed


def make_inputs(a):
    """A deterministic text file for pigz (words from a fixed vocabulary:
    compresses like prose, about 3:1) and the served page."""
    d = os.path.join(a.build_dir, "inputs")
    os.makedirs(d, exist_ok=True)
    text = os.path.join(d, "text-%d.txt" % a.pigz_bytes)
    if not os.path.exists(text) or os.path.getsize(text) != a.pigz_bytes:
        r = random.Random(1)
        words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 9)))
                 for _ in range(5000)]
        chunks, n = [], 0
        while n < a.pigz_bytes:
            line = " ".join(r.choice(words) for _ in range(12)) + "\n"
            chunks.append(line)
            n += len(line)
        with open(text + ".tmp", "w") as f:
            f.write("".join(chunks)[:a.pigz_bytes])
        os.replace(text + ".tmp", text)
    small = os.path.join(d, "text-small-%d.txt" % a.callgrind_bytes)
    part = os.path.join(d, "text-part-%d-%d.txt" % (a.pigz_bytes, SCALE[("pigz", "find")]))
    for path, n in ((small, a.callgrind_bytes), (part, a.pigz_bytes // SCALE[("pigz", "find")])):
        if not os.path.exists(path):
            with open(text, "rb") as f, open(path + ".tmp", "wb") as g:
                g.write(f.read(n))
            os.replace(path + ".tmp", path)
    www = os.path.join(d, "www")
    os.makedirs(www, exist_ok=True)
    r = random.Random(2)
    with open(os.path.join(www, "index.html"), "w") as f:
        f.write("".join(chr(r.randint(97, 122)) for _ in range(PAGE_BYTES)))
    return {"text": text, "small": small, "part": part, "www": www}


# --------------------------------------------------------------------------
# running


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, proc, timeout=10):
    t = time.monotonic()
    while time.monotonic() - t < timeout:
        if proc.poll() is not None:
            return False
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            time.sleep(0.02)
    return False


class Run:
    """Context of one run: a temporary directory, the environment of the
    configuration (VIGIL_REPORT, TSAN_OPTIONS)."""

    def __init__(self, ctx, conf):
        self.ctx, self.conf = ctx, conf
        self.dir = tempfile.mkdtemp(prefix="run-", dir=ctx.tmp)
        env = dict(conf.env)
        if conf.build in ("vigil", "watch"):
            env.update(VIGIL_REPORT=os.path.join(self.dir, "report.jsonl"),
                       VIGIL_ON_FAILURE="count")
            if conf.name == "trained":
                env["VIGIL_ATOMIC_WHITELIST"] = ctx.whitelists[conf.workload]
        if conf.build == "tsan":
            env["TSAN_OPTIONS"] = "exitcode=0 halt_on_error=0 log_path=" + \
                os.path.join(self.dir, "tsan")
        self.env = base.clean_env(env)

    def report(self):
        p = os.path.join(self.dir, "report.jsonl")
        stats, violations = None, 0
        if os.path.exists(p):
            with open(p, errors="replace") as f:
                for line in f:
                    try:
                        j = json.loads(line)
                    except ValueError:
                        continue
                    if j.get("kind") == "atomic-stats":
                        stats = {k: j.get(k, 0) for k in STAT_KEYS}
                        stats.update(mode=j.get("mode"), detector=j.get("detector"))
                    elif j.get("type") != "summary":
                        violations += 1
        tsan = 0
        for f in os.listdir(self.dir):
            if f.startswith("tsan"):
                with open(os.path.join(self.dir, f), errors="replace") as fh:
                    tsan += fh.read().count("WARNING: ThreadSanitizer")
        return stats, violations, tsan

    def done(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def run_pigz(ctx, conf, prefix=(), text=None):
    r = Run(ctx, conf)
    text = text or (ctx.inputs["text"] if conf.scale == 1 else ctx.inputs["part"])
    cmd = list(prefix) + [conf.binary, "-p", "2", "-c", text]
    err = os.path.join(r.dir, "stderr")
    t = time.monotonic()
    with open(err, "w") as e:
        p = subprocess.Popen(cmd, env=r.env, stdout=subprocess.DEVNULL, stderr=e,
                             stdin=subprocess.DEVNULL)
        try:
            p.wait(timeout=ctx.a.run_timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            r.done()
            raise RunError("timed out after %d s" % ctx.a.run_timeout)
    wall = time.monotonic() - t
    with open(err, errors="replace") as f:
        errtext = f.read()
    if p.returncode != 0:
        r.done()
        raise RunError("exit status %d: %s" % (p.returncode, errtext[-800:]))
    stats, violations, tsan = r.report()
    s = {"seconds": wall * conf.scale, "measured_seconds": wall, "stats": stats, "violation_reports": violations, "tsan_reports": tsan,
         "stderr_tail": errtext[-400:], "run_dir": r.dir}
    return r, s


def run_civetweb(ctx, conf, prefix=(), requests=None):
    r = Run(ctx, conf)
    port = free_port()
    requests = requests or ctx.a.requests // conf.scale
    cmd = list(prefix) + [conf.binary, "-listening_ports", "127.0.0.1:%d" % port,
                          "-document_root", ctx.inputs["www"], "-num_threads",
                          str(SERVER_THREADS), "-enable_keep_alive", "yes", "-tcp_nodelay", "1"]
    err = os.path.join(r.dir, "stderr")
    t = time.monotonic()
    with open(err, "w") as e:
        srv = subprocess.Popen(cmd, env=r.env, stdout=e, stderr=e, stdin=subprocess.DEVNULL)
    try:
        if not wait_port(port, srv):
            raise RunError("the server did not listen on 127.0.0.1:%d" % port)
        lg = subprocess.run([ctx.paths["loadgen"], "127.0.0.1", str(port), "/index.html",
                             str(CONNECTIONS), str(requests), str(PAGE_BYTES)],
                            capture_output=True, text=True, timeout=ctx.a.run_timeout)
        m = LOADGEN_RE.search(lg.stdout)
        if not m or lg.returncode != 0:
            raise RunError("loadgen (exit %d): %s %s" % (lg.returncode, lg.stdout, lg.stderr[-300:]))
    except subprocess.TimeoutExpired:
        raise RunError("loadgen timed out after %d s" % ctx.a.run_timeout)
    finally:
        if srv.poll() is None:
            target = srv.pid
            if prefix:  # perf stat: stop the server, perf stat then ends with it
                try:
                    with open("/proc/%d/task/%d/children" % (srv.pid, srv.pid)) as fh:
                        target = int(fh.read().split()[0])
                except (OSError, ValueError, IndexError):
                    pass
            os.kill(target, signal.SIGTERM)
            try:
                srv.wait(timeout=30)
            except subprocess.TimeoutExpired:
                srv.kill()
                srv.wait()
        wall = time.monotonic() - t
    with open(err, errors="replace") as f:
        errtext = f.read()
    if srv.returncode != 0:
        raise RunError("server exit status %d: %s" % (srv.returncode, errtext[-800:]))
    keys = ("requests", "errors", "reconnects", "elapsed_ns", "rps", "p50_us", "p90_us", "p99_us",
            "bytes")
    lgv = {k: float(v) for k, v in zip(keys, m.groups())}
    stats, violations, tsan = r.report()
    s = {"seconds": lgv["elapsed_ns"] / 1e9 * conf.scale, "measured_seconds": lgv["elapsed_ns"] / 1e9,
         "server_seconds": wall, "loadgen": lgv,
         "stats": stats, "violation_reports": violations, "tsan_reports": tsan,
         "stderr_tail": errtext[-400:], "run_dir": r.dir}
    return r, s


RUNNERS = {"civetweb": run_civetweb, "pigz": run_pigz}


class Conf:
    def __init__(self, ctx, workload, name):
        self.workload, self.name = workload, name
        self.build, self.env = VARIANTS[name][0], dict(VARIANTS[name][1])
        self.binary = ctx.paths[(workload, self.build)]
        self.samples, self.failures, self.perf = [], [], None
        self.scale = SCALE.get((workload, name), 1)

    def key(self):
        return "%s/%s" % (self.workload, self.name)

    def measure(self, ctx):
        try:
            r, s = RUNNERS[self.workload](ctx, self)
            r.done()
            s.pop("run_dir", None)
            self.samples.append(s)
        except RunError as e:
            self.failures.append(str(e))
            ctx.failed.append("%s: %s" % (self.key(), e))
            log("FAILED run of %s: %s" % (self.key(), e))

    def to_json(self):
        return {"workload": self.workload, "name": self.name, "build": self.build,
                "env": self.env, "binary": self.binary, "samples": self.samples,
                "failures": self.failures, "perf": self.perf, "scale": self.scale}


def train(ctx, workload):
    """The paper's training (§4.2, Figure 7): train-mode runs add the ARs
    that violated to the whitelist, until a run adds nothing (at most 3)."""
    path = os.path.join(ctx.a.build_dir, "whitelist-%s.txt" % workload)
    if os.path.exists(path):
        os.unlink(path)
    conf = Conf(ctx, workload, "prevent")
    conf.env = {"VIGIL_ATOMIC_MODE": "train", "VIGIL_ATOMIC_WHITELIST": path}
    sizes = []
    for _ in range(3):
        r, _s = RUNNERS[workload](ctx, conf)
        r.done()
        n = 0
        if os.path.exists(path):
            with open(path) as f:
                n = sum(1 for line in f if line.split("#")[0].strip())
        sizes.append(n)
        if len(sizes) > 1 and sizes[-1] == sizes[-2]:
            break
    ctx.whitelists[workload] = path
    with open(path) if os.path.exists(path) else open(os.devnull) as f:
        text = f.read()
    log("%s: trained whitelist, entries per iteration %s" % (workload, sizes))
    return {"entries_per_iteration": sizes, "whitelist": text}


def perf_count(ctx, conf):
    """One run under `perf stat` (not timed with the others): system calls,
    futex calls, ioctls, signals delivered and context switches of the
    program (the server, or pigz), all threads."""
    out = os.path.join(ctx.tmp, "perf-%s.csv" % conf.key().replace("/", "-"))
    prefix = ["perf", "stat", "-x", ",", "-o", out, "-e", ",".join(PERF_EVENTS), "--"]
    try:
        r, s = RUNNERS[conf.workload](ctx, conf, prefix=prefix)
        r.done()
    except RunError as e:
        log("perf stat run of %s failed: %s" % (conf.key(), e))
        return {"error": str(e)}
    counts = {}
    with open(out) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) >= 3 and parts[2] in PERF_EVENTS:
                try:
                    counts[parts[2]] = int(float(parts[0]))
                except ValueError:
                    counts[parts[2]] = None
    secs = s.get("server_seconds", s["measured_seconds"])
    return {"counts": counts, "seconds": secs, "work_seconds": s["seconds"], "stats": s["stats"]}


def callgrind(ctx, binary, env):
    d = tempfile.mkdtemp(prefix="cg-", dir=ctx.tmp)
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + os.path.join(d, "cg.out"),
           binary, "-p", "2", "-c", ctx.inputs["small"]]
    r = subprocess.run(cmd, env=base.clean_env(env), stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=900)
    total = None
    if os.path.exists(os.path.join(d, "cg.out")):
        with open(os.path.join(d, "cg.out")) as f:
            m = re.search(r"^(?:totals|summary): (\d+)", f.read(), re.M)
            total = int(m.group(1)) if m else None
    shutil.rmtree(d, ignore_errors=True)
    if r.returncode != 0 or total is None:
        return {"error": "exit %d: %s" % (r.returncode, r.stderr[-500:])}
    return {"ir": total}


# --------------------------------------------------------------------------
# analysis


def analyse(res):
    """Per configuration: summary of the measured seconds, the ratio of
    medians to plain and its spread (per-round ratios), counter rates."""
    out = {}
    confs = res["configs"]
    for c in confs:
        w = c["workload"]
        secs = [s["seconds"] for s in c["samples"]]
        a = {"n": len(secs), "failures": len(c["failures"])}
        if secs:
            a["seconds"] = summary(secs)
        plain = next(x for x in confs if x["workload"] == w and x["name"] == "plain")
        ps = [s["seconds"] for s in plain["samples"]]
        if secs and ps:
            a["ratio"] = a["seconds"]["median"] / float(np.median(ps))
            k = min(len(secs), len(ps))
            rr = [secs[i] / ps[i] for i in range(k)]  # same round: paired
            a["ratio_rounds"] = summary(rr)
        if c["samples"] and "loadgen" in c["samples"][0]:
            for k in ("rps", "p50_us", "p99_us"):
                a[k] = float(np.median([s["loadgen"][k] for s in c["samples"]]))
        st = [s for s in c["samples"] if s.get("stats")]
        if st:
            rates = {}
            for k in STAT_KEYS:
                rates[k] = float(np.median([s["stats"][k] / s["measured_seconds"] for s in st]))
            a["per_second"] = rates
            a["totals_median"] = {k: float(np.median([s["stats"][k] for s in st]))
                                  for k in STAT_KEYS}
            unm = [(s["stats"]["unmonitored_no_slot"] + s["stats"]["unmonitored_no_watchpoint"]
                    + s["stats"]["unmonitored_thread_full"]) for s in st]
            a["unmonitored_per_second"] = float(np.median([u / s["measured_seconds"]
                                                           for u, s in zip(unm, st)]))
            a["unmonitored_share"] = float(np.median([u / max(1, s["stats"]["begins"])
                                                      for u, s in zip(unm, st)]))
            a["detector"] = st[0]["stats"].get("detector")
        a["violation_reports"] = sum(s.get("violation_reports", 0) for s in c["samples"])
        a["tsan_reports"] = max([s.get("tsan_reports", 0) for s in c["samples"]] or [0])
        out["%s/%s" % (w, c["name"])] = a
    # TSan against vigil: added time, and time
    for w in {c["workload"] for c in confs}:
        t = out.get(w + "/tsan", {})
        for v in ("prevent", "find", "trained", "watch"):
            x = out.get("%s/%s" % (w, v), {})
            if "ratio" in t and "ratio" in x:
                x["tsan_time_ratio"] = t["ratio"] / x["ratio"]
                added = x["ratio"] - 1
                x["tsan_added_ratio"] = (t["ratio"] - 1) / added if added > 0.005 else None
    return out


def f(x, fmt="%.2f"):
    return "–" if x is None else fmt % x


def fk(x):
    if x is None:
        return "–"
    if x >= 1e6:
        return "%.2f M" % (x / 1e6)
    if x >= 1e3:
        return "%.1f k" % (x / 1e3)
    return "%.0f" % x


def write_report(res, path):
    an = res["analysis"]
    env = res["environment"]
    L = []
    L.append("# Atomic regions (Kivati) on real workloads — %s" % env["date"][:10])
    L.append("")
    L.append("`python3 bench/atomic/run.py` (part of `make bench`); %d interleaved rounds; "
             "%s; %s, %d CPUs; vigil %s; load average %.1f at start, %.1f at end; seed %d; "
             "%.0f s in all." % (res["params"]["rounds"], env["cpu"], env["kernel"], env["cpus"],
                                 env["vigil_git"], env["loadavg_start"][0],
                                 env["loadavg_end"][0], res["params"]["seed"],
                                 res["seconds"]["total"]))
    L.append("")
    L.append("Workloads: **civetweb** — CivetWeb 1.16, %d worker threads, serving a %d-byte file "
             "to `loadgen` (%d keep-alive connections, %d requests in all) on 127.0.0.1; the time "
             "is the load generator's. **pigz** — pigz 2.8 `-p 2 -c` on %d MB of generated text "
             "to /dev/null; wall time. Every configuration runs once a round, in a new random "
             "order; medians, [Q1, Q3]; ratio = median / median of plain; the spread of the "
             "ratio is over the per-round ratios." % (
                 SERVER_THREADS, PAGE_BYTES, CONNECTIONS, res["params"]["requests"],
                 res["params"]["pigz_bytes"] // 1000000))
    L.append("")
    L.append("## Time")
    L.append("")
    L.append("| workload | configuration | n | median s | Q1–Q3 s | × plain | per-round ratio Q1–Q3 | "
             "TSan ÷ this (time) | TSan added ÷ this added | req/s | p50 µs | p99 µs |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in res["configs"]:
        k = "%s/%s" % (c["workload"], c["name"])
        a = an[k]
        if "seconds" not in a:
            L.append("| %s | %s | 0 | pending (%s) | | | | | | | | |" % (
                c["workload"], LABEL[c["name"]], "; ".join(c["failures"])[:120] or "not run"))
            continue
        s = a["seconds"]
        rr = a.get("ratio_rounds", {})
        L.append("| %s | %s%s | %d%s | %.3f | %.3f–%.3f | %s | %s–%s | %s | %s | %s | %s | %s |" % (
            c["workload"], LABEL[c["name"]],
            " (1/%d of the work, time ×%d)" % (c["scale"], c["scale"]) if c.get("scale", 1) > 1
            else "", a["n"],
            " (%d failed)" % a["failures"] if a["failures"] else "", s["median"], s["q1"], s["q3"],
            f(a.get("ratio")), f(rr.get("q1")), f(rr.get("q3")), f(a.get("tsan_time_ratio")),
            f(a.get("tsan_added_ratio"), "%.1f"), fk(a.get("rps")), fk(a.get("p50_us")),
            fk(a.get("p99_us"))))
    for k, why in res.get("pending", {}).items():
        L.append("| %s | %s | 0 | pending | | | | | | | | |" % (k.split("/")[0], LABEL["watch"]))
    L.append("")
    L.append("## Atomic-region counters per second (VIGIL_REPORT atomic-stats; the paper's "
             "Tables 4, 7, 8)")
    L.append("")
    L.append("| workload | configuration | begins/s | ends/s | clears/s | remotes/s | held/s | "
             "timeouts/s | pauses/s | whitelisted/s | unmonitored/s | unmonitored share | "
             "violations (median per run) |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in res["configs"]:
        a = an["%s/%s" % (c["workload"], c["name"])]
        r = a.get("per_second")
        if not r:
            continue
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f%% | %s |" % (
            c["workload"], LABEL[c["name"]], fk(r["begins"]), fk(r["ends"]), fk(r["clears"]),
            fk(r["remotes"]), fk(r["held"]), fk(r["timeouts"]), fk(r["pauses"]),
            fk(r["whitelisted"]), fk(a["unmonitored_per_second"]), 100 * a["unmonitored_share"],
            fk(a["totals_median"]["violations"])))
    L.append("")
    L.append("Unmonitored: `unmonitored_no_slot + unmonitored_no_watchpoint + "
             "unmonitored_thread_full` (no free slot, no free debug register, the thread's own "
             "table full), as a share of begins (the paper's Table 8: 4.8–12%).")
    L.append("")
    L.append("## Domain crossings (one more run of each under `perf stat`; the paper's Table 4)")
    L.append("")
    L.append("Kivati entered the kernel at every begin and end; vigil's begins and ends stay in "
             "user space, so its crossings are the futex calls of holds and pauses and, with "
             "watchpoints, the ioctls arming debug registers and the SIGTRAPs of remote "
             "accesses. Counts are of the whole program (all threads), per second of its "
             "run; \"added\" is the count minus plain's for the same fixed work.")
    L.append("")
    L.append("| workload | configuration | syscalls/s | added syscalls (run) | futex/s | ioctl/s | "
             "signals/s | context switches/s |")
    L.append("|---|---|---|---|---|---|---|---|")
    for c in res["configs"]:
        p = c.get("perf") or {}
        if "counts" not in p:
            continue
        plain = next(x for x in res["configs"] if x["workload"] == c["workload"]
                     and x["name"] == "plain").get("perf") or {}
        cn, sec = p["counts"], p["seconds"]
        g = lambda e: cn.get(e)  # noqa: E731
        rate = lambda e: (g(e) / sec) if g(e) is not None else None  # noqa: E731
        added = None
        if "counts" in plain and g("raw_syscalls:sys_enter") is not None and c.get("scale", 1) == 1:
            added = g("raw_syscalls:sys_enter") - plain["counts"].get("raw_syscalls:sys_enter", 0)
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c["workload"], LABEL[c["name"]], fk(rate("raw_syscalls:sys_enter")),
            "–" if added is None else "%+d" % added, fk(rate("syscalls:sys_enter_futex")),
            fk(rate("syscalls:sys_enter_ioctl")), fk(rate("signal:signal_deliver")),
            fk(rate("context-switches"))))
    L.append("")
    cg = res.get("callgrind")
    if cg:
        L.append("## Instructions (callgrind, pigz -p 2 on %d MB)" % (
            res["params"]["callgrind_bytes"] // 1000000))
        L.append("")
        L.append("| build | instructions | × plain |")
        L.append("|---|---|---|")
        p = cg.get("plain", {}).get("ir")
        for k, v in cg.items():
            if "ir" in v:
                L.append("| %s | %d | %s |" % (k, v["ir"], f(v["ir"] / p if p else None, "%.3f")))
            else:
                L.append("| %s | failed: %s | |" % (k, v.get("error", "")[:200]))
        L.append("")
    tr = res.get("training", {})
    if tr:
        L.append("## Trained whitelists (train mode until a run adds nothing, at most 3 runs)")
        L.append("")
        for w, t in tr.items():
            L.append("- %s: entries after each run %s" % (w, t.get("entries_per_iteration")))
            for line in t.get("whitelist", "").splitlines()[:12]:
                L.append("  - `%s`" % line)
        L.append("")
    L.append("## Targets")
    L.append("")
    for line in targets(res):
        L.append("- " + line)
    L.append("")
    if res["failed"]:
        L.append("## Failed runs")
        L.append("")
        for x in res["failed"]:
            L.append("- " + x.replace("\n", " ")[:300])
        L.append("")
    L.append("TSan reports (ThreadSanitizer warnings in one run, max over runs): " + ", ".join(
        "%s %d" % (k.split("/")[0], v["tsan_reports"]) for k, v in an.items()
        if k.endswith("/tsan")))
    L.append("")
    with open(path, "w") as fh:
        fh.write("\n".join(L))


def targets(res):
    an = res["analysis"]
    out = []
    for w in WORKLOADS:
        p = an.get(w + "/prevent", {})
        if "ratio" not in p:
            continue
        ov = 100 * (p["ratio"] - 1)
        out.append("%s, prevent: %+.1f%% over plain (target <= 10%%: %s)" % (
            w, ov, "met" if ov <= 10 else "missed by %.1f points" % (ov - 10)))
        ta = p.get("tsan_added_ratio")
        if ta is not None:
            out.append("%s, prevent vs TSan: TSan adds %.2fx the time vigil adds (target >= 10x: "
                       "%s)" % (w, ta, "met" if ta >= 10 else "missed"))
        t = an.get(w + "/trained", {})
        if "ratio" in t:
            out.append("%s, prevent with the trained whitelist: %+.1f%%" % (
                w, 100 * (t["ratio"] - 1)))
    return out


def plot(res, path):
    an = res["analysis"]
    names = [n for n in VARIANTS if n != "plain"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    ax = axes[0]
    width = 0.8 / len(WORKLOADS)
    for i, w in enumerate(WORKLOADS):
        ys, lo, hi = [], [], []
        for n in names:
            a = an.get("%s/%s" % (w, n), {})
            r = a.get("ratio")
            rr = a.get("ratio_rounds", {})
            ys.append(r or 0)
            lo.append(max(0, (r or 0) - rr.get("q1", r or 0)))
            hi.append(max(0, rr.get("q3", r or 0) - (r or 0)))
        x = np.arange(len(names)) + i * width
        ax.bar(x, ys, width, yerr=[lo, hi], capsize=3, label=w)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.axhline(1.1, color="g", ls="--", lw=0.8, label="+10% target")
    ax.set_xticks(np.arange(len(names)) + width * (len(WORKLOADS) - 1) / 2)
    ax.set_xticklabels([LABEL[n].replace("vigil ", "vigil\n").replace(", ", ",\n")
                        for n in names], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("time / plain (median, log; bars: per-round IQR)")
    ax.set_title("Slowdown on real workloads (2 vCPUs)")
    ax.legend(fontsize=8)
    ax = axes[1]
    keys = ["begins", "ends", "remotes", "held", "timeouts", "pauses"]
    for i, w in enumerate(WORKLOADS):
        for j, n in enumerate(["prevent", "find", "trained"]):
            r = an.get("%s/%s" % (w, n), {}).get("per_second")
            if not r:
                continue
            ys = [max(r[k], 0.1) for k in keys] + [max(an["%s/%s" % (w, n)]["unmonitored_per_second"],
                                                       0.1)]
            x = np.arange(len(ys)) + (i * 3 + j) * 0.13
            ax.bar(x, ys, 0.13, label="%s %s" % (w, n))
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(keys) + 1) + 0.33)
    ax.set_xticklabels(keys + ["unmonitored"], fontsize=8)
    ax.set_ylabel("per second (log)")
    ax.set_title("Atomic-region events per second")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --------------------------------------------------------------------------
# driver


def environment(a):
    return base.machine(a.clang)


class Ctx:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.tmp = tempfile.mkdtemp(prefix="vigil-atomic-bench-")
        self.failed, self.whitelists = [], {}


def measure(a):
    for tool in [a.clang, a.vigil_cc] + ([] if a.no_callgrind else ["valgrind"]) + \
            ([] if a.no_perf else ["perf"]):
        if not shutil.which(tool):
            raise Fatal("%s not found (make build; Debian: clang-19, valgrind, linux-perf)" % tool, 2)
    ctx = Ctx(a)
    res = {"environment": environment(a),
           "params": {k: v for k, v in vars(a).items() if isinstance(v, (int, float, str, bool))}}
    t0 = time.monotonic()
    try:
        ctx.paths, failed_builds = build_all(a)
        res["seconds"] = {"build": time.monotonic() - t0}
        ctx.inputs = make_inputs(a)
        res["pending"] = {"%s/watch" % w: e for (w, _), e in failed_builds.items()}
        confs = [Conf(ctx, w, n) for w in WORKLOADS for n in VARIANTS
                 if (w, VARIANTS[n][0]) in ctx.paths]
        t = time.monotonic()
        res["training"] = {}
        for w in WORKLOADS:
            try:
                res["training"][w] = train(ctx, w)
            except RunError as e:
                ctx.failed.append("%s training: %s" % (w, e))
                confs = [c for c in confs if not (c.workload == w and c.name == "trained")]
        res["seconds"]["training"] = time.monotonic() - t
        t = time.monotonic()
        for c in confs:  # warm-up: page cache, binaries, first-touch
            if c.name in ("plain", "prevent", "tsan"):
                c.measure(ctx)
                c.samples, c.failures = [], []
        log("%d configurations x %d rounds" % (len(confs), a.rounds))
        for r in range(a.rounds):
            order = list(confs)
            ctx.rng.shuffle(order)
            tr = time.monotonic()
            for c in order:
                c.measure(ctx)
            log("round %d/%d: %.1f s, load %.1f" % (r + 1, a.rounds, time.monotonic() - tr,
                                                     os.getloadavg()[0]))
        res["seconds"]["rounds"] = time.monotonic() - t
        if not a.no_perf:
            t = time.monotonic()
            for c in confs:
                c.perf = perf_count(ctx, c)
            res["seconds"]["perf"] = time.monotonic() - t
            log("perf stat runs: %.1f s" % res["seconds"]["perf"])
        if not a.no_callgrind:
            t = time.monotonic()
            res["callgrind"] = {
                "plain": callgrind(ctx, ctx.paths[("pigz", "plain")], {}),
                "vigil prevent": callgrind(ctx, ctx.paths[("pigz", "vigil")],
                                           {"VIGIL_ON_FAILURE": "count"}),
            }
            res["seconds"]["callgrind"] = time.monotonic() - t
            log("callgrind: %s (%.1f s)" % ({k: v.get("ir") for k, v in res["callgrind"].items()},
                                            res["seconds"]["callgrind"]))
        res["configs"] = [c.to_json() for c in confs]
    finally:
        shutil.rmtree(ctx.tmp, ignore_errors=True)
    res["failed"] = ctx.failed
    res["environment"]["loadavg_end"] = os.getloadavg()
    res["seconds"]["total"] = time.monotonic() - t0
    return res


def write_outputs(res, out):
    os.makedirs(out, exist_ok=True)
    res["analysis"] = analyse(res)
    date = res["environment"]["date"][:10]
    stem = os.path.join(out, "atomic-%s" % date)
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
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "bench", "atomic"))
    ap.add_argument("--out", default=os.path.join(BENCH, "results"))
    ap.add_argument("--quick", action="store_true", help="smoke test: small runs, 1 round")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--no-perf", action="store_true", help="no perf stat runs")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--report-only", metavar="JSON",
                    help="rewrite the report and plot from a previous atomic-DATE.json")
    q = "--quick" in sys.argv
    ap.add_argument("--rounds", type=int, default=1 if q else 5)
    ap.add_argument("--requests", type=int, default=1500 if q else 8000,
                    help="HTTP requests per civetweb run")
    ap.add_argument("--pigz-bytes", type=int, default=5_000_000 if q else 30_000_000)
    ap.add_argument("--callgrind-bytes", type=int, default=1_000_000 if q else 4_000_000)
    ap.add_argument("--run-timeout", type=int, default=60, help="seconds per run")
    a = ap.parse_args()
    if a.seed is None:
        a.seed = random.SystemRandom().randrange(1 << 31)
    a.vigil_cc = os.path.abspath(a.vigil_cc)
    a.build_dir, a.out = os.path.abspath(a.build_dir), os.path.abspath(a.out)
    return a


def main():
    a = parse_args()
    if a.report_only:
        with open(a.report_only) as fh:
            res = json.load(fh)
        stem = write_outputs(res, a.out)
        log("rewrote %s.md/.png" % stem)
        return
    try:
        res = measure(a)
    except Fatal as e:
        log("FATAL: %s" % e)
        sys.exit(e.code)
    stem = write_outputs(res, a.out)
    log("wrote %s.md, .json, .png; total %.0f s" % (stem, res["seconds"]["total"]))
    for line in targets(res):
        log(line)
    if res["failed"]:
        log("%d run(s) failed (listed in the report)" % len(res["failed"]))
        sys.exit(4)


if __name__ == "__main__":
    main()
