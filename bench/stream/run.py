#!/usr/bin/env python3
"""vigil event-stream benchmarks (bench/README.md, "Event stream").

Measures the event stream of issue 11 against ReBIS (seed 003) and LTTng-UST:

  table    ReBIS Table 5.1: 8/20/40/240 threads x buffers of 50/100/250/500
           events, consumer pinned (VIGIL_STREAM_CPU) vs not, lossless, over
           loopback TCP to `vigil collect`; slowdown over the plain program
  ratio    buffered (vigil) vs one send() per event (persend.h), per thread count
  event    producer cost per event: --vigil-trace'd call streaming / not
           streaming / an LTTng-UST tracepoint recording, vs the plain build;
           callgrind instructions per event
  e2e      events/s sustained into `vigil collect --store` (and without), 0 lost,
           RSS and CPU of producer and collector
  record   `vigil record` uprobes and a tracepoint vs compiled tracing

    python3 bench/stream/run.py                  # everything, <= 8 minutes on 2 cores
    python3 bench/stream/run.py --quick --out /tmp/s   # smoke test, about a minute

Writes OUT/stream-YYYY-MM-DD.md, OUT/stream.json (every raw sample) and
OUT/fig-stream-*.png.  Progress on stderr.  Exit status: 0 success; 2 a build
failed or a tool is missing; 3 a program or the collector failed; 4 some run
was incomplete (events lost, missing or duplicated: reported, excluded).
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


def _load_suite():
    """bench/run.py as a module (its statistics, logging, LTTng session
    handling); loading it also re-runs this script with /usr/bin/python3
    when the python3 on PATH lacks scipy/matplotlib."""
    spec = importlib.util.spec_from_file_location("vigil_bench_suite",
                                                  os.path.join(BENCH, "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


base = _load_suite()

import argparse  # noqa: E402
import datetime  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import shlex  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import report  # noqa: E402  (bench/stream/report.py: the Markdown and the plots)

log, summary, Fatal = base.log, base.summary, base.Fatal

SRC = os.path.join(HERE, "src")
THREADS = [8, 20, 40, 240]
BUFFERS = [50, 100, 250, 500]  # events per chunk (ReBIS's buffer sizes)
RECORD_BYTES = 24  # id word + timestamp word + one argument word (tick's i or result)
CONSUMER_CPU = 1
PRODUCER_CPU = 0
# ReBIS Table 5.1: % difference of runtime with vs without binding.
REBIS = {50: {8: -7.990, 20: -24.055, 40: -43.064, 240: -74.041},
         100: {8: -1.743, 20: -11.003, 40: -18.324, 240: -59.521},
         250: {8: 0.836, 20: 5.802, 40: 2.469, 240: -27.793},
         500: {8: 4.054, 20: 9.009, 40: 12.956, 240: -2.597}}
OUT_RE = re.compile(r"elapsed_ns (\d+) flush_ns (\d+) calls (\d+) threads (\d+) events (\d+)"
                    r"(?: start_ns (\d+))?")
TOTALS_RE = re.compile(r"(\d+) producer\(s\), (\d+) ended; (\d+) events in (\d+) batches stored "
                       r"\((\d+) duplicate batches dropped\), (\d+) commits")


class RunError(Exception):
    pass


# --------------------------------------------------------------------------
# building


class Builder:
    """Builds into BUILD/bin, cached by a hash of the command, the sources
    and the toolchain (vigil-cc, libvigil and plugins; or clang)."""

    def __init__(self, a):
        self.a = a
        self.bin = os.path.join(a.build_dir, "bin")
        os.makedirs(self.bin, exist_ok=True)
        h = hashlib.sha256()
        for name in sorted(os.listdir(SRC)):
            h.update(name.encode())
            with open(os.path.join(SRC, name), "rb") as f:
                h.update(f.read())
        for p in (os.path.join(REPO, "include", "vigil", "stream.h"),):
            with open(p, "rb") as f:
                h.update(f.read())
        self.src_hash = h.hexdigest()
        v = hashlib.sha256()
        root = os.path.dirname(os.path.dirname(os.path.realpath(a.vigil_cc)))
        files = [os.path.realpath(a.vigil_cc)]
        libdir = os.path.join(root, "lib")
        if os.path.isdir(libdir):
            files += [os.path.join(libdir, n) for n in sorted(os.listdir(libdir))]
        for p in files:
            if os.path.isfile(p):
                v.update(p.encode() + base.sha256_file(p).encode())
        self.vigil_id = v.hexdigest()
        self.clang_id = base.sh([a.clang, "--version"])
        self.cached = {}

    def commands(self):
        a, s = self.a, lambda n: os.path.join(SRC, n)
        cc = [a.clang, "-O2", "-I" + SRC, "-I" + os.path.join(REPO, "include")]
        return {
            "plain": cc + [s("tick.c"), "-o", "{out}", "-lpthread"],
            "traced": [a.vigil_cc, "--vigil-trace=tick", "-O2", "-DTRACED", s("tick.c"),
                       "-o", "{out}", "-lpthread"],
            "lttng": cc + ["-DVARIANT_LTTNG", s("tick.c"), "-o", "{out}", "-lpthread",
                           "-llttng-ust", "-ldl"],
            "persend": cc + ["-DVARIANT_PERSEND", s("tick.c"), "-o", "{out}", "-lpthread"],
            "getppid": cc + [s("getppid.c"), "-o", "{out}"],
            "clocks": cc + [s("clocks.c"), "-o", "{out}"],
        }

    def build(self, name, cmd):
        out = os.path.join(self.bin, name)
        cmd = [c.replace("{out}", out) for c in cmd]
        key = hashlib.sha256(json.dumps(cmd).encode() + self.src_hash.encode()
                             + (self.vigil_id if name == "traced" else self.clang_id).encode())
        key = key.hexdigest()
        meta = out + ".meta.json"
        try:
            with open(meta) as f:
                if json.load(f).get("key") == key and os.path.exists(out):
                    self.cached[name] = True
                    return out
        except (OSError, ValueError):
            pass
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if r.returncode != 0 or not os.path.exists(out):
            raise Fatal("build of %s failed (exit %d)\n  $ %s\n%s" % (
                name, r.returncode, shlex.join(cmd), (r.stdout + r.stderr)[-3000:]), 2)
        with open(meta, "w") as f:
            json.dump({"key": key, "cmd": cmd}, f)
        self.cached[name] = False
        return out

    def build_all(self, lttng_ok):
        paths, failed = {}, {}
        for name, cmd in self.commands().items():
            try:
                paths[name] = self.build(name, cmd)
            except Fatal as e:
                if name != "lttng":
                    raise
                failed[name] = str(e)
        log("builds: %s" % ", ".join("%s (%s)" % (n, "cached" if self.cached.get(n) else "built")
                                     for n in paths))
        return paths, failed


# --------------------------------------------------------------------------
# processes


def spawn(cmd, env, out, err, cpus=None):
    pre = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
    return subprocess.Popen(cmd, env=env, stdout=out, stderr=err, preexec_fn=pre,
                            stdin=subprocess.DEVNULL)


def watch_rss(p):
    """Peak RSS from /proc/PID/status (VmHWM), read every 10 ms while p
    runs.  getrusage's ru_maxrss cannot be used: Linux keeps it across
    execve, so every child of this (100 MB) Python process would report at
    least 100 MB."""
    now = time.monotonic()
    if now - getattr(p, "hwm_at", 0.0) < 0.01:
        return
    p.hwm_at = now
    try:
        with open("/proc/%d/status" % p.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    p.hwm = max(getattr(p, "hwm", 0), int(line.split()[1]))
                    return
    except (OSError, ValueError):
        pass


def rusage_dict(ru, p):
    return {"user_s": ru.ru_utime, "sys_s": ru.ru_stime, "maxrss_kb": getattr(p, "hwm", None),
            "ru_maxrss_kb": ru.ru_maxrss}


def reap(p, timeout=0.0):
    """Waits up to `timeout` seconds for p; its rusage, or None if it still
    runs.  (os.wait4, not Popen.wait: the child's CPU time.)"""
    if getattr(p, "rusage", None) is not None:
        return p.rusage
    deadline = time.monotonic() + timeout
    while True:
        watch_rss(p)
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            p.reaped_ns = time.monotonic_ns()
            p.returncode = os.waitstatus_to_exitcode(status)
            p.rusage = rusage_dict(ru, p)
            return p.rusage
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.003)


