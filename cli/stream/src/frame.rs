//! Cutting a stream into documents: each starts with its length, a
//! little-endian int32 that counts the whole document (itself included).
//!
//! * [`read_document`]: one document from a blocking reader;
//! * [`Framer`]: a blocking reader's documents and messages, with the
//!   peer's name and stream offsets for errors;
//! * [`Decoder`]: the same from bytes as they arrive ([`Decoder::push`]),
//!   for a non-blocking or async socket.
//!
//! A clean end of the stream is an end at a document boundary.  A length
//! below 5 or above the limit ([`MAX_DOCUMENT_LEN`]) is refused as soon as
//! the 4 bytes of the length are there, before anything more is read or
//! buffered.  Every document is checked as BSON in full before it is
//! returned.  After a fatal error ([`ErrorKind::is_fatal`]: the framing is
//! lost) a [`Framer`] or [`Decoder`] returns that error again; after a
//! document that is not BSON or not of this format, the next one can be
//! read.

use std::io::{self, Read};
use std::sync::Arc;

use bson::raw::RawDocumentBuf;

use crate::error::{ErrorKind, Result, StreamError};
use crate::message::{parse_valid, Message, Origin};
use crate::raw;

/// The largest document accepted by default: 16 MiB (BSON's customary
/// limit), length prefix included.
pub const MAX_DOCUMENT_LEN: usize = 16 * 1024 * 1024;

/// The smallest BSON document: a length and the terminating 0.
const MIN_DOCUMENT_LEN: usize = 5;

/// The length a prefix announces, if acceptable.
fn check_len(prefix: [u8; 4], max_len: usize, offset: u64) -> Result<usize> {
    let len = i32::from_le_bytes(prefix);
    if len < MIN_DOCUMENT_LEN as i32 {
        return Err(StreamError::new(
            ErrorKind::BadLength,
            offset,
            format!("document length {len} is below 5, the smallest BSON document"),
        ));
    }
    if len as usize > max_len {
        return Err(StreamError::new(
            ErrorKind::Oversized,
            offset,
            format!("oversized document: {len} bytes, the limit is {max_len}"),
        ));
    }
    Ok(len as usize)
}

fn truncated_prefix(offset: u64, have: usize) -> StreamError {
    StreamError::new(
        ErrorKind::Truncated,
        offset,
        format!("truncated document: the stream ends {have} bytes into its 4-byte length"),
    )
}

fn truncated_body(offset: u64, have: usize, len: usize) -> StreamError {
    StreamError::new(
        ErrorKind::Truncated,
        offset,
        format!("truncated document: the stream ends after {have} of its {len} bytes"),
    )
}

fn io_error(e: &io::Error, offset: u64) -> StreamError {
    StreamError::new(ErrorKind::Io(e.kind()), offset, format!("read error: {e}"))
}

/// A whole document's bytes (length checked) as a document checked as
/// BSON; errors at `offset` + their place in it.
fn to_document(bytes: Vec<u8>, offset: u64) -> Result<RawDocumentBuf> {
    let len = bytes.len();
    if bytes.last() != Some(&0) {
        return Err(StreamError::new(
            ErrorKind::Bson,
            offset + len.saturating_sub(1) as u64,
            "invalid BSON: the document does not end with a 0 byte",
        ));
    }
    let doc = RawDocumentBuf::from_bytes(bytes)
        .map_err(|e| StreamError::new(ErrorKind::Bson, offset, format!("invalid BSON: {e}")))?;
    raw::validate(&doc).map_err(|e| e.shifted(offset))?;
    Ok(doc)
}

/// Reads one document from `r`; `Ok(None)` at a clean end (no byte
/// before the end).  Error offsets are from where `r` was when called.
/// A document longer than `max_len` bytes is refused.
pub fn read_document<R: Read + ?Sized>(
    r: &mut R,
    max_len: usize,
) -> Result<Option<RawDocumentBuf>> {
    match read_frame(r, max_len, 0)? {
        None => Ok(None),
        Some(bytes) => to_document(bytes, 0).map(Some),
    }
}

