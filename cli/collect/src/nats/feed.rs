//! `--nats URL --group NAME`: the thread that turns a member's JetStream
//! messages into the store thread's work.  Each producer stream is a
//! virtual connection (its hello opens it, a later hello reopens it, its
//! end closes it), fed in each partition's order; a message is
//! acknowledged to JetStream once the store thread made what it carried
//! durable (`Work::Durable`).
//!
//! A member that starts in the middle of a producer stream (a restart, a
//! partition taken over) meets batches whose hello it has not seen: it
//! reads the stream's event table from `VIGIL_SCHEMA` first.  A message
//! that is not a valid document is reported (subject, stream sequence) and
//! acknowledged, so that it cannot hold up its partition.

use std::collections::HashMap;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::mpsc;
use vigil_stream::bson::RawDocumentBuf;
use vigil_stream::{EventDecl, Hello, Message, Schema, MAX_DOCUMENT_LEN};

use super::consume::{AckReq, Delivery, Lookup};
use crate::ingest::{ConnId, Work};
use crate::server::next_conn_id;

#[derive(Debug, Default, Clone, Copy)]
pub struct FeedTotals {
    pub messages: u64,
    /// Delivered again after being fed (JetStream's ack wait ran out).
    pub redelivered: u64,
    /// Not valid: reported and acknowledged.
    pub skipped: u64,
}

struct VConn {
    conn: ConnId,
    schema: Schema,
}

struct Feed {
    store: SyncSender<Work>,
    acks: mpsc::UnboundedSender<AckReq>,
    lookups: mpsc::UnboundedSender<Lookup>,
    conns: HashMap<String, VConn>,
    /// Per partition: the last stream sequence fed.
    last: HashMap<u32, u64>,
    totals: FeedTotals,
}

/// Why a message is not fed.
enum NotFed {
    /// Invalid: reported, acknowledged.
    Skip(String),
    /// The collector stops (a schema lookup was cut short): this message
    /// and the ones after it stay unacknowledged.
    Stop,
}

/// Runs until `rx` closes (the member stops), then closes every virtual
/// connection.
pub fn run(
    mut rx: mpsc::Receiver<Delivery>,
    store: SyncSender<Work>,
    acks: mpsc::UnboundedSender<AckReq>,
    lookups: mpsc::UnboundedSender<Lookup>,
) -> FeedTotals {
    let mut f = Feed { store, acks, lookups, conns: HashMap::new(), last: HashMap::new(), totals: FeedTotals::default() };
    while let Some(d) = rx.blocking_recv() {
        if !f.handle(d) {
            break;
        }
    }
    for (_, c) in f.conns.drain() {
        let _ = f.store.send(Work::Closed { conn: c.conn });
    }
    f.totals
}

impl Feed {
    /// False when the member stops.
    fn handle(&mut self, d: Delivery) -> bool {
        let last = self.last.entry(d.partition).or_insert(0);
        if d.seq <= *last {
            // Fed already, in this partition's order: acknowledged with
            // what follows it.
            self.totals.redelivered += 1;
        } else {
            *last = d.seq;
            self.totals.messages += 1;
            match self.feed(&d) {
                Ok(()) => {}
                Err(NotFed::Stop) => return false,
                Err(NotFed::Skip(msg)) => {
                    self.totals.skipped += 1;
                    eprintln!(
                        "vigil collect: {} message {} (producer stream {}): {msg}; skipped (acknowledged, \
                         so that it cannot hold up the partition)",
                        d.subject,
                        d.seq,
                        d.stream.as_deref().unwrap_or("not named")
                    );
                }
            }
        }
        if let Some(reply) = d.reply {
            let (tx, partition, seq) = (self.acks.clone(), d.partition, d.seq);
            let ack = move || {
                let _ = tx.send(AckReq { partition, seq, reply });
            };
            return self.store.send(Work::Durable(Box::new(ack))).is_ok();
        }
        true
    }

