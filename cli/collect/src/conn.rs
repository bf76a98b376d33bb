//! One producer connection (or a file stream), read to its end: documents
//! framed and validated (vigil_stream), the protocol's order checked, then
//! handed to the store thread in order.  Anything wrong ends this
//! connection only, with a message naming the peer and the byte offset;
//! what came before it is stored.

use std::collections::HashMap;
use std::io::{ErrorKind, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::Arc;

use vigil_stream::{Decoder, Message, Schema, StreamError};

use crate::acks::AckWriter;
use crate::ingest::{ConnId, Work};

/// Protocol state of one connection.
struct Proto {
    conn: ConnId,
    peer: Arc<str>,
    schema: Option<Schema>,
    resume: i64,
    last_seq: Option<i64>,
    /// Per thread: one past the last sequence number received.
    next_tseq: HashMap<i64, i64>,
    ended: bool,
}

/// Reads `input` to its end (or to the first error) and sends what it
/// holds to the store thread.  `acks` goes with the hello.  Returns the
/// refusal, if any (it was sent to the store thread too).  Once
/// `stopping` is set (the collector stops and ended this connection's
/// reads), the end is not the producer's fault: it is not refused, and
/// reconnects to the next collector.
pub fn serve<R: Read>(
    conn: ConnId,
    peer: Arc<str>,
    mut input: R,
    mut acks: Option<AckWriter>,
    tx: &SyncSender<Work>,
    stopping: &AtomicBool,
) -> Option<String> {
    let mut dec = Decoder::new(&peer);
    let mut p = Proto {
        conn,
        peer: peer.clone(),
        schema: None,
        resume: 0,
        last_seq: None,
        next_tseq: HashMap::new(),
        ended: false,
    };
    let mut buf = vec![0u8; 256 << 10];
    let failure = 'read: loop {
        let n = match input.read(&mut buf) {
            Ok(0) => match dec.finish() {
                Ok(()) => break 'read None,
                Err(e) => break 'read Some(describe(&e, "the stream ends inside a document")),
            },
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                // A producer killed with unread acknowledgements resets
                // the connection: say whether a document was cut too.
                let cut = dec.finish().err().map_or(String::new(), |c| format!(" ({})", describe(&c, "")));
                break 'read Some(format!("read error: {e}{cut}"));
            }
        };
        dec.push(&buf[..n]);
        loop {
            match dec.next() {
                Ok(None) => break,
                Ok(Some(m)) => match p.accept(m, &mut acks) {
                    Ok(Some(w)) => {
                        if tx.send(w).is_err() {
                            return None; // the collector is shutting down
                        }
                    }
                    Ok(None) => {}
                    Err(msg) => break 'read Some(msg),
                },
                Err(e) => break 'read Some(describe(&e, "")),
            }
        }
    };
    let failure = failure.filter(|_| !stopping.load(Ordering::Relaxed));
    let last = match &failure {
        Some(msg) => Work::Fail {
            conn,
            peer,
            msg: msg.clone(),
        },
        None => Work::Closed { conn },
    };
    if p.schema.is_none() && failure.is_some() {
        // Refused before its hello: the store thread never heard of it.
        if let Some(a) = &mut acks {
            a.refuse(failure.as_deref().unwrap_or(""));
        }
        eprintln!(
            "vigil collect: {}: {}; connection closed",
            p.peer,
            failure.as_deref().unwrap_or("")
        );
        return failure;
    }
    let _ = tx.send(last);
    failure
}

/// A decoding error as a message: `byte N: what` (the peer is added by the
/// store thread).
fn describe(e: &StreamError, what: &str) -> String {
    let msg = if what.is_empty() || e.message.contains("truncated") {
        e.message.clone()
    } else {
        format!("{what}: {}", e.message)
    };
    format!("byte {}: {msg}", e.offset)
}

impl Proto {
    /// The work for one message, or why the connection is refused.
    fn accept(&mut self, m: Message, acks: &mut Option<AckWriter>) -> Result<Option<Work>, String> {
        let conn = self.conn;
        let Some(schema) = &mut self.schema else {
            let Message::Hello(h) = m else {
                return Err(format!(
                    "the first document is `{}`, a stream starts with `hello`",
                    m.type_name()
                ));
            };
            self.schema = Some(Schema::from_hello(&h));
            self.resume = h.resume;
            return Ok(Some(Work::Hello {
                conn,
                hello: h,
                peer: self.peer.clone(),
                acks: acks.take().map(|a| Box::new(a) as crate::acks::Acks),
            }));
        };
        if self.ended && !matches!(m, Message::Mark(_)) {
            return Err(format!("a `{}` after the stream's `end`", m.type_name()));
        }
        match m {
            Message::Hello(_) => Err("a second `hello` on one connection".into()),
            Message::Schema(decls) => {
                schema.extend(&decls).map_err(|e| e.message)?;
                Ok(Some(Work::Schema { conn, decls }))
            }
            Message::Batch(b) => {
                b.validate_against(schema)
                    .map_err(|e| format!("byte {}: {}", e.offset, e.message))?;
                self.check_order(b.header.seq, b.header.thread, b.header.tseq, b.header.n)?;
                Ok(Some(Work::Batch { conn, batch: b }))
            }
            Message::Mark(ns) => Ok(Some(Work::Mark { conn, ns })),
            Message::End(end) => {
                self.ended = true;
                Ok(Some(Work::End { conn, end }))
            }
            Message::Ack(_) | Message::Error(_) => Err(format!(
                "`{}` is the collector's message, not a producer's",
                m.type_name()
            )),
        }
    }

    /// Batch numbers increase on a connection, from its hello's `resume`;
    /// a thread's sequence numbers never go back.
    fn check_order(&mut self, seq: i64, thread: i64, tseq: i64, n: u32) -> Result<(), String> {
        if seq < self.resume {
            return Err(format!(
                "batch {seq} before the connection's first (hello resumes at {})",
                self.resume
            ));
        }
        if let Some(last) = self.last_seq {
            if seq <= last {
                return Err(format!(
                    "batch {seq} after batch {last} (batch numbers increase on a connection)"
                ));
            }
        }
        self.last_seq = Some(seq);
        let next = self.next_tseq.entry(thread).or_insert(0);
        if tseq < *next {
            return Err(format!(
                "batch {seq}: thread {thread}'s events from {tseq} were already sent (up to {})",
                *next - 1
            ));
        }
        *next = tseq + n as i64;
        Ok(())
    }
}
