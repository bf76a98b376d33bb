"""Reads a file: stream (docs/stream-format.md) with a minimal BSON walker and
checks it: hello first, batch numbers consecutive from 0, per-thread sequence
numbers without overlap, every record's id declared with its argument count,
and the `end` totals: events shipped + events lost == events produced, per
thread.  Prints a summary that the lit tests FileCheck.  Exit 1 on any
violation, naming the byte offset.

Options (after the file; the lines above are printed first, unchanged):
  --hello          print hello's program, pid and mode, and the event table
  --strict         also check that each batch's `lost` is exactly the number
                   of the thread's sequence numbers missing before it (a gap
                   is its lost events), that timestamps never go back within
                   a thread, and that `end` accounts for every sequence
                   number shipped; print `strict ok`
  --threads        print each thread's `produced/shipped/lost` (sorted)
  --tids           print each thread's id with its totals, by id:
                   `tid T produced P lost L`
  --values EVENT   print the argument words of every record of EVENT
                   (NAME/KIND), in stream order: i64 signed, u64 decimal,
                   ptr hex"""
import struct
import sys


def fields(d):
    out, i = {}, 4
    while d[i] != 0:
        t = d[i]
        j = d.index(0, i + 1)
        k = d[i + 1:j].decode()
        i = j + 1
        if t == 2:
            n = struct.unpack_from('<i', d, i)[0]
            out[k] = d[i + 4:i + 3 + n].decode()
            i += 4 + n
        elif t == 16:
            out[k] = struct.unpack_from('<i', d, i)[0]
            i += 4
        elif t == 18:
            out[k] = struct.unpack_from('<q', d, i)[0]
            i += 8
        elif t == 1:
            out[k] = struct.unpack_from('<d', d, i)[0]
            i += 8
        elif t in (3, 4):
            n = struct.unpack_from('<i', d, i)[0]
            sub = fields(d[i:i + n])
            out[k] = list(sub.values()) if t == 4 else sub
            i += n
        elif t == 5:
            n = struct.unpack_from('<i', d, i)[0]
            out[k] = d[i + 5:i + 5 + n]
            i += 5 + n
        else:
            raise ValueError('BSON type %d' % t)
    return out


def fail(off, msg):
    print('check-stream: byte %d: %s' % (off, msg))
    sys.exit(1)


def word(v, t):
    if t == 'i64':
        return str(v - (1 << 64) if v >> 63 else v)
    if t == 'ptr':
        return hex(v)
    return str(v)


class Extra:
    """What the options print or check, fed each document."""

    def __init__(self, argv):
        self.hello = '--hello' in argv
        self.strict = '--strict' in argv
        self.threads = '--threads' in argv
        self.tids = '--tids' in argv
        self.values = [argv[i + 1] for i, a in enumerate(argv) if a == '--values']
        self.out, self.types, self.last = [], {}, {}

    def declare(self, f):
        if self.hello and f['t'] == 'hello':
            self.out.append('hello program %s pid %d mode %s' % (f['program'], f['pid'], f['mode']))
        for e in f['events']:
            self.types[e['id']] = e['args']
            if self.hello:
                self.out.append('declare %s/%s args %s names %s' % (
                    e['name'], e['kind'], ','.join(e['args']) or '-',
                    ','.join(e.get('names', [])) or '-'))

    def batch(self, off, f, before, names):
        # before: records of this thread shipped before this batch
        if self.strict:
            if f['lost'] != f['tseq'] - before:
                fail(off, 'thread %d: batch at tseq %d says %d lost, %d sequence numbers missing'
                     % (f['thread'], f['tseq'], f['lost'], f['tseq'] - before))
        ev, i = f['ev'], 0
        clock = f['clock']
        while i < len(ev):
            w0, ticks = struct.unpack_from('<QQ', ev, i)
            eid, argc = w0 & 0xffffffff, (w0 >> 32) & 0xff
            ns = clock['ns'] + (ticks - clock['tsc']) * clock['ns_per_tick']
            if self.strict and ns < self.last.get(f['thread'], ns):
                fail(off, 'thread %d: time goes back' % f['thread'])
            self.last[f['thread']] = ns
            if names[eid] in self.values:
                args = struct.unpack_from('<%dQ' % argc, ev, i + 16)
                self.out.append('value %s %s' % (names[eid], ' '.join(
                    word(a, t) for a, t in zip(args, self.types[eid]))))
            i += 8 * (2 + argc)

    def end(self, off, end, shipped):
        if self.strict:
            missing = set(shipped) - set(t['thread'] for t in end['threads'])
            if missing:
                fail(off, 'threads %s shipped events but are not in end' % sorted(missing))
            for t in end['threads']:
                th = shipped.get(t['thread'])
                if th and th[1] > t['produced']:
                    fail(off, 'thread %d: sequence number %d shipped, %d produced'
                         % (t['thread'], th[1] - 1, t['produced']))
            self.out.append('strict ok')
        if self.threads:
            rows = sorted('thread produced %d shipped %d lost %d' % (
                t['produced'], shipped.get(t['thread'], [0])[0], t['lost'])
                for t in end['threads'])
            self.out.extend(rows)
        if self.tids:
            for t in sorted(end['threads'], key=lambda t: t['thread']):
                self.out.append('tid %d produced %d lost %d' % (t['thread'], t['produced'], t['lost']))
        for line in self.out:
            print(line)