def kill(p):
    if reap(p) is None:
        p.kill()
        reap(p, 10)


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


class Collector:
    """`vigil collect` on a free loopback port, stopping after `streams`
    producer streams ended (and are stored, with --store)."""

    def __init__(self, ctx, streams, store=None, extra=(), listen=True):
        self.dir = tempfile.mkdtemp(prefix="col-", dir=ctx.tmp)
        self.err_path = os.path.join(self.dir, "stderr")
        addr_file = os.path.join(self.dir, "addr")
        cmd = [ctx.a.vigil, "collect", "--streams", str(streams)] + list(extra)
        if listen:
            cmd += ["--listen", "tcp://127.0.0.1:0", "--addr-file", addr_file]
        if store:
            cmd += ["--store", store]
        with open(self.err_path, "w") as err:
            self.p = spawn(cmd, base.clean_env({}), subprocess.DEVNULL, err)
        if not listen:
            self.addr = None
            return
        for _ in range(2000):
            if os.path.exists(addr_file):
                with open(addr_file) as f:
                    self.addr = f.readline().strip()
                if self.addr:
                    return
            if reap(self.p) is not None:
                raise Fatal("vigil collect exited at start (status %s): %s" % (
                    self.p.returncode, read(self.err_path)[-2000:]), 3)
            time.sleep(0.005)
        kill(self.p)
        raise Fatal("vigil collect wrote no address in 10 s", 3)

    def finish(self, timeout):
        if reap(self.p, timeout) is None:
            kill(self.p)
            raise RunError("vigil collect did not stop in %.0f s: %s" % (
                timeout, read(self.err_path)[-1500:]))
        text = read(self.err_path)
        shutil.rmtree(self.dir, ignore_errors=True)
        m = TOTALS_RE.search(text)
        if not m:
            raise RunError("vigil collect (status %s) printed no totals: %s" % (
                self.p.returncode, text[-1500:]))
        refused = re.search(r"(\d+) connection\(s\) refused", text)
        keys = ("producers", "ended", "events", "batches", "duplicates", "commits")
        t = dict(zip(keys, (int(x) for x in m.groups())))
        t["refused"] = int(refused.group(1)) if refused else 0
        t["messages"] = [ln for ln in text.splitlines() if "listening on" not in ln
                         and not TOTALS_RE.search(ln)][:5]
        return t, self.p.rusage


