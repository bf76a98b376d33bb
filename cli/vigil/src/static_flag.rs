//! `vigil cc --vigil-static=off|report|prune`: the link-time static checker
//! (docs/static.md).  `report` prints each assertion's verdict (proven, or
//! unknown with the reason) while linking and still checks every assertion
//! at run time; `prune` removes the instrumentation of the proven ones and
//! prints a summary and the kept ones' reasons; `off` (the default for now)
//! does neither.  The pass reads `VIGIL_STATIC`; `vigil cc` sets it for the
//! command it runs.

use std::ffi::OsString;

use crate::error::{Error, Result};

pub const STATIC_FLAG: &str = "--vigil-static";
pub const STATIC_VAR: &str = "VIGIL_STATIC";

/// Removes `--vigil-static=MODE` from `args`; returns the mode, if given.
pub fn take_static_flag(args: &[OsString]) -> Result<(Option<String>, Vec<OsString>)> {
    let mut mode = None;
    let mut rest = Vec::new();
    for a in args {
        let s = a.to_string_lossy();
        if let Some(v) = s.strip_prefix(&format!("{STATIC_FLAG}=")) {
            if v != "off" && v != "report" && v != "prune" {
                return Err(Error::setup(format!(
                    "{STATIC_FLAG}={v}: expected {STATIC_FLAG}=off, report or prune"
                )));
            }
            mode = Some(v.to_string());
        } else if s == STATIC_FLAG {
            return Err(Error::setup(format!(
                "{STATIC_FLAG} needs a value: {STATIC_FLAG}=off, report or prune"
            )));
        } else {
            rest.push(a.clone());
        }
    }
    Ok((mode, rest))
}

/// The environment the link-time pass reads.
pub fn export(mode: &Option<String>) {
    if let Some(m) = mode {
        std::env::set_var(STATIC_VAR, m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn takes_the_flag_and_keeps_the_rest() {
        let (m, rest) = take_static_flag(&os(&["-O1", "--vigil-static=report", "a.c"])).unwrap();
        assert_eq!(m.as_deref(), Some("report"));
        assert_eq!(rest, os(&["-O1", "a.c"]));
    }

    #[test]
    fn rejects_unknown_modes_and_a_missing_value() {
        assert!(take_static_flag(&os(&["--vigil-static=all"])).is_err());
        assert!(take_static_flag(&os(&["--vigil-static"])).is_err());
    }
}
