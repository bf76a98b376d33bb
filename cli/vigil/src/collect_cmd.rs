//! `vigil collect`: the event stream's collector (cli/collect).

use clap::Args;

use crate::error::{Error, Result};

#[derive(Debug, Args)]
pub struct CollectArgs {}

pub fn run(_args: &CollectArgs) -> Result<()> {
    Err(Error::setup("vigil collect is not built yet"))
}
