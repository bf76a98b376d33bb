//! `vigil cc` / `vigil-cc`: a drop-in compiler driver.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::args::classify;
use crate::error::{Error, Result};
use crate::flags::cc_args;
use crate::install::{clang_from_env, Install};
use crate::tempdir::TempDir;
use crate::{monitor_c, shell};

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

/// Replace this process by clang; returns only on failure.  With
/// `--vigil-monitor=BINDING` (repeatable) the monitors are linked in too:
/// see [`run_with_monitors`].
pub fn run(user: &[OsString]) -> Result<()> {
    let (trace, user) = crate::trace_flag::take_trace_flags(user)?;
    // read by the link-time pass; inherited by every command run below
    trace.export();
    let (atomic, user) = crate::atomic_flag::take_atomic_flags(&user)?;
    atomic.export();
    let (static_mode, user) = crate::static_flag::take_static_flag(&user)?;
    crate::static_flag::export(&static_mode, &user);
    let (bindings, user) = monitor_c::take_monitor_flags(&user)?;
    if !bindings.is_empty() {
        return run_with_monitors(&bindings, &user);
    }
    let user = &user[..];
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

/// `vigil cc --vigil-monitor=BINDING ...`: generate each monitor's unit
/// (monitor_c.rs) into a temporary directory, compile it with vigil's
/// compile flags (and the user's target flags), add the objects to the link
/// and run clang as a child, then remove the directory and exit with
/// clang's status.  A command that does not link (`-c`, `-S`, `-E`...) has
/// nothing to link a monitor into: the option is ignored with a warning, so
/// that it may sit in flags shared by compile and link steps.
pub fn run_with_monitors(bindings: &[PathBuf], user: &[OsString]) -> Result<()> {
    if !classify(user).links() {
        for b in bindings {
            eprintln!(
                "vigil: warning: {}={} ignored: this command does not link; \
                 pass it on the command that links the program",
                monitor_c::MONITOR_FLAG,
                b.display()
            );
        }
        return run(user);
    }
    let install = Install::locate()?;
    let clang = clang_from_env()?;
    let mut tmp = TempDir::create("monitor")
        .map_err(|e| Error::setup(format!("cannot create a temporary directory: {e}")))?;
    let units = monitor_c::generate_all(bindings, tmp.path())?;
    let mut all: Vec<OsString> = user.to_vec();
    all.push(OsString::from("-x"));
    all.push(OsString::from("none"));
    for (name, c_file) in &units {
        let obj = tmp.path().join(format!("{name}.monitor.o"));
        let mut args =
            crate::flags::compile_flags(&install.include_dir()?, &install.clang_plugin()?);
        args.extend(["-O2", "-c"].map(OsString::from));
        args.extend(monitor_c::target_flags(user));
        args.push(c_file.clone().into_os_string());
        args.push(OsString::from("-o"));
        args.push(obj.clone().into_os_string());
        if verbose() {
            echo(&clang, &args);
        }
        let status = Command::new(&clang)
            .args(&args)
            .status()
            .map_err(|e| Error::setup(format!("cannot execute {}: {e}", clang.display())))?;
        if !status.success() {
            tmp.keep();
            return Err(Error::with_code(
                format!(
                    "cannot compile monitor `{name}` (generated into {}, kept)",
                    c_file.display()
                ),
                status.code().unwrap_or(1),
            ));
        }
        all.push(obj.into_os_string());
    }
    let args = cc_args(&install, &all)?;
    if verbose() {
        echo(&clang, &args);
    }
    let status = Command::new(&clang)
        .args(&args)
        .status()
        .map_err(|e| Error::setup(format!("cannot execute {}: {e}", clang.display())))?;
    drop(tmp);
    match status.code() {
        Some(0) => Ok(()),
        Some(code) => std::process::exit(code),
        None => Err(Error::failure(format!(
            "{} was killed by a signal",
            clang.display()
        ))),
    }
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
