//! `--listen ... --nats URL`: the thread between the connections and the
//! store thread.  Every document a connection hands over goes, in the
//! order received, to the publisher (publish.rs) and on to the store
//! thread; a connection's acknowledgements go through a [`Gate`], so that
//! the producer hears only of batches that JetStream holds too.

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::mpsc;
use vigil_stream::{encode_end, encode_hello, encode_mark, encode_schema, Hello};

use super::gate::Gate;
use super::subjects::escape_header;
use crate::ingest::{ConnId, Work};

/// Which JetStream stream a document goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum To {
    /// `VIGIL`, subject `vigil.b.<partition>`.
    Partition,
    /// `VIGIL_SCHEMA`, subject `vigil.s.<hash>`.
    Schema,
}

/// What happens once JetStream stored a document (and every one before it).
pub enum Then {
    Nothing,
    /// The connection's batch `seq` is published.
    Batch(Gate, i64),
    End(Gate),
}

/// One document to publish.
pub struct Request {
    /// The producer's stream id (the partition and schema subject are
    /// computed from it).
    pub stream: Arc<str>,
    /// The stream id as a header value.
    pub header: Arc<str>,
    pub to: To,
    /// `Vigil-Type`.
    pub kind: &'static str,
    pub payload: Bytes,
    /// `Nats-Msg-Id` (batches).
    pub msg_id: Option<String>,
    /// Where a document JetStream refuses is reported.
    pub gate: Option<Gate>,
    pub then: Then,
}

struct Conn {
    stream: Arc<str>,
    header: Arc<str>,
    /// The hello with every event declared so far: what `VIGIL_SCHEMA` keeps.
    hello: Hello,
    gate: Option<Gate>,
}

/// Runs until every connection (and the command) dropped its sender.
pub fn run(rx: Receiver<Work>, store: SyncSender<Work>, publish: mpsc::Sender<Request>) {
    let mut conns: HashMap<ConnId, Conn> = HashMap::new();
    for mut w in rx {
        let end = match &w {
            Work::End { conn, .. } => conns.get(conn).and_then(|c| c.gate.clone()),
            _ => None,
        };
        for r in requests(&mut conns, &mut w) {
            // Gone only when the publisher stopped for good (a fatal
            // setup error): the command is stopping, nothing is acked.
            let _ = publish.blocking_send(r);
        }
        if store.send(w).is_err() {
            break;
        }
        if let Some(g) = end {
            let _ = store.send(Work::Durable(Box::new(move || g.end_stored())));
        }
    }
}

/// The publishes of one piece of work, in order; a hello's acks are put
/// behind a gate.
fn requests(conns: &mut HashMap<ConnId, Conn>, w: &mut Work) -> Vec<Request> {
    if let Work::Hello { conn, hello, acks, .. } = w {
        let gate = acks.take().map(|a| Gate::new(a, hello.resume));
        *acks = gate.clone().map(|g| Box::new(g) as crate::acks::Acks);
        let stream: Arc<str> = hello.stream.as_str().into();
        let c = Conn {
            header: escape_header(&stream).into(),
            stream,
            hello: hello.clone(),
            gate,
        };
        let out = vec![c.schema(), c.request(To::Partition, "hello", encode_hello(hello), Then::Nothing)];
        conns.insert(*conn, c);
        return out;
    }
    let conn = match w {
        Work::Schema { conn, .. } | Work::Batch { conn, .. } | Work::Mark { conn, .. } | Work::End { conn, .. } => *conn,
        Work::Fail { conn, .. } | Work::Closed { conn } => {
            conns.remove(conn);
            return Vec::new();
        }
        Work::Hello { .. } | Work::Durable(_) => return Vec::new(),
    };
    let Some(c) = conns.get_mut(&conn) else { return Vec::new() };
    match w {
        Work::Schema { decls, .. } => {
            c.hello.events.extend(decls.iter().cloned());
            let doc = c.request(To::Partition, "schema", encode_schema(decls), Then::Nothing);
            vec![c.schema(), doc]
        }
        Work::Batch { batch, .. } => {
            let seq = batch.header.seq;
            let then = c.gate.clone().map_or(Then::Nothing, |g| Then::Batch(g, seq));
            let mut r = c.request(To::Partition, "batch", Bytes::copy_from_slice(batch.document().as_bytes()), then);
            r.msg_id = Some(super::subjects::msg_id(&c.header, seq));
            vec![r]
        }
        Work::Mark { ns, .. } => vec![c.request(To::Partition, "mark", encode_mark(*ns), Then::Nothing)],
        Work::End { end, .. } => {
            let then = match &c.gate {
                Some(g) => {
                    g.end_queued();
                    Then::End(g.clone())
                }
                None => Then::Nothing,
            };
            vec![c.request(To::Partition, "end", encode_end(end), then)]
        }
        _ => Vec::new(),
    }
}

impl Conn {
    fn request(&self, to: To, kind: &'static str, payload: impl Into<Bytes>, then: Then) -> Request {
        Request {
            stream: self.stream.clone(),
            header: self.header.clone(),
            to,
            kind,
            payload: payload.into(),
            msg_id: None,
            gate: self.gate.clone(),
            then,
        }
    }

    /// The hello with the whole event table, for `VIGIL_SCHEMA`.
    fn schema(&self) -> Request {
        self.request(To::Schema, "hello", encode_hello(&self.hello), Then::Nothing)
    }
}
