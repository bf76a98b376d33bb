//! `vigil collect`: the event stream's collector (the library is
//! cli/collect; docs/collector.md).  This file is the command line: which
//! mode, the models of --check, the exit status.
//!
//! * `--listen ADDR...`: receive streams until Ctrl-C / SIGTERM,
//!   `--streams N` ended streams, or `--duration S`;
//! * `--import FILE...`: store file streams (`file:` destinations, spill
//!   files);
//! * `--summary`, `--export-trace OUT`: read a store;
//! * `--compact`: merge a store's small segments now (a running collector
//!   merges them as it goes);
//! * `--listen ADDR... --nats URL`: also publish what producers send to
//!   NATS JetStream (acknowledged once JetStream stored it);
//! * `--nats URL --group NAME [--member I/N]`: consume from JetStream as a
//!   member of a group (docs/collector.md, "Scale-out through NATS
//!   JetStream").
//!
//! Exit status: 0; 1 when --check found violations, or with
//! `--require-complete` when a producer is incomplete; 2 on bad input
//! (arguments, models, an unreadable store, a refused import).

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use clap::Args;
use vigil_collect::addr::Endpoint;
use vigil_collect::check::{CheckTotals, Checker, ModelRun};
use vigil_collect::ingest::{Ingest, Options, Totals, Work};
use vigil_collect::nats::feed::FeedTotals;
use vigil_collect::nats::setup::StreamOptions;
use vigil_collect::nats::subjects::Member;
use vigil_collect::nats::{Consuming, NatsOptions, Publishing};
use vigil_collect::segment::Codec;
use vigil_collect::{compact, export, server, summary};
use vigil_model::{Binding, Model};

use crate::check_cmd;
use crate::error::{Error, Result};

#[derive(Debug, Args)]
pub struct CollectArgs {
    /// Accept producers here: tcp://HOST:PORT (port 0: any free port), HOST:PORT or unix:PATH (repeatable)
    #[arg(long, value_name = "ADDR")]
    pub listen: Vec<String>,
    /// The store: a directory of Parquet segments (events/) and a SQLite catalog (catalog.sqlite); without it events are checked and counted, not kept
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// Store these file streams (VIGIL_STREAM=file:..., or spill files a producer named)
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub import: Vec<PathBuf>,
    /// Run this model on the events as they arrive: a .dot file or shipped name (binding MODEL.bind), or a .bind file that names its model (repeatable)
    #[arg(long, value_name = "MODEL[.bind]")]
    pub check: Vec<PathBuf>,
    /// Violations (and --summary) as JSON Lines
    #[arg(long)]
    pub json: bool,
    /// Print, per producer, the events stored, lost and missing (needs --store)
    #[arg(long)]
    pub summary: bool,
    /// With --summary: exit 1 unless every producer ended and nothing is missing
    #[arg(long)]
    pub require_complete: bool,
    /// Write the store's events as a Chrome trace / Perfetto JSON file (ui.perfetto.dev opens it)
    #[arg(long, value_name = "OUT.json")]
    pub export_trace: Option<PathBuf>,
    /// Merge the store's small segments into few files now (a store no collector is writing; a running collector merges them as it goes)
    #[arg(long)]
    pub compact: bool,
    /// With --export-trace: one producer only (its stream id or pid)
    #[arg(long, value_name = "STREAM|PID")]
    pub only: Option<String>,
    /// Stop after N producer streams have ended (and are stored)
    #[arg(long, value_name = "N")]
    pub streams: Option<u64>,
    /// Stop after S seconds
    #[arg(long, value_name = "S")]
    pub duration: Option<f64>,
    /// Write the addresses listened on (one per line, as VIGIL_STREAM takes them) to this file
    #[arg(long, value_name = "FILE")]
    pub addr_file: Option<PathBuf>,
    /// Commit (and acknowledge) at most this long after a batch arrives
    #[arg(long, value_name = "MS", default_value_t = 200)]
    pub commit_ms: u64,
    /// ... or once this many events wait
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    pub segment_rows: usize,
    /// Parquet compression: snappy, zstd or none
    #[arg(long, value_name = "CODEC", default_value = "snappy")]
    pub compression: String,
    /// NATS JetStream: with --listen, publish every document producers send (a batch is acknowledged once JetStream stored it); with --group, consume from it
    #[arg(long, value_name = "nats://HOST:PORT")]
    pub nats: Option<String>,
    /// With --nats: the partitions of JetStream stream VIGIL when this collector creates it (default 8); fixed afterwards, a different number is refused
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub nats_partitions: Option<u32>,
    /// With --nats: how long JetStream keeps documents, when this collector creates the stream (e.g. 7d, 12h, 30m, 90s; default 7d)
    #[arg(long, value_name = "AGE")]
    pub nats_max_age: Option<String>,
    /// With --nats: consume as a member of this group (durable consumers NAME-p<P>), instead of listening
    #[arg(long, value_name = "NAME")]
    pub group: Option<String>,
    /// With --group: this collector is member I of N and consumes the partitions p with p % N == I
    #[arg(long, value_name = "I/N", default_value = "0/1")]
    pub member: String,
}

