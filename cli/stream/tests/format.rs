//! The stream format (docs/stream-format.md) end to end: every message
//! encoded and read back, by `Message::parse`, the blocking `Framer` and
//! the incremental `Decoder`; every refusal with its message, kind and
//! offset; truncation at every byte; the size limit at its edge.

use std::io::{self, Read};

use vigil_stream::bson::spec::BinarySubtype;
use vigil_stream::bson::{Binary, Bson, Document, RawDocumentBuf};
use vigil_stream::*;

// ---- fixtures -------------------------------------------------------------------

fn decl(id: u32, name: &str, kind: EventKind, args: &[ArgType]) -> EventDecl {
    EventDecl {
        id,
        name: name.to_string(),
        kind,
        args: args.to_vec(),
        names: Vec::new(),
    }
}

fn hello() -> Hello {
    Hello {
        stream: "box:4242:123456789".into(),
        program: "/usr/bin/demo".into(),
        pid: 4242,
        host: "box".into(),
        mode: Mode::Lossless,
        resume: 0,
        events: vec![
            decl(
                0,
                "open_file",
                EventKind::Entry,
                &[ArgType::Ptr, ArgType::I64],
            ),
            decl(
                1,
                "open_file",
                EventKind::Return,
                &[ArgType::Ptr, ArgType::I64, ArgType::I64],
            ),
            decl(2, "close_file", EventKind::Event, &[ArgType::U64]),
            decl(3, "verdict", EventKind::Verdict, &[]),
        ],
    }
}

fn clock() -> Clock {
    Clock {
        tsc: 1_000_000,
        ns: 5_000_000_000,
        ns_per_tick: 0.5,
    }
}

fn header(seq: i64, thread: i64, tseq: i64, n: u32) -> BatchHeader {
    BatchHeader {
        seq,
        thread,
        tseq,
        lost: 0,
        n,
        clock: clock(),
    }
}

/// (id, ticks, args) records packed.
fn ev(records: &[(u32, u64, &[u64])]) -> Vec<u8> {
    let mut ev = Vec::new();
    for (id, ticks, args) in records {
        push_record(&mut ev, *id, *ticks, args);
    }
    ev
}

fn small_batch() -> Vec<u8> {
    let ev = ev(&[
        (0, 1_000_010, &[0xdead_beef, u64::MAX]),
        (3, 1_000_020, &[]),
    ]);
    encode_batch(&header(0, 77, 0, 2), &ev)
}

fn parse(bytes: Vec<u8>) -> Result<Message, StreamError> {
    Message::parse(RawDocumentBuf::from_bytes(bytes).expect("framed"))
}

fn parse_err(bytes: Vec<u8>) -> StreamError {
    match parse(bytes) {
        Ok(m) => panic!("accepted: {m:?}"),
        Err(e) => e,
    }
}

fn to_doc(bytes: &[u8]) -> Document {
    let raw = RawDocumentBuf::from_bytes(bytes.to_vec()).unwrap();
    Document::try_from(&raw).unwrap()
}

fn to_bytes(doc: &Document) -> Vec<u8> {
    RawDocumentBuf::try_from(doc).unwrap().into_bytes()
}

/// `bytes` (one document) with `edit` applied to it.
fn edited(bytes: &[u8], edit: impl FnOnce(&mut Document)) -> Vec<u8> {
    let mut d = to_doc(bytes);
    edit(&mut d);
    to_bytes(&d)
}

/// The offset of the element of type `ty` named `key` in `bytes`.
fn elem_at(bytes: &[u8], ty: u8, key: &str) -> u64 {
    let mut pat = vec![ty];
    pat.extend_from_slice(key.as_bytes());
    pat.push(0);
    bytes
        .windows(pat.len())
        .position(|w| w == pat)
        .unwrap_or_else(|| panic!("no element {key}")) as u64
}

fn first_event_mut(d: &mut Document) -> &mut Document {
    match &mut d.get_array_mut("events").unwrap()[0] {
        Bson::Document(e) => e,
        _ => unreachable!(),
    }
}

/// Reads a stream through a reader that hands out `chunk` bytes at a time.
struct Chunked<'a> {
    data: &'a [u8],
    chunk: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.chunk.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Everything a Framer reads from `data`: the messages, then the error
/// if any.
fn framer_all(data: &[u8], chunk: usize, max_len: usize) -> (Vec<Message>, Option<StreamError>) {
    let mut f = Framer::new(Chunked { data, chunk }, "peer").with_max_len(max_len);
    let mut out = Vec::new();
    loop {
        match f.next_message() {
            Ok(Some(m)) => out.push(m),
            Ok(None) => return (out, None),
            Err(e) => return (out, Some(e)),
        }
    }
}

/// The same through a Decoder fed `chunk` bytes at a time.
fn decoder_all(data: &[u8], chunk: usize, max_len: usize) -> (Vec<Message>, Option<StreamError>) {
    let mut d = Decoder::new("peer").with_max_len(max_len);
    let mut out = Vec::new();
    for piece in data.chunks(chunk.max(1)) {
        d.push(piece);
        loop {
            match d.next() {
                Ok(Some(m)) => out.push(m),
                Ok(None) => break,
                Err(e) => return (out, Some(e)),
            }
        }
    }
    match d.finish() {
        Ok(()) => (out, None),
        Err(e) => (out, Some(e)),
    }
}

// ---- round trips ------------------------------------------------------------------

