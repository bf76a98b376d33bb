"""same-lines.py POSITIONS JSONL: the violations vigil check reported
(JSON Lines) are exactly the seeded ones gen_trace.py listed, in order."""
import json
import sys

want = [int(l) for l in open(sys.argv[1]) if l.strip()]
got, summary = [], None
for l in open(sys.argv[2]):
    o = json.loads(l)
    if o["type"] == "violation":
        got.append(o["line"])
        assert o["state"] == "running" and o["event"] == "wakeup", o
    else:
        summary = o
assert want, "no violation was seeded"
assert got == want, "reported %s, seeded %s" % (got, want)
assert summary["violations"] == len(want), summary
assert summary["malformed"] == 0, summary
print("ok: %d seeded violations reported at their lines; %d events" % (len(got), summary["events"]))
