//! The documents of a stream as typed messages, validated field by field
//! (docs/stream-format.md).
//!
//! Fields the format does not name are ignored, so that a later version may
//! add some; a field named twice counts by its first occurrence (what the
//! BSON lookups return).  A [`Batch`] keeps the document it came from and
//! reads its packed records in place: [`Batch::records`].

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use bson::raw::{RawBsonRef, RawDocument, RawDocumentBuf};

use crate::error::{ErrorKind, Result, StreamError};
use crate::raw::{self, Elem, Fields};

/// The format version this crate reads and writes.
pub const VERSION: i32 = 1;

/// The binary subtype of a batch's `ev` (user-defined).
pub const EV_SUBTYPE: u8 = 0x80;

/// The most argument words a record holds (bits 32-39 of its word 0).
pub const MAX_ARGS: usize = 255;

/// One document of a stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// `t: "hello"`, the first document of every connection and file.
    Hello(Hello),
    /// `t: "schema"`: events registered after the stream started, their
    /// ids following those declared before.
    Schema(Vec<EventDecl>),
    /// `t: "batch"`: events of one thread.
    Batch(Batch),
    /// `t: "end"`: a clean end of the stream.
    End(End),
    /// `t: "mark"`: every event of the stream stamped before this
    /// `CLOCK_MONOTONIC` time (ns) was in the batches sent before it (a
    /// watermark, for merging threads in time order).
    Mark(i64),
    /// `t: "ack"` (collector to producer): batches up to and including
    /// this number are stored; -1: none.
    Ack(i64),
    /// `t: "error"` (collector to producer): why the collector refuses the
    /// connection.
    Error(String),
}

/// Whether the producer may drop events when its buffers are full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Lossless,
    Discard,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Lossless => "lossless",
            Mode::Discard => "discard",
        }
    }
}

/// `hello`: who is sending, and its event table.
#[derive(Debug, Clone, PartialEq)]
pub struct Hello {
    /// Unique per process incarnation: `host:pid:start-ns`.
    pub stream: String,
    /// The executable (`/proc/self/exe`).
    pub program: String,
    pub pid: i32,
    pub host: String,
    pub mode: Mode,
    /// The first batch number this connection carries.
    pub resume: i64,
    /// The event table, sorted by id (ids 0..len).
    pub events: Vec<EventDecl>,
}

/// What an event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Entry,
    /// A function's return: its last argument word is the return value.
    Return,
    /// An assertion's event.
    Event,
    Verdict,
    Uprobe,
    Tracepoint,
}

impl EventKind {
    pub const ALL: [EventKind; 6] = [
        EventKind::Entry,
        EventKind::Return,
        EventKind::Event,
        EventKind::Verdict,
        EventKind::Uprobe,
        EventKind::Tracepoint,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Entry => "entry",
            EventKind::Return => "return",
            EventKind::Event => "event",
            EventKind::Verdict => "verdict",
            EventKind::Uprobe => "uprobe",
            EventKind::Tracepoint => "tracepoint",
        }
    }

    pub fn from_name(s: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// How an argument word reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgType {
    I64,
    U64,
    Ptr,
}

impl ArgType {
    pub fn as_str(self) -> &'static str {
        match self {
            ArgType::I64 => "i64",
            ArgType::U64 => "u64",
            ArgType::Ptr => "ptr",
        }
    }

    pub fn from_name(s: &str) -> Option<ArgType> {
        match s {
            "i64" => Some(ArgType::I64),
            "u64" => Some(ArgType::U64),
            "ptr" => Some(ArgType::Ptr),
            _ => None,
        }
    }
}

/// One entry of an event table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventDecl {
    pub id: u32,
    /// e.g. `open_file`.
    pub name: String,
    pub kind: EventKind,
    /// One per argument word of the event's records (at most
    /// [`MAX_ARGS`]).
    pub args: Vec<ArgType>,
    /// The argument words' names (`fd`, `prev_pid`), one per word, or
    /// empty when the producer did not name them (`names` is optional).
    pub names: Vec<String>,
}

/// The events declared so far in a stream: `hello`'s table, extended by
/// each `schema` document.  Ids are dense from 0 across all of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Schema {
    events: Vec<EventDecl>,
}

