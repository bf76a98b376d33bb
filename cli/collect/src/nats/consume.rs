//! `--nats URL --group NAME --member I/N`, on the NATS thread: a durable
//! pull consumer `<NAME>-p<p>` for each partition p with p % N == I, each
//! read in order and handed to the feed thread (feed.rs); the
//! acknowledgements the store thread releases go back to JetStream
//! (ack-all: one per partition and commit); the event tables of producer
//! streams met mid-way are read from `VIGIL_SCHEMA`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use async_nats::jetstream::consumer::{pull, AckPolicy, DeliverPolicy, PullConsumer};
use async_nats::jetstream::stream::{LastRawMessageErrorKind, Stream};
use async_nats::jetstream::Context;
use async_nats::{Client, Subject};
use bytes::Bytes;
use futures::StreamExt;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

use super::setup::StreamOptions;
use super::subjects::{batch_subject, consumer_name, schema_subject, unescape_header, Member, HDR_STREAM, SCHEMA_STREAM, STREAM};
use super::wait_for_streams;

/// Redelivery of what a running member has not acknowledged yet: long
/// enough for a commit (a restarted member starts again from the ack
/// floor, it does not wait for this).
const ACK_WAIT: Duration = Duration::from_secs(120);
/// Delivered and unacknowledged at most, per partition: a commit's worth.
const MAX_ACK_PENDING: i64 = 50_000;

/// One JetStream message, for the feed thread.
pub struct Delivery {
    pub partition: u32,
    pub subject: String,
    /// The message's sequence number in `VIGIL`.
    pub seq: u64,
    /// `Vigil-Stream`.
    pub stream: Option<String>,
    pub payload: Bytes,
    pub reply: Option<Subject>,
}

/// What the store thread made durable: partition `partition` up to the
/// message `seq` (acknowledged to `reply`).
pub struct AckReq {
    pub partition: u32,
    pub seq: u64,
    pub reply: Subject,
}

/// A producer stream's hello in `VIGIL_SCHEMA` (None: not there).  The
/// reply is dropped when the member stops first.
pub struct Lookup {
    pub stream: String,
    pub reply: std::sync::mpsc::SyncSender<Option<Bytes>>,
}

pub struct Channels {
    pub deliveries: mpsc::Sender<Delivery>,
    pub acks: mpsc::UnboundedReceiver<AckReq>,
    pub lookups: mpsc::UnboundedReceiver<Lookup>,
}

/// Consumes until `stop` holds a time; then stops pulling and sends the
/// acknowledgements the store thread still releases.
pub async fn run(
    client: Client,
    opts: StreamOptions,
    group: String,
    member: Member,
    ch: Channels,
    mut stop: watch::Receiver<Option<Instant>>,
    url: &str,
) -> Result<(), String> {
    let js = async_nats::jetstream::new(client.clone());
    let acker = tokio::spawn(acker(client.clone(), ch.acks));
    let looker = tokio::spawn(lookups(js.clone(), ch.lookups, stop.clone()));
    let mut pulls = JoinSet::new();
    if let Some(partitions) = wait_for_streams(&client, &opts, &stop, url).await? {
        let mine = member.partitions(partitions);
        let stream = js.get_stream(STREAM).await.map_err(|e| format!("JetStream stream {STREAM}: {e}"))?;
        for &p in &mine {
            let c = prepare(&stream, &group, p).await?;
            pulls.spawn(pull(c, p, ch.deliveries.clone()));
        }
        eprintln!(
            "vigil collect: member {}/{} of group {group}: consuming partitions {mine:?} of {partitions} \
             of JetStream stream {STREAM} at {url} (durable consumers {group}-p<P>)",
            member.index, member.count
        );
        if mine.is_empty() {
            eprintln!("vigil collect: warning: a group of {} members has more than the {partitions} partitions: this member has none", member.count);
        }
    }
    drop(ch.deliveries);
    while stop.borrow().is_none() {
        if stop.changed().await.is_err() {
            break;
        }
    }
    pulls.abort_all();
    while pulls.join_next().await.is_some() {}
    // The feed thread hands over what it has, the store thread commits it
    // and releases the acknowledgements: the acker ends with the last.
    let _ = acker.await;
    looker.abort();
    Ok(())
}

