//! `vigil record [--uprobe BINARY:FUNC]... [--tracepoint SYSTEM:NAME]...
//! [--stream DEST] [--system-wide] [--duration S] -- COMMAND ARGS...`:
//! uprobe and tracepoint events of an unmodified program, or of the whole
//! system, into the event stream (docs/stream-format.md, docs/record.md).
//!
//! The arguments are checked here, then `vigil-bpf-record` (bpf/record.c,
//! installed next to `vigil`, or `$VIGIL_BPF_RECORD`) is exec'd: it checks
//! the binaries, functions and tracepoints, loads bpf/record.bpf.c, runs
//! COMMAND and streams.  exec, not spawn: the command's exit status and the
//! Ctrl-C handling are `vigil record`'s.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

use clap::Args;

use crate::error::{Error, Result};

/// The loader's file name, next to `vigil`.
pub const LOADER: &str = "vigil-bpf-record";
/// Overrides where the loader is looked for.
pub const LOADER_VAR: &str = "VIGIL_BPF_RECORD";

const AFTER_HELP: &str = "\
Events:
  --uprobe BINARY:FUNC     FUNC/entry (arg0..arg5: the six argument registers, u64)
                           and FUNC/return (ret: the return value, i64)
  --uprobe BINARY:FUNC+OFF FUNC+0xOFF/uprobe (the six argument registers)
  --tracepoint SYS:NAME    SYS:NAME/tracepoint (its scalar fields, from the format file)
BINARY is a path, a program on $PATH or a library (libc.so.6).  Uprobes are
limited to COMMAND's process, tracepoints to COMMAND and its descendants;
--system-wide records every process.

The stream is in discard mode: kernel probes cannot wait for a slow
collector, so an event that finds the kernel ring buffer full is lost, and
counted (each thread's sequence numbers have a gap exactly where events were
lost).  Needs root.  Exit status: COMMAND's (128+N if killed by signal N),
0 without a command, 2 for errors (then nothing is started).
See docs/record.md.

Example:
  vigil record --uprobe ./server:handle_request --tracepoint syscalls:sys_enter_write \\
               --stream file:run.bson -- ./server --once";

#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct RecordArgs {
    /// Record entry and return of FUNC in BINARY (or one instruction: BINARY:FUNC+0xOFF); repeatable
    #[arg(long = "uprobe", value_name = "BINARY:FUNC")]
    pub uprobes: Vec<String>,
    /// Record a kernel tracepoint (/sys/kernel/tracing/events/SYSTEM/NAME); repeatable
    #[arg(long = "tracepoint", value_name = "SYSTEM:NAME")]
    pub tracepoints: Vec<String>,
    /// Where to stream: tcp://HOST:PORT, unix:PATH or file:PATH (default: $VIGIL_STREAM)
    #[arg(long, value_name = "DEST")]
    pub stream: Option<String>,
    /// Record every process, not only COMMAND's (then COMMAND is optional)
    #[arg(long)]
    pub system_wide: bool,
    /// Stop after S seconds (default: when COMMAND exits, or at Ctrl-C)
    #[arg(long, value_name = "S")]
    pub duration: Option<f64>,
    /// Advanced: size of the kernel ring buffer, a power of two from 4K to 1G (default 8M); events that find it full are lost (counted)
    #[arg(long, value_name = "BYTES")]
    pub ring_size: Option<String>,
    /// The program to run and record
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

/// A symbol name as a linker writes it (C, mangled C++, versioned).
fn is_symbol(s: &str) -> bool {
    !s.is_empty()
        && s
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '@'))
}

/// `BINARY:FUNC` or `BINARY:FUNC+OFFSET` (decimal or 0x hex).
pub fn check_uprobe(spec: &str) -> Result<()> {
    let bad = || {
        Error::setup(format!(
            "--uprobe {spec}: expected BINARY:FUNC or BINARY:FUNC+0xOFFSET (FUNC a symbol of \
             BINARY, a program or a library)"
        ))
    };
    let (binary, func) = spec.rsplit_once(':').ok_or_else(bad)?;
    let (func, offset) = match func.split_once('+') {
        Some((f, o)) => (f, Some(o)),
        None => (func, None),
    };
    if binary.is_empty() || !is_symbol(func) {
        return Err(bad());
    }
    if let Some(o) = offset {
        let ok = match o.strip_prefix("0x").or_else(|| o.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16).is_ok(),
            None => o.starts_with(|c: char| c.is_ascii_digit()) && o.parse::<u64>().is_ok(),
        };
        if !ok {
            return Err(bad());
        }
    }
    Ok(())
}

