//! vigil's command-line tool, as a library: the `vigil` binary is a thin
//! wrapper around [`app::run`].
//!
//! * [`args`]: classifying a compiler command line (does it link? at which -O?)
//! * [`flags`]: the flags vigil adds to clang's command line
//! * [`install`]: finding vigil's plugins, runtime, header and clang
//! * [`cc`], [`explain`], [`demo`]: the subcommands
//! * [`sarif`]: JSON Lines reports as SARIF 2.1.0 (`vigil report --sarif`)
//! * [`app`]: argv[0] dispatch and the clap command line

pub mod app;
pub mod args;
pub mod atomic_flag;
pub mod cc;
pub mod check_cmd;
pub mod collect_cmd;
pub mod conform_cmd;
pub mod conform_process;
pub mod demo;
pub mod dot2c_cmd;
pub mod error;
pub mod explain;
pub mod explain_atomic;
pub mod explain_static;
pub mod flags;
pub mod install;
pub mod lookup;
pub mod ltl2k_cmd;
pub mod monitor_cmd;
pub mod monitor_c;
pub mod record_cmd;
pub mod render_cmd;
pub mod report_cmd;
pub mod sarif;
pub mod shell;
pub mod static_flag;
pub mod tempdir;
pub mod trace_flag;

pub use error::{Error, Result};