#[test]
fn hello_round_trip() {
    let h = hello();
    let m = parse(encode_hello(&h)).unwrap();
    assert_eq!(m, Message::Hello(h.clone()));
    assert_eq!(encode(&m), encode_hello(&h));
    // Declared out of order: read back sorted by id.
    let mut shuffled = h.clone();
    shuffled.events.reverse();
    shuffled.mode = Mode::Discard;
    shuffled.resume = 17;
    let Message::Hello(back) = parse(encode_hello(&shuffled)).unwrap() else {
        panic!()
    };
    assert_eq!(back.events, h.events);
    assert_eq!((back.mode, back.resume), (Mode::Discard, 17));
}

#[test]
fn hello_readable_by_any_bson_library() {
    let d = to_doc(&encode_hello(&hello()));
    assert_eq!(d.get_str("t").unwrap(), "hello");
    assert_eq!(d.get_i32("v").unwrap(), 1);
    assert_eq!(d.get_i64("resume").unwrap(), 0);
    let e = first_event_mut(&mut d.clone()).clone();
    assert_eq!(e.get_str("kind").unwrap(), "entry");
    assert_eq!(e.get_array("args").unwrap().len(), 2);
}

#[test]
fn schema_round_trip_and_extend() {
    let h = hello();
    let later = vec![
        decl(5, "late_b", EventKind::Tracepoint, &[ArgType::U64]),
        decl(4, "late_a", EventKind::Uprobe, &[]),
    ];
    let Message::Schema(got) = parse(encode_schema(&later)).unwrap() else {
        panic!()
    };
    assert_eq!(got.iter().map(|d| d.id).collect::<Vec<_>>(), [4, 5]);
    let mut schema = Schema::from_hello(&h);
    schema.extend(&got).unwrap();
    assert_eq!(schema.len(), 6);
    assert_eq!(schema.get(5).unwrap().name, "late_b");
    assert!(schema.get(6).is_none());
    // An empty schema document is harmless.
    assert_eq!(parse(encode_schema(&[])).unwrap(), Message::Schema(vec![]));
}

#[test]
fn batch_round_trip_and_records() {
    let bytes = small_batch();
    let Message::Batch(b) = parse(bytes.clone()).unwrap() else {
        panic!()
    };
    assert_eq!(b.header, header(0, 77, 0, 2));
    let r: Vec<Record> = b.records().collect();
    assert_eq!(b.records().len(), 2);
    assert_eq!((r[0].id, r[0].ticks, r[0].tseq), (0, 1_000_010, 0));
    assert_eq!(r[0].args, [0xdead_beef, u64::MAX]);
    assert_eq!(r[0].args.get(1), Some(u64::MAX));
    assert_eq!(r[0].args.get(2), None);
    assert_eq!((r[1].id, r[1].tseq, r[1].args.len()), (3, 1, 0));
    assert!(r[1].args.is_empty());
    // 5 s + 10 ticks * 0.5 ns
    assert_eq!(b.time_ns(&r[0]), 5_000_000_005);
    assert_eq!(b.time_ns(&r[1]), 5_000_000_010);
    b.validate_against(&Schema::from_hello(&hello())).unwrap();
    // The ev bytes are the document's own (no copy), re-encoding is exact.
    let ev = b.ev();
    let doc = b.document().as_bytes();
    let at = ev.as_ptr() as usize - doc.as_ptr() as usize;
    assert_eq!(&doc[at..at + ev.len()], ev);
    assert_eq!(encode(&Message::Batch(b.clone())), bytes);
    // ev is binary subtype 0x80 for any BSON library.
    let d = to_doc(&bytes);
    let Bson::Binary(bin) = d.get("ev").unwrap() else {
        panic!()
    };
    assert_eq!(u8::from(bin.subtype), 0x80);
}

#[test]
fn empty_batch() {
    let Message::Batch(b) = parse(encode_batch(&header(3, 1, 9, 0), &[])).unwrap() else {
        panic!()
    };
    assert_eq!(b.records().count(), 0);
    b.validate_against(&Schema::new()).unwrap();
}

#[test]
fn end_ack_error_round_trip() {
    let end = End {
        seq: 12,
        threads: vec![
            ThreadTotals {
                thread: 1,
                produced: 100,
                lost: 0,
            },
            ThreadTotals {
                thread: 2,
                produced: 5,
                lost: 3,
            },
        ],
    };
    for m in [
        Message::End(end.clone()),
        Message::End(End {
            seq: 0,
            threads: vec![],
        }),
        Message::Mark(0),
        Message::Mark(1_700_000_000_123),
        Message::Ack(-1),
        Message::Ack(41),
        Message::Error("unsupported stream format version 2 (this collector reads 1)".into()),
        Message::Error(String::new()),
    ] {
        let bytes = encode(&m);
        assert_eq!(parse(bytes).unwrap(), m);
    }
    assert_eq!(encode(&Message::End(end.clone())), encode_end(&end));
    assert_eq!(encode(&Message::Ack(7)), encode_ack(7));
    assert_eq!(encode(&Message::Error("x".into())), encode_error("x"));
    assert_eq!(Message::Ack(0).type_name(), "ack");
    assert_eq!(encode(&Message::Mark(5)), encode_mark(5));
    assert_eq!(Message::Mark(0).type_name(), "mark");
}