/// How long a stopping collector still tries to publish what it received.
const PUBLISH_GRACE: Duration = Duration::from_secs(10);

pub fn run(args: &CollectArgs) -> Result<()> {
    check_nats_args(args)?;
    let receiving = !args.listen.is_empty() || !args.import.is_empty() || args.group.is_some();
    if !receiving && !args.summary && args.export_trace.is_none() && !args.compact {
        return Err(Error::setup(
            "nothing to do: give --listen ADDR (receive streams), --import FILE (store file \
             streams), --nats URL --group NAME (consume from NATS JetStream), --summary, \
             --export-trace OUT (read a store) or --compact (merge its small segments)",
        ));
    }
    if (args.summary || args.export_trace.is_some() || args.compact) && args.store.is_none() {
        return Err(Error::setup("--summary, --export-trace and --compact work on a store: give --store DIR"));
    }
    if args.compact && receiving {
        return Err(Error::setup("--compact is for a store no collector is writing (a collector merges small segments as it goes)"));
    }
    let mut status = Ok(());
    if receiving {
        status = receive(args);
    }
    if args.compact {
        compact(args)?;
    }
    if status.is_err() && !receiving {
        return status;
    }
    if let Some(out) = &args.export_trace {
        export_trace(args.store.as_deref().expect("checked"), args.only.as_deref(), out)?;
    }
    if args.summary {
        let r = print_summary(args);
        if status.is_ok() {
            status = r;
        }
    }
    status
}

