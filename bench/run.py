#!/usr/bin/env python3
"""vigil benchmark suite (bench/README.md).

Builds the Table 5.1 microbenchmarks A-M in four variants (plain, hand-written
check, vigil, LTTng-UST) and two localities (global, per-thread), runs them
interleaved, counts instructions with callgrind, runs the sweeps of Figures
5.2-5.4 plus the inactive-assertion sweep, and writes a dated Markdown report,
latest.json (every raw sample) and PNG plots.

    python3 bench/run.py                 # full suite (<= 10 minutes on 2 cores)
    python3 bench/run.py --quick --out /tmp/q   # smoke test (well under a minute)

Needs python3 with scipy and matplotlib (Debian: python3-scipy,
python3-matplotlib); if the python3 on PATH lacks them, the script re-runs
itself with /usr/bin/python3.
"""

import os
import sys

# These benchmarks measure instrumentation: the static checker, on by default
# when optimising, would remove what it proves (docs/static.md).
os.environ["VIGIL_STATIC"] = "off"


def _ensure_deps():
    try:
        import matplotlib  # noqa: F401
        import numpy  # noqa: F401
        import scipy.stats  # noqa: F401
        return
    except ImportError as e:
        missing = str(e)
    cand = "/usr/bin/python3"
    if (os.environ.get("VIGIL_BENCH_REEXEC") != "1" and os.path.exists(cand)
            and os.path.realpath(sys.executable) != os.path.realpath(cand)):
        os.environ["VIGIL_BENCH_REEXEC"] = "1"
        os.execv(cand, [cand] + sys.argv)
    sys.exit("run.py: needs numpy, scipy and matplotlib (%s); on Debian: "
             "apt-get install -y python3-scipy python3-matplotlib" % missing)


_ensure_deps()

import argparse  # noqa: E402
import concurrent.futures  # noqa: E402
import datetime  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import shlex  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import scipy  # noqa: E402
import scipy.stats  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SRC = os.path.join(HERE, "src")

BENCHES = list("ABCDEFGHIJKLM")
LOCALITIES = ["global", "perthread"]
COLUMNS = ["events", "static", "non-static", "optional", "OR-ed events",
           "OR-ed automata", "called before", "called after"]
# Table 5.1 of the dissertation.
TABLE_5_1 = {
    "A": (4, 3, 1, 0, 0, 0, 1, 2), "B": (4, 3, 1, 1, 0, 0, 1, 3),
    "C": (6, 5, 1, 1, 4, 0, 1, 3), "D": (6, 5, 1, 1, 4, 0, 3, 3),
    "E": (6, 5, 1, 1, 4, 0, 2, 2), "F": (6, 5, 1, 1, 4, 0, 3, 2),
    "G": (4, 2, 2, 0, 2, 0, 4, 1), "H": (5, 2, 3, 0, 4, 0, 4, 2),
    "I": (6, 6, 0, 0, 0, 2, 1, 2), "J": (6, 5, 1, 0, 0, 2, 1, 1),
    "K": (9, 8, 1, 0, 0, 3, 1, 1), "L": (9, 9, 0, 0, 2, 3, 2, 1),
    "M": (9, 9, 0, 1, 2, 3, 2, 1),
}
# The same columns for bench/src/bench_X.c (events counted without bounds and
# without TESLA_ASSERTION_SITE; see README.md).  Only A differs (Assertion 5.1
# verbatim names three events).
OURS = dict(TABLE_5_1)
OURS["A"] = (3, 2, 1, 0, 0, 0, 1, 2)

# Timed variants: (name, binary kind, environment).
VIGIL_ALGOS = [
    ("vigil-tags", {"VIGIL_ALGORITHM": "tags"}),
    ("vigil-history", {"VIGIL_ALGORITHM": "history"}),
    ("vigil-history-np", {"VIGIL_ALGORITHM": "history", "VIGIL_PRECISE": "0"}),
]
# hand-locked: the hand-written check under one spin lock, the floor of a
# global assertion (issue 15); built for the global locality only.
TIMED = ([("plain", "plain", {}), ("hand", "hand", {}), ("hand-locked", "hand-locked", {})]
         + [(n, "vigil", e) for n, e in VIGIL_ALGOS] + [("lttng", "lttng", {})])
VARIANT_LABEL = {
    "plain": "plain", "hand": "hand", "hand-locked": "hand, one lock", "vigil-tags": "vigil tags",
    "vigil-history": "vigil history", "vigil-history-np": "vigil history non-precise",
    "lttng": "LTTng-UST",
}



def floor_kinds(loc):
    """The hand-written floors built for a locality: the plain variant (the
    first), the hand-written check, and for global the same under one lock."""
    return ("plain", "hand") + (("hand-locked",) if loc == "global" else ())


# Benchmark F's assertion and bound, and benchmark A's, for the generated
# sweep sources (they mirror bench/src/bench_F.c and bench_A.c).
F_ASSERT = ("BENCH_ASSERT(TSEQUENCE(call(callOne) || call(callFour), "
            "optional(call(callThree)), TESLA_ASSERTION_SITE, "
            "call(callArgs(i, ANY(ptr), 3)), call(callTwo) || call(callFive)));")
A_ASSERT = ("BENCH_ASSERT(TSEQUENCE(call(callOne), TESLA_ASSERTION_SITE, "
            "call(callArgs(i, ANY(ptr), 3)), call(callTwo)));")
INACTIVE_ASSERT = ("BENCH_ASSERT(TSEQUENCE(call(neverOne), TESLA_ASSERTION_SITE, "
                   "call(neverArgs(i, ANY(ptr), 3)), call(neverTwo)));")

T0 = time.monotonic()


def log(msg):
    sys.stderr.write("[%6.1fs] %s\n" % (time.monotonic() - T0, msg))
    sys.stderr.flush()


class Fatal(Exception):
    def __init__(self, msg, code=1):
        super().__init__(msg)
        self.code = code


# --------------------------------------------------------------------------
# statistics


def summary(samples):
    a = np.asarray(samples, dtype=float)
    q1, med, q3 = np.percentile(a, [25, 50, 75])
    return {"median": float(med), "q1": float(q1), "q3": float(q3),
            "iqr": float(q3 - q1), "n_samples": int(a.size)}


def mwu(a, b):
    try:
        if len(a) < 2 or len(b) < 2:
            return None
        return float(scipy.stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)
    except ValueError:
        return None


def ks(a, b):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "exact calculation unsuccessful": asymptotic p
            return float(scipy.stats.ks_2samp(a, b).pvalue)
    except ValueError:
        return None


def ratio(a, b, floor=0.5):
    """a / b, or None when b is below the timing resolution."""
    if a is None or b is None or b < floor:
        return None
    return a / b


# --------------------------------------------------------------------------
# environment


def sh(cmd, **kw):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30, **kw)
        return (r.stdout + r.stderr).strip()
    except (OSError, subprocess.TimeoutExpired) as e:
        return "unavailable (%s)" % e


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def machine(clang, **extra):
    """What a workload benchmark's report says about where it ran
    (bench/atomic, bench/static): date, CPU, kernel, vigil's commit, clang."""
    env = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "cpu": cpu_model(),
           "cpus": os.cpu_count(), "kernel": platform.release(),
           "vigil_git": sh(["git", "-C", REPO, "rev-parse", "--short", "HEAD"]),
           "clang": sh([clang, "--version"]).splitlines()[0]}
    env.update(extra)
    env.update({"loadavg_start": os.getloadavg(), "python": platform.python_version()})
    return env


def cached_build(name, cmd, out, key_extra, timeout=900):
    """Runs cmd (which writes out) unless the same command with the same
    key_extra (the sources and toolchain it depends on) built out already.
    Returns (out, the command's output, whether it was cached)."""
    key = hashlib.sha256((json.dumps(cmd) + key_extra).encode()).hexdigest()
    meta = out + ".meta.json"
    try:
        with open(meta) as f:
            m = json.load(f)
        if m["key"] == key and os.path.exists(out):
            return out, m.get("output", ""), True
    except (OSError, ValueError, KeyError):
        pass
    t = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0 or not os.path.exists(out):
        raise Fatal("build of %s failed (exit %d)\n  $ %s\n%s" % (
            name, r.returncode, shlex.join(cmd), (r.stdout + r.stderr)[-3000:]), 2)
    with open(meta, "w") as f:
        json.dump({"key": key, "cmd": cmd, "seconds": time.monotonic() - t,
                   "output": r.stdout + r.stderr}, f)
    return out, r.stdout + r.stderr, False


