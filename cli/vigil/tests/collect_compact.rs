//! Compaction (cli/collect/src/compact.rs) end to end: the real
//! `vigil collect` receiving a trickle, one small commit per batch, merges
//! small segments as it goes, stores every event once and in order, and
//! loses and duplicates nothing when killed in the middle of a merge.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use vigil::tempdir::TempDir;
use vigil_stream::*;

mod common;
use common::*;

/// Events per batch.
const N: u32 = 5;

fn store_arg(store: &Path) -> Vec<&str> {
    vec!["--store", store.to_str().unwrap()]
}

/// The `*.parquet` files in `STORE/events`, and the other (hidden) ones.
fn files(store: &Path) -> (Vec<String>, Vec<String>) {
    let mut names: Vec<String> = std::fs::read_dir(store.join("events"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names.into_iter().partition(|n| n.ends_with(".parquet") && !n.starts_with('.'))
}

/// The segment files the catalog names.
fn catalog_files(store: &Path) -> Vec<String> {
    let c = vigil_collect::catalog::Catalog::open_existing(store).unwrap();
    let mut f: Vec<String> = c.segments().unwrap().into_iter().map(|s| s.file).collect();
    f.sort();
    f
}

/// Every stored event of `stream`, read back through the catalog: each
/// (thread, tseq) must be there once, each thread's in order.  Returns
/// the number of events.
fn check_once_in_order(store: &Path, batches: i64) -> usize {
    let mut seen: BTreeMap<(i64, i64), usize> = BTreeMap::new();
    let mut last: BTreeMap<i64, i64> = BTreeMap::new();
    let mut n = 0;
    vigil_collect::read::for_each(store, |e| {
        *seen.entry((e.thread, e.tseq)).or_default() += 1;
        let prev = last.insert(e.thread, e.tseq);
        assert!(prev.is_none_or(|p| p < e.tseq), "thread {} out of order: {prev:?} then {}", e.thread, e.tseq);
        n += 1;
        Ok(())
    })
    .unwrap();
    let dup: Vec<_> = seen.iter().filter(|(_, &k)| k > 1).collect();
    assert!(dup.is_empty(), "stored more than once: {dup:?}");
    assert_eq!(n, batches as usize * N as usize, "every event of {batches} batches");
    n
}

/// The directory holds exactly what the catalog names: no orphan, no
/// temporary or `.merging` file, nothing missing.
fn check_no_orphans(store: &Path) {
    let (parquet, hidden) = files(store);
    assert!(hidden.is_empty(), "left over: {hidden:?}");
    assert_eq!(parquet, catalog_files(store));
}

/// Sends batches `from..to` one at a time, each acknowledged before the
/// next (so each is a commit, a segment of its own).  Returns the newest
/// ack, or None if the collector went away first.
fn trickle(p: &mut Producer, from: i64, to: i64) -> Option<i64> {
    let mut acked = None;
    for seq in from..to {
        if !p.try_send(&batch(seq, N)) {
            return None;
        }
        acked = Some(p.ack_or_gone(seq)?);
    }
    acked
}

#[test]
fn a_trickle_ends_in_few_files_with_every_event_once() {
    let t = TempDir::new("compact-trickle");
    let store = t.path().join("store");
    let c = Collector::listen(t.path(), &store_arg(&store));
    let mut p = c.connect();
    p.send(&hello_doc("h:c:1", 0));
    assert_eq!(p.next(), Some(Message::Ack(-1)));
    let batches = 70;
    assert_eq!(trickle(&mut p, 0, batches), Some(batches - 1));
    let (live, _) = files(&store);
    // 70 commits, 70 segments without compaction; with it at most 16
    // small ones older than the newest, and a merge may be under way
    assert!(live.len() <= 18, "{} files while running: {live:?}", live.len());
    p.send(&end(batches, N as i64));
    p.wait_ack(batches - 1);
    drop(p);
    let (code, _, err) = c.stop();
    assert_eq!(code, 0, "{err}");
    let (left, _) = files(&store);
    assert!(left.len() <= 2, "what is small is merged at exit: {left:?}");
    check_no_orphans(&store);
    check_once_in_order(&store, batches);
    let pr = producer_of(&summary(&store), "h:c:1").clone();
    assert_eq!(pr["complete"], true, "{pr}");
    assert_eq!(pr["events"]["stored"], batches * N as i64, "{pr}");
    assert_eq!(pr["batches"]["stored"], batches, "{pr}");
}

/// `vigil collect --compact STORE`.
fn compact(store: &Path) -> String {
    let out = Command::new(VIGIL).args(["collect", "--compact", "--store"]).arg(store).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    err
}

#[test]
fn compact_merges_what_a_killed_collector_left() {
    let t = TempDir::new("compact-offline");
    let store = t.path().join("store");
    let c = Collector::listen(t.path(), &store_arg(&store));
    let mut p = c.connect();
    p.send(&hello_doc("h:c:2", 0));
    // 12 segments: fewer than a running collector merges, and a killed
    // one does not merge at exit
    assert_eq!(trickle(&mut p, 0, 12), Some(11));
    c.kill9();
    drop(p);
    assert_eq!(files(&store).0.len(), 12);
    let err = compact(&store);
    assert!(err.contains("12 segment(s), 1 after 1 merge(s)"), "{err}");
    assert_eq!(files(&store).0.len(), 1);
    check_no_orphans(&store);
    check_once_in_order(&store, 12);
    assert!(compact(&store).contains("1 segment(s), 1 after 0 merge(s)"));
    // a collector writing the store holds it: --compact waits, then says so
    let c = Collector::listen(t.path(), &store_arg(&store));
    let out = Command::new(VIGIL).args(["collect", "--compact", "--store"]).arg(&store).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("another vigil collect is writing this store"));
    c.stop();
}

/// The collector kills itself right after `step` of its first merge
/// (compact.rs, "Test hook"), a collector restarted on the store recovers,
/// and the producer, reconnecting, completes its stream.
fn killed_after(step: &str) -> (PathBuf, String, TempDir) {
    let t = TempDir::new(&format!("compact-kill-{step}"));
    let store = t.path().join("store");
    let env = [("VIGIL_COLLECT_TEST_KILL_AT", step)];
    let c = Collector::listen_env(t.path(), &[&["--commit-ms", "20"], &store_arg(&store)[..]].concat(), &env);
    let mut p = c.connect();
    p.send(&hello_doc("h:k:1", 0));
    // the 17th segment makes 16 small ones older than the newest: a merge
    assert_eq!(trickle(&mut p, 0, 40), None, "killed during the first merge");
    drop(p);
    let (code, _, err) = c.wait(30);
    assert_eq!(code, -1, "killed by a signal: {err}");
    assert!(err.contains("test hook: killed after compaction step"), "{err}");
    let (_, hidden) = files(&store);
    let merging = hidden.iter().any(|h| h.ends_with(".merging"));
    assert_eq!(merging, step != "renamed", "{step}: {hidden:?}");
    // started again: recovers, and the producer resumes where the store is
    let c = Collector::listen(t.path(), &store_arg(&store));
    let mut p = c.connect();
    p.send(&hello_doc("h:k:1", 0));
    let Some(Message::Ack(stored)) = p.next() else { panic!("an ack") };
    let batches = 40;
    assert_eq!(trickle(&mut p, stored + 1, batches), Some(batches - 1));
    p.send(&end(batches, N as i64));
    p.wait_ack(batches - 1);
    drop(p);
    let (code, _, err) = c.stop();
    assert_eq!(code, 0, "{err}");
    check_no_orphans(&store);
    check_once_in_order(&store, batches);
    let pr = producer_of(&summary(&store), "h:k:1").clone();
    assert_eq!(pr["complete"], true, "{pr}");
    assert_eq!(pr["events"]["stored"], batches * N as i64, "{pr}");
    (store, err, t)
}

#[test]
fn killed_after_writing_the_merged_file() {
    let (_, err, _t) = killed_after("written");
    assert!(err.contains(".merging"), "the merge never committed is removed: {err}");
}

#[test]
fn killed_after_the_catalog_transaction() {
    let (_, err, _t) = killed_after("committed");
    assert!(err.contains("finished 1 compaction(s)"), "{err}");
}

#[test]
fn killed_after_removing_the_replaced_segments() {
    let (_, err, _t) = killed_after("removed");
    assert!(err.contains("finished 1 compaction(s)"), "{err}");
}

#[test]
fn killed_after_the_rename() {
    let (_, err, _t) = killed_after("renamed");
    assert!(!err.contains("compaction(s)") && !err.contains("removed"), "nothing to recover: {err}");
}

/// SIGKILL at random moments of a run that merges every ~16 commits
/// (bounded: a few runs of a few hundred milliseconds), each followed by a
/// restart on the same store.  The delays are printed (--nocapture).
#[test]
fn killed_at_random_moments_loses_and_duplicates_nothing() {
    let t = TempDir::new("compact-random");
    let store = t.path().join("store");
    let mut seed = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    let mut rand = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let (mut next, batches) = (0i64, 400i64);
    // restarts that finished a merge, and that removed one never committed
    let (mut recovered, mut undone) = (0, 0);
    for run in 0..6 {
        let c = Collector::listen_env(t.path(), &[&["--commit-ms", "1"], &store_arg(&store)[..]].concat(), &[]);
        recovered += c.stderr().contains("compaction(s) a crash interrupted") as usize;
        undone += c.stderr().contains(".merging") as usize;
        let delay = 50 + rand(400);
        eprintln!("run {run}: killed after {delay} ms");
        let pid = c.pid() as i32;
        let killer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(delay));
            // SAFETY: signalling our own child, which waits to be reaped.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        });
        let mut p = c.connect();
        p.send(&hello_doc("h:r:1", next));
        if let Some(Message::Ack(stored)) = p.next() {
            next = stored + 1;
            if let Some(a) = trickle(&mut p, next, batches) {
                next = a + 1;
            }
        }
        killer.join().unwrap();
        drop(p);
        c.kill9();
    }
    let c = Collector::listen(t.path(), &store_arg(&store));
    recovered += c.stderr().contains("compaction(s) a crash interrupted") as usize;
    let mut p = c.connect();
    p.send(&hello_doc("h:r:1", next));
    let Some(Message::Ack(stored)) = p.next() else { panic!("an ack") };
    assert_eq!(trickle(&mut p, stored + 1, batches).unwrap_or(stored), batches - 1);
    p.send(&end(batches, N as i64));
    p.wait_ack(batches - 1);
    drop(p);
    let (code, _, err) = c.stop();
    assert_eq!(code, 0, "{err}");
    eprintln!("restarts: {recovered} finished an interrupted merge, {undone} removed one never committed");
    check_no_orphans(&store);
    check_once_in_order(&store, batches);
    let pr = producer_of(&summary(&store), "h:r:1").clone();
    assert_eq!(pr["complete"], true, "{pr}");
}
