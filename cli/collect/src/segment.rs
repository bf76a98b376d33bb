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

use std::collections::HashSet;
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
    /// Rows read back from a file (compaction) carry their names as
    /// bytes: each distinct name's id here, and (event id, kind id) to the
    /// index in `types`, so a row costs two short lookups instead of an
    /// interning (a lock and a string hash) per value.
    name_ids: FxHashMap<Box<[u8]>, u32>,
    type_by_names: FxHashMap<(u32, u32), u32>,
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

/// Filling rows from a segment read back (read::load, for compaction):
/// whole columns at a time, the caller keeping them the same length.
impl Rows {
    /// Room for `n` more rows of about two argument words each.
    pub(crate) fn reserve(&mut self, n: usize) {
        for c in [&mut self.thread, &mut self.tseq, &mut self.ns] {
            c.reserve(n);
        }
        self.ty.reserve(n);
        self.args.reserve(2 * n);
        self.args_def.reserve(2 * n);
        self.args_rep.reserve(2 * n);
    }

    /// `n` rows of `stream`, joined to the run before when it is the same.
    pub(crate) fn push_stream_run(&mut self, stream: &ByteArray, n: usize) {
        match self.stream.last_mut() {
            Some((s, k)) if s.data() == stream.data() => *k += n,
            _ => self.stream.push((stream.clone(), n)),
        }
    }

    /// The columns `thread`, `tseq`, `ns`, to append decoded values to.
    pub(crate) fn int_columns_mut(&mut self) -> [&mut Vec<i64>; 3] {
        [&mut self.thread, &mut self.tseq, &mut self.ns]
    }

    /// `args` with its definition and repetition levels: the file's own
    /// levels (max definition 1, max repetition 1) are the same scheme.
    pub(crate) fn args_mut(&mut self) -> (&mut Vec<i64>, &mut Vec<i16>, &mut Vec<i16>) {
        (&mut self.args, &mut self.args_def, &mut self.args_rep)
    }

    /// The type index of an (event, kind) as a file holds them, for
    /// [`push_type_index`](Self::push_type_index).
    pub(crate) fn type_index_bytes(&mut self, event: &[u8], kind: &[u8]) -> Result<u32> {
        let key = (self.name_id(event), self.name_id(kind));
        if let Some(&t) = self.type_by_names.get(&key) {
            return Ok(t);
        }
        let text = |b: &[u8]| {
            std::str::from_utf8(b).map(static_bytes).map_err(|_| Error::new("a name that is not UTF-8"))
        };
        let (e, k) = (text(event)?, text(kind)?);
        let t = self.type_of(&e, &k);
        self.type_by_names.insert(key, t);
        Ok(t)
    }

    /// One row's (event, kind), by its type index.
    pub(crate) fn push_type_index(&mut self, ty: u32) {
        self.ty.push(ty);
    }

    fn name_id(&mut self, name: &[u8]) -> u32 {
        if let Some(&i) = self.name_ids.get(name) {
            return i;
        }
        let i = self.name_ids.len() as u32;
        self.name_ids.insert(name.into(), i);
        i
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
        self.sync_dir()?;
        Ok(written)
    }

    fn write_one(&self, id: i64, part: &Part<'_>) -> Result<(usize, u64)> {
        let name = Self::file_name(id);
        // not `*.parquet`: DuckDB's glob matches hidden files too, and a
        // query would fail on a file half written
        let tmp = self.dir.join(format!(".{name}.tmp"));
        let path = self.dir.join(&name);
        let bytes = self.write_synced(&tmp, part)?;
        fs::rename(&tmp, &path).ctx(|| format!("renaming {} to {name}", tmp.display()))?;
        Ok((part.len(), bytes))
    }

    /// `part` encoded into a new file at `path`, fsynced: its size.
    fn write_synced(&self, path: &Path, part: &Part<'_>) -> Result<u64> {
        let file = File::create(path).ctx(|| path.display().to_string())?;
        let file = self
            .encode(file, part)
            .ctx(|| format!("writing {}", path.display()))?;
        file.sync_all().ctx(|| format!("fsync {}", path.display()))?;
        Ok(file.metadata().map(|m| m.len()).unwrap_or(0))
    }

    /// All of `rows` as one segment at `events/NAME` where NAME is
    /// [`merging_name`](Self::merging_name)`(file)`, it and the directory
    /// fsynced (compaction: the catalog names `file` only once this holds).
    /// Returns its size.
    pub fn write_merged(&self, rows: &Rows, file: &str) -> Result<u64> {
        let part = rows.parts(1).pop().expect("one part");
        let bytes = self.write_synced(&self.dir.join(Self::merging_name(file)), &part)?;
        self.sync_dir()?;
        Ok(bytes)
    }