def environment(args, vigil_root):
    cpu = cpu_model()
    clocksource = ""
    try:
        with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
            clocksource = f.read().strip()
    except OSError:
        pass
    libvigil = os.path.join(vigil_root, "lib", "libvigil.a")
    precise_known = None
    try:
        with open(libvigil, "rb") as f:
            precise_known = b"VIGIL_PRECISE" in f.read()
    except OSError:
        pass
    git = sh(["git", "-C", REPO, "rev-parse", "--short", "HEAD"])
    dirty = sh(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"])
    return {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "host": platform.node(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "kernel": platform.release(),
        "os": sh(["sh", "-c", ". /etc/os-release && echo $PRETTY_NAME"]),
        "clocksource": clocksource,
        "clang": sh([args.clang, "--version"]).splitlines()[0],
        "vigil_cc": args.vigil_cc,
        "vigil_git": git + (" (modified)" if dirty else ""),
        "libvigil_sha256": sha256_file(libvigil)[:16] if os.path.exists(libvigil) else None,
        "runtime_knows_VIGIL_PRECISE": precise_known,
        "valgrind": sh(["valgrind", "--version"]),
        "lttng": sh(["lttng", "--version"]).splitlines()[0] if shutil.which("lttng") else None,
        "python": platform.python_version(),
        "scipy": scipy.__version__,
        "numpy": np.__version__,
        "matplotlib": matplotlib.__version__,
        "loadavg_start": os.getloadavg(),
    }


# --------------------------------------------------------------------------
# building


class BuildError(Exception):
    pass


class Builder:
    def __init__(self, args, vigil_root):
        self.args = args
        self.bin_dir = os.path.join(args.build_dir, "bin")
        self.gen_dir = os.path.join(args.build_dir, "gen")
        os.makedirs(self.bin_dir, exist_ok=True)
        os.makedirs(self.gen_dir, exist_ok=True)
        h = hashlib.sha256()
        for name in sorted(os.listdir(SRC)):
            if name.endswith(".h"):
                h.update(name.encode())
                with open(os.path.join(SRC, name), "rb") as f:
                    h.update(f.read())
        with open(os.path.join(REPO, "include", "tesla.h"), "rb") as f:
            h.update(f.read())
        self.headers_hash = h.hexdigest()
        self.clang_id = sh([args.clang, "--version"])
        v = hashlib.sha256()
        vigil_bin = os.path.realpath(args.vigil_cc)
        files = [vigil_bin]
        libdir = os.path.join(vigil_root, "lib")
        if os.path.isdir(libdir):
            files += [os.path.join(libdir, n) for n in sorted(os.listdir(libdir))]
        for p in files:
            if os.path.isfile(p):
                v.update(p.encode())
                v.update(sha256_file(p).encode())
        self.vigil_id = v.hexdigest()
        self.times = {}  # name -> seconds of the last real compile
        self.cached = {}

    def command(self, kind, src, defines, out):
        defs = ["-D" + d for d in defines]
        if kind == "vigil":
            return ([self.args.vigil_cc, "-O2", "-I" + SRC] + defs
                    + [src, "-Wl,--strip-debug", "-o", out, "-lpthread"])
        cmd = [self.args.clang, "-O2", "-I" + os.path.join(REPO, "include"), "-I" + SRC]
        if kind == "hand":
            defs = defs + ["-DVARIANT_HAND"]
        elif kind == "hand-locked":
            defs = defs + ["-DVARIANT_HAND", "-DHAND_LOCKED"]
        elif kind == "lttng":
            defs = defs + ["-DVARIANT_LTTNG"]
        cmd += defs + [src, "-fuse-ld=lld", "-Wl,--strip-debug", "-o", out, "-lpthread"]
        if kind == "lttng":
            cmd += ["-llttng-ust", "-ldl"]
        return cmd

    def build(self, name, kind, src, defines=()):
        out = os.path.join(self.bin_dir, name)
        cmd = self.command(kind, src, list(defines), out)
        key = hashlib.sha256()
        key.update(json.dumps(cmd).encode())
        with open(src, "rb") as f:
            key.update(f.read())
        key.update(self.headers_hash.encode())
        key.update((self.vigil_id if kind == "vigil" else self.clang_id).encode())
        key = key.hexdigest()
        meta_path = out + ".meta.json"
        try:
            with open(meta_path) as f:
                meta = json.load(f)
            if meta.get("key") == key and os.path.exists(out):
                self.times[name] = meta.get("seconds")
                self.cached[name] = True
                return out
        except (OSError, ValueError):
            pass
        t = time.monotonic()
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            raise BuildError("%s: compiler timed out\n  $ %s" % (name, shlex.join(cmd)))
        secs = time.monotonic() - t
        if r.returncode != 0 or not os.path.exists(out):
            raise BuildError("%s: build failed (exit %d)\n  $ %s\n%s" % (
                name, r.returncode, shlex.join(cmd), (r.stdout + r.stderr).strip()[-4000:]))
        with open(meta_path, "w") as f:
            json.dump({"key": key, "seconds": secs, "cmd": cmd}, f)
        self.times[name] = secs
        self.cached[name] = False
        return out

    def build_all(self, jobs):
        """jobs: list of (name, kind, src, defines, optional_reason_key).
        Returns {name: path}; failures of optional (lttng) builds are
        returned in a separate dict instead of raising."""
        paths, optional_fail = {}, {}
        with concurrent.futures.ThreadPoolExecutor(self.args.jobs) as ex:
            futs = {ex.submit(self.build, n, k, s, d): (n, k) for n, k, s, d in jobs}
            for fut in concurrent.futures.as_completed(futs):
                name, kind = futs[fut]
                try:
                    paths[name] = fut.result()
                except BuildError as e:
                    if kind == "lttng":
                        optional_fail[name] = str(e)
                    else:
                        for f in futs:
                            f.cancel()
                        raise Fatal("build failed: %s" % e, 2)
        return paths, optional_fail


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w") as f:
        f.write(text)


def gen_copies(gen_dir, k):
    """Benchmark F's bound with k copies of its assertion (k sites)."""
    body = "\n".join("  " + F_ASSERT for _ in range(k))
    src = """/* Generated by bench/run.py: benchmark F (bench/src/bench_F.c) with %d
 * copies of its assertion, one per line, each a separate assertion with its
 * own site (Figure 5.4). */
#include "common.h"
#include "events.h"

NOINLINE void examplecall(int i) {
  BOUND_ENTER(i);
  callFour(4);
  callOne(1);
  callThree(3);
  SITE_REACHED(i);
%s
  callArgs(i, NULL, 3);
  callFive(5);
  BOUND_EXIT(i);
}

#include "main.h"
""" % (k, body)
    path = os.path.join(gen_dir, "copies_%d.c" % k)
    write_if_changed(path, src)
    return path


def gen_inactive(gen_dir, k):
    """Benchmark A plus k assertions on the same bound whose events
    (neverOne, neverArgs, neverTwo) are never called and whose sites, in
    inactive_sites(), are never reached."""
    body = "\n".join("  " + INACTIVE_ASSERT for _ in range(k))
    src = """/* Generated by bench/run.py: benchmark A (bench/src/bench_A.c) plus %d
 * inactive assertions on the same bound: their events are never called and
 * their sites (in inactive_sites, kept alive by a constructor that never calls
 * it) are never reached, so their automata never activate. */
#include "common.h"
#include "events.h"

NOINLINE void examplecall(int i) {
  BOUND_ENTER(i);
#ifdef INACTIVE_TOUCH
  neverOne(0); /* check build only: activates every extra assertion */
#endif
  callOne(1);
  SITE_REACHED(i);
  %s
  callArgs(i, NULL, 3);
  callTwo(2);
  BOUND_EXIT(i);
}

static volatile int inactive_never;
NOINLINE void inactive_sites(int i) {
  (void)i;
%s
}
__attribute__((constructor)) static void inactive_keep(void) {
  if (inactive_never)
    inactive_sites(0);
}

#include "main.h"
""" % (k, A_ASSERT, body)
    path = os.path.join(gen_dir, "inactive_%d.c" % k)
    write_if_changed(path, src)
    return path


# --------------------------------------------------------------------------
# running


def clean_env(extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIL_")}
    env.update(extra)
    return env


class RunError(Exception):
    pass


OUT_RE = re.compile(r"elapsed_ns (\d+) bounds (\d+) threads (\d+)")


def run_prog(path, n, threads, work, env, timeout=120, cpus=None):
    cmd = [path, str(n), str(threads), str(work)]
    pre = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           env=clean_env(env), preexec_fn=pre)
    except subprocess.TimeoutExpired:
        raise RunError("timed out after %ds: %s" % (timeout, shlex.join(cmd)))
    m = OUT_RE.search(r.stdout)
    if r.returncode != 0 or not m:
        sig = ""
        if r.returncode < 0:
            sig = " (%s)" % signal.Signals(-r.returncode).name
        raise RunError("exit status %d%s: %s\n%s" % (
            r.returncode, sig, shlex.join(cmd), (r.stderr or r.stdout).strip()[-3000:]))
    return int(m.group(1)) / int(m.group(2)), r.stderr


class Config:
    """One binary + environment + work amount, measured as a series of runs."""

    def __init__(self, name, path, kind, env, threads, work=0, cpus=None):
        self.name, self.path, self.kind = name, path, kind
        self.cpus = cpus
        self.env = dict(env)
        if kind == "vigil":
            self.env.setdefault("VIGIL_ON_FAILURE", "abort")
        self.threads, self.work = threads, work
        self.n = None
        self.samples = []
        self.warnings = []

    def run(self, n):
        try:
            per_bound, err = run_prog(self.path, n, self.threads, self.work, self.env,
                                      cpus=self.cpus)
        except RunError as e:
            if self.kind == "vigil" and ("assertion failed" in str(e) or "violation" in str(e)):
                raise Fatal("vigil variant %s reported a violation: %s" % (self.name, e), 3)
            if self.kind in ("vigil", "hand", "hand-locked", "plain"):
                raise Fatal("%s failed: %s" % (self.name, e), 3)
            raise
        if self.kind == "vigil" and ("assertion failed" in err or "violation" in err):
            raise Fatal("vigil variant %s reported a violation:\n%s" % (self.name, err[-3000:]), 3)
        if err.strip() and err.strip() not in self.warnings:
            self.warnings.append(err.strip()[:2000])
        return per_bound

    def calibrate(self, target_ns, max_n, min_n):
        """Choose N so that one run takes about target_ns.  Repeats until a
        run at the chosen N lands within [0.5, 2] x target (a run of a few
        bounds can be dominated by thread start-up, so N grows at most 20x
        per step)."""
        lo = max(min_n, self.threads)
        n = lo
        for _ in range(8):
            per = self.run(n)
            total = per * n
            if 0.5 * target_ns <= total <= 2 * target_ns:
                break
            if n >= max_n and total < 2 * target_ns:
                break
            if n <= lo and total > 2 * target_ns:
                break
            want = target_ns / max(per, 1e-3)
            n = int(max(lo, min(max_n, want, n * 20)))
        self.n = int(float("%.2g" % n))  # two significant digits
        self.n = max(lo, min(max_n, self.n))
        return self.n

    def measure(self):
        self.samples.append(self.run(self.n))


def interleaved(configs, warmup, rounds, rng, progress=None):
    for w in range(warmup):
        order = list(configs)
        rng.shuffle(order)
        for c in order:
            c.run(c.n)
    for r in range(rounds):
        order = list(configs)
        rng.shuffle(order)
        for c in order:
            c.measure()
        if progress:
            progress(r)


# --------------------------------------------------------------------------
# LTTng


def proc_pids(comm):
    pids = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/comm" % d) as f:
                    if f.read().strip() == comm:
                        pids.add(int(d))
            except OSError:
                pass
    return pids


class Lttng:
    def __init__(self):
        self.ok = False
        self.reason = None
        self.started_pids = set()
        self.sessions = 0

    def setup(self):
        for tool in ("lttng", "lttng-sessiond"):
            if not shutil.which(tool):
                self.reason = "%s not found (Debian: apt-get install -y lttng-tools liblttng-ust-dev)" % tool
                return False
        before = proc_pids("lttng-sessiond")
        if not before:
            log("LTTng: no session daemon running; starting lttng-sessiond --daemonize --no-kernel")
            r = subprocess.run(["lttng-sessiond", "--daemonize", "--no-kernel"],
                               capture_output=True, text=True, timeout=60)
            if r.returncode != 0:
                self.reason = "lttng-sessiond --daemonize failed (exit %d): %s" % (
                    r.returncode, (r.stdout + r.stderr).strip()[-1000:])
                return False
            self.started_pids = proc_pids("lttng-sessiond") - before
        for _ in range(50):
            r = subprocess.run(["lttng", "list"], capture_output=True, text=True, timeout=30)
            if r.returncode == 0:
                self.ok = True
                return True
            time.sleep(0.1)
        self.reason = "lttng list fails: %s" % (r.stdout + r.stderr).strip()[-1000:]
        return False

    def lttng(self, *argv):
        r = subprocess.run(["lttng"] + list(argv), capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RunError("lttng %s: exit %d: %s" % (" ".join(argv), r.returncode,
                                                     (r.stdout + r.stderr).strip()[-1000:]))
        return r.stdout + r.stderr

    def start(self, tag):
        self.sessions += 1
        name = "vigilbench-%d-%d-%s" % (os.getpid(), self.sessions, tag)
        outdir = tempfile.mkdtemp(prefix="vigilbench-lttng-")
        try:
            self.lttng("create", name, "--output=" + os.path.join(outdir, "trace"))
            # Bounded disk use: per-stream trace files rotate (4 x 8 MiB).
            self.lttng("enable-channel", "-u", "-s", name, "vchan", "--subbuf-size=1M",
                       "--num-subbuf=4", "--tracefile-size=8M", "--tracefile-count=4")
            self.lttng("enable-event", "-u", "-s", name, "-c", "vchan", "vigilbench:*")
            self.lttng("start", name)
        except RunError:
            subprocess.run(["lttng", "destroy", name], capture_output=True, timeout=60)
            shutil.rmtree(outdir, ignore_errors=True)
            raise
        return name, outdir

    def stop(self, name, outdir):
        info = {"discarded_events": 0, "lost_packets": 0, "trace_bytes": 0}
        try:
            text = self.lttng("stop", name)
            m = re.search(r"(\d+) events? (?:were|was) discarded", text)
            if m:
                info["discarded_events"] = int(m.group(1))
            m = re.search(r"(\d+) packets? (?:were|was) lost", text)
            if m:
                info["lost_packets"] = int(m.group(1))
            for root, _, files in os.walk(outdir):
                for f in files:
                    if f != "metadata":
                        info["trace_bytes"] += os.path.getsize(os.path.join(root, f))
        finally:
            subprocess.run(["lttng", "destroy", name], capture_output=True, timeout=60)
            shutil.rmtree(outdir, ignore_errors=True)
        return info

    def teardown(self):
        for pid in sorted(self.started_pids):
            try:
                os.kill(pid, signal.SIGTERM)
                log("LTTng: stopped the lttng-sessiond this run started (pid %d)" % pid)
            except OSError:
                pass


# --------------------------------------------------------------------------
# callgrind


def callgrind_ir(path, n, threads, env):
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", path,
           str(n), str(threads), "0"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=clean_env(env))
    m = re.search(r"Collected : (\d+)", r.stderr)
    if r.returncode != 0 or not m:
        raise Fatal("callgrind failed (exit %d): %s\n%s" % (
            r.returncode, shlex.join(cmd), r.stderr.strip()[-2000:]), 3)
    if "assertion failed" in r.stderr:
        raise Fatal("vigil reported a violation under callgrind: %s\n%s" % (
            shlex.join(cmd), r.stderr[-2000:]), 3)
    return int(m.group(1))


# --------------------------------------------------------------------------
# the suite


class Suite:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.res = {"matrix": {}, "callgrind": {}, "sweeps": {}, "selftest": {},
                    "validation": {}, "lttng": {}, "builds": {}}
        self.lttng = Lttng()

    # ---------------------------------------------------------------- builds
    def build(self):
        a = self.args
        jobs = []
        for b in a.benchmarks:
            src = os.path.join(SRC, "bench_%s.c" % b)
            for loc in a.localities:
                d = ["PERTHREAD"] if loc == "perthread" else []
                for kind in floor_kinds(loc) + ("vigil",) + (("lttng",) if not a.no_lttng else ()):
                    jobs.append(("%s-%s-%s" % (b, loc, kind), kind, src, d))
                if not a.no_selftest:
                    for kind in ("hand", "vigil"):
                        jobs.append(("%s-%s-%s-break" % (b, loc, kind), kind, src, d + ["BREAK"]))
        srcF = os.path.join(SRC, "bench_F.c")
        if a.no_sweeps:
            jobs.append(("F-alu-plain", "plain", srcF, ["WORK_ALU"]))  # the CPU probe
        else:
            for w in ("ALU", "MEM"):
                for kind in ("plain", "hand", "vigil"):
                    jobs.append(("F-%s-%s" % (w.lower(), kind), kind, srcF, ["WORK_" + w]))
            for k in a.copies:
                jobs.append(("copies-%d-vigil" % k, "vigil", gen_copies(self.builder.gen_dir, k), []))
            jobs.append(("copies-plain", "plain", gen_copies(self.builder.gen_dir, a.copies[0]), []))
            for k in (0, a.inactive):
                jobs.append(("inactive-%d-vigil" % k, "vigil", gen_inactive(self.builder.gen_dir, k), []))
            jobs.append(("inactive-%d-touch-vigil" % a.inactive, "vigil",
                         gen_inactive(self.builder.gen_dir, a.inactive), ["INACTIVE_TOUCH"]))
            jobs.append(("inactive-plain", "plain", gen_inactive(self.builder.gen_dir, 0), []))
        log("building %d programs into %s (%d jobs; cached by source/flags/toolchain hash)"
            % (len(jobs), self.builder.bin_dir, a.jobs))
        t = time.monotonic()
        self.paths, lttng_fail = self.builder.build_all(jobs)
        nbuilt = sum(1 for n in self.paths if not self.builder.cached.get(n))
        log("builds done in %.1fs (%d compiled, %d cached)" % (
            time.monotonic() - t, nbuilt, len(self.paths) - nbuilt))
        self.res["builds"] = {
            "wall_s": time.monotonic() - t, "compiled": nbuilt,
            "cached": len(self.paths) - nbuilt,
            "compile_s": self.builder.times,
            "cached_names": sorted(n for n, c in self.builder.cached.items() if c),
        }
        if lttng_fail:
            first = sorted(lttng_fail.items())[0]
            self.lttng_missing("LTTng variant does not build: %s" % first[1].splitlines()[0]
                               + "\n" + "\n".join(first[1].splitlines()[1:6]))

    def lttng_missing(self, reason):
        if self.res["lttng"].get("missing"):
            return
        self.res["lttng"]["missing"] = reason
        log("LTTng variant MISSING: %s" % reason)

    # ------------------------------------------------------- validation
    def threads_for(self, loc):
        return self.args.threads if loc == "perthread" else 1

    def validate(self):
        """Every vigil binary passes every bound (VIGIL_STATS) with each
        algorithm; hand and plain run; the -DBREAK builds are caught."""
        a = self.args
        n = 1000
        stat_re = re.compile(r"^\s*(\S+:\d+:\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$", re.M)
        checked = 0
        for b in a.benchmarks:
            for loc in a.localities:
                th = self.threads_for(loc)
                for kind in ("plain", "hand"):
                    try:
                        run_prog(self.paths["%s-%s-%s" % (b, loc, kind)], n, th, 0, {})
                    except RunError as ex:
                        raise Fatal("%s-%s-%s fails: %s" % (b, loc, kind, ex), 3)
                for vname, env in VIGIL_ALGOS:
                    name = "%s-%s-vigil" % (b, loc)
                    e = dict(env, VIGIL_STATS="1", VIGIL_ON_FAILURE="abort")
                    try:
                        _, err = run_prog(self.paths[name], n, th, 0, e)
                    except RunError as ex:
                        raise Fatal("vigil variant %s %s reported a violation or failed: %s"
                                    % (name, vname, ex), 3)
                    rows = stat_re.findall(err)
                    entry = {"assertions": len(rows)}
                    if rows:
                        _, inst, ev, passes, fails, dropped = rows[0]
                        entry.update(instances=int(inst), events=int(ev), passes=int(passes),
                                     failures=int(fails), dropped=int(dropped))
                        if int(fails) or int(passes) != n or int(dropped):
                            raise Fatal("vigil variant %s (%s): expected %d passes, 0 failures, "
                                        "0 dropped; VIGIL_STATS says:\n%s" % (name, vname, n, err), 3)
                    else:
                        entry["note"] = "VIGIL_STATS output not recognised"
                        log("warning: %s: VIGIL_STATS output not recognised; pass count not checked"
                            % name)
                    self.res["validation"]["%s/%s/%s" % (b, loc, vname)] = entry
                    checked += 1
        log("validation: %d vigil runs passed every bound (VIGIL_STATS), plain/hand run" % checked)
        if a.no_selftest:
            return
        bad = []
        for b in a.benchmarks:
            for loc in a.localities:
                th = self.threads_for(loc)
                for kind in ("hand", "vigil"):
                    name = "%s-%s-%s-break" % (b, loc, kind)
                    envs = VIGIL_ALGOS if kind == "vigil" else [("hand", {})]
                    for vname, env in envs:
                        e = dict(env, VIGIL_ON_FAILURE="abort", VIGIL_BACKTRACE="0")
                        try:
                            run_prog(self.paths[name], 50, th, 0, e)
                            caught = False
                        except RunError as ex:
                            caught = ("assertion failed" in str(ex)) if kind == "vigil" else "SIGABRT" in str(ex)
                        self.res["selftest"]["%s/%s/%s" % (b, loc, vname)] = caught
                        if not caught:
                            bad.append("%s (%s)" % (name, vname))
        if bad:
            raise Fatal("self-test: these -DBREAK builds violate their assertion but no "
                        "violation was reported: %s" % ", ".join(bad), 4)
        log("self-test: all %d -DBREAK runs reported the violation (vigil and hand-written)"
            % len(self.res["selftest"]))

    # ------------------------------------------------------------- pinning
    def choose_cpu(self):
        """Single-threaded runs (global locality, sweeps) are pinned to one
        CPU.  --pin auto probes each allowed CPU with a short ALU loop and
        takes the one whose run times vary least (on a shared VM the vCPUs can
        differ a lot); per-thread runs are never pinned."""
        a = self.args
        allowed = sorted(os.sched_getaffinity(0))
        probe = {"allowed": allowed}
        if a.pin == "none":
            self.pin = None
        elif a.pin != "auto":
            self.pin = {int(a.pin)}
        elif len(allowed) == 1:
            self.pin = {allowed[0]}
        else:
            path = self.paths["F-alu-plain"]
            stats = {}
            for _ in range(2):
                for c in allowed:
                    for _ in range(4):
                        per, _ = run_prog(path, 500, 1, 10000, {}, cpus={c})
                        stats.setdefault(c, []).append(per)
            for c in allowed:
                sm = summary(stats[c])
                probe["cpu%d" % c] = {"median_ns": sm["median"], "rel_iqr": sm["iqr"] / sm["median"]}
            best = min(allowed, key=lambda c: probe["cpu%d" % c]["rel_iqr"])
            self.pin = {best}
        probe["pinned"] = sorted(self.pin) if self.pin else None
        self.res["pinning"] = probe
        log("single-threaded runs pinned to CPU %s%s" % (
            probe["pinned"], "" if a.pin != "auto" or len(allowed) == 1 else " (probe: %s)" % ", ".join(
                "cpu%d median %.0f ns, IQR/median %.3f" % (c, probe["cpu%d" % c]["median_ns"],
                                                          probe["cpu%d" % c]["rel_iqr"]) for c in allowed)))

    # ----------------------------------------------------------- matrix
    def matrix(self):
        a = self.args
        lttng_ok = not a.no_lttng and not self.res["lttng"].get("missing")
        if lttng_ok and not self.lttng.setup():
            self.lttng_missing(self.lttng.reason)
            lttng_ok = False
        groups = [(b, loc) for b in a.benchmarks for loc in a.localities]
        for gi, (b, loc) in enumerate(groups):
            t = time.monotonic()
            th = self.threads_for(loc)
            configs = []
            for vname, kind, env in TIMED:
                if (kind == "lttng" and not lttng_ok) or kind not in ("vigil", "lttng") + floor_kinds(loc):
                    continue
                configs.append(Config(vname, self.paths["%s-%s-%s" % (b, loc, kind)], kind, env, th,
                                      cpus=self.pin if th == 1 else None))
            session = None
            lt_info = None
            if lttng_ok:
                try:
                    session = self.lttng.start("%s-%s" % (b, loc))
                except RunError as e:
                    self.lttng_missing("cannot create an LTTng session: %s" % e)
                    lttng_ok = False
                    configs = [c for c in configs if c.kind != "lttng"]
            try:
                for c in configs:
                    max_n = a.lttng_max_n if c.kind == "lttng" else a.max_n
                    try:
                        c.calibrate(a.target_ms * 1e6, max_n, a.min_n)
                    except RunError as e:
                        if c.kind != "lttng":
                            raise
                        self.lttng_missing("the LTTng-UST program fails: %s" % e)
                        lttng_ok = False
                configs = [c for c in configs if c.n is not None]
                try:
                    interleaved(configs, a.warmup, a.rounds, self.rng)
                except RunError as e:
                    raise Fatal("run failed: %s" % e, 3)
            finally:
                if session:
                    lt_info = self.lttng.stop(*session)
            g = self.res["matrix"].setdefault(b, {}).setdefault(loc, {})
            for c in configs:
                g[c.name] = dict(summary(c.samples), n=c.n, threads=c.threads, env=c.env,
                                 samples=c.samples, warnings=c.warnings)
            if lt_info is not None and "lttng" in g:
                g["lttng"]["lttng_session"] = lt_info
                if lt_info["trace_bytes"] == 0:
                    g["lttng"]["warnings"].append("no trace data was written")
                    log("warning: LTTng wrote no trace data for %s %s" % (b, loc))
            self.derive(g)
            log("[%2d/%d] %s %-9s %s  (%.1fs)" % (
                gi + 1, len(groups), b, loc, "  ".join(
                    "%s %.1f" % (c.name.replace("vigil-", ""), g[c.name]["median"]) for c in configs),
                time.monotonic() - t))

    @staticmethod
    def derive(g):
        plain = g.get("plain")
        if not plain:
            return
        d = {}
        for v in g:
            if v == "plain" or not isinstance(g[v], dict) or "samples" not in g[v]:
                continue
            ps, vs = plain["samples"], g[v]["samples"]
            k = min(len(ps), len(vs))
            paired = [vs[i] - ps[i] for i in range(k)]  # same round
            s = summary(paired)
            d[v] = {"added_median": s["median"], "added_q1": s["q1"], "added_q3": s["q3"],
                    "added_iqr": s["iqr"],
                    "added_of_medians": g[v]["median"] - plain["median"],
                    "mannwhitney_p_vs_plain": mwu(vs, ps)}
        hand = d.get("hand", {}).get("added_median")
        locked = d.get("hand-locked", {}).get("added_median")
        lt = d.get("lttng", {}).get("added_median")
        for v, _ in VIGIL_ALGOS:
            if v in d:
                d[v]["ratio_vs_hand"] = ratio(d[v]["added_median"], hand)
                if locked is not None:
                    d[v]["ratio_vs_hand_locked"] = ratio(d[v]["added_median"], locked)
                d[v]["ratio_vs_lttng"] = ratio(d[v]["added_median"], lt)
        g["derived"] = d

    # -------------------------------------------------------- callgrind
    def callgrind(self):
        a = self.args
        n = a.callgrind_n
        tasks = []
        cg_benches = [b for b in a.benchmarks if b in a.callgrind_benchmarks]
        for b in cg_benches:
            for loc in a.localities:
                for kind in ("plain",) + floor_kinds(loc)[1:] + ("vigil",):
                    path = self.paths["%s-%s-%s" % (b, loc, kind)]
                    env = {"VIGIL_ON_FAILURE": "abort"} if kind == "vigil" else {}
                    for m in (n, 2 * n):
                        tasks.append(((b, loc, kind, m), path, m, env))
        log("callgrind: %d runs (N = %d and 2N; per-thread programs with 1 thread), %d in parallel"
            % (len(tasks), n, a.jobs))
        t = time.monotonic()
        out = {}
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            futs = {ex.submit(callgrind_ir, p, m, 1, env): key for key, p, m, env in tasks}
            for fut in concurrent.futures.as_completed(futs):
                out[futs[fut]] = fut.result()
        for b in cg_benches:
            for loc in a.localities:
                row = {}
                for kind in ("plain",) + floor_kinds(loc)[1:] + ("vigil",):
                    i1, i2 = out[(b, loc, kind, n)], out[(b, loc, kind, 2 * n)]
                    row[kind] = {"ir_n": i1, "ir_2n": i2, "per_bound": (i2 - i1) / n}
                p = row["plain"]["per_bound"]
                row["vigil_added"] = row["vigil"]["per_bound"] - p
                row["hand_added"] = row["hand"]["per_bound"] - p
                row["vigil_vs_hand"] = ratio(row["vigil_added"], row["hand_added"], floor=0.5)
                if "hand-locked" in row:
                    row["hand_locked_added"] = row["hand-locked"]["per_bound"] - p
                    row["vigil_vs_hand_locked"] = ratio(row["vigil_added"], row["hand_locked_added"],
                                                        floor=0.5)
                self.res["callgrind"].setdefault(b, {})[loc] = row
        self.res["callgrind_meta"] = {
            "n": n, "threads": 1, "vigil_algorithm": "default algorithm, tags,",
            "formula": "(Ir(2N) - Ir(N)) / N", "wall_s": time.monotonic() - t}
        log("callgrind done in %.1fs" % (time.monotonic() - t))

    # ------------------------------------------------------------ sweeps
    def sweep_work(self, which):
        a = self.args
        points = a.sweep_points
        res = {"points": [], "test": "two-sample Kolmogorov-Smirnov (scipy.stats.ks_2samp, "
               "two-sided), vigil vs plain per-bound times, insignificant when p > 0.05",
               "insignificant_at": None, "rounds": a.sweep_rounds, "warmup": a.warmup,
               "vigil_algorithm": "default algorithm, tags", "benchmark": "F", "locality": "global"}
        t = time.monotonic()
        for w in points:
            configs = [Config(k, self.paths["F-%s-%s" % (which, k)], k, {}, 1, w, cpus=self.pin)
                       for k in ("plain", "vigil", "hand")]
            for c in configs:
                c.calibrate(a.sweep_target_ms * 1e6, a.max_n, 1)
            interleaved(configs, a.warmup, a.sweep_rounds, self.rng)
            p, v, h = (c.samples for c in configs)
            pt = {"work": w, "plain": dict(summary(p), samples=p, n=configs[0].n),
                  "vigil": dict(summary(v), samples=v, n=configs[1].n),
                  "hand": dict(summary(h), samples=h, n=configs[2].n)}
            pt["vigil_ratio"] = pt["vigil"]["median"] / pt["plain"]["median"]
            pt["hand_ratio"] = pt["hand"]["median"] / pt["plain"]["median"]
            pt["ks_p"] = ks(v, p)
            pt["ks_p_hand"] = ks(h, p)
            pt["mannwhitney_p"] = mwu(v, p)
            res["points"].append(pt)
            log("sweep %s N=%d: plain %.1f ns, vigil %.1f ns (x%.4f), hand x%.4f, KS p=%.3g" % (
                which, w, pt["plain"]["median"], pt["vigil"]["median"], pt["vigil_ratio"],
                pt["hand_ratio"], pt["ks_p"] if pt["ks_p"] is not None else float("nan")))
            if pt["ks_p"] is not None and pt["ks_p"] > 0.05 and a.sweep_rounds >= 5:
                res["insignificant_at"] = w
                break
        res["wall_s"] = time.monotonic() - t
        self.res["sweeps"][which] = res

    def sweep_copies(self):
        a = self.args
        t = time.monotonic()
        configs = [Config("plain", self.paths["copies-plain"], "plain", {}, 1, cpus=self.pin)]
        configs += [Config("vigil-%d" % k, self.paths["copies-%d-vigil" % k], "vigil", {}, 1,
                           cpus=self.pin) for k in a.copies]
        for c in configs:
            c.calibrate(a.sweep_target_ms * 1e6, a.max_n, 1)
        interleaved(configs, a.warmup, a.sweep_rounds, self.rng)
        plain = dict(summary(configs[0].samples), samples=configs[0].samples, n=configs[0].n)
        pts = []
        for k, c in zip(a.copies, configs[1:]):
            s = dict(summary(c.samples), samples=c.samples, n=c.n, copies=k)
            s["added"] = s["median"] - plain["median"]
            s["compile_s"] = self.builder.times.get("copies-%d-vigil" % k)
            pts.append(s)
        ks_ = np.array([p["copies"] for p in pts], float)
        ts = np.array([p["median"] for p in pts], float)
        fit = {}
        if len(ks_) >= 2:
            # Relative least squares (weights 1/t): K spans three decades, and
            # an unweighted fit would be decided by the largest K alone.
            slope, icpt = np.polyfit(ks_, ts, 1, w=1 / ts)
            pred = slope * ks_ + icpt
            ss_res = float(np.sum(((ts - pred) / ts) ** 2))
            ss_tot = float(np.sum(((ts - np.average(ts, weights=1 / ts ** 2)) / ts) ** 2))
            fit = {"slope_ns_per_assertion": float(slope), "intercept_ns": float(icpt),
                   "r2": 1 - ss_res / ss_tot if ss_tot > 0 else None,
                   "loglog_slope": float(np.polyfit(np.log(ks_), np.log(ts), 1)[0]),
                   "max_rel_residual": float(np.max(np.abs(ts - pred) / ts))}
            added = np.array([max(p["added"], 1e-3) for p in pts])
            fit["loglog_slope_added"] = float(np.polyfit(np.log(ks_), np.log(added), 1)[0])
        self.res["sweeps"]["copies"] = {"plain": plain, "points": pts, "fit": fit,
                                        "benchmark": "F", "locality": "global",
                                        "rounds": a.sweep_rounds, "wall_s": time.monotonic() - t}
        log("sweep copies: %s; slope %.1f ns/assertion, R^2 %s" % (
            ", ".join("%d: %.0f ns" % (p["copies"], p["median"]) for p in pts),
            fit.get("slope_ns_per_assertion", float("nan")),
            "%.4f" % fit["r2"] if fit.get("r2") is not None else "n/a"))

    def sweep_inactive(self):
        a = self.args
        t = time.monotonic()
        k = a.inactive
        configs = [Config("plain", self.paths["inactive-plain"], "plain", {}, 1, cpus=self.pin),
                   Config("A", self.paths["inactive-0-vigil"], "vigil", {}, 1, cpus=self.pin),
                   Config("A+%d" % k, self.paths["inactive-%d-vigil" % k], "vigil", {}, 1,
                          cpus=self.pin)]
        # The extra assertions must really be in the program.  VIGIL_STATS lists
        # only assertions that saw an event, so a check build (-DINACTIVE_TOUCH)
        # calls neverOne() inside the bound: every extra assertion is then
        # touched, none reaches its site, and all k + 1 must be listed.
        _, err = run_prog(self.paths["inactive-%d-touch-vigil" % k], 100, 1, 0,
                          {"VIGIL_STATS": "1", "VIGIL_ON_FAILURE": "abort"})
        m = re.search(r"statistics \((\d+) assertions\)", err)
        n_assert = int(m.group(1)) if m else None
        if n_assert is None:
            log("warning: inactive sweep: VIGIL_STATS output not recognised; assertion count not checked")
        elif n_assert != k + 1:
            raise Fatal("inactive sweep: expected %d assertions, VIGIL_STATS lists %d" % (k + 1, n_assert))
        for c in configs:
            c.calibrate(a.sweep_target_ms * 1e6, a.max_n, 1)
        rounds = 2 * a.sweep_rounds  # a small difference: more samples
        interleaved(configs, a.warmup, rounds, self.rng)
        s = [dict(summary(c.samples), samples=c.samples, n=c.n) for c in configs]
        base, extra = s[1]["median"], s[2]["median"]
        r = {"inactive": k, "assertions_listed_by_VIGIL_STATS": n_assert,
             "plain": s[0], "A": s[1], "A_plus_inactive": s[2],
             "added_ns": extra - base,
             "percent_of_A": 100 * (extra - base) / base,
             "percent_of_vigil_added": 100 * (extra - base) / max(base - s[0]["median"], 1e-9),
             "mannwhitney_p": mwu(configs[2].samples, configs[1].samples),
             "target_percent": 5.0, "locality": "global", "rounds": rounds,
             "compile_s": self.builder.times.get("inactive-%d-vigil" % k),
             "wall_s": time.monotonic() - t}
        r["target_met"] = r["percent_of_A"] < 5.0
        self.res["sweeps"]["inactive"] = r
        log("sweep inactive: A %.1f ns, A+%d inactive %.1f ns per bound: +%.1f%% (target < 5%%: %s)"
            % (base, k, extra, r["percent_of_A"], "met" if r["target_met"] else "NOT met"))

    # ------------------------------------------------------------------ run
    def run(self, vigil_root):
        a = self.args
        self.res["environment"] = environment(a, vigil_root)
        self.res["settings"] = {
            k: getattr(a, k) for k in (
                "quick", "rounds", "warmup", "target_ms", "max_n", "lttng_max_n", "min_n",
                "threads", "callgrind_n", "callgrind_benchmarks", "sweep_rounds", "sweep_target_ms", "sweep_points",
                "copies", "inactive", "seed", "benchmarks", "localities", "jobs", "pin")}
        self.res["command"] = shlex.join([sys.executable] + sys.argv)
        self.builder = Builder(a, vigil_root)
        self.build()
        self.validate()
        self.choose_cpu()
        try:
            log("timing %d benchmarks x %d localities: %s; %d warm-up + %d measured rounds, "
                "interleaved, ~%g ms per run" % (
                    len(a.benchmarks), len(a.localities),
                    ", ".join(n for n, _, _ in TIMED), a.warmup, a.rounds, a.target_ms))
            self.matrix()
        finally:
            self.lttng.teardown()
        if not a.no_sweeps:
            self.sweep_work("alu")
            self.sweep_work("mem")
            self.sweep_copies()
            self.sweep_inactive()
        if not a.no_callgrind:
            self.callgrind()
        self.res["environment"]["loadavg_end"] = os.getloadavg()
        self.res["total_wall_s"] = time.monotonic() - T0


# --------------------------------------------------------------------------
# report


def f1(x, nd=1):
    if x is None:
        return "n/a"
    if isinstance(x, float) and (x != x):
        return "n/a"
    if abs(x) >= 1000:
        return "%.0f" % x
    if abs(x) >= 100:
        return "%.1f" % x if nd > 1 else "%.0f" % x
    return "%.*f" % (nd, x)


def fp(p):
    if p is None:
        return "n/a"
    return "%.2g" % p


def fr(r):
    if r is None:
        return "n/a"
    return ("%.1fx" % r) if abs(r) >= 10 else ("%.2fx" % r)


# Issue 15's targets: vigil's added instructions per bound against the
# hand-written floor (per-thread: the check itself; global: under one lock),
# and vigil's added time against LTTng-UST tracing the same events.
INSTR_TARGET = {("A", "perthread"): 1.5}
INSTR_TARGET_DEFAULT = {"perthread": 2.0, "global": 3.0}
LTTNG_TARGET = 0.1


def write_targets(res, st, w):
    cg = res.get("callgrind") or {}
    w("## Against the targets (issue 15)")
    w("")
    w("Instructions: vigil's added instructions per bound (callgrind) divided by the hand-written "
      "check's: per-thread the check alone, global the check under one spin lock (`hand, one "
      "lock`). Time: vigil tags' added time divided by LTTng-UST's (median of per-round "
      "differences to plain). Targets: per-thread <= 2x (A <= 1.5x), global <= 3x, time <= "
      "%g of LTTng." % LTTNG_TARGET)
    w("")
    w("| bench | locality | vigil added | floor added | vigil / floor | target | met | "
      "vigil ns | LTTng ns | vigil / LTTng | met |")
    w("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---|")
    missed = 0
    for b in st["benchmarks"]:
        for loc in st["localities"]:
            r = cg.get(b, {}).get(loc)
            d = res["matrix"].get(b, {}).get(loc, {}).get("derived", {})
            target = INSTR_TARGET.get((b, loc), INSTR_TARGET_DEFAULT[loc])
            cells = ["-"] * 5
            if r:
                floor = r.get("hand_locked_added", r["hand_added"])
                q = r.get("vigil_vs_hand_locked", r["vigil_vs_hand"])
                ok = q is not None and q <= target
                missed += not ok
                cells = ["%.0f" % r["vigil_added"], "%.0f" % floor, fr(q), "%g" % target,
                         "yes" if ok else "**no**"]
            tc = ["-"] * 4
            if "vigil-tags" in d and "lttng" in d:
                q = d["vigil-tags"].get("ratio_vs_lttng")
                ok = q is not None and q <= LTTNG_TARGET
                missed += not ok
                tc = [f1(d["vigil-tags"]["added_median"]), f1(d["lttng"]["added_median"]), fr(q),
                      "yes" if ok else "**no**"]
            w("| %s | %s | %s |" % (b, loc, " | ".join(cells + tc)))
    w("")
    w("Targets missed in this run: %d." % missed)
    w("")


def write_report(res, path):
    env = res["environment"]
    st = res["settings"]
    L = []
    w = L.append
    w("# vigil benchmark suite, %s" % env["date"][:10])
    w("")
    w("Generated by `bench/run.py` (see `bench/README.md`). Command: `%s`." % res["command"])
    w("Total wall time: **%.0f s**%s." % (res["total_wall_s"], " (quick mode: numbers are smoke-test"
                                          " quality only)" if st["quick"] else ""))
    w("")
    w("## Environment")
    w("")
    w("| | |")
    w("|---|---|")
    for k in ("cpu", "cpus", "kernel", "os", "clocksource", "clang", "vigil_cc", "vigil_git",
              "libvigil_sha256", "runtime_knows_VIGIL_PRECISE", "valgrind", "lttng", "python",
              "scipy", "matplotlib", "loadavg_start", "loadavg_end"):
        v = env.get(k)
        if isinstance(v, (list, tuple)):
            v = " ".join("%.2f" % x for x in v)
        w("| %s | %s |" % (k, v))
    w("| rounds | %d measured + %d warm-up (discarded), variants interleaved in a new random "
      "order every round (seed %s) |" % (st["rounds"], st["warmup"], st["seed"]))
    w("| run length | each variant's bound count N is calibrated so that one run takes about "
      "%g ms (N <= %d; LTTng N <= %d); N per variant is listed below |" % (
          st["target_ms"], st["max_n"], st["lttng_max_n"]))
    pin = res.get("pinning", {})
    w("| pinning | single-threaded runs (global locality, sweeps): CPU %s of %s; per-thread runs: "
      "not pinned%s |" % (pin.get("pinned"), pin.get("allowed"), "".join(
          "; probe cpu%d: median %.0f ns, IQR/median %.3f" % (c, pin["cpu%d" % c]["median_ns"],
                                                            pin["cpu%d" % c]["rel_iqr"])
          for c in pin.get("allowed", []) if "cpu%d" % c in pin)))
    w("| threads | global: 1; per-thread: %d threads share the N bounds (wall time from the "
      "first thread leaving the start barrier to the last one finishing) |" % st["threads"])
    w("")
    if not env.get("runtime_knows_VIGIL_PRECISE"):
        w("Note: libvigil does not mention `VIGIL_PRECISE`, so *history non-precise* runs the "
          "same code as *history* until the non-precise mode lands.")
        w("")
    lt = res.get("lttng", {})
    if lt.get("missing"):
        w("**LTTng-UST variant missing:** %s" % lt["missing"].replace("\n", " "))
        w("")

    write_targets(res, st, w)
    w("## Benchmarks (Table 5.1)")
    w("")
    w("Events are counted without the two bounds and without `TESLA_ASSERTION_SITE`. "
      "Each cell shows this suite's assertion; where the dissertation's Table 5.1 differs it "
      "is given in brackets.")
    w("")
    w("| bench | " + " | ".join(COLUMNS) + " |")
    w("|---|" + "---:|" * len(COLUMNS))
    for b in st["benchmarks"]:
        cells = []
        for o, t in zip(OURS[b], TABLE_5_1[b]):
            cells.append(str(o) if o == t else "%d [%d]" % (o, t))
        w("| %s | %s |" % (b, " | ".join(cells)))
    w("")

    variants = [v for v, _, _ in TIMED]
    for loc in st["localities"]:
        w("## Time per bound, %s (ns, median [IQR])" % ("global" if loc == "global" else
                                                         "per-thread, %d threads" % st["threads"]))
        w("")
        w("| bench | " + " | ".join(VARIANT_LABEL[v] for v in variants) + " |")
        w("|---|" + "---:|" * len(variants))
        for b in st["benchmarks"]:
            g = res["matrix"].get(b, {}).get(loc, {})
            cells = []
            for v in variants:
                s = g.get(v)
                cells.append("%s [%s]" % (f1(s["median"]), f1(s["iqr"])) if s else "missing")
            w("| %s | %s |" % (b, " | ".join(cells)))
        w("")
        w("Bound count N per run:")
        w("")
        w("| bench | " + " | ".join(VARIANT_LABEL[v] for v in variants) + " |")
        w("|---|" + "---:|" * len(variants))
        for b in st["benchmarks"]:
            g = res["matrix"].get(b, {}).get(loc, {})
            w("| %s | %s |" % (b, " | ".join(("%d" % g[v]["n"]) if v in g else "-" for v in variants)))
        w("")
        w("### Added time per bound, %s (ns; median of per-round differences to plain)" % loc)
        w("")
        w("Ratios divide vigil's added time by the hand-written check's or LTTng's added time "
          "(n/a when the divisor is below 0.5 ns, i.e. under the timing resolution; the "
          "callgrind table gives an instruction-count ratio). p: Mann-Whitney U, vigil vs plain.")
        w("")
        w("| bench | hand | vigil tags | vigil history | history non-precise | LTTng | "
          "tags / hand | tags / LTTng | history / LTTng | non-precise / LTTng | p (tags) |")
        w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for b in st["benchmarks"]:
            d = res["matrix"].get(b, {}).get(loc, {}).get("derived", {})

            def add(v):
                return f1(d[v]["added_median"]) if v in d else "missing"

            def rat(v, k):
                return fr(d[v].get(k)) if v in d else "n/a"
            w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                b, add("hand"), add("vigil-tags"), add("vigil-history"), add("vigil-history-np"),
                add("lttng"), rat("vigil-tags", "ratio_vs_hand"), rat("vigil-tags", "ratio_vs_lttng"),
                rat("vigil-history", "ratio_vs_lttng"), rat("vigil-history-np", "ratio_vs_lttng"),
                fp(d["vigil-tags"]["mannwhitney_p_vs_plain"]) if "vigil-tags" in d else "n/a"))
        w("")
        lts = [(b, res["matrix"][b][loc]["lttng"].get("lttng_session"))
               for b in st["benchmarks"] if "lttng" in res["matrix"].get(b, {}).get(loc, {})]
        lts = [(b, x) for b, x in lts if x]
        if lts:
            disc = ", ".join("%s: %d" % (b, x["discarded_events"]) for b, x in lts
                             if x["discarded_events"])
            w("LTTng sessions (one per benchmark, discard mode, 4 x 1 MiB sub-buffers, trace files "
              "rotating 4 x 8 MiB per stream, written under a temporary directory): discarded "
              "events: %s." % (disc or "none"))
            w("")

    cg = res.get("callgrind")
    if cg:
        m = res["callgrind_meta"]
        w("## Instructions per bound (callgrind)")
        w("")
        w("Per bound = %s with N = %d; per-thread programs run with %d thread under callgrind; "
          "vigil with its %s no VIGIL_* settings." % (m["formula"], m["n"], m["threads"], m["vigil_algorithm"]))
        w("")
        w("| bench | locality | plain | hand | vigil | hand added | vigil added | vigil / hand |")
        w("|---|---|---:|---:|---:|---:|---:|---:|")
        for b in st["benchmarks"]:
            for loc in st["localities"]:
                r = cg.get(b, {}).get(loc)
                if not r:
                    continue
                w("| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %s |" % (
                    b, loc, r["plain"]["per_bound"], r["hand"]["per_bound"], r["vigil"]["per_bound"],
                    r["hand_added"], r["vigil_added"], fr(r["vigil_vs_hand"])))
        w("")

    sw = res.get("sweeps", {})
    for which, title, unit in (("alu", "ALU work in the bound (Figure 5.2)",
                                "N additions (the sum 2 + 4 + ... + 2N)"),
                               ("mem", "Memory stores in the bound (Figure 5.3)",
                                "N volatile int stores streaming through a 64 MiB array")):
        s = sw.get(which)
        if not s:
            continue
        w("## %s" % title)
        w("")
        w("Benchmark F, global, vigil (%s) vs plain and hand-written; %s per bound; %d rounds. "
          "Test: %s." % (s["vigil_algorithm"], unit, s["rounds"], s["test"]))
        w("")
        if s["insignificant_at"] is not None:
            w("**vigil's overhead becomes statistically insignificant at N = %d.**" % s["insignificant_at"])
        else:
            w("**vigil's overhead stayed significant up to N = %d (the largest point run).**" % (
                s["points"][-1]["work"] if s["points"] else 0))
        w("")
        w("| N | plain ns | vigil ns | hand ns | vigil / plain | hand / plain | KS p (vigil) | "
          "KS p (hand) | MWU p (vigil) | plain IQR / median |")
        w("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for p in s["points"]:
            w("| %d | %s | %s | %s | %.4f | %.4f | %s | %s | %s | %.3f |" % (
                p["work"], f1(p["plain"]["median"]), f1(p["vigil"]["median"]), f1(p["hand"]["median"]),
                p["vigil_ratio"], p["hand_ratio"], fp(p["ks_p"]), fp(p["ks_p_hand"]),
                fp(p["mannwhitney_p"]), p["plain"]["iqr"] / p["plain"]["median"]))
        w("")
        w("The last column is the run-to-run spread of the uninstrumented program at that N: once "
          "vigil's overhead is smaller than that spread the test cannot see it, and the ratio at "
          "that point is mostly noise.")
        w("")
    c = sw.get("copies")
    if c:
        w("## Number of assertions (Figure 5.4)")
        w("")
        w("Benchmark F, global; K copies of F's assertion on the same bound, each a separate "
          "assertion with its own site (generated source); vigil default algorithm; plain = %s ns "
          "per bound." % f1(c["plain"]["median"]))
        w("")
        w("| copies | ns per bound [IQR] | added ns | added per assertion | N | compile s |")
        w("|---:|---:|---:|---:|---:|---:|")
        for p in c["points"]:
            w("| %d | %s [%s] | %s | %s | %d | %s |" % (
                p["copies"], f1(p["median"]), f1(p["iqr"]), f1(p["added"]),
                f1(p["added"] / p["copies"]), p["n"], f1(p["compile_s"], 2)))
        w("")
        f = c["fit"]
        if f:
            w("Least-squares fit time = a + b K (relative errors, weights 1/time): **b = %s ns per "
              "assertion**, a = %s ns, weighted R^2 = %s, largest relative residual %.1f%%; log-log "
              "slope %.3f (total time) / %.3f (added time); 1.0 is linear." % (
                  f1(f["slope_ns_per_assertion"]), f1(f["intercept_ns"]),
                  "%.5f" % f["r2"] if f["r2"] is not None else "n/a",
                  100 * f["max_rel_residual"], f["loglog_slope"], f["loglog_slope_added"]))
            w("")
    i = sw.get("inactive")
    if i:
        w("## Inactive assertions")
        w("")
        w("Benchmark A, global, vigil, alone and with %d extra assertions on the same bound whose "
          "events are never called and whose sites are never reached (a check build that does "
          "call one of their events lists %s assertions in VIGIL_STATS)." % (
              i["inactive"], i["assertions_listed_by_VIGIL_STATS"]))
        w("")
        w("%d rounds, interleaved." % i["rounds"])
        w("")
        w("| program | ns per bound [IQR] | N |")
        w("|---|---:|---:|")
        for k, lab in (("plain", "plain"), ("A", "vigil, A"),
                       ("A_plus_inactive", "vigil, A + %d inactive" % i["inactive"])):
            w("| %s | %s [%s] | %d |" % (lab, f1(i[k]["median"]), f1(i[k]["iqr"]), i[k]["n"]))
        w("")
        sig = i["mannwhitney_p"] is not None and i["mannwhitney_p"] < 0.05
        w("**Added by the inactive assertions: %s ns per bound = %.1f%% of A's instrumented time "
          "(target < 5%%: %s)**; %.0f%% of vigil's own added time for A; the difference is %s "
          "(Mann-Whitney p = %s); compile time of the %d-assertion program: %s s." % (
              f1(i["added_ns"]), i["percent_of_A"], "met" if i["target_met"] else "NOT met",
              i["percent_of_vigil_added"], "statistically significant" if sig else
              "not statistically significant", fp(i["mannwhitney_p"]), i["inactive"],
              f1(i["compile_s"], 2)))
        w("")
    stt = res.get("selftest")
    if stt:
        ok = sum(1 for v in stt.values() if v)
        w("## Checks")
        w("")
        w("- Validation: every vigil program, with each algorithm, passed every one of 1000 "
          "bounds (VIGIL_STATS: passes = bounds, 0 failures, 0 dropped).")
        w("- Self-test: %d/%d `-DBREAK` builds (one event call omitted, so the bound violates "
          "the assertion) were caught, by vigil (each algorithm) and by the hand-written check."
          % (ok, len(stt)))
        w("")
    warns = []
    for b, locs in res["matrix"].items():
        for loc, g in locs.items():
            for v, s in g.items():
                if isinstance(s, dict) and s.get("warnings"):
                    warns.append("%s %s %s: %s" % (b, loc, v, s["warnings"][0][:300].replace("\n", " ")))
    if warns:
        w("## Warnings (stderr of the measured programs)")
        w("")
        for x in warns[:40]:
            w("- %s" % x)
        w("")
    b = res.get("builds", {})
    if b:
        w("Builds: %d compiled, %d reused from the cache, %.1f s." % (b["compiled"], b["cached"], b["wall_s"]))
        w("")
    with open(path, "w") as f:
        f.write("\n".join(L))


# --------------------------------------------------------------------------
# plots


def plot_all(res, out):
    st = res["settings"]
    bars = [("vigil-tags", "vigil tags", "#1f4e79"), ("vigil-history", "vigil history", "#2e75b6"),
            ("vigil-history-np", "vigil history non-precise", "#9dc3e6"),
            ("hand", "hand-written", "#548235"), ("lttng", "LTTng-UST", "#c55a11")]
    files = []
    for loc in st["localities"]:
        fig, ax = plt.subplots(figsize=(12, 4.5))
        benches = st["benchmarks"]
        width = 0.8 / len(bars)
        for j, (v, lab, col) in enumerate(bars):
            xs, ys, lo, hi = [], [], [], []
            for i, b in enumerate(benches):
                d = res["matrix"].get(b, {}).get(loc, {}).get("derived", {}).get(v)
                if not d:
                    continue
                m = max(d["added_median"], 0.1)
                xs.append(i + (j - (len(bars) - 1) / 2) * width)
                ys.append(m)
                lo.append(max(m - max(d["added_q1"], 0.1), 0))
                hi.append(max(max(d["added_q3"], 0.1) - m, 0))
            if xs:
                ax.bar(xs, ys, width, label=lab, color=col, yerr=[lo, hi], capsize=2,
                       error_kw={"elinewidth": 0.8})
        ax.set_yscale("log")
        ax.set_xticks(range(len(benches)))
        ax.set_xticklabels(benches)
        ax.set_xlabel("benchmark (Table 5.1)")
        ax.set_ylabel("added time per bound (ns, log scale)")
        ax.set_title("Pure overhead, %s (median, IQR error bars, %d rounds; values <= 0.1 ns drawn at 0.1)"
                     % ("global, 1 thread" if loc == "global" else "per-thread, %d threads" % st["threads"],
                        st["rounds"]))
        ax.legend(fontsize=8, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.13))
        ax.grid(axis="y", which="both", alpha=0.3)
        fig.tight_layout()
        fn = os.path.join(out, "fig-5.1-%s.png" % loc)
        fig.savefig(fn, dpi=120)
        plt.close(fig)
        files.append(fn)
    sw = res.get("sweeps", {})
    for which, fname, xl in (("alu", "fig-5.2-alu.png", "N (additions per bound: 2 + 4 + ... + 2N)"),
                             ("mem", "fig-5.3-memory.png", "N (memory stores per bound)")):
        s = sw.get(which)
        if not s or not s["points"]:
            continue
        fig, ax = plt.subplots(figsize=(7, 4.5))
        xs = [max(p["work"], 0.5) for p in s["points"]]

        def err(key):
            lo, hi = [], []
            for p in s["points"]:
                r = p[key]["median"] / p["plain"]["median"]
                lo.append(r - p[key]["q1"] / p["plain"]["median"])
                hi.append(p[key]["q3"] / p["plain"]["median"] - r)
            return [np.maximum(lo, 0), np.maximum(hi, 0)]
        ax.errorbar(xs, [p["vigil_ratio"] for p in s["points"]], yerr=err("vigil"), marker="o",
                    label="vigil", color="#1f4e79", capsize=2)
        ax.errorbar(xs, [p["hand_ratio"] for p in s["points"]], yerr=err("hand"), marker="s",
                    label="hand-written", color="#548235", capsize=2)
        ax.axhline(1.0, color="grey", lw=0.8)
        if s["insignificant_at"] is not None:
            x = max(s["insignificant_at"], 0.5)
            ax.axvline(x, color="#c00000", ls="--", lw=1)
            ax.annotate("KS p > 0.05\nat N = %d" % s["insignificant_at"], (x, ax.get_ylim()[1]),
                        xytext=(-5, -30), textcoords="offset points", ha="right", color="#c00000",
                        fontsize=8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xl + " (N = 0 drawn at 0.5)")
        ax.set_ylabel("time / plain time (log)")
        ax.set_title("Benchmark F, global: overhead vs work in the bound (%d rounds)" % s["rounds"])
        ax.legend(fontsize=8)
        ax.grid(which="both", alpha=0.3)
        fig.tight_layout()
        fn = os.path.join(out, fname)
        fig.savefig(fn, dpi=120)
        plt.close(fig)
        files.append(fn)
    c = sw.get("copies")
    if c and c["points"]:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        ks_ = [p["copies"] for p in c["points"]]
        ts = [p["median"] for p in c["points"]]
        yerr = [[max(p["median"] - p["q1"], 0) for p in c["points"]],
                [max(p["q3"] - p["median"], 0) for p in c["points"]]]
        ax.errorbar(ks_, ts, yerr=yerr, marker="o", color="#1f4e79", capsize=2, label="vigil")
        if c["fit"]:
            xx = np.logspace(0, np.log10(max(ks_)), 50)
            yy = c["fit"]["intercept_ns"] + c["fit"]["slope_ns_per_assertion"] * xx
            xx, yy = xx[yy > 0], yy[yy > 0]
            ax.plot(xx, yy, "--",
                    color="grey", lw=1, label="linear fit: %.0f ns + %.1f ns x K" % (
                        c["fit"]["intercept_ns"], c["fit"]["slope_ns_per_assertion"]))
        ax.axhline(c["plain"]["median"], color="#548235", lw=1, label="plain (no assertions)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("number of assertions K (copies of F's assertion)")
        ax.set_ylabel("time per bound (ns, log)")
        ax.set_title("Benchmark F, global: time vs number of assertions")
        ax.legend(fontsize=8)
        ax.grid(which="both", alpha=0.3)
        fig.tight_layout()
        fn = os.path.join(out, "fig-5.4-assertions.png")
        fig.savefig(fn, dpi=120)
        plt.close(fig)
        files.append(fn)
    return files


# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "bench"))
    ap.add_argument("--vigil-cc", default=os.path.join(REPO, "build", "bin", "vigil-cc"))
    ap.add_argument("--clang", default="clang-19")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: tiny N, 1 round, few sweep points")
    ap.add_argument("--rounds", type=int, help="measured rounds (default 11; quick 1)")
    ap.add_argument("--warmup", type=int, default=2, help="warm-up rounds, discarded (default 2)")
    ap.add_argument("--target-ms", type=float, help="length of one run (default 40; quick 2)")
    ap.add_argument("--max-n", type=int, default=10_000_000, help="most bounds per run")
    ap.add_argument("--lttng-max-n", type=int, default=1_000_000, help="most bounds per LTTng run")
    ap.add_argument("--min-n", type=int, default=1000, help="fewest bounds per run")
    ap.add_argument("--threads", type=int, default=4, help="threads of the per-thread locality")
    ap.add_argument("--callgrind-n", type=int, help="N for callgrind (default 100000; quick 2000)")
    ap.add_argument("--sweep-rounds", type=int,
                    help="rounds per sweep point (default 20; quick 5; the KS stop rule needs >= 5)")
    ap.add_argument("--sweep-target-ms", type=float, help="run length in the sweeps (default 30; quick 2)")
    ap.add_argument("--benchmarks", default="".join(BENCHES), help="subset, e.g. AFM")
    ap.add_argument("--callgrind-benchmarks", default=None,
                    help="benchmarks counted with callgrind (default all; quick AF)")
    ap.add_argument("--localities", default="global,perthread")
    ap.add_argument("--inactive", type=int, default=1000, help="inactive assertions added to A")
    ap.add_argument("--no-lttng", action="store_true")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--no-sweeps", action="store_true")
    ap.add_argument("--no-selftest", action="store_true", help="skip the -DBREAK builds and runs")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                    help="parallel builds and callgrind runs (timed runs are never parallel)")
    ap.add_argument("--seed", type=int, default=None, help="shuffle seed (default: random)")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite the report and plots from OUT/latest.json without running anything")
    ap.add_argument("--pin", default="auto",
                    help="CPU for single-threaded runs: auto (probe, default), none, or a CPU number")
    a = ap.parse_args()
    q = a.quick
    a.rounds = a.rounds if a.rounds is not None else (1 if q else 11)
    a.target_ms = a.target_ms if a.target_ms is not None else (2 if q else 40)
    a.callgrind_n = a.callgrind_n if a.callgrind_n is not None else (2000 if q else 100_000)
    a.sweep_rounds = a.sweep_rounds if a.sweep_rounds is not None else (5 if q else 20)
    a.sweep_target_ms = a.sweep_target_ms if a.sweep_target_ms is not None else (2 if q else 30)
    a.sweep_points = [0, 1000, 100000] if q else [
        0, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000, 300000, 1000000]
    a.copies = [1, 10, 100, 1000]
    if q:
        a.min_n = min(a.min_n, 100)
    if a.seed is None:
        a.seed = random.SystemRandom().randrange(1 << 31)
    a.benchmarks = [b for b in a.benchmarks.upper() if b in BENCHES]
    if a.callgrind_benchmarks is None:
        a.callgrind_benchmarks = "AF" if q else "".join(BENCHES)
    a.callgrind_benchmarks = [b for b in a.callgrind_benchmarks.upper() if b in BENCHES]
    a.localities = [x for x in a.localities.split(",") if x in LOCALITIES]
    if not a.benchmarks or not a.localities:
        ap.error("no benchmark or locality selected")
    if a.rounds < 1 or a.warmup < 0:
        ap.error("--rounds must be >= 1")
    a.build_dir = os.path.abspath(a.build_dir)
    a.out = os.path.abspath(a.out)
    if a.report_only:
        with open(os.path.join(a.out, "latest.json")) as f:
            res = json.load(f)
        md = os.path.join(a.out, "%s.md" % res["environment"]["date"][:10])
        files = plot_all(res, a.out)
        write_report(res, md)
        log("rewrote %s and %d plots from latest.json" % (md, len(files)))
        return
    a.vigil_cc = os.path.abspath(a.vigil_cc)
    if not a.no_sweeps and "F" not in a.benchmarks:
        pass  # the sweeps build bench_F.c themselves
    try:
        for tool in (a.clang,) + (() if a.no_callgrind else ("valgrind",)):
            if not shutil.which(tool):
                raise Fatal("%s not found (Debian packages: clang-19 lld-19 valgrind)" % tool, 2)
        if not os.access(a.vigil_cc, os.X_OK):
            raise Fatal("vigil-cc not found at %s (build it with make build, or pass --vigil-cc)"
                        % a.vigil_cc, 2)
        vigil_root = os.path.dirname(os.path.dirname(os.path.realpath(a.vigil_cc)))
        suite = Suite(a)
        suite.run(vigil_root)
    except Fatal as e:
        log("FATAL: %s" % e)
        sys.exit(e.code)
    except KeyboardInterrupt:
        log("interrupted")
        sys.exit(130)
    os.makedirs(a.out, exist_ok=True)
    res = suite.res
    date = res["environment"]["date"][:10]
    md = os.path.join(a.out, "%s.md" % date)
    files = plot_all(res, a.out)
    write_report(res, md)
    with open(os.path.join(a.out, "latest.json"), "w") as f:
        json.dump(res, f, indent=1, default=float)
    log("wrote %s, %s and %d plots (%s); total %.0f s" % (
        md, os.path.join(a.out, "latest.json"), len(files),
        ", ".join(os.path.basename(x) for x in files), time.monotonic() - T0))


if __name__ == "__main__":
    main()
