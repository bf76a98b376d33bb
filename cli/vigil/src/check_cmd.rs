//! `vigil check [MODEL] [--bind FILE] [--trace FILE] [--json]`: check an
//! ftrace text trace (`trace`, `trace_pipe`, `trace-cmd report`) against an
//! automaton model, offline.
//!
//! * `vigil check wwnr --trace t.txt`: a shipped model with its binding
//!   (`models/wwnr.dot`, `models/wwnr.bind`);
//! * `vigil check my.dot --bind my.bind --trace t.txt`: a user model (the
//!   binding defaults to `my.bind` next to `my.dot`);
//! * `vigil check --bind my.bind --trace t.txt`: the binding's `model` line
//!   names the model.
//!
//! Violations go to standard output (a block of text each, or one JSON
//! object per line with `--json`), then a summary.  Warnings (hybrid parts
//! of the model, unbound events, malformed lines, lost events) go to
//! standard error.  Exit status: 0 no violation, 1 violations, 2 bad input
//! (model, binding, unreadable trace).

use std::fs::File;
use std::io::{self, BufReader, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use vigil_model::{Binding, Model};
use vigil_trace::{Checker, Config};

use crate::error::{Error, Result};

#[derive(Debug, Clone, clap::Args)]
pub struct CheckArgs {
    /// The model: a shipped model's name (wwnr) or a .dot file [default: the binding's `model` line]
    #[arg(value_name = "MODEL")]
    pub model: Option<PathBuf>,
    /// The binding: which tracepoint feeds each model event [default: MODEL.bind, shipped or next to the .dot]
    #[arg(long, short = 'b', value_name = "FILE")]
    pub bind: Option<PathBuf>,
    /// The trace (ftrace text or `trace-cmd report` output); `-` for standard input, the default when it is not a terminal
    #[arg(long, short = 't', value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// JSON Lines: one object per violation, then {"type":"summary",...}
    #[arg(long)]
    pub json: bool,
    /// Print at most N warnings about malformed lines and lost events (all are counted)
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub max_warnings: u64,
}

/// A bad-input error (exit status 2) from a diagnostic.
fn bad(d: vigil_model::Diagnostic) -> Error {
    Error::setup(d.to_string())
}

/// The model and binding files for the command line.
pub fn resolve(model: Option<&Path>, bind: Option<&Path>) -> Result<(PathBuf, PathBuf)> {
    crate::lookup::model_and_binding("check", model, bind)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

pub fn run(args: &CheckArgs) -> Result<()> {
    let (model_path, bind_path) = resolve(args.model.as_deref(), args.bind.as_deref())?;
    let model = Model::from_file(&model_path).map_err(bad)?;
    let binding = Binding::from_file(&bind_path, &model).map_err(bad)?;
    if let Some(named) = &binding.model {
        if !same_file(named, &model_path) {
            eprintln!(
                "vigil: {}:{}: warning: the binding names model {}, but the model checked is {}",
                bind_path.display(),
                binding.model_line,
                named.display(),
                model_path.display()
            );
        }
    }
    for w in binding.warnings(&model) {
        eprintln!("vigil: {w}");
    }
    for w in binding.out_of_process_warnings() {
        eprintln!("vigil: {w}");
    }
    let mut checker = Checker::new(&model, &binding).map_err(bad)?;

    let stdin = match &args.trace {
        Some(p) => p.as_os_str() == "-",
        None => {
            if io::stdin().is_terminal() {
                return Err(Error::setup(
                    "no trace: give --trace FILE, or pipe one into standard input (--trace -)",
                ));
            }
            true
        }
    };
    let name = match &args.trace {
        Some(p) if !stdin => p.display().to_string(),
        _ => "<stdin>".to_string(),
    };
    let cfg = Config {
        json: args.json,
        max_warnings: args.max_warnings,
        prefix: "vigil: ".to_string(),
        model_arg: args.model.as_ref().map_or_else(
            || model_path.display().to_string(),
            |m| m.display().to_string(),
        ),
    };
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let stderr = io::stderr();
    let mut warn = stderr.lock();
    const BUF: usize = 1 << 20;
    let result = if stdin {
        let input = BufReader::with_capacity(BUF, io::stdin().lock());
        checker.run(&name, input, &mut out, &mut warn, &cfg)
    } else {
        let path = args.trace.as_ref().expect("a trace path");
        let file = File::open(path)
            .map_err(|e| Error::setup(format!("cannot read trace {}: {e}", path.display())))?;
        checker.run(
            &name,
            BufReader::with_capacity(BUF, file),
            &mut out,
            &mut warn,
            &cfg,
        )
    };
    let summary = match result {
        Ok(s) => s,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
        Err(e) => {
            let _ = out.flush();
            return Err(Error::setup(format!("cannot read trace {name}: {e}")));
        }
    };
    if summary.matched == 0 {
        let mut names: Vec<String> = Vec::new();
        for r in &binding.rules {
            if let vigil_model::Source::Tracepoint { name } = &r.source {
                if !names.contains(name) {
                    names.push(name.clone());
                }
            }
        }
        eprintln!(
            "vigil: {name}: warning: no {} event in the trace: nothing was checked",
            names.join(" or ")
        );
    }
    let written = if args.json {
        summary.write_json(&model.name, &name, &mut out)
    } else {
        summary.write_text(&model.name, &name, &mut out)
    };
    match written.and_then(|_| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(Error::failure(format!("cannot write output: {e}"))),
    }
    if summary.violations > 0 {
        // The report is the output; no error message.
        return Err(Error::with_code(String::new(), 1));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tempdir::TempDir;

    #[test]
    fn binding_next_to_a_user_model() {
        let t = TempDir::new("check-resolve");
        let m = t.path().join("m.dot");
        std::fs::write(&m, "").unwrap();
        let err = resolve(Some(&m), None).unwrap_err();
        assert_eq!(err.code, 2);
        assert!(
            err.message.contains("m.bind") && err.message.contains("--bind"),
            "{}",
            err.message
        );
        std::fs::write(t.path().join("m.bind"), "").unwrap();
        assert_eq!(
            resolve(Some(&m), None).unwrap(),
            (m.clone(), t.path().join("m.bind"))
        );
        let other = t.path().join("o.bind");
        assert_eq!(resolve(Some(&m), Some(&other)).unwrap().1, other);
    }

    #[test]
    fn model_from_the_binding() {
        let t = TempDir::new("check-resolve2");
        let b = t.path().join("x.bind");
        std::fs::write(&b, "model sub/m.dot\nscope task\n").unwrap();
        assert_eq!(
            resolve(None, Some(&b)).unwrap(),
            (t.path().join("sub/m.dot"), b.clone())
        );
        std::fs::write(&b, "scope task\n").unwrap();
        let err = resolve(None, Some(&b)).unwrap_err();
        assert!(err.message.contains("no `model` line"), "{}", err.message);
        assert_eq!(resolve(None, None).unwrap_err().code, 2);
    }
}
