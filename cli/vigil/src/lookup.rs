//! Where a command finds its model and binding: one home for the rules
//! every command follows (`vigil check`, `collect --check`, `monitor`,
//! `gen-monitor` / `cc --vigil-monitor`, `dot2c`, `render`).
//!
//! * MODEL is a file, or the name of a model vigil ships (`wwnr`, `runnable`,
//!   `pagefault`: `<models dir>/NAME.dot` or `.ltl`);
//! * its binding is `--bind FILE`, else the `.bind` next to the model;
//! * a binding alone names its model (`model FILE`, relative to the
//!   binding), or, when that file is not there, the shipped model of that
//!   name.

use std::path::{Path, PathBuf};

use vigil_model::Binding;

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

/// The binding file for a BINDING argument: the path when it exists, else
/// a binding vigil ships (`<models dir>/NAME.bind`) for a bare name.
pub fn resolve_binding(arg: &Path) -> Result<PathBuf> {
    if arg.exists() {
        return Ok(arg.to_path_buf());
    }
    let text = arg.to_string_lossy();
    if !text.contains('/') && arg.extension().is_none() && !text.is_empty() {
        let candidate = Install::locate()?.models_dir().join(format!("{text}.bind"));
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    Err(Error::setup(format!(
        "cannot read binding {}: no such file",
        arg.display()
    )))
}

/// The model a binding names: its `model` line resolved against the
/// binding's directory, else the model of that name vigil ships.
pub fn binding_model(binding: &Path) -> Result<PathBuf> {
    let named = Binding::model_path(binding).map_err(|d| Error::failure(d.to_string()))?;
    let Some(path) = named else {
        return Err(Error::failure(format!(
            "{}: no `model` line: add `model FILE.dot` or pass --model MODEL",
            binding.display()
        )));
    };
    if path.is_file() {
        return Ok(path);
    }
    if let Some(file) = path.file_name() {
        let shipped = Install::locate()?.models_dir().join(file);
        if shipped.is_file() {
            return Ok(shipped);
        }
    }
    Err(Error::failure(format!(
        "{}: model {} not found (neither next to the binding nor among vigil's models)",
        binding.display(),
        path.display()
    )))
}

/// The model and binding files for `vigil CMD [MODEL] [--bind FILE]`; a
/// MODEL argument that is a `.bind` file is the binding (its model line
/// names the model).
pub fn model_and_binding(cmd: &str, model: Option<&Path>, bind: Option<&Path>) -> Result<(PathBuf, PathBuf)> {
    let bad = |d: vigil_model::Diagnostic| Error::setup(d.to_string());
    let (model, bind) = match (model, bind) {
        (Some(m), None) if m.extension().is_some_and(|e| e == "bind") => (None, Some(m)),
        other => other,
    };
    match (model, bind) {
        (Some(m), bind) => {
            let model_path = resolve_model(m)?;
            let bind_path = match bind {
                Some(b) => b.to_path_buf(),
                None => {
                    let sibling = model_path.with_extension("bind");
                    if !sibling.is_file() {
                        return Err(Error::setup(format!(
                            "no binding for model {}: {} does not exist; give one with --bind FILE",
                            m.display(),
                            sibling.display()
                        )));
                    }
                    sibling
                }
            };
            Ok((model_path, bind_path))
        }
        (None, Some(b)) => match Binding::model_path(b).map_err(bad)? {
            Some(m) => Ok((shipped_if_missing(m), b.to_path_buf())),
            None => Err(Error::setup(format!(
                "{}: no `model` line: name the model on the command line, `vigil {cmd} MODEL --bind {}`",
                b.display(),
                b.display()
            ))),
        },
        (None, None) => Err(Error::setup(format!(
            "no model: `vigil {cmd} MODEL ...` (MODEL: a shipped model's name or a .dot or .ltl file), \
             or `vigil {cmd} --bind FILE ...` with a binding that names its model"
        ))),
    }
}

/// A binding's model file when it exists, else the shipped model of that
/// file name when there is one (as vigil-cc --vigil-monitor finds it).
fn shipped_if_missing(m: PathBuf) -> PathBuf {
    if m.is_file() {
        return m;
    }
    m.file_name()
        .and_then(|f| Install::locate().ok().map(|i| i.models_dir().join(f)))
        .filter(|p| p.is_file())
        .unwrap_or(m)
}