/// The partition's durable consumer.  One that an earlier incarnation left
/// with messages delivered and not acknowledged (killed, or stopped with
/// messages fetched) is made again from its ack floor: JetStream would
/// redeliver those only after the ack wait, after newer ones, and a
/// partition is processed in order.
async fn prepare(stream: &Stream, group: &str, p: u32) -> Result<PullConsumer, String> {
    let name = consumer_name(group, p);
    let fail = |e: &dyn std::fmt::Display| format!("JetStream consumer {name} on {STREAM}: {e}");
    let mut config = pull::Config {
        durable_name: Some(name.clone()),
        description: Some(format!("vigil collect --group {group}: partition {p}")),
        filter_subject: batch_subject(p),
        deliver_policy: DeliverPolicy::All,
        ack_policy: AckPolicy::All,
        ack_wait: ACK_WAIT,
        max_ack_pending: MAX_ACK_PENDING,
        ..Default::default()
    };
    if let Ok(info) = stream.consumer_info(&name).await {
        if info.num_ack_pending == 0 {
            return stream.get_consumer(&name).await.map_err(|e| fail(&e));
        }
        let start = info.ack_floor.stream_sequence + 1;
        eprintln!(
            "vigil collect: {name}: {} message(s) were delivered before and not acknowledged; \
             reading partition {p} again from message {start}, in order",
            info.num_ack_pending
        );
        stream.delete_consumer(&name).await.map_err(|e| fail(&e))?;
        config.deliver_policy = DeliverPolicy::ByStartSequence { start_sequence: start };
    }
    stream.create_consumer(config).await.map_err(|e| fail(&e))
}

/// Reads a partition in order, forever (the member stops by aborting it).
async fn pull(consumer: PullConsumer, p: u32, tx: mpsc::Sender<Delivery>) {
    let mut warned = false;
    loop {
        let messages = consumer
            .stream()
            .max_messages_per_batch(512)
            .max_bytes_per_batch(32 << 20)
            .heartbeat(Duration::from_secs(5))
            .expires(Duration::from_secs(30))
            .messages()
            .await;
        let mut messages = match messages {
            Ok(m) => m,
            Err(e) => {
                warn_once(&mut warned, p, &e);
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        while let Some(m) = messages.next().await {
            match m {
                Ok(m) => {
                    if tx.send(delivery(p, m)).await.is_err() {
                        return;
                    }
                    warned = false;
                }
                Err(e) => warn_once(&mut warned, p, &e),
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn warn_once(warned: &mut bool, p: u32, e: &dyn std::fmt::Display) {
    if !*warned {
        eprintln!("vigil collect: JetStream, partition {p}: {e}; still trying");
        *warned = true;
    }
}

fn delivery(partition: u32, m: async_nats::jetstream::Message) -> Delivery {
    let seq = m.info().map_or(0, |i| i.stream_sequence);
    let stream = m
        .headers
        .as_ref()
        .and_then(|h| h.get(HDR_STREAM))
        .and_then(|v| unescape_header(v.as_str()));
    let m = m.message;
    Delivery { partition, subject: m.subject.to_string(), seq, stream, payload: m.payload, reply: m.reply }
}

/// Acknowledges, per partition, the newest message the store thread
/// released (the consumers acknowledge all before it with it).
async fn acker(client: Client, mut rx: mpsc::UnboundedReceiver<AckReq>) {
    let mut newest: BTreeMap<u32, AckReq> = BTreeMap::new();
    while let Some(a) = rx.recv().await {
        let mut keep = |a: AckReq| {
            if newest.get(&a.partition).is_none_or(|n| n.seq < a.seq) {
                newest.insert(a.partition, a);
            }
        };
        keep(a);
        while let Ok(a) = rx.try_recv() {
            keep(a);
        }
        for (_, a) in std::mem::take(&mut newest) {
            let _ = client.publish(a.reply, Bytes::from_static(b"+ACK")).await;
        }
    }
    let _ = tokio::time::timeout(Duration::from_secs(5), client.flush()).await;
}

/// Answers the feed thread's schema lookups.
async fn lookups(js: Context, mut rx: mpsc::UnboundedReceiver<Lookup>, stop: watch::Receiver<Option<Instant>>) {
    while let Some(l) = rx.recv().await {
        if let Some(found) = schema(&js, &l.stream, &stop).await {
            let _ = l.reply.try_send(found);
        }
    }
}

/// The stream's hello in `VIGIL_SCHEMA`; tried until JetStream answers,
/// None when the member stops first.
async fn schema(js: &Context, stream: &str, stop: &watch::Receiver<Option<Instant>>) -> Option<Option<Bytes>> {
    let subject = schema_subject(stream);
    loop {
        if let Ok(s) = js.get_stream_no_info(SCHEMA_STREAM).await {
            match s.get_last_raw_message_by_subject(&subject).await {
                Ok(m) => return Some(Some(m.payload)),
                Err(e) if matches!(e.kind(), LastRawMessageErrorKind::NoMessageFound) => return Some(None),
                Err(_) => {}
            }
        }
        if stop.borrow().is_some() {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
