//! `vigil collect` scaled out through NATS JetStream, end to end: a real
//! nats-server on 127.0.0.1 (started here, on a free port, with its own
//! store directory; the tests are skipped, saying so, only when
//! `nats-server` is not installed), the real `vigil` binary as the
//! ingest collector (`--listen --nats`) and as group members
//! (`--nats --group`), producers written with vigil_stream's encoders.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use vigil::tempdir::TempDir;
use vigil_collect::nats::subjects::{partition, DEFAULT_PARTITIONS};
use vigil_stream::*;

mod common;
use common::*;

/// `--listen 127.0.0.1:0 --nats URL ...`, once it listens.
fn ingest(dir: &Path, url: &str, extra: &[&str]) -> Collector {
    let mut args = vec!["--nats", url];
    args.extend(extra);
    Collector::listen(dir, &args)
}

/// `--nats URL --group g --member M ...`.
fn member(dir: &Path, url: &str, m: &str, extra: &[&str]) -> Collector {
    let mut args = vec!["--nats", url, "--group", "g", "--member", m, "--commit-ms", "20"];
    args.extend(extra);
    Collector::spawn(dir, &args)
}

fn nats_installed() -> bool {
    let found = Command::new("nats-server").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: nats-server is not installed (Debian: apt-get install nats-server)");
    }
    found
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A nats-server with JetStream, killed when dropped.
struct Nats {
    child: Option<Child>,
    port: u16,
    dir: PathBuf,
}

impl Nats {
    fn start(dir: &Path) -> Nats {
        let mut n = Nats { child: None, port: free_port(), dir: dir.join("nats") };
        n.restart();
        n
    }

    /// Starts it (again: same port, same store).
    fn restart(&mut self) {
        let log = std::fs::File::create(self.dir.with_extension("log")).unwrap();
        let child = Command::new("nats-server")
            .args(["-js", "-a", "127.0.0.1", "-p", &self.port.to_string(), "-sd"])
            .arg(&self.dir)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("nats-server starts");
        self.child = Some(child);
        let until = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < until, "nats-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A `vigil collect` process; its stdout and stderr go to files.
/// A whole producer stream, acknowledged to its end.  `pause`: after
/// every 20 batches, so that the stream lasts a while.
fn produce(addr: &str, stream: &str, batches: i64, n: u32, pause: Duration) {
    let mut p = Producer::connect(addr);
    p.send(&hello_doc(stream, 0));
    for seq in 0..batches {
        p.send(&batch(seq, n));
        if seq % 20 == 19 {
            std::thread::sleep(pause);
        }
    }
    p.send(&end(batches, n as i64));
    p.wait_ack(batches - 1);
}

/// A plain NATS publish (the text protocol), as anyone could send to the
/// stream's subjects.
fn publish_raw(port: u16, subject: &str, payload: &[u8]) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    s.write_all(b"CONNECT {\"verbose\":false}\r\n").unwrap();
    s.write_all(format!("PUB {subject} {}\r\n", payload.len()).as_bytes()).unwrap();
    s.write_all(payload).unwrap();
    s.write_all(b"\r\nPING\r\n").unwrap();
    while !String::from_utf8_lossy(&got).contains("PONG") {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "nats-server closed: {}", String::from_utf8_lossy(&got));
        got.extend(&buf[..n]);
    }
}

/// The rows in a store's Parquet segments (--export-trace writes each).
fn rows(store: &Path) -> u64 {
    let trace = store.with_extension("trace.json");
    let out = Command::new(VIGIL).args(["collect", "--store"]).arg(store).arg("--export-trace").arg(&trace).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let n = err.split(" events written").next().unwrap().rsplit(' ').next().unwrap();
    n.parse().unwrap_or_else(|_| panic!("{err}"))
}

/// Every stream complete, every batch exactly once: `batches` batches of
/// `n` events each.
fn assert_complete(p: &serde_json::Value, batches: i64, n: i64) {
    assert_eq!(p["complete"], true, "{p}");
    assert_eq!(p["batches"]["stored"], batches, "{p}");
    assert_eq!(p["events"]["stored"], batches * n, "{p}");
    assert_eq!(p["events"]["produced"], batches * n, "{p}");
    assert_eq!(p["events"]["missing"], 0, "{p}");
}

