//! [`StreamError`]: every refusal of a stream names who sent it and where.

use std::fmt;

/// What kind of problem a [`StreamError`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Reading the stream failed.
    Io(std::io::ErrorKind),
    /// The stream ends inside a document (or inside its length prefix).
    Truncated,
    /// A length prefix below 5, the smallest BSON document.
    BadLength,
    /// A document longer than the limit ([`crate::MAX_DOCUMENT_LEN`] by
    /// default).
    Oversized,
    /// The bytes of a document are not BSON (bsonspec.org 1.1).
    Bson,
    /// A `hello` of a format version other than [`crate::VERSION`].
    Version,
    /// BSON, but not a document of this format: unknown type, missing or
    /// mistyped field, bad value, malformed records, undeclared event.
    Format,
}

impl ErrorKind {
    /// After this error the stream cannot be cut into documents any more
    /// (the framing is lost or the stream is over); after the others the
    /// next document can still be read.
    pub fn is_fatal(self) -> bool {
        matches!(
            self,
            ErrorKind::Io(_) | ErrorKind::Truncated | ErrorKind::BadLength | ErrorKind::Oversized
        )
    }
}

/// A refused stream: `peer: byte N: message` (or `byte N: message` when
/// the peer is unknown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamError {
    pub kind: ErrorKind,
    /// Who sent the stream: a socket peer's address, a file's path; empty
    /// when unknown.
    pub peer: String,
    /// Byte offset in the stream (from its first byte) of what is wrong: a
    /// document's length prefix, the element of a bad field, a record of a
    /// batch's `ev`.
    pub offset: u64,
    pub message: String,
}

impl StreamError {
    pub fn new(kind: ErrorKind, offset: u64, message: impl Into<String>) -> Self {
        StreamError {
            kind,
            peer: String::new(),
            offset,
            message: message.into(),
        }
    }

    /// The same error, naming `peer`.
    pub fn with_peer(mut self, peer: &str) -> Self {
        self.peer = peer.to_string();
        self
    }

    /// The same error with its offset moved by `base`: an error about a
    /// lone document (offsets from its first byte) placed in the stream
    /// where the document starts.
    pub fn shifted(mut self, base: u64) -> Self {
        self.offset = self.offset.saturating_add(base);
        self
    }
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.peer.is_empty() {
            write!(f, "byte {}: {}", self.offset, self.message)
        } else {
            write!(f, "{}: byte {}: {}", self.peer, self.offset, self.message)
        }
    }
}

impl std::error::Error for StreamError {}

pub type Result<T> = std::result::Result<T, StreamError>;