def parse_out(text, cmd):
    m = OUT_RE.search(text)
    if not m:
        raise RunError("no result line from %s: %s" % (shlex.join(cmd), text[-1500:]))
    keys = ("elapsed_ns", "flush_ns", "calls", "threads", "events", "start_ns")
    return {k: int(x) for k, x in zip(keys, m.groups()) if x is not None}


def run_plain(ctx, cmd, env, cpus=None, timeout=300):
    """A run without a collector (plain, traced without VIGIL_STREAM, LTTng)."""
    d = tempfile.mkdtemp(prefix="run-", dir=ctx.tmp)
    out, err = os.path.join(d, "out"), os.path.join(d, "err")
    with open(out, "w") as o, open(err, "w") as e:
        p = spawn(cmd, base.clean_env(env), o, e, cpus)
    if reap(p, timeout) is None:
        kill(p)
        raise RunError("timed out after %d s: %s" % (timeout, shlex.join(cmd)))
    if p.returncode != 0:
        raise Fatal("%s: exit status %d: %s" % (shlex.join(cmd), p.returncode, read(err)[-2000:]), 3)
    s = parse_out(read(out), cmd)
    s.update(valid=True, prod=p.rusage, stderr=read(err)[-500:])
    shutil.rmtree(d, ignore_errors=True)
    return s


GRACE_S = 0.2  # a producer still running this long after its collector exited is killed


def drive(ctx, cmd, env, col, cpus, timeout):
    """Runs the producer `cmd` against collector `col` (whose address goes in
    VIGIL_STREAM) until it exits, or until GRACE_S after `col` exited: then
    it has been acknowledged everything (the collector stops only once the
    stream ended) and only waits out VIGIL_STREAM_LINGER_MS for a `mark` it
    sent after its `end`, which nothing acknowledges; it is killed (and
    counted: see the report).  Returns the sample (its own timing line,
    rusage, stderr, spill files)."""
    d = tempfile.mkdtemp(prefix="run-", dir=ctx.tmp)
    out, err = os.path.join(d, "out"), os.path.join(d, "err")
    spill = os.path.join(d, "spill")
    os.mkdir(spill)
    full_env = base.clean_env(dict(env, VIGIL_STREAM=col.addr, VIGIL_STREAM_SPILL_DIR=spill))
    t0 = time.monotonic()
    with open(out, "w") as o, open(err, "w") as e:
        p = spawn(cmd, full_env, o, e, cpus)
    col_done = killed = None
    while reap(p) is None:
        now = time.monotonic()
        if col_done is None and reap(col.p) is not None:
            col_done = now
        for other in ctx.watched:
            watch_rss(other)
        if col_done is not None and now - col_done > GRACE_S:
            kill(p)
            killed = now - col_done
            break
        if now - t0 > timeout:
            kill(p)
            kill(col.p)
            raise RunError("timed out after %d s: %s" % (timeout, shlex.join(cmd)))
        time.sleep(0.003)
    if killed is None and p.returncode != 0:
        raise Fatal("%s: exit status %d: %s" % (shlex.join(cmd), p.returncode, read(err)[-2000:]), 3)
    s = parse_out(read(out), cmd)
    s.update(prod=p.rusage, wall_s=time.monotonic() - t0, killed_lingering=killed is not None,
             stderr=read(err)[-500:],
             spilled={f: os.path.getsize(os.path.join(spill, f)) for f in os.listdir(spill)})
    shutil.rmtree(d, ignore_errors=True)
    return s


def check_totals(totals, streams, events, what="collector"):
    why = []
    if totals["producers"] != streams or totals["ended"] != streams:
        why.append("%s: %d/%d streams ended" % (what, totals["ended"], streams))
    if totals["events"] != events:
        why.append("%s: %d of %d events arrived" % (what, totals["events"], events))
    if totals["refused"]:
        why.append("%s: %d connection(s) refused: %s" % (what, totals["refused"],
                                                         totals["messages"]))
    return why


def run_streamed(ctx, cmd, env, streams, events, cpus=None, store=None, timeout=300):
    """One run of `cmd` streaming to a fresh `vigil collect`.  The run is
    valid only if the collector saw `streams` producers end, `events`
    events, no refusal, nothing spilled (and, with --store, --summary
    agrees: every event produced stored, none lost or missing)."""
    col = Collector(ctx, streams, store)
    s = drive(ctx, cmd, env, col, cpus, timeout)
    s["collector"], s["coll"] = col.finish(30)
    why = check_totals(s["collector"], streams, events)
    if s["spilled"]:
        why.append("the producer spilled %s: %s" % (s["spilled"], s["stderr"].strip()[-300:]))
    if store:
        why += check_store(ctx, store, events, s)
    s["valid"], s["why"] = not why, "; ".join(why)
    return s


