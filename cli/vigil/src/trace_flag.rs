//! `vigil cc --vigil-trace=SPEC` and `--vigil-trace-events`: which
//! functions record their entry and return into the event stream
//! (docs/stream-format.md).
//!
//! SPEC is a comma-separated list of globs (`open_*,vfs_read`) or `@FILE`
//! with one glob per line (blank lines and `#` comments ignored); the flag
//! may be repeated.  `--vigil-trace-events` adds every function that an
//! assertion (its bounds and events) or a `--vigil-monitor` binding
//! (`call:` / `return:` sources) names; both flags may be given together.
//! A function the program defines is traced in its body, any other (libc)
//! around each direct call of it: an indirect call of a function the
//! program does not define is not seen.
//!
//! The link-time pass (compiler/pass/Trace.h) reads the joined globs from
//! `VIGIL_TRACE` and the second flag from `VIGIL_TRACE_EVENTS=1`; `vigil cc`
//! sets both for the command it runs.  A build that links with
//! `vigil flags --ldflags` sets them in the link's environment itself.
//! With `VIGIL_STREAM` set at run time, assertion failures and monitor
//! violations are streamed too, as `verdict` events, with or without these
//! flags.

use std::ffi::OsString;
use std::path::Path;

use crate::error::{Error, Result};

pub const TRACE_FLAG: &str = "--vigil-trace";
pub const TRACE_VAR: &str = "VIGIL_TRACE";
pub const TRACE_EVENTS_FLAG: &str = "--vigil-trace-events";
pub const TRACE_EVENTS_VAR: &str = "VIGIL_TRACE_EVENTS";

/// What the tracing flags of one command line ask for.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TraceFlags {
    /// The joined globs of every `--vigil-trace=`, None without one.
    pub globs: Option<String>,
    /// `--vigil-trace-events` was given.
    pub events: bool,
}

impl TraceFlags {
    /// The environment the link-time pass reads, for the commands `vigil
    /// cc` runs.
    pub fn export(&self) {
        if let Some(spec) = &self.globs {
            std::env::set_var(TRACE_VAR, spec);
        }
        if self.events {
            std::env::set_var(TRACE_EVENTS_VAR, "1");
        }
    }
}

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

/// Removes every `--vigil-trace=SPEC` and `--vigil-trace-events` from
/// `args`; returns what they ask for and the remaining arguments.
pub fn take_trace_flags(args: &[OsString]) -> Result<(TraceFlags, Vec<OsString>)> {
    let mut globs = Vec::new();
    let mut seen = false;
    let mut events = false;
    let mut rest = Vec::new();
    let eq = format!("{TRACE_FLAG}=");
    for a in args {
        let s = a.to_string_lossy();
        if s == TRACE_EVENTS_FLAG {
            events = true;
        } else if let Some(v) = s.strip_prefix(&format!("{TRACE_EVENTS_FLAG}=")) {
            return Err(Error::setup(format!(
                "{TRACE_EVENTS_FLAG} takes no value (found `={v}`); the functions come from \
                 the program's assertions and monitor bindings"
            )));
        } else if let Some(spec) = s.strip_prefix(&eq) {
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
    let globs = seen.then(|| globs.join(","));
    Ok((TraceFlags { globs, events }, rest))
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
        assert_eq!(spec.globs.as_deref(), Some("a,b*,c"));
        assert!(!spec.events);
        assert_eq!(rest, os(&["-O2", "x.c"]));
    }

    #[test]
    fn no_flag_no_spec() {
        let (spec, rest) = take_trace_flags(&os(&["x.c"])).unwrap();
        assert_eq!(spec, TraceFlags::default());
        assert_eq!(rest, os(&["x.c"]));
    }

    #[test]
    fn events_alone_or_with_globs() {
        let (spec, rest) = take_trace_flags(&os(&["--vigil-trace-events", "x.c"])).unwrap();
        assert_eq!(spec, TraceFlags { globs: None, events: true });
        assert_eq!(rest, os(&["x.c"]));
        let (spec, _) =
            take_trace_flags(&os(&["--vigil-trace=open", "--vigil-trace-events"])).unwrap();
        assert_eq!(spec, TraceFlags { globs: Some("open".into()), events: true });
        let err = take_trace_flags(&os(&["--vigil-trace-events=open"])).unwrap_err().to_string();
        assert!(err.contains("takes no value"), "{err}");
    }

    #[test]
    fn reads_a_file_and_names_a_bad_line() {
        let dir = std::env::temp_dir().join(format!("vigil-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.txt");
        std::fs::write(&good, "# traced\nopen_*\n\nread   # the reader\n").unwrap();
        let (spec, _) =
            take_trace_flags(&os(&[&format!("--vigil-trace=@{}", good.display())])).unwrap();
        assert_eq!(spec.globs.as_deref(), Some("open_*,read"));
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
