//! The committer thread: makes a commit durable (the segment file, then
//! the catalog's transaction) while the store thread goes on building the
//! next one.  ReBIS's double buffering, on the collector's side: one
//! commit in flight, one being filled, so encoding and fsync overlap with
//! receiving, and the two cores both work.  Between commits it merges
//! small segments (compact.rs), unless the next commit already waits.

use std::fs::File;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::catalog::{Catalog, Commit, SegmentRow};
use crate::compact::{Compactor, Policy};
use crate::error::{Context, Error, Result};
use crate::segment::{Codec, Rows, SegmentWriter};

/// One commit: the rows of a segment and the catalog's changes.
pub struct Job {
    pub rows: Rows,
    pub commit: Commit,
}

/// A job done: its rows (emptied, for reuse) and whether it is durable.
pub struct Done {
    pub rows: Rows,
    pub result: Result<()>,
}

pub struct Committer {
    tx: Option<SyncSender<Job>>,
    pub done: Receiver<Done>,
    handle: Option<JoinHandle<()>>,
}

struct Store {
    catalog: Catalog,
    writer: SegmentWriter,
    next_segment: i64,
    /// The committed segments in id order, as the catalog has them.
    segments: Vec<SegmentRow>,
    compactor: Compactor,
    /// flock'ed: one process writes a store.
    _lock: File,
}

impl Committer {
    /// Opens the store (creating it), removes what a crash left, and
    /// starts the thread.
    pub fn start(dir: &Path, codec: Codec) -> Result<Committer> {
        let store = open(dir, codec)?;
        let (tx, rx) = mpsc::sync_channel::<Job>(1);
        let (dtx, done) = mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("vigil-commit".into())
            .spawn(move || run(store, rx, dtx))
            .ctx(|| "starting the committer thread")?;
        Ok(Committer {
            tx: Some(tx),
            done,
            handle: Some(handle),
        })
    }

