//! Where a connection's acknowledgements go ([`AckSink`]), and the
//! socket's sink: writing acknowledgements (and a last `error`) to a
//! producer without ever blocking the store thread: `send(MSG_DONTWAIT)`
//! on the connection's socket, the unsent rest kept for the next try.
//! Acks are cumulative ("every batch up to N"), so while one is stuck a
//! newer one replaces whatever has not started leaving.
//!
//! The store thread ([`crate::ingest`]) acknowledges what its commits made
//! durable to a connection's sink; with `--nats` the sink is a gate that
//! also waits for JetStream (`nats::gate`).

use std::os::fd::{AsRawFd, OwnedFd};

use vigil_stream::{encode_ack, encode_error};

/// A producer connection's acknowledgements, as the store thread gives
/// them.  Never blocks.
pub trait AckSink: Send {
    /// Every batch of the connection up to `seq` is durable here.
    fn ack(&mut self, seq: i64);
    /// Whether something is still waiting to be written.
    fn pending(&self) -> bool;
    /// Tries again to write what is waiting.
    fn flush(&mut self);
    /// The connection is refused: pending acks, then `msg`, then the end.
    fn refuse(&mut self, msg: &str);
}

/// What a connection's hello carries to the store thread.
pub type Acks = Box<dyn AckSink>;

impl AckSink for AckWriter {
    fn ack(&mut self, seq: i64) {
        AckWriter::ack(self, seq)
    }
    fn pending(&self) -> bool {
        AckWriter::pending(self)
    }
    fn flush(&mut self) {
        AckWriter::flush(self)
    }
    fn refuse(&mut self, msg: &str) {
        AckWriter::refuse(self, msg)
    }
}

pub struct AckWriter {
    fd: OwnedFd,
    /// Bytes of a document that started leaving, not all gone yet.
    out: Vec<u8>,
    /// The newest ack not yet written.
    next: Option<i64>,
    /// The socket failed: the reader sees it too.
    broken: bool,
}

impl AckWriter {
    /// `fd`: a duplicate of the connection's socket (the reader keeps its own).
    pub fn new(fd: OwnedFd) -> AckWriter {
        AckWriter {
            fd,
            out: Vec::new(),
            next: None,
            broken: false,
        }
    }

    pub fn ack(&mut self, seq: i64) {
        self.next = Some(self.next.map_or(seq, |n| n.max(seq)));
        self.flush();
    }

    /// Whether something is still waiting to be written.
    pub fn pending(&self) -> bool {
        !self.broken && (!self.out.is_empty() || self.next.is_some())
    }

    pub fn flush(&mut self) {
        loop {
            if self.broken {
                return;
            }
            if self.out.is_empty() {
                match self.next.take() {
                    Some(seq) => self.out = encode_ack(seq),
                    None => return,
                }
            }
            // SAFETY: a valid buffer of out.len() bytes on an open socket.
            let n = unsafe {
                libc::send(
                    self.fd.as_raw_fd(),
                    self.out.as_ptr().cast(),
                    self.out.len(),
                    libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
                )
            };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                match e.kind() {
                    std::io::ErrorKind::WouldBlock => return,
                    std::io::ErrorKind::Interrupted => continue,
                    _ => {
                        self.broken = true;
                        return;
                    }
                }
            }
            self.out.drain(..n as usize);
        }
    }

    /// The refusal: pending acks first (what is stored stays acknowledged),
    /// then the error, then the connection is shut down (the reader's next
    /// read ends).  Best effort, bounded: a peer that reads nothing gets
    /// the shutdown alone.
    pub fn refuse(&mut self, msg: &str) {
        self.flush();
        if !self.broken && self.out.is_empty() {
            self.out = encode_error(msg);
            self.flush();
        }
        // SAFETY: shutting down our own socket.
        unsafe { libc::shutdown(self.fd.as_raw_fd(), libc::SHUT_RDWR) };
        self.broken = true;
    }
}