impl Schema {
    pub fn new() -> Self {
        Schema::default()
    }

    /// `hello`'s event table.
    pub fn from_hello(hello: &Hello) -> Self {
        Schema {
            events: hello.events.clone(),
        }
    }

    /// Adds a `schema` document's declarations (sorted by id, dense, as
    /// [`Message::parse`] returns them): they must start at the next id.
    /// The error's offset is 0: shift it to the schema document's
    /// (`Decoder::document_offset`).
    pub fn extend(&mut self, decls: &[EventDecl]) -> Result<()> {
        let next = self.events.len();
        for (i, d) in decls.iter().enumerate() {
            if d.id as usize != next + i {
                return Err(StreamError::new(
                    ErrorKind::Format,
                    0,
                    format!(
                        "schema: declares event id {} where {} is next (ids are dense from 0 \
                         across hello and schema documents; {next} declared before)",
                        d.id,
                        next + i
                    ),
                ));
            }
        }
        self.events.extend_from_slice(decls);
        Ok(())
    }

    pub fn get(&self, id: u32) -> Option<&EventDecl> {
        self.events.get(id as usize)
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    pub fn events(&self) -> &[EventDecl] {
        &self.events
    }
}

/// A batch's clock: a tick count and the `CLOCK_MONOTONIC` time at the
/// same instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock {
    /// The tick count (the BSON int64 read as the unsigned 64-bit value it
    /// carries, like a record's ticks).
    pub tsc: u64,
    /// `CLOCK_MONOTONIC` nanoseconds at `tsc`.
    pub ns: i64,
    /// Finite and positive; 1 when ticks are nanoseconds already.
    pub ns_per_tick: f64,
}

impl Clock {
    /// `ns + (ticks - tsc) * ns_per_tick`, rounded to the nearest
    /// nanosecond, saturating at the ends of `i64`.  Exact when
    /// `ns_per_tick` is 1.
    #[inline]
    pub fn to_ns(&self, ticks: u64) -> i64 {
        // The common case, ticks near the clock's: no 128-bit arithmetic.
        if ticks.abs_diff(self.tsc) < 1 << 52 {
            let near = ticks.wrapping_sub(self.tsc) as i64;
            let off = if self.ns_per_tick == 1.0 {
                near
            } else {
                // Rounded half away from zero, as f64::round, without its
                // libm call (this runs for every stored event).
                let x = near as f64 * self.ns_per_tick;
                (x + 0.5f64.copysign(x)) as i64
            };
            if let Some(t) = self.ns.checked_add(off) {
                return t;
            }
        }
        let d = ticks as i128 - self.tsc as i128;
        let off = if self.ns_per_tick == 1.0 {
            d
        } else {
            // `as` saturates (and maps NaN to 0).
            (d as f64 * self.ns_per_tick).round() as i128
        };
        (self.ns as i128)
            .saturating_add(off)
            .clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }
}

/// A batch's fields other than its records.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchHeader {
    /// Batch number in this stream, consecutive from 0.
    pub seq: i64,
    /// Kernel thread id.
    pub thread: i64,
    /// Per-thread sequence number of the first record.
    pub tseq: i64,
    /// Events of this thread lost so far (cumulative).
    pub lost: i64,
    /// Records in `ev`.
    pub n: u32,
    pub clock: Clock,
}

/// Where a document came from, for errors found after parsing.
#[derive(Debug, Clone, Default)]
pub(crate) struct Origin {
    pub peer: Arc<str>,
    /// The stream offset of the document's first byte.
    pub offset: u64,
}

/// `batch`: one thread's events.  Holds the received document; the
/// records are read from its `ev` bytes, which parsing checked: the length
/// is a multiple of 8, every record's argument words are there, bits 40-63
/// of every word 0 are 0, and there are `n` records.  Whether the events
/// are declared is [`Batch::validate_against`].
#[derive(Clone)]
pub struct Batch {
    pub header: BatchHeader,
    doc: RawDocumentBuf,
    /// `ev`'s bytes in `doc`.
    ev: Range<usize>,
    origin: Origin,
}

impl PartialEq for Batch {
    /// Same fields, same records (wherever the documents came from).
    fn eq(&self, other: &Batch) -> bool {
        self.header == other.header && self.ev() == other.ev()
    }
}