    pub fn send(&self, job: Job) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(job);
        }
    }

    pub fn stop(&mut self) {
        self.tx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// The committer thread: each job made durable and answered, then merges
/// while no job waits; at the end (every job answered), what is left small
/// is merged.
fn run(mut store: Store, rx: Receiver<Job>, dtx: mpsc::Sender<Done>) {
    let mut waiting = None;
    while let Some(Job { mut rows, commit }) = waiting.take().or_else(|| rx.recv().ok()) {
        let result = store.commit(&rows, commit);
        let ok = result.is_ok();
        rows.clear();
        if dtx.send(Done { rows, result }).is_err() {
            return;
        }
        if ok {
            waiting = store.compact_until_job(&rx);
        }
    }
    store.compact(&Policy::EXIT);
}

impl Store {
    /// The segment first, then one transaction that names it with the
    /// batches it holds: a crash between the two leaves a file the next
    /// open removes, never a batch acknowledged and not stored.
    fn commit(&mut self, rows: &Rows, mut commit: Commit) -> Result<()> {
        if !rows.is_empty() {
            let first = self.next_segment;
            let parts = if rows.len() >= PARALLEL_ROWS { 2 } else { 1 };
            for (i, (n, bytes)) in self.writer.write(first, rows, parts)?.into_iter().enumerate() {
                commit.segments.push(SegmentRow {
                    id: first + i as i64,
                    file: SegmentWriter::file_name(first + i as i64),
                    rows: n as i64,
                    bytes: bytes as i64,
                });
            }
            self.next_segment += commit.segments.len() as i64;
        }
        if !commit.is_empty() {
            self.catalog.commit(&commit)?;
            self.segments.extend(commit.segments);
        }
        Ok(())
    }

    /// Merges small segments (Policy::LIVE) until none are due or the
    /// store thread hands the next job, which is returned: a commit never
    /// waits for more than the one merge under way.
    fn compact_until_job(&mut self, rx: &Receiver<Job>) -> Option<Job> {
        while let Some(run) = self.compactor.plan(&self.segments, &Policy::LIVE) {
            match rx.try_recv() {
                Ok(job) => return Some(job),
                Err(TryRecvError::Disconnected) => return None,
                Err(TryRecvError::Empty) => self.merge(run),
            }
        }
        None
    }

    /// Merges under `p` until nothing is due.
    fn compact(&mut self, p: &Policy) {
        while let Some(run) = self.compactor.plan(&self.segments, p) {
            self.merge(run);
        }
    }

    /// One merge.  A failure stops compaction for this collector, not the
    /// collector: the store stays consistent (compact.rs).
    fn merge(&mut self, run: std::ops::Range<usize>) {
        let r = self
            .compactor
            .merge(&mut self.catalog, &self.writer, &mut self.segments, run);
        if let Err(e) = r {
            eprintln!(
                "vigil collect: {}: compaction stopped: {} (nothing is lost; the next open of the \
                 store finishes or undoes the merge under way)",
                self.writer.dir().display(),
                e.0
            );
            self.compactor.stopped = true;
        }
    }
}

/// A commit this large is encoded as two segments in parallel (smaller ones
/// gain nothing from a second thread and make more files).
const PARALLEL_ROWS: usize = 1 << 16;

fn open(dir: &Path, codec: Codec) -> Result<Store> {
    std::fs::create_dir_all(dir).ctx(|| dir.display().to_string())?;
    let lock = lock(dir)?;
    let catalog = Catalog::open(dir)?;
    let writer = SegmentWriter::new(dir, codec)?;
    let segments = catalog.segments()?;
    let files: Vec<String> = segments.iter().map(|s| s.file.clone()).collect();
    let r = writer.recover(&files)?;
    let d = dir.display();
    if !r.removed.is_empty() {
        eprintln!(
            "vigil collect: {d}: removed {} file(s) no catalog row names (written before a crash, \
             never committed, so never acknowledged: the producers send them again; or segments \
             a compaction had replaced): {}",
            r.removed.len(),
            r.removed.join(", ")
        );
    }
    if !r.renamed.is_empty() {
        eprintln!("vigil collect: {d}: finished {} compaction(s) a crash interrupted: {}", r.renamed.len(), r.renamed.join(", "));
    }
    if !r.missing.is_empty() {
        eprintln!(
            "vigil collect: {d}: warning: the catalog names {} segment file(s) that are not there \
             (removed by hand?): {}",
            r.missing.len(),
            r.missing.join(", ")
        );
    }
    let next_segment = catalog.next_segment_id()?;
    Ok(Store {
        catalog,
        writer,
        next_segment,
        segments,
        compactor: Compactor::new(),
        _lock: lock,
    })
}

/// One writer per store: two would remove each other's files (recovery)
/// and reuse segment ids.  An exclusive flock on the store directory, held
/// while the store is open; the kernel drops it when the process dies, so
/// a collector killed and restarted finds it free (waiting a little, for a
/// process still exiting).
fn lock(dir: &Path) -> Result<File> {
    let f = File::open(dir).ctx(|| dir.display().to_string())?;
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this function owns.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(f);
        }
        if Instant::now() >= until {
            return Err(Error(format!(
                "{}: another vigil collect is writing this store (one writer per store)",
                dir.display()
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What [`compact_store`] did.
#[derive(Debug, Clone, Copy)]
pub struct Compacted {
    pub before: usize,
    pub after: usize,
    pub merges: usize,
}

/// `vigil collect --compact`: merges every small segment of an existing
/// store now (Policy::ALL), after the open's recovery.
pub fn compact_store(dir: &Path, codec: Codec) -> Result<Compacted> {
    if !dir.join("catalog.sqlite").exists() {
        return Err(Error(format!("{}: no store here (no catalog.sqlite)", dir.display())));
    }
    let mut store = open(dir, codec)?;
    let before = store.segments.len();
    store.compact(&Policy::ALL);
    if store.compactor.stopped {
        return Err(Error(format!("{}: compaction failed (see above)", dir.display())));
    }
    Ok(Compacted { before, after: store.segments.len(), merges: store.compactor.merges })
}
