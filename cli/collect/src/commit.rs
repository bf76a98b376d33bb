//! The committer thread: makes a commit durable (the segment file, then
//! the catalog's transaction) while the store thread goes on building the
//! next one.  ReBIS's double buffering, on the collector's side: one
//! commit in flight, one being filled, so encoding and fsync overlap with
//! receiving, and the two cores both work.

use std::path::Path;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;

use crate::catalog::{Catalog, Commit, SegmentRow};
use crate::error::{Context, Result};
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
            .spawn(move || {
                let mut store = store;
                for Job { mut rows, commit } in rx {
                    let result = store.commit(&rows, commit);
                    rows.clear();
                    if dtx.send(Done { rows, result }).is_err() {
                        break;
                    }
                }
            })
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
        }
        Ok(())
    }
}

/// A commit this large is encoded as two segments in parallel (smaller ones
/// gain nothing from a second thread and make more files).
const PARALLEL_ROWS: usize = 1 << 16;

fn open(dir: &Path, codec: Codec) -> Result<Store> {
    std::fs::create_dir_all(dir).ctx(|| dir.display().to_string())?;
    let catalog = Catalog::open(dir)?;
    let writer = SegmentWriter::new(dir, codec)?;
    let removed = writer.remove_uncommitted(&catalog.segment_files()?)?;
    if !removed.is_empty() {
        eprintln!(
            "vigil collect: {}: removed {} segment file(s) never committed (a crash before their \
             batches were acknowledged; the producers send them again): {}",
            dir.display(),
            removed.len(),
            removed.join(", ")
        );
    }
    let next_segment = catalog.next_segment_id()?;
    Ok(Store {
        catalog,
        writer,
        next_segment,
    })
}