impl fmt::Debug for Batch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Batch")
            .field("header", &self.header)
            .field("records", &self.records().collect::<Vec<_>>())
            .finish()
    }
}

impl Batch {
    /// The packed records, as received.
    pub fn ev(&self) -> &[u8] {
        &self.doc.as_bytes()[self.ev.clone()]
    }

    /// The whole document.
    pub fn document(&self) -> &RawDocument {
        &self.doc
    }

    /// The stream offset of the document (0 when parsed alone).
    pub fn offset(&self) -> u64 {
        self.origin.offset
    }

    /// The records, in order.
    pub fn records(&self) -> Records<'_> {
        Records {
            rest: self.ev(),
            tseq: self.header.tseq,
            left: self.header.n,
        }
    }

    /// Checks that every record's event is declared in `schema` and has
    /// as many argument words as its declaration.  The error names the
    /// record and its offset in the stream.
    pub fn validate_against(&self, schema: &Schema) -> Result<()> {
        let mut pos = 0;
        for (i, r) in self.records().enumerate() {
            let fail = |msg: String| {
                StreamError::new(
                    ErrorKind::Format,
                    (self.ev.start + pos) as u64,
                    format!("batch {}: record {i}: {msg}", self.header.seq),
                )
                .shifted(self.origin.offset)
                .with_peer(&self.origin.peer)
            };
            match schema.get(r.id) {
                None => {
                    return Err(fail(format!(
                        "event id {} is not declared ({} events are)",
                        r.id,
                        schema.len()
                    )))
                }
                Some(d) if d.args.len() != r.args.len() => {
                    return Err(fail(format!(
                        "event {} (`{}`) has {} argument words, its declaration {}",
                        r.id,
                        d.name,
                        r.args.len(),
                        d.args.len()
                    )))
                }
                Some(_) => {}
            }
            pos += 16 + 8 * r.args.len();
        }
        Ok(())
    }

    /// The `CLOCK_MONOTONIC` time of a record of this batch.
    pub fn time_ns(&self, record: &Record<'_>) -> i64 {
        self.header.clock.to_ns(record.ticks)
    }
}

/// One event of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    pub id: u32,
    /// Timestamp in ticks ([`Clock::to_ns`]).
    pub ticks: u64,
    /// Per-thread sequence number: the batch's `tseq` + the record's index.
    pub tseq: i64,
    pub args: Args<'a>,
}

/// A record's argument words, read in place (little-endian, unaligned).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Args<'a>(&'a [u8]);

impl<'a> Args<'a> {
    pub fn len(&self) -> usize {
        self.0.len() / 8
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<u64> {
        self.0.get(i * 8..i * 8 + 8).map(word)
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = u64> + 'a {
        self.0.chunks_exact(8).map(word)
    }

    pub fn to_vec(&self) -> Vec<u64> {
        self.iter().collect()
    }

    /// The words' bytes as received.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.0
    }
}

impl fmt::Debug for Args<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq<[u64]> for Args<'_> {
    fn eq(&self, other: &[u64]) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a == *b)
    }
}

impl<const N: usize> PartialEq<[u64; N]> for Args<'_> {
    fn eq(&self, other: &[u64; N]) -> bool {
        *self == other[..]
    }
}

fn word(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_le_bytes(w)
}

/// The records of a [`Batch`].
#[derive(Debug, Clone)]
pub struct Records<'a> {
    rest: &'a [u8],
    tseq: i64,
    left: u32,
}

impl<'a> Iterator for Records<'a> {
    type Item = Record<'a>;

    fn next(&mut self) -> Option<Record<'a>> {
        if self.left == 0 || self.rest.len() < 16 {
            return None;
        }
        let w0 = word(self.rest);
        let a = ((w0 >> 32) & 0xff) as usize;
        let end = (16 + 8 * a).min(self.rest.len());
        let r = Record {
            id: w0 as u32,
            ticks: word(&self.rest[8..]),
            tseq: self.tseq,
            args: Args(&self.rest[16..end]),
        };
        self.rest = &self.rest[end..];
        self.tseq = self.tseq.wrapping_add(1);
        self.left -= 1;
        Some(r)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl ExactSizeIterator for Records<'_> {}

/// Totals of one thread, in `end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadTotals {
    pub thread: i64,
    pub produced: i64,
    pub lost: i64,
}

