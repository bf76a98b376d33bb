//! `vigil collect` end to end: the real binary on 127.0.0.1, spoken to by
//! a producer written with vigil_stream's encoders, so that every case of
//! the protocol (acknowledgements, resends, restarts, bad input) can be
//! made to happen exactly.

use std::path::PathBuf;
use std::process::Command;

use vigil::tempdir::TempDir;
use vigil_stream::*;

mod common;
use common::*;

fn store_dir(t: &TempDir) -> PathBuf {
    t.path().join("store")
}

#[test]
fn stores_acknowledges_and_summarises() {
    let t = TempDir::new("collect-basic");
    let store = store_dir(&t);
    let c = Collector::listen(t.path(), &["--store", store.to_str().unwrap()]);
    let mut p = c.connect();
    p.send(&hello_doc("h:1:1", 0));
    assert_eq!(p.next(), Some(Message::Ack(-1)), "a new stream: nothing stored yet");
    for seq in 0..6 {
        p.send(&batch(seq, 10));
    }
    p.wait_ack(5);
    p.send(&end(6, 10));
    drop(p);
    let (code, _, err) = c.stop();
    assert_eq!(code, 0, "{err}");
    let s = summary(&store);
    let pr = producer_of(&s, "h:1:1");
    assert_eq!(pr["complete"], true, "{s}");
    assert_eq!(pr["events"]["stored"], 60);
    assert_eq!(pr["events"]["produced"], 60);
    assert_eq!(pr["events"]["missing"], 0);
    assert_eq!(pr["batches"]["stored"], 6);
    assert_eq!(pr["program"], "/bin/test-producer");
}

#[test]
fn a_resend_after_reconnecting_is_stored_once() {
    let t = TempDir::new("collect-resend");
    let store = store_dir(&t);
    let c = Collector::listen(t.path(), &["--store", store.to_str().unwrap()]);
    let mut p = c.connect();
    p.send(&hello_doc("h:2:1", 0));
    for seq in 0..4 {
        p.send(&batch(seq, 5));
    }
    p.wait_ack(3);
    drop(p);
    // The producer did not see the ack: it resumes at 2 and sends 2 and 3 again.
    let mut p = c.connect();
    p.send(&hello_doc("h:2:1", 2));
    assert_eq!(p.next(), Some(Message::Ack(3)), "the store already holds 0..3");
    for seq in 2..8 {
        p.send(&batch(seq, 5));
    }
    p.send(&end(8, 5));
    p.wait_ack(7);
    drop(p);
    let (code, _, err) = c.stop();
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("(2 duplicate batches dropped)"), "{err}");
    let pr = producer_of(&summary(&store), "h:2:1").clone();
    assert_eq!(pr["events"]["stored"], 40, "{pr}");
    assert_eq!(pr["complete"], true, "{pr}");
}

#[test]
fn a_collector_killed_and_restarted_loses_nothing_acknowledged() {
    let t = TempDir::new("collect-restart");
    let store = store_dir(&t);
    let c = Collector::listen(t.path(), &["--store", store.to_str().unwrap()]);
    let mut p = c.connect();
    p.send(&hello_doc("h:3:1", 0));
    for seq in 0..5 {
        p.send(&batch(seq, 7));
    }
    p.wait_ack(4);
    // Sent, not acknowledged, then the collector dies.
    p.send(&batch(5, 7));
    c.kill9();
    drop(p);
    let c = Collector::listen(t.path(), &["--store", store.to_str().unwrap()]);
    let mut p = c.connect();
    p.send(&hello_doc("h:3:1", 5));
    match p.next() {
        Some(Message::Ack(n)) => assert!(n == 4 || n == 5, "acknowledged before: 0..4, got {n}"),
        other => panic!("{other:?}"),
    }
    for seq in 5..9 {
        p.send(&batch(seq, 7));
    }
    p.send(&end(9, 7));
    p.wait_ack(8);
    drop(p);
    let (code, _, err) = c.stop();
    assert_eq!(code, 0, "{err}");
    let pr = producer_of(&summary(&store), "h:3:1").clone();
    assert_eq!(pr["events"]["stored"], 63, "{pr}");
    assert_eq!(pr["complete"], true, "{pr}");
}

