//! What the collector knows of each producer stream: its catalog id, its
//! event table (as the strings stored in every row), which batches are
//! stored and which are waiting for the next commit, and the per-thread
//! counts the next commit adds.

use std::collections::HashMap;

use parquet::data_type::ByteArray;
use vigil_stream::EventDecl;

use crate::catalog::{NewEvent, ThreadDelta};
use crate::ranges::RangeSet;
use crate::segment::static_bytes;

/// One declared event, as stored.
#[derive(Debug, Clone)]
pub struct EventInfo {
    pub name: ByteArray,
    pub kind: ByteArray,
}

pub struct StreamState {
    pub id: i64,
    pub key: String,
    /// `key` as stored in every row.
    pub key_bytes: ByteArray,
    pub events: Vec<EventInfo>,
    /// Durable (acknowledged or acknowledgeable).
    pub committed: RangeSet,
    /// Received, in the rows of the commit being prepared.
    pub pending: RangeSet,
    /// In the commit being made durable.
    pub in_flight: RangeSet,
    pub threads: HashMap<i64, ThreadDelta>,
    pub ended: bool,
    /// Open connections carrying this stream.
    pub conns: usize,
}

impl StreamState {
    pub fn new(id: i64, key: &str, committed: RangeSet, ended: bool) -> StreamState {
        StreamState {
            id,
            key: key.to_string(),
            key_bytes: ByteArray::from(key),
            events: Vec::new(),
            committed,
            pending: RangeSet::new(),
            in_flight: RangeSet::new(),
            threads: HashMap::new(),
            ended,
            conns: 0,
        }
    }

    /// Whether batch `seq` is stored or about to be.
    pub fn has(&self, seq: i64) -> bool {
        self.committed.contains(seq) || self.pending.contains(seq) || self.in_flight.contains(seq)
    }

    /// Adds the declarations not known yet (a hello after a reconnect
    /// repeats them); returns them as catalog rows.
    pub fn declare(&mut self, decls: &[EventDecl]) -> Vec<NewEvent> {
        let mut new = Vec::new();
        let known = self.events.len();
        for d in decls.iter().filter(|d| d.id as usize >= known) {
            self.events.push(EventInfo {
                name: static_bytes(&d.name),
                kind: static_bytes(d.kind.as_str()),
            });
            let args: Vec<&str> = d.args.iter().map(|a| a.as_str()).collect();
            new.push(NewEvent {
                stream_id: self.id,
                id: d.id,
                name: d.name.clone(),
                kind: d.kind.as_str().to_string(),
                args: args.join(","),
                names: (!d.names.is_empty()).then(|| d.names.join(",")),
            });
        }
        new
    }

    /// Counts a stored batch of `n` events of `thread`.
    pub fn count(&mut self, thread: i64, tseq: i64, n: i64, lost: i64, first: i64, last: i64) {
        let id = self.id;
        let t = self.threads.entry(thread).or_insert(ThreadDelta {
            stream_id: id,
            thread,
            stored: 0,
            lost: 0,
            next_tseq: 0,
            first_ns: i64::MAX,
            last_ns: i64::MIN,
        });
        t.stored += n;
        t.lost = t.lost.max(lost);
        t.next_tseq = t.next_tseq.max(tseq + n);
        t.first_ns = t.first_ns.min(first);
        t.last_ns = t.last_ns.max(last);
    }
}