/// `end`: the stream is over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct End {
    /// The number of batches sent.
    pub seq: i64,
    pub threads: Vec<ThreadTotals>,
}

impl Message {
    /// The document's `t`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Message::Hello(_) => "hello",
            Message::Schema(_) => "schema",
            Message::Batch(_) => "batch",
            Message::End(_) => "end",
            Message::Mark(_) => "mark",
            Message::Ack(_) => "ack",
            Message::Error(_) => "error",
        }
    }

    /// Reads one document (all of it checked as BSON first).  Error
    /// offsets are from the document's first byte.
    pub fn parse(doc: RawDocumentBuf) -> Result<Message> {
        raw::validate(&doc)?;
        parse_valid(doc, Origin::default())
    }
}

/// [`Message::parse`] of a document already checked as BSON; errors placed
/// at `origin`.
pub(crate) fn parse_valid(doc: RawDocumentBuf, origin: Origin) -> Result<Message> {
    let place = |e: StreamError| e.shifted(origin.offset).with_peer(&origin.peer);
    let f = Fields::top(&doc, "document");
    let t = match f.find("t").map_err(place)? {
        None => return Err(place(f.error(0, "no field `t` (the document's type)"))),
        Some(Elem {
            value: RawBsonRef::String(t),
            ..
        }) => t,
        Some(e) => {
            return Err(place(f.error(
                e.offset,
                format_args!(
                    "field `t` is {}, expected string",
                    raw::type_name(e.value.element_type())
                ),
            )))
        }
    };
    let mut f = f;
    f.what = t.to_string();
    let m = match t {
        "hello" => parse_hello(&f).map(Message::Hello),
        "schema" => parse_events(&f, false).map(Message::Schema),
        "batch" => {
            let (header, ev) = parse_batch(&f).map_err(place)?;
            return Ok(Message::Batch(Batch {
                header,
                doc,
                ev,
                origin,
            }));
        }
        "end" => parse_end(&f).map(Message::End),
        "mark" => f.i64("ns").map(|(_, ns)| Message::Mark(ns)),
        "ack" => parse_ack(&f).map(Message::Ack),
        "error" => f.str("msg").map(|(_, s)| Message::Error(s.to_string())),
        other => {
            let shown: String = other.chars().take(40).collect();
            Err(f.error(
                f.find("t").ok().flatten().map_or(0, |e| e.offset),
                format_args!(
                    "unknown document type {shown:?} (this collector reads hello, schema, \
                     batch, end, mark, ack, error)"
                ),
            ))
        }
    };
    m.map_err(place)
}

fn parse_hello(f: &Fields<'_>) -> Result<Hello> {
    // The version first: a later version's fields may differ.
    let (off, v) = f.i32("v")?;
    if v != VERSION {
        return Err(StreamError::new(
            ErrorKind::Version,
            off as u64,
            format!("unsupported stream format version {v} (this collector reads {VERSION})"),
        ));
    }
    let (_, stream) = f.str("stream")?;
    let (_, program) = f.str("program")?;
    let (_, pid) = f.i32("pid")?;
    let (_, host) = f.str("host")?;
    let (off, mode) = f.str("mode")?;
    let mode = match mode {
        "lossless" => Mode::Lossless,
        "discard" => Mode::Discard,
        other => {
            return Err(f.error(
                off,
                format_args!("`mode` is {other:?}, expected \"lossless\" or \"discard\""),
            ))
        }
    };
    let (off, resume) = f.i64("resume")?;
    if resume < 0 {
        return Err(f.error(
            off,
            format_args!("`resume` is {resume}, batch numbers start at 0"),
        ));
    }
    let events = parse_events(f, true)?;
    Ok(Hello {
        stream: stream.to_string(),
        program: program.to_string(),
        pid,
        host: host.to_string(),
        mode,
        resume,
        events,
    })
}

