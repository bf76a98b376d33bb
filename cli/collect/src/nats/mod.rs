//! Scale-out through NATS JetStream (docs/collector.md, "Scale-out through
//! NATS JetStream").
//!
//! * `vigil collect --listen ADDR --nats URL [--store DIR]`
//!   ([`Publishing`]): every document a producer sends is published, in
//!   the order received, to JetStream stream `VIGIL`, subject
//!   `vigil.b.<FNV-1a-64(stream id) % partitions>`; each producer stream's
//!   event table to `VIGIL_SCHEMA`; a batch is acknowledged to its
//!   producer once JetStream stored it and (with `--store`) the local
//!   commit holds it.
//! * `vigil collect --nats URL --group NAME --member I/N [--store DIR]`
//!   ([`Consuming`]): member I of N consumes the partitions p with
//!   p % N == I through durable pull consumers, in order, into the same
//!   store thread as connections; a message is acknowledged to JetStream
//!   once what it carried is durable.
//!
//! The official client (async-nats) runs on its own thread, in a
//! current-thread tokio runtime; the collector's threads talk to it
//! through channels.
//!
//! * [`subjects`]: names, partitions, headers
//! * [`setup`]: the two streams, created or checked
//! * [`tee`], [`gate`], [`publish`]: the publishing side
//! * [`consume`], [`feed`]: the consuming side

pub mod consume;
pub mod feed;
pub mod gate;
pub mod publish;
pub mod setup;
pub mod subjects;
pub mod tee;

use std::future::Future;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use async_nats::Client;
use tokio::sync::{mpsc, watch};

use crate::error::{Context, Error, Result};
use crate::ingest::Work;
use feed::FeedTotals;
use publish::PublishTotals;
use setup::{SetupError, StreamOptions};
use subjects::Member;

#[derive(Debug, Clone)]
pub struct NatsOptions {
    /// `nats://HOST:PORT`
    pub url: String,
    pub streams: StreamOptions,
}

/// A fatal error of the NATS thread, for the command's exit.
type Failure = Arc<Mutex<Option<String>>>;

fn failure_of(f: &Failure) -> Option<String> {
    f.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Runs `work` on the NATS thread; its error is kept in `failure`.
fn spawn<T, F>(failure: Failure, work: impl FnOnce() -> F + Send + 'static) -> Result<JoinHandle<std::result::Result<T, String>>>
where
    T: Send + 'static,
    F: Future<Output = std::result::Result<T, String>>,
{
    std::thread::Builder::new()
        .name("vigil-nats".into())
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build();
            let r = match rt {
                Ok(rt) => rt.block_on(work()),
                Err(e) => Err(format!("starting the NATS thread's runtime: {e}")),
            };
            if let Err(e) = &r {
                *failure.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.clone());
            }
            r
        })
        .ctx(|| "starting the NATS thread")
}

/// The client, reconnecting forever (quickly: 50 ms doubling to 1 s); the
/// first connection is made in the background too, so that a collector
/// can start before nats-server.  Losing the connection and getting it
/// back are said on stderr.
async fn connect(url: &str) -> std::result::Result<Client, String> {
    let lost = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let name = url.to_string();
    async_nats::ConnectOptions::new()
        .name("vigil collect")
        .retry_on_initial_connect()
        .reconnect_delay_callback(|n| Duration::from_millis((50u64 << n.min(5)).min(1000)))
        .event_callback(move |e| {
            let (lost, url) = (lost.clone(), name.clone());
            async move {
                use std::sync::atomic::Ordering::Relaxed;
                match e {
                    async_nats::Event::Disconnected => {
                        lost.store(true, Relaxed);
                        eprintln!("vigil collect: NATS at {url}: disconnected; reconnecting (nothing is acknowledged meanwhile)");
                    }
                    async_nats::Event::Connected if lost.swap(false, Relaxed) => {
                        eprintln!("vigil collect: NATS at {url}: connected again");
                    }
                    _ => {}
                }
            }
        })
        .connect(url)
        .await
        .map_err(|e| format!("--nats {url}: {e}"))
}

