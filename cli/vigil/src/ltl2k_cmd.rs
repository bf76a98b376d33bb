//! `vigil ltl2k MODEL.ltl [--name NAME] [-o DIR|FILE]`: an LTL model as the
//! C header the Linux kernel's rvgen writes for an LTL monitor (`NAME.h`,
//! to combine with the kernel's `include/rv/ltl_monitor.h`).  The generator
//! is `vigil_model::ltl::ltl2k`; this is the command line around it.
//!
//! MODEL is a `.ltl` file or the name of an LTL model vigil ships
//! (`pagefault`).  A malformed model is an error `FILE:LINE: message`; a
//! model that is not LTL (a `.dot` automaton) is refused with the command
//! that takes it.

use std::path::{Path, PathBuf};

use clap::Args;
use vigil_model::dot::is_c_identifier;
use vigil_model::ltl::ltl2k;

use crate::dot2c_cmd::write_output;
use crate::error::{Error, Result};
use crate::lookup::resolve_model;

#[derive(Debug, Args)]
pub struct Ltl2kArgs {
    /// The model: a .ltl file or a shipped LTL model's name
    pub model: PathBuf,
    /// The monitor's name (#define MONITOR_NAME), by default the file's name without .ltl
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Write to this file, or to DIR/NAME.h when it is a directory, instead of standard output
    #[arg(short = 'o', long, value_name = "DIR|FILE")]
    pub output: Option<PathBuf>,
}

/// The model's path, when it is an LTL model.
fn ltl_path(arg: &Path) -> Result<PathBuf> {
    let path = resolve_model(arg)?;
    if path.extension().is_some_and(|e| e == "ltl") {
        return Ok(path);
    }
    Err(Error::setup(format!(
        "{}: not an LTL model (.ltl): vigil ltl2k writes the kernel's header for an LTL monitor; \
         for an automaton (.dot) use vigil dot2c",
        path.display()
    )))
}

/// The monitor's name: --name, else the file's stem; a C identifier either
/// way (it is `MONITOR_NAME`, pasted into the kernel's identifiers).
fn monitor_name(name: Option<&str>, path: &Path) -> Result<String> {
    let (name, from) = match name {
        Some(n) => (n.to_string(), "--name"),
        None => (path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(), "the file's name"),
    };
    if !is_c_identifier(&name) {
        return Err(Error::setup(format!(
            "{from} {name}: not a valid C identifier (it is the monitor's MONITOR_NAME){}",
            if from == "--name" { "" } else { "; give one with --name" }
        )));
    }
    Ok(name)
}

/// `-o DIR`: a directory, or a path that ends with `/` (which then must exist
/// to be written into: vigil does not create it).
fn is_dir(output: &Path) -> bool {
    output.is_dir() || output.as_os_str().to_string_lossy().ends_with('/')
}

pub fn run(args: &Ltl2kArgs) -> Result<()> {
    let path = ltl_path(&args.model)?;
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Error::setup(format!("cannot read model {}: {e}", path.display())))?;
    // The model's own errors first: they say more than a bad file name.
    let header = ltl2k::generate(&path, &text, args.name.as_deref()).map_err(|d| Error::setup(d.to_string()))?;
    let name = monitor_name(args.name.as_deref(), &path)?;
    let output = args.output.as_ref().map(|o| if is_dir(o) { o.join(format!("{name}.h")) } else { o.clone() });
    write_output(output.as_deref(), header.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tempdir::TempDir;

    #[test]
    fn a_dot_model_is_refused_with_the_command_that_takes_it() {
        let t = TempDir::new("ltl2k-dot");
        let p = t.path().join("m.dot");
        std::fs::write(&p, "digraph g {}").unwrap();
        let e = ltl_path(&p).unwrap_err();
        assert_eq!(e.code, 2);
        assert!(e.message.contains("m.dot: not an LTL model") && e.message.contains("vigil dot2c"), "{}", e.message);
    }

    #[test]
    fn the_name_is_a_c_identifier() {
        assert_eq!(monitor_name(None, Path::new("/x/pagefault.ltl")).unwrap(), "pagefault");
        assert_eq!(monitor_name(Some("pf"), Path::new("/x/page-fault.ltl")).unwrap(), "pf");
        let e = monitor_name(None, Path::new("/x/page-fault.ltl")).unwrap_err();
        assert!(e.message.contains("the file's name page-fault") && e.message.contains("--name"), "{}", e.message);
        assert!(monitor_name(Some("9x"), Path::new("a.ltl")).is_err());
    }
}
