//! Every message as the bytes of one BSON document, for tests, a Rust
//! producer and the collector's acknowledgements.
//!
//! The encoders write what they are given, valid or not (tests build
//! malformed streams with them); [`crate::Message::parse`] is the
//! validation.  Fields are written in the order docs/stream-format.md
//! lists them.

use bson::raw::{cstr, RawArrayBuf, RawBinaryRef, RawDocumentBuf};
use bson::spec::BinarySubtype;

use crate::message::{BatchHeader, End, EventDecl, Hello, Message, EV_SUBTYPE, MAX_ARGS, VERSION};

/// `hello`, with `v` = [`VERSION`].
pub fn encode_hello(hello: &Hello) -> Vec<u8> {
    let mut d = RawDocumentBuf::new();
    d.append(cstr!("t"), "hello");
    d.append(cstr!("v"), VERSION);
    d.append(cstr!("stream"), hello.stream.as_str());
    d.append(cstr!("program"), hello.program.as_str());
    d.append(cstr!("pid"), hello.pid);
    d.append(cstr!("host"), hello.host.as_str());
    d.append(cstr!("mode"), hello.mode.as_str());
    d.append(cstr!("resume"), hello.resume);
    d.append(cstr!("events"), events(&hello.events));
    d.into_bytes()
}

/// `schema`: events registered after the stream started.
pub fn encode_schema(decls: &[EventDecl]) -> Vec<u8> {
    let mut d = RawDocumentBuf::new();
    d.append(cstr!("t"), "schema");
    d.append(cstr!("events"), events(decls));
    d.into_bytes()
}

fn events(decls: &[EventDecl]) -> RawArrayBuf {
    let mut a = RawArrayBuf::new();
    for e in decls {
        let mut d = RawDocumentBuf::new();
        d.append(cstr!("id"), e.id as i32);
        d.append(cstr!("name"), e.name.as_str());
        d.append(cstr!("kind"), e.kind.as_str());
        let mut args = RawArrayBuf::new();
        for w in &e.args {
            args.push(w.as_str());
        }
        d.append(cstr!("args"), args);
        if !e.names.is_empty() {
            let mut names = RawArrayBuf::new();
            for n in &e.names {
                names.push(n.as_str());
            }
            d.append(cstr!("names"), names);
        }
        a.push(d);
    }
    a
}

/// `batch`: `header` and the packed records `ev` (built with
/// [`push_record`]; `header.n` must count them).
pub fn encode_batch(header: &BatchHeader, ev: &[u8]) -> Vec<u8> {
    let mut d = RawDocumentBuf::new();
    d.append(cstr!("t"), "batch");
    d.append(cstr!("seq"), header.seq);
    d.append(cstr!("thread"), header.thread);
    d.append(cstr!("tseq"), header.tseq);
    d.append(cstr!("lost"), header.lost);
    d.append(cstr!("n"), header.n as i32);
    let mut clock = RawDocumentBuf::new();
    clock.append(cstr!("tsc"), header.clock.tsc as i64);
    clock.append(cstr!("ns"), header.clock.ns);
    clock.append(cstr!("ns_per_tick"), header.clock.ns_per_tick);
    d.append(cstr!("clock"), clock);
    d.append(
        cstr!("ev"),
        RawBinaryRef {
            subtype: BinarySubtype::from(EV_SUBTYPE),
            bytes: ev,
        },
    );
    d.into_bytes()
}

/// Appends one record to a batch's `ev`: word 0 (`id`, the number of
/// argument words), the ticks, the argument words.
///
/// # Panics
///
/// With more than [`MAX_ARGS`] (255) argument words, which word 0 cannot
/// count.
pub fn push_record(ev: &mut Vec<u8>, id: u32, ticks: u64, args: &[u64]) {
    assert!(
        args.len() <= MAX_ARGS,
        "a record holds at most {MAX_ARGS} argument words, not {}",
        args.len()
    );
    let w0 = id as u64 | (args.len() as u64) << 32;
    ev.reserve(16 + 8 * args.len());
    ev.extend_from_slice(&w0.to_le_bytes());
    ev.extend_from_slice(&ticks.to_le_bytes());
    for a in args {
        ev.extend_from_slice(&a.to_le_bytes());
    }
}

/// `end`.
pub fn encode_end(end: &End) -> Vec<u8> {
    let mut d = RawDocumentBuf::new();
    d.append(cstr!("t"), "end");
    d.append(cstr!("seq"), end.seq);
    let mut threads = RawArrayBuf::new();
    for t in &end.threads {
        let mut e = RawDocumentBuf::new();
        e.append(cstr!("thread"), t.thread);
        e.append(cstr!("produced"), t.produced);
        e.append(cstr!("lost"), t.lost);
        threads.push(e);
    }
    d.append(cstr!("threads"), threads);
    d.into_bytes()
}

/// `mark`: every event stamped before `ns` was sent before this document.
pub fn encode_mark(ns: i64) -> Vec<u8> {
    let mut d = RawDocumentBuf::new();
    d.append(cstr!("t"), "mark");
    d.append(cstr!("ns"), ns);
    d.into_bytes()
}

/// `ack`: batches up to and including `seq` are stored (-1: none).
pub fn encode_ack(seq: i64) -> Vec<u8> {
    let mut d = RawDocumentBuf::new();
    d.append(cstr!("t"), "ack");
    d.append(cstr!("seq"), seq);
    d.into_bytes()
}

/// `error`: the collector refuses the connection.
pub fn encode_error(msg: &str) -> Vec<u8> {
    let mut d = RawDocumentBuf::new();
    d.append(cstr!("t"), "error");
    d.append(cstr!("msg"), msg);
    d.into_bytes()
}

/// Any message (a batch re-encoded from its header and records).
pub fn encode(m: &Message) -> Vec<u8> {
    match m {
        Message::Hello(h) => encode_hello(h),
        Message::Schema(e) => encode_schema(e),
        Message::Batch(b) => encode_batch(&b.header, b.ev()),
        Message::End(e) => encode_end(e),
        Message::Mark(ns) => encode_mark(*ns),
        Message::Ack(s) => encode_ack(*s),
        Message::Error(s) => encode_error(s),
    }
}
