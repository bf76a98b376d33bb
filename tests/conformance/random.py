#!/usr/bin/env python3
"""Randomised differential test of the engines: random models (plain and
hybrid: guards on clocks and fields, resets, invariants; LTL formulas),
random bindings (scopes, start/run rules, conditions, forget; for LTL what
each rule does to its atom), random events; the reference step function
records the verdicts and the offline engine and the C step function (vk.h)
must give exactly the same.

    python3 tests/conformance/random.py --vigil build/bin/vigil \
        --c-runner build/tests/vk_run -n 200 --seed 1
With --process-cc, the in-process engine runs every model whose binding
it can drive too (a driver program built with vigil-cc per model; hybrid
models on the runtime's test clock, VIGIL_MONITOR_CLOCK=manual; not scope
cpu, whose instances the driver cannot key, nor LTL).
Exit status 1 on the first disagreement (its case is kept and named).
"""
import argparse
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile


def model(r: random.Random, hybrid: bool) -> tuple[str, list[str]]:
    ns, ne = r.randint(1, 6), r.randint(1, 5)
    states = [f"s{i}" for i in range(ns)]
    events = [f"e{i}" for i in range(ne)]
    finals = {s for s in states if r.random() < 0.4}
    clock = hybrid and r.random() < 0.8
    guards = ["f == 1", "f != 1 || g == 2", "g <= 0"]
    if clock:
        guards += ["clk < 3us", "clk >= 1us", "f == 1 && clk < 5us"]
    edges: dict[tuple[str, str], list[str]] = {}
    for s in states:
        for e in events:
            if r.random() < 0.6:
                item = e
                if hybrid and r.random() < 0.3:
                    item += ";" + r.choice(guards)
                if clock and r.random() < 0.3:
                    item += ";reset(clk)"
                edges.setdefault((s, r.choice(states)), []).append(item)
    if clock and edges and not any("reset" in it for items in edges.values() for it in items):
        first = next(iter(edges.values()))
        first[0] += ";reset(clk)"
    lines = ["digraph state_automaton {",
             '\t{node [shape = plaintext, style=invis, label=""] "__init_s0"};']
    for s in states:
        shape = "doublecircle" if s in finals else "circle"
        lines.append(f'\t{{node [shape = {shape}] "{s}"}};')
    lines.append('\t"__init_s0" -> "s0";')
    for s in states:
        inv = ""
        if clock and edges and r.random() < 0.4:
            inv = "\\n" + r.choice(["clk < 4us", "clk <= 2us", "clk < 9us"])
        lines.append(f'\t"{s}" [label = "{s}{inv}"];')
    for (a, b), items in edges.items():
        label = "\\n".join(items)
        lines.append(f'\t"{a}" -> "{b}" [ label = "{label}" ];')
    lines.append("}")
    used = sorted({it.split(";")[0] for items in edges.values() for it in items})
    return "\n".join(lines) + "\n", used


def ltl_model(r: random.Random) -> tuple[str, list[str]]:
    """A random formula over up to 4 atoms, fully parenthesised (the
    kernel's grammar has no precedence), mostly under `always` as the
    kernel's rules are."""
    atoms = [f"A{i}" for i in range(r.randint(1, 4))]
    used: set[str] = set()

    def formula(depth: int) -> str:
        if depth == 0 or r.random() < 0.25:
            if r.random() < 0.08:
                return r.choice(["true", "false"])
            a = r.choice(atoms)
            used.add(a)
            return a
        op = r.choice(["not", "next", "always", "eventually", "and", "or", "imply", "until", "and", "or", "imply"])
        if op in ("not", "next", "always", "eventually"):
            return f"({op} {formula(depth - 1)})"
        return f"({formula(depth - 1)} {op} {formula(depth - 1)})"

    rule = formula(r.randint(1, 4))
    if r.random() < 0.8:
        rule = f"always {rule}"
    return f"RULE = {rule}\n", sorted(used)


