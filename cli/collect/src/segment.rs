//! Events as Parquet: one file per commit (`STORE/events/NNNNNNNN.parquet`,
//! one row group), a row per event:
//!
//! | column | Parquet | meaning |
//! |---|---|---|
//! | `stream` | BYTE_ARRAY (UTF8), dictionary | the producer: `host:pid:start-ns` |
//! | `thread` | INT64, dictionary | kernel thread id |
//! | `tseq` | INT64, delta | the thread's sequence number of the event |
//! | `ns` | INT64, delta | `CLOCK_MONOTONIC` time of the event (ns) |
//! | `event` | BYTE_ARRAY (UTF8), dictionary | the event's name (`open_file`) |
//! | `kind` | BYTE_ARRAY (UTF8), dictionary | entry, return, event, verdict, uprobe, tracepoint |
//! | `args` | LIST<INT64> | the argument words, as signed 64-bit (a return's is its value) |
//!
//! Rows are in arrival order: a batch's events are consecutive, in their
//! thread's order.  Strings repeat, so dictionary pages hold them once per
//! file; sequence numbers and times are nearly arithmetic, so delta
//! encoding stores each in a few bits; statistics (min/max) are kept for
//! the integer columns only, which is what a reader filters on.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::{ColumnPath, Type};

use vigil_trace::fxhash::FxHashMap;

use crate::error::{Context, Error, Result};

pub const SCHEMA: &str = "message vigil_events {
  REQUIRED BYTE_ARRAY stream (UTF8);
  REQUIRED INT64 thread;
  REQUIRED INT64 tseq;
  REQUIRED INT64 ns;
  REQUIRED BYTE_ARRAY event (UTF8);
  REQUIRED BYTE_ARRAY kind (UTF8);
  REQUIRED group args (LIST) { REPEATED group list { REQUIRED INT64 element; } }
}";

/// How segments are compressed (`--compression`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    None,
    Snappy,
    Zstd,
}

impl Codec {
    pub fn parse(s: &str) -> Option<Codec> {
        match s {
            "none" => Some(Codec::None),
            "snappy" => Some(Codec::Snappy),
            "zstd" => Some(Codec::Zstd),
            _ => None,
        }
    }

    fn compression(self) -> Compression {
        match self {
            Codec::None => Compression::UNCOMPRESSED,
            Codec::Snappy => Compression::SNAPPY,
            Codec::Zstd => Compression::ZSTD(ZstdLevel::default()),
        }
    }
}

/// The rows of the segment being filled.
#[derive(Default)]
pub struct Rows {
    /// `stream` as runs (value, rows): consecutive batches of one producer
    /// make one run, so the column costs nothing per row until encoded.
    stream: Vec<(ByteArray, usize)>,
    thread: Vec<i64>,
    tseq: Vec<i64>,
    ns: Vec<i64>,
    /// `event` and `kind` as an index into `types`: 4 bytes a row instead
    /// of two 32-byte ByteArrays, expanded a chunk at a time when encoded.
    ty: Vec<u32>,
    types: Vec<(ByteArray, ByteArray)>,
    /// (event, kind) data pointers (static_bytes: stable) to their index.
    type_index: FxHashMap<(usize, usize), u32>,
    args: Vec<i64>,
    /// Definition levels of `args`: 1 per word, 0 for an empty list.
    args_def: Vec<i16>,
    /// Repetition levels of `args`: 0 starts a row's list.
    args_rep: Vec<i16>,
    /// Where each batch starts: (row, level), for splitting a commit
    /// into parts at batch boundaries.
    starts: Vec<(usize, usize)>,
}

impl Rows {
    /// Room for `n` rows of a few words each, reserved once: rows are
    /// reused from one segment to the next, and a vector that grows while
    /// filling would copy itself into fresh pages (measured: a quarter of
    /// the store thread's time).  Reserved memory costs nothing until used.
    pub fn with_capacity(n: usize) -> Rows {
        Rows {
            thread: Vec::with_capacity(n),
            tseq: Vec::with_capacity(n),
            ns: Vec::with_capacity(n),
            ty: Vec::with_capacity(n),
            args: Vec::with_capacity(2 * n),
            args_def: Vec::with_capacity(2 * n),
            args_rep: Vec::with_capacity(2 * n),
            ..Rows::default()
        }
    }

    pub fn len(&self) -> usize {
        self.tseq.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tseq.is_empty()
    }

    /// Starts `n` rows of `stream` (one batch).
    pub fn begin(&mut self, stream: &ByteArray, n: usize) {
        self.starts.push((self.tseq.len(), self.args_def.len()));
        match self.stream.last_mut() {
            Some((s, k)) if s.data() == stream.data() => *k += n,
            _ => self.stream.push((stream.clone(), n)),
        }
    }