#[test]
fn two_members_store_every_batch_once_between_them() {
    if !nats_installed() {
        return;
    }
    let t = TempDir::new("nats-roundtrip");
    let nats = Nats::start(t.path());
    let streams: Vec<String> = (0..6).map(|i| format!("h:rt:{i}")).collect();
    let member_of = |s: &str| partition(s, DEFAULT_PARTITIONS) % 2;
    let count = |m: u32| streams.iter().filter(|s| member_of(s) == m).count().to_string();
    let (n0, n1) = (count(0), count(1));
    assert!(n0 != "0" && n1 != "0", "both members get streams: {n0} and {n1}");
    let ingest = ingest(t.path(), &nats.url(), &[]);
    let stores = [t.path().join("s0"), t.path().join("s1")];
    let m0 = member(t.path(), &nats.url(), "0/2", &["--store", stores[0].to_str().unwrap(), "--streams", &n0]);
    let m1 = member(t.path(), &nats.url(), "1/2", &["--store", stores[1].to_str().unwrap(), "--streams", &n1]);
    let addr = ingest.addr().to_string();
    let threads: Vec<_> = streams
        .iter()
        .map(|s| {
            let (addr, s) = (addr.clone(), s.clone());
            std::thread::spawn(move || produce(&addr, &s, 60, 25, Duration::from_millis(5)))
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    for (m, c) in [m0, m1].into_iter().enumerate() {
        let (code, _, err) = c.wait(60);
        assert_eq!(code, 0, "member {m}: {err}");
        assert!(err.contains(&format!("member {m}/2 of group g: consuming partitions")), "{err}");
    }
    let (code, _, err) = ingest.stop();
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("publishing to JetStream at nats://127.0.0.1:"), "{err}");
    let held: Vec<Vec<serde_json::Value>> = stores.iter().map(|s| producers(&summary(s))).collect();
    for s in &streams {
        let whose: Vec<usize> = (0..2).filter(|&m| held[m].iter().any(|p| p["stream"] == s.as_str())).collect();
        assert_eq!(whose, vec![member_of(s) as usize], "{s} is in exactly its partition's member's store");
        let p = held[whose[0]].iter().find(|p| p["stream"] == s.as_str()).unwrap();
        assert_complete(p, 60, 25);
    }
    for (m, s) in stores.iter().enumerate() {
        assert_eq!(rows(s), held[m].len() as u64 * 60 * 25, "member {m}'s segments hold each event once");
    }
}

#[test]
fn a_member_killed_and_restarted_loses_and_duplicates_nothing() {
    if !nats_installed() {
        return;
    }
    let t = TempDir::new("nats-kill");
    let nats = Nats::start(t.path());
    let ingest = ingest(t.path(), &nats.url(), &[]);
    let store = t.path().join("store");
    let args = ["--store", store.to_str().unwrap(), "--streams", "3"];
    let m = member(t.path(), &nats.url(), "0/1", &args);
    let addr = ingest.addr().to_string();
    let streams: Vec<String> = (0..3).map(|i| format!("h:kill:{i}")).collect();
    let threads: Vec<_> = streams
        .iter()
        .map(|s| {
            let (addr, s) = (addr.clone(), s.clone());
            std::thread::spawn(move || produce(&addr, &s, 400, 40, Duration::from_millis(15)))
        })
        .collect();
    // Killed once it stored some, while the producers still send.
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let stored: i64 = if store.join("catalog.sqlite").exists() {
            producers(&summary(&store)).iter().map(|p| p["events"]["stored"].as_i64().unwrap()).sum()
        } else {
            0
        };
        if stored > 0 {
            assert!(stored < 3 * 400 * 40, "killed mid-way");
            break;
        }
        assert!(Instant::now() < until, "the member stored nothing: {}", m.stderr());
        std::thread::sleep(Duration::from_millis(20));
    }
    let first = m.kill9();
    let m = member(t.path(), &nats.url(), "0/1", &args);
    threads.into_iter().for_each(|t| t.join().unwrap());
    let (code, _, err) = m.wait(90);
    assert_eq!(code, 0, "first run: {first}\nrestarted: {err}");
    eprintln!("the restarted member:\n{err}");
    let s = summary(&store);
    for st in &streams {
        let p = producers(&s).into_iter().find(|p| p["stream"] == st.as_str()).unwrap_or_else(|| panic!("{st}: {s}"));
        assert_complete(&p, 400, 40);
    }
    assert_eq!(rows(&store), 3 * 400 * 40, "each event stored once in the segments");
    let (code, _, err) = ingest.stop();
    assert_eq!(code, 0, "{err}");
}

