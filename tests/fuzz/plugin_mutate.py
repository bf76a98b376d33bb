#!/usr/bin/env python3
"""Structured fuzzing of the Clang plugin's TESLA assertion parser.

The plugin reads assertions from Clang's AST, so its input is C source: a
byte-level fuzzer would spend its time in Clang's lexer.  This mutator
takes every lit test that holds an assertion, finds each TESLA_* /
automaton(...) call (balanced parentheses), and mutates the tokens inside
it only: deletes, duplicates, swaps, replaces a token with a piece of the
assertion language (call, returnfrom, TSEQUENCE, REPEAT, flags, &x, ->f
+=, ||, ...).  Each mutant is compiled with the real plugin
(clang -fsyntax-only); a signal, Clang's crash banner or a timeout is a
crash (the input is kept under BUILD/fuzz/plugin-crashes).  Diagnostics
are the expected outcome for most mutants.

    tests/fuzz/plugin_mutate.py BUILD [SECONDS] [--seed N]
"""
import argparse
import glob
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKEN = re.compile(r"[A-Za-z_]\w*|0x[0-9a-fA-F]+|\d+|->|\+=|-=|\+\+|--|==|!=|\|\||&&|\S")
PIECES = ["call", "returnfrom", "TSEQUENCE", "REPEAT", "UPTO", "ATLEAST", "optional",
          "flags", "bitmask", "ANY", "ptr", "int", "previously", "eventually", "strict",
          "conditional", "TESLA_ASSERTION_SITE", "tesla_done", "automaton", "&", "->", "+=",
          "-=", "++", "==", "||", "(", ")", ",", ";", "{", "}", "({", "})", "0", "1",
          "0xffffffff", "-1", "x", "o", "struct", "__tesla_global", "__tesla_perthread",
          "TESLA_WITHIN", "TESLA_STRUCT_AUTOMATON", "caller", "callee"]
MACRO = re.compile(r"\b(TESLA_[A-Z_]+|automaton)\s*\(")


def spans(text):
    """(start, end) of each assertion call's argument text."""
    out = []
    for m in MACRO.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            out.append((m.end(), i - 1))
    return out


def mutate(text, rng):
    ss = spans(text)
    if not ss:
        return None
    a, b = rng.choice(ss)
    toks = TOKEN.findall(text[a:b])
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        k = rng.randrange(len(toks)) if toks else 0
        if op == 0 and toks:
            del toks[k]
        elif op == 1 and toks:
            toks.insert(k, toks[k])
        elif op == 2 and len(toks) > 1:
            j = rng.randrange(len(toks))
            toks[k], toks[j] = toks[j], toks[k]
        elif op == 3:
            toks.insert(k, rng.choice(PIECES))
        elif toks:
            toks[k] = rng.choice(PIECES)
    return text[:a] + " ".join(toks) + text[b:]


def seeds():
    files = sorted(glob.glob(os.path.join(ROOT, "tests/lit/e2e/*.c")) +
                   glob.glob(os.path.join(ROOT, "tests/lit/compile-errors/*.c")) +
                   glob.glob(os.path.join(ROOT, "tests/lit/explain/*.c")))
    out = []
    for f in files:
        text = open(f, encoding="utf-8", errors="replace").read()
        if spans(text):
            out.append((os.path.basename(f), text))
    return out


def compile_one(build, path):
    cmd = ["clang-19", "-fsyntax-only", "-D__VIGIL__=1", "-I" + os.path.join(ROOT, "include"),
           "-I" + os.path.join(ROOT, "tests/lit/e2e"),
           "-fplugin=" + os.path.join(build, "lib", "vigil-clang.so"), path]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return "timeout"
    if p.returncode < 0:
        return "signal %d" % -p.returncode
    if "PLEASE submit a bug report" in p.stderr or "Stack dump:" in p.stderr:
        return "clang crash banner"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("seconds", nargs="?", type=float, default=20)
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    seed = a.seed if a.seed is not None else int(time.time())
    rng = random.Random(seed)
    pool = seeds()
    crashes_dir = os.path.join(build, "fuzz", "plugin-crashes")
    os.makedirs(crashes_dir, exist_ok=True)
    deadline = time.time() + a.seconds
    runs, crashes = 0, []
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(2) as ex:
        while time.time() < deadline:
            batch = []
            for w in range(2):
                name, text = rng.choice(pool)
                m = mutate(text, rng)
                if m is None:
                    continue
                path = os.path.join(tmp, "m%d-%s" % (w, name))
                with open(path, "w") as f:
                    f.write(m)
                batch.append((name, m, ex.submit(compile_one, build, path)))
            for name, m, fut in batch:
                runs += 1
                why = fut.result()
                if why:
                    keep = os.path.join(crashes_dir, "%s-%d-%s" % (why.replace(" ", "_"), runs, name))
                    with open(keep, "w") as f:
                        f.write(m)
                    crashes.append((why, keep))
    print("fuzz: plugin assertion parser: %d mutants of %d seed files (seed %d), %s"
          % (runs, len(pool), seed, "no crash" if not crashes else "%d crashes" % len(crashes)))
    for why, keep in crashes[:10]:
        print("fuzz: plugin crash (%s): %s" % (why, keep))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