/// Each bad input: the peer gets an `error` naming the problem, its
/// connection ends, and a well-behaved producer connected at the same time
/// is unaffected.
#[test]
fn bad_input_ends_only_its_connection() {
    let t = TempDir::new("collect-bad");
    let store = store_dir(&t);
    let c = Collector::listen(t.path(), &["--store", store.to_str().unwrap()]);
    let mut good = c.connect();
    good.send(&hello_doc("h:4:1", 0));
    good.send(&batch(0, 3));
    good.wait_ack(0);

    let mut v2 = hello_doc("h:bad:1", 0);
    v2[hello_doc("h:bad:1", 0).windows(3).position(|w| w == b"v\0\x01").unwrap() + 2] = 2;
    let mut oversized = (17u32 << 20).to_le_bytes().to_vec();
    oversized.extend([0u8; 64]);
    let mut undeclared = hello_doc("h:bad:2", 0);
    let mut ev = Vec::new();
    push_record(&mut ev, 9, 1, &[]);
    undeclared.extend(encode_batch(
        &BatchHeader { seq: 0, thread: 1, tseq: 0, lost: 0, n: 1, clock: clock() },
        &ev,
    ));
    let mut backwards = hello_doc("h:bad:3", 0);
    backwards.extend(batch(1, 1));
    backwards.extend(batch(0, 1));
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("garbage", b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), "byte 0: "),
        ("version", v2, "unsupported stream format version 2"),
        ("oversized", oversized, "byte 0: "),
        ("before hello", batch(0, 1), "a stream starts with `hello`"),
        ("undeclared", undeclared, "event id 9 is not declared"),
        ("backwards", backwards, "batch 0 after batch 1"),
    ];
    for (what, bytes, want) in &cases {
        let mut bad = c.connect();
        bad.send(bytes);
        let mut got_error = None;
        while let Some(m) = bad.next() {
            match m {
                Message::Error(msg) => got_error = Some(msg),
                Message::Ack(_) => {}
                other => panic!("{what}: {other:?}"),
            }
        }
        let msg = got_error.unwrap_or_else(|| panic!("{what}: no error document"));
        assert!(msg.contains(want), "{what}: {msg}");
    }
    // A producer killed in the middle of a batch: what came before stays.
    // (Every ack read first: a socket closed with unread data is reset,
    // and a reset may discard what the collector had not read yet.)
    let mut cut = c.connect();
    cut.send(&hello_doc("h:cut:1", 0));
    cut.send(&batch(0, 4));
    cut.wait_ack(0);
    let b1 = batch(1, 4);
    cut.send(&b1[..b1.len() / 2]);
    drop(cut);

    good.send(&batch(1, 3));
    good.send(&end(2, 3));
    good.wait_ack(1);
    drop(good);
    let (code, _, err) = c.stop();
    assert_eq!(code, 0, "{err}");
    for (what, _, want) in &cases {
        assert!(err.contains(want), "{what}: stderr should name it: {err}");
    }
    assert!(err.contains("tcp:127.0.0.1:"), "the peer is named: {err}");
    assert!(err.contains("truncated document"), "the cut batch is named: {err}");
    let s = summary(&store);
    let g = producer_of(&s, "h:4:1");
    assert_eq!(g["complete"], true, "{s}");
    assert_eq!(g["events"]["stored"], 6);
    let cut = producer_of(&s, "h:cut:1");
    assert_eq!(cut["events"]["stored"], 4, "the whole batch before the cut is kept: {s}");
    assert_eq!(cut["ended"], false);
}

