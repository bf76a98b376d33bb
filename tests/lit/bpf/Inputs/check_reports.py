#!/usr/bin/env python3
"""check_reports.py MODEL REPORTS.jsonl [--user]: validate vigil monitor's
JSON Lines output and print a short summary FileCheck can match.

Every violation must be about a state and event of MODEL's monitor, name an
event not among its allowed ones, carry task, cpu, key, binding line and
render command, and a stack (kernel, or user with --user).  The summary
must come last and its counts must add up: reported + dropped = violations."""
import json
import sys

# The core every engine's violation starts with (docs/integration.md).
CORE = ["type", "engine", "model", "kind", "state", "event", "allowed", "scope", "key", "rule",
        "source", "time_ns", "pid", "tgid", "cpu", "comm"]

model, path = sys.argv[1], sys.argv[2]
user = "--user" in sys.argv
lines = [l for l in open(path) if l.strip()]
recs = [json.loads(l) for l in lines]
assert recs, "no output"
summary = recs[-1]
assert summary["type"] == "summary", summary
viol = recs[:-1]
kinds = {}
for v in viol:
    assert v["type"] == "violation", v
    assert v["engine"] == "bpf" and v["model"] == summary["monitor"], v
    assert v["event"] not in v["allowed"], v
    assert list(v)[:len(CORE)] == CORE, (list(v), v)
    for k in ("state", "cpu", "pid", "tgid", "comm", "time_ns", "source", "rule"):
        assert v[k] is not None, (k, v)
    assert v["key"] is None or set(v["key"]) == {"field", "value"}, v
    assert v["rule"].rsplit(":", 1)[1].isdigit(), v
    assert v["render"] == "vigil render %s --highlight %s:%s" % (model, v["state"], v["event"]), v
    stack = v["user_stack"] if user else v["stack"]
    assert stack and all(f["addr"].startswith("0x") for f in stack), v
    if not user:
        assert any("+0x" in f["sym"] for f in stack), v
    kinds[(v["state"], v["event"])] = kinds.get((v["state"], v["event"]), 0) + 1
assert summary["reported"] == len(viol), (summary, len(viol))
assert summary["reported"] + summary["drops"] == summary["violations"], summary
assert summary["events_seen"] > 0, summary
print("summary: monitor %s, events seen > 0, %s" % (
    summary["monitor"], "violations" if summary["violations"] else "no violation"))
print("attached: %s" % " ".join(summary["attached"]))
for (s, e), n in sorted(kinds.items()):
    print("violation: event %s in state %s" % (e, s))
print("ok")
