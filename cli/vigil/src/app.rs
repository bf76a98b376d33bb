//! The command line: argv[0] dispatch, `vigil cc` pass-through, and the clap
//! definition of the other subcommands.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{ArgGroup, Parser, Subcommand};

use crate::error::{Error, Result};
use crate::explain::Format;
use crate::install::{clang_from_env, Install};
use crate::render_cmd::RenderFormat;
use crate::{cc, demo, dot2c_cmd, explain, flags, render_cmd, shell};
use crate::check_cmd;

/// Names under which the binary acts as `vigil cc`.
pub const CC_NAMES: &[&str] = &["vigil-cc"];

#[derive(Debug, Parser)]
#[command(
    name = "vigil",
    version,
    about = "Runtime verification of TESLA-style temporal assertions in C programs",
    long_about = "Runtime verification of TESLA-style temporal assertions in C programs.\n\n\
        Write assertions such as\n\n    \
        TESLA_WITHIN(syscall, previously(mac_check(c, f) == 0));\n\n\
        in your C code (#include <tesla.h>), build with `vigil cc` (or `vigil-cc`) in \
        place of your C compiler, and the program checks them as it runs.",
    after_help = "Environment:\n  \
        VIGIL_HOME     installation root (default: the directory above vigil's bin/)\n  \
        VIGIL_CLANG    compiler to run (default: clang-19, or /usr/lib/llvm-19/bin/clang)\n  \
        VIGIL_VERBOSE  print the compiler command line before running it\n\n\
        Run-time (the instrumented program):\n  \
        VIGIL_ON_FAILURE  abort (default) | log | count\n  \
        VIGIL_REPORT      write violations to this file as JSON Lines (vigil report --sarif converts it)",
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Cmd,
}

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Compile and link like clang, with vigil's instrumentation (also: vigil-cc)
    ///
    /// Every argument is passed to clang unchanged; vigil adds its plugin,
    /// header path and (when linking) its link-time pass and runtime.
    /// The exceptions are vigil's own options: `--vigil-monitor=BINDING`
    /// (repeatable) links that monitor on C functions into the program (see
    /// gen-monitor); `--vigil-trace=GLOB[,GLOB...]|@FILE` records the entry
    /// and return of the matching functions (defined in the program, or
    /// called directly, like libc) into the event stream when the program
    /// runs with VIGIL_STREAM=file:PATH|unix:PATH|tcp://HOST:PORT;
    /// `--vigil-trace-events` traces every function an assertion or a
    /// monitor binding names (verdicts are streamed with or without it).
    /// `--vigil-static=report` prints each assertion's link-time verdict
    /// (proven, or unknown with the reason; docs/static.md); `prune` also
    /// removes the instrumentation of the proven ones.
    /// `vigil cc --help` and `vigil cc --version` are clang's.
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Cc {
        /// Arguments for clang
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<OsString>,
    },

    /// Print the flags to use vigil with a build system that takes CC, CFLAGS and LDFLAGS
    ///
    /// Example: make CC="$(vigil flags --cc)" CFLAGS="$(vigil flags --cflags)" LDFLAGS="$(vigil flags --ldflags)"
    #[command(group(ArgGroup::new("what").required(true).multiple(true).args(["cflags", "ldflags", "cc"])))]
    Flags {
        /// Compile flags (header path, Clang plugin, LTO bitcode)
        #[arg(long)]
        cflags: bool,
        /// Link flags, including the link-time pass and the runtime library
        #[arg(long)]
        ldflags: bool,
        /// The path of the clang to use
        #[arg(long)]
        cc: bool,
    },

    /// Describe the assertions of a C file and their automata (or, with --atomic, its atomic
    /// regions; with --static, the static checker's verdicts on a whole program)
    Explain {
        /// The C source file (with --static: every file of the program)
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// List the atomic regions the link-time pass finds (vigil cc --vigil-atomic)
        #[arg(long, conflicts_with = "static_")]
        atomic: bool,
        /// Link the files as one program and print the static checker's verdict on each
        /// assertion: proven, violated (with a failing run) or unknown (with the reason);
        /// exit status 1 when one is violated
        #[arg(long = "static", id = "static_")]
        static_: bool,
        /// Output format
        #[arg(long, short = 'f', value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Write to this file instead of standard output
        #[arg(short = 'o', long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// Extra clang arguments (-I, -D, -std=...), after `--`
        #[arg(last = true, value_name = "CLANG_ARGS")]
        clang_args: Vec<OsString>,
    },

    /// Print an automaton model (.dot) as C tables, like the Linux kernel's dot2c
    ///
    /// MODEL is a Graphviz .dot file in the kernel's RV conventions, or the name
    /// of a model vigil ships (e.g. wwnr).  Without --name the output is the
    /// kernel's standalone dot2c form; with --name it is the model header dot2k
    /// writes, every identifier suffixed _NAME.  Guards, clock resets and
    /// invariants of hybrid automata are listed in a comment and warned about.
    Dot2c {
        /// The model: a .dot file or a shipped model's name
        model: PathBuf,
        /// dot2k style: suffix every identifier with _NAME (struct automaton_NAME)
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
        /// Write to this file instead of standard output
        #[arg(short = 'o', long, value_name = "FILE")]
        output: Option<PathBuf>,
    },

    /// Print an LTL model (.ltl) as the C header of a Linux kernel LTL monitor, like rvgen's ltl2k
    ///
    /// MODEL is a .ltl file in the kernel's syntax or a shipped LTL model's name
    /// (e.g. pagefault).  The header (enum ltl_atom, ltl_atom_str, enum
    /// ltl_buchi_state, ltl_start, ltl_possible_next_states) goes with the
    /// kernel's include/rv/ltl_monitor.h.
    Ltl2k(crate::ltl2k_cmd::Ltl2kArgs),

    /// Draw an automaton model as SVG through Graphviz, optionally one transition in red
    Render {
        /// The model: a .dot file or a shipped model's name
        model: PathBuf,
        /// Draw this transition in red; an event not allowed in the state is
        /// drawn as a dashed red edge to a "✗ EVENT" node
        #[arg(long, value_name = "STATE:EVENT")]
        highlight: Option<String>,
        /// Write to this file instead of standard output
        #[arg(short = 'o', long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Output format
        #[arg(long, value_enum, default_value_t = RenderFormat::Svg)]
        format: RenderFormat,
    },

    /// Write the C unit of a monitor on C functions: a model bound to calls and returns
    ///
    /// BINDING binds each event of a model (.dot) to `call:FUNC` or
    /// `return:FUNC` (optionally with conditions on arguments and the return
    /// value), per thread, global or per object.  Link the unit into a
    /// program built with vigil-cc, or let `vigil cc --vigil-monitor=BINDING`
    /// do all of it.
    GenMonitor {
        /// The binding file (.bind), or the name of a binding vigil ships
        binding: PathBuf,
        /// The model, instead of the binding's `model` line
        #[arg(long, value_name = "MODEL")]
        model: Option<PathBuf>,
        /// Write to this file instead of standard output
        #[arg(short = 'o', long, value_name = "FILE.c")]
        output: Option<PathBuf>,
    },

    /// Run an automaton model as a live Linux kernel monitor through eBPF (needs root)
    ///
    /// MODEL is a .dot file, a shipped model's name (wwnr, tss, nrp) or a .bind
    /// file; its binding (MODEL.bind, or --bind) maps tracepoints, or uprobes
    /// on functions of an existing binary (call:FUNC, return:FUNC), to the
    /// model's events.  Violations are reported with the state, event, task,
    /// cpu and stack.  Exit status: 0 no violation, 1 violations, 2 errors.
    Monitor(crate::monitor_cmd::MonitorArgs),

    /// Check a recorded ftrace trace against an automaton model, offline
    ///
    /// Reads ftrace text (the `trace` or `trace_pipe` file, or `trace-cmd
    /// report` output), maps tracepoint lines to model events through a
    /// binding, and prints each violation with its trace line, then a
    /// summary.  Shipped models (wwnr) come with their binding; a user model
    /// takes --bind FILE.  Exit status: 0 no violation, 1 violations, 2 bad
    /// input (model, binding, unreadable trace).
    Check(check_cmd::CheckArgs),

    /// Run conformance cases (model, binding, events, expected verdicts) through every engine
    ///
    /// Each CASE directory holds binding.bind (whose `model` line names the
    /// model), events (`TIME SOURCE FIELD=VALUE...` per line) and expected
    /// (one verdict per line).  The reference step function, the offline
    /// engine and, with --c-runner, the C step function shared by the
    /// in-process and kernel monitors must all give exactly the expected
    /// verdicts.  Exit status: 0 all agree, 1 a case disagrees, 2 bad input.
    Conform(crate::conform_cmd::ConformArgs),

    /// Record uprobe and tracepoint events of an unmodified program (or the kernel) into an event stream
    ///
    /// Attaches eBPF uprobes/uretprobes (BINARY:FUNC) and tracepoints
    /// (SYSTEM:NAME), runs COMMAND, and streams every event in the format
    /// `vigil-cc --vigil-trace` programs use (docs/stream-format.md) to
    /// --stream DEST or $VIGIL_STREAM: tcp://HOST:PORT, unix:PATH or
    /// file:PATH.  Kernel events cannot wait for a slow collector: the
    /// stream is in discard mode, every lost event counted.  Needs root.
    Record(crate::record_cmd::RecordArgs),

    /// Receive event streams: store every event, check models on them, export, scale out through NATS
    ///
    /// `vigil collect --listen tcp://127.0.0.1:7070 --store run.store`
    /// accepts any number of traced programs (VIGIL_STREAM=tcp://...),
    /// stores every event (Parquet segments, queryable with DuckDB, and a
    /// SQLite catalog: docs/collector.md) and acknowledges each batch once
    /// it is durable.  --check MODEL runs an automaton model on the events
    /// as they arrive; --summary says, per producer, what was stored and
    /// what is known lost; --export-trace writes Chrome/Perfetto JSON.
    Collect(Box<crate::collect_cmd::CollectArgs>),

    /// Convert a JSON Lines report to SARIF 2.1.0 (code scanning, IDEs)
    ///
    /// FILE is what VIGIL_REPORT collected (assertion and monitor
    /// violations), or the output of `vigil check --json` or `vigil monitor
    /// --json`; `-` reads standard input.  One rule per assertion or
    /// monitor, one result per violation, backtraces as stacks and code
    /// flows.  A line that is not a vigil report is an error naming
    /// FILE:LINE, and then nothing is written.  Exit status: 0 converted
    /// (violations or not), 2 bad or unreadable input.
    Report(crate::report_cmd::ReportArgs),

    /// Build and run a small example: a correct run, then a run with a seeded bug
    Demo {
        /// Build in DIR and keep it (default: a temporary directory, removed afterwards)
        #[arg(long, value_name = "DIR")]
        keep: Option<PathBuf>,
    },
}

