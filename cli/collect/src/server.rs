//! Listening: any number of TCP and Unix endpoints, one thread per
//! connection (producers are processes, tens to hundreds, each sending
//! large batches: a thread each is simple and costs nothing that matters),
//! and an orderly stop that still acknowledges what was stored.

use std::collections::HashMap;
use std::io;
use std::net::{TcpListener, TcpStream};
use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::acks::AckWriter;
use crate::addr::Endpoint;
use crate::conn;
use crate::error::{Context, Error, Result};
use crate::ingest::Work;

pub enum Listener {
    Tcp(TcpListener),
    Unix(UnixListener, PathBuf),
}

/// A bound listener and the address producers use for it.
pub struct Bound {
    pub listener: Listener,
    pub addr: String,
}

pub fn bind(endpoints: &[Endpoint]) -> Result<Vec<Bound>> {
    let mut out = Vec::new();
    for e in endpoints {
        let (listener, addr) = match e {
            Endpoint::Tcp(hp) => {
                let l = TcpListener::bind(hp).ctx(|| format!("listening on tcp://{hp}"))?;
                let a = l.local_addr().ctx(|| format!("tcp://{hp}"))?;
                (Listener::Tcp(l), format!("tcp://{a}"))
            }
            Endpoint::Unix(p) => {
                remove_stale_socket(p)?;
                let l = UnixListener::bind(p).ctx(|| format!("listening on unix:{}", p.display()))?;
                (Listener::Unix(l, p.clone()), format!("unix:{}", p.display()))
            }
        };
        out.push(Bound { listener, addr });
    }
    Ok(out)
}

/// A socket file nobody listens on (a collector that died) is replaced;
/// anything else at the path is an error.
fn remove_stale_socket(p: &PathBuf) -> Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(meta) = std::fs::symlink_metadata(p) else { return Ok(()) };
    if !meta.file_type().is_socket() {
        return Err(Error(format!("unix:{}: exists and is not a socket", p.display())));
    }
    if UnixStream::connect(p).is_ok() {
        return Err(Error(format!("unix:{}: another collector listens there", p.display())));
    }
    std::fs::remove_file(p).ctx(|| format!("removing stale socket {}", p.display()))
}

/// Connections being read, so that a stop can end their reads.
#[derive(Default)]
struct Open {
    fds: Mutex<HashMap<u64, OwnedFd>>,
    stopping: AtomicBool,
}

impl Open {
    fn add(&self, id: u64, fd: OwnedFd) {
        self.fds.lock().unwrap().insert(id, fd);
    }
    fn remove(&self, id: u64) {
        self.fds.lock().unwrap().remove(&id);
    }
    /// Ends every read: the connection threads see the end of their
    /// streams and finish (whole documents received so far are stored).
    fn stop_reading(&self) {
        self.stopping.store(true, Ordering::Relaxed);
        for fd in self.fds.lock().unwrap().values() {
            // SAFETY: shutting down a socket we hold a descriptor of.
            unsafe { libc::shutdown(fd.as_raw_fd(), libc::SHUT_RD) };
        }
    }
    fn count(&self) -> usize {
        self.fds.lock().unwrap().len()
    }
}

/// Why the accept loop returns.
pub struct Until<'a> {
    pub stop: &'a AtomicBool,
    /// Stop once this holds (e.g. N streams ended), checked every 50 ms.
    pub done: &'a dyn Fn() -> bool,
    pub deadline: Option<Instant>,
}

static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

pub fn next_conn_id() -> u64 {
    NEXT_CONN.fetch_add(1, Ordering::Relaxed)
}

