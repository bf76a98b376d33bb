//! `vigil cc --vigil-trace=SPEC`: which functions record their entry and
//! return into the event stream (docs/stream-format.md).
//!
//! SPEC is a comma-separated list of globs (`open_*,vfs_read`) or `@FILE`
//! with one glob per line (blank lines and `#` comments ignored); the flag
//! may be repeated.  The link-time pass reads the joined list from
//! `VIGIL_TRACE` (compiler/pass/Trace.cpp), which `vigil cc` sets for the
//! command it runs.

use std::ffi::OsString;
use std::path::Path;

use crate::error::{Error, Result};

pub const TRACE_FLAG: &str = "--vigil-trace";
pub const TRACE_VAR: &str = "VIGIL_TRACE";

/// Globs from one `@FILE`, with `FILE:LINE` in the error for a bad line.
fn read_globs(file: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Error::setup(format!("{TRACE_FLAG}=@{}: {e}", file.display())))?;
    let mut globs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let g = line.split('#').next().unwrap_or("").trim();
        if g.is_empty() {
            continue;
        }
        if g.contains(',') || g.contains(char::is_whitespace) {
            return Err(Error::setup(format!(
                "{}:{}: one function name or glob per line, found `{g}`",
                file.display(),
                n + 1
            )));
        }
        globs.push(g.to_string());
    }
    Ok(globs)
}

fn add_spec(spec: &str, globs: &mut Vec<String>) -> Result<()> {
    if let Some(file) = spec.strip_prefix('@') {
        globs.extend(read_globs(Path::new(file))?);
        return Ok(());
    }
    for g in spec.split(',').map(str::trim) {
        if g.is_empty() {
            return Err(Error::setup(format!(
                "{TRACE_FLAG}={spec}: an empty function name or glob"
            )));
        }
        globs.push(g.to_string());
    }
    Ok(())
}

/// Removes every `--vigil-trace=SPEC` from `args`; returns the joined globs
/// (None when there was no such flag) and the remaining arguments.
pub fn take_trace_flags(args: &[OsString]) -> Result<(Option<String>, Vec<OsString>)> {
    let mut globs = Vec::new();
    let mut seen = false;
    let mut rest = Vec::new();
    let eq = format!("{TRACE_FLAG}=");
    for a in args {
        let s = a.to_string_lossy();
        if let Some(spec) = s.strip_prefix(&eq) {
            seen = true;
            add_spec(spec, &mut globs)?;
        } else if s == TRACE_FLAG {
            return Err(Error::setup(format!(
                "{TRACE_FLAG} needs a value: {TRACE_FLAG}=GLOB[,GLOB...] or {TRACE_FLAG}=@FILE"
            )));
        } else {
            rest.push(a.clone());
        }
    }
    if seen && globs.is_empty() {
        return Err(Error::setup(format!("{TRACE_FLAG}: no function named")));
    }
    Ok((seen.then(|| globs.join(",")), rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn joins_repeated_flags_and_keeps_the_rest() {
        let (spec, rest) =
            take_trace_flags(&os(&["-O2", "--vigil-trace=a,b*", "x.c", "--vigil-trace=c"]))
                .unwrap();
        assert_eq!(spec.as_deref(), Some("a,b*,c"));
        assert_eq!(rest, os(&["-O2", "x.c"]));
    }

    #[test]
    fn no_flag_no_spec() {
        let (spec, rest) = take_trace_flags(&os(&["x.c"])).unwrap();
        assert!(spec.is_none());
        assert_eq!(rest, os(&["x.c"]));
    }

    #[test]
    fn reads_a_file_and_names_a_bad_line() {
        let dir = std::env::temp_dir().join(format!("vigil-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.txt");
        std::fs::write(&good, "# traced\nopen_*\n\nread   # the reader\n").unwrap();
        let (spec, _) =
            take_trace_flags(&os(&[&format!("--vigil-trace=@{}", good.display())])).unwrap();
        assert_eq!(spec.as_deref(), Some("open_*,read"));
        let bad = dir.join("bad.txt");
        std::fs::write(&bad, "open\nread write\n").unwrap();
        let err = take_trace_flags(&os(&[&format!("--vigil-trace=@{}", bad.display())]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("bad.txt:2:"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn empty_names_are_refused() {
        assert!(take_trace_flags(&os(&["--vigil-trace=a,,b"])).is_err());
        assert!(take_trace_flags(&os(&["--vigil-trace="])).is_err());
        assert!(take_trace_flags(&os(&["--vigil-trace"])).is_err());
    }
}