/// What to do with a command line, decided before clap sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dispatch {
    /// Act as the compiler driver with these (untouched) arguments.
    Cc(Vec<OsString>),
    /// Parse as a `vigil` command line.
    Clap(Vec<OsString>),
}

fn basename(arg0: &OsStr) -> &OsStr {
    Path::new(arg0).file_name().unwrap_or(arg0)
}

/// Decide from argv[0] and argv[1] whether this is a compiler invocation.
/// `vigil-cc ARGS` and `vigil cc ARGS` never go through clap, so that every
/// compiler option (including --help and --version) reaches clang.
pub fn dispatch(argv: Vec<OsString>) -> Dispatch {
    let mut it = argv.into_iter();
    let arg0 = it.next().unwrap_or_else(|| OsString::from("vigil"));
    let rest: Vec<OsString> = it.collect();
    if CC_NAMES.iter().any(|n| basename(&arg0) == OsStr::new(n)) {
        return Dispatch::Cc(rest);
    }
    if rest.first().map(|a| a == "cc").unwrap_or(false) {
        return Dispatch::Cc(rest[1..].to_vec());
    }
    let mut all = vec![arg0];
    all.extend(rest);
    Dispatch::Clap(all)
}

/// `vigil flags`: the requested parts on one line, shell-quoted.
pub fn flags_line(install: &Install, cflags: bool, ldflags: bool, cc: bool) -> Result<String> {
    let mut words: Vec<OsString> = Vec::new();
    if cc {
        words.push(clang_from_env()?.into_os_string());
    }
    if cflags {
        words.extend(flags::cflags(install)?);
    }
    if ldflags {
        words.extend(flags::ldflags(install)?);
    }
    Ok(shell::join(&words))
}

