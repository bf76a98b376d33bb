#!/usr/bin/env python3
"""Run `vigil dot2c` (standalone and --name) on every .dot under a directory.

usage: check_kernel_models.py VIGIL DIR

Each model must exit 0 in both forms and print the dot2c structure; a hybrid
model (its C ends with vigil's "hybrid automaton" comment) must warn on stderr,
any other must print nothing there.  Prints one line per model, then
`checked N models (H hybrid)`; exits 1 on the first problem.
"""
import os
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    vigil, root = sys.argv[1], sys.argv[2]
    models = sorted(
        os.path.join(d, f)
        for d, _, files in os.walk(root)
        for f in files
        if f.endswith(".dot"))
    if not models:
        fail("no .dot model under %s" % root)
    hybrid = 0
    for path in models:
        rel = os.path.relpath(path, root)
        name = os.path.splitext(os.path.basename(path))[0]
        for form, extra, first in (
                ("standalone", [], "enum states {\n"),
                ("dot2k", ["--name", name], "/* SPDX-License-Identifier: GPL-2.0 */\n")):
            r = run([vigil, "dot2c", path] + extra)
            if r.returncode != 0:
                fail("%s (%s): exit %d: %s" % (rel, form, r.returncode, r.stderr.strip()))
            out = r.stdout
            if not out.startswith(first):
                fail("%s (%s): output does not start with %r" % (rel, form, first))
            for needed in ("#define INVALID_STATE state_max", ".function = {",
                           ".initial_state = ", ".final_states = { "):
                if needed not in out:
                    fail("%s (%s): no %r in the output" % (rel, form, needed))
            is_hybrid = "is a hybrid automaton." in out
            if is_hybrid and "warning:" not in r.stderr:
                fail("%s (%s): hybrid model without warnings on stderr" % (rel, form))
            if not is_hybrid and r.stderr:
                fail("%s (%s): unexpected stderr: %s" % (rel, form, r.stderr.strip()))
        hybrid += is_hybrid
        print("ok %s%s" % (rel, " (hybrid)" if is_hybrid else ""))
    print("checked %d models (%d hybrid)" % (len(models), hybrid))


if __name__ == "__main__":
    main()