/// The bytes of one document (its length checked, not its contents)
/// starting at stream offset `offset`.
fn read_frame<R: Read + ?Sized>(r: &mut R, max_len: usize, offset: u64) -> Result<Option<Vec<u8>>> {
    let mut prefix = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match r.read(&mut prefix[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_error(&e, offset + got as u64)),
        }
    }
    match got {
        0 => return Ok(None),
        1..=3 => return Err(truncated_prefix(offset, got)),
        _ => {}
    }
    let len = check_len(prefix, max_len, offset)?;
    // Grown as bytes come (a lying length costs what was sent, not what it
    // announces).
    let mut buf = Vec::with_capacity(len.min(64 * 1024));
    buf.extend_from_slice(&prefix);
    if let Err(e) = Read::take(&mut *r, (len - 4) as u64).read_to_end(&mut buf) {
        return Err(io_error(&e, offset + buf.len() as u64));
    }
    if buf.len() < len {
        return Err(truncated_body(offset, buf.len(), len));
    }
    Ok(Some(buf))
}

/// The documents and messages of a blocking reader (a file, a blocking
/// socket; put a `BufReader` in front of an unbuffered one).  Errors name
/// the peer and the stream offset.  As an [`Iterator`], stops after the
/// first error.
pub struct Framer<R> {
    reader: R,
    peer: Arc<str>,
    max_len: usize,
    /// Stream offset of the next document.
    offset: u64,
    /// Stream offset of the last document returned.
    doc_offset: u64,
    failed: Option<StreamError>,
    /// The iterator is over.
    stopped: bool,
}

impl<R: Read> Framer<R> {
    /// `peer` names the stream in errors (an address, a path).
    pub fn new(reader: R, peer: &str) -> Self {
        Framer {
            reader,
            peer: Arc::from(peer),
            max_len: MAX_DOCUMENT_LEN,
            offset: 0,
            doc_offset: 0,
            failed: None,
            stopped: false,
        }
    }

    /// Refuses documents longer than `max_len` bytes (default
    /// [`MAX_DOCUMENT_LEN`]).
    pub fn with_max_len(mut self, max_len: usize) -> Self {
        self.max_len = max_len;
        self
    }

    pub fn peer(&self) -> &str {
        &self.peer
    }

    /// Bytes consumed: the stream offset of the next document.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The stream offset of the last document returned.
    pub fn document_offset(&self) -> u64 {
        self.doc_offset
    }

    pub fn get_ref(&self) -> &R {
        &self.reader
    }

    /// The reader (a socket: to write acknowledgements on it).
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    pub fn into_inner(self) -> R {
        self.reader
    }

    /// The next document, checked as BSON; `Ok(None)` at a clean end.
    pub fn next_document(&mut self) -> Result<Option<RawDocumentBuf>> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let bytes = match read_frame(&mut self.reader, self.max_len, self.offset) {
            Ok(Some(b)) => b,
            Ok(None) => return Ok(None),
            Err(e) => {
                let e = e.with_peer(&self.peer);
                self.failed = Some(e.clone());
                return Err(e);
            }
        };
        self.doc_offset = self.offset;
        self.offset += bytes.len() as u64;
        to_document(bytes, self.doc_offset)
            .map(Some)
            .map_err(|e| e.with_peer(&self.peer))
    }

    /// The next message; `Ok(None)` at a clean end.
    pub fn next_message(&mut self) -> Result<Option<Message>> {
        let Some(doc) = self.next_document()? else {
            return Ok(None);
        };
        let origin = Origin {
            peer: self.peer.clone(),
            offset: self.doc_offset,
        };
        parse_valid(doc, origin).map(Some)
    }
}

impl<R: Read> Iterator for Framer<R> {
    type Item = Result<Message>;

    fn next(&mut self) -> Option<Result<Message>> {
        if self.stopped {
            return None;
        }
        match self.next_message() {
            Ok(Some(m)) => Some(Ok(m)),
            Ok(None) => {
                self.stopped = true;
                None
            }
            Err(e) => {
                self.stopped = true;
                Some(Err(e))
            }
        }
    }
}

