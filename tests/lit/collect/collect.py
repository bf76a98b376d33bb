"""Drives `vigil collect` for the lit tests: a real collector on 127.0.0.1,
real traced programs streaming to it, and the store read back with the
collector's --summary and with DuckDB (the query tool docs/collector.md
names).  Every subcommand prints short lines for FileCheck; a failure
exits non-zero with the reason.

  collect.py run --store DIR [--streams N] [--collector-arg A]... [--env K=V]... \
             [--pause S] -- 'CMD' ['CMD'...]
      starts the collector (port 0), runs each CMD (a shell command; $VIGIL_STREAM is
      set) concurrently, waits for them and for the collector (--streams N:
      until N streams ended), prints the collector's stdout and exit status.
      --pause S stops the collector (SIGSTOP) for S seconds while they run.
  collect.py restart --store DIR -- 'CMD'
      the collector is killed (SIGKILL) while CMD streams, then started
      again on the same port and store: CMD must finish complete.
  collect.py summary --store DIR      one line per producer, then totals
  collect.py sql --store DIR 'SQL'    DuckDB over the store's events (view `events`)
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

VIGIL = "vigil"  # build/bin is first on PATH (lit.cfg.py)


def fail(msg):
    sys.stderr.write("collect.py: %s\n" % msg)
    sys.exit(1)


def start_collector(store, extra, port=0):
    addr_file = tempfile.mktemp(prefix="vigil-addr-")
    cmd = [VIGIL, "collect", "--listen", "127.0.0.1:%d" % port, "--addr-file", addr_file,
           "--store", store] + extra
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while time.time() < deadline:
        if os.path.exists(addr_file):
            with open(addr_file) as f:
                a = f.read()
            if a.endswith("\n"):
                os.unlink(addr_file)
                return proc, a.strip()
        if proc.poll() is not None:
            fail("the collector exited: %s" % proc.stderr.read())
        time.sleep(0.02)
    proc.kill()
    fail("the collector did not start")


def run_producers(cmds, addr, env_extra, timeout=120, pause=None):
    env = dict(os.environ, VIGIL_STREAM=addr)
    for kv in env_extra:
        k, v = kv.split("=", 1)
        env[k] = v
    procs = [subprocess.Popen(c, shell=True, env=env) for c in cmds]
    if pause:
        # a collector that stops reading for a while (a stall, a pause)
        collector, seconds = pause
        time.sleep(0.1)
        collector.send_signal(signal.SIGSTOP)
        time.sleep(seconds)
        collector.send_signal(signal.SIGCONT)
    for c, p in zip(cmds, procs):
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            fail("producer did not finish in %ds: %s" % (timeout, c))
        print("producer exit %d" % rc)


def finish(proc, timeout=60):
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    # the collector's summary line is on its stderr: FileCheck reads both
    sys.stdout.write(out)
    sys.stdout.write(err)
    print("collector exit %d" % proc.returncode)


def cmd_run(a):
    extra = list(a.collector_arg)
    if a.streams:
        extra += ["--streams", str(a.streams)]
    proc, addr = start_collector(a.store, extra)
    run_producers(a.cmds, addr, a.env, pause=(proc, a.pause) if a.pause else None)
    if not a.streams:
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
    finish(proc)


def cmd_restart(a):
    first, addr = start_collector(a.store, [])
    port = int(addr.rsplit(":", 1)[1])
    env = dict(os.environ, VIGIL_STREAM=addr)
    prod = subprocess.Popen(a.cmds[0], shell=True, env=env)
    time.sleep(a.kill_after)
    first.send_signal(signal.SIGKILL)
    first.communicate()
    print("collector killed")
    time.sleep(0.3)
    second, _ = start_collector(a.store, ["--streams", "1"], port=port)
    rc = prod.wait(timeout=120)
    print("producer exit %d" % rc)
    finish(second)


def summary(store):
    out = subprocess.run([VIGIL, "collect", "--summary", "--json", "--store", store],
                         capture_output=True, text=True)
    if out.returncode != 0:
        fail("summary: %s" % out.stderr)
    return json.loads(out.stdout)


def cmd_summary(a):
    s = summary(a.store)
    for p in sorted(s["producers"], key=lambda p: (p["program"], p["events"]["stored"], p["stream"])):
        e = p["events"]
        print("producer %s mode %s ended %s complete %s stored %d lost %d produced %s missing %d "
              "threads %d violations %d" % (
                  os.path.basename(p["program"]), p["mode"], p["ended"], p["complete"],
                  e["stored"], e["lost"], e["produced"], e["missing"], len(p["threads"]),
                  p["violations"]))
    t = s["totals"]
    print("totals producers %d complete %d stored %d lost %d missing %d" % (
        t["producers"], t["complete"], t["stored"], t["lost"], t["missing"]))


def cmd_sql(a):
    import duckdb
    con = duckdb.connect()
    con.execute("CREATE VIEW events AS SELECT * FROM read_parquet('%s/events/*.parquet')"
                % a.store.replace("'", "''"))
    for row in con.execute(a.query).fetchall():
        print(" ".join(str(x) for x in row))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("--store", required=True)
    r.add_argument("--streams", type=int)
    r.add_argument("--collector-arg", action="append", default=[])
    r.add_argument("--env", action="append", default=[])
    r.add_argument("--pause", type=float, help="SIGSTOP the collector this long, 0.1 s in")
    r.add_argument("cmds", nargs="+")
    rs = sub.add_parser("restart")
    rs.add_argument("--store", required=True)
    rs.add_argument("--kill-after", type=float, default=0.5)
    rs.add_argument("cmds", nargs=1)
    s = sub.add_parser("summary")
    s.add_argument("--store", required=True)
    q = sub.add_parser("sql")
    q.add_argument("--store", required=True)
    q.add_argument("query")
    a = ap.parse_args()
    {"run": cmd_run, "restart": cmd_restart, "summary": cmd_summary, "sql": cmd_sql}[a.what](a)


if __name__ == "__main__":
    main()
