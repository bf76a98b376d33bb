//! Fuzz targets for vigil's Rust text front ends, one function per front
//! end.  Each takes arbitrary bytes and must return without panicking,
//! hanging or exhausting memory; every refusal must be a [`Diagnostic`]
//! naming the file and a line inside it.  The libFuzzer binaries
//! (src/bin/fuzz_*.rs) and the replay binary call these.
//!
//! * [`dot`]: a `.dot` model (vigil_model::dot), then everything a parsed
//!   model feeds: dot2c, the Graphviz rendering, the hybrid warnings.
//! * [`bind`]: a binding file against each model in [`pairs`]' models,
//!   then the offline checker's compilation of it.
//! * [`ftrace`] / [`tracecmd`]: a trace (ftrace text or trace-cmd report
//!   text: the checker recognises each line's form) through the offline
//!   checker, for every (model, binding) pair the repository's tests use,
//!   text and JSON output.
//! * [`cmdline`]: the compiler command lines and response files `vigil cc`
//!   reads (cli/vigil/src/args.rs, compiled in here by path so that the
//!   fuzzers do not depend on the whole CLI crate).  The VIGIL_* variables
//!   the Rust code reads are paths (VIGIL_HOME, VIGIL_CLANG, VIGIL_DOT,
//!   VIGIL_BPF_MONITOR) or one comparison (VIGIL_VERBOSE: not "" or "0"):
//!   nothing to fuzz there.

use std::ffi::OsString;
use std::io::BufReader;
use std::path::Path;
use std::sync::OnceLock;

use vigil_model::{dot, Binding, Diagnostic, Model};
use vigil_trace::{Checker, Config};

#[path = "../../../cli/vigil/src/args.rs"]
#[allow(dead_code)]
mod args;

/// A diagnostic must name the fuzzed file and a line of it (or 0: the
/// whole file), and say something.
fn check_diag(d: &Diagnostic, path: &Path, text: &str) {
    assert_eq!(d.file, path, "diagnostic about another file: {d}");
    assert!(
        !d.message.trim().is_empty(),
        "empty diagnostic message: {d:?}"
    );
    let lines = text.lines().count() as u32 + 1;
    assert!(
        d.line <= lines,
        "diagnostic line {} past the end ({lines} lines): {d}",
        d.line
    );
    let shown = d.to_string();
    assert!(
        shown.starts_with(&path.display().to_string()),
        "diagnostic without its file: {shown}"
    );
}

/// Input bytes as the front ends see them: the CLI reads files with
/// `read_to_string`, so non-UTF-8 input is refused before any parser; the
/// fuzzers use the lossy conversion so mutated bytes still reach them.
fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

pub fn dot(data: &[u8]) {
    let text = text(data);
    let path = Path::new("fuzz.dot");
    match dot::parse(path, &text) {
        Err(d) => check_diag(&d, path, &text),
        Ok(m) => {
            // Invariants everything downstream indexes by.
            assert!(!m.states.is_empty());
            assert_eq!(m.function.len(), m.states.len());
            assert_eq!(m.finals.len(), m.states.len());
            assert_eq!(m.state_lines.len(), m.states.len());
            assert_eq!(m.event_lines.len(), m.events.len());
            for row in &m.function {
                assert_eq!(row.len(), m.events.len());
                for n in row.iter().flatten() {
                    assert!(*n < m.states.len());
                }
            }
            for s in 0..m.states.len() {
                let _ = m.allowed(s);
            }
            let _ = m.unsupported();
            let _ = vigil_model::dot2c::generate(&m, None);
            let _ = vigil_model::dot2c::hybrid_comment(&m);
            if !m.events.is_empty() {
                let _ = vigil_model::render::to_dot(&m, Some((0, 0)));
            }
            let src = vigil_model::render::to_dot(&m, None);
            // What vigil renders, vigil reads back (same states and events).
            let again = dot::parse(path, &src)
                .unwrap_or_else(|d| panic!("rendered model does not parse: {d}\n{src}"));
            assert_eq!(again.states.len(), m.states.len(), "{src}");
            assert_eq!(again.events, m.events, "{src}");
        }
    }
}

/// Models and (model, binding) pairs from the repository, compiled in.
struct Fixtures {
    models: Vec<Model>,
    /// (index in models, binding)
    pairs: Vec<(usize, Binding)>,
}

macro_rules! repo_file {
    ($p:literal) => {
        ($p, include_str!(concat!("../../../", $p)))
    };
}

const MODELS: &[(&str, &str)] = &[
    repo_file!("models/wwnr.dot"),
    repo_file!("models/wip.dot"),
    repo_file!("models/nrp.dot"),
    repo_file!("models/tss.dot"),
    repo_file!("models/mutex.dot"),
    repo_file!("tests/lit/check/inputs/irq.dot"),
    repo_file!("tests/lit/check/inputs/irq-timed.dot"),
];

