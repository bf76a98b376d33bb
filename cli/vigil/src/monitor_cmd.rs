//! `vigil monitor MODEL [--bind FILE] [--duration S] [--json] [--reactor log|stop]
//! [--binary PATH] [-- COMMAND ARGS...]`: a live Linux kernel monitor through
//! eBPF, no kernel module.
//!
//! The model and its binding are parsed, checked and compiled here
//! (vigil_model::compiled, the one compiled form every engine reads), and
//! `vigil-bpf-monitor` (bpf/monitor.c, installed next to `vigil`) is exec'd
//! with the blob: it loads the generic, table-driven BPF program
//! (bpf/monitor.bpf.c), copies the blob's sections into its maps, attaches
//! the tracepoints / uprobes the binding needs and reports violations.
//!
//! MODEL is a `.dot` file, a shipped model's name (`wwnr`: models/wwnr.dot
//! with models/wwnr.bind), or a `.bind` file whose `model` line names the
//! model.  Without `--bind` the binding is the model's path with extension
//! `.bind`.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::{Args, ValueEnum};
use vigil_model::{Binding, Model, Source};

use crate::dot2c_cmd::warn_unsupported;
use crate::error::{Error, Result};

/// The loader's file name, next to `vigil`.
pub const LOADER: &str = "vigil-bpf-monitor";
/// Overrides where the loader is looked for.
pub const LOADER_VAR: &str = "VIGIL_BPF_MONITOR";

/// Limits of the BPF engine (bpf/monitor.h).
pub const MAX_STATES: usize = 65533;
pub const MAX_EVENTS: usize = 65533;
/// States x events: the transition map's entries.
pub const MAX_CELLS: usize = 1 << 22;
pub const MAX_RULES_PER_SOURCE: usize = 8;
pub const MAX_CONDS: usize = 4;
pub const MAX_FUNCTION_SOURCES: usize = 32;
/// Default size of the task/object instance table (LRU).
pub const DEFAULT_INSTANCES: u32 = 65536;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Reactor {
    /// Print every violation and keep monitoring
    Log,
    /// End monitoring at the first violation (a command run by the monitor is killed)
    Stop,
}

