//! The store's catalog (SQLite, `STORE/catalog.sqlite`): which producers
//! sent what, which batches of each are stored, per-thread counts, the
//! Parquet segments holding the events, and violations found by --check.
//! Queryable with `sqlite3`; docs/collector.md lists the tables.
//!
//! The catalog is the store's truth: a segment file that no `segments` row
//! names was never acknowledged (a crash between writing it and the
//! catalog's commit) and is deleted when the store is opened.  Commits are
//! WAL transactions with synchronous=FULL, so an acknowledged batch
//! survives the collector's crash and the machine's.

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::{Context, Error, Result};
use crate::ranges::RangeSet;

/// The store layout version this collector reads and writes.
pub const STORE_FORMAT: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS streams(
  id INTEGER PRIMARY KEY, stream TEXT NOT NULL UNIQUE, program TEXT NOT NULL,
  pid INTEGER NOT NULL, host TEXT NOT NULL, mode TEXT NOT NULL, peer TEXT NOT NULL,
  first_seen_unix_ms INTEGER NOT NULL, ended INTEGER NOT NULL DEFAULT 0,
  batches INTEGER);
CREATE TABLE IF NOT EXISTS event_types(
  stream_id INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT NOT NULL,
  kind TEXT NOT NULL, args TEXT NOT NULL, names TEXT,
  PRIMARY KEY(stream_id, id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS batch_ranges(
  stream_id INTEGER NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL,
  PRIMARY KEY(stream_id, first)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS threads(
  stream_id INTEGER NOT NULL, thread INTEGER NOT NULL,
  stored INTEGER NOT NULL, lost INTEGER NOT NULL, next_tseq INTEGER NOT NULL,
  first_ns INTEGER, last_ns INTEGER, produced INTEGER, final_lost INTEGER,
  PRIMARY KEY(stream_id, thread)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS segments(
  id INTEGER PRIMARY KEY, file TEXT NOT NULL, rows INTEGER NOT NULL,
  bytes INTEGER NOT NULL, committed_unix_ms INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS violations(
  id INTEGER PRIMARY KEY, stream_id INTEGER NOT NULL, model TEXT NOT NULL,
  kind TEXT NOT NULL, thread INTEGER NOT NULL, tseq INTEGER NOT NULL,
  ns INTEGER NOT NULL, scope TEXT NOT NULL, key INTEGER, state TEXT NOT NULL,
  event TEXT NOT NULL, rule TEXT NOT NULL, source TEXT NOT NULL);
";

/// A producer seen for the first time.
#[derive(Debug, Clone)]
pub struct NewStream {
    pub id: i64,
    pub stream: String,
    pub program: String,
    pub pid: i32,
    pub host: String,
    pub mode: String,
    pub peer: String,
    pub first_seen_unix_ms: i64,
}

#[derive(Debug, Clone)]
pub struct NewEvent {
    pub stream_id: i64,
    pub id: u32,
    pub name: String,
    pub kind: String,
    /// Argument types, comma-separated (`i64,ptr`).
    pub args: String,
    pub names: Option<String>,
}

/// What a commit adds to one thread's counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadDelta {
    pub stream_id: i64,
    pub thread: i64,
    pub stored: i64,
    /// The thread's cumulative lost count (the largest seen).
    pub lost: i64,
    /// One past the largest sequence number stored.
    pub next_tseq: i64,
    pub first_ns: i64,
    pub last_ns: i64,
}

#[derive(Debug, Clone)]
pub struct EndTotals {
    pub stream_id: i64,
    pub batches: i64,
    /// (thread, produced, lost)
    pub threads: Vec<(i64, i64, i64)>,
}

#[derive(Debug, Clone)]
pub struct SegmentRow {
    pub id: i64,
    pub file: String,
    pub rows: i64,
    pub bytes: i64,
}

#[derive(Debug, Clone)]
pub struct ViolationRow {
    pub stream_id: i64,
    pub model: String,
    pub kind: String,
    pub thread: i64,
    pub tseq: i64,
    pub ns: i64,
    pub scope: String,
    pub key: Option<i64>,
    pub state: String,
    pub event: String,
    pub rule: String,
    pub source: String,
}

/// Everything one commit writes, in one transaction.
#[derive(Debug, Default)]
pub struct Commit {
    pub streams: Vec<NewStream>,
    pub events: Vec<NewEvent>,
    pub segments: Vec<SegmentRow>,
    /// Streams whose stored batch set changed, with the whole new set.
    pub ranges: Vec<(i64, RangeSet)>,
    pub threads: Vec<ThreadDelta>,
    pub ends: Vec<EndTotals>,
    pub violations: Vec<ViolationRow>,
}

impl Commit {
    pub fn is_empty(&self) -> bool {
        self.streams.is_empty()
            && self.events.is_empty()
            && self.segments.is_empty()
            && self.ranges.is_empty()
            && self.threads.is_empty()
            && self.ends.is_empty()
            && self.violations.is_empty()
    }
}

/// A stream as the catalog has it.
#[derive(Debug, Clone)]
pub struct StoredStream {
    pub id: i64,
    pub batches: RangeSet,
    pub ended: bool,
    /// Event ids declared so far.
    pub events: u32,
}

pub struct Catalog {
    db: Connection,
}

impl Catalog {
    /// Opens (or creates) `dir/catalog.sqlite`.
    pub fn open(dir: &Path) -> Result<Catalog> {
        let path = dir.join("catalog.sqlite");
        if !path.exists() {
            create(&path)?;
        }
        let db = Connection::open(&path).ctx(|| format!("{}", path.display()))?;
        db.busy_timeout(std::time::Duration::from_secs(10))
            .ctx(|| path.display().to_string())?;
        db.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
            .ctx(|| format!("{}: setting WAL mode", path.display()))?;
        db.execute_batch(SCHEMA)
            .ctx(|| format!("{}: creating tables", path.display()))?;
        let c = Catalog { db };
        c.check_format(&path)?;
        Ok(c)
    }

    /// Read-only, for summaries and exports (never creates the store).
    pub fn open_existing(dir: &Path) -> Result<Catalog> {
        let path = dir.join("catalog.sqlite");
        if !path.exists() {
            return Err(Error(format!(
                "{}: no store here (no catalog.sqlite)",
                dir.display()
            )));
        }
        let db = Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .ctx(|| path.display().to_string())?;
        db.busy_timeout(std::time::Duration::from_secs(10))
            .ctx(|| path.display().to_string())?;
        let c = Catalog { db };
        c.check_format(&path)?;
        Ok(c)
    }

    fn check_format(&self, path: &Path) -> Result<()> {
        let v: Option<String> = self
            .db
            .query_row("SELECT value FROM meta WHERE key='format'", [], |r| r.get(0))
            .optional()
            .ctx(|| path.display().to_string())?;
        match v {
            Some(v) if v == STORE_FORMAT.to_string() => Ok(()),
            Some(v) => Err(Error(format!(
                "{}: store format {v}, this collector reads {STORE_FORMAT}",
                path.display()
            ))),
            None => {
                self.db
                    .execute(
                        "INSERT OR IGNORE INTO meta(key, value) VALUES ('format', ?1)",
                        [STORE_FORMAT.to_string()],
                    )
                    .map(|_| ())
                    .or_else(|e| match e {
                        // read-only and never written: an empty store
                        rusqlite::Error::SqliteFailure(f, _)
                            if f.code == rusqlite::ErrorCode::ReadOnly =>
                        {
                            Ok(())
                        }
                        e => Err(e),
                    })
                    .ctx(|| path.display().to_string())
            }
        }
    }

    pub fn connection(&self) -> &Connection {
        &self.db
    }

    pub fn next_stream_id(&self) -> Result<i64> {
        self.db
            .query_row("SELECT COALESCE(MAX(id), 0) + 1 FROM streams", [], |r| r.get(0))
            .ctx(|| "catalog: streams")
    }

    pub fn next_segment_id(&self) -> Result<i64> {
        self.db
            .query_row("SELECT COALESCE(MAX(id), 0) + 1 FROM segments", [], |r| r.get(0))
            .ctx(|| "catalog: segments")
    }

    /// The segments, in id order (= commit order: the store's rows in
    /// arrival order, a compaction's merged segment in the place of the
    /// ones it replaced).
    pub fn segments(&self) -> Result<Vec<SegmentRow>> {
        let mut st = self
            .db
            .prepare("SELECT id, file, rows, bytes FROM segments ORDER BY id")
            .ctx(|| "catalog: segments")?;
        let rows = st
            .query_map([], |r| {
                Ok(SegmentRow { id: r.get(0)?, file: r.get(1)?, rows: r.get(2)?, bytes: r.get(3)? })
            })
            .ctx(|| "catalog: segments")?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .ctx(|| "catalog: segments")
    }

    /// A compaction's swap, in one transaction: the segments `replaced`
    /// (consecutive, in id order) become `merged`, which takes the id of
    /// the last of them (so the order of rows by segment id is unchanged,
    /// and MAX(id), the next segment's id, too).  Batch ranges and counts
    /// do not change: the same events, in other files.
    pub fn replace_segments(&mut self, replaced: &[i64], merged: &SegmentRow) -> Result<()> {
        let tx = self.db.transaction().ctx(|| "catalog: begin")?;
        let swap = |tx: &rusqlite::Transaction<'_>| -> rusqlite::Result<usize> {
            let mut n = 0;
            for &id in replaced.iter().filter(|&&id| id != merged.id) {
                n += tx.execute("DELETE FROM segments WHERE id = ?1", [id])?;
            }
            n += tx.execute(
                "UPDATE segments SET file = ?2, rows = ?3, bytes = ?4 WHERE id = ?1",
                params![merged.id, merged.file, merged.rows, merged.bytes],
            )?;
            Ok(n)
        };
        let n = swap(&tx).ctx(|| "catalog: compaction")?;
        if n != replaced.len() || replaced.last() != Some(&merged.id) {
            return Err(Error::new(format!(
                "catalog: compaction into segment {}: the segments to replace are not all there",
                merged.id
            )));
        }
        tx.commit().ctx(|| "catalog: compaction")
    }

    pub fn stream(&self, stream: &str) -> Result<Option<StoredStream>> {
        let row: Option<(i64, bool)> = self
            .db
            .query_row(
                "SELECT id, ended FROM streams WHERE stream = ?1",
                [stream],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .ctx(|| "catalog: streams")?;
        let Some((id, ended)) = row else {
            return Ok(None);
        };
        let mut st = self
            .db
            .prepare("SELECT first, last FROM batch_ranges WHERE stream_id = ?1")
            .ctx(|| "catalog: batch_ranges")?;
        let ranges = st
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
            .ctx(|| "catalog: batch_ranges")?
            .collect::<rusqlite::Result<Vec<(i64, i64)>>>()
            .ctx(|| "catalog: batch_ranges")?;
        let events: u32 = self
            .db
            .query_row(
                "SELECT COUNT(*) FROM event_types WHERE stream_id = ?1",
                [id],
                |r| r.get(0),
            )
            .ctx(|| "catalog: event_types")?;
        Ok(Some(StoredStream {
            id,
            batches: RangeSet::from_ranges(ranges),
            ended,
            events,
        }))
    }

    /// Writes everything in one transaction.
    pub fn commit(&mut self, c: &Commit) -> Result<()> {
        let tx = self.db.transaction().ctx(|| "catalog: begin")?;
        write_commit(&tx, c).ctx(|| "catalog: commit")?;
        tx.commit().ctx(|| "catalog: commit")
    }
}

/// A new catalog is made whole under another name, then renamed into
/// place: a reader (`--summary` while the first collector starts) never
/// opens a catalog without its tables.
fn create(path: &Path) -> Result<()> {
    let tmp = path.with_extension(format!("sqlite.new-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    {
        let db = Connection::open(&tmp).ctx(|| tmp.display().to_string())?;
        db.execute_batch("PRAGMA journal_mode=WAL;")
            .and_then(|_| db.execute_batch(SCHEMA))
            .and_then(|_| {
                db.execute(
                    "INSERT INTO meta(key, value) VALUES ('format', ?1)",
                    [STORE_FORMAT.to_string()],
                )
            })
            .ctx(|| format!("{}: creating tables", tmp.display()))?;
    }
    std::fs::rename(&tmp, path).ctx(|| format!("renaming {} into place", tmp.display()))?;
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .ctx(|| format!("fsync {}", dir.display()))?;
    }
    Ok(())
}

fn write_commit(tx: &rusqlite::Transaction<'_>, c: &Commit) -> rusqlite::Result<()> {
    for s in &c.streams {
        tx.execute(
            "INSERT INTO streams(id, stream, program, pid, host, mode, peer, first_seen_unix_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![s.id, s.stream, s.program, s.pid, s.host, s.mode, s.peer, s.first_seen_unix_ms],
        )?;
    }
    for e in &c.events {
        tx.execute(
            "INSERT OR IGNORE INTO event_types(stream_id, id, name, kind, args, names)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![e.stream_id, e.id, e.name, e.kind, e.args, e.names],
        )?;
    }
    for s in &c.segments {
        tx.execute(
            "INSERT INTO segments(id, file, rows, bytes, committed_unix_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![s.id, s.file, s.rows, s.bytes, unix_ms()],
        )?;
    }
    for (id, set) in &c.ranges {
        tx.execute("DELETE FROM batch_ranges WHERE stream_id = ?1", [id])?;
        for &(a, b) in set.ranges() {
            tx.execute(
                "INSERT INTO batch_ranges(stream_id, first, last) VALUES (?1, ?2, ?3)",
                params![id, a, b],
            )?;
        }
    }
    for t in &c.threads {
        tx.execute(
            "INSERT INTO threads(stream_id, thread, stored, lost, next_tseq, first_ns, last_ns)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT(stream_id, thread) DO UPDATE SET
               stored = stored + excluded.stored, lost = MAX(lost, excluded.lost),
               next_tseq = MAX(next_tseq, excluded.next_tseq),
               first_ns = MIN(first_ns, excluded.first_ns), last_ns = MAX(last_ns, excluded.last_ns)",
            params![t.stream_id, t.thread, t.stored, t.lost, t.next_tseq, t.first_ns, t.last_ns],
        )?;
    }
    for e in &c.ends {
        tx.execute(
            "UPDATE streams SET ended = 1, batches = ?2 WHERE id = ?1",
            params![e.stream_id, e.batches],
        )?;
        for &(thread, produced, lost) in &e.threads {
            tx.execute(
                "INSERT INTO threads(stream_id, thread, stored, lost, next_tseq, produced, final_lost)
                 VALUES (?1, ?2, 0, ?4, 0, ?3, ?4)
                 ON CONFLICT(stream_id, thread) DO UPDATE SET
                   produced = excluded.produced, final_lost = excluded.final_lost",
                params![e.stream_id, thread, produced, lost],
            )?;
        }
    }
    for v in &c.violations {
        tx.execute(
            "INSERT INTO violations(stream_id, model, kind, thread, tseq, ns, scope, key, state, event, rule, source)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![v.stream_id, v.model, v.kind, v.thread, v.tseq, v.ns, v.scope, v.key, v.state, v.event, v.rule, v.source],
        )?;
    }
    Ok(())
}

pub fn unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