def run_nats(ctx, cmd, env, events, timeout=300):
    """The same through NATS JetStream: a fresh `nats-server -js`, an ingest
    collector (`--listen --nats`: acknowledges once JetStream stored a
    batch) and one consumer (`--nats --group bench --member 0/1 --store`).
    Valid if both saw every event and the consumer's store is complete.
    `stored_ns`: the producer's first event to the consumer's exit (it
    exits once the stream's end is stored)."""
    srv = NatsServer(ctx)
    store = tempfile.mkdtemp(prefix="store-", dir=ctx.tmp)
    try:
        ingest = Collector(ctx, 1, extra=["--nats", srv.url])
        consumer = Collector(ctx, 1, store=store, listen=False,
                             extra=["--nats", srv.url, "--group", "bench", "--member", "0/1"])
        ctx.watched = [consumer.p, srv.p]
        try:
            s = drive(ctx, cmd, env, ingest, None, timeout)
        finally:
            ctx.watched = []
        s["collector"], s["coll"] = ingest.finish(60)
        s["consumer"], s["cons"] = consumer.finish(timeout)
        s["stored_ns"] = consumer.p.reaped_ns - s["start_ns"]
        s["nats_rss_kb"] = srv.stop()
        why = check_totals(s["collector"], 1, events, "ingest")
        why += check_totals(s["consumer"], 1, events, "consumer")
        why += check_store(ctx, store, events, s)
        # a spill of the end alone (ingest gone before acknowledging it) loses nothing
        s["valid"], s["why"] = not why, "; ".join(why)
        return s
    finally:
        srv.stop()
        shutil.rmtree(store, ignore_errors=True)


class NatsServer:
    """`nats-server -js` on 127.0.0.1, a free port, storage under the run's
    temporary directory."""

    def __init__(self, ctx):
        self.dir = tempfile.mkdtemp(prefix="nats-", dir=ctx.tmp)
        cmd = ["nats-server", "-js", "-a", "127.0.0.1", "-p", "-1", "-sd",
               os.path.join(self.dir, "js"), "--ports_file_dir", self.dir,
               "-l", os.path.join(self.dir, "log")]
        self.p = spawn(cmd, base.clean_env({}), subprocess.DEVNULL, subprocess.DEVNULL)
        self.rss = None
        for _ in range(2000):
            ports = [f for f in os.listdir(self.dir) if f.endswith(".ports")]
            if ports:
                try:
                    with open(os.path.join(self.dir, ports[0])) as f:
                        self.url = json.load(f)["nats"][0]
                    return
                except (OSError, ValueError, KeyError, IndexError):
                    pass
            if reap(self.p) is not None:
                break
            time.sleep(0.005)
        self.stop()
        raise Fatal("nats-server did not start: %s" % read(os.path.join(self.dir, "log"))[-1500:], 3)

    def stop(self):
        if reap(self.p) is None:
            self.p.terminate()
            if reap(self.p, 10) is None:
                kill(self.p)
        if self.rss is None and self.p.rusage:
            self.rss = self.p.rusage["maxrss_kb"]
        shutil.rmtree(self.dir, ignore_errors=True)
        return self.rss


def check_store(ctx, store, events, s):
    """`vigil collect --summary --json`: stored == produced, 0 lost, 0 missing."""
    r = subprocess.run([ctx.a.vigil, "collect", "--summary", "--json", "--store", store],
                       capture_output=True, text=True, timeout=300)
    try:
        summ = json.loads(r.stdout)
    except ValueError:
        return ["--summary --json unreadable (exit %d): %s" % (r.returncode, r.stderr[-500:])]
    t = summ.get("totals", {})
    prods = summ.get("producers", [])
    produced = sum(p.get("events", {}).get("produced", 0) for p in prods)
    s["summary"] = {"totals": t, "produced": produced,
                    "complete": all(p.get("complete") for p in prods)}
    s["store_bytes"] = sum(os.path.getsize(os.path.join(d, f))
                           for d, _, fs in os.walk(store) for f in fs)
    why = []
    if t.get("stored") != events or produced != events:
        why.append("store: %s stored, %s produced, %d expected" % (t.get("stored"), produced, events))
    if t.get("lost") or t.get("missing"):
        why.append("store: %s lost, %s missing" % (t.get("lost"), t.get("missing")))
    if not s["summary"]["complete"]:
        why.append("store: a producer is incomplete")
    return why


class Config:
    """One measured variant: how to run it, and its samples."""

    def __init__(self, name, kind, cmd, env=None, streams=1, events=0, cpus=None, store=False,
                 **info):
        self.name, self.kind, self.cmd = name, kind, cmd
        self.env, self.streams, self.events = dict(env or {}), streams, events
        self.cpus, self.store, self.info = cpus, store, info
        self.max_rounds = info.pop("max_rounds", None)
        self.samples = []

    def run(self, ctx):
        if self.kind in ("plain", "off", "lttng"):
            return run_plain(ctx, self.cmd, self.env, self.cpus)
        if self.kind == "nats":
            return run_nats(ctx, self.cmd, self.env, self.events)
        store = None
        if self.store:
            store = tempfile.mkdtemp(prefix="store-", dir=ctx.tmp)
        try:
            return run_streamed(ctx, self.cmd, self.env, self.streams, self.events, self.cpus, store)
        finally:
            if store:
                shutil.rmtree(store, ignore_errors=True)

    def measure(self, ctx):
        try:
            s = self.run(ctx)
        except RunError as e:
            s = {"valid": False, "why": str(e)}
        if not s.get("valid", True):
            ctx.invalid.append("%s: %s" % (self.name, s["why"]))
            log("INVALID run of %s: %s" % (self.name, s["why"]))
        self.samples.append(s)
        return s

    def to_json(self):
        return {"name": self.name, "kind": self.kind, "cmd": self.cmd, "env": self.env,
                "streams": self.streams, "events": self.events, "cpus": sorted(self.cpus or []),
                "store": self.store, "info": self.info, "max_rounds": self.max_rounds,
                "samples": self.samples}


