//! Compaction: many small segments merged into one, online (the committer
//! thread, between commits) and offline (`vigil collect --compact`).
//!
//! A collector receiving a trickle commits at most --commit-ms after a
//! batch arrives, so that producers get their acks quickly: one small file
//! per commit, up to 5 a second.  Thousands of files make every query over
//! `events/*.parquet` slow (a footer per file, a row group each).  So, when
//! enough small segments wait, the oldest run of consecutive small ones is
//! read back and written again as one segment, in the same order, which
//! takes the place (and the id) of the last of them.  The catalog's batch
//! ranges and counts do not change: the same events, in fewer files.
//!
//! # The swap, and why a crash anywhere loses and duplicates nothing
//!
//! Segments S1..Sk (consecutive ids) become F = `ID(Sk).mG.parquet`, a
//! name no file had before (segment.rs, `merged_name`):
//!
//! 1. F's rows go to `.F.merging`, fsynced, and the directory fsynced:
//!    hidden and not `*.parquet`, so no glob reader sees it.
//! 2. One catalog transaction (WAL, synchronous=FULL) deletes S1..Sk-1's
//!    rows and makes Sk's row name F with its rows and size.
//! 3. S1..Sk are removed; the directory is fsynced.
//! 4. `.F.merging` is renamed to F; the directory is fsynced.
//!
//! A crash before 2 commits leaves the catalog naming S1..Sk, all in
//! place: the next open removes `.F.merging` (a `.merging` file the catalog
//! does not expect).  From 2 on, the catalog names F and not S1..Sk, and
//! F's rows are durable in `.F.merging`: the next open removes whatever is
//! left of S1..Sk (files the catalog does not name), fsyncs, and renames
//! `.F.merging` to F (SegmentWriter::recover).  At every point each event
//! is in exactly one of the files the catalog names (or in the `.merging`
//! file that stands for one of them), and the open puts the directory back
//! to exactly what the catalog names.
//!
//! # What a reader globbing `events/*.parquet` sees
//!
//! Never an event twice: F appears (4) only after S1..Sk are gone, and
//! durably so (3), also across a crash of the machine.  Between 3 and 4
//! (one fsync of the directory, 0.4 ms median here) S1..Sk's rows are in
//! no `*.parquet` file: a query that lists the directory then misses them.
//! No order avoids both: every directory operation changes one name, so
//! replacing k >= 2 files by one makes some rows visible twice or none for
//! a moment; vigil chooses none.  A query that listed the directory before
//! 3 and opens Si after it fails ("no such file"); rerun it.  A name is
//! never reused, so a listed name never opens to other rows.  (Listing a
//! directory of more than about a thousand files takes several `getdents`
//! calls, not one snapshot, and one listing could name both Si, read
//! before 3, and F, read after 4.  The query opens files once its listing
//! is complete, after 4, so after Si was removed: it fails on Si instead
//! of counting its rows twice.)  `vigil collect` itself reads through the
//! catalog (read.rs), which has no such window.
//!
//! # Cost
//!
//! Compaction runs in the committer thread after a commit, one bounded
//! merge at a time, and not while the next commit waits (commit.rs).  Big
//! commits (>= SMALL_ROWS rows) never take part: at full speed nothing is
//! merged.  At exit what is left small is merged in cheap runs
//! (Policy::EXIT); `--compact` merges everything small (Policy::ALL).
//!
//! # Test hook
//!
//! `VIGIL_COLLECT_TEST_KILL_AT=written|committed|removed|renamed` makes
//! the collector kill itself (SIGKILL) right after that step of the first
//! merge (1 to 4 above), for the crash tests (cli/vigil/tests).  It is read
//! once, when the store is opened, never on the commit path.

use std::fs;
use std::io::ErrorKind;
use std::ops::Range;

use crate::catalog::{Catalog, SegmentRow};
/// `vigil collect --compact` (it opens the store as a collector does).
pub use crate::commit::{compact_store, Compacted};
use crate::error::{Context, Error, Result};
use crate::read;
use crate::segment::{Rows, SegmentWriter};

/// Segments with fewer rows than this are small (a big commit, at full
/// speed, makes 512K-row segments, which are never merged).
pub const SMALL_ROWS: i64 = 1 << 18;

