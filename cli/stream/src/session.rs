//! One producer's stream as a collector checks it, message by message: a
//! `hello` first and only once; schema documents that extend the event
//! table; batches whose events are declared, whose batch numbers increase
//! from the hello's `resume`, and whose per-thread sequence numbers never
//! go back; nothing after `end` but marks; none of the collector's own
//! messages.  [`Session::accept`] returns why a message is refused, as the
//! text a collector sends back in its `error` document.

use std::collections::HashMap;

use crate::message::{Message, Schema};

#[derive(Debug, Default)]
pub struct Session {
    schema: Option<Schema>,
    resume: i64,
    last_seq: Option<i64>,
    /// Per thread: one past the last sequence number received.
    next_tseq: HashMap<i64, i64>,
    ended: bool,
}

impl Session {
    pub fn new() -> Session {
        Session::default()
    }

    /// Whether the hello has been accepted.
    pub fn started(&self) -> bool {
        self.schema.is_some()
    }

    pub fn schema(&self) -> Option<&Schema> {
        self.schema.as_ref()
    }

    /// Checks `m` against what came before; `Ok` means it may be stored.
    pub fn accept(&mut self, m: &Message) -> Result<(), String> {
        let Some(schema) = &mut self.schema else {
            let Message::Hello(h) = m else {
                return Err(format!(
                    "the first document is `{}`, a stream starts with `hello`",
                    m.type_name()
                ));
            };
            self.schema = Some(Schema::from_hello(h));
            self.resume = h.resume;
            return Ok(());
        };
        if self.ended && !matches!(m, Message::Mark(_)) {
            return Err(format!("a `{}` after the stream's `end`", m.type_name()));
        }
        match m {
            Message::Hello(_) => Err("a second `hello` on one connection".into()),
            Message::Schema(decls) => schema.extend(decls).map_err(|e| e.message),
            Message::Batch(b) => {
                b.validate_against(schema)
                    .map_err(|e| format!("byte {}: {}", e.offset, e.message))?;
                let h = b.header;
                self.check_order(h.seq, h.thread, h.tseq, h.n)
            }
            Message::Mark(_) => Ok(()),
            Message::End(_) => {
                self.ended = true;
                Ok(())
            }
            Message::Ack(_) | Message::Error(_) => Err(format!(
                "`{}` is the collector's message, not a producer's",
                m.type_name()
            )),
        }
    }

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
        let next = self.next_tseq.entry(thread).or_insert(0);
        if tseq < *next {
            return Err(format!(
                "batch {seq}: thread {thread}'s events from {tseq} were already sent (up to {})",
                *next - 1
            ));
        }
        self.last_seq = Some(seq);
        *next = tseq.saturating_add(n as i64);
        Ok(())
    }
}
