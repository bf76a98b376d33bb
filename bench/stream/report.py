"""The stream benchmarks' analysis, Markdown report and plots
(bench/stream/run.py writes stream.json; `run.py --report-only` reruns this).

Every figure is computed here from the raw samples, so the report can be
regenerated without running anything."""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import scipy.stats  # noqa: E402

THREADS = [8, 20, 40, 240]
BUFFERS = [50, 100, 250, 500]
TARGET_RATIO = 11.0
TARGET_NS = 10.0
TARGET_LTTNG = 0.1
TARGET_EPS = 5e6


# --------------------------------------------------------------------------
# statistics


def stats(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    q1, med, q3 = np.percentile(xs, [25, 50, 75])
    return {"median": float(med), "q1": float(q1), "q3": float(q3), "iqr": float(q3 - q1),
            "n": len(xs), "min": float(min(xs)), "max": float(max(xs))}


def mwu(a, b):
    if len(a) < 2 or len(b) < 2:
        return None
    try:
        return float(scipy.stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)
    except ValueError:
        return None


def configs(part):
    return {c["name"]: c for c in part.get("configs", [])}


def times(c, key="flush_ns"):
    return [s[key] for s in c["samples"] if s.get("valid")] if c else []


def paired(a, b, key):
    """Samples of a and b from the same round (both valid)."""
    return [(x[key], y[key]) for x, y in zip(a["samples"], b["samples"])
            if x.get("valid") and y.get("valid")]


def med(c, key="flush_ns"):
    s = stats(times(c, key))
    return s["median"] if s else None


def pct(a, b):
    return None if a is None or not b else 100.0 * (a - b) / b


# --------------------------------------------------------------------------
# analysis


def analyse_table(t):
    cs = configs(t)
    out = {"cells": {}, "slowdown": {}}
    for th in THREADS:
        plain, off = med(cs.get("plain-t%d" % th)), med(cs.get("off-t%d" % th))
        for b in BUFFERS:
            key = "t%d-b%d" % (th, b)
            free, pinned, bound = (cs.get("%s-%s" % (v, key)) for v in ("free", "pinned", "bound"))
            cell = {v: stats(times(c)) for v, c in (("free", free), ("pinned", pinned),
                                                     ("bound", bound)) if c}
            mf, mp = med(free), med(pinned)
            cell["pct_pinned"] = pct(mp, mf)
            cell["p_pinned"] = mwu(times(pinned), times(free))
            if bound:
                cell["pct_bound"] = pct(med(bound), mf)
                cell["p_bound"] = mwu(times(bound), times(free))
            cell["slowdown_plain"] = mf / plain if mf and plain else None
            cell["slowdown_off"] = mf / off if mf and off else None
            cell["events_per_s"] = t["events"] / (mf / 1e9) if mf else None
            out["cells"][key] = cell
        out["slowdown"][th] = {"plain_ns": plain, "off_ns": off}
    st = cs.get("store-t8-b500")
    if st:
        out["store"] = {"stats": stats(times(st)), "free": stats(times(cs.get("free-t8-b500")))}
    return out


def analyse_ratio(r):
    cs = configs(r)
    out = {}
    for th in THREADS:
        ps, bu = cs.get("persend-t%d" % th), cs.get("buffered-t%d" % th)
        if not ps or not bu:
            continue
        mp, mb = med(ps), med(bu)
        rounds = [x / y for x, y in paired(ps, bu, "flush_ns")]
        out[th] = {"persend": stats(times(ps)), "buffered": stats(times(bu)),
                   "ratio": mp / mb if mp and mb else None, "ratio_rounds": stats(rounds),
                   "persend_us_per_event": mp / r["events"] / 1e3 if mp else None,
                   "buffered_us_per_event": mb / r["events"] / 1e3 if mb else None}
    return out


def analyse_event(e):
    cs = configs(e)
    plain = cs.get("plain")
    out = {"time": {}, "added": {}}
    for name, c in cs.items():
        out["time"][name] = stats([x / e["calls"] for x in times(c, "elapsed_ns")])
        if name != "plain" and plain:
            out["added"][name] = stats([(x - y) / e["events"]
                                        for x, y in paired(c, plain, "elapsed_ns")])
    a = out["added"]
    if a.get("vigil-stream") and a.get("lttng") and a["lttng"]["median"] > 0:
        out["ratio_lttng"] = a["vigil-stream"]["median"] / a["lttng"]["median"]
    cg = e.get("callgrind", {})
    p = cg.get("plain", {}).get("worker_per_event")
    out["instr"] = {}
    for name, r in cg.items():
        if "worker_per_event" in r:
            out["instr"][name] = {"worker": r["worker_per_event"], "process": r["total_per_event"],
                                  "added": r["worker_per_event"] - p if p is not None else None}
    clk = e.get("clocks") or []
    out["rdtsc_ns"] = stats([c["rdtsc_ns"] for c in clk])
    out["clock_gettime_ns"] = stats([c["clock_gettime_ns"] for c in clk])
    return out


def analyse_e2e(e):
    out = {}
    for name, c in configs(e).items():
        ok = [s for s in c["samples"] if s.get("valid")]
        if not ok:
            out[name] = None
            continue
        cpu = lambda r: r["user_s"] + r["sys_s"]  # noqa: E731
        out[name] = {
            "eps": stats([e["events"] / (s["flush_ns"] / 1e9) for s in ok]),
            "producer_eps": stats([e["events"] / (s["elapsed_ns"] / 1e9) for s in ok]),
            "prod_rss_mb": stats([s["prod"]["maxrss_kb"] / 1024 for s in ok]),
            "coll_rss_mb": stats([s["coll"]["maxrss_kb"] / 1024 for s in ok]),
            "prod_cpu_s": stats([cpu(s["prod"]) for s in ok]),
            "coll_cpu_s": stats([cpu(s["coll"]) for s in ok]),
            "coll_ns_per_event": stats([cpu(s["coll"]) * 1e9 / e["events"] for s in ok]),
            "store_bytes_per_event": stats([s["store_bytes"] / e["events"] for s in ok
                                            if "store_bytes" in s]),
            "n_valid": len(ok), "n": len(c["samples"]),
        }
        if any("stored_ns" in s for s in ok):  # through NATS: the consumer stores
            out[name].update(
                stored_eps=stats([e["events"] / (s["stored_ns"] / 1e9) for s in ok]),
                cons_rss_mb=stats([s["cons"]["maxrss_kb"] / 1024 for s in ok]),
                cons_cpu_s=stats([cpu(s["cons"]) for s in ok]),
                nats_rss_mb=stats([(s.get("nats_rss_kb") or 0) / 1024 for s in ok]))
    return out


def analyse_record(r, ev):
    cs = configs(r)
    if not cs:
        return None
    out = {}
    pairs = (("uprobes", "tick-uprobes", "tick-plain", 2 * r["calls"]),
             ("tracepoint", "getppid-tracepoint", "getppid-plain", r["syscalls"]))
    for name, rec, plain, n in pairs:
        if rec in cs and plain in cs:
            out[name] = stats([(x - y) / n for x, y in paired(cs[rec], cs[plain], "elapsed_ns")])
            out[name + "_events"] = [s.get("collector", {}).get("events")
                                     for s in cs[rec]["samples"]]
            out[name + "_expected"] = n
    comp = (ev or {}).get("added", {}).get("vigil-stream")
    out["compiled"] = comp
    if comp and out.get("uprobes") and comp["median"] > 0:
        out["uprobe_vs_compiled"] = out["uprobes"]["median"] / comp["median"]
    return out


def lingered(res):
    n = k = 0
    for part in ("table", "ratio", "event", "e2e", "record"):
        for c in res.get(part, {}).get("configs", []):
            for s in c["samples"]:
                if "killed_lingering" in s:
                    n += 1
                    k += bool(s["killed_lingering"])
    return k, n


def analyse(res):
    a = {}
    if "table" in res:
        a["table"] = analyse_table(res["table"])
    if "ratio" in res:
        a["ratio"] = analyse_ratio(res["ratio"])
    if "event" in res:
        a["event"] = analyse_event(res["event"])
    if "e2e" in res:
        a["e2e"] = analyse_e2e(res["e2e"])
    if res.get("record", {}).get("configs"):
        a["record"] = analyse_record(res["record"], a.get("event"))
    a["lingered"] = lingered(res)
    return a


# --------------------------------------------------------------------------
# Markdown


def f(x, nd=1, unit=""):
    if x is None:
        return "n/a"
    return ("%%.%df" % nd) % x + unit


def fs(s, scale=1.0, nd=1):
    """median [q1-q3] of a stats dict, scaled."""
    if not s:
        return "n/a"
    return "%s [%s–%s]" % (f(s["median"] * scale, nd), f(s["q1"] * scale, nd),
                           f(s["q3"] * scale, nd))


def fp(p):
    return "n/a" if p is None else ("%.3f" % p if p >= 0.001 else "<0.001")


def md_environment(res, w):
    e = res["environment"]
    w("- Commit %s; vigil %s, libvigil %s" % (e["vigil_git"], e["vigil_sha256"],
                                               e["libvigil_sha256"]))
    w("- %s, %d CPUs, Linux %s, %s, clocksource %s" % (e["cpu"], e["cpus"], e["kernel"],
                                                      e["os"], e["clocksource"]))
    w("- %s; %s; valgrind %s; Python %s, numpy %s" % (e["clang"], e.get("lttng") or "no LTTng",
                                                     e["valgrind"], e["python"], e["numpy"]))
    w("- Load average at start %s, at end %s: the machine is shared with other jobs "
      "(builds, tests), so times carry their noise; every variant is interleaved with the "
      "others it is compared with, and medians with IQRs are given." % (
          " ".join("%.1f" % x for x in e["loadavg_start"]),
          " ".join("%.1f" % x for x in e.get("loadavg_end", []))))
    sec = res.get("seconds", {})
    w("- Time: %s; shuffle seed %d" % (", ".join("%s %.0f s" % kv for kv in sec.items()),
                                        e["seed"]))
    w("")


def md_targets(res, a, w):
    w("## Against the targets\n")
    w("| target | result | met? |")
    w("|---|---|---|")
    r = a.get("ratio") or {}
    if r:
        worst = min((v["ratio"] for v in r.values() if v["ratio"]), default=None)
        w("| buffered ≥ %.0fx faster than one send per event, at every thread count | %s | %s |" % (
            TARGET_RATIO, ", ".join("%d threads %sx" % (t, f(v["ratio"], 1)) for t, v in r.items()),
            yn(worst is not None and worst >= TARGET_RATIO, worst, TARGET_RATIO, "x", low=True)))
    ev = a.get("event") or {}
    st = ev.get("added", {}).get("vigil-stream")
    if st:
        w("| producer ≤ %.0f ns added per event (streaming, lossless) | %s ns (median [IQR]) | %s |"
          % (TARGET_NS, fs(st), yn(st["median"] <= TARGET_NS, st["median"], TARGET_NS, " ns")))
    if ev.get("ratio_lttng") is not None:
        lt = ev["added"]["lttng"]
        w("| producer ≤ 1/10 of LTTng-UST's added time per event | %s (%s vs %s ns) | %s |" % (
            f(ev["ratio_lttng"], 3), f(st["median"]), f(lt["median"]),
            yn(ev["ratio_lttng"] <= TARGET_LTTNG, ev["ratio_lttng"], TARGET_LTTNG, "")))
    e2e = a.get("e2e") or {}
    for name, label in (("e2e-store", "into `vigil collect --store`"),
                        ("e2e-nostore", "into `vigil collect` without a store"),
                        ("e2e-nats", "through NATS JetStream into a consumer's store")):
        v = e2e.get(name)
        if v and name == "e2e-nats":
            v = dict(v, eps=v["stored_eps"])
        if v:
            w("| ≥ 5 M events/s %s, 0 lost | %s M events/s, %d/%d runs complete | %s |" % (
                label, fs(v["eps"], 1e-6, 2), v["n_valid"], v["n"],
                yn(v["eps"]["median"] >= TARGET_EPS and v["n_valid"] == v["n"],
                   v["eps"]["median"] / 1e6, TARGET_EPS / 1e6, "M/s", low=True)))
    w("")


def yn(ok, x, target, unit, low=False):
    if ok:
        return "yes"
    if x is None:
        return "no (not measured)"
    by = target / x if low else x / target
    return "**no**, %.2fx %s the target" % (by, "under" if low else "over")


def md_table(res, a, w):
    t, an = res["table"], a["table"]
    w("## 1. ReBIS Table 5.1: consumer pinned vs not\n")
    w("Workload: `tick.c` built with `vigil-cc --vigil-trace=tick`; every call is two events "
      "(entry with its argument, return with its result), a record of %d bytes (id word, "
      "timestamp word, one argument word), so a buffer of B events is `VIGIL_STREAM_BUFFER` = "
      "B × %d bytes, in a ring of 2 such chunks per thread (double buffering). **Total work "
      "fixed**: %d calls (%d events) per run, divided evenly among the threads. Lossless, "
      "loopback TCP to a fresh `vigil collect` (no `--store`: it counts and acknowledges at "
      "once). Runtime = from the first thread's start to `vigil_stream_flush()` returning, "
      "i.e. every event acknowledged. *free*: nothing pinned; *pinned*: "
      "`VIGIL_STREAM_CPU=%d` (the consumer on CPU %d, producers and collector free); "
      "*bound*: ReBIS's setup, the producers bound to the other core (CPU %d) and the "
      "consumer to CPU %d. %% diff = (pinned − free) / free × 100, as ReBIS's table "
      "(negative: pinning is faster). Each cell: median of %d interleaved rounds (*bound*: "
      "the first %d of them); p: Mann-Whitney U of the two samples.\n" % (
          t["record_bytes"], t["record_bytes"], t["calls"], t["events"], t["consumer_cpu"],
          t["consumer_cpu"], t["producer_cpu"], t["consumer_cpu"], res["params"]["table_rounds"],
          res["params"].get("bound_rounds", res["params"]["table_rounds"])))
    has_bound = any("bound" in c for c in an["cells"].values())
    heads = [("pct_pinned", "p_pinned", "vigil, consumer pinned vs free")]
    if has_bound:
        heads.append(("pct_bound", "p_bound", "vigil, ReBIS binding (bound) vs free"))
    w("| buffer (events) | " + " | ".join("%d threads: vigil / ReBIS" % th for th in THREADS)
      + " |")
    w("|---|" + "---|" * len(THREADS))
    for b in BUFFERS:
        cells = []
        for th in THREADS:
            c = an["cells"].get("t%d-b%d" % (th, b), {})
            cells.append("%s (p %s) / %s" % (f(c.get("pct_pinned"), 1), fp(c.get("p_pinned")),
                                            f(t["rebis"][str(b)][str(th)]
                                              if str(b) in t["rebis"] else t["rebis"][b][th], 3)))
        w("| %d (%d B) | %s |" % (b, b * t["record_bytes"], " | ".join(cells)))
    w("")
    sig = [c for c in an["cells"].values() if c.get("p_pinned") is not None
           and c["p_pinned"] < 0.05]
    w("Cells where pinned and free differ at p < 0.05: %d of %d (pinning faster in %d, "
      "slower in %d).\n" % (len(sig), len(an["cells"]),
                             sum(c["pct_pinned"] < 0 for c in sig),
                             sum(c["pct_pinned"] > 0 for c in sig)))
    if has_bound:
        w("ReBIS's binding (producers on CPU %d, consumer on CPU %d) vs free, %% diff:\n" % (
            t["producer_cpu"], t["consumer_cpu"]))
        w("| buffer | " + " | ".join("%d threads" % th for th in THREADS) + " |")
        w("|---|" + "---|" * len(THREADS))
        for b in BUFFERS:
            w("| %d | %s |" % (b, " | ".join(
                "%s (p %s)" % (f(an["cells"].get("t%d-b%d" % (th, b), {}).get("pct_bound"), 1),
                               fp(an["cells"].get("t%d-b%d" % (th, b), {}).get("p_bound")))
                for th in THREADS)))
        w("")
    md_table_runtimes(t, an, w, has_bound)


def md_table_runtimes(t, an, w, has_bound):
    w("Runtimes (ms, median [IQR]), delivered events/s (free) and slowdown of the free "
      "variant over the plain build (no tracing) and over the traced build run without "
      "VIGIL_STREAM:\n")
    cols = ["free", "pinned"] + (["bound"] if has_bound else [])
    w("| threads | buffer | " + " | ".join(cols) + " | M events/s | × plain | × not streaming |")
    w("|---|---|" + "---|" * (len(cols) + 3))
    for th in THREADS:
        for b in BUFFERS:
            c = an["cells"].get("t%d-b%d" % (th, b))
            if not c:
                continue
            w("| %d | %d | %s | %s | %s | %s |" % (
                th, b, " | ".join(fs(c.get(v), 1e-6) for v in cols),
                f((c["events_per_s"] or 0) / 1e6, 2), f(c["slowdown_plain"], 0),
                f(c["slowdown_off"], 0)))
    w("")
    w("| threads | plain (ms) | traced, not streaming (ms) |")
    w("|---|---|---|")
    for th in THREADS:
        s = an["slowdown"].get(th) or an["slowdown"].get(str(th)) or {}
        w("| %d | %s | %s |" % (th, f((s.get("plain_ns") or 0) / 1e6, 2),
                                 f((s.get("off_ns") or 0) / 1e6, 2)))
    w("")
    st = an.get("store")
    if st:
        w("With `--store` (8 threads, buffer 500, free; the collector writes Parquet + SQLite "
          "and acknowledges after fsync): %s ms against %s ms without a store.\n" % (
              fs(st["stats"], 1e-6), fs(st["free"], 1e-6)))


def md_ratio(res, a, w):
    r, an = res["ratio"], a["ratio"]
    w("## 2. Buffered vs one send per event (ReBIS: 11x)\n")
    w("The same workload, %d calls (%d events) per run, total fixed. *per-send*: "
      "`persend.h`, each event sent by its thread with one `send()` of a one-record batch on "
      "the thread's own connection (its own `hello` and `end`; no lock — the stronger "
      "baseline: a shared connection would serialise the threads on a mutex), blocking "
      "socket, ends when its last batch is acknowledged. *buffered*: vigil's producer with "
      "default buffers (2 × 64 KiB per thread), consumer free, until `vigil_stream_flush()` "
      "returns. Both to a fresh `vigil collect` without `--store`, every event counted; "
      "%d interleaved rounds.\n" % (r["calls"], r["events"], res["params"]["ratio_rounds"]))
    w("| threads | per-send (ms) | buffered (ms) | per-send µs/event | buffered µs/event "
      "| ratio (medians) | per-round ratios [IQR] | ≥ 11x? |")
    w("|---|---|---|---|---|---|---|---|")
    for th, v in an.items():
        w("| %s | %s | %s | %s | %s | **%s** | %s | %s |" % (
            th, fs(v["persend"], 1e-6), fs(v["buffered"], 1e-6), f(v["persend_us_per_event"], 2),
            f(v["buffered_us_per_event"], 3), f(v["ratio"], 1), fs(v["ratio_rounds"]),
            "yes" if v["ratio"] and v["ratio"] >= TARGET_RATIO else "**no**"))
    w("")


EVENT_LABEL = {
    "plain": "plain build (`clang -O2`, no tracing)",
    "vigil-off": "(b) `--vigil-trace=tick`, run without VIGIL_STREAM",
    "vigil-stream": "(a) `--vigil-trace=tick`, VIGIL_STREAM to `vigil collect` (lossless)",
    "lttng": "(c) LTTng-UST tracepoints, session recording",
    "lttng-off": "LTTng-UST tracepoints, no session (callgrind only)",
}


def md_event(res, a, w):
    e, an = res["event"], a["event"]
    w("## 3. Producer cost per event, against LTTng-UST\n")
    w("One thread (pinned to CPU %d) calls `tick()` %d times (%d events), timed by the "
      "program; before that, untimed, %d warm-up calls and a flush, so that the ring's pages "
      "are faulted in (64 MiB: `VIGIL_STREAM_CHUNKS=1024` × 64 KiB, larger than the timed "
      "calls' 2 × %d × 24 bytes, so the producer never waits for the consumer, which runs "
      "on CPU %d and ships to `vigil collect` as the chunks fill: a collector that keeps up). "
      "The LTTng variant has the same two events with the same payload (one 64-bit integer), "
      "a session recording them (per-CPU buffers 8 × 8 MiB, discard mode, none discarded: "
      "below). Added time per event = (variant − plain) / events, per round (the two runs "
      "closest in time), median [IQR] of %d rounds.\n" % (
          e["producer_cpu"], e["calls"], e["events"], e["warmup"], e["calls"],
          e["consumer_cpu"], res["params"]["event_rounds"]))
    if e.get("lttng_missing"):
        w("LTTng-UST: **missing** (%s).\n" % e["lttng_missing"])
    w("| variant | ns per call | added ns per event | instructions per event (worker thread) "
      "| added instructions | instructions per event (whole process) |")
    w("|---|---|---|---|---|---|")
    for name in ("plain", "vigil-off", "vigil-stream", "lttng", "lttng-off"):
        t, ad, ins = an["time"].get(name), an["added"].get(name), an["instr"].get(name, {})
        if not t and not ins:
            continue
        w("| %s | %s | %s | %s | %s | %s |" % (
            EVENT_LABEL[name], fs(t, 1, 2), fs(ad, 1, 2) if name != "plain" else "—",
            f(ins.get("worker"), 1), f(ins.get("added"), 1) if name != "plain" else "—",
            f(ins.get("process"), 1)))
    w("")
    if an.get("ratio_lttng") is not None:
        w("vigil / LTTng-UST added time per event: **%s**.\n" % f(an["ratio_lttng"], 3))
    if an.get("rdtsc_ns"):
        w("The floor: on this machine one `rdtsc` (the timestamp of every vigil record) costs "
          "%s ns and one `clock_gettime(CLOCK_MONOTONIC)` (vDSO; LTTng-UST's clock) %s ns "
          "(`clocks.c`, 5 runs, median [IQR]).\n" % (fs(an["rdtsc_ns"], 1, 2),
                                                      fs(an["clock_gettime_ns"], 1, 2)))
    ls = e.get("lttng_session")
    if ls:
        w("LTTng session over all rounds and its callgrind runs: %d events discarded, %d packets "
          "lost, %.0f MB of trace written.\n" % (ls["discarded_events"], ls["lost_packets"],
                                                 ls["trace_bytes"] / 1e6))
    w("Instructions: callgrind `--separate-threads=yes`, (Ir(2N) − Ir(N)) / 2N events with N = "
      "%d calls; the worker thread is the one calling `tick()`; the whole process adds "
      "vigil's consumer thread (marshalling, sending) or LTTng-UST's listener threads "
      "(LTTng's consumer daemon is another process, not counted). The streamed run has a "
      "ring of 64 × 1 MiB so the worker never waits.\n" % res["params"]["callgrind_calls"])


def md_e2e(res, a, w):
    e, an = res["e2e"], a["e2e"]
    w("## 4. End to end: events/s into the collector\n")
    w("%d producer threads, %d calls (%d events) per run, lossless, loopback TCP, %d "
      "interleaved rounds. Events/s = events / (first event → `vigil_stream_flush()` "
      "returned: every event acknowledged, which with `--store` means written and fsynced). "
      "Completeness: the collector's totals and, with `--store`, `vigil collect --summary "
      "--json` (stored == produced, 0 lost, 0 missing, complete). Default settings: the "
      "producer keeps unacknowledged batches up to `VIGIL_STREAM_RETAIN` (256 MiB; its RSS "
      "shows them), then its threads wait for the collector. RSS = peak (VmHWM, read "
      "every 10 ms), CPU = user + system seconds of the whole run (`wait4`).\n" % (e["threads"], e["calls"], e["events"],
                                             res["params"]["e2e_rounds"]))
    w("| collector | M events/s delivered | M events/s produced | producer RSS (MB) "
      "| producer CPU (s) | collector RSS (MB) | collector CPU (s) | collector CPU ns/event "
      "| store bytes/event | complete runs |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for name, label in (("e2e-store", "`--store`"), ("e2e-nostore", "no store"),
                        ("e2e-nats", "NATS ingest")):
        v = an.get(name)
        if name == "e2e-nats" and name not in an:
            continue
        if not v:
            w("| %s | no complete run | | | | | | | | |" % label)
            continue
        w("| %s | **%s** | %s | %s | %s | %s | %s | %s | %s | %d/%d |" % (
            label, fs(v["eps"], 1e-6, 2), fs(v["producer_eps"], 1e-6, 2),
            fs(v["prod_rss_mb"], 1, 0), fs(v["prod_cpu_s"], 1, 2), fs(v["coll_rss_mb"], 1, 0),
            fs(v["coll_cpu_s"], 1, 2), fs(v["coll_ns_per_event"], 1, 0),
            fs(v["store_bytes_per_event"], 1, 1) if v["store_bytes_per_event"] else "—",
            v["n_valid"], v["n"]))
    w("")
    v = an.get("e2e-nats")
    if e.get("nats"):
        w("Through NATS JetStream: not measured: %s.\n" % e["nats"])
    elif v:
        w("Through NATS JetStream (%s, `-js`, file storage, on 127.0.0.1, fresh per run): the "
          "producer streams to an ingest collector (`--listen … --nats URL`, no store: it "
          "acknowledges a batch once JetStream stored it), one consumer (`--nats URL --group "
          "bench --member 0/1 --store DIR`: one member, since one producer stream lands in "
          "one partition) stores. Producer-acknowledged: **%s** M events/s (the row above, "
          "ingest's RSS and CPU); stored by the consumer (first event → consumer exited, "
          "the stream's end stored): **%s** M events/s; consumer RSS %s MB, CPU %s s; "
          "nats-server RSS %s MB; %d/%d runs complete.\n" % (
              e.get("nats_server", "nats-server"), fs(v["eps"], 1e-6, 2),
              fs(v["stored_eps"], 1e-6, 2), fs(v["cons_rss_mb"], 1, 0),
              fs(v["cons_cpu_s"], 1, 2), fs(v["nats_rss_mb"], 1, 0), v["n_valid"], v["n"]))


def md_record(res, a, w):
    r = res.get("record", {})
    w("## 5. `vigil record` vs compiled tracing\n")
    if r.get("missing"):
        w("Not measured: %s.\n" % r["missing"])
        return
    an = a.get("record") or {}
    w("`vigil record --uprobe BIN:tick` (entry + return: 2 events per call, %d calls) on the "
      "plain build, and `--tracepoint syscalls:sys_enter_getppid` around %d `getppid()` "
      "calls, each against the same program unrecorded in the same rounds (%d); the program "
      "times its own loop, so loading and attaching are not counted. Streamed to `vigil "
      "collect` (discard mode, as vigil record always is). Compiled tracing: part 3 (a), "
      "this run.\n" % (r["calls"], r["syscalls"], res["params"]["record_rounds"]))
    w("| what | added µs per event, median [IQR] | per call (entry + return) "
      "| events received / expected per run |")
    w("|---|---|---|---|")
    for name, label, per_call in (("uprobes", "vigil record, uprobe + uretprobe", 2),
                                  ("tracepoint", "vigil record, tracepoint", 1)):
        if an.get(name):
            w("| %s | %s | %s | %s / %d |" % (
                label, fs(an[name], 1e-3, 2), fs(an[name], per_call * 1e-3, 2),
                ", ".join(str(x) for x in an[name + "_events"]), an[name + "_expected"]))
    if an.get("compiled"):
        w("| `vigil-cc --vigil-trace`, streaming (part 3 a) | %s | %s | |" % (
            fs(an["compiled"], 1e-3, 4), fs(an["compiled"], 2e-3, 4)))
    w("")
    if an.get("uprobe_vs_compiled"):
        w("A uprobe event costs %.0fx a compiled one here.\n" % an["uprobe_vs_compiled"])


def md_problems(res, a, w):
    w("## Runs excluded and what was seen\n")
    inv = res.get("invalid") or []
    if inv:
        w("%d run(s) were incomplete and are excluded from every figure:\n" % len(inv))
        for x in inv:
            w("- %s" % x)
    else:
        w("Every run was complete: each collector saw every event of its producer(s), every "
          "stream ended, nothing was refused, spilled or duplicated.")
    k, n = a["lingered"]
    w("\n%d of %d streamed runs' producers were still running %.1f s after their collector had "
      "stored the whole stream and exited; they were killed there (the measured times are "
      "the programs' own and end earlier). Cause: a `mark` document queued after the "
      "`end`, which nothing acknowledges, keeps the producer waiting for "
      "VIGIL_STREAM_LINGER_MS (5 s) at exit (docs/performance.md, \"Event stream\").\n" % (
          k, n, res.get("grace_s", 0.5)))


def write_report(res, path):
    a = analyse(res)
    lines = []
    w = lines.append
    w("# vigil event stream benchmarks, %s\n" % res["environment"]["date"][:10])
    w("`python3 bench/stream/run.py` (bench/README.md, \"Event stream\"); raw samples in "
      "`stream.json`; read in docs/performance.md, \"Event stream\".\n")
    md_environment(res, w)
    md_targets(res, a, w)
    if "table" in res:
        md_table(res, a, w)
    if "ratio" in res:
        md_ratio(res, a, w)
    if "event" in res:
        md_event(res, a, w)
    if "e2e" in res:
        md_e2e(res, a, w)
    if "record" in res:
        md_record(res, a, w)
    md_problems(res, a, w)
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


# --------------------------------------------------------------------------
# plots


def _heat(ax, grid, title, vmax, first):
    im = ax.imshow(grid, cmap="RdBu_r", vmin=-vmax, vmax=vmax, aspect="auto")
    ax.set_xticks(range(len(THREADS)), [str(t) for t in THREADS])
    ax.set_yticks(range(len(BUFFERS)), [str(b) for b in BUFFERS])
    ax.set_xlabel("threads")
    if first:
        ax.set_ylabel("buffer (events)")
    ax.set_title(title, fontsize=9)
    for i in range(len(BUFFERS)):
        for j in range(len(THREADS)):
            v = grid[i][j]
            dark = not np.isnan(v) and abs(v) > 0.6 * vmax
            ax.text(j, i, "n/a" if np.isnan(v) else "%.0f" % v if abs(v) >= 100 else "%.1f" % v,
                    ha="center", va="center", fontsize=8, color="white" if dark else "black")
    return im


def plot_table(res, a, out):
    t, cells = res["table"], a["table"]["cells"]
    reb = t["rebis"]
    get_reb = lambda b, th: reb[str(b)][str(th)] if str(b) in reb else reb[b][th]  # noqa: E731
    grid = lambda k: [[cells.get("t%d-b%d" % (th, b), {}).get(k, np.nan)  # noqa: E731
                       if cells.get("t%d-b%d" % (th, b), {}).get(k) is not None else np.nan
                       for th in THREADS] for b in BUFFERS]
    panels = [(grid("pct_pinned"), "vigil: consumer pinned vs free\n(% diff of runtime)"),
              ([[get_reb(b, th) for th in THREADS] for b in BUFFERS],
               "ReBIS Table 5.1: bound vs not\n(% diff, 4-core Opteron)")]
    if any("pct_bound" in c for c in cells.values()):
        panels.append((grid("pct_bound"), "vigil: ReBIS binding (producers CPU 0,\n"
                                          "consumer CPU 1) vs free (% diff)"))
    vals = [abs(v) for g, _ in panels for row in g for v in row if not np.isnan(v)]
    vmax = min(max(vals + [1.0]), 100.0)
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8))
    fig.subplots_adjust(wspace=0.25)
    for i, (ax, (g, title)) in enumerate(zip(axes, panels)):
        im = _heat(ax, g, title, vmax, i == 0)
    fig.colorbar(im, ax=list(axes), shrink=0.8,
                 label="%% diff (< 0: pinning faster), clipped at ±%.0f" % vmax)
    path = os.path.join(out, "fig-stream-table51.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def plot_table_runtime(res, a, out):
    cells = a["table"]["cells"]
    variants = [v for v in ("free", "pinned", "bound")
                if any(c.get(v) for c in cells.values())]
    keys = [(th, b) for th in THREADS for b in BUFFERS]
    fig, ax = plt.subplots(figsize=(12, 4))
    width = 0.8 / len(variants)
    for i, v in enumerate(variants):
        meds, lo, hi = [], [], []
        for th, b in keys:
            s = cells.get("t%d-b%d" % (th, b), {}).get(v)
            meds.append(s["median"] / 1e6 if s else np.nan)
            lo.append((s["median"] - s["q1"]) / 1e6 if s else 0)
            hi.append((s["q3"] - s["median"]) / 1e6 if s else 0)
        x = np.arange(len(keys)) + (i - (len(variants) - 1) / 2) * width
        ax.bar(x, meds, width, yerr=[lo, hi], capsize=2, label=v)
    ax.set_xticks(range(len(keys)), ["%d thr\n%d ev" % k for k in keys], fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("runtime until every event acknowledged (ms)")
    ax.set_title("Table 5.1 workload: %d events per run (median, IQR)" % res["table"]["events"])
    ax.legend()
    path = os.path.join(out, "fig-stream-table51-runtime.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def plot_ratio(res, a, out):
    r = a["ratio"]
    ths = [th for th in r if r[th]["ratio"]]
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    meds = [r[th]["ratio"] for th in ths]
    rr = [r[th]["ratio_rounds"] for th in ths]
    err = [[max(m - s["q1"], 0) if s else 0 for m, s in zip(meds, rr)],
           [max(s["q3"] - m, 0) if s else 0 for m, s in zip(meds, rr)]]
    ax.bar([str(t) for t in ths], meds, yerr=err, capsize=3, color="tab:blue")
    ax.axhline(TARGET_RATIO, color="red", ls="--", label="target 11x (ReBIS)")
    for i, m in enumerate(meds):
        ax.text(i, m, "%.1fx" % m, ha="center", va="bottom", fontsize=8)
    ax.set_xlabel("threads")
    ax.set_ylabel("per-send time / buffered time")
    ax.set_title("Buffered vs one send() per event")
    ax.legend()
    path = os.path.join(out, "fig-stream-ratio.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def plot_event(res, a, out):
    an = a["event"]
    names = [n for n in ("vigil-stream", "vigil-off", "lttng") if an["added"].get(n)]
    labels = {"vigil-stream": "vigil\nstreaming", "vigil-off": "vigil\nnot streaming",
              "lttng": "LTTng-UST\nrecording"}
    floor = 0.01
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    meds = [max(an["added"][n]["median"], floor) for n in names]
    lo = [max(m - max(an["added"][n]["q1"], floor), 0) for m, n in zip(meds, names)]
    hi = [max(an["added"][n]["q3"] - m, 0) for m, n in zip(meds, names)]
    ax1.bar([labels[n] for n in names], meds, yerr=[lo, hi], capsize=3,
            color=["tab:blue", "tab:gray", "tab:orange"][:len(names)])
    for i, n in enumerate(names):
        ax1.text(i, meds[i], "%.2f ns" % an["added"][n]["median"], ha="center", va="bottom",
                 fontsize=8)
    ax1.axhline(TARGET_NS, color="red", ls="--", label="target 10 ns")
    ax1.set_yscale("log")
    ax1.set_ylabel("added ns per event (median, IQR; floor %.2f)" % floor)
    ax1.set_title("Time added per event vs the plain build")
    ax1.legend(fontsize=8)
    inames = [n for n in ("vigil-stream", "vigil-off", "lttng") if an["instr"].get(n)]
    vals = [max(an["instr"][n]["added"] or 0, floor) for n in inames]
    ax2.bar([labels[n] for n in inames], vals,
            color=["tab:blue", "tab:gray", "tab:orange"][:len(inames)])
    for i, n in enumerate(inames):
        ax2.text(i, vals[i], "%.1f" % (an["instr"][n]["added"] or 0), ha="center", va="bottom",
                 fontsize=8)
    ax2.set_yscale("log")
    ax2.set_ylabel("added instructions per event (callgrind)")
    ax2.set_title("Instructions added per event (worker thread)")
    path = os.path.join(out, "fig-stream-per-event.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def plot_e2e(res, a, out):
    an = a["e2e"]
    an = dict(an)
    if an.get("e2e-nats"):
        an["e2e-nats"] = dict(an["e2e-nats"], eps=an["e2e-nats"]["stored_eps"])
    names = [(n, l) for n, l in (("e2e-store", "--store"), ("e2e-nostore", "no store"),
                                 ("e2e-nats", "NATS → store")) if an.get(n)]
    fig, ax = plt.subplots(figsize=(5, 3.6))
    meds = [an[n]["eps"]["median"] / 1e6 for n, _ in names]
    err = [[(an[n]["eps"]["median"] - an[n]["eps"]["q1"]) / 1e6 for n, _ in names],
           [(an[n]["eps"]["q3"] - an[n]["eps"]["median"]) / 1e6 for n, _ in names]]
    ax.bar([l for _, l in names], meds, yerr=err, capsize=3)
    ax.axhline(TARGET_EPS / 1e6, color="red", ls="--", label="target 5 M/s")
    ax.set_ylabel("M events/s delivered (median, IQR)")
    ax.set_title("End to end into vigil collect, lossless")
    ax.legend()
    path = os.path.join(out, "fig-stream-e2e.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def plot_all(res, out):
    a = analyse(res)
    files = []
    todo = [("table", plot_table), ("table", plot_table_runtime), ("ratio", plot_ratio),
            ("event", plot_event), ("e2e", plot_e2e)]
    for key, fn in todo:
        if a.get(key):
            try:
                files.append(fn(res, a, out))
            except (KeyError, ValueError, TypeError) as e:
                print("report: plot %s failed: %s" % (fn.__name__, e))
    return files