/// `events`: dense ids, from 0 in `hello`, from the smallest one in a
/// `schema` document (which [`Schema::extend`] places after the others).
/// Returned sorted by id.
fn parse_events(f: &Fields<'_>, hello: bool) -> Result<Vec<EventDecl>> {
    let entries = f.array("events")?;
    let mut decls = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let what = format!("{}: events[{i}]", f.what);
        let ef = f.entry(e, what)?;
        let (off, id) = ef.i32("id")?;
        if id < 0 {
            return Err(ef.error(off, format_args!("`id` is {id}, ids start at 0")));
        }
        let (_, name) = ef.str("name")?;
        let (off, kind) = ef.str("kind")?;
        let kind = EventKind::from_name(kind).ok_or_else(|| {
            ef.error(
                off,
                format_args!(
                    "`kind` is {kind:?}, expected entry, return, event, verdict, uprobe or \
                     tracepoint"
                ),
            )
        })?;
        let words = ef.array("args")?;
        if words.len() > MAX_ARGS {
            return Err(ef.error(
                ef.offset(),
                format_args!(
                    "{} argument words, a record holds at most {MAX_ARGS}",
                    words.len()
                ),
            ));
        }
        let mut args = Vec::with_capacity(words.len());
        for (j, w) in words.iter().enumerate() {
            match w.value {
                RawBsonRef::String(s) => match ArgType::from_name(s) {
                    Some(a) => args.push(a),
                    None => {
                        return Err(ef.error(
                            w.offset,
                            format_args!("args[{j}] is {s:?}, expected i64, u64 or ptr"),
                        ))
                    }
                },
                other => {
                    return Err(ef.error(
                        w.offset,
                        format_args!(
                            "args[{j}] is {}, expected string",
                            raw::type_name(other.element_type())
                        ),
                    ))
                }
            }
        }
        let names = parse_names(&ef, args.len())?;
        decls.push((
            e.offset,
            EventDecl {
                id: id as u32,
                name: name.to_string(),
                kind,
                args,
                names,
            },
        ));
    }
    // Dense: n entries with distinct ids from `first` to `first + n - 1`.
    let first = if hello {
        0
    } else {
        decls.iter().map(|(_, d)| d.id).min().unwrap_or(0)
    };
    let n = decls.len();
    let mut slots: Vec<Option<usize>> = vec![None; n];
    for (i, (off, d)) in decls.iter().enumerate() {
        let slot = (d.id - first) as usize;
        if slot >= n {
            return Err(f.error(
                *off,
                format_args!(
                    "events[{i}]: id {} leaves a gap: the {n} events must have ids {first}..{}",
                    d.id,
                    first as usize + n - 1
                ),
            ));
        }
        if let Some(j) = slots[slot] {
            return Err(f.error(
                *off,
                format_args!("events[{i}]: id {} is declared twice (events[{j}])", d.id),
            ));
        }
        slots[slot] = Some(i);
    }
    decls.sort_by_key(|(_, d)| d.id);
    Ok(decls.into_iter().map(|(_, d)| d).collect())
}

/// The optional `names` of an event declaration: strings, one per
/// argument word.
fn parse_names(ef: &Fields<'_>, words: usize) -> Result<Vec<String>> {
    let Some(e) = ef.find("names")? else {
        return Ok(Vec::new());
    };
    if !matches!(e.value, RawBsonRef::Array(_)) {
        return Err(ef.error(
            e.offset,
            format_args!(
                "`names` is {}, expected array",
                raw::type_name(e.value.element_type())
            ),
        ));
    }
    let entries = ef.array("names")?;
    if entries.len() != words {
        return Err(ef.error(
            e.offset,
            format_args!(
                "`names` has {} entries, `args` {words}: one name per argument word",
                entries.len()
            ),
        ));
    }
    let mut names = Vec::with_capacity(words);
    for (j, w) in entries.iter().enumerate() {
        match w.value {
            RawBsonRef::String(s) => names.push(s.to_string()),
            other => {
                return Err(ef.error(
                    w.offset,
                    format_args!(
                        "names[{j}] is {}, expected string",
                        raw::type_name(other.element_type())
                    ),
                ))
            }
        }
    }
    Ok(names)
}

