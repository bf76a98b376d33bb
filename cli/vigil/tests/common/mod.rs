//! What the collector's end-to-end tests share: the real `vigil collect`
//! as a child process, and a producer written with vigil_stream's
//! encoders that can make every case of the protocol happen exactly.
#![allow(dead_code)] // each test file uses its part

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use vigil_stream::*;

pub const VIGIL: &str = env!("CARGO_BIN_EXE_vigil");

/// `vigil collect ARGS`, its output in files of `dir`.
pub struct Collector {
    child: Child,
    out: PathBuf,
    err: PathBuf,
    addr: Option<String>,
}

static NEXT: AtomicU32 = AtomicU32::new(0);

extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
}

impl Collector {
    pub fn spawn(dir: &Path, args: &[&str]) -> Collector {
        Collector::spawn_env(dir, args, &[])
    }

    /// As [`spawn`](Collector::spawn), with these environment variables.
    pub fn spawn_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Collector {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let (out, err) = (dir.join(format!("c{n}.out")), dir.join(format!("c{n}.err")));
        let child = Command::new(VIGIL)
            .arg("collect")
            .args(args)
            .envs(env.iter().copied())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .expect("vigil collect starts");
        Collector { child, out, err, addr: None }
    }

    /// `--listen 127.0.0.1:0 --commit-ms 20 ARGS`, once it listens.
    pub fn listen(dir: &Path, extra: &[&str]) -> Collector {
        Collector::listen_env(dir, &[&["--commit-ms", "20"], extra].concat(), &[])
    }