def interleaved(ctx, configs, rounds, what, before_round=None):
    """`rounds` rounds, each running every config once in a new random order."""
    for r in range(rounds):
        order = [c for c in configs if c.max_rounds is None or r < c.max_rounds]
        ctx.rng.shuffle(order)
        t = time.monotonic()
        for c in order:
            if before_round:
                before_round(c)
            c.measure(ctx)
        log("%s: round %d/%d (%.1f s, load %.1f)" % (what, r + 1, rounds, time.monotonic() - t,
                                                      os.getloadavg()[0]))


def valid_times(c, key="flush_ns"):
    return [s[key] for s in c.samples if s.get("valid")]


# --------------------------------------------------------------------------
# 1. ReBIS Table 5.1


def part_table(ctx):
    """Threads x buffer sizes, the consumer free / pinned (VIGIL_STREAM_CPU) /
    ReBIS's full binding (producers on the other CPU), plus the plain and the
    not-streaming builds per thread count and one run into --store."""
    a, p = ctx.a, ctx.paths
    calls, events = a.table_calls, 2 * a.table_calls
    configs = []
    for t in THREADS:
        cmd = [p["traced"], str(calls), str(t)]
        configs.append(Config("plain-t%d" % t, "plain", [p["plain"], str(calls), str(t)],
                              threads=t, pin="-"))
        configs.append(Config("off-t%d" % t, "off", cmd, threads=t, pin="-"))
        for b in BUFFERS:
            env = {"VIGIL_STREAM_BUFFER": str(b * RECORD_BYTES)}
            pinned = dict(env, VIGIL_STREAM_CPU=str(CONSUMER_CPU))
            configs.append(Config("free-t%d-b%d" % (t, b), "stream", cmd, env, 1, events,
                                  threads=t, buffer=b, pin="free"))
            configs.append(Config("pinned-t%d-b%d" % (t, b), "stream", cmd, pinned, 1, events,
                                  threads=t, buffer=b, pin="consumer"))
            if a.bound_rounds:
                configs.append(Config("bound-t%d-b%d" % (t, b), "stream", cmd, pinned, 1, events,
                                      cpus={PRODUCER_CPU}, threads=t, buffer=b, pin="bound",
                                      max_rounds=a.bound_rounds))
    t, b = 8, 500
    configs.append(Config("store-t%d-b%d" % (t, b), "stream", [p["traced"], str(calls), str(t)],
                          {"VIGIL_STREAM_BUFFER": str(b * RECORD_BYTES)}, 1, events, store=True,
                          threads=t, buffer=b, pin="free"))
    log("table 5.1: %d configurations x %d rounds (the binding runs: %d), %d calls (%d events) "
        "per run" % (len(configs), a.table_rounds, a.bound_rounds, calls, events))
    interleaved(ctx, configs, a.table_rounds, "table 5.1")
    ctx.res["table"] = {"calls": calls, "events": events, "record_bytes": RECORD_BYTES,
                        "consumer_cpu": CONSUMER_CPU, "producer_cpu": PRODUCER_CPU,
                        "rebis": REBIS, "configs": [c.to_json() for c in configs]}


# --------------------------------------------------------------------------
# 2. buffered vs one send per event


def part_ratio(ctx):
    a, p = ctx.a, ctx.paths
    calls, events = a.ratio_calls, 2 * a.ratio_calls
    configs = []
    for t in THREADS:
        configs.append(Config("persend-t%d" % t, "stream", [p["persend"], str(calls), str(t)],
                              {}, t, events, threads=t))
        configs.append(Config("buffered-t%d" % t, "stream", [p["traced"], str(calls), str(t)],
                              {}, 1, events, threads=t))
    log("buffered vs per-send: %d configurations x %d rounds, %d events per run" % (
        len(configs), a.ratio_rounds, events))
    interleaved(ctx, configs, a.ratio_rounds, "buffered vs per-send")
    ctx.res["ratio"] = {"calls": calls, "events": events, "configs": [c.to_json() for c in configs]}


# --------------------------------------------------------------------------
# 3. producer cost per event, against LTTng-UST


class StreamLttng(base.Lttng):
    """bench/run.py's session handling, with buffers large enough that no
    event of a run is discarded (a discarded event would cost LTTng less)."""

    def start(self, tag):
        self.sessions += 1
        name = "vigilstream-%d-%d-%s" % (os.getpid(), self.sessions, tag)
        outdir = tempfile.mkdtemp(prefix="vigilstream-lttng-")
        try:
            self.lttng("create", name, "--output=" + os.path.join(outdir, "trace"))
            self.lttng("enable-channel", "-u", "-s", name, "vchan", "--subbuf-size=8M",
                       "--num-subbuf=8", "--tracefile-size=64M", "--tracefile-count=4")
            self.lttng("enable-event", "-u", "-s", name, "-c", "vchan", "vigilstream:*")
            self.lttng("start", name)
        except base.RunError as e:
            subprocess.run(["lttng", "destroy", name], capture_output=True, timeout=60)
            shutil.rmtree(outdir, ignore_errors=True)
            raise RunError(str(e))
        return name, outdir


def event_configs(ctx, n, warmup):
    p = ctx.paths
    cmd = lambda b: [p[b], str(n), "1", str(warmup)]  # noqa: E731
    cpus = {PRODUCER_CPU}
    # 1024 chunks of 64 KiB: the timed calls never wait for the consumer
    ring = {"VIGIL_STREAM_CPU": str(CONSUMER_CPU), "VIGIL_STREAM_CHUNKS": "1024"}
    events = 2 * (n + warmup)
    configs = [Config("plain", "plain", cmd("plain"), cpus=cpus),
               Config("vigil-off", "off", cmd("traced"), cpus=cpus),
               Config("vigil-stream", "stream", cmd("traced"), ring, 1, events, cpus=cpus)]
    if "lttng" in p and ctx.lttng_ok:
        configs.append(Config("lttng", "lttng", cmd("lttng"), cpus=cpus))
    return configs