def ltl_binding(r: random.Random, atoms: list[str]) -> str:
    scope = r.choice(["task", "task", "object", "global", "cpu"])
    key = {"task": " key=arg0", "object": " key=arg0", "global": "", "cpu": ""}[scope]
    out = ["model m.ltl", f"scope {scope}"]
    for a in atoms:
        for i in range(r.randint(1, 3)):
            cond = r.choice(["", "", "", " if arg3 >= 0", " if arg3 != 2"])
            action = r.choice(["true", "false", "pulse", "set true", "set false"])
            out.append(f"{a} <- call:{a.lower()}_{i}{key}{cond} {action}")
    if scope in ("task", "object") and r.random() < 0.5:
        out.append(f"forget <- call:exit{key}")
    return "\n".join(out) + "\n"


# What vigil says of a random formula it does not monitor (no case).
NOT_A_MONITOR = ("unsatisfiable", "the kernel's monitors take", "the most the C engines take")


def binding(r: random.Random, events: list[str]) -> str:
    scope = r.choice(["task", "object", "global", "cpu"])
    out = ["model m.dot", f"scope {scope}", "env f = arg1", "env g = arg2"]
    key = {"task": " key=arg0", "object": " key=arg0", "global": "", "cpu": ""}[scope]
    for e in events:
        for _ in range(r.randint(1, 2)):
            cond = r.choice(["", "", " if arg3 >= 0", " if arg3 != 2", " if arg3 < 1 && arg4 > -1"])
            mode = r.choice(["", "", "", " start", " run"])
            out.append(f"{e} <- call:{e}{key}{cond}{mode}")
    if scope in ("task", "object") and r.random() < 0.5:
        out.append(f"forget <- call:obj_free{key}")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vigil", required=True)
    ap.add_argument("--c-runner", required=True)
    ap.add_argument("--process-cc", help="also the in-process engine (vigil-cc): plain, hybrid and LTL models")
    ap.add_argument("--bpf-runner", help="also the kernel engine (vigil-bpf-monitor, root): plain models only")
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--events", type=int, default=300)
    args = ap.parse_args()
    r = random.Random(args.seed)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="vigil-random-conform-"))
    totals = [0, 0, 0, 0]
    ltl, not_monitors, clocked = 0, 0, 0
    for i in range(args.n):
        case = tmp / f"case{i}"
        case.mkdir()
        is_ltl = r.random() < 0.25
        if is_ltl:
            text, events = ltl_model(r)
            if events:
                (case / "m.ltl").write_text(text)
                (case / "binding.bind").write_text(ltl_binding(r, events))
        else:
            text, events = model(r, hybrid=r.random() < 0.6)
            if events:
                (case / "m.dot").write_text(text)
                (case / "binding.bind").write_text(binding(r, events))
        if not events:
            continue
        cmd = [args.vigil, "conform", str(case), "--generate", str(args.events),
               "--seed", str(r.randrange(1 << 30)), "--record", "--c-runner", args.c_runner]
        if args.process_cc:
            cmd += ["--process-cc", args.process_cc]
        if args.bpf_runner:
            cmd += ["--bpf-runner", args.bpf_runner]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if is_ltl and p.returncode != 0 and "FAIL" not in p.stdout and any(w in p.stderr for w in NOT_A_MONITOR):
            not_monitors += 1
            continue
        if p.returncode != 0:
            print(p.stdout + p.stderr)
            print(f"random: case {i} disagrees or failed; kept in {case}")
            sys.exit(1)
        verdicts = int(p.stdout.split(" events, ")[1].split(" verdicts")[0])
        totals[0] += 1
        ltl += is_ltl
        totals[1] += verdicts
        ran = ", process" in p.stdout.split(" agree")[0]
        totals[2] += ran
        clocked += ran and "reset(clk)" in text
        totals[3] += ", bpf" in p.stdout.split(" agree")[0]
    shutil.rmtree(tmp)
    print(f"random: {totals[0]} random models, {totals[1]} verdicts; reference, offline and C agree on all"
          + (f"; the in-process engine ran {totals[2]} of them ({clocked} with a clock) and agrees" if args.process_cc else "")
          + (f"; the kernel engine ran {totals[3]} of them (plain, hybrid and LTL models within its limits) and agrees" if args.bpf_runner else "")
          + f"; {ltl} of the models are LTL formulas ({not_monitors} more were not monitors: unsatisfiable or too large)")


if __name__ == "__main__":
    main()