/// Argument names are optional; when given, one string per word.
#[test]
fn event_names_round_trip_and_checks() {
    let mut h = hello();
    h.events[0].names = (0..h.events[0].args.len()).map(|i| format!("a{i}")).collect();
    assert_eq!(parse(encode_hello(&h)).unwrap(), Message::Hello(h.clone()));
    let short = edited(&encode_hello(&h), |d| {
        let e = first_event_mut(d);
        e.insert("names", vec![Bson::String("only".into())]);
    });
    let e = parse_err(short);
    assert!(e.message.contains("`names` has 1 entries"), "{e}");
    let not_array = edited(&encode_hello(&h), |d| {
        first_event_mut(d).insert("names", "a0");
    });
    assert!(parse_err(not_array).message.contains("`names` is string, expected array"));
    let n = h.events[0].args.len();
    let not_string = edited(&encode_hello(&h), |d| {
        first_event_mut(d).insert("names", vec![Bson::Int32(1); n]);
    });
    assert!(parse_err(not_string).message.contains("names[0] is int32, expected string"));
}

/// hello, then batches of 3 threads interleaved, a schema document in the
/// middle, end: what each reader returns, and each thread's sequence
/// numbers and times.
#[test]
#[allow(clippy::needless_range_loop)]
fn three_threads() {
    let h = hello();
    let mut stream = encode_hello(&h);
    let mut seq = 0;
    let mut tseq = [0i64; 3];
    let mut expect: Vec<(i64, i64, u32, u64)> = Vec::new(); // thread, tseq, id, ticks
    for round in 0..4u64 {
        if round == 2 {
            stream.extend(encode_schema(&[decl(
                4,
                "late",
                EventKind::Uprobe,
                &[ArgType::I64],
            )]));
        }
        for t in 0..3 {
            let thread = 1000 + t as i64;
            let n = 1 + (round as u32 + t as u32) % 3;
            let mut recs: Vec<(u32, u64, Vec<u64>)> = Vec::new();
            for i in 0..n {
                let id = if round >= 2 && i == 0 {
                    4
                } else {
                    (i + t as u32) % 4
                };
                let args = match id {
                    0 => vec![0x1000 + i as u64, -1i64 as u64],
                    1 => vec![1, 2, 3],
                    2 => vec![round],
                    4 => vec![42],
                    _ => vec![],
                };
                let ticks = 1_000_000 + round * 100 + i as u64;
                expect.push((thread, tseq[t] + i as i64, id, ticks));
                recs.push((id, ticks, args));
            }
            let mut ev = Vec::new();
            for (id, ticks, args) in &recs {
                push_record(&mut ev, *id, *ticks, args);
            }
            stream.extend(encode_batch(&header(seq, thread, tseq[t], n), &ev));
            seq += 1;
            tseq[t] += n as i64;
        }
    }
    stream.extend(encode_end(&End {
        seq,
        threads: (0..3)
            .map(|t| ThreadTotals {
                thread: 1000 + t as i64,
                produced: tseq[t],
                lost: 0,
            })
            .collect(),
    }));

    let (framed, err) = framer_all(&stream, 1 << 20, MAX_DOCUMENT_LEN);
    assert!(err.is_none(), "{err:?}");
    for chunk in [1, 3, 7, 64, 4096] {
        assert_eq!(
            framer_all(&stream, chunk, MAX_DOCUMENT_LEN),
            (framed.clone(), None)
        );
        assert_eq!(
            decoder_all(&stream, chunk, MAX_DOCUMENT_LEN),
            (framed.clone(), None)
        );
    }
    let mut schema = Schema::new();
    let mut got = Vec::new();
    let mut batches = 0;
    for m in &framed {
        match m {
            Message::Hello(h) => schema = Schema::from_hello(h),
            Message::Schema(d) => schema.extend(d).unwrap(),
            Message::Batch(b) => {
                assert_eq!(b.header.seq, batches);
                batches += 1;
                b.validate_against(&schema).unwrap();
                for r in b.records() {
                    let half = ((r.ticks - 1_000_000) as f64 / 2.0).round() as i64;
                    assert_eq!(b.time_ns(&r), 5_000_000_000 + half);
                    got.push((b.header.thread, r.tseq, r.id, r.ticks));
                }
            }
            Message::End(e) => {
                assert_eq!(e.seq, 12);
                assert_eq!(e.threads[2].produced, tseq[2]);
            }
            m => panic!("{m:?}"),
        }
    }
    assert_eq!(batches, 12);
    assert_eq!(got, expect);
    // Per thread, sequence numbers are consecutive.
    for t in 1000..1003 {
        let s: Vec<i64> = got.iter().filter(|g| g.0 == t).map(|g| g.1).collect();
        assert_eq!(s, (0..s.len() as i64).collect::<Vec<_>>());
    }
    // A batch sent before the schema document that declares id 4 is
    // refused.
    let Message::Batch(b) = parse(encode_batch(&header(0, 1, 0, 1), &ev(&[(4, 0, &[1])]))).unwrap()
    else {
        panic!()
    };
    let e = b.validate_against(&Schema::from_hello(&h)).unwrap_err();
    assert_eq!(
        e.message,
        "batch 0: record 0: event id 4 is not declared (4 events are)"
    );
}