    fn feed(&mut self, d: &Delivery) -> Result<(), NotFed> {
        let m = parse(&d.payload).map_err(NotFed::Skip)?;
        if let Message::Hello(h) = m {
            self.open(h, format!("nats:{}", d.subject));
            return Ok(());
        }
        let stream = d.stream.as_deref().ok_or_else(|| NotFed::Skip("no Vigil-Stream header".into()))?;
        let work = match m {
            Message::Schema(decls) => {
                let c = self.conn(stream)?;
                let decls = new_decls(&c.schema, decls);
                c.schema.extend(&decls).map_err(|e| NotFed::Skip(e.message))?;
                Work::Schema { conn: c.conn, decls }
            }
            Message::Batch(b) => {
                let c = self.conn(stream)?;
                b.validate_against(&c.schema).map_err(|e| NotFed::Skip(e.to_string()))?;
                Work::Batch { conn: c.conn, batch: b }
            }
            Message::Mark(ns) => match self.conns.get(stream) {
                Some(c) => Work::Mark { conn: c.conn, ns },
                None => return Ok(()), // nothing to order before it
            },
            Message::End(end) => {
                let conn = self.conn(stream)?.conn;
                self.send(Work::End { conn, end });
                self.conns.remove(stream);
                Work::Closed { conn }
            }
            other => return Err(NotFed::Skip(format!("`{}` is the collector's message, not a producer's", other.type_name()))),
        };
        self.send(work);
        Ok(())
    }

    fn send(&self, w: Work) {
        let _ = self.store.send(w);
    }

    /// A hello: the stream's virtual connection (again, after a producer's
    /// reconnect).
    fn open(&mut self, hello: Hello, peer: String) {
        if let Some(old) = self.conns.remove(&hello.stream) {
            self.send(Work::Closed { conn: old.conn });
        }
        let conn = next_conn_id();
        let schema = Schema::from_hello(&hello);
        self.conns.insert(hello.stream.clone(), VConn { conn, schema });
        let peer: Arc<str> = peer.into();
        self.send(Work::Hello { conn, hello, peer, acks: None });
    }

    /// The stream's virtual connection, opened from `VIGIL_SCHEMA` when
    /// this member has not seen its hello.
    fn conn(&mut self, stream: &str) -> Result<&mut VConn, NotFed> {
        if !self.conns.contains_key(stream) {
            let hello = self.lookup(stream)?;
            self.open(hello, "nats:VIGIL_SCHEMA".into());
        }
        Ok(self.conns.get_mut(stream).expect("opened"))
    }

    fn lookup(&self, stream: &str) -> Result<Hello, NotFed> {
        let (tx, rx) = sync_channel(1);
        let asked = self.lookups.send(Lookup { stream: stream.to_string(), reply: tx });
        let found = match (asked, rx.recv()) {
            (Ok(()), Ok(found)) => found,
            _ => return Err(NotFed::Stop),
        };
        let Some(bytes) = found else {
            return Err(NotFed::Skip(
                "this member has not seen the stream's hello, and VIGIL_SCHEMA has none".into(),
            ));
        };
        match parse(&bytes) {
            Ok(Message::Hello(h)) if h.stream == stream => Ok(h),
            Ok(_) => Err(NotFed::Skip("VIGIL_SCHEMA holds something else than its hello".into())),
            Err(e) => Err(NotFed::Skip(format!("its hello in VIGIL_SCHEMA: {e}"))),
        }
    }
}

fn parse(payload: &Bytes) -> Result<Message, String> {
    if payload.len() > MAX_DOCUMENT_LEN {
        return Err(format!("a document of {} bytes (at most {MAX_DOCUMENT_LEN})", payload.len()));
    }
    let doc = RawDocumentBuf::from_bytes(payload.to_vec()).map_err(|e| format!("not a BSON document: {e}"))?;
    Message::parse(doc).map_err(|e| e.to_string())
}

/// A schema document's declarations this member does not know yet (its
/// table may have come from `VIGIL_SCHEMA`, which is newer).
fn new_decls(schema: &Schema, decls: Vec<EventDecl>) -> Vec<EventDecl> {
    decls.into_iter().filter(|d| d.id as usize >= schema.len()).collect()
}