def part_event(ctx):
    a = ctx.a
    n, warmup = a.event_calls, a.event_warmup
    ctx.lttng_ok = "lttng" in ctx.paths and not a.no_lttng and ctx.lttng.setup()
    configs = event_configs(ctx, n, warmup)
    res = ctx.res["event"] = {"calls": n, "warmup": warmup, "events": 2 * n,
                              "producer_cpu": PRODUCER_CPU, "consumer_cpu": CONSUMER_CPU,
                              "lttng_missing": None if ctx.lttng_ok else (
                                  ctx.lttng.reason or ctx.build_failed.get("lttng") or "--no-lttng")}
    session = None
    try:
        if ctx.lttng_ok:
            session = ctx.lttng.start("event")
        log("per event: %d configurations x %d rounds, %d timed calls after %d warm-up calls" % (
            len(configs), a.event_rounds, n, warmup))
        interleaved(ctx, configs, a.event_rounds, "per event")
        res["clocks"] = clock_costs(ctx)
        if not a.no_callgrind:
            res["callgrind"] = callgrind_all(ctx, with_session=True)
    finally:
        if session:
            res["lttng_session"] = ctx.lttng.stop(*session)
    if not a.no_callgrind:
        res["callgrind"].update(callgrind_all(ctx, with_session=False))
    res["configs"] = [c.to_json() for c in configs]


def clock_costs(ctx):
    out = []
    for _ in range(5):
        r = subprocess.run([ctx.paths["clocks"], "2000000"], capture_output=True, text=True,
                           timeout=60, preexec_fn=lambda: os.sched_setaffinity(0, {PRODUCER_CPU}))
        m = re.search(r"rdtsc_ns ([\d.]+) clock_gettime_ns ([\d.]+)", r.stdout)
        if m:
            out.append({"rdtsc_ns": float(m.group(1)), "clock_gettime_ns": float(m.group(2))})
    return out


def callgrind_run(ctx, binary, calls, env, streamed):
    """Instructions per thread of one run under callgrind (--separate-threads):
    {"threads": {n: Ir}, "worker": Ir of the last thread created (tick.c's
    worker: the runtime's consumer and LTTng's listeners start before main),
    "total": Ir of the whole process}."""
    d = tempfile.mkdtemp(prefix="cg-", dir=ctx.tmp)
    cmd = ["valgrind", "--tool=callgrind", "--separate-threads=yes",
           "--callgrind-out-file=" + os.path.join(d, "cg.out"), binary, str(calls), "1"]
    if streamed:
        s = run_streamed(ctx, cmd, env, 1, 2 * calls, timeout=1200)
        if not s["valid"]:
            raise RunError("callgrind run incomplete: " + s["why"])
    else:
        run_plain(ctx, cmd, env, timeout=1200)
    threads = {}
    for f in os.listdir(d):
        m = re.match(r"cg\.out-(\d+)$", f)
        if m:
            t = re.search(r"^(?:totals|summary): (\d+)", read(os.path.join(d, f)), re.M)
            threads[int(m.group(1))] = int(t.group(1)) if t else 0
    shutil.rmtree(d, ignore_errors=True)
    if not threads:
        raise RunError("callgrind wrote no per-thread counts: " + shlex.join(cmd))
    return {"threads": threads, "worker": threads[max(threads)], "total": sum(threads.values())}


def callgrind_all(ctx, with_session):
    """Per event: (Ir(2N calls) - Ir(N calls)) / 2N events, for the worker
    thread and for the whole process.  The streamed run gets a ring of 64
    chunks of 1 MiB, so the worker never waits (no spinning counted)."""
    a, p = ctx.a, ctx.paths
    n = a.callgrind_calls
    big = {"VIGIL_STREAM_BUFFER": "1M", "VIGIL_STREAM_CHUNKS": "64"}
    if with_session:
        todo = [("vigil-stream", p["traced"], big, True)]
        if ctx.lttng_ok:
            todo.append(("lttng", p["lttng"], {}, False))
    else:
        todo = [("plain", p["plain"], {}, False), ("vigil-off", p["traced"], {}, False)]
        if "lttng" in p:
            todo.append(("lttng-off", p["lttng"], {}, False))
    out = {}
    for name, binary, env, streamed in todo:
        try:
            r1 = callgrind_run(ctx, binary, n, env, streamed)
            r2 = callgrind_run(ctx, binary, 2 * n, env, streamed)
        except RunError as e:
            out[name] = {"error": str(e)}
            log("callgrind %s: %s" % (name, e))
            continue
        out[name] = {"calls": [n, 2 * n], "runs": [r1, r2],
                     "worker_per_event": (r2["worker"] - r1["worker"]) / (2 * n),
                     "total_per_event": (r2["total"] - r1["total"]) / (2 * n)}
        log("callgrind %s: %.1f instructions per event (worker thread), %.1f (process)" % (
            name, out[name]["worker_per_event"], out[name]["total_per_event"]))
    return out


# --------------------------------------------------------------------------
# 4. end to end