/// Accepts until told to stop, then ends every connection's reads and
/// waits (a few seconds at most) for their threads to hand everything
/// over.
pub fn serve(bound: &[Bound], tx: &SyncSender<Work>, until: Until<'_>) -> Result<()> {
    let open = Arc::new(Open::default());
    for b in bound {
        match &b.listener {
            Listener::Tcp(l) => l.set_nonblocking(true),
            Listener::Unix(l, _) => l.set_nonblocking(true),
        }
        .ctx(|| b.addr.clone())?;
    }
    let mut threads = Vec::new();
    loop {
        if until.stop.load(Ordering::Relaxed)
            || (until.done)()
            || until.deadline.is_some_and(|d| Instant::now() >= d)
        {
            break;
        }
        if !wait_readable(bound, 50) {
            continue;
        }
        for b in bound {
            while let Some((peer, reader, acks, fd)) = accept(&b.listener)? {
                let id = next_conn_id();
                open.add(id, fd);
                let (tx, open) = (tx.clone(), open.clone());
                threads.push(std::thread::Builder::new().name("vigil-conn".into()).spawn(move || {
                    conn::serve(id, peer.into(), reader, Some(acks), &tx, &open.stopping);
                    open.remove(id);
                }).ctx(|| "starting a connection thread")?);
            }
        }
        threads.retain(|t| !t.is_finished());
    }
    open.stop_reading();
    let give_up = Instant::now() + Duration::from_secs(5);
    while open.count() > 0 && Instant::now() < give_up {
        std::thread::sleep(Duration::from_millis(10));
    }
    for b in bound {
        if let Listener::Unix(_, p) = &b.listener {
            let _ = std::fs::remove_file(p);
        }
    }
    Ok(())
}

fn wait_readable(bound: &[Bound], ms: i32) -> bool {
    let mut fds: Vec<libc::pollfd> = bound
        .iter()
        .map(|b| libc::pollfd {
            fd: match &b.listener {
                Listener::Tcp(l) => l.as_raw_fd(),
                Listener::Unix(l, _) => l.as_raw_fd(),
            },
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: a valid array of pollfd.
    unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) > 0 }
}

type Accepted = (String, Box<dyn io::Read + Send>, AckWriter, OwnedFd);

fn accept(l: &Listener) -> Result<Option<Accepted>> {
    let r = match l {
        Listener::Tcp(l) => l.accept().map(|(s, a)| {
            let _ = s.set_nodelay(true);
            (format!("tcp:{a}"), Stream::Tcp(s))
        }),
        Listener::Unix(l, p) => l.accept().map(|(s, _)| {
            let who = peer_pid(s.as_raw_fd()).map_or(String::new(), |pid| format!(" (pid {pid})"));
            (format!("unix:{}{who}", p.display()), Stream::Unix(s))
        }),
    };
    let (peer, s) = match r {
        Ok(x) => x,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
        Err(e) if e.kind() == io::ErrorKind::Interrupted => return Ok(None),
        Err(e) => {
            eprintln!("vigil collect: accept: {e}");
            return Ok(None);
        }
    };
    let fd = s.fd().try_clone_to_owned().ctx(|| peer.clone())?;
    let ack_fd = s.fd().try_clone_to_owned().ctx(|| peer.clone())?;
    let reader: Box<dyn io::Read + Send> = match s {
        Stream::Tcp(s) => {
            s.set_nonblocking(false).ctx(|| peer.clone())?;
            Box::new(s)
        }
        Stream::Unix(s) => {
            s.set_nonblocking(false).ctx(|| peer.clone())?;
            Box::new(s)
        }
    };
    Ok(Some((peer, reader, AckWriter::new(ack_fd), fd)))
}

enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Stream {
    fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        match self {
            Stream::Tcp(s) => s.as_fd(),
            Stream::Unix(s) => s.as_fd(),
        }
    }
}

fn peer_pid(fd: RawFd) -> Option<i32> {
    let mut cred = libc::ucred { pid: 0, uid: 0, gid: 0 };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: SO_PEERCRED fills a ucred of `len` bytes.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    (r == 0 && cred.pid > 0).then_some(cred.pid)
}

/// Stores file streams (`file:` destinations, spill files) as if they had
/// arrived on connections, one after the other.
pub fn import(paths: &[PathBuf], tx: &SyncSender<Work>) -> Vec<(PathBuf, String)> {
    let mut failed = Vec::new();
    for p in paths {
        let peer: Arc<str> = p.display().to_string().into();
        match std::fs::File::open(p) {
            Ok(f) => {
                let never = AtomicBool::new(false);
                if let Some(msg) = conn::serve(next_conn_id(), peer, f, None, tx, &never) {
                    failed.push((p.clone(), msg));
                }
            }
            Err(e) => failed.push((p.clone(), e.to_string())),
        }
    }
    failed
}
