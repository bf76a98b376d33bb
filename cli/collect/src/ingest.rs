//! The store thread: every connection's messages arrive here in order;
//! batches become rows, each stored once per (stream, batch number); a
//! group commit makes them durable (segment file, then the catalog's
//! transaction, in the committer thread: commit.rs) and only then are
//! they acknowledged.
//!
//! One thread owns the store, so nothing is locked; connection threads
//! decode and validate in parallel and wait on a bounded channel when the
//! store falls behind, which is how a slow disk slows the producers
//! (lossless) instead of filling memory.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use vigil_stream::{Batch, End, EventDecl, Hello};

use crate::acks::Acks;
use crate::catalog::{unix_ms, Catalog, Commit, EndTotals, NewStream};
use crate::commit::{Committer, Job};
use crate::check::{CheckTotals, CheckWork, Checker};
use crate::error::Result;
use crate::ranges::RangeSet;
use crate::segment::{Codec, Rows};
use crate::streams::StreamState;

pub type ConnId = u64;

/// Called once what was handed over before it is durable.
pub type WhenDurable = Box<dyn FnOnce() + Send>;

/// What a connection thread (or an import, or a NATS consumer) hands over.
pub enum Work {
    /// The first message of a connection.  `acks`: where acknowledgements
    /// go (none for files).
    Hello {
        conn: ConnId,
        hello: Hello,
        peer: Arc<str>,
        acks: Option<Acks>,
    },
    Schema { conn: ConnId, decls: Vec<EventDecl> },
    Batch { conn: ConnId, batch: Batch },
    Mark { conn: ConnId, ns: i64 },
    End { conn: ConnId, end: End },
    /// The connection broke the protocol: say why, close it.  Everything
    /// before stays stored.
    Fail { conn: ConnId, peer: Arc<str>, msg: String },
    Closed { conn: ConnId },
    /// Calls the function once everything handed over before it is
    /// durable (stored by a commit; with no store, at once): how a NATS
    /// consumer acknowledges JetStream messages.
    Durable(WhenDurable),
}

#[derive(Debug, Clone)]
pub struct Options {
    /// None: events are checked and counted, not stored; batches are
    /// acknowledged on arrival.
    pub store: Option<PathBuf>,
    pub codec: Codec,
    /// A commit at most this long after the first uncommitted batch.
    pub commit_ms: u64,
    /// ... or once this many rows wait.
    pub segment_rows: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            store: None,
            codec: Codec::Snappy,
            commit_ms: 200,
            segment_rows: 1 << 20,
        }
    }
}

/// Counters other threads read (the server's exit conditions, the summary
/// line).
#[derive(Debug, Default)]
pub struct Totals {
    pub events: AtomicU64,
    pub batches: AtomicU64,
    pub duplicates: AtomicU64,
    pub streams: AtomicU64,
    pub ended: AtomicU64,
    pub refused: AtomicU64,
    pub commits: AtomicU64,
}

struct Conn {
    stream: Option<usize>,
    acks: Option<Acks>,
    /// The newest batch received on this connection, to acknowledge at
    /// the next commit.
    ack_pending: Option<i64>,
    /// Reading ended; kept until its acks are written.
    closed: bool,
}

/// A commit handed to the committer: what it acknowledges once durable.
struct InFlight {
    acks: Vec<(ConnId, i64)>,
    /// Per stream: the batches it holds.
    batches: Vec<(usize, RangeSet)>,
    after: Vec<WhenDurable>,
}

pub struct Ingest {
    opts: Options,
    committer: Option<Committer>,
    /// A read connection to the catalog (streams seen before a restart).
    reader: Option<Catalog>,
    in_flight: Option<InFlight>,
    spare: Option<Rows>,
    streams: Vec<StreamState>,
    by_key: HashMap<String, usize>,
    conns: HashMap<ConnId, Conn>,
    rows: Rows,
    commit: Commit,
    /// `Work::Durable` for the commit being prepared.
    after: Vec<WhenDurable>,
    next_stream_id: i64,
    dirty_since: Option<Instant>,
    urgent: bool,
    check: Option<Checker>,
    totals: Arc<Totals>,
}