#[test]
fn clock_conversion() {
    let ns = Clock {
        tsc: 500,
        ns: 500,
        ns_per_tick: 1.0,
    };
    assert_eq!(ns.to_ns(500), 500);
    assert_eq!(ns.to_ns(400), 400);
    // Exact beyond f64's 53 bits when ticks are nanoseconds.
    let big = Clock {
        tsc: 0,
        ns: 0,
        ns_per_tick: 1.0,
    };
    assert_eq!(big.to_ns((1 << 60) + 1), (1 << 60) + 1);
    assert_eq!(big.to_ns(u64::MAX), i64::MAX, "saturates");
    let tsc = Clock {
        tsc: 3_000_000_000,
        ns: 1_000_000_000,
        ns_per_tick: 1.0 / 3.0,
    };
    assert_eq!(tsc.to_ns(3_000_000_000), 1_000_000_000);
    assert_eq!(tsc.to_ns(3_000_000_003), 1_000_000_001);
    assert_eq!(tsc.to_ns(2_999_999_997), 999_999_999);
    assert_eq!(tsc.to_ns(0), 0);
    // A TSC past 2^63 (int64 on the wire, read as its unsigned value).
    let high = Clock {
        tsc: u64::MAX - 10,
        ns: 7,
        ns_per_tick: 1.0,
    };
    let Message::Batch(b) = parse(encode_batch(
        &BatchHeader {
            clock: high,
            ..header(0, 1, 0, 1)
        },
        &ev(&[(3, u64::MAX - 5, &[])]),
    ))
    .unwrap() else {
        panic!()
    };
    assert_eq!(b.header.clock, high);
    assert_eq!(b.time_ns(&b.records().next().unwrap()), 12);
}

// ---- framing ------------------------------------------------------------------------

#[test]
fn read_document_one_at_a_time() {
    let mut stream = encode_hello(&hello());
    stream.extend(encode_ack(3));
    let mut r = &stream[..];
    let a = read_document(&mut r, MAX_DOCUMENT_LEN).unwrap().unwrap();
    assert_eq!(a.get_str("t").unwrap(), "hello");
    let b = read_document(&mut r, MAX_DOCUMENT_LEN).unwrap().unwrap();
    assert_eq!(b.get_i64("seq").unwrap(), 3);
    assert!(read_document(&mut r, MAX_DOCUMENT_LEN).unwrap().is_none());
    let mut empty: &[u8] = &[];
    assert!(read_document(&mut empty, MAX_DOCUMENT_LEN)
        .unwrap()
        .is_none());
}

#[test]
fn framer_is_an_iterator_and_tracks_offsets() {
    let a = encode_hello(&hello());
    let b = small_batch();
    let mut stream = a.clone();
    stream.extend(&b);
    let mut f = Framer::new(&stream[..], "spill.bson");
    assert_eq!(f.peer(), "spill.bson");
    assert!(matches!(f.next(), Some(Ok(Message::Hello(_)))));
    assert_eq!((f.document_offset(), f.offset()), (0, a.len() as u64));
    let Some(Ok(Message::Batch(batch))) = f.next() else {
        panic!()
    };
    assert_eq!(batch.offset(), a.len() as u64);
    assert_eq!(f.offset(), stream.len() as u64);
    assert!(f.next().is_none());
    let msgs: Vec<_> = Framer::new(&stream[..], "x")
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(msgs.len(), 2);
}

#[test]
fn truncated_at_every_offset() {
    let a = encode_hello(&hello());
    let b = small_batch();
    let mut stream = a.clone();
    stream.extend(&b);
    let total = stream.len();
    for cut in 0..=total {
        let data = &stream[..cut];
        let (start, len) = if cut < a.len() {
            (0, a.len())
        } else {
            (a.len(), b.len())
        };
        let expect_msgs = usize::from(cut >= a.len()) + usize::from(cut == total);
        let clean = cut == 0 || cut == a.len() || cut == total;
        let expect_msg = if cut == start {
            None
        } else if cut - start < 4 {
            Some(format!(
                "peer: byte {start}: truncated document: the stream ends {} bytes into its \
                 4-byte length",
                cut - start
            ))
        } else {
            Some(format!(
                "peer: byte {start}: truncated document: the stream ends after {} of its {len} bytes",
                cut - start
            ))
        };
        for chunk in [1, 5, total] {
            for (who, (msgs, err)) in [
                ("framer", framer_all(data, chunk, MAX_DOCUMENT_LEN)),
                ("decoder", decoder_all(data, chunk, MAX_DOCUMENT_LEN)),
            ] {
                assert_eq!(msgs.len(), expect_msgs, "{who} cut {cut}");
                assert_eq!(err.is_none(), clean, "{who} cut {cut}: {err:?}");
                if let Some(e) = err {
                    assert_eq!(e.kind, ErrorKind::Truncated);
                    assert_eq!(Some(e.to_string()), expect_msg, "{who} cut {cut}");
                }
            }
        }
        // read_document: offsets from where the reader was.
        let mut r = data;
        let mut n = 0;
        let err = loop {
            match read_document(&mut r, MAX_DOCUMENT_LEN) {
                Ok(Some(_)) => n += 1,
                Ok(None) => break None,
                Err(e) => break Some(e),
            }
        };
        assert_eq!(n, expect_msgs, "read_document cut {cut}");
        assert_eq!(err.map(|e| (e.kind, e.offset)).is_none(), clean);
    }
}

/// A document of `len` bytes exactly: `{t: "error", msg: "xxx…"}`.
fn doc_of_len(len: usize) -> Vec<u8> {
    let base = encode_error("").len();
    let d = encode_error(&"x".repeat(len - base));
    assert_eq!(d.len(), len);
    d
}