/// When to merge, and how much at a time.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    /// Merge once at least this many small segments are there.
    pub min_files: usize,
    /// At most this many rows per merge (memory: ~50 bytes a row; time:
    /// the next commit may wait for one merge).
    pub max_rows: i64,
    /// Leave the newest segment alone (a collector running: merging what
    /// was just written would rewrite it again at once).
    pub keep_newest: bool,
}

impl Policy {
    /// In the committer thread, between commits.  A merge reads and
    /// writes ~4 M rows a second here: 512K rows hold the next commit up
    /// for ~0.15 s at most.
    pub const LIVE: Policy = Policy { min_files: 16, max_rows: 1 << 19, keep_newest: true };
    /// A collector's exit, its last commit acknowledged: what is left
    /// small merged, a little at a time (not the last commit of a fast run,
    /// two halves of a few hundred thousand rows: the exit would wait for
    /// that, for one file less).
    pub const EXIT: Policy = Policy { min_files: 2, max_rows: SMALL_ROWS, keep_newest: false };
    /// `vigil collect --compact`: everything small, now.
    pub const ALL: Policy = Policy { min_files: 2, max_rows: 1 << 22, keep_newest: false };
}

/// The next run of segments to merge: when at least `min_files` are small,
/// the oldest run of two or more consecutive small segments, up to
/// `max_rows`.  Consecutive, so that the store's rows stay in commit order
/// (the merged segment takes the run's place).
pub fn plan(segments: &[SegmentRow], p: &Policy) -> Option<Range<usize>> {
    let end = if p.keep_newest { segments.len().saturating_sub(1) } else { segments.len() };
    let candidates = &segments[..end];
    let small = |s: &SegmentRow| s.rows < SMALL_ROWS;
    if candidates.iter().filter(|s| small(s)).count() < p.min_files.max(2) {
        return None;
    }
    let mut i = 0;
    while i < candidates.len() {
        if !small(&candidates[i]) {
            i += 1;
            continue;
        }
        let (mut j, mut rows) = (i, 0);
        while j < candidates.len() && small(&candidates[j]) && (j == i || rows + candidates[j].rows <= p.max_rows) {
            rows += candidates[j].rows;
            j += 1;
        }
        if j - i >= 2 {
            return Some(i..j);
        }
        i = j;
    }
    None
}

/// A step of the swap, for the crash tests' hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Written,
    Committed,
    Removed,
    Renamed,
}

/// Merges segments; holds the rows read back, reused from one merge to
/// the next.
#[derive(Default)]
pub struct Compactor {
    rows: Rows,
    kill_at: Option<Step>,
    /// Set after a merge failed: the store is consistent (the next open
    /// finishes or undoes that merge), and this collector merges no more.
    pub stopped: bool,
    /// Merges done, and segments they replaced.
    pub merges: usize,
    pub replaced: usize,
}

impl Compactor {
    pub fn new() -> Compactor {
        let kill_at = match std::env::var("VIGIL_COLLECT_TEST_KILL_AT").as_deref() {
            Ok("written") => Some(Step::Written),
            Ok("committed") => Some(Step::Committed),
            Ok("removed") => Some(Step::Removed),
            Ok("renamed") => Some(Step::Renamed),
            _ => None,
        };
        Compactor { kill_at, ..Compactor::default() }
    }

    /// The next run to merge under `p`, unless merging stopped.
    pub fn plan(&self, segments: &[SegmentRow], p: &Policy) -> Option<Range<usize>> {
        if self.stopped {
            return None;
        }
        plan(segments, p)
    }

