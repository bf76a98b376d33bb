#!/usr/bin/env python3
"""Write a synthetic ftrace text trace of sched_switch / sched_wakeup events.

The trace is what `cat /sys/kernel/tracing/trace` (or `trace-cmd report`
with --format trace-cmd) prints for a small scheduler simulation: CPUS cpus,
TASKS tasks that sleep (S, some D), get woken onto a cpu's run queue, run,
and get preempted (R+).  Comms include spaces and dashes, as real ones do.

It holds the wwnr model (a task is only woken while it is not running), so
`vigil check wwnr` finds nothing, except the violations seeded with
--violations: each is an extra sched_wakeup line for a task that is running
at that point, and its line number goes to --positions.

Speed: one block of events (one second of trace time) is simulated once,
then written again and again with only its seconds changed (a bytes join),
so 1 GB takes seconds, not minutes.  The block starts and ends with every
cpu idle and every task asleep, so repetitions chain consistently.

    gen_trace.py trace.txt --size 1G --violations 10 --positions pos.txt
    gen_trace.py - --events 200000 | vigil check wwnr --trace -
"""

import argparse
import random
import sys

SEC0 = 10000  # first second of the trace (5 digits, as ftrace pads it)
MARK = b"\x00"  # stands for the seconds in a block template

COMMS = [
    "kworker/0:1", "kworker/1:2H", "bash", "sshd", "systemd-journal", "postgres",
    "Web Content", "memfd:sealed-91", "rcu_preempt", "ksoftirqd/1", "gmain",
    "python3", "node", "DOM Worker", "containerd-shim", "java", "nginx",
]


def parse_size(s):
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    s = s.strip().lower().rstrip("b")
    if s and s[-1] in mult:
        return int(float(s[:-1]) * mult[s[-1]])
    return int(s)


class Task:
    __slots__ = ("pid", "comm", "prio", "may_d")

    def __init__(self, pid, comm, prio, may_d):
        self.pid, self.comm, self.prio, self.may_d = pid, comm, prio, may_d


def header_ftrace(comm, pid, cpu, flags, usec):
    # %16s-%-7d [%03d] flags %5lu.%06lu:   (the seconds are MARK)
    return b"%16s-%-7d [%03d] %s " % (comm, pid, cpu, flags) + MARK + b".%06d: " % usec


def header_tracecmd(comm, pid, cpu, flags, usec):
    return b"%16s-%-5d [%03d] " % (comm, pid, cpu) + MARK + b".%06d: " % usec