/// Batches come and go by the thousand per second, 64 KiB each, and each
/// commit builds megabytes of columns: with glibc's defaults every one of
/// those is a fresh mmap or a trimmed heap, paid in page faults (a fifth of
/// the collector's time, measured).  Keep freed memory for reuse instead.
fn keep_freed_memory() {
    // SAFETY: mallopt only sets allocator parameters.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}

fn check_nats_args(args: &CollectArgs) -> Result<()> {
    let listening = !args.listen.is_empty() || !args.import.is_empty();
    match (&args.nats, &args.group) {
        (None, Some(_)) => Err(Error::setup("--group consumes from NATS JetStream: give --nats URL")),
        (None, None) if args.nats_partitions.is_some() || args.nats_max_age.is_some() => {
            Err(Error::setup("--nats-partitions and --nats-max-age go with --nats URL"))
        }
        (Some(_), Some(_)) if listening => Err(Error::setup(
            "a collector either publishes (--listen ADDR --nats URL) or consumes (--nats URL --group NAME), not both",
        )),
        (Some(_), None) if !listening => Err(Error::setup(
            "--nats URL: give --listen ADDR (publish what producers send) or --group NAME (consume as a group member)",
        )),
        _ => Ok(()),
    }
}

fn nats_options(args: &CollectArgs) -> Result<Option<NatsOptions>> {
    let Some(url) = &args.nats else { return Ok(None) };
    let max_age = args
        .nats_max_age
        .as_deref()
        .map(|a| parse_age(a).ok_or_else(|| Error::setup(format!("--nats-max-age {a}: expected a number with s, m, h or d, e.g. 7d"))))
        .transpose()?;
    Ok(Some(NatsOptions {
        url: url.clone(),
        streams: StreamOptions { partitions: args.nats_partitions, max_age },
    }))
}

/// `90s`, `30m`, `12h`, `7d` (a plain number is seconds).
fn parse_age(s: &str) -> Option<Duration> {
    let (n, unit) = match s.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let n: u64 = n.parse().ok().filter(|&n| n > 0)?;
    let secs = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    Some(Duration::from_secs(n.checked_mul(secs)?))
}

fn ingest_options(args: &CollectArgs) -> Result<Options> {
    let codec = Codec::parse(&args.compression).ok_or_else(|| {
        Error::setup(format!("--compression {}: expected snappy, zstd or none", args.compression))
    })?;
    Ok(Options {
        store: args.store.clone(),
        codec,
        commit_ms: args.commit_ms.max(1),
        segment_rows: args.segment_rows.max(1),
    })
}

/// What stops receiving: Ctrl-C / SIGTERM, `--streams N` ended, `--duration`.
struct Stop {
    signal: &'static AtomicBool,
    streams: Option<u64>,
    deadline: Option<Instant>,
}

impl Stop {
    fn new(args: &CollectArgs) -> Stop {
        Stop {
            signal: stop_on_signals(),
            streams: args.streams,
            deadline: args.duration.map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0))),
        }
    }

    fn due(&self, totals: &Totals) -> bool {
        self.signal.load(Ordering::Relaxed)
            || self.streams.is_some_and(|n| totals.ended.load(Ordering::Relaxed) >= n)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

fn receive(args: &CollectArgs) -> Result<()> {
    keep_freed_memory();
    let opts = ingest_options(args)?;
    let nats = nats_options(args)?;
    let member = Member::parse(&args.member).map_err(Error::setup)?;
    let runs = args.check.iter().map(|m| load_model(m)).collect::<Result<Vec<_>>>()?;
    let checker = (!runs.is_empty()).then(|| {
        let out: Box<dyn Write + Send> = Box::new(io::stdout());
        Checker::start(runs, args.json, out)
    });
    let totals = Arc::new(Totals::default());
    let ingest = Ingest::open(opts, checker, totals.clone()).map_err(|e| Error::setup(e.0))?;
    let (tx, rx) = mpsc::sync_channel::<Work>(1024);
    let store_thread = std::thread::Builder::new()
        .name("vigil-store".into())
        .spawn(move || ingest.run(rx))
        .map_err(|e| Error::failure(format!("starting the store thread: {e}")))?;
    let join_store = move || {
        store_thread
            .join()
            .map_err(|_| Error::failure("the store thread panicked"))?
            .map_err(|e| Error::failure(format!("store: {}; batches since the last commit were not acknowledged and will be sent again", e.0)))
    };
    let (checked, end) = match (&args.group, nats) {
        (Some(group), Some(o)) => consume(args, o, group, member, tx, &totals, join_store)?,
        (_, nats) => listen(args, nats, tx, &totals, join_store)?,
    };
    report_totals(&totals, (!args.check.is_empty()).then_some(checked), &end);
    if !end.imported.is_empty() {
        for (p, msg) in &end.imported {
            eprintln!("vigil collect: {}: {msg}", p.display());
        }
        return Err(Error::setup(format!("{} file stream(s) refused (what came before the error is stored)", end.imported.len())));
    }
    if let Some(msg) = end.nats_failure {
        return Err(Error::setup(format!("NATS: {msg}")));
    }
    if checked.violations > 0 {
        return Err(Error::with_code(String::new(), 1));
    }
    Ok(())
}

/// How receiving ended, besides the store's totals.
#[derive(Default)]
struct End {
    imported: Vec<(PathBuf, String)>,
    nats_failure: Option<String>,
    published: Option<u64>,
    consumed: Option<FeedTotals>,
}

/// `--listen` / `--import`, publishing to JetStream with `--nats`.
fn listen(
    args: &CollectArgs,
    nats: Option<NatsOptions>,
    tx: mpsc::SyncSender<Work>,
    totals: &Arc<Totals>,
    join_store: impl FnOnce() -> Result<CheckTotals>,
) -> Result<(CheckTotals, End)> {
    let endpoints = args
        .listen
        .iter()
        .map(|s| Endpoint::parse(s).map_err(|e| Error::setup(format!("--listen {e}"))))
        .collect::<Result<Vec<_>>>()?;
    let bound = server::bind(&endpoints).map_err(|e| Error::setup(e.0))?;
    let publishing = nats.map(|o| Publishing::start(o, tx.clone())).transpose().map_err(|e| Error::setup(e.0))?;
    let to_store = tx;
    let tx = publishing.as_ref().map_or(&to_store, |p| p.sender());
    announce(&bound, args.addr_file.as_deref())?;
    let mut end = End { imported: server::import(&args.import, tx), ..End::default() };
    if !bound.is_empty() {
        let stop = Stop::new(args);
        let t = totals.clone();
        let failed = || publishing.as_ref().is_some_and(|p| p.failure().is_some());
        let done = || stop.streams.is_some_and(|n| t.ended.load(Ordering::Relaxed) >= n) || failed();
        let until = server::Until { stop: stop.signal, done: &done, deadline: stop.deadline };
        server::serve(&bound, tx, until).map_err(|e| Error::failure(e.0))?;
    }
    drop(to_store);
    if let Some(p) = publishing {
        match p.finish(PUBLISH_GRACE) {
            Ok(t) => end.published = Some(t.published),
            Err(e) => end.nats_failure = Some(e.0),
        }
    }
    Ok((join_store()?, end))
}

/// `--nats URL --group NAME`: a group member.
fn consume(
    args: &CollectArgs,
    o: NatsOptions,
    group: &str,
    member: Member,
    tx: mpsc::SyncSender<Work>,
    totals: &Arc<Totals>,
    join_store: impl FnOnce() -> Result<CheckTotals>,
) -> Result<(CheckTotals, End)> {
    let mut c = Consuming::start(o, group.to_string(), member, tx).map_err(|e| Error::setup(e.0))?;
    let stop = Stop::new(args);
    while !stop.due(totals) && c.failure().is_none() {
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut end = End { consumed: Some(c.stop()), ..End::default() };
    let checked = join_store()?;
    if let Err(e) = c.finish() {
        end.nats_failure = Some(e.0);
    }
    Ok((checked, end))
}

fn load_model(arg: &Path) -> Result<ModelRun> {
    let is_bind = arg.extension().is_some_and(|e| e == "bind");
    let (model_path, bind_path) = if is_bind {
        check_cmd::resolve(None, Some(arg))?
    } else {
        check_cmd::resolve(Some(arg), None)?
    };
    let bad = |d: vigil_model::Diagnostic| Error::setup(d.to_string());
    let model = Model::from_file(&model_path).map_err(bad)?;
    let binding = Binding::from_file(&bind_path, &model).map_err(bad)?;
    for w in binding.warnings(&model).into_iter().chain(binding.out_of_process_warnings()) {
        eprintln!("vigil: {w}");
    }
    let compiled = vigil_model::compiled::compile(&model, &binding).map_err(bad)?;
    Ok(ModelRun {
        model,
        binding,
        model_arg: arg.display().to_string(),
        compiled: std::sync::Arc::new(compiled),
    })
}

fn announce(bound: &[server::Bound], addr_file: Option<&Path>) -> Result<()> {
    let addrs: Vec<&str> = bound.iter().map(|b| b.addr.as_str()).collect();
    for a in &addrs {
        eprintln!("vigil collect: listening on {a} (producers: VIGIL_STREAM={a})");
    }
    if let Some(f) = addr_file {
        let tmp = f.with_extension("tmp");
        std::fs::write(&tmp, addrs.iter().map(|a| format!("{a}\n")).collect::<String>())
            .and_then(|_| std::fs::rename(&tmp, f))
            .map_err(|e| Error::setup(format!("{}: {e}", f.display())))?;
    }
    Ok(())
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// Ctrl-C and SIGTERM stop receiving: what arrived is committed and
/// acknowledged, then the collector exits.
fn stop_on_signals() -> &'static AtomicBool {
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    &STOP
}

fn report_totals(t: &Totals, checked: Option<CheckTotals>, end: &End) {
    let r = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
    let mut line = format!(
        "vigil collect: {} producer(s), {} ended; {} events in {} batches stored ({} duplicate batches dropped), {} commits",
        r(&t.streams),
        r(&t.ended),
        r(&t.events),
        r(&t.batches),
        r(&t.duplicates),
        r(&t.commits)
    );
    if r(&t.refused) > 0 {
        line += &format!("; {} connection(s) refused", r(&t.refused));
    }
    if let Some(n) = end.published {
        line += &format!("; {n} documents published to JetStream");
    }
    if let Some(f) = end.consumed {
        line += &format!(
            "; {} JetStream messages ({} skipped, {} redelivered)",
            f.messages, f.skipped, f.redelivered
        );
    }
    if let Some(c) = checked {
        line += &format!(
            "; checked: {} events, {} rule firings, {} violation(s){}",
            c.events,
            c.fired,
            c.violations,
            if c.late > 0 { format!(", {} late batch(es)", c.late) } else { String::new() }
        );
    }
    eprintln!("{line}");
}

fn export_trace(store: &Path, only: Option<&str>, out: &Path) -> Result<()> {
    let file = std::fs::File::create(out)
        .map_err(|e| Error::setup(format!("{}: {e}", out.display())))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let n = export::chrome_trace(store, only, &mut w).map_err(|e| Error::setup(e.0))?;
    w.flush().map_err(|e| Error::failure(format!("{}: {e}", out.display())))?;
    eprintln!(
        "vigil collect: {n} events written to {} (open it in ui.perfetto.dev or chrome://tracing)",
        out.display()
    );
    Ok(())
}

fn compact(args: &CollectArgs) -> Result<()> {
    let store = args.store.as_deref().expect("checked");
    let codec = ingest_options(args)?.codec;
    let c = compact::compact_store(store, codec).map_err(|e| Error::setup(e.0))?;
    eprintln!(
        "vigil collect: {}: {} segment(s), {} after {} merge(s)",
        store.display(),
        c.before,
        c.after,
        c.merges
    );
    Ok(())
}

fn print_summary(args: &CollectArgs) -> Result<()> {
    let store = args.store.as_deref().expect("checked");
    let ps = summary::read(store).map_err(|e| Error::setup(e.0))?;
    let mut out = io::stdout().lock();
    let text = if args.json {
        summary::to_json(store, &ps).to_string() + "\n"
    } else {
        summary::to_text(&ps)
    };
    out.write_all(text.as_bytes())
        .map_err(|e| Error::failure(format!("cannot write output: {e}")))?;
    if args.require_complete && !summary::all_complete(&ps) {
        return Err(Error::with_code(String::new(), 1));
    }
    Ok(())
}
