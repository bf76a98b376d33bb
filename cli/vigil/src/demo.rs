//! `vigil demo`: build and run the bundled example, once correct and once
//! with its seeded bug, and show what vigil reports.

use std::ffi::OsString;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use crate::cc::{command_line, verbose};
use crate::error::{Error, Result};
use crate::flags::cc_args;
use crate::install::{clang_from_env, Install};
use crate::tempdir::TempDir;

/// The demo program, embedded so that `vigil demo` works from anywhere.
pub const DEMO_C: &str = include_str!("../../../examples/demo/demo.c");
pub const DEMO_README: &str = include_str!("../../../examples/demo/README.md");

/// The assertions of demo.c, as the narrative shows them.
pub const ASSERTIONS: &[(&str, &str)] = &[
    (
        "TESLA_WITHIN(do_syscall, previously(mac_check(c, f) == 0));",
        "within the current system call, mac_check() has already approved\n      this very credential c and file f (returned 0)",
    ),
    (
        "TESLA_WITHIN(do_syscall, eventually(call(file_release(f))));",
        "before the system call returns, the file f opened here is released",
    ),
];

pub const BUILD_ARGS: &[&str] = &["-O1", "-g", "-o", "demo", "demo.c"];
pub const REPORT_FILE: &str = "report.jsonl";
pub const CLEAN_REPORT_FILE: &str = "clean-run.jsonl";

/// Runtime settings that must not leak from the user's environment into the
/// demo's runs.
const RUNTIME_VARS: &[&str] = &["VIGIL_ON_FAILURE", "VIGIL_REPORT", "DEMO_BUG"];

/// The lines of a JSON Lines report that hold something.
pub fn report_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

/// The verdict of a demo run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub clean_exit: Option<i32>,
    pub clean_report_lines: usize,
    pub buggy_report_lines: usize,
}

impl Outcome {
    /// `Ok` when the correct run was clean and the buggy run was reported.
    pub fn verdict(&self) -> std::result::Result<(), String> {
        if self.clean_exit != Some(0) {
            return Err(format!(
                "the correct run should exit 0 with every assertion holding, but it {}",
                match self.clean_exit {
                    Some(c) => format!("exited with status {c}"),
                    None => "was killed by a signal".to_string(),
                }
            ));
        }
        if self.clean_report_lines != 0 {
            return Err(format!(
                "the correct run reported {} violation(s); it should report none",
                self.clean_report_lines
            ));
        }
        if self.buggy_report_lines == 0 {
            return Err("the run with the seeded bug produced no violation report".to_string());
        }
        Ok(())
    }
}

fn describe(status: ExitStatus) -> String {
    match status.code() {
        Some(c) => format!("exit status {c}"),
        None => format!("{status}"),
    }
}

fn step(n: u32, title: &str) {
    println!();
    println!("[{n}/3] {title}");
}