def nats_available(ctx):
    h = base.sh([ctx.a.vigil, "collect", "--help"])
    if "--nats" not in h:
        return "`vigil collect --help` has no --nats option (NATS JetStream scale-out not there yet)"
    if not shutil.which("nats-server"):
        return "nats-server not found (Debian: apt-get install nats-server)"
    return None


def part_e2e(ctx):
    """Events/s from the first event to the last acknowledgement, into
    `vigil collect --store`, without a store and through NATS, lossless, over
    loopback TCP, default settings: the producer keeps up to
    VIGIL_STREAM_RETAIN of unacknowledged batches (its RSS shows them), then
    its threads wait for the collector (docs/stream-format.md, "Delivery")."""
    a, p = ctx.a, ctx.paths
    calls, t = a.e2e_calls, a.e2e_threads
    events = 2 * calls
    env = {}
    cmd = [p["traced"], str(calls), str(t)]
    configs = [Config("e2e-store", "stream", cmd, env, 1, events, store=True, threads=t),
               Config("e2e-nostore", "stream", cmd, env, 1, events, threads=t)]
    nats = nats_available(ctx)
    if nats is None:
        configs.append(Config("e2e-nats", "nats", cmd, env, 1, events, threads=t))
    else:
        log("end to end through NATS: not measured: " + nats)
    log("end to end: %d configurations x %d rounds, %d events, %d producer threads" % (
        len(configs), a.e2e_rounds, events, t))
    interleaved(ctx, configs, a.e2e_rounds, "end to end")
    ctx.res["e2e"] = {"calls": calls, "events": events, "threads": t, "env": env,
                      "nats": nats, "nats_server": base.sh(["nats-server", "--version"]),
                      "configs": [c.to_json() for c in configs]}


# --------------------------------------------------------------------------
# 5. vigil record


def record_missing(ctx):
    if os.geteuid() != 0:
        return "not root (vigil record needs CAP_BPF and CAP_PERFMON)"
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        return "no /sys/kernel/btf/vmlinux"
    loader = os.path.join(os.path.dirname(os.path.realpath(ctx.a.vigil)), "vigil-bpf-record")
    if not os.access(loader, os.X_OK):
        return "%s not built" % loader
    return None


def part_record(ctx):
    """Uprobe + uretprobe on tick() of the plain build, and the
    syscalls:sys_enter_getppid tracepoint, each against the same program
    unrecorded; the program times its own loop (attaching is not counted)."""
    a, p = ctx.a, ctx.paths
    missing = record_missing(ctx)
    ctx.res["record"] = {"missing": missing}
    if missing:
        log("vigil record: not measured: " + missing)
        return
    calls, sys_calls = a.record_calls, a.record_syscalls
    rec = [a.vigil, "record"]
    configs = [
        Config("tick-plain", "plain", [p["plain"], str(calls), "1"]),
        Config("tick-uprobes", "stream", rec + ["--uprobe", p["plain"] + ":tick", "--",
                                                p["plain"], str(calls), "1"], {}, 1, 2 * calls),
        Config("getppid-plain", "plain", [p["getppid"], str(sys_calls)]),
        Config("getppid-tracepoint", "stream", rec + ["--tracepoint", "syscalls:sys_enter_getppid",
                                                      "--", p["getppid"], str(sys_calls)],
               {}, 1, sys_calls)]
    log("vigil record: %d configurations x %d rounds" % (len(configs), a.record_rounds))
    interleaved(ctx, configs, a.record_rounds, "vigil record")
    ctx.res["record"].update(calls=calls, syscalls=sys_calls,
                             configs=[c.to_json() for c in configs])


# --------------------------------------------------------------------------
# driver


def environment(a):
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    try:
        with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
            clocksource = f.read().strip()
    except OSError:
        clocksource = ""
    git = base.sh(["git", "-C", REPO, "rev-parse", "--short", "HEAD"])
    dirty = base.sh(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"])
    lib = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(a.vigil_cc))),
                       "lib", "libvigil.a")
    return {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "host": platform.node(), "cpu": cpu, "cpus": os.cpu_count(),
        "kernel": platform.release(),
        "os": base.sh(["sh", "-c", ". /etc/os-release && echo $PRETTY_NAME"]),
        "clocksource": clocksource,
        "clang": base.sh([a.clang, "--version"]).splitlines()[0],
        "vigil_git": git + (" (modified: %s)" % " ".join(dirty.split()[1::2]) if dirty else ""),
        "vigil_sha256": base.sha256_file(os.path.realpath(a.vigil))[:16],
        "libvigil_sha256": base.sha256_file(lib)[:16] if os.path.exists(lib) else None,
        "valgrind": base.sh(["valgrind", "--version"]),
        "lttng": base.sh(["lttng", "--version"]).splitlines()[0] if shutil.which("lttng") else None,
        "python": platform.python_version(), "numpy": np.__version__,
        "loadavg_start": os.getloadavg(), "seed": a.seed,
    }


class Ctx:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.tmp = tempfile.mkdtemp(prefix="vigil-stream-bench-")
        self.invalid = []
        self.res = {}
        self.paths, self.build_failed = {}, {}
        self.watched = []  # other processes whose peak RSS a run reports (NATS)
        self.lttng, self.lttng_ok = StreamLttng(), False