fn write_output(output: Option<&std::path::Path>, bytes: &[u8]) -> Result<()> {
    match output {
        Some(path) => std::fs::write(path, bytes)
            .map_err(|e| Error::failure(format!("cannot write {}: {e}", path.display()))),
        None => std::io::stdout()
            .write_all(bytes)
            .map_err(|e| Error::failure(format!("cannot write output: {e}"))),
    }
}

fn run_cli(cli: Cli) -> Result<()> {
    match cli.command {
        Cmd::Cc { args } => cc::run(&args),
        Cmd::Flags {
            cflags,
            ldflags,
            cc,
        } => {
            let install = Install::locate()?;
            let line = flags_line(&install, cflags, ldflags, cc)?;
            let mut out = std::io::stdout().lock();
            writeln!(out, "{line}").map_err(|e| Error::failure(format!("cannot write output: {e}")))
        }
        Cmd::Explain {
            files,
            static_: true,
            format,
            output,
            clang_args,
            ..
        } => {
            let (text, violated) = crate::explain_static::run(&files, format, &clang_args)?;
            write_output(output.as_deref(), &text)?;
            if violated {
                return Err(Error::with_code("an assertion is violated".to_string(), 1));
            }
            Ok(())
        }
        Cmd::Explain {
            files,
            atomic,
            format,
            output,
            clang_args,
            ..
        } => {
            let [file] = &files[..] else {
                return Err(Error::setup(
                    "explain takes one file (several only with --static)".to_string(),
                ));
            };
            if !atomic {
                return explain::run(file, format, output.as_deref(), &clang_args);
            }
            let text = crate::explain_atomic::run(file, format, &clang_args)?;
            write_output(output.as_deref(), &text)
        }
        Cmd::Demo { keep } => demo::run(keep.as_deref()),
        Cmd::Check(args) => check_cmd::run(&args),
        Cmd::Conform(args) => crate::conform_cmd::run(&args),
        Cmd::Report(args) => crate::report_cmd::run(&args),
        Cmd::Record(args) => crate::record_cmd::run(&args),
        Cmd::Collect(args) => crate::collect_cmd::run(&args),
        Cmd::Monitor(args) => crate::monitor_cmd::run(&args),
        Cmd::GenMonitor {
            binding,
            model,
            output,
        } => crate::monitor_c::run(&binding, model.as_deref(), output.as_deref()),
        Cmd::Dot2c {
            model,
            name,
            output,
        } => dot2c_cmd::run(&model, name.as_deref(), output.as_deref()),
        Cmd::Ltl2k(args) => crate::ltl2k_cmd::run(&args),
        Cmd::Render {
            model,
            highlight,
            output,
            format,
        } => render_cmd::run(&model, highlight.as_deref(), output.as_deref(), format),
    }
}