    pub fn sync_dir(&self) -> Result<()> {
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .ctx(|| format!("fsync {}", self.dir.display()))
    }

    /// The name of a merged segment that takes the place (and the id) of
    /// segments up to `last`: `ID.mG.parquet`, G one more than `last`'s
    /// (a plain `ID.parquet` counts as 0).  A name no file had before: a
    /// reader that listed the directory earlier and opens names later gets
    /// "no such file" for a replaced segment, never new rows under a name
    /// it already counted.
    pub fn merged_name(id: i64, last: &str) -> String {
        let g = last
            .strip_suffix(".parquet")
            .and_then(|s| s.rsplit_once(".m"))
            .and_then(|(_, g)| g.parse::<u64>().ok())
            .unwrap_or(0);
        format!("{id:08}.m{}.parquet", g + 1)
    }

    /// Where a merged segment is written before it is swapped in: hidden,
    /// and not `*.parquet` (DuckDB's glob matches hidden files too).
    pub fn merging_name(file: &str) -> String {
        format!(".{file}.merging")
    }

    fn merging_target(name: &str) -> Option<&str> {
        name.strip_prefix('.')?.strip_suffix(".merging")
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

    /// Brings `events/` back to what the catalog names (`committed`)
    /// after a crash, in two steps:
    ///
    /// 1. removes every `*.parquet` file the catalog does not name (a
    ///    commit's segments written and never committed, whose batches
    ///    were never acknowledged; segments a committed compaction replaced
    ///    and had not removed yet), every `.NAME.tmp` (a segment being
    ///    written; `.tmp-NAME` before), and every `.NAME.merging` file the
    ///    catalog does not expect (a compaction that crashed before its
    ///    transaction: the segments it merged are still named and in
    ///    place); then fsyncs the directory;
    /// 2. completes what a committed compaction left undone: NAME named by
    ///    the catalog, absent, `.NAME.merging` present (written and
    ///    fsynced before the transaction) is renamed to NAME, and the
    ///    directory fsynced.
    ///
    /// Removals are durable before renames, as in the compaction itself
    /// (compact.rs): a reader globbing `*.parquet` never sees a merged file
    /// next to one it replaced, even across another crash.
    pub fn recover(&self, committed: &[String]) -> Result<Recovered> {
        let named: HashSet<&str> = committed.iter().map(String::as_str).collect();
        let mut r = Recovered::default();
        let mut present = HashSet::new();
        let mut merging = Vec::new();
        let entries = fs::read_dir(&self.dir).ctx(|| self.dir.display().to_string())?;
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let stray = match Self::merging_target(&name) {
                Some(target) => {
                    merging.push((name.clone(), target.to_string()));
                    false
                }
                // `.NAME.tmp`: a commit's segment being written
                None if name.starts_with('.') && name.ends_with(".tmp") => true,
                None => name.ends_with(".parquet") && !named.contains(name.as_str()),
            };
            if stray {
                fs::remove_file(e.path()).ctx(|| e.path().display().to_string())?;
                r.removed.push(name);
            } else {
                present.insert(name);
            }
        }
        let (finish, stray): (Vec<_>, Vec<_>) = merging
            .into_iter()
            .partition(|(_, target)| named.contains(target.as_str()) && !present.contains(target));
        for (tmp, _) in stray {
            let path = self.dir.join(&tmp);
            fs::remove_file(&path).ctx(|| path.display().to_string())?;
            r.removed.push(tmp);
        }
        if !r.removed.is_empty() {
            self.sync_dir()?;
        }
        for (tmp, target) in finish {
            fs::rename(self.dir.join(&tmp), self.dir.join(&target))
                .ctx(|| format!("renaming {tmp} to {target} in {}", self.dir.display()))?;
            present.insert(target.clone());
            r.renamed.push(target);
        }
        if !r.renamed.is_empty() {
            self.sync_dir()?;
        }
        r.missing = committed.iter().filter(|f| !present.contains(*f)).cloned().collect();
        Ok(r)
    }
}

/// What [`SegmentWriter::recover`] did and found.
#[derive(Debug, Default)]
pub struct Recovered {
    /// Files removed: never committed, or replaced by a compaction.
    pub removed: Vec<String>,
    /// Merged segments put in place (a compaction interrupted after its
    /// catalog transaction).
    pub renamed: Vec<String>,
    /// Files the catalog names that are not there (nothing vigil does
    /// leaves this: a file removed by hand, or a damaged filesystem).
    pub missing: Vec<String>,
}