/// Waits for the first connection, saying so after a second; false when
/// `stop` came first.
async fn wait_for_connection(client: &Client, stop: &watch::Receiver<Option<Instant>>, url: &str) -> bool {
    let started = Instant::now();
    let mut said = false;
    while client.connection_state() != async_nats::connection::State::Connected {
        if !said && started.elapsed() > Duration::from_secs(1) {
            eprintln!("vigil collect: waiting for NATS at {url} (not reachable yet); nothing is acknowledged until it is");
            said = true;
        }
        if stop.borrow().is_some_and(|t| Instant::now() >= t) {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    if said {
        eprintln!("vigil collect: NATS at {url}: connected");
    }
    true
}

/// Waits until both streams are there and right; the partition count, or
/// None when `stop` came first.
async fn wait_for_streams(
    client: &Client,
    opts: &StreamOptions,
    stop: &watch::Receiver<Option<Instant>>,
    url: &str,
) -> std::result::Result<Option<u32>, String> {
    if !wait_for_connection(client, stop, url).await {
        return Ok(None);
    }
    let js = &async_nats::jetstream::new(client.clone());
    let mut said: Option<String> = None;
    let mut backoff = Duration::from_millis(100);
    loop {
        match setup::ensure(js, opts).await {
            Ok(n) => return Ok(Some(n)),
            Err(SetupError::Fatal(m)) => return Err(m),
            Err(SetupError::Retry(m)) => {
                if said.as_deref() != Some(m.as_str()) {
                    eprintln!("vigil collect: waiting for JetStream at {url} ({m})");
                    said = Some(m);
                }
            }
        }
        if stop.borrow().is_some_and(|t| Instant::now() >= t) {
            return Ok(None);
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(2));
    }
}

/// The publishing side: give [`Publishing::sender`] to the connections.
pub struct Publishing {
    tx: Option<SyncSender<Work>>,
    tee: Option<JoinHandle<()>>,
    nats: JoinHandle<std::result::Result<PublishTotals, String>>,
    stop: watch::Sender<Option<Instant>>,
    failure: Failure,
}

impl Publishing {
    /// `store`: the store thread's channel (whatever is published goes
    /// there too).
    pub fn start(o: NatsOptions, store: SyncSender<Work>) -> Result<Publishing> {
        let (tx, rx) = sync_channel::<Work>(1024);
        let (ptx, prx) = mpsc::channel(1024);
        let (stop, stop_rx) = watch::channel(None);
        let failure = Failure::default();
        let nats = spawn(failure.clone(), move || async move {
            let client = connect(&o.url).await?;
            publish::run(client, o.streams, prx, stop_rx, &o.url).await
        })?;
        let tee = std::thread::Builder::new()
            .name("vigil-nats-tee".into())
            .spawn(move || tee::run(rx, store, ptx))
            .ctx(|| "starting the publishing thread")?;
        Ok(Publishing { tx: Some(tx), tee: Some(tee), nats, stop, failure })
    }

    pub fn sender(&self) -> &SyncSender<Work> {
        self.tx.as_ref().expect("until finish")
    }

    /// The NATS thread's fatal error (a stream that is not vigil's, a
    /// partition count that does not match).
    pub fn failure(&self) -> Option<String> {
        failure_of(&self.failure)
    }

    /// Once the connections are done: publishes what is queued, for at
    /// most `grace`; what is left then is dropped, unacknowledged.
    pub fn finish(mut self, grace: Duration) -> Result<PublishTotals> {
        let _ = self.stop.send(Some(Instant::now() + grace));
        drop(self.tx.take());
        if let Some(t) = self.tee.take() {
            let _ = t.join();
        }
        match self.nats.join() {
            Ok(r) => r.map_err(Error),
            Err(_) => Err(Error::new("the NATS thread panicked")),
        }
    }
}

/// The consuming side of one group member.
pub struct Consuming {
    feed: Option<JoinHandle<FeedTotals>>,
    nats: JoinHandle<std::result::Result<(), String>>,
    stop: watch::Sender<Option<Instant>>,
    failure: Failure,
}

impl Consuming {
    pub fn start(o: NatsOptions, group: String, member: Member, store: SyncSender<Work>) -> Result<Consuming> {
        subjects::check_group(&group).map_err(Error)?;
        let (dtx, drx) = mpsc::channel(1024);
        let (atx, arx) = mpsc::unbounded_channel();
        let (ltx, lrx) = mpsc::unbounded_channel();
        let (stop, stop_rx) = watch::channel(None);
        let failure = Failure::default();
        let ch = consume::Channels { deliveries: dtx, acks: arx, lookups: lrx };
        let nats = spawn(failure.clone(), move || async move {
            let client = connect(&o.url).await?;
            consume::run(client, o.streams, group, member, ch, stop_rx, &o.url).await
        })?;
        let feed = std::thread::Builder::new()
            .name("vigil-nats-feed".into())
            .spawn(move || feed::run(drx, store, atx, ltx))
            .ctx(|| "starting the feed thread")?;
        Ok(Consuming { feed: Some(feed), nats, stop, failure })
    }

    pub fn failure(&self) -> Option<String> {
        failure_of(&self.failure)
    }

    /// Stops pulling; what was fetched goes to the store thread, which
    /// then ends.
    pub fn stop(&mut self) -> FeedTotals {
        let _ = self.stop.send(Some(Instant::now()));
        self.feed.take().and_then(|f| f.join().ok()).unwrap_or_default()
    }

    /// After the store thread ended: its last acknowledgements go out.
    pub fn finish(self) -> Result<()> {
        match self.nats.join() {
            Ok(r) => r.map_err(Error),
            Err(_) => Err(Error::new("the NATS thread panicked")),
        }
    }
}