fn parse_batch(f: &Fields<'_>) -> Result<(BatchHeader, Range<usize>)> {
    let (off, seq) = f.i64("seq")?;
    if seq < 0 {
        return Err(f.error(
            off,
            format_args!("`seq` is {seq}, batch numbers start at 0"),
        ));
    }
    // `what` names the batch from here on.
    let f = f.renamed(format!("batch {seq}"));
    let (_, thread) = f.i64("thread")?;
    let (off, tseq) = f.i64("tseq")?;
    if tseq < 0 {
        return Err(f.error(
            off,
            format_args!("`tseq` is {tseq}, sequence numbers start at 0"),
        ));
    }
    let (off, lost) = f.i64("lost")?;
    if lost < 0 {
        return Err(f.error(off, format_args!("`lost` is {lost}, a count")));
    }
    let (off, n) = f.i32("n")?;
    if n < 0 {
        return Err(f.error(off, format_args!("`n` is {n}, a count")));
    }
    let c = f.doc("clock")?;
    let (_, tsc) = c.i64("tsc")?;
    let (_, ns) = c.i64("ns")?;
    let (off, ns_per_tick) = c.f64("ns_per_tick")?;
    if !(ns_per_tick.is_finite() && ns_per_tick > 0.0) {
        return Err(c.error(
            off,
            format_args!("`ns_per_tick` is {ns_per_tick}, expected a positive number"),
        ));
    }
    let (off, ev) = f.binary("ev")?;
    let subtype = u8::from(ev.subtype);
    if subtype != EV_SUBTYPE {
        return Err(f.error(
            off,
            format_args!("`ev` has binary subtype {subtype:#04x}, expected {EV_SUBTYPE:#04x}"),
        ));
    }
    let start = f.offset_of(ev.bytes);
    let bytes = ev.bytes;
    if bytes.len() % 8 != 0 {
        return Err(f.error(
            off,
            format_args!(
                "`ev` is {} bytes long, not a multiple of 8 (records are 64-bit words)",
                bytes.len()
            ),
        ));
    }
    // Walk the records: word 0 of each says how many words follow.
    let mut pos = 0;
    let mut count: u64 = 0;
    while pos < bytes.len() {
        let w0 = word(&bytes[pos..]);
        let at = start + pos;
        if w0 >> 40 != 0 {
            return Err(f.error(
                at,
                format_args!(
                    "record {count}: bits 40-63 of its first word are not 0 (word {w0:#018x})"
                ),
            ));
        }
        let words = 2 + ((w0 >> 32) & 0xff) as usize;
        let left = (bytes.len() - pos) / 8;
        if words > left {
            return Err(f.error(
                at,
                format_args!(
                    "record {count} (word {} of `ev`) needs {words} words, {left} remain",
                    pos / 8
                ),
            ));
        }
        pos += 8 * words;
        count += 1;
    }
    if count != n as u64 {
        return Err(f.error(off, format_args!("`n` is {n}, `ev` holds {count} records")));
    }
    let header = BatchHeader {
        seq,
        thread,
        tseq,
        lost,
        n: n as u32,
        clock: Clock {
            tsc: tsc as u64,
            ns,
            ns_per_tick,
        },
    };
    Ok((header, start..start + bytes.len()))
}

fn parse_end(f: &Fields<'_>) -> Result<End> {
    let (off, seq) = f.i64("seq")?;
    if seq < 0 {
        return Err(f.error(off, format_args!("`seq` is {seq}, a count of batches")));
    }
    let entries = f.array("threads")?;
    let mut threads = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let tf = f.entry(e, format!("end: threads[{i}]"))?;
        let (_, thread) = tf.i64("thread")?;
        let (off, produced) = tf.i64("produced")?;
        if produced < 0 {
            return Err(tf.error(off, format_args!("`produced` is {produced}, a count")));
        }
        let (off, lost) = tf.i64("lost")?;
        if lost < 0 {
            return Err(tf.error(off, format_args!("`lost` is {lost}, a count")));
        }
        threads.push(ThreadTotals {
            thread,
            produced,
            lost,
        });
    }
    Ok(End { seq, threads })
}

fn parse_ack(f: &Fields<'_>) -> Result<i64> {
    let (off, seq) = f.i64("seq")?;
    if seq < -1 {
        return Err(f.error(
            off,
            format_args!("`seq` is {seq}; the smallest is -1 (no batch stored)"),
        ));
    }
    Ok(seq)
}
