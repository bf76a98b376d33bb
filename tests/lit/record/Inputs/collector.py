#!/usr/bin/env python3
"""collector.py unix:PATH OUT -- CMD...: a minimal collector.  Listens on the
Unix socket PATH, runs CMD (which is to stream there), stores every document
of the one connection in OUT (a file: stream then, for check_stream.py) and
acknowledges each batch ({t: "ack", seq}) as docs/stream-format.md says,
until `end`.  Exits with CMD's status, or 1 if no `end` arrived."""
import os
import socket
import struct
import subprocess
import sys


def ack(seq):
    body = b'\x02t\x00' + struct.pack('<i', 4) + b'ack\x00' + b'\x12seq\x00' + struct.pack('<q', seq)
    return struct.pack('<i', len(body) + 5) + body + b'\x00'


def field(doc, name):
    """The value of a top-level string or int64 field (enough for t and seq)."""
    i = 4
    while doc[i] != 0:
        t, j = doc[i], doc.index(0, i + 1)
        k, i = doc[i + 1:j].decode(), j + 1
        if t == 2:
            n = struct.unpack_from('<i', doc, i)[0]
            v, i = doc[i + 4:i + 3 + n].decode(), i + 4 + n
        elif t == 18:
            v, i = struct.unpack_from('<q', doc, i)[0], i + 8
        elif t == 16:
            v, i = struct.unpack_from('<i', doc, i)[0], i + 4
        elif t == 1:
            v, i = None, i + 8
        elif t in (3, 4):
            v, i = None, i + struct.unpack_from('<i', doc, i)[0]
        elif t == 5:
            v, i = None, i + 5 + struct.unpack_from('<i', doc, i)[0]
        else:
            raise ValueError('BSON type %d' % t)
        if k == name:
            return v
    return None


path, out, cmd = sys.argv[1][len('unix:'):], sys.argv[2], sys.argv[sys.argv.index('--') + 1:]
if os.path.exists(path):
    os.unlink(path)
srv = socket.socket(socket.AF_UNIX)
srv.bind(path)
srv.listen(1)
srv.settimeout(60)
proc = subprocess.Popen(cmd)
conn, _ = srv.accept()
conn.settimeout(60)
buf, ended = b'', False
with open(out, 'wb') as f:
    while not ended:
        data = conn.recv(1 << 16)
        if not data:
            break
        buf += data
        while len(buf) >= 4 and len(buf) >= struct.unpack_from('<i', buf)[0]:
            n = struct.unpack_from('<i', buf)[0]
            doc, buf = buf[:n], buf[n:]
            f.write(doc)
            t = field(doc, 't')
            if t == 'batch':
                conn.sendall(ack(field(doc, 'seq')))
            ended = ended or t == 'end'
conn.close()
status = proc.wait()
sys.exit(status if ended else 1)