#[test]
fn max_size_accepted_one_more_refused() {
    let max = doc_of_len(MAX_DOCUMENT_LEN);
    let mut stream = encode_ack(0);
    let at = stream.len() as u64;
    stream.extend(&max);
    let (msgs, err) = framer_all(&stream, 1 << 16, MAX_DOCUMENT_LEN);
    assert!(err.is_none());
    assert_eq!(msgs.len(), 2);
    assert!(
        matches!(&msgs[1], Message::Error(s) if s.len() == MAX_DOCUMENT_LEN - encode_error("").len())
    );
    let (dmsgs, derr) = decoder_all(&stream, 1 << 16, MAX_DOCUMENT_LEN);
    assert!(derr.is_none());
    assert_eq!(dmsgs, msgs);

    let mut stream = encode_ack(0);
    stream.extend(doc_of_len(MAX_DOCUMENT_LEN + 1));
    let want = format!(
        "peer: byte {at}: oversized document: {} bytes, the limit is {MAX_DOCUMENT_LEN}",
        MAX_DOCUMENT_LEN + 1
    );
    let (msgs, err) = framer_all(&stream, 1 << 16, MAX_DOCUMENT_LEN);
    assert_eq!(msgs.len(), 1);
    let err = err.unwrap();
    assert_eq!(err.kind, ErrorKind::Oversized);
    assert_eq!(err.to_string(), want);
    // The decoder refuses it from the length alone, before the body.
    let mut d = Decoder::new("peer");
    d.push(&stream[..at as usize + 4]);
    assert!(matches!(d.next(), Ok(Some(Message::Ack(0)))));
    let e = d.next().unwrap_err();
    assert_eq!(e.to_string(), want);
    // and keeps refusing: the framing is lost.
    d.push(&encode_ack(1));
    assert_eq!(d.next().unwrap_err(), e);
    assert_eq!(d.finish().unwrap_err(), e);
    // read_document with its own limit.
    let small = encode_ack(0);
    let n = small.len();
    assert!(read_document(&mut &small[..], n).unwrap().is_some());
    let e = read_document(&mut &small[..], n - 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "byte 0: oversized document: {n} bytes, the limit is {}",
            n - 1
        )
    );
}

#[test]
fn length_below_minimum() {
    for len in [4i32, 0, -1, i32::MIN] {
        let mut stream = encode_ack(1);
        let at = stream.len();
        stream.extend(len.to_le_bytes());
        stream.push(0);
        let want = format!(
            "peer: byte {at}: document length {len} is below 5, the smallest BSON document"
        );
        for (msgs, err) in [
            framer_all(&stream, 3, MAX_DOCUMENT_LEN),
            decoder_all(&stream, 3, MAX_DOCUMENT_LEN),
        ] {
            assert_eq!(msgs, vec![Message::Ack(1)]);
            let err = err.unwrap();
            assert_eq!(err.kind, ErrorKind::BadLength);
            assert_eq!(err.to_string(), want);
        }
    }
}

#[test]
fn invalid_bson_names_the_element() {
    // {t: "ack", seq: <element of unknown type 0x42>}
    let good = encode_ack(5);
    let at = elem_at(&good, 0x12, "seq");
    let mut bad = good.clone();
    bad[at as usize] = 0x42;
    let mut stream = encode_ack(1);
    let base = stream.len() as u64;
    stream.extend(&bad);
    stream.extend(encode_ack(2));
    for (msgs, err) in [
        framer_all(&stream, 7, MAX_DOCUMENT_LEN),
        decoder_all(&stream, 7, MAX_DOCUMENT_LEN),
    ] {
        assert_eq!(msgs, vec![Message::Ack(1)]);
        let e = err.unwrap();
        assert_eq!(e.kind, ErrorKind::Bson);
        assert_eq!(e.offset, base + at);
        assert_eq!(e.message, "invalid BSON in field `seq`: invalid tag: 66");
    }
    // Not fatal: the next document is read.
    let mut d = Decoder::new("p");
    d.push(&stream);
    assert_eq!(d.next().unwrap(), Some(Message::Ack(1)));
    assert!(d.next().is_err());
    assert_eq!(d.next().unwrap(), Some(Message::Ack(2)));
    d.finish().unwrap();
    let mut f = Framer::new(&stream[..], "p");
    assert!(f.next_message().unwrap().is_some());
    assert!(f.next_message().is_err());
    assert_eq!(f.next_message().unwrap(), Some(Message::Ack(2)));
}

#[test]
fn invalid_utf8_in_a_nested_string() {
    let good = encode_hello(&hello());
    let pos = good.windows(9).position(|w| w == b"open_file").unwrap();
    let mut bad = good.clone();
    bad[pos] = 0xff;
    let e = parse_err(bad);
    assert_eq!(e.kind, ErrorKind::Bson);
    assert!(e.message.starts_with("invalid BSON"), "{e}");
    // The offset is that of the `name` element of events[0].
    assert_eq!(e.offset, pos as u64 - 4 - 6);
}

#[test]
fn document_not_ending_in_zero() {
    let mut bad = encode_ack(5);
    let last = bad.len() - 1;
    bad[last] = 1;
    let e = read_document(&mut &bad[..], MAX_DOCUMENT_LEN).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("byte {last}: invalid BSON: the document does not end with a 0 byte")
    );
}

#[test]
fn nesting_is_bounded() {
    let mut d = Document::new();
    for _ in 0..40 {
        let mut outer = Document::new();
        outer.insert("a", d);
        d = outer;
    }
    d.insert("t", "ack");
    let e = parse_err(to_bytes(&d));
    assert_eq!(e.kind, ErrorKind::Bson);
    assert_eq!(e.message, "documents nested more than 32 deep");
}