fn is_tracefs_name(s: &str) -> bool {
    !s.is_empty()
        && s != "."
        && s != ".."
        && s
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// `SYSTEM:NAME`, each a tracefs directory name.
pub fn check_tracepoint(spec: &str) -> Result<()> {
    match spec.split_once(':') {
        Some((sys, name)) if is_tracefs_name(sys) && is_tracefs_name(name) => Ok(()),
        _ => Err(Error::setup(format!(
            "--tracepoint {spec}: expected SYSTEM:NAME, as in /sys/kernel/tracing/events/SYSTEM/NAME \
             (e.g. sched:sched_switch)"
        ))),
    }
}

/// `tcp://HOST:PORT`, `unix:PATH` or `file:PATH`, from --stream or (`env`)
/// from $VIGIL_STREAM.
pub fn check_dest(dest: &str, env: bool) -> Result<()> {
    let ok = if let Some(hp) = dest.strip_prefix("tcp://") {
        matches!(hp.rsplit_once(':'), Some((h, p)) if !h.is_empty()
            && p.parse::<u16>().is_ok_and(|p| p > 0))
    } else if let Some(p) = dest.strip_prefix("unix:") {
        !p.is_empty() && p.len() < 108 // sun_path
    } else if let Some(p) = dest.strip_prefix("file:") {
        !p.is_empty()
    } else {
        false
    };
    if ok {
        Ok(())
    } else {
        let given = if env {
            format!("VIGIL_STREAM={dest}")
        } else {
            format!("--stream {dest}")
        };
        Err(Error::setup(format!(
            "{given}: expected tcp://HOST:PORT, unix:PATH or file:PATH"
        )))
    }
}

/// BYTES with an optional K, M or G suffix: a power of two from 4K to 1G.
pub fn check_ring_size(s: &str) -> Result<u64> {
    let (digits, shift) = match s.as_bytes().last() {
        Some(b'k' | b'K') => (&s[..s.len() - 1], 10),
        Some(b'm' | b'M') => (&s[..s.len() - 1], 20),
        Some(b'g' | b'G') => (&s[..s.len() - 1], 30),
        _ => (s, 0),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .filter(|n| n.is_power_of_two() && (4096..=1 << 30).contains(n))
        .ok_or_else(|| {
            Error::setup(format!(
                "--ring-size {s}: expected a power of two from 4K to 1G (bytes, or with a K, M or G suffix)"
            ))
        })
}

/// Everything that can be checked without the files, the kernel or root.
pub fn check(args: &RecordArgs, env_stream: Option<&str>) -> Result<()> {
    for u in &args.uprobes {
        check_uprobe(u)?;
    }
    for t in &args.tracepoints {
        check_tracepoint(t)?;
    }
    if args.uprobes.is_empty() && args.tracepoints.is_empty() {
        return Err(Error::setup(
            "nothing to record: give --uprobe BINARY:FUNC or --tracepoint SYSTEM:NAME",
        ));
    }
    match (&args.stream, env_stream.filter(|s| !s.is_empty())) {
        (Some(d), _) => check_dest(d, false)?,
        (None, Some(d)) => check_dest(d, true)?,
        (None, None) => {
            return Err(Error::setup(
                "no stream destination: give --stream DEST or set VIGIL_STREAM \
                 (tcp://HOST:PORT, unix:PATH or file:PATH)",
            ))
        }
    }
    if args.command.is_empty() && !args.system_wide {
        return Err(Error::setup(
            "no command: give one after `--`, or --system-wide to record every process",
        ));
    }
    if let Some(d) = args.duration {
        if !(d > 0.0 && d.is_finite()) {
            return Err(Error::setup(format!(
                "--duration {d}: expected a positive number of seconds"
            )));
        }
    }
    if let Some(r) = &args.ring_size {
        check_ring_size(r)?;
    }
    Ok(())
}

/// `vigil-bpf-record` next to the running `vigil` (or `$VIGIL_BPF_RECORD`).
fn loader_path() -> Result<PathBuf> {
    crate::install::sibling_program(LOADER, LOADER_VAR, "vigil record")
}

pub fn run(args: &RecordArgs) -> Result<()> {
    let env_stream = std::env::var("VIGIL_STREAM").ok();
    check(args, env_stream.as_deref())?;
    let loader = loader_path()?;
    let mut cmd = Command::new(&loader);
    for u in &args.uprobes {
        cmd.arg("--uprobe").arg(u);
    }
    for t in &args.tracepoints {
        cmd.arg("--tracepoint").arg(t);
    }
    // Without --stream the loader takes $VIGIL_STREAM, and keeps it from
    // COMMAND (it named vigil record's destination, not the command's).
    if let Some(d) = &args.stream {
        cmd.arg("--stream").arg(d);
    }
    if args.system_wide {
        cmd.arg("--system-wide");
    }
    if let Some(d) = args.duration {
        cmd.arg("--duration").arg(d.to_string());
    }
    if let Some(r) = &args.ring_size {
        cmd.arg("--ring-size").arg(r);
    }
    if !args.command.is_empty() {
        cmd.arg("--").args(&args.command);
    }
    let err = cmd.exec();
    Err(Error::setup(format!("cannot run {}: {err}", loader.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(uprobes: &[&str], tracepoints: &[&str], command: &[&str]) -> RecordArgs {
        RecordArgs {
            uprobes: uprobes.iter().map(|s| s.to_string()).collect(),
            tracepoints: tracepoints.iter().map(|s| s.to_string()).collect(),
            stream: Some("file:/tmp/x.bson".into()),
            system_wide: false,
            duration: None,
            ring_size: None,
            command: command.iter().map(OsString::from).collect(),
        }
    }

    fn message(r: Result<()>) -> String {
        let e = r.expect_err("should be refused");
        assert_eq!(e.code, 2, "{}", e.message);
        e.message
    }

    #[test]
    fn uprobe_specs() {
        for ok in ["./prog:func", "libc.so.6:malloc", "/a:b:func", "p:f+0x10", "p:f+16", "p:_ZN3foo3barEv"] {
            check_uprobe(ok).unwrap_or_else(|e| panic!("{ok}: {}", e.message));
        }
        for bad in ["func", ":func", "prog:", "prog:f+", "prog:f+0xzz", "prog:f+-1", "prog:a b", "prog:f/g"] {
            let m = message(check_uprobe(bad));
            assert!(m.starts_with(&format!("--uprobe {bad}: expected BINARY:FUNC")), "{m}");
        }
    }

    #[test]
    fn tracepoint_specs() {
        check_tracepoint("sched:sched_switch").unwrap();
        check_tracepoint("syscalls:sys_enter_close").unwrap();
        for bad in ["sched", "sched:", ":x", "../x:y", "sched:a/b", "a:.."] {
            let m = message(check_tracepoint(bad));
            assert!(m.starts_with(&format!("--tracepoint {bad}: expected SYSTEM:NAME")), "{m}");
        }
    }

    #[test]
    fn destinations() {
        for ok in ["tcp://127.0.0.1:7070", "tcp://[::1]:1", "unix:/run/v.sock", "file:out.bson"] {
            check_dest(ok, false).unwrap_or_else(|e| panic!("{ok}: {}", e.message));
        }
        for bad in ["out.bson", "tcp://host", "tcp://:7070", "tcp://h:0", "tcp://h:99999", "file:", "unix:"] {
            let m = message(check_dest(bad, false));
            assert_eq!(m, format!("--stream {bad}: expected tcp://HOST:PORT, unix:PATH or file:PATH"));
        }
    }

    #[test]
    fn ring_sizes() {
        assert_eq!(check_ring_size("4096").unwrap(), 4096);
        assert_eq!(check_ring_size("8M").unwrap(), 8 << 20);
        assert_eq!(check_ring_size("1g").unwrap(), 1 << 30);
        for bad in ["0", "1000", "2048", "3M", "2G", "x", "", "99999999999999999999K"] {
            assert!(message(check_ring_size(bad).map(|_| ())).starts_with("--ring-size"));
        }
    }

    #[test]
    fn what_must_be_given() {
        let m = message(check(&args(&[], &[], &["true"]), None));
        assert!(m.starts_with("nothing to record"), "{m}");
        let m = message(check(&args(&["./p:f"], &[], &[]), None));
        assert!(m.starts_with("no command"), "{m}");
        let mut a = args(&["./p:f"], &[], &["true"]);
        a.stream = None;
        assert!(message(check(&a, None)).starts_with("no stream destination"));
        assert!(message(check(&a, Some("bad"))).starts_with("VIGIL_STREAM=bad: expected"));
        check(&a, Some("file:x")).unwrap();
        let mut sw = args(&[], &["sched:sched_switch"], &[]);
        sw.system_wide = true;
        check(&sw, None).unwrap();
        sw.duration = Some(0.0);
        assert!(message(check(&sw, None)).starts_with("--duration 0"));
        // the first bad spec is the one named
        let m = message(check(&args(&["./p:f", "bad"], &[], &["true"]), None));
        assert!(m.starts_with("--uprobe bad:"), "{m}");
    }

    #[test]
    fn help_says_discard_and_root() {
        use clap::CommandFactory;
        let mut cmd = crate::app::Cli::command();
        let help = cmd
            .find_subcommand_mut("record")
            .expect("record subcommand")
            .render_long_help()
            .to_string();
        for needle in ["discard mode", "Needs root", "--uprobe", "--tracepoint", "--ring-size"] {
            assert!(help.contains(needle), "help lacks {needle}:\n{help}");
        }
    }
}
