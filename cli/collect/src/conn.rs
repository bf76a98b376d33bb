//! One producer connection (or a file stream), read to its end: documents
//! framed and validated (vigil_stream::Decoder), the protocol's order
//! checked (vigil_stream::Session, which the fuzzer drives too), then
//! handed to the store thread in order.  Anything wrong ends this
//! connection only, with a message naming the peer and the byte offset;
//! what came before it is stored.

use std::io::{ErrorKind, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::Arc;

use vigil_stream::{Decoder, Message, Session, StreamError};

use crate::acks::AckWriter;
use crate::ingest::{ConnId, Work};

/// One connection: its checks and where its work goes.
struct Proto {
    conn: ConnId,
    peer: Arc<str>,
    session: Session,
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
        session: Session::new(),
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
    if !p.session.started() && failure.is_some() {
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
        self.session.accept(&m)?;
        let conn = self.conn;
        Ok(Some(match m {
            Message::Hello(h) => Work::Hello {
                conn,
                hello: h,
                peer: self.peer.clone(),
                acks: acks.take().map(|a| Box::new(a) as crate::acks::Acks),
            },
            Message::Schema(decls) => Work::Schema { conn, decls },
            Message::Batch(b) => Work::Batch { conn, batch: b },
            Message::Mark(ns) => Work::Mark { conn, ns },
            Message::End(end) => Work::End { conn, end },
            // refused by the session
            Message::Ack(_) | Message::Error(_) => return Ok(None),
        }))
    }
}
