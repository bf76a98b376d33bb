//! `vigil dot2c MODEL [--name NAME] [-o FILE]`: a `.dot` automaton as the C
//! tables of the Linux kernel's dot2c (standalone) or dot2k (`--name`).
//!
//! MODEL is a `.dot` file or the name of a model vigil ships (`wwnr`).
//! Errors in the model are printed `FILE:LINE: message`; the hybrid parts
//! vigil does not implement (guards, clock resets, invariants) are warned
//! about on standard error, one line each, and the command still succeeds.

use std::io::Write;
use std::path::Path;

use vigil_model::dot::is_c_identifier;
use vigil_model::{dot2c, Model};

use crate::error::{Error, Result};
pub use crate::lookup::{resolve_model, shipped_models};

/// Resolve and parse MODEL; a malformed model is an error `FILE:LINE: message`.
pub fn load_model(arg: &Path) -> Result<Model> {
    let path = resolve_model(arg)?;
    Model::from_file(&path).map_err(|d| Error::setup(d.to_string()))
}

/// Print `Model::unsupported()` (guards, resets, invariants) on stderr, in
/// line order.
pub fn warn_unsupported(model: &Model) {
    let mut warnings = model.unsupported();
    warnings.sort_by_key(|d| d.line);
    for d in warnings {
        eprintln!("vigil: {d}");
    }
}

/// Write `bytes` to `output`, or to standard output.
pub fn write_output(output: Option<&Path>, bytes: &[u8]) -> Result<()> {
    match output {
        Some(path) => std::fs::write(path, bytes)
            .map_err(|e| Error::failure(format!("cannot write {}: {e}", path.display()))),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes)
                .and_then(|_| out.flush())
                .map_err(|e| Error::failure(format!("cannot write output: {e}")))
        }
    }
}

pub fn run(model: &Path, name: Option<&str>, output: Option<&Path>) -> Result<()> {
    if let Some(n) = name {
        if !is_c_identifier(n) {
            return Err(Error::setup(format!(
                "--name {n}: not a valid C identifier (it suffixes every generated identifier)"
            )));
        }
    }
    let model = load_model(model)?;
    if model.ltl.is_some() {
        return Err(Error::setup(format!(
            "{}: an LTL model: vigil dot2c writes the tables of automata (.dot); use vigil ltl2k for the kernel's LTL monitor header",
            model.path.display()
        )));
    }
    warn_unsupported(&model);
    let c = dot2c::generate(&model, name);
    write_output(output, c.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tempdir::TempDir;

    #[test]
    fn existing_path_is_used_as_is() {
        let t = TempDir::new("dot2c-resolve");
        let p = t.path().join("m.dot");
        std::fs::write(&p, "digraph g {}").unwrap();
        assert_eq!(resolve_model(&p).unwrap(), p);
    }

    #[test]
    fn missing_path_with_slash_is_an_error() {
        let err = resolve_model(Path::new("/nonexistent/x.dot")).unwrap_err();
        assert_eq!(err.code, 2);
        assert!(
            err.message.contains("/nonexistent/x.dot"),
            "{}",
            err.message
        );
    }

    #[test]
    fn shipped_models_lists_dot_files() {
        let t = TempDir::new("dot2c-shipped");
        std::fs::write(t.path().join("b.dot"), "").unwrap();
        std::fs::write(t.path().join("a.dot"), "").unwrap();
        std::fs::write(t.path().join("a.bind"), "").unwrap();
        assert_eq!(shipped_models(t.path()), vec!["a", "b"]);
    }
}