PARTS = {"table": part_table, "ratio": part_ratio, "event": part_event, "e2e": part_e2e,
         "record": part_record}


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vigil", default=os.path.join(REPO, "build", "bin", "vigil"))
    ap.add_argument("--vigil-cc", default=None, help="default: vigil-cc next to --vigil")
    ap.add_argument("--clang", default="clang-19")
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "bench", "stream"))
    ap.add_argument("--out", default=os.path.join(BENCH, "results"))
    ap.add_argument("--quick", action="store_true", help="smoke test: small runs, 1-2 rounds")
    ap.add_argument("--parts", default=",".join(PARTS), help="subset of " + ",".join(PARTS))
    ap.add_argument("--seed", type=int, default=None, help="shuffle seed (default: random)")
    ap.add_argument("--no-lttng", action="store_true")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite the report and plots from OUT/stream.json")
    q = "--quick" in sys.argv
    sizes = [  # option, default, quick, help
        ("table-calls", 200_000, 20_000, "calls per Table 5.1 run (2 events each), all threads"),
        ("table-rounds", 8, 1, "interleaved rounds of the Table 5.1 runs"),
        ("bound-rounds", 3, 1, "of which ReBIS's full binding runs in the first (0: none)"),
        ("ratio-calls", 100_000, 5_000, "calls per buffered/per-send run"),
        ("ratio-rounds", 3, 1, "rounds of buffered vs per-send"),
        ("event-calls", 1_000_000, 100_000, "timed calls per per-event run (1 thread)"),
        ("event-warmup", 1_400_000, 140_000, "untimed calls first (fault the ring in)"),
        ("event-rounds", 11, 2, "rounds of the per-event runs"),
        ("callgrind-calls", 100_000, 10_000, "N of the callgrind runs (N and 2N)"),
        ("e2e-calls", 5_000_000, 500_000, "calls per end-to-end run"),
        ("e2e-threads", 2, 2, "producer threads end to end"),
        ("e2e-rounds", 3, 1, "rounds end to end"),
        ("record-calls", 20_000, 2_000, "calls of tick() under vigil record's uprobes"),
        ("record-syscalls", 300_000, 20_000, "getppid() calls under the tracepoint"),
        ("record-rounds", 3, 1, "rounds of vigil record"),
    ]
    for opt, d, dq, h in sizes:
        ap.add_argument("--" + opt, type=int, default=dq if q else d,
                        help="%s (default %d; quick %d)" % (h, d, dq))
    a = ap.parse_args()
    a.parts = [x for x in a.parts.split(",") if x]
    bad = [x for x in a.parts if x not in PARTS]
    if bad:
        ap.error("unknown part(s): %s" % ", ".join(bad))
    if a.seed is None:
        a.seed = random.SystemRandom().randrange(1 << 31)
    a.vigil = os.path.abspath(a.vigil)
    a.vigil_cc = os.path.abspath(a.vigil_cc or os.path.join(os.path.dirname(a.vigil), "vigil-cc"))
    a.build_dir, a.out = os.path.abspath(a.build_dir), os.path.abspath(a.out)
    return a


def write_outputs(res, out):
    """The report and plots, from res as stream.json holds it (string keys)."""
    res = json.loads(json.dumps(res, default=float))
    os.makedirs(out, exist_ok=True)
    date = res["environment"]["date"][:10]
    md = os.path.join(out, "stream-%s.md" % date)
    files = report.plot_all(res, out)
    report.write_report(res, md)
    return md, files


def measure(a):
    for tool in [a.clang] + ([] if a.no_callgrind else ["valgrind"]):
        if not shutil.which(tool):
            raise Fatal("%s not found (Debian: clang-19, valgrind)" % tool, 2)
    for path in (a.vigil, a.vigil_cc):
        if not os.access(path, os.X_OK):
            raise Fatal("%s not found (make build, or --vigil)" % path, 2)
    ctx = Ctx(a)
    try:
        ctx.paths, ctx.build_failed = Builder(a).build_all(not a.no_lttng)
        ctx.res["environment"] = environment(a)
        ctx.res["params"] = {k: v for k, v in vars(a).items()
                             if isinstance(v, (int, float, str, list, bool))}
        for part in a.parts:
            t = time.monotonic()
            PARTS[part](ctx)
            ctx.res.setdefault("seconds", {})[part] = time.monotonic() - t
    finally:
        ctx.lttng.teardown()
        shutil.rmtree(ctx.tmp, ignore_errors=True)
    ctx.res["environment"]["loadavg_end"] = os.getloadavg()
    ctx.res["grace_s"] = GRACE_S
    ctx.res["invalid"] = ctx.invalid
    return ctx.res


def main():
    a = parse_args()
    if a.report_only:
        with open(os.path.join(a.out, "stream.json")) as f:
            res = json.load(f)
        md, files = write_outputs(res, a.out)
        log("rewrote %s and %d plots from stream.json" % (md, len(files)))
        return
    t0 = time.monotonic()
    try:
        res = measure(a)
    except Fatal as e:
        log("FATAL: %s" % e)
        sys.exit(e.code)
    except KeyboardInterrupt:
        log("interrupted")
        sys.exit(130)
    res["seconds"]["total"] = time.monotonic() - t0
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "stream.json"), "w") as f:
        json.dump(res, f, indent=1, default=float)
    md, files = write_outputs(res, a.out)
    log("wrote %s, stream.json and %d plots; total %.0f s" % (md, len(files), res["seconds"]["total"]))
    if res["invalid"]:
        log("%d run(s) were incomplete (listed in the report)" % len(res["invalid"]))
        sys.exit(4)


if __name__ == "__main__":
    main()
