//! `vigil explain --atomic FILE.c`: the atomic regions the link-time pass
//! finds in a C file (compiler/pass/Atomic.h), without building a program.
//!
//! The file is compiled to bitcode with vigil's compile flags at -O1 -g
//! (the analysis sees what an optimised build sees), then `opt` runs the
//! pass plugin on it with `VIGIL_ATOMIC_EXPLAIN=text|json`, which prints the
//! regions instead of instrumenting.  One file is a whole program here: a
//! variable or lock wrapper defined in another file is not seen (link the
//! program with `VIGIL_ATOMIC_EXPLAIN=text vigil cc --vigil-atomic ...` for
//! the whole-program list).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::cc::{echo, verbose};
use crate::error::{Error, Result};
use crate::explain::Format;
use crate::install::{clang_from_env, Install};
use crate::tempdir::TempDir;

fn opt_program() -> PathBuf {
    match std::env::var_os("VIGIL_OPT") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from("/usr/lib/llvm-19/bin/opt"),
    }
}

fn run_step(program: &Path, args: &[OsString], env: Option<(&str, &str)>) -> Result<Vec<u8>> {
    if verbose() {
        echo(program, args);
    }
    let mut cmd = Command::new(program);
    cmd.args(args).stdin(Stdio::null()).stderr(Stdio::inherit());
    if let Some((k, v)) = env {
        cmd.env(k, v);
    }
    let out = cmd
        .output()
        .map_err(|e| Error::setup(format!("cannot execute {}: {e}", program.display())))?;
    if !out.status.success() {
        return Err(Error::with_code(
            format!("{} failed ({})", program.display(), out.status),
            out.status.code().filter(|&c| c != 0).unwrap_or(1),
        ));
    }
    Ok(out.stdout)
}

/// The atomic regions of `file`, as text or JSON.
pub fn run(file: &Path, format: Format, extra: &[OsString]) -> Result<Vec<u8>> {
    let kind = match format {
        Format::Text => "text",
        Format::Json => "json",
        _ => {
            return Err(Error::setup(
                "--atomic prints text or json (--format text|json)".to_string(),
            ))
        }
    };
    if !file.is_file() {
        return Err(Error::failure(format!("{}: no such file", file.display())));
    }
    let install = Install::locate()?;
    let tmp = TempDir::create("atomic")
        .map_err(|e| Error::setup(format!("cannot create a temporary directory: {e}")))?;
    let bitcode = tmp.path().join("unit.bc");
    let mut args =
        crate::flags::compile_flags(&install.include_dir()?, &install.clang_plugin()?);
    args.extend(["-O1", "-g", "-c"].map(OsString::from));
    args.extend(extra.iter().cloned());
    args.push(file.as_os_str().to_owned());
    args.push("-o".into());
    args.push(bitcode.clone().into_os_string());
    run_step(&clang_from_env()?, &args, None)?;
    let mut plugin = OsString::from("-load-pass-plugin=");
    plugin.push(install.pass_plugin()?);
    let args = vec![
        plugin,
        "-passes=vigil-instrument".into(),
        "-disable-output".into(),
        bitcode.into_os_string(),
    ];
    run_step(&opt_program(), &args, Some(("VIGIL_ATOMIC_EXPLAIN", kind)))
}
