//! The publisher, on the NATS thread: the producers' documents to
//! JetStream in the order received, many in flight, their PubAcks taken in
//! order.  A PubAck releases the acknowledgement of its batch (gate.rs),
//! so that a producer is only ever told of batches JetStream stored.
//!
//! When a publish fails (JetStream down, slow, restarted), nothing after
//! it is acknowledged: the publisher waits for JetStream and publishes
//! every document not acknowledged yet again, in order (a batch's
//! `Nats-Msg-Id` lets JetStream drop the copies it already has).  Reading
//! new documents stops meanwhile, so the connections wait and the
//! producers keep their batches (lossless) or spill.

use std::collections::VecDeque;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::time::{Duration, Instant};

use async_nats::jetstream::context::{Publish, PublishError};
use async_nats::jetstream::publish::PublishAck;
use async_nats::jetstream::Context;
use async_nats::{Client, HeaderMap};
use tokio::sync::{mpsc, watch};

use super::setup::{self, SetupError, StreamOptions};
use super::subjects::{batch_subject, partition, schema_subject, HDR_MSG_ID, HDR_STREAM, HDR_TYPE};
use super::tee::{Request, Then, To};
use super::wait_for_streams;

/// In flight at most: enough to cover JetStream's fsync and round trip at
/// full speed, bounded so that a stalled JetStream holds little memory.
const MAX_IN_FLIGHT: usize = 4096;
const MAX_IN_FLIGHT_BYTES: usize = 64 << 20;
/// A PubAck not there after this long is a failed publish.
pub const PUBACK_TIMEOUT: Duration = Duration::from_secs(10);

type AckFuture = Pin<Box<dyn Future<Output = Result<PublishAck, PublishError>> + Send>>;

struct Pending {
    req: Request,
    subject: String,
    /// None: the publish itself failed.
    ack: Option<AckFuture>,
}

#[derive(Debug, Default, Clone, Copy)]
pub struct PublishTotals {
    pub published: u64,
    /// Not published when the collector stopped (their producers were not
    /// acknowledged, and send them again).
    pub abandoned: u64,
}

struct Publisher {
    js: Context,
    client: Client,
    opts: StreamOptions,
    partitions: u32,
    in_flight: VecDeque<Pending>,
    bytes: usize,
    totals: PublishTotals,
}

enum Event {
    Stored(Result<(), String>),
    Got(Option<Request>),
    Tick,
}

/// Publishes what `rx` brings until it closes and everything is stored,
/// or, once `stop` holds a time, until then.
pub async fn run(
    client: Client,
    opts: StreamOptions,
    mut rx: mpsc::Receiver<Request>,
    mut stop: watch::Receiver<Option<Instant>>,
    url: &str,
) -> Result<PublishTotals, String> {
    let mut js = async_nats::jetstream::new(client.clone());
    js.set_timeout(PUBACK_TIMEOUT);
    let Some(partitions) = wait_for_streams(&client, &opts, &stop, url).await? else {
        return Ok(abandon(&mut rx, 0).await);
    };
    eprintln!(
        "vigil collect: publishing to JetStream at {url}: stream VIGIL, {partitions} partitions \
         (vigil.b.0 .. vigil.b.{}); producers are acknowledged once JetStream stored their batches",
        partitions - 1
    );
    let mut p = Publisher { js, client, opts, partitions, in_flight: VecDeque::new(), bytes: 0, totals: PublishTotals::default() };
    let mut open = true;
    loop {
        if !open && p.in_flight.is_empty() {
            return Ok(p.totals);
        }
        let give_up = *stop.borrow();
        if give_up.is_some_and(|t| Instant::now() >= t) {
            let left = p.in_flight.len() as u64;
            let mut t = abandon(&mut rx, left).await;
            t.published = p.totals.published;
            return Ok(t);
        }
        let room = open && p.in_flight.len() < MAX_IN_FLIGHT && p.bytes < MAX_IN_FLIGHT_BYTES;
        let event = tokio::select! {
            r = front(&mut p.in_flight), if !p.in_flight.is_empty() => Event::Stored(r),
            r = rx.recv(), if room => Event::Got(r),
            _ = stop.changed() => Event::Tick,
            _ = tokio::time::sleep(Duration::from_millis(250)), if give_up.is_some() => Event::Tick,
        };
        match event {
            Event::Stored(Ok(())) => p.done(),
            Event::Stored(Err(e)) => {
                if !p.republish(e, &stop).await? {
                    continue; // the give-up time came: the loop's top abandons
                }
            }
            Event::Got(Some(r)) => p.publish(r).await,
            Event::Got(None) => open = false,
            Event::Tick => {}
        }
    }
}

