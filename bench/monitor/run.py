#!/usr/bin/env python3
"""In-process monitors: instructions per event, by callgrind, for one or more
vigil builds side by side (docs/performance.md, "In-process monitors").

Three programs, each a loop of N iterations of two monitored calls:
  thread  txn_begin/txn_commit, a per-thread monitor (txn.bind, thread scope)
  global  the same calls, the same model, one global instance (spin lock)
  object  pthread_mutex_lock/unlock on one mutex (examples/mutex, per object)
Each is built plain (no monitor) and monitored; the figure is
  (Ir(monitored, 2N) - Ir(monitored, N) - (Ir(plain, 2N) - Ir(plain, N))) / 2N
per event, for the whole process (hook, runtime and locks).

    python3 bench/monitor/run.py --build build [--build /other/build ...]
"""
import argparse
import datetime
import os
import pathlib
import re
import subprocess
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TXN_DOT = ROOT / "tests/lit/e2e/Inputs/monitor/txn.dot"
PROGRAMS = {
    "thread": ("txn.c", "model {dot}\nscope thread\nbegin <- return:txn_begin if ret == 0\ncommit <- call:txn_commit\nabort <- call:txn_abort\n"),
    "global": ("txn.c", "model {dot}\nscope global\nbegin <- return:txn_begin if ret == 0\ncommit <- call:txn_commit\nabort <- call:txn_abort\n"),
    "object": ("mtx.c", None),
}


def build(cc: pathlib.Path, src: pathlib.Path, bind, out: pathlib.Path):
    cmd = [str(cc), "-O2", str(src), "-o", str(out), "-lpthread"]
    if bind:
        cmd.insert(1, f"--vigil-monitor={bind}")
    env = dict(os.environ, VIGIL_STATIC="off")
    subprocess.run(cmd, check=True, env=env, capture_output=True)


def instructions(exe: pathlib.Path, n: int) -> int:
    with tempfile.TemporaryDirectory() as d:
        out = pathlib.Path(d) / "cg.out"
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(exe), str(n)],
                       check=True, capture_output=True, env=dict(os.environ, VIGIL_ON_FAILURE="count"))
        m = re.search(r"^summary:\s*(\d+)", out.read_text(), re.M)
        return int(m.group(1))


def per_event(exe, plain, n):
    mon = instructions(exe, 2 * n) - instructions(exe, n)
    base = instructions(plain, 2 * n) - instructions(plain, n)
    return (mon - base) / (2 * n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", action="append", required=True, help="a vigil build directory (repeat to compare)")
    ap.add_argument("-n", type=int, default=20000)
    ap.add_argument("--out", default=str(ROOT / "bench/results"))
    args = ap.parse_args()
    rows = {}
    with tempfile.TemporaryDirectory() as d:
        d = pathlib.Path(d)
        for b in args.build:
            cc = pathlib.Path(b).resolve() / "bin" / "vigil-cc"
            for name, (src, bind) in PROGRAMS.items():
                if bind:
                    bf = d / f"{name}.bind"
                    bf.write_text(bind.format(dot=TXN_DOT))
                else:
                    bf = ROOT / "examples/mutex/mutex.bind"
                tag = re.sub(r"\W", "_", b)
                exe, plain = d / f"{tag}-{name}", d / f"{tag}-{name}-plain"
                build(cc, HERE / src, bf, exe)
                build(cc, HERE / src, None, plain)
                rows.setdefault(name, []).append(per_event(exe, plain, args.n))
    head = "| scope | " + " | ".join(f"`{b}`" for b in args.build) + " |"
    lines = [head, "|---" * (len(args.build) + 1) + "|"]
    for name, vals in rows.items():
        lines.append(f"| {name} | " + " | ".join(f"{v:.1f}" for v in vals) + " |")
    table = "\n".join(lines)
    print("instructions per monitored event (callgrind, whole process, N=%d):\n%s" % (args.n, table))
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    kind = "monitor-compare" if len(args.build) > 1 else "monitor"
    (out / f"{kind}-{datetime.date.today()}.md").write_text(
        "# In-process monitors: instructions per event\n\n`python3 bench/monitor/run.py "
        + " ".join(f"--build {b}" for b in args.build) + f"`, N={args.n}\n\n" + table + "\n")


if __name__ == "__main__":
    main()