#[test]
fn read_errors_name_peer_and_offset() {
    struct Failing<'a>(&'a [u8]);
    impl Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::ConnectionReset,
                    "reset by peer",
                ));
            }
            let n = buf.len().min(self.0.len()).min(10);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let mut stream = encode_ack(1);
    let first = stream.len();
    stream.extend(&encode_hello(&hello())[..30]);
    let mut f = Framer::new(Failing(&stream), "10.0.0.1:5555");
    assert_eq!(f.next_message().unwrap(), Some(Message::Ack(1)));
    let e = f.next_message().unwrap_err();
    assert_eq!(e.kind, ErrorKind::Io(io::ErrorKind::ConnectionReset));
    assert_eq!(e.offset, first as u64 + 30);
    assert_eq!(
        e.to_string(),
        format!(
            "10.0.0.1:5555: byte {}: read error: reset by peer",
            first + 30
        )
    );
    // Fatal: repeated.
    assert_eq!(f.next_message().unwrap_err(), e);
}

#[test]
fn decoder_chunkings_agree() {
    let mut stream = encode_hello(&hello());
    stream.extend(small_batch());
    stream.extend(encode_end(&End {
        seq: 1,
        threads: vec![],
    }));
    let want = framer_all(&stream, 1 << 20, MAX_DOCUMENT_LEN);
    assert_eq!(want.0.len(), 3);
    for chunk in 1..=stream.len() {
        assert_eq!(
            decoder_all(&stream, chunk, MAX_DOCUMENT_LEN),
            want,
            "chunk {chunk}"
        );
    }
    let mut d = Decoder::new("p");
    d.push(&stream[..10]);
    assert_eq!(d.buffered(), 10);
    assert!(d.next().unwrap().is_none());
    assert_eq!(d.offset(), 0);
}

// ---- validation: one refusal each ---------------------------------------------------

/// The refusal of `bytes`: its kind is Format and its message `want`.
fn refused(bytes: Vec<u8>, want: &str) -> StreamError {
    let e = parse_err(bytes);
    assert_eq!(e.message, want);
    assert_eq!(e.kind, ErrorKind::Format, "{e}");
    e
}

#[test]
fn no_type() {
    let e = refused(
        edited(&encode_ack(1), |d| {
            d.remove("t");
        }),
        "document: no field `t` (the document's type)",
    );
    assert_eq!(e.offset, 0);
}

#[test]
fn type_not_a_string() {
    refused(
        edited(&encode_ack(1), |d| {
            d.insert("t", 3i32);
        }),
        "document: field `t` is int32, expected string",
    );
}

#[test]
fn unknown_type() {
    let b = edited(&encode_ack(1), |d| {
        d.insert("t", "bye");
    });
    let e = refused(b.clone(), "bye: unknown document type \"bye\" (this collector reads hello, schema, batch, end, mark, ack, error)");
    assert_eq!(e.offset, elem_at(&b, 2, "t"));
}

#[test]
fn version_2_refused() {
    let b = edited(&encode_hello(&hello()), |d| {
        d.insert("v", 2i32);
        d.remove("events"); // a later version's fields may differ
    });
    let e = parse_err(b.clone());
    assert_eq!(e.kind, ErrorKind::Version);
    assert_eq!(
        e.message,
        "unsupported stream format version 2 (this collector reads 1)"
    );
    assert_eq!(e.offset, elem_at(&b, 0x10, "v"));
}

#[test]
fn version_missing() {
    refused(
        edited(&encode_hello(&hello()), |d| {
            d.remove("v");
        }),
        "hello: missing field `v`",
    );
}

#[test]
fn version_mistyped() {
    refused(
        edited(&encode_hello(&hello()), |d| {
            d.insert("v", 1i64);
        }),
        "hello: field `v` is int64, expected int32",
    );
}

#[test]
fn hello_missing_field() {
    refused(
        edited(&encode_hello(&hello()), |d| {
            d.remove("program");
        }),
        "hello: missing field `program`",
    );
}

#[test]
fn hello_mistyped_field() {
    let b = edited(&encode_hello(&hello()), |d| {
        d.insert("pid", 4242i64);
    });
    let e = refused(b.clone(), "hello: field `pid` is int64, expected int32");
    assert_eq!(e.offset, elem_at(&b, 0x12, "pid"));
}

#[test]
fn hello_bad_mode() {
    refused(
        edited(&encode_hello(&hello()), |d| {
            d.insert("mode", "lossy");
        }),
        "hello: `mode` is \"lossy\", expected \"lossless\" or \"discard\"",
    );
}

#[test]
fn hello_negative_resume() {
    refused(
        edited(&encode_hello(&hello()), |d| {
            d.insert("resume", -1i64);
        }),
        "hello: `resume` is -1, batch numbers start at 0",
    );
}

#[test]
fn event_not_a_document() {
    refused(
        edited(&encode_hello(&hello()), |d| {
            d.get_array_mut("events").unwrap()[1] = Bson::Int32(1);
        }),
        "hello: events[1] is int32, expected document",
    );
}

#[test]
fn event_missing_field() {
    refused(
        edited(&encode_hello(&hello()), |d| {
            first_event_mut(d).remove("name");
        }),
        "hello: events[0]: missing field `name`",
    );
}

