//! `vigil cc --vigil-static=off|report|prune`: the link-time static checker
//! (docs/static.md).  `report` prints each assertion's verdict (proven,
//! violated with a failing run, or unknown with the reason) while linking
//! and still checks every assertion at run time; `prune` removes the
//! instrumentation of the proven ones, fails the link on a violated one and
//! prints a summary and the kept ones' reasons; `off` does neither.  Prune
//! is the default when optimising (-O1 and above, as the last -O says) and
//! `VIGIL_STATIC` is not set; off at -O0, where nothing is expected to be
//! removed.  The pass reads `VIGIL_STATIC`; `vigil cc` sets it for the
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

/// The mode when neither the flag nor `VIGIL_STATIC` gives one: prune
/// when the last `-O` of `args` optimises, else off.
pub fn default_mode(args: &[OsString]) -> &'static str {
    let last_o = args
        .iter()
        .rev()
        .map(|a| a.to_string_lossy().into_owned())
        .find(|a| a.starts_with("-O"));
    match last_o.as_deref() {
        None | Some("-O0") => "off",
        Some(_) => "prune",
    }
}

/// The environment the link-time pass reads: the flag's mode, else an
/// inherited `VIGIL_STATIC`, else the default for `args`.
pub fn export(mode: &Option<String>, args: &[OsString]) {
    if let Some(m) = mode {
        std::env::set_var(STATIC_VAR, m);
    } else if std::env::var_os(STATIC_VAR).is_none() {
        std::env::set_var(STATIC_VAR, default_mode(args));
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
    fn prunes_by_default_when_optimising() {
        assert_eq!(default_mode(&os(&["a.c"])), "off");
        assert_eq!(default_mode(&os(&["-O0", "a.c"])), "off");
        assert_eq!(default_mode(&os(&["-O2", "a.c"])), "prune");
        assert_eq!(default_mode(&os(&["-O", "a.c"])), "prune");
        assert_eq!(default_mode(&os(&["-Os", "a.c"])), "prune");
        assert_eq!(default_mode(&os(&["-O2", "-O0", "a.c"])), "off");
    }

    #[test]
    fn rejects_unknown_modes_and_a_missing_value() {
        assert!(take_static_flag(&os(&["--vigil-static=all"])).is_err());
        assert!(take_static_flag(&os(&["--vigil-static"])).is_err());
    }
}
