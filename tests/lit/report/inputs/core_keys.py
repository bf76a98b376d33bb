#!/usr/bin/env python3
"""core_keys.py REPORTS.jsonl...: every automaton violation in the JSON Lines
files (vigil check, vigil collect --check, vigil monitor; --json; and
libvigil's VIGIL_REPORT for in-process monitors) starts with
the same core keys, in the same order and with the same types
(docs/integration.md, "Automaton violations (all engines)").  Prints one
line per file: its engine(s) and how many violations it has, then "same
core keys" when every file's violations share one key list."""
import json
import sys

CORE = ["type", "engine", "model", "kind", "state", "event", "allowed", "scope", "key", "rule",
        "source", "time_ns", "pid", "tgid", "cpu", "comm"]
KINDS = {"event", "guard", "invariant", "not-final", "ltl"}
SCOPES = {"global", "cpu", "task", "object"}


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def opt(check):
    return lambda v: v is None or check(v)


def check_key(k):
    return (isinstance(k, dict) and list(k) == ["field", "value"]
            and (k["field"] is None or isinstance(k["field"], str)) and is_int(k["value"]))


TYPES = {
    "type": lambda v: v == "violation",
    "engine": lambda v: v in ("offline", "collect", "bpf", "process"),
    "model": lambda v: isinstance(v, str) and v,
    "kind": lambda v: v in KINDS,
    "state": lambda v: isinstance(v, str),
    "event": lambda v: isinstance(v, str),
    "allowed": lambda v: isinstance(v, list) and all(isinstance(e, str) for e in v),
    "scope": lambda v: v in SCOPES,
    "key": opt(check_key),
    "rule": opt(lambda v: isinstance(v, str) and v.rsplit(":", 1)[-1].isdigit()),
    "source": opt(lambda v: isinstance(v, str) and v.split(":", 1)[0] in ("tp", "call", "return")),
    "time_ns": opt(is_int),
    "pid": opt(is_int),
    "tgid": opt(is_int),
    "cpu": opt(is_int),
    "comm": opt(lambda v: isinstance(v, str)),
}

seen = set()
for path in sys.argv[1:]:
    engines, n = set(), 0
    for line in open(path):
        if not line.strip() or not line.startswith("{"):
            continue
        v = json.loads(line)
        if v.get("type") != "violation":
            continue
        n += 1
        keys = list(v)[:len(CORE)]
        assert keys == CORE, (path, keys, v)
        for k in CORE:
            assert TYPES[k](v[k]), (path, k, v[k], v)
        assert (v["key"] is None) == (v["scope"] == "global"), (path, v)
        engines.add(v["engine"])
        seen.add(tuple(keys))
    assert n, "%s: no violation" % path
    print("%s: %d violation(s), core keys ok" % (" ".join(sorted(engines)), n))
assert len(seen) == 1, seen
print("same core keys")
