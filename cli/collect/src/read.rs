//! Reading a store's events back: every event in the catalog's segment
//! order, row by row (exports, tests), and whole segments column by column
//! into [`Rows`] (compaction).

use std::fs::File;
use std::io::ErrorKind;
use std::path::Path;
use std::time::Duration;

use parquet::column::reader::{get_typed_column_reader, ColumnReaderImpl};
use parquet::data_type::{ByteArray, ByteArrayType, DataType, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::reader::{FileReader, RowGroupReader, SerializedFileReader};
use parquet::record::{Field, Row};

use crate::catalog::{Catalog, SegmentRow};
use crate::error::{Context, Error, Result};
use crate::segment::{Rows, SegmentWriter};

/// One stored event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub stream: String,
    pub thread: i64,
    pub tseq: i64,
    pub ns: i64,
    pub event: String,
    pub kind: String,
    pub args: Vec<i64>,
}

/// Calls `f` on every event of the store, segment by segment, each once,
/// also while a collector writes and compacts the store.
///
/// A compaction merges consecutive segments, in order, into the place of
/// the last of them, so the sequence of the store's rows (every segment's
/// rows, in id order) is the same before and after it; new commits only
/// append to it.  A listing of the catalog can go stale (a segment it
/// names was merged and removed since): then this lists again and goes on
/// from the number of rows already passed to `f`.  Names are never reused
/// (segment.rs, `merged_name`), so a file opened under a listed name holds
/// the listed rows.
pub fn for_each(store: &Path, mut f: impl FnMut(Event) -> Result<()>) -> Result<()> {
    let catalog = Catalog::open_existing(store)?;
    let dir = store.join("events");
    let mut done = 0u64;
    let mut attempts = 0;
    loop {
        let segments = catalog.segments()?;
        match read_from(&dir, &segments, &mut done, &mut f)? {
            None => return Ok(()),
            Some(_) if attempts < 100 => {
                attempts += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            Some(file) => {
                return Err(Error(format!(
                    "{}: the catalog names this segment, and it is not there",
                    dir.join(file).display()
                )))
            }
        }
    }
}

/// Passes the rows from number `done` on to `f`.  Returns the segment
/// that is gone, if the listing went stale.
fn read_from(
    dir: &Path,
    segments: &[SegmentRow],
    done: &mut u64,
    f: &mut impl FnMut(Event) -> Result<()>,
) -> Result<Option<String>> {
    let mut at = 0u64;
    for s in segments {
        let end = at + s.rows as u64;
        if end <= *done {
            at = end;
            continue;
        }
        let Some((path, reader)) = open_segment(dir, &s.file)? else {
            return Ok(Some(s.file.clone()));
        };
        let rows = reader.metadata().file_metadata().num_rows();
        if rows != s.rows {
            return Err(Error(format!("{}: {rows} rows, the catalog says {}", path, s.rows)));
        }
        let skip = (*done - at) as usize;
        for row in reader.get_row_iter(None).ctx(|| path.clone())?.skip(skip) {
            let row = row.ctx(|| path.clone())?;
            f(event(&row).map_err(|e| Error(format!("{path}: {e}")))?)?;
            *done += 1;
        }
        at = end;
    }
    Ok(None)
}

/// A segment the catalog names, opened: its file, or, while a compaction
/// swaps it in (or after a crash in the middle of that, before the next
/// open of the store), its `.merging` file, which holds the same rows.
/// None when neither is there.
fn open_segment(dir: &Path, file: &str) -> Result<Option<(String, SerializedFileReader<File>)>> {
    // the file again last: the `.merging` one may have been renamed to it
    // between the two tries
    for name in [file, &SegmentWriter::merging_name(file), file] {
        let path = dir.join(name);
        let shown = path.display().to_string();
        match File::open(&path) {
            Ok(f) => {
                let reader = SerializedFileReader::new(f).ctx(|| shown.clone())?;
                return Ok(Some((shown, reader)));
            }
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(Error(format!("{shown}: {e}"))),
        }
    }
    Ok(None)
}

fn event(row: &Row) -> std::result::Result<Event, String> {
    let mut e = Event {
        stream: String::new(),
        thread: 0,
        tseq: 0,
        ns: 0,
        event: String::new(),
        kind: String::new(),
        args: Vec::new(),
    };
    for (name, field) in row.get_column_iter() {
        match (name.as_str(), field) {
            ("stream", Field::Str(s)) => e.stream = s.clone(),
            ("thread", Field::Long(v)) => e.thread = *v,
            ("tseq", Field::Long(v)) => e.tseq = *v,
            ("ns", Field::Long(v)) => e.ns = *v,
            ("event", Field::Str(s)) => e.event = s.clone(),
            ("kind", Field::Str(s)) => e.kind = s.clone(),
            ("args", Field::ListInternal(l)) => {
                for a in l.elements() {
                    match a {
                        Field::Long(v) => e.args.push(*v),
                        other => return Err(format!("args holds {other:?}")),
                    }
                }
            }
            (n, f) => return Err(format!("unexpected column {n} = {f:?}")),
        }
    }
    Ok(e)
}

/// The columns of a segment (segment.rs, SCHEMA), in order.
const COLUMNS: [&str; 7] = ["stream", "thread", "tseq", "ns", "event", "kind", "args.list.element"];

/// Values decoded per call for the string columns.
const CHUNK: usize = 4096;

/// Appends the events of the segment file at `path` to `rows`, in order,
/// column by column with parquet's column readers (its record API builds
/// a `Row` of `Field`s per event and is many times slower).  Returns how
/// many.  On an error `rows` is partly filled: the caller clears it.
pub fn load(path: &Path, rows: &mut Rows) -> Result<usize> {
    let shown = || path.display().to_string();
    let file = File::open(path).ctx(shown)?;
    let reader = SerializedFileReader::new(file).ctx(shown)?;
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    let names: Vec<String> = schema.columns().iter().map(|c| c.path().string()).collect();
    if names != COLUMNS {
        return Err(Error(format!("{}: not a vigil segment (columns {names:?})", shown())));
    }
    let mut n = 0;
    for g in 0..reader.num_row_groups() {
        let group = reader.get_row_group(g).ctx(shown)?;
        let k = group.metadata().num_rows() as usize;
        load_group(&*group, k, rows).map_err(|e| Error(format!("{}: {e}", shown())))?;
        n += k;
    }
    Ok(n)
}

type PResult<T> = std::result::Result<T, ParquetError>;

fn load_group(group: &dyn RowGroupReader, n: usize, rows: &mut Rows) -> PResult<()> {
    let column = |i: usize| group.get_column_reader(i);
    let mut values = Vec::with_capacity(CHUNK);
    let mut stream = get_typed_column_reader::<ByteArrayType>(column(0)?);
    for k in chunks(n) {
        values.clear();
        read_exactly(&mut stream, k, &mut values)?;
        push_runs(rows, &values);
    }
    for (i, out) in rows.int_columns_mut().into_iter().enumerate() {
        let mut r = get_typed_column_reader::<Int64Type>(column(1 + i)?);
        out.reserve(n);
        read_exactly(&mut r, n, out)?;
    }
    let mut event = get_typed_column_reader::<ByteArrayType>(column(4)?);
    let mut kind = get_typed_column_reader::<ByteArrayType>(column(5)?);
    let mut kinds = Vec::with_capacity(CHUNK);
    let mut types = TypeCache::default();
    for k in chunks(n) {
        values.clear();
        kinds.clear();
        read_exactly(&mut event, k, &mut values)?;
        read_exactly(&mut kind, k, &mut kinds)?;
        for (e, k) in values.iter().zip(&kinds) {
            let ty = types.get(rows, e, k).map_err(|e| ParquetError::General(e.0))?;
            rows.push_type_index(ty);
        }
    }
    let mut args = get_typed_column_reader::<Int64Type>(column(6)?);
    let (vals, def, rep) = rows.args_mut();
    let mut left = n;
    while left > 0 {
        let (got, _, _) = args.read_records(left, Some(def), Some(rep), vals)?;
        if got == 0 {
            return Err(ParquetError::EOF(format!("args: {left} rows short")));
        }
        left -= got;
    }
    Ok(())
}

/// The (event, kind) pairs seen last, by where their bytes are: values
/// decoded from a column's dictionary are slices of it, so a name is the
/// same pointer each time, and a hit costs two comparisons instead of two
/// lookups by content.  Slots hold clones, which keep those buffers alive:
/// a pointer found here cannot have been reused for other bytes.
#[derive(Default)]
struct TypeCache {
    slots: [Option<(ByteArray, ByteArray, u32)>; 16],
}

impl TypeCache {
    #[inline]
    fn get(&mut self, rows: &mut Rows, event: &ByteArray, kind: &ByteArray) -> Result<u32> {
        let (e, k) = (event.data(), kind.data());
        // names in a dictionary are a few bytes apart: mix every bit
        let mix = (e.as_ptr() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ (k.as_ptr() as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
        let slot = (mix >> 60) as usize;
        if let Some((ce, ck, ty)) = &self.slots[slot] {
            if std::ptr::eq(ce.data(), e) && std::ptr::eq(ck.data(), k) {
                return Ok(*ty);
            }
        }
        let ty = rows.type_index_bytes(e, k)?;
        self.slots[slot] = Some((event.clone(), kind.clone(), ty));
        Ok(ty)
    }
}

/// `n` as a sequence of chunks of at most [`CHUNK`].
fn chunks(n: usize) -> impl Iterator<Item = usize> {
    (0..n).step_by(CHUNK).map(move |i| CHUNK.min(n - i))
}

/// Appends exactly `n` values of a flat required column to `out`.
fn read_exactly<T: DataType>(r: &mut ColumnReaderImpl<T>, n: usize, out: &mut Vec<T::T>) -> PResult<()> {
    let mut left = n;
    while left > 0 {
        let (got, _, _) = r.read_records(left, None, None, out)?;
        if got == 0 {
            return Err(ParquetError::EOF(format!("{left} values short")));
        }
        left -= got;
    }
    Ok(())
}

/// The `stream` values as runs (a file holds a producer's batches in runs).
fn push_runs(rows: &mut Rows, values: &[ByteArray]) {
    let mut i = 0;
    while i < values.len() {
        let v = &values[i];
        // the same dictionary entry is the same bytes: no memcmp
        let same = |w: &&ByteArray| std::ptr::eq(w.data(), v.data()) || w.data() == v.data();
        let j = i + values[i..].iter().take_while(same).count();
        rows.push_stream_run(v, j - i);
        i = j;
    }
}