#[derive(Debug, Args)]
pub struct MonitorArgs {
    /// The model: a .dot file, a shipped model's name (wwnr, tss, nrp), or a .bind file
    pub model: PathBuf,
    /// The binding (default: the model's path with extension .bind)
    #[arg(long, value_name = "FILE")]
    pub bind: Option<PathBuf>,
    /// Stop after S seconds (default: at Ctrl-C, or when COMMAND exits)
    #[arg(long, value_name = "S")]
    pub duration: Option<f64>,
    /// Print reports and the summary as JSON Lines
    #[arg(long)]
    pub json: bool,
    /// What a violation does
    #[arg(long, value_enum, default_value_t = Reactor::Log)]
    pub reactor: Reactor,
    /// The program call:/return: rules attach uprobes to (default: COMMAND)
    #[arg(long, value_name = "PATH")]
    pub binary: Option<PathBuf>,
    /// Instances kept for task and object scopes (least recently used ones are forgotten)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_INSTANCES)]
    pub instances: u32,
    /// Check the model, the binding and that this kernel has every tracepoint needed; load nothing
    #[arg(long)]
    pub check: bool,
    /// Write the compiled model the eBPF monitor loads (include/vigil/vk.h) to FILE and exit
    #[arg(long, value_name = "FILE")]
    pub emit_model: Option<PathBuf>,
    /// A command to run while monitoring; uprobes are limited to its process
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

/// Model and binding files for the MODEL / --bind arguments.
pub fn resolve(model_arg: &Path, bind: Option<&Path>) -> Result<(PathBuf, PathBuf)> {
    crate::lookup::model_and_binding("monitor", Some(model_arg), bind)
}

/// A path for messages: relative to the current directory when under it.
pub fn display_path(p: &Path) -> String {
    if let Ok(cwd) = std::env::current_dir() {
        let abs = if p.is_absolute() {
            p.to_path_buf()
        } else {
            cwd.join(p)
        };
        let abs = abs.canonicalize().unwrap_or(abs);
        let cwd = cwd.canonicalize().unwrap_or(cwd);
        if let Ok(rel) = abs.strip_prefix(&cwd) {
            return rel.display().to_string();
        }
        return abs.display().to_string();
    }
    p.display().to_string()
}

/// The binding within the BPF engine's limits, or an error at the rule's line.
pub fn check_limits(model: &Model, binding: &Binding) -> Result<()> {
    let at =
        |line: u32, msg: String| Error::setup(format!("{}:{line}: {msg}", binding.path.display()));
    if model.states.len() > MAX_STATES {
        return Err(Error::setup(format!(
            "{}: {} states: the eBPF monitor handles at most {MAX_STATES}",
            model.path.display(),
            model.states.len()
        )));
    }
    if model.events.len() > MAX_EVENTS {
        return Err(Error::setup(format!(
            "{}: {} events: the eBPF monitor handles at most {MAX_EVENTS}",
            model.path.display(),
            model.events.len()
        )));
    }
    if model.states.len() * model.events.len() > MAX_CELLS {
        return Err(Error::setup(format!(
            "{}: {} states x {} events: the eBPF monitor's transition table holds at most {MAX_CELLS} cells",
            model.path.display(),
            model.states.len(),
            model.events.len()
        )));
    }
    let mut per_source: Vec<(Source, usize)> = Vec::new();
    let mut functions = 0;
    for r in &binding.rules {
        if r.conds.len() > MAX_CONDS {
            return Err(at(
                r.line,
                format!(
                    "{} conditions: the eBPF monitor handles at most {MAX_CONDS} per rule",
                    r.conds.len()
                ),
            ));
        }
        match per_source.iter_mut().find(|(s, _)| *s == r.source) {
            Some((_, n)) => {
                *n += 1;
                if *n > MAX_RULES_PER_SOURCE {
                    return Err(at(
                        r.line,
                        format!(
                            "more than {MAX_RULES_PER_SOURCE} rules on source {}: the eBPF monitor handles at most {MAX_RULES_PER_SOURCE}",
                            r.source
                        ),
                    ));
                }
            }
            None => {
                if !matches!(r.source, Source::Tracepoint { .. }) {
                    functions += 1;
                    if functions > MAX_FUNCTION_SOURCES {
                        return Err(at(
                            r.line,
                            format!(
                                "more than {MAX_FUNCTION_SOURCES} functions: the eBPF monitor attaches at most {MAX_FUNCTION_SOURCES} uprobes"
                            ),
                        ));
                    }
                }
                per_source.push((r.source.clone(), 1));
            }
        }
    }
    Ok(())
}

/// Whether the engine keeps the model's clocks: a hybrid automaton's
/// instances use timers and locks, which uprobe programs cannot, so a
/// binding with function sources runs the untimed automaton ([`load`]
/// warns).
pub fn keeps_clocks(binding: &Binding) -> bool {
    binding.rules.iter().all(|r| matches!(r.source, Source::Tracepoint { .. }))
}

/// The compiled model the loader reads, with the files named as the
/// reports should name them.
pub fn compiled_model(model: &Model, binding: &Binding) -> Result<Vec<u8>> {
    let model = if keeps_clocks(binding) { model.clone() } else { model.untimed() };
    let mut c = vigil_model::compiled::compile(&model, binding)
        .map_err(|d| Error::setup(d.to_string()))?;
    c.model_path = display_path(&model.path);
    c.binding_path = display_path(&binding.path);
    Ok(c.to_blob())
}

/// Loading BPF programs needs root (CAP_BPF and CAP_PERFMON).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// `vigil-bpf-monitor` next to the running `vigil` (or `$VIGIL_BPF_MONITOR`).
pub fn loader_path() -> Result<PathBuf> {
    crate::install::sibling_program(LOADER, LOADER_VAR, "the eBPF monitor")
}

fn write_model_file(blob: &[u8]) -> Result<PathBuf> {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let path = std::env::temp_dir().join(format!(
        "vigil-monitor-{}-{nanos:x}.vk",
        std::process::id()
    ));
    std::fs::write(&path, blob)
        .map_err(|e| Error::setup(format!("cannot write {}: {e}", path.display())))?;
    Ok(path)
}

/// Parse and check MODEL and its binding; print the warnings.
pub fn load(args: &MonitorArgs) -> Result<(Model, Binding)> {
    let (model_path, bind_path) = resolve(&args.model, args.bind.as_deref())?;
    let model = Model::from_file(&model_path).map_err(|d| Error::setup(d.to_string()))?;
    let binding =
        Binding::from_file(&bind_path, &model).map_err(|d| Error::setup(d.to_string()))?;
    if model.is_hybrid() && !keeps_clocks(&binding) {
        eprintln!(
            "vigil: {}: function sources: the eBPF engine checks the untimed automaton (uprobe programs cannot use its timers)",
            binding.path.display()
        );
        warn_unsupported(&model);
    }
    for w in binding.warnings(&model) {
        eprintln!("vigil: {w}");
    }
    for w in binding.out_of_process_warnings() {
        eprintln!("vigil: {w}");
    }
    check_limits(&model, &binding)?;
    Ok((model, binding))
}

pub fn run(args: &MonitorArgs) -> Result<()> {
    if let Some(d) = args.duration {
        if !(d > 0.0 && d.is_finite()) {
            return Err(Error::setup(format!(
                "--duration {d}: expected a positive number of seconds"
            )));
        }
    }
    if args.instances == 0 || args.instances > (1 << 22) {
        return Err(Error::setup(format!(
            "--instances {}: expected 1 to {}",
            args.instances,
            1u32 << 22
        )));
    }
    let (model, binding) = load(args)?;
    let blob = compiled_model(&model, &binding)?;
    if let Some(out) = &args.emit_model {
        return crate::dot2c_cmd::write_output(Some(out), &blob);
    }
    let loader = loader_path()?;
    let model_path = write_model_file(&blob)?;
    let mut cmd = Command::new(&loader);
    cmd.arg("--unlink-model");
    cmd.arg("--instances").arg(args.instances.to_string());
    if let Some(d) = args.duration {
        cmd.arg("--duration").arg(d.to_string());
    }
    if args.json {
        cmd.arg("--json");
    }
    if args.check {
        cmd.arg("--check");
    }
    cmd.arg("--reactor").arg(match args.reactor {
        Reactor::Log => "log",
        Reactor::Stop => "stop",
    });
    if let Some(b) = &args.binary {
        cmd.arg("--binary").arg(b);
    }
    cmd.arg(&model_path);
    if !args.command.is_empty() {
        cmd.arg("--").args(&args.command);
    }
    // exec: the monitor's exit status (0, 1 violations, 2 errors) and its
    // signals (Ctrl-C ends monitoring and prints the summary) are vigil's.
    let err = cmd.exec();
    let _ = std::fs::remove_file(&model_path);
    Err(Error::setup(format!(
        "cannot run {}: {err}",
        loader.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vigil_model::sources;

    /// The macro arguments of `X(...)` entries inside `#define NAME(X) ...`.
    fn fields_h_tracepoints(text: &str) -> Vec<(String, String, Vec<String>)> {
        let start = text
            .find("#define VIGIL_TRACEPOINTS(X)")
            .expect("fields.h defines VIGIL_TRACEPOINTS");
        let mut body = String::new();
        for line in text[start..].lines() {
            let cont = line.trim_end().ends_with('\\');
            body.push_str(line.trim_end().trim_end_matches('\\'));
            body.push(' ');
            if !cont {
                break;
            }
        }
        let body = &body["#define VIGIL_TRACEPOINTS(X)".len()..];
        let mut out = Vec::new();
        let mut rest = body;
        while let Some(i) = rest.find("X(") {
            let after = &rest[i + 2..];
            let end = after.find(')').expect("closing parenthesis");
            let args: Vec<String> = after[..end]
                .split(',')
                .map(|a| a.trim().trim_matches('"').to_string())
                .collect();
            let index: usize = args[0].parse().unwrap();
            assert_eq!(index, out.len(), "fields.h entries are numbered in order");
            let n: usize = args[3].parse().unwrap();
            let fields: Vec<String> = args[4..].to_vec();
            assert_eq!(n, fields.len(), "field count of {}", args[2]);
            out.push((args[1].clone(), args[2].clone(), fields));
            rest = &after[end + 1..];
        }
        out
    }

    fn define_list(text: &str, name: &str) -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("#define {name} ")))
            .unwrap_or_else(|| panic!("fields.h defines {name}"));
        line[format!("#define {name} ").len()..]
            .split(',')
            .map(|a| a.trim().trim_matches('"').to_string())
            .collect()
    }

    fn define_num(text: &str, name: &str) -> usize {
        define_list(text, name)[0].parse().unwrap()
    }

    const FIELDS_H: &str = include_str!("../../../bpf/fields.h");

    #[test]
    fn fields_h_mirrors_the_catalogue() {
        let tps = fields_h_tracepoints(FIELDS_H);
        let want: Vec<(String, String, Vec<String>)> = sources::TRACEPOINTS
            .iter()
            .map(|t| {
                (
                    t.system.to_string(),
                    t.name.to_string(),
                    t.fields.iter().map(|f| f.to_string()).collect(),
                )
            })
            .collect();
        assert_eq!(
            tps, want,
            "bpf/fields.h and cli/model/src/sources.rs differ"
        );
        assert_eq!(define_num(FIELDS_H, "VIGIL_NR_TRACEPOINTS"), want.len());
        assert_eq!(
            define_list(FIELDS_H, "VIGIL_COMMON_FIELDS"),
            sources::COMMON
        );
        assert_eq!(define_num(FIELDS_H, "VIGIL_NCOMMON"), sources::COMMON.len());
        assert_eq!(
            define_list(FIELDS_H, "VIGIL_CALL_FIELDS"),
            sources::CALL_FIELDS
        );
        assert_eq!(
            define_num(FIELDS_H, "VIGIL_NCALL_FIELDS"),
            sources::CALL_FIELDS.len()
        );
        assert_eq!(
            define_list(FIELDS_H, "VIGIL_RETURN_FIELDS"),
            sources::RETURN_FIELDS
        );
        assert_eq!(
            define_num(FIELDS_H, "VIGIL_NRETURN_FIELDS"),
            sources::RETURN_FIELDS.len()
        );
        let max = define_num(FIELDS_H, "VIGIL_MAX_FIELDS");
        for t in sources::TRACEPOINTS {
            assert!(t.fields.len() + sources::COMMON.len() <= max, "{}", t.name);
        }
        assert!(sources::RETURN_FIELDS.len() + sources::COMMON.len() <= max);
    }

    #[test]
    fn limits_match_monitor_h() {
        let h = include_str!("../../../bpf/monitor.h");
        let num = |name: &str| -> usize {
            let line = h
                .lines()
                .find(|l| l.starts_with(&format!("#define {name} ")))
                .unwrap();
            line.split_whitespace().nth(2).unwrap().parse().unwrap()
        };
        assert_eq!(num("VIGIL_MAX_STATES"), MAX_STATES);
        assert_eq!(num("VIGIL_MAX_EVENTS"), MAX_EVENTS);
        assert_eq!(num("VIGIL_MAX_RULES"), MAX_RULES_PER_SOURCE);
        assert_eq!(num("VIGIL_MAX_CONDS"), MAX_CONDS);
        assert_eq!(
            define_num(FIELDS_H, "VIGIL_MAX_UPROBES"),
            MAX_FUNCTION_SOURCES
        );
    }

    fn models_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models")
    }