fn read_report(path: &Path) -> Result<String> {
    match fs::read_to_string(path) {
        Ok(s) => Ok(s),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(Error::failure(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

/// Run the demo program with its stdout and stderr merged into one pipe
/// (so that the program's lines and vigil's reports stay in order), and
/// echo each line indented under the narrative.
fn run_program(dir: &Path, bug: bool) -> Result<ExitStatus> {
    let program = dir.join("demo");
    let fail = |e: std::io::Error| Error::failure(format!("cannot run {}: {e}", program.display()));
    let (reader, writer) = std::io::pipe().map_err(fail)?;
    let mut cmd = Command::new(&program);
    cmd.current_dir(dir)
        .stdin(Stdio::null())
        .stdout(writer.try_clone().map_err(fail)?)
        .stderr(writer);
    for var in RUNTIME_VARS {
        cmd.env_remove(var);
    }
    if bug {
        cmd.env("DEMO_BUG", "1")
            .env("VIGIL_ON_FAILURE", "log")
            .env("VIGIL_REPORT", REPORT_FILE);
    } else {
        cmd.env("VIGIL_REPORT", CLEAN_REPORT_FILE);
    }
    let mut child = cmd.spawn().map_err(fail)?;
    drop(cmd); // close our copies of the pipe's write end
    for line in BufReader::new(reader).split(b'\n') {
        let line = line.map_err(fail)?;
        println!(
            "  | {}",
            String::from_utf8_lossy(&line).trim_end_matches('\r')
        );
    }
    child.wait().map_err(fail)
}

pub fn run(keep: Option<&Path>) -> Result<()> {
    // Check the installation before printing anything.
    let install = Install::locate()?;
    let user: Vec<OsString> = BUILD_ARGS.iter().map(OsString::from).collect();
    let args = cc_args(&install, &user)?;
    let clang = clang_from_env()?;

    let mut temp = None;
    let dir: PathBuf = match keep {
        Some(d) => {
            fs::create_dir_all(d)
                .map_err(|e| Error::failure(format!("cannot create {}: {e}", d.display())))?;
            d.canonicalize().unwrap_or_else(|_| d.to_path_buf())
        }
        None => {
            let t = TempDir::create("demo")
                .map_err(|e| Error::failure(format!("cannot create a temporary directory: {e}")))?;
            let p = t.path().to_path_buf();
            temp = Some(t);
            p
        }
    };
    for (name, text) in [("demo.c", DEMO_C), ("README.md", DEMO_README)] {
        fs::write(dir.join(name), text).map_err(|e| {
            Error::failure(format!("cannot write {}: {e}", dir.join(name).display()))
        })?;
    }
    for stale in [REPORT_FILE, CLEAN_REPORT_FILE, "demo"] {
        let _ = fs::remove_file(dir.join(stale));
    }

    println!("vigil demo: runtime verification of temporal assertions in C");
    println!();
    println!("demo.c is a toy kernel VFS.  Inside vfs_open() it asserts:");
    for (code, meaning) in ASSERTIONS {
        println!();
        println!("  {code}");
        println!("    = {meaning}");
    }
    println!();
    println!("The seeded bug: an O_PATH \"fast path\" in do_syscall() calls vfs_open()");
    println!("without asking mac_check() first.  The program still runs and its output");
    println!("looks plausible: only the temporal assertion notices.");
    println!();
    println!("Working directory: {}", dir.display());

    step(1, "Build with vigil's compiler driver");
    println!("  $ vigil cc {}", BUILD_ARGS.join(" "));
    if verbose() {
        println!("  = {}", command_line(&clang, &args));
    }
    let status = Command::new(&clang)
        .args(&args)
        .current_dir(&dir)
        .status()
        .map_err(|e| Error::setup(format!("cannot execute {}: {e}", clang.display())))?;
    if !status.success() {
        return Err(Error::failure(format!(
            "building the demo failed ({})",
            describe(status)
        )));
    }

    step(2, "Run the correct program: both assertions hold");
    println!("  $ VIGIL_REPORT={CLEAN_REPORT_FILE} ./demo");
    let clean = run_program(&dir, false)?;
    let clean_report = read_report(&dir.join(CLEAN_REPORT_FILE))?;
    let clean_lines = report_lines(&clean_report).len();
    println!(
        "  -> {}, {} violation(s) reported",
        describe(clean),
        clean_lines
    );

    step(3, "Run with the seeded bug: vigil reports the violation");
    println!("  $ DEMO_BUG=1 VIGIL_ON_FAILURE=log VIGIL_REPORT={REPORT_FILE} ./demo");
    println!("  (VIGIL_ON_FAILURE=log: report and continue; the default, abort, stops at the first violation)");
    let buggy = run_program(&dir, true)?;
    let report = read_report(&dir.join(REPORT_FILE))?;
    let lines = report_lines(&report);
    println!(
        "  -> {}, {} violation(s) reported",
        describe(buggy),
        lines.len()
    );
    if !lines.is_empty() {
        println!();
        println!("  {REPORT_FILE} (JSON Lines, one object per violation):");
        for line in &lines {
            println!("    {line}");
        }
    }

    let outcome = Outcome {
        clean_exit: clean.code(),
        clean_report_lines: clean_lines,
        buggy_report_lines: lines.len(),
    };
    println!();
    let verdict = outcome.verdict();
    match &verdict {
        Ok(()) => {
            println!("Demo OK: the correct run was clean and the bug was caught.");
            if temp.is_some() {
                println!(
                    "To keep the files: vigil demo --keep DIR; then try: vigil explain DIR/demo.c"
                );
            } else {
                println!(
                    "The files are in {}; try: vigil explain {}",
                    dir.display(),
                    dir.join("demo.c").display()
                );
            }
        }
        Err(_) => println!("Demo FAILED."),
    }
    if let Some(mut t) = temp.take() {
        if verdict.is_err() {
            t.keep();
            println!("Kept {} for inspection.", t.path().display());
        }
    }
    verdict.map_err(Error::failure)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_demo_uses_the_assertions_it_describes() {
        for (code, _) in ASSERTIONS {
            assert!(DEMO_C.contains(code), "demo.c lacks {code}");
        }
        assert!(DEMO_C.contains("#include <tesla.h>"));
        assert!(DEMO_C.contains("DEMO_BUG"));
        assert!(DEMO_C.contains("--bug"));
    }

    #[test]
    fn report_lines_skip_blanks() {
        assert_eq!(report_lines(""), Vec::<&str>::new());
        assert_eq!(
            report_lines("{\"a\":1}\n\n  \n{\"b\":2}\n"),
            vec!["{\"a\":1}", "{\"b\":2}"]
        );
    }

    #[test]
    fn verdicts() {
        let good = Outcome {
            clean_exit: Some(0),
            clean_report_lines: 0,
            buggy_report_lines: 2,
        };
        assert!(good.verdict().is_ok());
        assert!(Outcome {
            clean_exit: Some(134),
            ..good.clone()
        }
        .verdict()
        .is_err());
        assert!(Outcome {
            clean_exit: None,
            ..good.clone()
        }
        .verdict()
        .is_err());
        assert!(Outcome {
            clean_report_lines: 1,
            ..good.clone()
        }
        .verdict()
        .is_err());
        assert!(Outcome {
            buggy_report_lines: 0,
            ..good
        }
        .verdict()
        .is_err());
    }
}