    /// Merges `segments[run]` into one segment (the module's steps 1 to
    /// 4), and updates `segments` to match the catalog.
    pub fn merge(
        &mut self,
        catalog: &mut Catalog,
        writer: &SegmentWriter,
        segments: &mut Vec<SegmentRow>,
        run: Range<usize>,
    ) -> Result<()> {
        let old = &segments[run.clone()];
        let last = old.last().expect("a run of two or more");
        let file = SegmentWriter::merged_name(last.id, &last.file);
        let written = self
            .read(writer, old)
            .and_then(|rows| Ok((rows, writer.write_merged(&self.rows, &file)?)));
        self.rows.clear();
        let (rows, bytes) = written.inspect_err(|_| {
            // hidden, and the next open removes it anyway
            let _ = fs::remove_file(writer.dir().join(SegmentWriter::merging_name(&file)));
        })?;
        self.step(Step::Written);
        let merged = SegmentRow { id: last.id, file, rows, bytes: bytes as i64 };
        let ids: Vec<i64> = old.iter().map(|s| s.id).collect();
        catalog.replace_segments(&ids, &merged)?;
        self.step(Step::Committed);
        for s in old {
            let path = writer.dir().join(&s.file);
            match fs::remove_file(&path) {
                Err(e) if e.kind() != ErrorKind::NotFound => {
                    return Err(Error(format!("{}: {e}", path.display())))
                }
                _ => {}
            }
        }
        writer.sync_dir()?;
        self.step(Step::Removed);
        let tmp = writer.dir().join(SegmentWriter::merging_name(&merged.file));
        fs::rename(&tmp, writer.dir().join(&merged.file))
            .ctx(|| format!("renaming {} to {}", tmp.display(), merged.file))?;
        writer.sync_dir()?;
        self.step(Step::Renamed);
        self.merges += 1;
        self.replaced += old.len();
        segments.splice(run, [merged]);
        Ok(())
    }

    /// The rows of `old`, in order, into `self.rows`; checked against the
    /// catalog's counts.
    fn read(&mut self, writer: &SegmentWriter, old: &[SegmentRow]) -> Result<i64> {
        self.rows.clear();
        // once, not doubling (and copying) as the columns grow
        self.rows.reserve(old.iter().map(|s| s.rows as usize).sum());
        let mut total = 0;
        for s in old {
            let path = writer.dir().join(&s.file);
            let n = read::load(&path, &mut self.rows)? as i64;
            if n != s.rows {
                return Err(Error(format!("{}: {n} rows, the catalog says {}", path.display(), s.rows)));
            }
            total += n;
        }
        Ok(total)
    }

    fn step(&self, at: Step) {
        if self.kill_at == Some(at) {
            eprintln!("vigil collect: test hook: killed after compaction step {at:?}");
            // SAFETY: signalling this process.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(rows: &[i64]) -> Vec<SegmentRow> {
        rows.iter()
            .enumerate()
            .map(|(i, &r)| SegmentRow { id: i as i64 + 1, file: String::new(), rows: r, bytes: 0 })
            .collect()
    }

    #[test]
    fn merges_the_oldest_run_of_small_segments_once_enough_wait() {
        let live = Policy::LIVE;
        assert_eq!(plan(&segs(&[10; 16]), &live), None, "15 older than the newest");
        assert_eq!(plan(&segs(&[10; 17]), &live), Some(0..16));
        let mut s = vec![1 << 19, 10, 1 << 19];
        s.extend([10; 20]);
        assert_eq!(plan(&segs(&s), &live), Some(3..22), "a run of one is left");
        assert_eq!(plan(&segs(&[1 << 19; 40]), &live), None, "big commits never");
    }

    #[test]
    fn a_merge_is_bounded_in_rows() {
        let p = Policy { min_files: 2, max_rows: 100, keep_newest: false };
        assert_eq!(plan(&segs(&[60, 30, 20, 5]), &p), Some(0..2));
        assert_eq!(plan(&segs(&[90, 60, 30, 5]), &p), Some(1..4));
        assert_eq!(plan(&segs(&[90, 60, 50]), &p), None);
        assert_eq!(plan(&segs(&[5, 6]), &Policy::ALL), Some(0..2), "the newest too");
    }

    #[test]
    fn at_exit_only_what_is_cheap() {
        assert_eq!(plan(&segs(&[1 << 19, 300, 200]), &Policy::EXIT), Some(1..3));
        // the last commit of a fast run, two halves: not worth the wait
        assert_eq!(plan(&segs(&[1 << 19, 150_000, 150_000]), &Policy::EXIT), None);
    }

    #[test]
    fn merged_names_are_new() {
        assert_eq!(SegmentWriter::merged_name(42, "00000042.parquet"), "00000042.m1.parquet");
        assert_eq!(SegmentWriter::merged_name(42, "00000042.m1.parquet"), "00000042.m2.parquet");
        assert_eq!(SegmentWriter::merging_name("00000042.m2.parquet"), ".00000042.m2.parquet.merging");
    }
}