/// Run the program with these arguments (argv[0] included); returns the
/// exit status.
pub fn run(argv: Vec<OsString>) -> i32 {
    let result = match dispatch(argv) {
        Dispatch::Cc(args) => cc::run(&args),
        Dispatch::Clap(args) => match Cli::try_parse_from(args) {
            Ok(cli) => run_cli(cli),
            Err(e) => {
                let _ = e.print();
                return e.exit_code();
            }
        },
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            // An empty message: the command already reported (vigil check's
            // violations); only the exit status is left to give.
            if !e.message.is_empty() {
                eprintln!("vigil: error: {e}");
            }
            e.code
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn clap_definition_is_valid() {
        Cli::command().debug_assert();
    }

    #[test]
    fn vigil_cc_by_name() {
        assert_eq!(
            dispatch(os(&["vigil-cc", "-c", "x.c"])),
            Dispatch::Cc(os(&["-c", "x.c"]))
        );
        assert_eq!(
            dispatch(os(&["/usr/local/bin/vigil-cc", "--version"])),
            Dispatch::Cc(os(&["--version"]))
        );
        // Even `cc` as first argument is a compiler argument for vigil-cc.
        assert_eq!(dispatch(os(&["vigil-cc", "cc"])), Dispatch::Cc(os(&["cc"])));
    }

    #[test]
    fn vigil_cc_subcommand_is_not_parsed() {
        assert_eq!(
            dispatch(os(&["vigil", "cc", "--version"])),
            Dispatch::Cc(os(&["--version"]))
        );
        assert_eq!(
            dispatch(os(&["./build/bin/vigil", "cc", "--help"])),
            Dispatch::Cc(os(&["--help"]))
        );
        assert_eq!(dispatch(os(&["vigil", "cc"])), Dispatch::Cc(vec![]));
    }

    #[test]
    fn other_names_go_to_clap() {
        assert_eq!(
            dispatch(os(&["vigil", "flags", "--cflags"])),
            Dispatch::Clap(os(&["vigil", "flags", "--cflags"]))
        );
        assert_eq!(
            dispatch(os(&["vigil-ccx", "x.c"])),
            Dispatch::Clap(os(&["vigil-ccx", "x.c"]))
        );
        assert_eq!(
            dispatch(os(&["vigil", "--", "cc"])),
            Dispatch::Clap(os(&["vigil", "--", "cc"]))
        );
        assert_eq!(dispatch(vec![]), Dispatch::Clap(os(&["vigil"])));
    }

    #[test]
    fn explain_parses_trailing_clang_args() {
        let cli = Cli::try_parse_from(os(&[
            "vigil", "explain", "a.c", "--format", "dot", "-o", "a.dot", "--", "-Iinc", "-DX=1",
        ]))
        .unwrap();
        match cli.command {
            Cmd::Explain {
                files,
                atomic,
                static_,
                format,
                output,
                clang_args,
            } => {
                assert!(!atomic && !static_);
                assert_eq!(files, vec![PathBuf::from("a.c")]);
                assert_eq!(format, Format::Dot);
                assert_eq!(output, Some(PathBuf::from("a.dot")));
                assert_eq!(clang_args, os(&["-Iinc", "-DX=1"]));
            }
            other => panic!("{other:?}"),
        }
        let cli = Cli::try_parse_from(os(&["vigil", "explain", "a.c"])).unwrap();
        assert!(matches!(
            cli.command,
            Cmd::Explain {
                format: Format::Text,
                output: None,
                ..
            }
        ));
        assert!(Cli::try_parse_from(os(&["vigil", "explain", "a.c", "--format", "pdf"])).is_err());
        let cli =
            Cli::try_parse_from(os(&["vigil", "explain", "--atomic", "a.c", "-f", "json"])).unwrap();
        assert!(matches!(
            cli.command,
            Cmd::Explain { atomic: true, format: Format::Json, .. }
        ));
        let cli = Cli::try_parse_from(os(&[
            "vigil", "explain", "--static", "a.c", "b.c", "-f", "sarif",
        ]))
        .unwrap();
        assert!(matches!(
            cli.command,
            Cmd::Explain { static_: true, format: Format::Sarif, ref files, .. } if files.len() == 2
        ));
        assert!(Cli::try_parse_from(os(&["vigil", "explain", "--static", "--atomic", "a.c"])).is_err());
        assert!(Cli::try_parse_from(os(&["vigil", "explain"])).is_err());
    }

    #[test]
    fn flags_requires_a_choice() {
        assert!(Cli::try_parse_from(os(&["vigil", "flags"])).is_err());
        assert!(Cli::try_parse_from(os(&["vigil", "flags", "--cflags", "--ldflags"])).is_ok());
    }
}