/// (model index, binding file) pairs the checker tests use.
const PAIRS: &[(usize, (&str, &str))] = &[
    (0, repo_file!("models/wwnr.bind")),
    (0, repo_file!("tests/lit/check/inputs/wwnr-d.bind")),
    (0, repo_file!("tests/lit/check/inputs/wwnr-forget.bind")),
    (5, repo_file!("tests/lit/check/inputs/irq-cpu.bind")),
    (5, repo_file!("tests/lit/check/inputs/irq-global.bind")),
    (5, repo_file!("tests/lit/check/inputs/irq-object.bind")),
    (5, repo_file!("tests/lit/check/inputs/irq-start.bind")),
    (5, repo_file!("tests/lit/check/inputs/irq-run.bind")),
    (6, repo_file!("tests/lit/check/inputs/irq-cpu.bind")),
    (2, repo_file!("models/nrp.bind")),
    (1, repo_file!("models/wip.bind")),
];

fn fixtures() -> &'static Fixtures {
    static F: OnceLock<Fixtures> = OnceLock::new();
    F.get_or_init(|| {
        let models: Vec<Model> = MODELS
            .iter()
            .map(|(p, t)| dot::parse(Path::new(p), t).unwrap_or_else(|d| panic!("fixture: {d}")))
            .collect();
        let pairs = PAIRS
            .iter()
            .filter_map(|&(m, (p, t))| {
                let b = Binding::from_str(Path::new(p), t, &models[m]).ok()?;
                // Only pairs the offline checker accepts (tss/wip bind bare
                // tracepoints or functions: refused, and that is right).
                Checker::new(&models[m], &b).ok()?;
                Some((m, b))
            })
            .collect();
        Fixtures { models, pairs }
    })
}

/// How many checker pairs the fixtures give (for the replay tool's banner).
pub fn checker_pairs() -> usize {
    fixtures().pairs.len()
}

pub fn bind(data: &[u8]) {
    let text = text(data);
    let path = Path::new("fuzz.bind");
    let f = fixtures();
    let _ = Binding::model_path(path);
    for m in &f.models {
        match Binding::from_str(path, &text, m) {
            Err(d) => check_diag(&d, path, &text),
            Ok(b) => {
                let _ = b.warnings(m);
                let _ = b.out_of_process_warnings();
                let _ = b.has_start_rules();
                for r in &b.rules {
                    let _ = b.rule_at(r.line);
                    let _ = r.source.fields();
                    let _ = r.source.to_string();
                }
                match Checker::new(m, &b) {
                    Err(d) => check_diag(&d, path, &text),
                    Ok(mut c) => {
                        // A few lines of the shipped trace through it.
                        let trace = concat!(
                            "  bash-1234    [000] d..2.  5453.815700: sched_switch: prev_comm=bash prev_pid=1234 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n",
                            "  <idle>-0       [001] dNs4.  5453.815800: sched_wakeup: comm=bash pid=1234 prio=120 target_cpu=000\n",
                            "  <idle>-0 [000] d.h1. 1.0: irq_handler_entry: irq=3 name=x\n",
                            "  <idle>-0 [000] d.h1. 1.1: irq_handler_exit: irq=3 ret=handled\n",
                        );
                        let mut out = Vec::new();
                        let mut warn = Vec::new();
                        c.run(
                            "t",
                            trace.as_bytes(),
                            &mut out,
                            &mut warn,
                            &Config::default(),
                        )
                        .expect("checking in memory cannot fail");
                    }
                }
            }
        }
    }
}

fn check_trace(data: &[u8]) {
    let f = fixtures();
    for (i, (m, b)) in f.pairs.iter().enumerate() {
        let model = &f.models[*m];
        let mut c = Checker::new(model, b).expect("fixture pair compiles");
        let cfg = Config {
            json: i % 2 == 1,
            max_warnings: 3,
            prefix: "vigil: ".into(),
            model_arg: "m".into(),
        };
        let mut out = Vec::new();
        let mut warn = Vec::new();
        // A small buffer so lines straddle fills (the carry path).
        let input = BufReader::with_capacity(64 + i * 7, data);
        let s = c
            .run("fuzz.trace", input, &mut out, &mut warn, &cfg)
            .expect("checking in memory cannot fail");
        if cfg.json {
            s.write_json(&model.name, "fuzz.trace", &mut out).unwrap();
            // JSON Lines output stays one object per line.
            for l in String::from_utf8_lossy(&out).lines() {
                assert!(
                    l.starts_with('{') && l.ends_with('}'),
                    "not a JSON line: {l:?}"
                );
            }
        } else {
            s.write_text(&model.name, "fuzz.trace", &mut out).unwrap();
        }
        let _ = s.events_per_s();
    }
}

pub fn ftrace(data: &[u8]) {
    check_trace(data);
}

pub fn tracecmd(data: &[u8]) {
    // The same checker (it recognises trace-cmd's line forms by
    // themselves); the seeds differ.  Also the line-level parsers alone.
    for line in data.split(|&b| b == b'\n') {
        let _ = vigil_trace::line::parse_header(line);
        let _ = vigil_trace::line::lost_marker(line);
    }
    check_trace(data);
}

pub fn cmdline(data: &[u8]) {
    let text = text(data);
    let words = args::split_response_file(&text);
    // Response files (@file) would read the machine's files: not fuzzed.
    let argv: Vec<OsString> = words
        .iter()
        .filter(|w| !w.starts_with('@'))
        .map(OsString::from)
        .collect();
    let inv = args::classify(&argv);
    let _ = inv.links();
    for w in &words {
        let _ = args::opt_level(w);
    }
}