    /// `--listen 127.0.0.1:0 ARGS` with these environment variables, once
    /// it listens.
    pub fn listen_env(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Collector {
        let addr_file = dir.join(format!("addr-{}", NEXT.load(Ordering::Relaxed)));
        let mut args = vec!["--listen", "127.0.0.1:0", "--addr-file"];
        args.push(addr_file.to_str().unwrap());
        args.extend(extra);
        let mut c = Collector::spawn_env(dir, &args, env);
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(a) = std::fs::read_to_string(&addr_file) {
                if a.ends_with('\n') {
                    c.addr = Some(a.trim().strip_prefix("tcp://").unwrap().to_string());
                    return c;
                }
            }
            assert!(Instant::now() < until, "the collector did not start: {}", c.stderr());
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn addr(&self) -> &str {
        self.addr.as_deref().expect("a listening collector")
    }

    pub fn connect(&self) -> Producer {
        Producer::connect(self.addr())
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.err).unwrap_or_default()
    }

    /// Waits (at most `secs`) for its exit: status, stdout, stderr.
    pub fn wait(mut self, secs: u64) -> (i32, String, String) {
        let until = Instant::now() + Duration::from_secs(secs);
        let st = loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                break st;
            }
            if Instant::now() >= until {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("vigil collect did not finish in {secs} s: {}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let out = std::fs::read_to_string(&self.out).unwrap_or_default();
        (st.code().unwrap_or(-1), out, self.stderr())
    }

    /// SIGTERM, then as [`wait`](Collector::wait).
    pub fn stop(self) -> (i32, String, String) {
        // SAFETY: signalling our own child.
        unsafe { libc_kill(self.child.id() as i32, 15) };
        self.wait(30)
    }

    pub fn kill9(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stderr()
    }
}

/// A test that fails leaves no collector behind.
impl Drop for Collector {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A producer's connection.
pub struct Producer {
    s: TcpStream,
    dec: Decoder,
}

impl Producer {
    pub fn connect(addr: &str) -> Producer {
        let s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        Producer { s, dec: Decoder::new("collector") }
    }

    pub fn send(&mut self, bytes: &[u8]) {
        self.s.write_all(bytes).unwrap();
    }

    /// Sends, unless the collector is gone.
    pub fn try_send(&mut self, bytes: &[u8]) -> bool {
        self.s.write_all(bytes).is_ok()
    }

    /// Reads acknowledgements until one covers `seq`: the newest, or None
    /// when the collector went away first.
    pub fn ack_or_gone(&mut self, seq: i64) -> Option<i64> {
        loop {
            let n = self.next_ack()?;
            if n >= seq {
                return Some(n);
            }
        }
    }

    /// The next message from the collector (None at its end of stream or
    /// after the read timeout).
    pub fn next(&mut self) -> Option<Message> {
        let mut buf = [0u8; 4096];
        loop {
            if let Some(m) = self.dec.next().expect("the collector's messages are valid") {
                return Some(m);
            }
            match self.s.read(&mut buf) {
                Ok(0) | Err(_) => return None,
                Ok(n) => self.dec.push(&buf[..n]),
            }
        }
    }

    pub fn next_ack(&mut self) -> Option<i64> {
        match self.next()? {
            Message::Ack(n) => Some(n),
            other => panic!("expected an ack, got {other:?}"),
        }
    }

    /// Reads acknowledgements until one covers `seq`.
    pub fn wait_ack(&mut self, seq: i64) {
        loop {
            match self.next_ack() {
                Some(n) if n >= seq => return,
                Some(_) => {}
                None => panic!("no ack {seq}"),
            }
        }
    }

    /// The newest acknowledgement that arrives within `ms`.
    pub fn acks_within(&mut self, ms: u64) -> Option<i64> {
        self.s.set_read_timeout(Some(Duration::from_millis(ms))).unwrap();
        let mut newest = None;
        while let Some(n) = self.next_ack() {
            newest = Some(n);
        }
        self.s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        newest
    }
}

/// A producer's hello: three events of pthread_mutex_*.
pub fn hello(stream: &str, resume: i64) -> Hello {
    let decl = |id, name: &str, kind, args: &[ArgType]| EventDecl {
        id,
        name: name.into(),
        kind,
        args: args.to_vec(),
        names: Vec::new(),
    };
    Hello {
        stream: stream.into(),
        program: "/bin/test-producer".into(),
        pid: 4242,
        host: "testhost".into(),
        mode: Mode::Lossless,
        resume,
        events: vec![
            decl(0, "pthread_mutex_lock", EventKind::Entry, &[ArgType::Ptr]),
            decl(1, "pthread_mutex_lock", EventKind::Return, &[ArgType::I64]),
            decl(2, "pthread_mutex_unlock", EventKind::Entry, &[ArgType::Ptr]),
        ],
    }
}

pub fn hello_doc(stream: &str, resume: i64) -> Vec<u8> {
    encode_hello(&hello(stream, resume))
}

pub fn clock() -> Clock {
    Clock { tsc: 0, ns: 0, ns_per_tick: 1.0 }
}

/// Batch `seq` of thread 100 + seq % 2: `n` unlock events, sequence
/// numbers following the thread's earlier batches.
pub fn batch(seq: i64, n: u32) -> Vec<u8> {
    let mut ev = Vec::new();
    for i in 0..n {
        push_record(&mut ev, 2, 1_000 + seq as u64 * 100 + i as u64, &[0x1000 + i as u64]);
    }
    let header = BatchHeader {
        seq,
        thread: 100 + seq % 2,
        tseq: (seq / 2) * n as i64,
        lost: 0,
        n,
        clock: clock(),
    };
    encode_batch(&header, &ev)
}

/// The end of `batches` batches of `n` events (as [`batch`] makes them).
pub fn end(batches: i64, n: i64) -> Vec<u8> {
    let per_thread = |t: i64| (0..batches).filter(|s| s % 2 == t).count() as i64 * n;
    encode_end(&End {
        seq: batches,
        threads: vec![
            ThreadTotals { thread: 100, produced: per_thread(0), lost: 0 },
            ThreadTotals { thread: 101, produced: per_thread(1), lost: 0 },
        ],
    })
}

/// `vigil collect --summary --json --store STORE`.
pub fn summary(store: &Path) -> serde_json::Value {
    let out = Command::new(VIGIL)
        .args(["collect", "--summary", "--json", "--store"])
        .arg(store)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

pub fn producers(s: &serde_json::Value) -> Vec<serde_json::Value> {
    s["producers"].as_array().cloned().unwrap_or_default()
}

pub fn producer_of<'a>(s: &'a serde_json::Value, stream: &str) -> &'a serde_json::Value {
    s["producers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["stream"] == stream)
        .unwrap_or_else(|| panic!("no producer {stream} in {s}"))
}

/// `DIR/m.bind`: vigil's mutex model over the events [`hello`] declares,
/// lock at a successful return of pthread_mutex_lock, unlock at the call
/// of pthread_mutex_unlock (rule on line 4), one instance per mutex.
pub fn mutex_binding(dir: &Path) -> PathBuf {
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    let bind = dir.join("m.bind");
    std::fs::write(
        &bind,
        format!(
            "model {}\nscope object\n\
             lock <- return:pthread_mutex_lock key=arg0 if ret == 0\n\
             unlock <- call:pthread_mutex_unlock key=arg0\n",
            models.join("mutex.dot").display()
        ),
    )
    .unwrap();
    bind
}
