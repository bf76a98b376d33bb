//! `vigil report --sarif FILE [-o OUT]`: a vigil JSON Lines report
//! (`VIGIL_REPORT`, `vigil check --json`, `vigil monitor --json`) as one
//! SARIF 2.1.0 log.  The conversion is [`crate::sarif`]; this is the glue.
//!
//! FILE `-` is standard input.  A line that is not a vigil report stops the
//! conversion with `FILE:LINE: …` and exit status 2, and nothing is written:
//! no partial log for CI to pick up.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::dot2c_cmd::write_output;
use crate::error::{Error, Result};
use crate::sarif;

#[derive(Debug, Clone, clap::Args)]
pub struct ReportArgs {
    /// Write SARIF 2.1.0 (the only output format so far; required)
    #[arg(long, required = true)]
    pub sarif: bool,
    /// The JSON Lines report (VIGIL_REPORT, `vigil check --json`, `vigil monitor --json`); `-` for standard input
    #[arg(value_name = "FILE")]
    pub input: PathBuf,
    /// Write to this file instead of standard output
    #[arg(short = 'o', long, value_name = "OUT")]
    pub output: Option<PathBuf>,
}

/// The SARIF log of `input` (`-`: standard input), pretty-printed.
pub fn sarif_of(input: &Path) -> Result<String> {
    let name = input.to_string_lossy();
    let log = if name == "-" {
        let stdin = io::stdin();
        let mut lock = stdin.lock();
        sarif::convert("-", &mut lock as &mut dyn BufRead)
    } else {
        let file = File::open(input)
            .map_err(|e| Error::setup(format!("cannot read {}: {e}", input.display())))?;
        sarif::convert(&name, &mut BufReader::new(file))
    }
    .map_err(|e| Error::setup(e.to_string()))?;
    let mut text = serde_json::to_string_pretty(&log)
        .map_err(|e| Error::failure(format!("cannot format SARIF: {e}")))?;
    text.push('\n');
    Ok(text)
}

pub fn run(args: &ReportArgs) -> Result<()> {
    let text = sarif_of(&args.input)?;
    write_output(args.output.as_deref(), text.as_bytes())
}
