//! `vigil record`: uprobe and tracepoint events into an event stream
//! (being written: bpf/record.c, bpf/record.bpf.c).

use clap::Args;

use crate::error::{Error, Result};

#[derive(Debug, Args)]
pub struct RecordArgs {}

pub fn run(_args: &RecordArgs) -> Result<()> {
    Err(Error::setup("vigil record is not built yet"))
}
