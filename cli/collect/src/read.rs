//! Reading a store's events back (exports, tests): the segments in commit
//! order, row by row.

use std::fs::File;
use std::path::Path;

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::{Field, Row};

use crate::catalog::Catalog;
use crate::error::{Context, Error, Result};

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

/// Calls `f` on every event of the store, segment by segment.
pub fn for_each(store: &Path, mut f: impl FnMut(Event) -> Result<()>) -> Result<()> {
    let catalog = Catalog::open_existing(store)?;
    for name in catalog.segment_files()? {
        let path = store.join("events").join(&name);
        let file = File::open(&path).ctx(|| path.display().to_string())?;
        let reader = SerializedFileReader::new(file).ctx(|| path.display().to_string())?;
        let rows = reader
            .get_row_iter(None)
            .ctx(|| path.display().to_string())?;
        for row in rows {
            let row = row.ctx(|| path.display().to_string())?;
            f(event(&row).map_err(|e| Error(format!("{}: {e}", path.display())))?)?;
        }
    }
    Ok(())
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