impl Ingest {
    pub fn open(opts: Options, check: Option<Checker>, totals: Arc<Totals>) -> Result<Ingest> {
        let opts_rows = if opts.store.is_some() { opts.segment_rows.min(1 << 22) } else { 0 };
        let committer = match &opts.store {
            Some(dir) => Some(Committer::start(dir, opts.codec)?),
            None => None,
        };
        let reader = match &opts.store {
            Some(dir) => Some(Catalog::open_existing(dir)?),
            None => None,
        };
        let next_stream_id = match &reader {
            Some(c) => c.next_stream_id()?,
            None => 1,
        };
        Ok(Ingest {
            opts,
            committer,
            reader,
            in_flight: None,
            spare: Some(Rows::with_capacity(opts_rows)),
            streams: Vec::new(),
            by_key: HashMap::new(),
            conns: HashMap::new(),
            rows: Rows::with_capacity(opts_rows),
            commit: Commit::default(),
            after: Vec::new(),
            next_stream_id,
            dirty_since: None,
            urgent: false,
            check,
            totals,
        })
    }

    /// Runs until every sender is gone; then the checker finishes and a
    /// final commit stores its last violations.
    pub fn run(mut self, rx: Receiver<Work>) -> Result<CheckTotals> {
        loop {
            let wait = self.time_to_commit();
            match rx.recv_timeout(wait) {
                Ok(w) => self.handle(w)?,
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            while let Ok(w) = rx.try_recv() {
                self.handle(w)?;
                if self.rows.len() >= self.opts.segment_rows {
                    break;
                }
            }
            self.take_violations();
            self.poll_done(self.rows.len() >= 2 * self.opts.segment_rows)?;
            if self.commit_due() && self.in_flight.is_none() {
                self.commit()?;
            }
            self.retry_acks();
        }
        let totals = self.check.as_mut().map(|c| c.finish()).unwrap_or_default();
        self.take_violations();
        self.poll_done(true)?;
        self.commit()?;
        self.poll_done(true)?;
        if let Some(c) = &mut self.committer {
            c.stop();
        }
        Ok(totals)
    }

    /// A commit that became durable: its batches are stored, its acks go.
    /// `block`: wait for it (memory is full, or this is the end).
    fn poll_done(&mut self, block: bool) -> Result<()> {
        let (Some(c), Some(_)) = (&self.committer, &self.in_flight) else {
            return Ok(());
        };
        let done = if block {
            c.done.recv().ok()
        } else {
            c.done.try_recv().ok()
        };
        let Some(done) = done else { return Ok(()) };
        done.result?;
        self.spare = Some(done.rows);
        let f = self.in_flight.take().expect("in flight");
        for (si, set) in f.batches {
            self.streams[si].committed.extend(&set);
            self.streams[si].in_flight = RangeSet::new();
        }
        self.ack(f.acks);
        self.reap_closed();
        f.after.into_iter().for_each(|f| f());
        Ok(())
    }

    fn ack(&mut self, acks: Vec<(ConnId, i64)>) {
        for (conn, seq) in acks {
            if let Some(a) = self.conns.get_mut(&conn).and_then(|c| c.acks.as_mut()) {
                a.ack(seq);
            }
        }
    }

    /// Violations found by --check go into the catalog with the next commit.
    fn take_violations(&mut self) {
        let Some(c) = &self.check else { return };
        let found: Vec<_> = c.found.try_iter().collect();
        for (stream, mut row) in found {
            if let Some(&si) = self.by_key.get(&stream) {
                row.stream_id = self.streams[si].id;
                self.commit.violations.push(row);
                self.dirty();
            }
        }
    }

    fn time_to_commit(&self) -> Duration {
        let pending_acks = self.conns.values().any(|c| c.acks.as_ref().is_some_and(|a| a.pending()));
        let until = match self.dirty_since {
            Some(t) => Duration::from_millis(self.opts.commit_ms).saturating_sub(t.elapsed()),
            None => Duration::from_millis(500),
        };
        if self.in_flight.is_some() {
            // the committer's answer releases acks: a producer that sent
            // its end waits for them to exit
            until.min(Duration::from_millis(2))
        } else if pending_acks {
            until.min(Duration::from_millis(20))
        } else {
            until
        }
    }

    fn commit_due(&self) -> bool {
        match self.dirty_since {
            None => false,
            Some(t) => {
                self.urgent
                    || self.committer.is_none()
                    || self.rows.len() >= self.opts.segment_rows
                    || t.elapsed() >= Duration::from_millis(self.opts.commit_ms)
            }
        }
    }

    fn dirty(&mut self) {
        self.dirty_since.get_or_insert_with(Instant::now);
    }

    fn handle(&mut self, w: Work) -> Result<()> {
        match w {
            Work::Hello {
                conn,
                hello,
                peer,
                acks,
            } => self.hello(conn, hello, peer, acks)?,
            Work::Schema { conn, decls } => {
                if let Some(si) = self.stream_of(conn) {
                    let new = self.streams[si].declare(&decls);
                    self.commit.events.extend(new);
                    self.dirty();
                    self.send_to_checker(CheckWork::Schema {
                        stream: self.streams[si].key.clone(),
                        decls,
                    });
                }
            }
            Work::Batch { conn, batch } => self.batch(conn, batch),
            Work::Mark { conn, ns } => {
                if let Some(si) = self.stream_of(conn) {
                    let stream = self.streams[si].key.clone();
                    self.send_to_checker(CheckWork::Mark { stream, ns });
                }
            }
            Work::End { conn, end } => self.end(conn, end),
            Work::Fail { conn, peer, msg } => {
                self.totals.refused.fetch_add(1, Ordering::Relaxed);
                eprintln!("vigil collect: {peer}: {msg}; connection closed (what it sent before is kept)");
                if let Some(c) = self.conns.get_mut(&conn) {
                    if let Some(a) = &mut c.acks {
                        a.refuse(&msg);
                    }
                }
                self.close(conn);
            }
            Work::Closed { conn } => self.close(conn),
            Work::Durable(f) => {
                self.after.push(f);
                self.dirty();
            }
        }
        Ok(())
    }

    fn stream_of(&self, conn: ConnId) -> Option<usize> {
        self.conns.get(&conn).and_then(|c| c.stream)
    }

    fn hello(
        &mut self,
        conn: ConnId,
        hello: Hello,
        peer: Arc<str>,
        acks: Option<Acks>,
    ) -> Result<()> {
        let si = match self.by_key.get(&hello.stream) {
            Some(&si) => si,
            None => self.new_stream(&hello, &peer)?,
        };
        let st = &mut self.streams[si];
        st.conns += 1;
        let new = st.declare(&hello.events);
        self.commit.events.extend(new);
        let stored = st.committed.max().unwrap_or(-1);
        self.send_to_checker(CheckWork::Hello {
            stream: hello.stream.clone(),
            hello: Box::new(hello),
        });
        let _ = peer;
        let mut c = Conn {
            stream: Some(si),
            acks,
            ack_pending: None,
            closed: false,
        };
        // What the store holds of this stream: the producer drops it.
        if let Some(a) = &mut c.acks {
            a.ack(stored);
        }
        self.conns.insert(conn, c);
        self.dirty();
        Ok(())
    }

    fn new_stream(&mut self, hello: &Hello, peer: &str) -> Result<usize> {
        let stored = match &self.reader {
            Some(c) => c.stream(&hello.stream)?,
            None => None,
        };
        let st = match stored {
            Some(s) => StreamState::new(s.id, &hello.stream, s.batches, s.ended),
            None => {
                let id = self.next_stream_id;
                self.next_stream_id += 1;
                self.commit.streams.push(NewStream {
                    id,
                    stream: hello.stream.clone(),
                    program: hello.program.clone(),
                    pid: hello.pid,
                    host: hello.host.clone(),
                    mode: hello.mode.as_str().to_string(),
                    peer: peer.to_string(),
                    first_seen_unix_ms: unix_ms(),
                });
                StreamState::new(id, &hello.stream, RangeSet::new(), false)
            }
        };
        // seen in this run, new or resumed from the store
        self.totals.streams.fetch_add(1, Ordering::Relaxed);
        self.streams.push(st);
        self.by_key.insert(hello.stream.clone(), self.streams.len() - 1);
        Ok(self.streams.len() - 1)
    }

    fn batch(&mut self, conn: ConnId, batch: Batch) {
        let Some(c) = self.conns.get_mut(&conn) else { return };
        let Some(si) = c.stream else { return };
        let h = batch.header;
        c.ack_pending = Some(c.ack_pending.map_or(h.seq, |s| s.max(h.seq)));
        self.dirty();
        let st = &mut self.streams[si];
        if st.has(h.seq) {
            self.totals.duplicates.fetch_add(1, Ordering::Relaxed);
            return;
        }
        st.pending.insert(h.seq);
        let (mut first, mut last) = (i64::MAX, i64::MIN);
        // Without a store the rows would be built and thrown away.
        if self.committer.is_some() {
            self.rows.begin(&st.key_bytes, h.n as usize);
            for r in batch.records() {
                // The connection checked every id against the stream's table.
                let ev = &st.events[r.id as usize];
                let ns = batch.time_ns(&r);
                first = first.min(ns);
                last = last.max(ns);
                self.rows.push(h.thread, r.tseq, ns, &ev.name, &ev.kind, r.args.iter());
            }
        }
        st.count(h.thread, h.tseq, h.n as i64, h.lost, first, last);
        self.totals.events.fetch_add(h.n as u64, Ordering::Relaxed);
        self.totals.batches.fetch_add(1, Ordering::Relaxed);
        let stream = st.key.clone();
        self.send_to_checker(CheckWork::Batch {
            stream,
            batch: Arc::new(batch),
        });
    }

    fn end(&mut self, conn: ConnId, end: End) {
        let Some(si) = self.stream_of(conn) else { return };
        // The producer keeps its `end` until an ack follows it: acknowledge
        // the stream's last batch once the end is committed (everything
        // this connection sent before it is in that commit).
        if let Some(c) = self.conns.get_mut(&conn) {
            c.ack_pending = Some(c.ack_pending.map_or(end.seq - 1, |s| s.max(end.seq - 1)));
        }
        let st = &mut self.streams[si];
        if !st.ended {
            st.ended = true;
            self.totals.ended.fetch_add(1, Ordering::Relaxed);
        }
        self.commit.ends.push(EndTotals {
            stream_id: st.id,
            batches: end.seq,
            threads: end
                .threads
                .iter()
                .map(|t| (t.thread, t.produced, t.lost))
                .collect(),
        });
        let stream = st.key.clone();
        self.send_to_checker(CheckWork::End { stream });
        self.urgent = true;
        self.dirty();
    }

    /// The connection's reading ended.  Its socket stays open for the acks
    /// still owed (a producer that sent its `end` waits for one, and a
    /// collector that stops ends every read before its last commit).
    fn close(&mut self, conn: ConnId) {
        let Some(c) = self.conns.get_mut(&conn) else { return };
        let stream = c.stream.take();
        c.closed = true;
        if let Some(si) = stream {
            let st = &mut self.streams[si];
            st.conns -= 1;
            if st.conns == 0 && !st.ended {
                let stream = st.key.clone();
                self.send_to_checker(CheckWork::Idle { stream });
            }
        }
        self.reap_closed();
    }

    /// Forgets closed connections that are owed nothing.
    fn reap_closed(&mut self) {
        let owed: Vec<ConnId> = self.in_flight.iter().flat_map(|f| f.acks.iter().map(|a| a.0)).collect();
        self.conns
            .retain(|id, c| !c.closed || c.ack_pending.is_some() || owed.contains(id));
    }

    fn send_to_checker(&mut self, w: CheckWork) {
        if let Some(c) = &self.check {
            c.send(w);
        }
    }

    /// Hands what was received to the committer (or, with no store,
    /// acknowledges it at once).
    fn commit(&mut self) -> Result<()> {
        if self.dirty_since.is_none() {
            return Ok(());
        }
        let mut batches = Vec::new();
        for (si, st) in self.streams.iter_mut().enumerate() {
            if !st.pending.is_empty() {
                let mut all = st.committed.clone();
                all.extend(&st.pending);
                self.commit.ranges.push((st.id, all));
                st.in_flight = std::mem::take(&mut st.pending);
                batches.push((si, st.in_flight.clone()));
            }
            self.commit.threads.extend(st.threads.drain().map(|(_, d)| d));
        }
        let acks: Vec<(ConnId, i64)> = self
            .conns
            .iter_mut()
            .filter_map(|(&id, c)| c.ack_pending.take().map(|s| (id, s)))
            .collect();
        let commit = std::mem::take(&mut self.commit);
        let after = std::mem::take(&mut self.after);
        self.dirty_since = None;
        self.urgent = false;
        self.totals.commits.fetch_add(1, Ordering::Relaxed);
        match &self.committer {
            Some(c) => {
                let rows = std::mem::replace(&mut self.rows, self.spare.take().unwrap_or_default());
                c.send(Job { rows, commit });
                self.in_flight = Some(InFlight { acks, batches, after });
            }
            None => {
                for (si, set) in batches {
                    self.streams[si].committed.extend(&set);
                    self.streams[si].in_flight = RangeSet::new();
                }
                self.rows.clear();
                self.ack(acks);
                self.reap_closed();
                after.into_iter().for_each(|f| f());
            }
        }
        Ok(())
    }

    fn retry_acks(&mut self) {
        for c in self.conns.values_mut() {
            if let Some(a) = &mut c.acks {
                if a.pending() {
                    a.flush();
                }
            }
        }
    }
}
