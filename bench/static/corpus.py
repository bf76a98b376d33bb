#!/usr/bin/env python3
"""How many assertions of vigil's own corpus each static verdict gets.

Links every C program of the test corpus (tests/lit/e2e, faults, debug,
static), the benchmark programs A-M (bench/src, per-thread and global) and
the examples with `vigil-cc -O1 -g` in report mode, reads the verdicts the
pass writes (VIGIL_STATIC_JSON), and counts proven / violated / unknown, the
unknown ones by reason.  Most of the e2e corpus is written to fail, so its
violated count is the checker finding those failures before any run.

    python3 bench/static/corpus.py --vigil-cc build/bin/vigil-cc

Writes bench/results/static-corpus-DATE.md and .json.
"""
import argparse
import collections
import datetime
import glob
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def programs():
    """(group, sources, extra flags) for every program of the corpus."""
    for group in ["e2e", "faults", "debug", "static"]:
        for src in sorted(glob.glob(os.path.join(REPO, "tests", "lit", group, "*.c"))):
            yield "tests/lit/" + group, [src], []
    for src in sorted(glob.glob(os.path.join(REPO, "bench", "src", "bench_*.c"))):
        yield "bench A-M (per-thread)", [src], ["-I" + os.path.join(REPO, "bench", "src"), "-DPERTHREAD"]
        yield "bench A-M (global)", [src], ["-I" + os.path.join(REPO, "bench", "src")]
    lwip = os.path.join(REPO, "examples", "lwip")
    if os.path.isdir(lwip):
        srcs = [os.path.join(lwip, f) for f in ("echo.c", "echo_main.c", "vigil_lwip.c")]
        client = os.path.join(lwip, "echo_client.c")
        if os.path.exists(client):
            srcs.append(client)
        yield "examples/lwip", srcs, ["-I/usr/include/lwip", "-llwip", "-lpthread"]


def category(verdict, reason):
    if verdict != "unknown":
        return verdict
    if reason.startswith("a check may fail"):
        return "unknown: a check may fail, no failing run found"
    return "unknown: " + reason


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vigil-cc", default=os.path.join(REPO, "build", "bin", "vigil-cc"))
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results"))
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="vigil-corpus-")
    groups = collections.OrderedDict()
    not_built = []
    wrong = []
    for n, (group, srcs, flags) in enumerate(programs()):
        out_json = os.path.join(work, "v%d.json" % n)
        cmd = [a.vigil_cc, "-O1", "-g"] + srcs + flags + ["-o", os.path.join(work, "p%d" % n), "-lpthread"]
        env = dict(os.environ, VIGIL_STATIC="report", VIGIL_STATIC_JSON=out_json)
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        if r.returncode != 0 or not os.path.exists(out_json):
            # e.g. a test that needs -D flags from its RUN lines, or a compile-error test
            not_built.append(os.path.relpath(srcs[0], REPO))
            continue
        with open(out_json) as f:
            items = json.load(f)["assertions"]
        g = groups.setdefault(group, {"programs": 0, "counts": collections.Counter()})
        g["programs"] += 1
        shared = collections.Counter(it["location"] for it in items)
        for it in items:
            g["counts"][category(it["verdict"], it["reason"])] += 1
            if shared[it["location"]] > 1:
                continue  # one macro expansion: a report cannot say which of them failed
            if it["verdict"] == "proven":  # a run without arguments must not fail there
                run = subprocess.run([os.path.join(work, "p%d" % n)], capture_output=True,
                                     text=True, timeout=60, env=dict(os.environ, VIGIL_ON_FAILURE="log"))
                loc = it["location"].split("/")[-1] + "\n"  # file:line:col, as the runtime ends its line
                if "assertion failed at" in run.stderr and loc in run.stderr + "\n":
                    wrong.append("%s: %s proven, but its run fails" % (os.path.relpath(srcs[0], REPO),
                                                                       it["location"]))
            if it["verdict"] == "violated":  # the printed run must fail, there
                run = subprocess.run([os.path.join(work, "p%d" % n)] + it["failure"]["args"],
                                     capture_output=True, text=True, timeout=60,
                                     env=dict(os.environ, VIGIL_ON_FAILURE="log"))
                loc = it["location"].split("/")[-1] + "\n"  # file:line:col, as the runtime ends its line
                ok = "assertion failed at" in run.stderr and loc in run.stderr + "\n"
                g["counts"]["violated, its run fails" if ok else "violated, its run does NOT fail"] += 1
                if not ok:
                    wrong.append("%s: %s" % (os.path.relpath(srcs[0], REPO), it["location"]))
    date = datetime.date.today().isoformat()
    os.makedirs(a.out, exist_ok=True)
    result = {"date": date, "groups": {k: {"programs": v["programs"], "counts": dict(v["counts"])}
                                       for k, v in groups.items()},
              "not_built": not_built, "violated_runs_not_failing": wrong}
    with open(os.path.join(a.out, "static-corpus-%s.json" % date), "w") as f:
        json.dump(result, f, indent=1)
    lines = ["# Static verdicts on vigil's own corpus — %s" % date, "",
             "`python3 bench/static/corpus.py` (part of `make bench`): every program linked with "
             "`vigil-cc -O1 -g`, `VIGIL_STATIC=report`.", "",
             "Each violated verdict's printed run is executed: it must report that "
             "assertion's failure; each program with a proven one is run without "
             "arguments: it must not (except where one macro expansion holds several "
             "assertions, which a report cannot tell apart).", "",
             "| programs | n | assertions | proven | violated (its run fails) | unknown |",
             "|---|---|---|---|---|---|"]
    reasons = collections.Counter()
    for k, v in groups.items():
        c = v["counts"]
        unknown = sum(n for key, n in c.items() if key.startswith("unknown"))
        total = c.get("proven", 0) + c.get("violated", 0) + unknown
        lines.append("| %s | %d | %d | %d | %d (%d) | %d |" % (
            k, v["programs"], total, c.get("proven", 0), c.get("violated", 0),
            c.get("violated, its run fails", 0), unknown))
        reasons.update({key: n for key, n in c.items() if key.startswith("unknown")})
    lines += ["", "Why the unknown ones are unknown:", ""]
    lines += ["- %d: %s" % (n, key[len("unknown: "):]) for key, n in reasons.most_common()]
    lines += ["", "Not linked on their own (they need their RUN lines' -D flags or are "
              "compile-error tests): %d files." % len(not_built)]
    lines += ["", "Wrong verdicts (a violated one whose run does not fail, a proven one whose "
              "run fails): %d%s" % (
        len(wrong), "".join("\n- " + w for w in wrong))]
    with open(os.path.join(a.out, "static-corpus-%s.md" % date), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