    fn shipped(name: &str) -> (Model, Binding) {
        let dir = models_dir();
        let model = Model::from_file(&dir.join(format!("{name}.dot"))).unwrap();
        let binding = Binding::from_file(&dir.join(format!("{name}.bind")), &model).unwrap();
        (model, binding)
    }

    #[test]
    fn wwnr_model() {
        let (m, b) = shipped("wwnr");
        check_limits(&m, &b).unwrap();
        let blob = compiled_model(&m, &b).unwrap();
        assert_eq!(&blob[..4], b"VTK1");
        let text = String::from_utf8_lossy(&blob);
        let model_file = format!("\0{}\0", display_path(&m.path));
        assert!(text.contains(&model_file), "the model's file as reports name it");
        for name in ["wwnr\0", "not_running\0running\0", "switch_in\0switch_out\0wakeup\0", "tp:sched_switch\0"] {
            assert!(text.contains(name), "{name:?} in the names");
        }
    }

    #[test]
    fn shipped_models_fit_the_engine() {
        for name in ["wwnr", "tss", "nrp"] {
            let (m, b) = shipped(name);
            check_limits(&m, &b).unwrap();
            let blob = compiled_model(&m, &b).unwrap();
            assert_eq!(&blob[..4], b"VTK1", "{name}");
        }
    }

