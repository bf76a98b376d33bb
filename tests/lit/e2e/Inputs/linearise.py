#!/usr/bin/env python3
"""Linearisability check of a global assertion's run (global-linearisable.c).

usage: linearise.py EXPLAIN.json LOG [--drop K] [--add K]

LOG has one line per operation ("op THREAD INDEX KIND T0 T1": the tickets
taken before and after it), one per violation reported ("violation THREAD
INDEX TICKET REASON": the handler's ticket, taken inside vigil's critical
section, and the operation it interrupted) and a "totals" line.

The question: is there one sequential order of every operation that
 - keeps each thread's order and real time (an operation that ended before
   another began comes first; a violating operation happened at its
   handler's ticket), and
 - in which the assertion's DFA, stepped with the runtime's rules for one
   forward alternative in guideline mode (docs/engine.md), reports exactly
   the violations of the log: at the same operations, with the same
   reasons, in the same order?
The DFA is the pass's own, read from `vigil explain --format json`, so the
check does not depend on a second model of the pattern.

The runtime's rules used (docs/engine.md, "Runtime semantics"): the global
bound is open while any thread is inside it (its depth counts every
thread's entries); the outermost entry opens a window in state 0; an event
with no transition is a violation and the alternative ignores the rest of
the window; a final state is done (guideline: the rest is ignored); the
outermost exit of a window that passed the site but is not final reports
missing-after-site.

--drop K / --add K are the checker's own controls: remove the K-th
violation, or declare one at the K-th site that did not report; on a
one-thread log (a single order) both must be rejected.

The search is depth-first over (next operation of each thread, bound
depth, DFA state, status, symbols seen), memoised: threads only overlap
within the few operations that run at the same time, so the reachable
states stay few.
"""
import json
import os
import sys

ACTIVE, DONE, FAILED, CLOSED = range(4)
KIND_SYMBOL_TEXT = {"a": "call(a)", "b": "call(b)", "c": "call(c)"}


def load_dfa(path):
    with open(path) as f:
        doc = json.load(f)
    (assertion,) = doc["assertions"]
    (alternative,) = assertion["alternatives"]
    symbols = {}
    for kid in alternative["pattern"]["kids"]:
        if kid["k"] == "sym":
            symbols[kid["text"]] = kid["s"]
    (automaton,) = assertion["automata"]
    states = []
    for st in automaton["states"]:
        flags = set(st["flags"].split(","))
        states.append({
            "next": {int(s): t for s, t in st["next"].items()},
            "past": "past-site" in flags,
            "final": "final" in flags,
            "named": st["named"],
            "early": st["early"],
        })
    kinds = {k: symbols[t] for k, t in KIND_SYMBOL_TEXT.items()}
    kinds["site"] = 2
    return states, kinds


