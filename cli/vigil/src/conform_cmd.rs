//! `vigil conform CASE...`: run conformance cases (tests/conformance) through
//! every engine and compare their verdicts with the case's `expected`.
//!
//! Engines: `reference` (the model crate's step function under the
//! simplest driver), `offline` (the engine of `vigil check` and `vigil
//! collect --check`), `c` (include/vigil/vk.h, the step the in-process
//! and BPF engines share, through a runner program given with
//! `--c-runner`), `bpf` (the kernel engine itself: vigil-bpf-monitor runs
//! each event through the loaded program, triggered by a system call) and
//! `process` (the in-process engine, a driver built with vigil-cc).  `--record` writes `expected` from the reference.

use std::path::{Path, PathBuf};
use std::process::Command;

use vigil_model::compiled::{Compiled, Verdict, FORGET, NONE};
use vigil_trace::conform::{self, Case};

use crate::error::{Error, Result};
use crate::tempdir::TempDir;

#[derive(Debug, Clone, clap::Args)]
pub struct ConformArgs {
    /// Case directories (binding.bind, events, expected)
    #[arg(value_name = "CASE", required = true)]
    pub cases: Vec<PathBuf>,
    /// Also run the C step function through this runner (tests/conformance/vk_run.c)
    #[arg(long, value_name = "PATH")]
    pub c_runner: Option<PathBuf>,
    /// Also run the kernel engine: vigil-bpf-monitor --conform (the BPF program itself; needs root)
    #[arg(long, value_name = "PATH")]
    pub bpf_runner: Option<PathBuf>,
    /// Also run the in-process engine: build each case's driver with this vigil-cc
    #[arg(long, value_name = "PATH")]
    pub process_cc: Option<PathBuf>,
    /// Write each case's `expected` from the reference engine
    #[arg(long)]
    pub record: bool,
    /// Write each case's `events`: N random events for its binding (then --record)
    #[arg(long, value_name = "N")]
    pub generate: Option<usize>,
    /// Seed of --generate
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(args: &ConformArgs) -> Result<()> {
    let mut disagree = 0;
    let mut totals = (0usize, 0usize);
    for dir in &args.cases {
        if let Some(n) = args.generate {
            generate(dir, n, args.seed)?;
        }
        let case = conform::load(dir).map_err(|d| Error::setup(d.to_string()))?;
        let reference = conform::run_reference(&case);
        if args.record {
            let mut text = String::from("# recorded by `vigil conform --record` from the reference engine; review before committing\n");
            reference.iter().for_each(|l| text += &format!("{l}\n"));
            std::fs::write(dir.join("expected"), text)
                .map_err(|e| Error::failure(format!("cannot write {}: {e}", dir.join("expected").display())))?;
        }
        let expected = if args.record { Some(reference.clone()) } else { case.expected.clone() };
        let Some(expected) = expected else {
            return Err(Error::setup(format!("{}: no `expected` file (record one with --record)", dir.display())));
        };
        let mut engines = vec![("reference", reference), ("offline", conform::run_offline(&case))];
        let mut skipped = String::new();
        if let Some(runner) = &args.c_runner {
            engines.push(("c", run_c(runner, &[], &case)?));
        }
        if let Some(runner) = &args.bpf_runner {
            match bpf_unsupported(&case) {
                None => engines.push(("bpf", run_c(runner, &["--conform"], &case)?)),
                Some(why) => skipped += &format!(" (bpf: not run: {why})"),
            }
        }
        if let Some(cc) = &args.process_cc {
            match crate::conform_process::unsupported(&case) {
                None => engines.push(("process", crate::conform_process::run(cc, &case)?)),
                Some(why) => skipped += &format!(" (process: not run: {why})"),
            }
        }
        let mut ok = true;
        for (name, got) in &engines {
            if *got != expected {
                ok = false;
                print_diff(dir, name, &expected, got);
            }
        }
        totals.0 += case.events.len();
        totals.1 += expected.len();
        let names: Vec<&str> = engines.iter().map(|e| e.0).collect();
        if ok {
            println!("ok: {}: {} events, {} verdicts; {} agree{skipped}", dir.display(), case.events.len(), expected.len(), names.join(", "));
        } else {
            disagree += 1;
        }
    }
    println!("conform: {} cases, {} events, {} verdicts, {} disagreeing", args.cases.len(), totals.0, totals.1, disagree);
    if disagree > 0 {
        return Err(Error::with_code(format!("{disagree} cases disagree"), 1));
    }
    Ok(())
}

/// `events` for the case's binding, from its compiled model.
fn generate(dir: &Path, n: usize, seed: u64) -> Result<()> {
    let bad = |d: vigil_model::Diagnostic| Error::setup(d.to_string());
    let bind = dir.join("binding.bind");
    let model_path = vigil_model::Binding::model_path(&bind)
        .map_err(bad)?
        .ok_or_else(|| Error::setup(format!("{}: no `model` line", bind.display())))?;
    let model = vigil_model::Model::from_file(&model_path).map_err(bad)?;
    let binding = vigil_model::Binding::from_file(&bind, &model).map_err(bad)?;
    let c = vigil_model::compiled::compile(&model, &binding).map_err(bad)?;
    let text = format!("# {n} random events, seed {seed} (vigil conform --generate {n} --seed {seed})\n{}", conform::random_events(&c, &binding, n, seed));
    std::fs::write(dir.join("events"), text).map_err(|e| Error::failure(format!("cannot write {}: {e}", dir.join("events").display())))
}

fn print_diff(dir: &Path, engine: &str, want: &[String], got: &[String]) {
    println!("FAIL: {}: engine `{engine}` disagrees with expected", dir.display());
    for l in want.iter().filter(|l| !got.contains(l)) {
        println!("  - {l}");
    }
    for l in got.iter().filter(|l| !want.contains(l)) {
        println!("  + {l}");
    }
    if want.len() == got.len() && want.iter().all(|l| got.contains(l)) {
        println!("  (same verdicts in another order)");
    }
}

/// Why the kernel engine cannot run a case, if it cannot: it runs plain
/// automata, hybrid automata and LTL within its limits (rules per source,
/// functions, LTL states and atoms), loading BPF needs root, and a cpu
/// instance lives in a per-cpu map, so a cpu key beyond this machine's
/// cpus has no instance there (bpf/README.md).
fn bpf_unsupported(case: &Case) -> Option<String> {
    use vigil_model::compiled::Kind;
    match case.compiled.kind {
        Kind::Ltl if matches!(case.compiled.scope, vigil_model::Scope::Global | vigil_model::Scope::Cpu) => {
            return Some("the eBPF engine runs LTL per task or object".into())
        }
        Kind::Ltl if case.compiled.nstates > 16 || case.compiled.nevents > 24 => {
            return Some("an LTL instance of the eBPF engine holds at most 16 states and 24 atoms".into())
        }
        _ if !crate::monitor_cmd::is_root() => return Some("loading BPF needs root".into()),
        Kind::Da | Kind::Ha | Kind::Ltl => {}
    }
    if let Err(e) = crate::monitor_cmd::check_limits(&case.model, &case.binding) {
        return Some(e.message);
    }
    if let Some(b) = &case.compiled.ltl {
        let wide = (0..b.states.len()).any(|s| vigil_model::compiled::labels::label(b, s).is_none_or(|l| l.terms.len() > 4));
        if wide {
            return Some("a state label has more than the eBPF engine's 4 terms".into());
        }
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as i64;
    let c = &case.compiled;
    let beyond = c.scope == vigil_model::Scope::Cpu
        && case.events.iter().any(|e| {
            c.rules.iter().any(|r| {
                Some(r.source) == e.source
                    && r.key != vigil_model::compiled::NO_FIELD
                    && !(0..cpus).contains(&e.fields[r.key as usize])
            })
        });
    beyond.then(|| format!("cpu keys beyond this machine's {cpus} cpus"))
}

/// The case through a C runner (`vk_run`, or the kernel engine's loader
/// with `--conform`): blob and numeric events in a temporary directory,
/// numeric verdicts back.  Both runners take the same files.
fn run_c(runner: &Path, prefix: &[&str], case: &Case) -> Result<Vec<String>> {
    let tmp = TempDir::create("conform").map_err(|e| Error::failure(format!("temporary directory: {e}")))?;
    let blob = tmp.path().join("model.blob");
    let events = tmp.path().join("events");
    let write = |p: &Path, b: &[u8]| std::fs::write(p, b).map_err(|e| Error::failure(format!("cannot write {}: {e}", p.display())));
    write(&blob, &case.compiled.to_blob())?;
    write(&events, conform::numeric_events(case).as_bytes())?;
    let mut cmd = Command::new(runner);
    match prefix {
        // vigil-bpf-monitor --conform EVENTS MODEL.vk
        [flag] => cmd.arg(flag).arg(&events).arg(&blob),
        _ => cmd.arg(&blob).arg(&events),
    };
    let out = cmd
        .output()
        .map_err(|e| Error::setup(format!("cannot run {}: {e}", runner.display())))?;
    if !out.status.success() {
        return Err(Error::failure(format!(
            "{} failed on {}: {}",
            runner.display(),
            case.dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .map(|l| c_verdict(&case.compiled, l).ok_or_else(|| Error::failure(format!("{}: unreadable output `{l}`", runner.display()))))
        .collect()
}

/// `LINE VERDICT KEY FROM EVENT AT` → the corpus's verdict line.  FROM of
/// an LTL verdict is the set of states, a bit each.
fn c_verdict(c: &Compiled, l: &str) -> Option<String> {
    let w: Vec<i64> = l.split_whitespace().map(|x| x.parse().ok()).collect::<Option<_>>()?;
    let [line, verdict, key, from, event, at] = w[..] else { return None };
    let state = || u16::try_from(from).ok().filter(|&s| s < c.nstates);
    let v = match verdict {
        1 => Verdict::Event { from: state()? },
        2 => Verdict::Guard { from: state()?, guard: 0 },
        3 => Verdict::Invariant { from: state()? },
        4 => Verdict::NotFinal { from: state()? },
        5 => Verdict::Ltl { states: u32::try_from(from).ok().filter(|&s| (s as u64) >> c.nstates == 0)? },
        _ => return None,
    };
    let event = match u16::try_from(event).ok()? {
        NONE => None,
        FORGET => Some(FORGET),
        e if e < c.nevents => Some(e),
        _ => return None,
    };
    let at = (at >= 0).then_some(at as u64);
    Some(conform::verdict_line(c, line as u32, key, v, event, at))
}