#[test]
fn check_reports_violations_as_they_happen() {
    let t = TempDir::new("collect-check");
    let bind = mutex_binding(t.path());
    let c = Collector::listen(t.path(), &["--check", bind.to_str().unwrap(), "--json"]);
    let mut p = c.connect();
    p.send(&hello_doc("h:5:1", 0));
    // Thread 7: lock(m) ok, unlock(m), unlock(m) again: the second unlock
    // is not allowed in state unlocked.
    let mut ev = Vec::new();
    push_record(&mut ev, 0, 10, &[0xabc]);
    push_record(&mut ev, 1, 11, &[0]);
    push_record(&mut ev, 2, 12, &[0xabc]);
    push_record(&mut ev, 2, 13, &[0xabc]);
    p.send(&encode_batch(
        &BatchHeader { seq: 0, thread: 7, tseq: 0, lost: 0, n: 4, clock: clock() },
        &ev,
    ));
    p.send(&encode_end(&End { seq: 1, threads: vec![ThreadTotals { thread: 7, produced: 4, lost: 0 }] }));
    p.wait_ack(0);
    drop(p);
    let (code, out, err) = c.stop();
    assert_eq!(code, 1, "violations make exit status 1: {err}");
    let v: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(v.len(), 1, "{out}");
    assert_eq!(v[0]["state"], "unlocked");
    assert_eq!(v[0]["event"], "unlock");
    assert_eq!(v[0]["engine"], "collect");
    assert_eq!(v[0]["key"]["value"], 0xabc);
    assert_eq!(v[0]["pid"], 7, "pid is the thread");
    assert_eq!(v[0]["tseq"], 3);
    assert_eq!(v[0]["stream_event"], "entry pthread_mutex_unlock");
    assert_eq!(v[0]["source"], "call:pthread_mutex_unlock");
    assert!(v[0]["rule"].as_str().unwrap().ends_with("m.bind:4"), "{}", v[0]);
}

#[test]
fn import_and_export() {
    let t = TempDir::new("collect-import");
    let store = store_dir(&t);
    let file = t.path().join("s.bson");
    let mut s = hello_doc("h:6:1", 0);
    for seq in 0..4 {
        s.extend(batch(seq, 2));
    }
    s.extend(encode_mark(5_000));
    s.extend(end(4, 2));
    std::fs::write(&file, &s).unwrap();
    let out = Command::new(VIGIL)
        .args(["collect", "--import"])
        .arg(&file)
        .arg("--store")
        .arg(&store)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(producer_of(&summary(&store), "h:6:1")["complete"], true);
    // A truncated file: refused (exit 2, named), what came before stored.
    let cut = t.path().join("cut.bson");
    let mut c = hello_doc("h:6:2", 0);
    c.extend(batch(0, 2));
    let b = batch(1, 2);
    c.extend(&b[..b.len() - 3]);
    std::fs::write(&cut, &c).unwrap();
    let out = Command::new(VIGIL)
        .args(["collect", "--import"])
        .arg(&cut)
        .arg("--store")
        .arg(&store)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cut.bson") && err.contains("truncated document"), "{err}");
    assert_eq!(producer_of(&summary(&store), "h:6:2")["events"]["stored"], 2);
    // Chrome trace: valid JSON, a slice start per entry event, the process named.
    let trace = t.path().join("t.json");
    let out = Command::new(VIGIL)
        .args(["collect", "--store"])
        .arg(&store)
        .arg("--export-trace")
        .arg(&trace)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
    let evs = j["traceEvents"].as_array().unwrap();
    assert_eq!(evs.iter().filter(|e| e["ph"] == "B").count(), 8 + 2);
    assert!(evs.iter().any(|e| e["ph"] == "M" && e["args"]["name"].as_str().unwrap().contains("/bin/test-producer")));
    assert!(evs.iter().any(|e| e["name"] == "pthread_mutex_unlock" && e["args"]["arg0"] == 0x1000));
}