/// The first document's PubAck.
async fn front(q: &mut VecDeque<Pending>) -> Result<(), String> {
    let p = q.front_mut().expect("not empty");
    let subject = p.subject.clone();
    match p.ack.as_mut() {
        Some(f) => f.await.map(|_| ()).map_err(|e| format!("publishing to {subject}: {e}")),
        None => Err(format!("publishing to {subject}: not sent")),
    }
}

/// Stopping without JetStream: what is queued is dropped unacknowledged
/// (so that the connections' threads can finish).
async fn abandon(rx: &mut mpsc::Receiver<Request>, mut n: u64) -> PublishTotals {
    rx.close();
    while rx.recv().await.is_some() {
        n += 1;
    }
    if n > 0 {
        eprintln!(
            "vigil collect: JetStream: {n} document(s) not published when stopping; their \
             producers were not acknowledged for them and send them again"
        );
    }
    PublishTotals { published: 0, abandoned: n }
}

impl Publisher {
    fn subject(&self, r: &Request) -> String {
        match r.to {
            To::Partition => batch_subject(partition(&r.stream, self.partitions)),
            To::Schema => schema_subject(&r.stream),
        }
    }

    async fn publish(&mut self, req: Request) {
        let subject = self.subject(&req);
        // Headers and protocol overhead: well under 1 KiB.
        let max = self.client.server_info().max_payload.saturating_sub(1024);
        if max > 0 && req.payload.len() > max {
            let msg = format!(
                "a `{}` document of {} bytes is larger than what the NATS server takes (max_payload \
                 {} bytes, headers included): give the producer smaller buffers (VIGIL_STREAM_BUFFER) \
                 or raise nats-server's max_payload",
                req.kind,
                req.payload.len(),
                max + 1024
            );
            eprintln!("vigil collect: stream {}: {msg}; its producer is refused", req.stream);
            if let Some(g) = &req.gate {
                g.refuse(&msg);
            }
            return;
        }
        let ack = send(&self.js, &subject, &req).await;
        self.bytes += req.payload.len();
        self.in_flight.push_back(Pending { req, subject, ack });
    }

    /// The first document is stored: what it completes is acknowledged.
    fn done(&mut self) {
        let p = self.in_flight.pop_front().expect("not empty");
        self.bytes -= p.req.payload.len();
        self.totals.published += 1;
        match p.req.then {
            Then::Batch(g, seq) => g.published(seq),
            Then::End(g) => g.end_published(),
            Then::Nothing => {}
        }
    }

    /// After a failed publish: waits for JetStream, then publishes every
    /// document in flight again, in order.  False when the give-up time
    /// came first.
    async fn republish(&mut self, why: String, stop: &watch::Receiver<Option<Instant>>) -> Result<bool, String> {
        eprintln!(
            "vigil collect: JetStream: {why}; publishing the {} document(s) not stored again once it \
             answers (their producers are not acknowledged meanwhile)",
            self.in_flight.len()
        );
        let mut backoff = Duration::from_millis(100);
        let started = Instant::now();
        loop {
            if stop.borrow().is_some_and(|t| Instant::now() >= t) {
                return Ok(false);
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(2));
            match setup::ensure(&self.js, &self.opts).await {
                Err(SetupError::Fatal(m)) => return Err(m),
                Err(SetupError::Retry(_)) => continue,
                Ok(n) if n != self.partitions => {
                    return Err(format!("JetStream stream VIGIL now has {n} partitions, not {}: it was recreated while this collector ran", self.partitions));
                }
                Ok(_) => {}
            }
            let mut sent = true;
            for p in self.in_flight.iter_mut() {
                p.ack = send(&self.js, &p.subject, &p.req).await;
                if p.ack.is_none() {
                    sent = false;
                    break;
                }
            }
            if sent {
                eprintln!(
                    "vigil collect: JetStream answers again after {:.1} s; publishing resumed",
                    started.elapsed().as_secs_f64()
                );
                return Ok(true);
            }
        }
    }
}

/// Publishes one document; None when it could not even be sent.
async fn send(js: &Context, subject: &str, r: &Request) -> Option<AckFuture> {
    let mut h = HeaderMap::new();
    h.insert(HDR_STREAM, &*r.header);
    h.insert(HDR_TYPE, r.kind);
    if let Some(id) = &r.msg_id {
        h.insert(HDR_MSG_ID, id.as_str());
    }
    let publish = Publish::build().payload(r.payload.clone()).headers(h);
    js.send_publish(subject.to_string(), publish).await.ok().map(IntoFuture::into_future)
}