#[test]
fn producers_are_acknowledged_only_once_jetstream_stored_their_batches() {
    if !nats_installed() {
        return;
    }
    let t = TempDir::new("nats-ackrule");
    // Not started yet: its port is known.
    let mut nats = Nats { child: None, port: free_port(), dir: t.path().join("nats") };
    let ingest = ingest(t.path(), &nats.url(), &["--store", t.path().join("local").to_str().unwrap()]);
    let mut p = Producer::connect(ingest.addr());
    p.send(&hello_doc("h:ack:1", 0));
    for seq in 0..5 {
        p.send(&batch(seq, 10));
    }
    let early = p.acks_within(2500);
    assert!(early.is_none_or(|n| n < 0), "acknowledged {early:?} before JetStream ran: {}", ingest.stderr());
    nats.restart();
    p.wait_ack(4);
    // JetStream stops: later batches wait; it comes back: they are
    // published (again) and acknowledged.
    nats.kill();
    for seq in 5..10 {
        p.send(&batch(seq, 10));
    }
    let during = p.acks_within(3000);
    assert!(during.is_none_or(|n| n <= 4), "acknowledged {during:?} while JetStream was down");
    nats.restart();
    p.wait_ack(9);
    // The producer keeps its `end` until an ack follows it: one comes once
    // JetStream and the store hold the end, although not a newer one.
    p.send(&end(10, 10));
    assert_eq!(p.next_ack(), Some(9), "an ack after the end");
    drop(p);
    let (code, _, err) = ingest.stop();
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("waiting for NATS at nats://127.0.0.1:"), "{err}");
    assert!(err.contains("disconnected; reconnecting"), "{err}");
    // Everything is in JetStream, once: a member stores it.
    let store = t.path().join("store");
    let m = member(t.path(), &nats.url(), "0/1", &["--store", store.to_str().unwrap(), "--streams", "1"]);
    let (code, _, err) = m.wait(60);
    assert_eq!(code, 0, "{err}");
    assert_complete(&producers(&summary(&store))[0], 10, 10);
    assert_eq!(rows(&store), 100);
}

#[test]
fn check_on_a_member_reports_a_violation_that_went_through_nats() {
    if !nats_installed() {
        return;
    }
    let t = TempDir::new("nats-check");
    let nats = Nats::start(t.path());
    let bind = mutex_binding(t.path());
    let ingest = ingest(t.path(), &nats.url(), &[]);
    let until = Instant::now() + Duration::from_secs(20);
    while !ingest.stderr().contains("publishing to JetStream") {
        assert!(Instant::now() < until, "{}", ingest.stderr());
        std::thread::sleep(Duration::from_millis(20));
    }
    // Not a document, first in the stream's partition: reported, skipped,
    // the partition goes on.
    let subject = format!("vigil.b.{}", partition("h:check:1", DEFAULT_PARTITIONS));
    publish_raw(nats.port, &subject, b"not a BSON document");
    let m = member(t.path(), &nats.url(), "0/1", &["--check", bind.to_str().unwrap(), "--json", "--streams", "1"]);
    let mut p = Producer::connect(ingest.addr());
    p.send(&hello_doc("h:check:1", 0));
    // lock(m) ok, unlock(m), unlock(m) again: not allowed when unlocked.
    let mut ev = Vec::new();
    push_record(&mut ev, 0, 10, &[0xabc]);
    push_record(&mut ev, 1, 11, &[0]);
    push_record(&mut ev, 2, 12, &[0xabc]);
    push_record(&mut ev, 2, 13, &[0xabc]);
    let header = BatchHeader { seq: 0, thread: 7, tseq: 0, lost: 0, n: 4, clock: Clock { tsc: 0, ns: 0, ns_per_tick: 1.0 } };
    p.send(&encode_batch(&header, &ev));
    p.send(&encode_end(&End { seq: 1, threads: vec![ThreadTotals { thread: 7, produced: 4, lost: 0 }] }));
    p.wait_ack(0);
    let (code, out, err) = m.wait(60);
    assert_eq!(code, 1, "a violation makes exit status 1: {err}");
    let v: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(v.len(), 1, "{out}");
    assert_eq!(v[0]["state"], "unlocked");
    assert_eq!(v[0]["event"], "unlock");
    assert_eq!(v[0]["engine"], "collect");
    assert_eq!(v[0]["key"]["value"], 0xabc);
    assert_eq!(v[0]["pid"], 7, "pid is the thread");
    assert_eq!(v[0]["tseq"], 3);
    assert!(err.contains(&format!("{subject} message 1 (producer stream not named): ")) && err.contains("; skipped"), "{err}");
    assert!(err.contains("(1 skipped, 0 redelivered)"), "{err}");
    drop(p);
    let (code, _, err) = ingest.stop();
    assert_eq!(code, 0, "{err}");
}