/// The documents and messages of a stream whose bytes are handed over as
/// they arrive: [`push`](Decoder::push) what a read returned, then call
/// [`next`](Decoder::next) until it returns `Ok(None)` (more bytes
/// needed); at the end of the stream, [`finish`](Decoder::finish) says
/// whether it ended inside a document.  Whatever the chunking, the
/// messages and errors are the same as [`Framer`]'s.
#[derive(Debug)]
pub struct Decoder {
    peer: Arc<str>,
    max_len: usize,
    buf: Vec<u8>,
    /// The first unread byte in `buf`.
    start: usize,
    /// Stream offset of `buf[start]`.
    offset: u64,
    /// Stream offset of the last document returned.
    doc_offset: u64,
    failed: Option<StreamError>,
}

impl Decoder {
    /// `peer` names the stream in errors (an address, a path).
    pub fn new(peer: &str) -> Self {
        Decoder {
            peer: Arc::from(peer),
            max_len: MAX_DOCUMENT_LEN,
            buf: Vec::new(),
            start: 0,
            offset: 0,
            doc_offset: 0,
            failed: None,
        }
    }

    /// Refuses documents longer than `max_len` bytes (default
    /// [`MAX_DOCUMENT_LEN`]).
    pub fn with_max_len(mut self, max_len: usize) -> Self {
        self.max_len = max_len;
        self
    }

    pub fn peer(&self) -> &str {
        &self.peer
    }

    /// Bytes consumed: the stream offset of the next document.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The stream offset of the last document returned.
    pub fn document_offset(&self) -> u64 {
        self.doc_offset
    }

    /// Bytes received and not yet returned as a document.
    pub fn buffered(&self) -> usize {
        self.buf.len() - self.start
    }

    /// Hands over the next bytes of the stream (ignored after a fatal
    /// error).
    pub fn push(&mut self, data: &[u8]) {
        if self.failed.is_some() || data.is_empty() {
            return;
        }
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        self.buf.extend_from_slice(data);
    }

    fn fail(&mut self, e: StreamError) -> StreamError {
        let e = e.with_peer(&self.peer);
        self.failed = Some(e.clone());
        e
    }

    /// The next whole document, checked as BSON; `Ok(None)` until its last
    /// byte has been pushed.
    pub fn next_document(&mut self) -> Result<Option<RawDocumentBuf>> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let avail = &self.buf[self.start..];
        if avail.len() < 4 {
            return Ok(None);
        }
        let prefix = [avail[0], avail[1], avail[2], avail[3]];
        let len = match check_len(prefix, self.max_len, self.offset) {
            Ok(len) => len,
            Err(e) => return Err(self.fail(e)),
        };
        if avail.len() < len {
            return Ok(None);
        }
        let bytes = if self.start == 0 && len == self.buf.len() {
            // The buffer is the document: no copy.
            std::mem::take(&mut self.buf)
        } else {
            let b = avail[..len].to_vec();
            self.start += len;
            if self.start == self.buf.len() {
                self.buf.clear();
                self.start = 0;
            }
            b
        };
        self.doc_offset = self.offset;
        self.offset += len as u64;
        to_document(bytes, self.doc_offset)
            .map(Some)
            .map_err(|e| e.with_peer(&self.peer))
    }

    /// The next message; `Ok(None)` until a whole document has been pushed.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<Message>> {
        let Some(doc) = self.next_document()? else {
            return Ok(None);
        };
        let origin = Origin {
            peer: self.peer.clone(),
            offset: self.doc_offset,
        };
        parse_valid(doc, origin).map(Some)
    }

    /// The stream has ended: an error if it ended inside a document (or if
    /// a fatal error came before).  Call it once [`next`](Decoder::next)
    /// returned `Ok(None)`; a whole document still buffered is not an
    /// error (`next` returns it).
    pub fn finish(&mut self) -> Result<()> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let avail = &self.buf[self.start..];
        let e = match avail.len() {
            0 => return Ok(()),
            n @ 1..=3 => truncated_prefix(self.offset, n),
            n => {
                let prefix = [avail[0], avail[1], avail[2], avail[3]];
                match check_len(prefix, self.max_len, self.offset) {
                    Err(e) => e,
                    Ok(len) if n >= len => return Ok(()),
                    Ok(len) => truncated_body(self.offset, n, len),
                }
            }
        };
        Err(self.fail(e))
    }
}
