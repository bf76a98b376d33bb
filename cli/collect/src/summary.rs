//! `vigil collect --summary --store PATH [--json]`: per producer, what the
//! store holds and what is known lost, so that anyone (and CI) can tell
//! whether a recording is complete.
//!
//! Per thread, from the catalog: `stored` events; `lost`, counted by the
//! producer (discard mode; its `end` has the final count); `produced`,
//! from the `end` (every event the thread recorded, lost ones included);
//! `missing` = produced - stored - lost: events neither stored nor known
//! lost (a batch never received: a spill file not imported, a producer
//! killed before its consumer shipped).  Before an `end` arrives,
//! `produced` is unknown and `missing` counts only the holes below the
//! highest sequence number stored.  A producer is complete when it ended
//! and nothing is missing.

use std::fmt::Write as _;
use std::path::Path;

use rusqlite::params;
use serde_json::{json, Value};

use crate::catalog::Catalog;
use crate::error::{Context, Result};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadSummary {
    pub thread: i64,
    pub stored: i64,
    pub lost: i64,
    pub produced: Option<i64>,
    pub missing: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProducerSummary {
    pub stream: String,
    pub program: String,
    pub pid: i64,
    pub host: String,
    pub mode: String,
    pub ended: bool,
    pub batches_stored: i64,
    /// Batch numbers not stored, below the end's count (or the highest).
    pub batches_missing: Vec<(i64, i64)>,
    pub threads: Vec<ThreadSummary>,
    pub violations: i64,
}

impl ProducerSummary {
    pub fn stored(&self) -> i64 {
        self.threads.iter().map(|t| t.stored).sum()
    }
    pub fn lost(&self) -> i64 {
        self.threads.iter().map(|t| t.lost).sum()
    }
    pub fn missing(&self) -> i64 {
        self.threads.iter().map(|t| t.missing).sum()
    }
    pub fn produced(&self) -> Option<i64> {
        self.threads.iter().map(|t| t.produced).sum()
    }
    pub fn complete(&self) -> bool {
        self.ended && self.missing() == 0 && self.batches_missing.is_empty()
    }
}

pub fn read(store: &Path) -> Result<Vec<ProducerSummary>> {
    let c = Catalog::open_existing(store)?;
    let db = c.connection();
    let mut st = db
        .prepare("SELECT id, stream, program, pid, host, mode, ended, batches FROM streams ORDER BY id")
        .ctx(|| "catalog: streams")?;
    type StreamRow = (i64, String, String, i64, String, String, bool, Option<i64>);
    let streams: Vec<StreamRow> = st
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?))
        })
        .ctx(|| "catalog: streams")?
        .collect::<rusqlite::Result<_>>()
        .ctx(|| "catalog: streams")?;
    let mut out = Vec::new();
    for (id, stream, program, pid, host, mode, ended, batches) in streams {
        let ranges = c.stream(&stream)?.map(|s| s.batches).unwrap_or_default();
        let expect = batches.unwrap_or(ranges.max().map_or(0, |m| m + 1));
        let violations: i64 = db
            .query_row("SELECT COUNT(*) FROM violations WHERE stream_id = ?1", [id], |r| r.get(0))
            .ctx(|| "catalog: violations")?;
        out.push(ProducerSummary {
            stream,
            program,
            pid,
            host,
            mode,
            ended,
            batches_stored: ranges.count(),
            batches_missing: ranges.gaps_below(expect),
            threads: threads(db, id, ended)?,
            violations,
        });
    }
    Ok(out)
}

fn threads(db: &rusqlite::Connection, id: i64, ended: bool) -> Result<Vec<ThreadSummary>> {
    let mut st = db
        .prepare(
            "SELECT thread, stored, lost, next_tseq, produced, final_lost FROM threads
             WHERE stream_id = ?1 ORDER BY thread",
        )
        .ctx(|| "catalog: threads")?;
    let rows = st
        .query_map(params![id], |r| {
            let (thread, stored, lost, next): (i64, i64, i64, i64) =
                (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
            let produced: Option<i64> = r.get(4)?;
            let final_lost: Option<i64> = r.get(5)?;
            let lost = final_lost.unwrap_or(lost);
            let produced = if ended { produced.or(Some(next)) } else { None };
            let missing = produced.unwrap_or(next) - stored - lost;
            Ok(ThreadSummary {
                thread,
                stored,
                lost,
                produced,
                missing: missing.max(0),
            })
        })
        .ctx(|| "catalog: threads")?;
    rows.collect::<rusqlite::Result<_>>().ctx(|| "catalog: threads")
}

pub fn to_json(store: &Path, ps: &[ProducerSummary]) -> Value {
    let producers: Vec<Value> = ps
        .iter()
        .map(|p| {
            json!({
                "stream": p.stream, "program": p.program, "pid": p.pid, "host": p.host,
                "mode": p.mode, "ended": p.ended, "complete": p.complete(),
                "events": {"stored": p.stored(), "lost": p.lost(), "produced": p.produced(),
                           "missing": p.missing()},
                "batches": {"stored": p.batches_stored, "missing": p.batches_missing},
                "violations": p.violations,
                "threads": p.threads.iter().map(|t| json!({
                    "thread": t.thread, "stored": t.stored, "lost": t.lost,
                    "produced": t.produced, "missing": t.missing})).collect::<Vec<_>>(),
            })
        })
        .collect();
    let sum = |f: fn(&ProducerSummary) -> i64| ps.iter().map(f).sum::<i64>();
    json!({
        "store": store.display().to_string(),
        "producers": producers,
        "totals": {
            "producers": ps.len(), "complete": ps.iter().filter(|p| p.complete()).count(),
            "stored": sum(ProducerSummary::stored), "lost": sum(ProducerSummary::lost),
            "missing": sum(ProducerSummary::missing), "violations": sum(|p| p.violations),
        }
    })
}

pub fn to_text(ps: &[ProducerSummary]) -> String {
    let mut s = String::new();
    for p in ps {
        let state = match (p.ended, p.complete()) {
            (_, true) => "complete",
            (true, false) => "INCOMPLETE",
            (false, _) => "not ended",
        };
        let _ = writeln!(
            s,
            "{} ({} pid {} on {}, {}): {}: {} stored, {} lost, {} missing{}{}",
            p.stream,
            p.program,
            p.pid,
            p.host,
            p.mode,
            state,
            p.stored(),
            p.lost(),
            p.missing(),
            p.produced().map_or(String::new(), |n| format!(", {n} produced")),
            if p.violations > 0 { format!(", {} violations", p.violations) } else { String::new() },
        );
        if !p.batches_missing.is_empty() {
            let r: Vec<String> = p
                .batches_missing
                .iter()
                .map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") })
                .collect();
            let _ = writeln!(s, "  batches not stored: {}", r.join(", "));
        }
        for t in p.threads.iter().filter(|t| t.missing > 0) {
            let _ = writeln!(s, "  thread {}: {} missing", t.thread, t.missing);
        }
    }
    s
}

/// Whether every producer is complete.
pub fn all_complete(ps: &[ProducerSummary]) -> bool {
    ps.iter().all(ProducerSummary::complete)
}