    #[test]
    fn too_many_conditions_is_refused_at_its_line() {
        let dir = crate::tempdir::TempDir::new("monitor-test");
        let dot = dir.path().join("m.dot");
        std::fs::write(
            &dot,
            "digraph state_automaton {\n\
             {node [shape = plaintext, style=invis, label=\"\"] \"__init_a\"};\n\
             {node [shape = ellipse] \"a\"};\n\
             \"__init_a\" -> \"a\";\n\
             \"a\" -> \"a\" [ label = \"e\" ];\n}\n",
        )
        .unwrap();
        let m = Model::from_file(&dot).unwrap();
        let bind = "scope global\n\
                    e <- tp:sched_switch if prev_pid == 1 && next_pid == 2 && prev_prio == 3 && next_prio == 4 && preempt == 0\n";
        let b = Binding::from_str(&dir.path().join("m.bind"), bind, &m).unwrap();
        let err = check_limits(&m, &b).unwrap_err();
        assert!(
            err.message.contains("m.bind:2: 5 conditions"),
            "{}",
            err.message
        );
        assert_eq!(err.code, 2);
    }

    #[test]
    fn binding_next_to_the_model() {
        let dir = crate::tempdir::TempDir::new("monitor-test");
        let dot = dir.path().join("m.dot");
        std::fs::write(&dot, "digraph state_automaton {}\n").unwrap();
        let err = resolve(&dot, None).unwrap_err();
        assert!(
            err.message.contains("m.bind does not exist"),
            "{}",
            err.message
        );
        std::fs::write(dir.path().join("m.bind"), "").unwrap();
        let (m, b) = resolve(&dot, None).unwrap();
        assert_eq!(m, dot);
        assert_eq!(b, dir.path().join("m.bind"));
        let (_, b) = resolve(&dot, Some(Path::new("/x/y.bind"))).unwrap();
        assert_eq!(b, PathBuf::from("/x/y.bind"));
    }
}
