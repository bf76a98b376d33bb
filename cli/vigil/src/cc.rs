//! `vigil cc` / `vigil-cc`: a drop-in compiler driver.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};
use crate::flags::cc_args;
use crate::install::{clang_from_env, Install};
use crate::shell;

pub const VERBOSE_VAR: &str = "VIGIL_VERBOSE";

/// Is `VIGIL_VERBOSE` set to something other than "", "0"?
pub fn verbose() -> bool {
    is_truthy(std::env::var_os(VERBOSE_VAR).as_deref())
}

pub fn is_truthy(v: Option<&OsStr>) -> bool {
    match v {
        None => false,
        Some(v) => !(v.is_empty() || v == "0"),
    }
}

/// Print a command line to stderr (for `VIGIL_VERBOSE=1`).
pub fn echo(program: &Path, args: &[OsString]) {
    eprintln!("{}", command_line(program, args));
}

/// A command line as a shell would read it.
pub fn command_line(program: &Path, args: &[OsString]) -> String {
    let mut line = shell::quote(program.as_os_str());
    if !args.is_empty() {
        line.push(' ');
        line.push_str(&shell::join(args));
    }
    line
}

/// The compiler and full argument list for `vigil cc USER_ARGS`.
pub fn plan(user: &[OsString]) -> Result<(PathBuf, Vec<OsString>)> {
    let install = Install::locate()?;
    let args = cc_args(&install, user)?;
    let clang = clang_from_env()?;
    Ok((clang, args))
}

/// Replace this process by clang; returns only on failure.
pub fn run(user: &[OsString]) -> Result<()> {
    let (clang, args) = plan(user)?;
    if verbose() {
        echo(&clang, &args);
    }
    let err = Command::new(&clang).args(&args).exec();
    Err(Error::setup(format!(
        "cannot execute {}: {err}",
        clang.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truthiness() {
        assert!(!is_truthy(None));
        assert!(!is_truthy(Some(OsStr::new(""))));
        assert!(!is_truthy(Some(OsStr::new("0"))));
        assert!(is_truthy(Some(OsStr::new("1"))));
        assert!(is_truthy(Some(OsStr::new("yes"))));
    }

    #[test]
    fn command_line_quotes() {
        let args = vec![OsString::from("-c"), OsString::from("my file.c")];
        assert_eq!(
            command_line(Path::new("/usr/bin/clang-19"), &args),
            "/usr/bin/clang-19 -c 'my file.c'"
        );
        assert_eq!(command_line(Path::new("cc"), &[]), "cc");
    }
}