#[test]
fn event_negative_id() {
    refused(
        edited(&encode_hello(&hello()), |d| {
            first_event_mut(d).insert("id", -1i32);
        }),
        "hello: events[0]: `id` is -1, ids start at 0",
    );
}

#[test]
fn event_duplicate_id() {
    refused(
        edited(&encode_hello(&hello()), |d| {
            first_event_mut(d).insert("id", 2i32);
        }),
        "hello: events[2]: id 2 is declared twice (events[0])",
    );
}

#[test]
fn event_ids_not_dense() {
    refused(
        edited(&encode_hello(&hello()), |d| {
            first_event_mut(d).insert("id", 9i32);
        }),
        "hello: events[0]: id 9 leaves a gap: the 4 events must have ids 0..3",
    );
}

#[test]
fn event_ids_not_from_zero() {
    let mut h = hello();
    for e in &mut h.events {
        e.id += 1;
    }
    refused(
        encode_hello(&h),
        "hello: events[3]: id 4 leaves a gap: the 4 events must have ids 0..3",
    );
}

#[test]
fn schema_ids_not_dense() {
    refused(
        encode_schema(&[
            decl(4, "a", EventKind::Entry, &[]),
            decl(6, "b", EventKind::Entry, &[]),
        ]),
        "schema: events[1]: id 6 leaves a gap: the 2 events must have ids 4..5",
    );
}

#[test]
fn schema_not_following_hello() {
    let mut s = Schema::from_hello(&hello());
    let e = s
        .extend(&[decl(5, "a", EventKind::Entry, &[])])
        .unwrap_err();
    assert_eq!(e.message, "schema: declares event id 5 where 4 is next (ids are dense from 0 across hello and schema documents; 4 declared before)");
    assert_eq!(s.len(), 4);
}

#[test]
fn event_unknown_kind() {
    refused(edited(&encode_hello(&hello()), |d| { first_event_mut(d).insert("kind", "exit"); }), "hello: events[0]: `kind` is \"exit\", expected entry, return, event, verdict, uprobe or tracepoint");
}

#[test]
fn event_unknown_arg_type() {
    refused(
        edited(&encode_hello(&hello()), |d| {
            first_event_mut(d).insert("args", vec![Bson::from("ptr"), Bson::from("u32")]);
        }),
        "hello: events[0]: args[1] is \"u32\", expected i64, u64 or ptr",
    );
}

#[test]
fn event_arg_not_a_string() {
    refused(
        edited(&encode_hello(&hello()), |d| {
            first_event_mut(d).insert("args", vec![Bson::Int32(8)]);
        }),
        "hello: events[0]: args[0] is int32, expected string",
    );
}

#[test]
fn event_args_not_an_array() {
    refused(
        edited(&encode_hello(&hello()), |d| {
            first_event_mut(d).insert("args", "i64");
        }),
        "hello: events[0]: field `args` is string, expected array",
    );
}

#[test]
fn event_too_many_args() {
    refused(
        edited(&encode_hello(&hello()), |d| {
            first_event_mut(d).insert("args", vec![Bson::from("u64"); 256]);
        }),
        "hello: events[0]: 256 argument words, a record holds at most 255",
    );
}

#[test]
fn batch_negative_seq() {
    refused(
        edited(&small_batch(), |d| {
            d.insert("seq", -2i64);
        }),
        "batch: `seq` is -2, batch numbers start at 0",
    );
}

#[test]
fn batch_missing_field() {
    refused(
        edited(&small_batch(), |d| {
            d.remove("tseq");
        }),
        "batch 0: missing field `tseq`",
    );
}

#[test]
fn batch_mistyped_n() {
    refused(
        edited(&small_batch(), |d| {
            d.insert("n", 2i64);
        }),
        "batch 0: field `n` is int64, expected int32",
    );
}

#[test]
fn batch_negative_lost() {
    refused(
        edited(&small_batch(), |d| {
            d.insert("lost", -1i64);
        }),
        "batch 0: `lost` is -1, a count",
    );
}

#[test]
fn batch_clock_missing_field() {
    refused(
        edited(&small_batch(), |d| {
            d.get_document_mut("clock").unwrap().remove("tsc");
        }),
        "batch 0: `clock`: missing field `tsc`",
    );
}

#[test]
fn batch_clock_not_a_document() {
    refused(
        edited(&small_batch(), |d| {
            d.insert("clock", 1.0f64);
        }),
        "batch 0: field `clock` is double, expected document",
    );
}

#[test]
fn batch_bad_ns_per_tick() {
    for (v, shown) in [
        (0.0, "0"),
        (-1.0, "-1"),
        (f64::NAN, "NaN"),
        (f64::INFINITY, "inf"),
    ] {
        refused(
            edited(&small_batch(), |d| {
                d.get_document_mut("clock")
                    .unwrap()
                    .insert("ns_per_tick", v);
            }),
            &format!("batch 0: `clock`: `ns_per_tick` is {shown}, expected a positive number"),
        );
    }
}

#[test]
fn batch_ev_not_binary() {
    refused(
        edited(&small_batch(), |d| {
            d.insert("ev", "records");
        }),
        "batch 0: field `ev` is string, expected binary",
    );
}

#[test]
fn batch_ev_wrong_subtype() {
    refused(
        edited(&small_batch(), |d| {
            d.insert(
                "ev",
                Binary {
                    subtype: BinarySubtype::Generic,
                    bytes: vec![],
                },
            );
        }),
        "batch 0: `ev` has binary subtype 0x00, expected 0x80",
    );
}