    /// The index of an (event, kind) pair, both [`static_bytes`].
    #[inline]
    fn type_of(&mut self, event: &ByteArray, kind: &ByteArray) -> u32 {
        let key = (event.data().as_ptr() as usize, kind.data().as_ptr() as usize);
        if let Some(&i) = self.type_index.get(&key) {
            return i;
        }
        self.types.push((event.clone(), kind.clone()));
        let i = self.types.len() as u32 - 1;
        self.type_index.insert(key, i);
        i
    }

    /// One event of the batch begun last.  `event` and `kind` must be
    /// [`static_bytes`] (their addresses identify them).
    #[inline]
    pub fn push(
        &mut self,
        thread: i64,
        tseq: i64,
        ns: i64,
        event: &ByteArray,
        kind: &ByteArray,
        args: impl ExactSizeIterator<Item = u64>,
    ) {
        let ty = self.type_of(event, kind);
        self.thread.push(thread);
        self.tseq.push(tseq);
        self.ns.push(ns);
        self.ty.push(ty);
        if args.len() == 0 {
            self.args_def.push(0);
            self.args_rep.push(0);
            return;
        }
        for (i, a) in args.enumerate() {
            self.args.push(a as i64);
            self.args_def.push(1);
            self.args_rep.push((i > 0) as i16);
        }
    }

    /// Empties the rows, keeping their memory (and the type table) for the
    /// next segment.
    pub fn clear(&mut self) {
        self.stream.clear();
        self.thread.clear();
        self.tseq.clear();
        self.ns.clear();
        self.ty.clear();
        self.args.clear();
        self.args_def.clear();
        self.args_rep.clear();
        self.starts.clear();
    }

    /// The rows as `k` parts of about equal size, cut at batch boundaries.
    pub fn parts(&self, k: usize) -> Vec<Part<'_>> {
        let mut cuts = vec![(0, 0)];
        for i in 1..k {
            let want = self.len() * i / k;
            let j = self.starts.partition_point(|s| s.0 < want);
            match self.starts.get(j) {
                Some(&c) if c.0 > cuts.last().unwrap().0 => cuts.push(c),
                _ => {}
            }
        }
        cuts.push((self.len(), self.args_def.len()));
        cuts.windows(2).map(|w| self.part(w[0], w[1])).collect()
    }

    fn part(&self, (r0, l0): (usize, usize), (r1, l1): (usize, usize)) -> Part<'_> {
        // the stream runs that cover rows [r0, r1)
        let mut stream = Vec::new();
        let mut at = 0;
        for (v, n) in &self.stream {
            let (a, b) = (at.max(r0), (at + n).min(r1));
            if a < b {
                stream.push((v.clone(), b - a));
            }
            at += n;
        }
        let a0 = self.args_def[..l0].iter().filter(|&&d| d == 1).count();
        let a1 = a0 + self.args_def[l0..l1].iter().filter(|&&d| d == 1).count();
        Part {
            stream,
            thread: &self.thread[r0..r1],
            tseq: &self.tseq[r0..r1],
            ns: &self.ns[r0..r1],
            ty: &self.ty[r0..r1],
            types: &self.types,
            args: &self.args[a0..a1],
            args_def: &self.args_def[l0..l1],
            args_rep: &self.args_rep[l0..l1],
        }
    }
}

/// A run of whole batches of a [`Rows`], written as one segment file.
pub struct Part<'a> {
    stream: Vec<(ByteArray, usize)>,
    thread: &'a [i64],
    tseq: &'a [i64],
    ns: &'a [i64],
    ty: &'a [u32],
    types: &'a [(ByteArray, ByteArray)],
    args: &'a [i64],
    args_def: &'a [i16],
    args_rep: &'a [i16],
}

impl Part<'_> {
    pub fn len(&self) -> usize {
        self.tseq.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tseq.is_empty()
    }
}

/// `s` as a ByteArray over memory that is never freed, interned: event
/// names and kinds repeat across producers (the same program's functions),
/// so this holds each distinct name once, and cloning one per row copies a
/// pointer instead of counting references.
pub fn static_bytes(s: &str) -> ByteArray {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES.get_or_init(Default::default).lock().unwrap();
    let stat: &'static str = match names.get(s) {
        Some(&k) => k,
        None => {
            let k: &'static str = Box::leak(s.to_string().into_boxed_str());
            names.insert(k);
            k
        }
    };
    ByteArray::from(bytes::Bytes::from_static(stat.as_bytes()))
}

/// Writes segments into `STORE/events/`.
pub struct SegmentWriter {
    dir: PathBuf,
    schema: Arc<Type>,
    props: Arc<WriterProperties>,
}

