//! `vigil dot2c MODEL [--name NAME] [-o FILE]`: a `.dot` automaton as the C
//! tables of the Linux kernel's dot2c (standalone) or dot2k (`--name`).
//!
//! MODEL is a `.dot` file or the name of a model vigil ships (`wwnr`).
//! Errors in the model are printed `FILE:LINE: message`; the hybrid parts
//! vigil does not implement (guards, clock resets, invariants) are warned
//! about on standard error, one line each, and the command still succeeds.

use std::io::Write;
use std::path::{Path, PathBuf};

use vigil_model::dot::is_c_identifier;
use vigil_model::{dot2c, Model};

use crate::error::{Error, Result};
use crate::install::Install;

/// The model file for a MODEL argument: the path itself when it exists,
/// else `<models dir>/MODEL.dot` (or `.ltl`) for a bare name (no `/`, no
/// extension).
pub fn resolve_model(arg: &Path) -> Result<PathBuf> {
    if arg.exists() {
        return Ok(arg.to_path_buf());
    }
    let text = arg.to_string_lossy();
    let bare = !text.contains('/') && arg.extension().is_none() && !text.is_empty();
    if !bare {
        return Err(Error::setup(format!(
            "cannot read model {}: no such file",
            arg.display()
        )));
    }
    let dir = Install::locate()?.models_dir();
    let candidate = dir.join(format!("{text}.dot"));
    if candidate.is_file() {
        return Ok(candidate);
    }
    let ltl = dir.join(format!("{text}.ltl"));
    if ltl.is_file() {
        return Ok(ltl);
    }
    let shipped = shipped_models(&dir);
    Err(Error::setup(format!(
        "model `{text}` not found: no file {text} and no {} (shipped models: {})",
        candidate.display(),
        if shipped.is_empty() {
            "none".to_string()
        } else {
            shipped.join(", ")
        }
    )))
}

/// The names of the `.dot` models in `dir`, sorted.
pub fn shipped_models(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            (p.extension().is_some_and(|x| x == "dot" || x == "ltl"))
                .then(|| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                .flatten()
        })
        .collect();
    names.sort();
    names
}

/// Resolve and parse MODEL; a malformed model is an error `FILE:LINE: message`.
pub fn load_model(arg: &Path) -> Result<Model> {
    let path = resolve_model(arg)?;
    Model::from_file(&path).map_err(|d| Error::setup(d.to_string()))
}

/// An LTL model where a command does not take one yet: the error says what
/// does.
pub fn refuse_ltl(model: &Model, what: &str) -> Result<()> {
    if model.ltl.is_some() {
        return Err(Error::setup(format!(
            "{}: an LTL model: {what} does not take LTL models yet (vigil check and vigil render do)",
            model.path.display()
        )));
    }
    Ok(())
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
    refuse_ltl(&model, "vigil dot2c (the kernel's ltl2k output)")?;
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