fn with_ev(n: i32, ev: Vec<u8>) -> Vec<u8> {
    edited(&small_batch(), |d| {
        d.insert("n", n);
        d.insert(
            "ev",
            Binary {
                subtype: BinarySubtype::UserDefined(0x80),
                bytes: ev,
            },
        );
    })
}

#[test]
fn batch_ev_not_whole_words() {
    let mut e = ev(&[(0, 1, &[1, 2])]);
    e.extend([0; 5]);
    refused(
        with_ev(1, e),
        "batch 0: `ev` is 37 bytes long, not a multiple of 8 (records are 64-bit words)",
    );
}

#[test]
fn batch_record_overruns_ev() {
    let mut e = ev(&[(3, 1, &[]), (0, 2, &[1, 2])]);
    e.truncate(e.len() - 8);
    let b = with_ev(2, e);
    let err = refused(
        b.clone(),
        "batch 0: record 1 (word 2 of `ev`) needs 4 words, 3 remain",
    );
    // The offset is that of the record's first word in the document.
    let ev_at = elem_at(&b, 5, "ev") + 4 + 4 + 1;
    assert_eq!(err.offset, ev_at + 16);
}

#[test]
fn batch_record_of_one_word() {
    refused(
        with_ev(1, vec![0; 8]),
        "batch 0: record 0 (word 0 of `ev`) needs 2 words, 1 remain",
    );
}

#[test]
fn batch_reserved_bits() {
    let mut e = ev(&[(3, 1, &[])]);
    e[5] = 1; // bit 40
    refused(
        with_ev(1, e),
        "batch 0: record 0: bits 40-63 of its first word are not 0 (word 0x0000010000000003)",
    );
}

#[test]
fn batch_count_mismatch() {
    refused(
        with_ev(3, ev(&[(3, 1, &[]), (3, 2, &[])])),
        "batch 0: `n` is 3, `ev` holds 2 records",
    );
}

#[test]
fn batch_undeclared_event() {
    let b = with_ev(2, ev(&[(3, 1, &[]), (7, 2, &[])]));
    let mut stream = encode_ack(0);
    let base = stream.len() as u64;
    stream.extend(&b);
    let mut f = Framer::new(&stream[..], "unix:/run/vigil.sock");
    f.next_message().unwrap();
    let Some(Message::Batch(batch)) = f.next_message().unwrap() else {
        panic!()
    };
    let e = batch
        .validate_against(&Schema::from_hello(&hello()))
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Format);
    let ev_at = base + elem_at(&b, 5, "ev") + 4 + 4 + 1;
    assert_eq!(
        e.to_string(),
        format!("unix:/run/vigil.sock: byte {}: batch 0: record 1: event id 7 is not declared (4 events are)", ev_at + 16)
    );
}

#[test]
fn batch_wrong_argument_count() {
    let b = with_ev(2, ev(&[(3, 1, &[]), (2, 2, &[1, 2])]));
    let Message::Batch(batch) = parse(b).unwrap() else {
        panic!()
    };
    let e = batch
        .validate_against(&Schema::from_hello(&hello()))
        .unwrap_err();
    assert_eq!(
        e.message,
        "batch 0: record 1: event 2 (`close_file`) has 2 argument words, its declaration 1"
    );
}

#[test]
fn end_thread_not_a_document() {
    let b = encode_end(&End {
        seq: 1,
        threads: vec![ThreadTotals {
            thread: 1,
            produced: 1,
            lost: 0,
        }],
    });
    refused(
        edited(&b, |d| {
            d.get_array_mut("threads").unwrap()[0] = Bson::Null;
        }),
        "end: threads[0] is null, expected document",
    );
}

#[test]
fn end_negative_produced() {
    let b = encode_end(&End {
        seq: 1,
        threads: vec![ThreadTotals {
            thread: 1,
            produced: -4,
            lost: 0,
        }],
    });
    refused(b, "end: threads[0]: `produced` is -4, a count");
}

#[test]
fn end_missing_threads() {
    refused(
        edited(
            &encode_end(&End {
                seq: 0,
                threads: vec![],
            }),
            |d| {
                d.remove("threads");
            },
        ),
        "end: missing field `threads`",
    );
}

#[test]
fn ack_below_minus_one() {
    refused(
        encode_ack(-2),
        "ack: `seq` is -2; the smallest is -1 (no batch stored)",
    );
}

#[test]
fn ack_mistyped() {
    refused(
        edited(&encode_ack(0), |d| {
            d.insert("seq", 0i32);
        }),
        "ack: field `seq` is int32, expected int64",
    );
}

#[test]
fn error_without_message() {
    refused(
        edited(&encode_error("x"), |d| {
            d.remove("msg");
        }),
        "error: missing field `msg`",
    );
}

#[test]
fn errors_display_peer_and_offset() {
    let e = StreamError::new(ErrorKind::Format, 12, "bad").shifted(100);
    assert_eq!(e.to_string(), "byte 112: bad");
    assert_eq!(e.with_peer("host:1").to_string(), "host:1: byte 112: bad");
    assert!(ErrorKind::Truncated.is_fatal() && !ErrorKind::Format.is_fatal());
}

#[test]
#[should_panic(expected = "at most 255 argument words")]
fn push_record_refuses_256_args() {
    push_record(&mut Vec::new(), 0, 0, &[0; 256]);
}