class Block:
    """One simulated second: its lines (bytes with MARK for the seconds),
    and for each line a task running after it (for seeding), if any."""

    def __init__(self, args, rng):
        self.fmt = args.format
        tasks = []
        for i in range(args.tasks):
            comm = COMMS[i % len(COMMS)].encode()
            prio = 120 if i % 7 else 100 + (i % 20)
            # Some tasks sleep uninterruptibly (D); they are never seeded.
            tasks.append(Task(300 + i * 7, comm, prio, i % 5 == 0))
        self.tasks = tasks
        idle = Task(0, b"<idle>", 120, False)
        ncpu = self.ncpu = args.cpus
        running = [idle] * ncpu
        queues = [[] for _ in range(ncpu)]
        sleeping = list(tasks)
        rng.shuffle(sleeping)
        hdr = header_ftrace if self.fmt == "ftrace" else header_tracecmd
        events = []  # (cpu, line-without-timestamp-fn)
        run_after = []  # a seedable running task per line, or None

        def seedable():
            c = rng.randrange(ncpu)
            for k in range(ncpu):
                t = running[(c + k) % ncpu]
                if t is not idle and not t.may_d:
                    return (t, (c + k) % ncpu)
            return None

        def switch(cpu, state):
            prev = running[cpu]
            nxt = queues[cpu].pop(0) if queues[cpu] else idle
            if prev is idle and nxt is idle:
                return False
            if prev is idle:
                state = b"R"
            events.append((cpu, self.switch_line(hdr, prev, nxt, cpu, state)))
            running[cpu] = nxt
            if prev is not idle:
                if state == b"R+":
                    queues[cpu].append(prev)
                else:
                    sleeping.append(prev)
            run_after.append(seedable())
            return True

        n = args.block_events
        while len(events) < n:
            cpu = rng.randrange(ncpu)
            r = rng.random()
            if sleeping and (r < 0.45 or not any(queues) and all(t is idle for t in running)):
                t = sleeping.pop(rng.randrange(len(sleeping)))
                target = rng.randrange(ncpu)
                queues[target].append(t)
                events.append((cpu, self.wakeup_line(hdr, running[cpu], t, cpu, target, running[cpu] is idle)))
                run_after.append(seedable())
            else:
                prev = running[cpu]
                if prev is idle:
                    state = b"R"
                elif r < 0.75 and queues[cpu]:
                    state = b"R+"
                elif prev.may_d and r < 0.85:
                    state = b"D"
                else:
                    state = b"S"
                switch(cpu, state)
        # Close the cycle: drain every run queue, every task ends asleep (S).
        for cpu in range(ncpu):
            while running[cpu] is not idle or queues[cpu]:
                switch(cpu, b"S")
        assert len(sleeping) == len(tasks)
        # Timestamps: increasing microseconds within the second.
        usecs = sorted(rng.sample(range(1, 1000000), len(events)))
        self.lines = [mk(u) for (cpu, mk), u in zip(events, usecs)]
        self.usecs = usecs
        self.run_after = run_after
        self.hdr = hdr
        self.template = b"".join(self.lines)
        self.pieces = self.template.split(MARK)

    def switch_line(self, hdr, prev, nxt, cpu, state):
        # The idle task is <idle> in the header, swapper/N in the fields.
        pc = prev.comm if prev.pid else b"swapper/%d" % cpu
        nc = nxt.comm if nxt.pid else b"swapper/%d" % cpu
        if self.fmt == "ftrace":
            body = (b"sched_switch: prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> "
                    b"next_comm=%s next_pid=%d next_prio=%d\n"
                    % (pc, prev.pid, prev.prio, state, nc, nxt.pid, nxt.prio))
            flags = b"d..2."
        else:
            # trace-cmd's plugin prints a preempted task as R.
            st = b"R" if state == b"R+" else state
            body = (b"sched_switch:         %s:%d [%d] %s ==> %s:%d [%d]\n"
                    % (pc, prev.pid, prev.prio, st, nc, nxt.pid, nxt.prio))
            flags = b""
        return lambda u: hdr(prev.comm, prev.pid, cpu, flags, u) + body

    def wakeup_line(self, hdr, cur, t, cpu, target, irq):
        if self.fmt == "ftrace":
            body = (b"sched_wakeup: comm=%s pid=%d prio=%d target_cpu=%03d\n"
                    % (t.comm, t.pid, t.prio, target))
            flags = b"dNs4." if irq else b"d..4."
        else:
            body = b"sched_wakeup:         %s:%d [%d] CPU:%03d\n" % (t.comm, t.pid, t.prio, target)
            flags = b""
        return lambda u: hdr(cur.comm, cur.pid, cpu, flags, u) + body

    def render(self, sec):
        return (b"%d" % sec).join(self.pieces)

    def render_seeded(self, sec, seeds):
        """The block with an extra wakeup of a running task after each line
        index in `seeds` (sorted); returns (bytes, inserted-after indices)."""
        out = []
        done = []
        s = set(seeds)
        secb = b"%d" % sec
        for i, line in enumerate(self.lines):
            out.append(line.replace(MARK, secb))
            if i in s and self.run_after[i] is not None:
                t, tcpu = self.run_after[i]
                other = (tcpu + 1) % self.ncpu
                body = self.wakeup_line(self.hdr, Task(0, b"<idle>", 120, False), t, other, tcpu, True)
                out.append(body(self.usecs[i]).replace(MARK, secb))
                done.append(i)
        return b"".join(out), done


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="output file, - for standard output")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--size", type=parse_size, help="about this many bytes (1G, 200M, ...)")
    g.add_argument("--events", type=int, help="exactly this many event lines (plus seeded ones)")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--tasks", type=int, default=400)
    ap.add_argument("--block-events", type=int, default=20000,
                    help="events per simulated second (default 20000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--violations", type=int, default=0,
                    help="seed this many wakeups of running tasks (one per second of trace, from the second on)")
    ap.add_argument("--positions", help="write the seeded violations' line numbers here")
    ap.add_argument("--format", choices=["ftrace", "trace-cmd"], default="ftrace")
    args = ap.parse_args()
    if args.size is None and args.events is None:
        args.size = 1 << 20
    rng = random.Random(args.seed)
    block = Block(args, rng)
    per_block = len(block.lines)
    bytes_per_block = len(block.template) + per_block * 5 - block.template.count(MARK)

    if args.events is not None:
        nblocks = -(-args.events // per_block)
    else:
        nblocks = max(1, -(-args.size // bytes_per_block))
    if args.violations and nblocks < 2:
        nblocks = 2
    # Seeds: one per block from block 1 on, spread out.
    seed_blocks = {}
    if args.violations:
        usable = list(range(1, nblocks))
        if len(usable) < args.violations:
            sys.exit("gen_trace: not enough trace for %d violations: make it bigger" % args.violations)
        step = len(usable) / args.violations
        candidates = [i for i, r in enumerate(block.run_after) if r is not None]
        for k in range(args.violations):
            b = usable[int(k * step)]
            seed_blocks[b] = rng.choice(candidates[: len(candidates) * 9 // 10])

    out = sys.stdout.buffer if args.out == "-" else open(args.out, "wb", buffering=1 << 20)
    est = nblocks * per_block if args.events is None else args.events
    if args.format == "ftrace":
        head = (b"# tracer: nop\n#\n# entries-in-buffer/entries-written: %d/%d   #P:%d\n#\n"
                b"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
                b"#              | |         |   |||||     |         |\n"
                % (est, est, args.cpus))
    else:
        head = b"cpus=%d\n" % args.cpus
    out.write(head)
    line = head.count(b"\n")
    written_events = 0
    positions = []
    total = len(head)
    for b in range(nblocks):
        sec = SEC0 + b
        keep = per_block
        if args.events is not None:
            keep = min(per_block, args.events - written_events)
        if b in seed_blocks and seed_blocks[b] < keep:
            data, done = block.render_seeded(sec, [seed_blocks[b]])
            for i in done:
                positions.append(line + i + 2)
            if keep < per_block:
                data = b"".join(data.splitlines(True)[: keep + len(done)])
            line += keep + len(done)
        else:
            data = block.render(sec)
            if keep < per_block:
                data = b"".join(data.splitlines(True)[:keep])
            line += keep
        out.write(data)
        total += len(data)
        written_events += keep
    if len(positions) < args.violations:
        print("gen_trace: warning: only %d of the %d violations fit: give more --events or a smaller --block-events"
              % (len(positions), args.violations), file=sys.stderr)
    if out is not sys.stdout.buffer:
        out.close()
    else:
        out.flush()
    if args.positions:
        with open(args.positions, "w") as f:
            for p in positions:
                f.write("%d\n" % p)
    print("gen_trace: %d lines, %d events (+%d seeded), %.1f MB, %d cpus, %d tasks, violations at lines %s"
          % (line, written_events, len(positions), total / 1e6, args.cpus, args.tasks,
             " ".join(map(str, positions[:10])) + (" ..." if len(positions) > 10 else "")),
          file=sys.stderr)


if __name__ == "__main__":
    main()
