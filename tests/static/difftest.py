#!/usr/bin/env python3
"""Differential test of the static checker (docs/static.md).

Generates random C programs, each with one per-thread assertion over random
events, links each with `vigil-cc --vigil-static=report`, and runs it on
random inputs.  An assertion the checker calls *proven* must never fail at
run time; any such failure is a wrong verdict, printed with the program, and
makes the exit status 1.  An assertion it calls *violated* must fail on the
run the checker printed (its argv[1]); one that does not is a wrong verdict
too.  Also counts the unknown verdicts whose assertion did fail (a failing
run the checker did not find) and those that never failed.

    tests/static/difftest.py --vigil-cc build/bin/vigil-cc -n 50 --seed 1
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

EVENTS = ["e0", "e1", "e2"]
FUNCS = ["f0", "f1", "f2", "f3"]


def statements(rng, fn_index, depth):
    """A random body for function f<fn_index>: it calls only later functions
    (plus, rarely, itself under a depth guard), events, and the site."""
    out = []
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        if r < 0.35:
            out.append(f"{rng.choice(EVENTS)}();")
        elif r < 0.5:
            out.append("op();")
        elif r < 0.7 and fn_index + 1 < len(FUNCS):
            out.append(f"{FUNCS[rng.randint(fn_index + 1, len(FUNCS) - 1)]}(in);")
        elif r < 0.75:
            out.append(f"if (depth++ < 2) {FUNCS[fn_index]}(in);")
        elif depth < 2 and r < 0.9:
            bit = rng.randint(0, 7)
            then = " ".join(statements(rng, fn_index, depth + 1))
            other = " ".join(statements(rng, fn_index, depth + 1)) if rng.random() < 0.6 else ""
            out.append(f"if (next(in) & {1 << bit}) {{ {then} }} else {{ {other} }}")
        elif depth < 2:
            body = " ".join(statements(rng, fn_index, depth + 1))
            out.append(f"for (int k{depth} = next(in) & 3; k{depth} > 0; k{depth}--) {{ {body} }}")
    return out


def pattern(rng):
    a, b = rng.sample(EVENTS, 2)
    kind = rng.randrange(5)
    p = [f"previously(call({a}))",
         f"previously(call({a}), call({b}))",
         f"eventually(call({a}))",
         f"TSEQUENCE(call({a}), TESLA_ASSERTION_SITE, call({b}))",
         f"previously(call({a})) || previously(call({b}))"][kind]
    mode = rng.choice(["", "", "conditional", "strict"])
    return f"{mode}({p})" if mode else p


def program(rng):
    decls = "".join(f"void {e}(void) {{ __asm__ volatile(\"\"); }}\n" for e in EVENTS)
    protos = "".join(f"void {f}(const char **in);\n" for f in FUNCS)
    bodies = "".join(
        f"void {f}(const char **in) {{ {' '.join(statements(rng, i, 0))} }}\n"
        for i, f in enumerate(FUNCS))
    return f"""#include <stdlib.h>
#include <tesla.h>
static int depth;
static int next(const char **in) {{ return **in ? *(*in)++ - '0' : 0; }}
{decls}void bound(const char **in);
void op(void) {{ TESLA_WITHIN(bound, {pattern(rng)}); }}
{protos}{bodies}void bound(const char **in) {{ depth = 0; f0(in); }}
int main(int argc, char **argv) {{
  const char *s = argc > 1 ? argv[1] : "";
  const char **in = &s;
  for (int r = next(in) & 3; r >= 0; r--) {{ if (next(in) & 1) op(); bound(in); }}
  return 0;
}}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vigil-cc", required=True)
    ap.add_argument("-n", type=int, default=30, help="programs")
    ap.add_argument("--runs", type=int, default=40, help="inputs per program")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="directory to keep the programs in")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = a.keep or tempfile.mkdtemp(prefix="vigil-difftest-")
    os.makedirs(work, exist_ok=True)
    counts = {"proven": 0, "violated": 0, "unknown, fails": 0, "unknown, never failed": 0}
    wrong = 0
    for i in range(a.n):
        src = os.path.join(work, f"p{i}.c")
        exe = os.path.join(work, f"p{i}")
        with open(src, "w") as f:
            f.write(program(rng))
        b = subprocess.run([a.vigil_cc, "--vigil-static=report", "-O1", "-g", src, "-o", exe],
                           capture_output=True, text=True, timeout=120)
        if b.returncode != 0:
            print(f"p{i}.c: build failed:\n{b.stderr}", file=sys.stderr)
            return 2
        m = re.search(r"vigil: static: \S+: (proven|unknown|violated): (.*)", b.stderr)
        if not m:
            print(f"p{i}.c: no verdict in:\n{b.stderr}", file=sys.stderr)
            return 2
        proven = m.group(1) == "proven"
        if m.group(1) == "violated":
            # the run the checker printed must fail, exactly as printed
            run = re.search(r"a run that fails: \./prog(?: '((?:[^']|'\\'')*)')?\n", b.stderr)
            args = [run.group(1).replace("'\\''", "'")] if run and run.group(1) is not None else []
            r = subprocess.run([exe] + args, capture_output=True, text=True, timeout=30,
                               env=dict(os.environ, VIGIL_ON_FAILURE="log"))
            if not run or "assertion failed" not in r.stderr:
                wrong += 1
                print(f"WRONG: p{i}.c was violated ({m.group(2)}) but {args} does not fail:")
                print(b.stderr)
                print(open(src).read())
            counts["violated"] += 1
            continue
        failed_on = None
        for _ in range(a.runs):
            inp = "".join(rng.choice("0123456789") for _ in range(24))
            r = subprocess.run([exe, inp], capture_output=True, text=True, timeout=30,
                               env=dict(os.environ, VIGIL_ON_FAILURE="log"))
            if "assertion failed" in r.stderr:
                failed_on = (inp, r.stderr.splitlines()[0:4])
                break
        if proven and failed_on:
            wrong += 1
            print(f"WRONG: p{i}.c was proven ({m.group(2)}) but fails on input {failed_on[0]}:")
            print("\n".join("  " + l for l in failed_on[1]))
            print(open(src).read())
        key = "proven" if proven else "unknown, fails" if failed_on else "unknown, never failed"
        counts[key] += 1
    print(f"difftest: {a.n} programs (seed {a.seed}, {a.runs} inputs each): "
          f"{counts['proven']} proven, {counts['violated']} violated (each failing on its printed run), "
          f"{counts['unknown, fails']} unknown that fail at run time, "
          f"{counts['unknown, never failed']} unknown that never failed; {wrong} wrong verdicts")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
