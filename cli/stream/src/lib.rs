//! vigil's event stream, format version 1 (docs/stream-format.md): what a
//! traced program's producer sends to `vigil collect`, and what a spill or
//! `file:` stream holds.  A stream is a sequence of BSON documents; every
//! document has a string field `t`, its type.
//!
//! * [`frame`]: cutting a byte stream into documents, from a blocking
//!   [`Read`](std::io::Read) ([`Framer`], [`read_document`]) or
//!   incrementally from whatever bytes a non-blocking socket delivered
//!   ([`Decoder`]); lengths checked (at most [`MAX_DOCUMENT_LEN`]), every
//!   document validated as BSON
//! * [`message`]: the typed messages ([`Message`]: `hello`, `schema`,
//!   `batch`, `end`, `mark`, `ack`, `error`), validated field by field; a
//!   [`Batch`]'s packed records read in place ([`Record`]), checked against
//!   the event table ([`Schema`]); tick to nanosecond conversion
//!   ([`Clock`])
//! * [`session`]: a producer's stream as a collector checks it (order,
//!   schema, batch and sequence numbers), message by message
//! * [`mod@encode`]: every message as bytes (tests, a Rust producer, the
//!   collector's acknowledgements)
//! * [`error`]: [`StreamError`], which names the peer (a socket address or
//!   a file) and the byte offset in the stream: `peer: byte N: message`
//!
//! Offsets: errors from [`Framer`] and [`Decoder`] carry the offset in the
//! whole stream; [`Message::parse`] on a lone document gives offsets from
//! the document's first byte (see [`StreamError::shifted`]).

pub mod encode;
pub mod error;
pub mod frame;
pub mod message;
pub mod session;

mod raw;

pub use encode::{
    encode, encode_ack, encode_batch, encode_end, encode_error, encode_hello, encode_mark,
    encode_schema,
    push_record,
};
pub use error::{ErrorKind, StreamError};
pub use frame::{read_document, Decoder, Framer, MAX_DOCUMENT_LEN};
pub use session::Session;
pub use message::{
    ArgType, Args, Batch, BatchHeader, Clock, End, EventDecl, EventKind, Hello, Message, Mode,
    Record, Records, Schema, ThreadTotals, VERSION,
};

/// Re-exported so that users name the same `bson` version as this crate.
pub use bson;
