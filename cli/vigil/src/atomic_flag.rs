//! `vigil cc --vigil-atomic[=checks|watchpoints]` and
//! `--vigil-atomic-whitelist=FILE`: find the program's atomic regions at
//! link time and check them at run time (docs/atomic.md).
//!
//! `checks` (the default) compiles an inline check before each access that
//! may touch a variable with atomic regions (the software detector);
//! `watchpoints` leaves the checks out and relies on hardware watchpoints
//! at run time.  The link-time pass (compiler/pass/Atomic.h) reads
//! `VIGIL_ATOMIC` and `VIGIL_ATOMIC_STATIC_WHITELIST`; `vigil cc` sets both
//! for the command it runs.

use std::ffi::OsString;

use crate::error::{Error, Result};

pub const ATOMIC_FLAG: &str = "--vigil-atomic";
pub const ATOMIC_VAR: &str = "VIGIL_ATOMIC";
pub const WHITELIST_FLAG: &str = "--vigil-atomic-whitelist";
pub const WHITELIST_VAR: &str = "VIGIL_ATOMIC_STATIC_WHITELIST";

/// What the atomic-region flags of one command line ask for.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct AtomicFlags {
    /// `checks` or `watchpoints`; None without `--vigil-atomic`.
    pub detector: Option<String>,
    pub whitelist: Option<OsString>,
}

impl AtomicFlags {
    /// The environment the link-time pass reads.
    pub fn export(&self) {
        if let Some(d) = &self.detector {
            std::env::set_var(ATOMIC_VAR, d);
        }
        if let Some(w) = &self.whitelist {
            let abs = std::fs::canonicalize(w).unwrap_or_else(|_| w.into());
            std::env::set_var(WHITELIST_VAR, abs);
        }
    }
}

/// Removes the atomic-region flags from `args`.
pub fn take_atomic_flags(args: &[OsString]) -> Result<(AtomicFlags, Vec<OsString>)> {
    let mut flags = AtomicFlags::default();
    let mut rest = Vec::new();
    for a in args {
        let s = a.to_string_lossy();
        if s == ATOMIC_FLAG {
            flags.detector = Some("checks".into());
        } else if let Some(v) = s.strip_prefix(&format!("{ATOMIC_FLAG}=")) {
            if v != "checks" && v != "watchpoints" {
                return Err(Error::setup(format!(
                    "{ATOMIC_FLAG}={v}: expected {ATOMIC_FLAG}, {ATOMIC_FLAG}=checks or \
                     {ATOMIC_FLAG}=watchpoints"
                )));
            }
            flags.detector = Some(v.to_string());
        } else if let Some(f) = s.strip_prefix(&format!("{WHITELIST_FLAG}=")) {
            if f.is_empty() {
                return Err(Error::setup(format!("{WHITELIST_FLAG}= needs a file")));
            }
            if !std::path::Path::new(f).is_file() {
                return Err(Error::setup(format!("{WHITELIST_FLAG}={f}: no such file")));
            }
            flags.whitelist = Some(OsString::from(f));
        } else if s == WHITELIST_FLAG {
            return Err(Error::setup(format!("{WHITELIST_FLAG} needs a value: {WHITELIST_FLAG}=FILE")));
        } else {
            rest.push(a.clone());
        }
    }
    if flags.whitelist.is_some() && flags.detector.is_none() {
        return Err(Error::setup(format!("{WHITELIST_FLAG} without {ATOMIC_FLAG}")));
    }
    Ok((flags, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn default_detector_is_checks_and_rest_is_kept() {
        let (f, rest) = take_atomic_flags(&os(&["-O1", "--vigil-atomic", "x.c"])).unwrap();
        assert_eq!(f.detector.as_deref(), Some("checks"));
        assert_eq!(rest, os(&["-O1", "x.c"]));
        let (f, _) = take_atomic_flags(&os(&["--vigil-atomic=watchpoints"])).unwrap();
        assert_eq!(f.detector.as_deref(), Some("watchpoints"));
        let (f, rest) = take_atomic_flags(&os(&["x.c"])).unwrap();
        assert_eq!(f, AtomicFlags::default());
        assert_eq!(rest, os(&["x.c"]));
    }

    #[test]
    fn bad_values_are_refused() {
        let e = take_atomic_flags(&os(&["--vigil-atomic=tsan"])).unwrap_err().to_string();
        assert!(e.contains("expected"), "{e}");
        assert!(take_atomic_flags(&os(&["--vigil-atomic-whitelist"])).is_err());
        assert!(take_atomic_flags(&os(&["--vigil-atomic", "--vigil-atomic-whitelist=/no/such"]))
            .is_err());
        let e = take_atomic_flags(&os(&["--vigil-atomic-whitelist=/etc/hostname"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("without"), "{e}");
    }
}