def read_log(path):
    ops, violations, totals = {}, [], {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "op":
                t, i = int(w[1]), int(w[2])
                ops.setdefault(t, []).append((w[3], int(w[4]), int(w[5])))
                assert len(ops[t]) == i + 1, "operations out of order"
            elif w[0] == "violation":
                violations.append((int(w[1]), int(w[2]), int(w[3]), w[4]))
            elif w[0] == "totals":
                totals = {w[k]: int(w[k + 1]) for k in range(1, len(w), 2)}
    threads = [ops[t] for t in sorted(ops)]
    return threads, violations, totals


def step(states, kinds, model, kind):
    """One operation on (depth, state, status, ever): the new model and the
    violation's reason, or None."""
    depth, d, status, ever = model
    if kind == "enter":
        if depth == 0:
            return (1, 0, ACTIVE, 0), None
        return (depth + 1, d, status, ever), None
    if kind == "exit":
        if depth != 1:
            return (max(depth - 1, 0), d, status, ever), None
        st = states[d]
        reason = None
        if status == ACTIVE and st["past"] and not st["final"]:
            reason = "missing-after-site"
        return (0, 0, CLOSED, 0), reason
    if depth == 0 or status != ACTIVE:
        return model, None
    s = kinds[kind]
    st = states[d]
    t = st["next"].get(s)
    if t is None:
        if st["past"]:
            reason = "wrong-order"
        elif st["early"] >= 0:
            reason = "event-before-site"
        elif st["named"] >= 0 and (ever >> st["named"]) & 1:
            reason = "wrong-order"
        else:
            reason = "missing-before-site"
        return (depth, d, FAILED, ever), reason
    status = DONE if states[t]["final"] else ACTIVE
    return (depth, t, status, ever | (1 << s)), None


def linearise(states, kinds, threads, violations):
    # A violating operation happened at its handler's ticket.
    violating = {}
    order = {}
    for n, (t, i, tv, reason) in enumerate(violations):
        violating[(t, i)] = reason
        order[(t, i)] = n
        kind, t0, t1 = threads[t][i]
        threads[t][i] = (kind, tv, tv)
    ends = [len(ops) for ops in threads]
    start = (tuple(0 for _ in threads), (0, 0, CLOSED, 0), 0)
    stack, seen = [start], {start}
    while stack:
        idx, model, nv = stack.pop()
        if list(idx) == ends:
            return nv == len(violations)
        for j, ops in enumerate(threads):
            if idx[j] == ends[j]:
                continue
            kind, t0, t1 = ops[idx[j]]
            # real time: no other thread's next operation ended before this began
            if any(k != j and idx[k] < ends[k] and threads[k][idx[k]][2] < t0
                   for k in range(len(threads))):
                continue
            new, reason = step(states, kinds, model, kind)
            want = violating.get((j, idx[j]))
            if reason != want:
                continue
            if want is not None and order[(j, idx[j])] != nv:
                continue  # the handler's order is the critical sections' order
            nxt = (idx[:j] + (idx[j] + 1,) + idx[j + 1:], new, nv + (want is not None))
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def main():
    args = sys.argv[1:]
    drop = add = None
    if "--drop" in args:
        k = args.index("--drop")
        drop = int(args[k + 1])
        del args[k:k + 2]
    if "--add" in args:
        k = args.index("--add")
        add = int(args[k + 1])
        del args[k:k + 2]
    states, kinds = load_dfa(args[0])
    threads, violations, totals = read_log(args[1])
    if drop is not None:
        del violations[drop - 1]
    if add is not None:
        reported = {(t, i) for t, i, _, _ in violations}
        sites = [(t, i) for t, ops in enumerate(threads) for i, op in enumerate(ops)
                 if op[0] == "site" and (t, i) not in reported]
        t, i = sites[add - 1]
        _, t0, t1 = threads[t][i]
        violations.append((t, i, t1, "missing-before-site"))
        violations.sort(key=lambda v: v[2])
    nops = sum(len(ops) for ops in threads)
    counts = {}
    for v in violations:
        counts[v[3]] = counts.get(v[3], 0) + 1
    if not linearise(states, kinds, threads, violations):
        print("not linearisable: %d threads, %d operations, %d violations"
              % (len(threads), nops, len(violations)))
        return 1
    # Alone, the inline path took most events (with VIGIL_FAST_PATH=0 every
    # event is a runtime call: not checked then).  Not checked with several
    # threads: a contended lock is the runtime's to wait for, and how often
    # that happens depends on the machine's load.
    events = sum(1 for ops in threads for op in ops if op[0] not in ("enter", "exit"))
    inline = os.environ.get("VIGIL_FAST_PATH", "1") != "0" and len(threads) == 1
    if inline and totals.get("runtime_events", 0) * 2 >= events:
        print("the runtime took %d of %d events: the inline path did not run"
              % (totals["runtime_events"], events))
        return 1
    if totals.get("failures", len(violations)) != len(violations) and drop is None \
            and add is None:
        print("vigil counted %d failures, the handler saw %d"
              % (totals["failures"], len(violations)))
        return 1
    print("linearisable: %d threads, %d operations, %d violations (%s)"
          % (len(threads), nops, len(violations),
             ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