def main(path, argv):
    extra = Extra(argv)
    data = open(path, 'rb').read()
    off, events, nbatch, shipped, seen, end, names = 0, {}, 0, {}, {}, None, {}
    while off < len(data):
        n = struct.unpack_from('<i', data, off)[0]
        f = fields(data[off:off + n])
        t = f.get('t')
        if off == 0 and t != 'hello':
            fail(off, 'the first document is %r, not hello' % t)
        if t in ('hello', 'schema'):
            for e in f['events']:
                events[e['id']] = len(e['args'])
                names[e['id']] = '%s/%s' % (e['name'], e['kind'])
            extra.declare(f)
        elif t == 'batch':
            if f['seq'] != nbatch:
                fail(off, 'batch %d where %d was due' % (f['seq'], nbatch))
            nbatch += 1
            ev, i, count = f['ev'], 0, 0
            while i < len(ev):
                w0 = struct.unpack_from('<Q', ev, i)[0]
                eid, argc = w0 & 0xffffffff, (w0 >> 32) & 0xff
                if events.get(eid) != argc:
                    fail(off, 'record of event %d with %d words undeclared' % (eid, argc))
                seen.setdefault(names[eid], 0)
                seen[names[eid]] += 1
                i += 8 * (2 + argc)
                count += 1
            if count != f['n']:
                fail(off, 'n says %d, %d records' % (f['n'], count))
            th = shipped.setdefault(f['thread'], [0, -1, 0])
            extra.batch(off, f, th[0], names)
            if f['tseq'] < th[1]:
                fail(off, 'thread %d: sequence numbers overlap' % f['thread'])
            th[0] += count
            th[1] = f['tseq'] + count
            th[2] = f['lost']
        elif t == 'end':
            end = f
        off += n
    if end is None:
        fail(off, 'no end document')
    produced = lost = sent = 0
    for t in end['threads']:
        s = shipped.get(t['thread'], [0, 0, 0])[0]
        if s + t['lost'] != t['produced']:
            fail(off, 'thread %d: %d shipped + %d lost != %d produced'
                 % (t['thread'], s, t['lost'], t['produced']))
        produced += t['produced']
        lost += t['lost']
        sent += s
    print('threads %d batches %d events %d lost %d produced %d'
          % (len(end['threads']), nbatch, sent, lost, produced))
    for k in sorted(seen):
        print('event %s %d' % (k, seen[k]))
    extra.end(off, end, shipped)


main(sys.argv[1], sys.argv[2:])