impl SegmentWriter {
    pub fn new(store: &Path, codec: Codec) -> Result<SegmentWriter> {
        let dir = store.join("events");
        fs::create_dir_all(&dir).ctx(|| dir.display().to_string())?;
        let schema = Arc::new(parse_message_type(SCHEMA).map_err(|e| Error(e.to_string()))?);
        let no_stats = |b: parquet::file::properties::WriterPropertiesBuilder, c: &str| {
            b.set_column_statistics_enabled(ColumnPath::from(c), EnabledStatistics::None)
        };
        let args = ColumnPath::from(vec!["args".into(), "list".into(), "element".into()]);
        let mut b = WriterProperties::builder()
            .set_compression(codec.compression())
            .set_max_row_group_size(usize::MAX)
            .set_created_by("vigil collect".into());
        for c in ["tseq", "ns"] {
            b = b
                .set_column_dictionary_enabled(ColumnPath::from(c), false)
                .set_column_encoding(ColumnPath::from(c), Encoding::DELTA_BINARY_PACKED);
        }
        for c in ["stream", "event", "kind"] {
            b = no_stats(b, c);
        }
        b = b
            .set_column_dictionary_enabled(args.clone(), false)
            .set_column_statistics_enabled(args, EnabledStatistics::None);
        Ok(SegmentWriter {
            dir,
            schema,
            props: Arc::new(b.build()),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn file_name(id: i64) -> String {
        format!("{id:08}.parquet")
    }

    /// Writes `rows` as segments `first`, `first + 1`, ...: one file per
    /// part, the parts encoded on threads of their own (the committer is
    /// the collector's busiest thread, and encoding is most of its work),
    /// each file durable: a temporary file, fsync, rename; then one fsync
    /// of the directory.  Returns each file's rows and size.
    pub fn write(&self, first: i64, rows: &Rows, parts: usize) -> Result<Vec<(usize, u64)>> {
        let parts = rows.parts(parts.max(1));
        let results: Vec<Result<(usize, u64)>> = std::thread::scope(|sc| {
            let handles: Vec<_> = parts
                .iter()
                .enumerate()
                .map(|(i, p)| sc.spawn(move || self.write_one(first + i as i64, p)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(Error::new("segment encoder panicked"))))
                .collect()
        });
        let written = results.into_iter().collect::<Result<Vec<_>>>()?;
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .ctx(|| format!("fsync {}", self.dir.display()))?;
        Ok(written)
    }

    fn write_one(&self, id: i64, part: &Part<'_>) -> Result<(usize, u64)> {
        let name = Self::file_name(id);
        let tmp = self.dir.join(format!(".tmp-{name}"));
        let path = self.dir.join(&name);
        let file = File::create(&tmp).ctx(|| tmp.display().to_string())?;
        let file = self
            .encode(file, part)
            .ctx(|| format!("writing {}", tmp.display()))?;
        file.sync_all().ctx(|| format!("fsync {}", tmp.display()))?;
        let bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
        drop(file);
        fs::rename(&tmp, &path).ctx(|| format!("renaming {} to {name}", tmp.display()))?;
        Ok((part.len(), bytes))
    }

    fn encode(&self, file: File, rows: &Part<'_>) -> parquet::errors::Result<File> {
        let mut w = SerializedFileWriter::new(file, self.schema.clone(), self.props.clone())?;
        let mut rg = w.next_row_group()?;
        let mut i = 0;
        while let Some(mut col) = rg.next_column()? {
            match i {
                0 => {
                    let w = col.typed::<ByteArrayType>();
                    for (value, n) in &rows.stream {
                        let chunk = vec![value.clone(); (*n).min(4096)];
                        let mut left = *n;
                        while left > 0 {
                            let k = left.min(chunk.len());
                            w.write_batch(&chunk[..k], None, None)?;
                            left -= k;
                        }
                    }
                    0
                }
                1 => col.typed::<Int64Type>().write_batch(rows.thread, None, None)?,
                2 => col.typed::<Int64Type>().write_batch(rows.tseq, None, None)?,
                3 => col.typed::<Int64Type>().write_batch(rows.ns, None, None)?,
                4 | 5 => {
                    let w = col.typed::<ByteArrayType>();
                    let mut chunk = Vec::with_capacity(4096);
                    for tys in rows.ty.chunks(4096) {
                        chunk.clear();
                        let pick = |t: &u32| {
                            let (e, k) = &rows.types[*t as usize];
                            if i == 4 { e.clone() } else { k.clone() }
                        };
                        chunk.extend(tys.iter().map(pick));
                        w.write_batch(&chunk, None, None)?;
                    }
                    0
                }
                _ => col.typed::<Int64Type>().write_batch(
                    rows.args,
                    Some(rows.args_def),
                    Some(rows.args_rep),
                )?,
            };
            col.close()?;
            i += 1;
        }
        rg.close()?;
        w.into_inner()
    }

    /// Removes what a crash left: temporary files, and segment files the
    /// catalog does not name (written, never committed, never acknowledged).
    pub fn remove_uncommitted(&self, committed: &[String]) -> Result<Vec<String>> {
        let mut removed = Vec::new();
        let entries = fs::read_dir(&self.dir).ctx(|| self.dir.display().to_string())?;
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let ours = name.ends_with(".parquet");
            if ours && !committed.contains(&name) {
                fs::remove_file(e.path()).ctx(|| e.path().display().to_string())?;
                removed.push(name);
            }
        }
        Ok(removed)
    }
}
