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
//! * [`stream`]: the event stream (vigil_stream, docs/stream-format.md):
//!   the incremental decoder in chunkings drawn from the input, the
//!   blocking framer with short reads, and the decoder with a 64-byte
//!   limit must agree; every message re-encodes to itself; batches are
//!   checked against the event table the stream declared.  A refusal is a
//!   `StreamError` naming the peer and a byte offset inside the input.

use std::ffi::OsString;
use std::io::BufReader;
use std::path::Path;
use std::sync::OnceLock;

use vigil_model::{dot, Binding, Diagnostic, Model};
use vigil_stream::{Decoder, ErrorKind, Framer, Message, Schema, StreamError};
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
            compiled(&m, data);
            // What vigil renders, vigil reads back (same states and events).
            let again = dot::parse(path, &src)
                .unwrap_or_else(|d| panic!("rendered model does not parse: {d}\n{src}"));
            assert_eq!(again.states.len(), m.states.len(), "{src}");
            assert_eq!(again.events, m.events, "{src}");
        }
    }
}

/// A parsed model through the compiler (guards, invariants and their
/// constants resolved against a binding that feeds every event from a
/// call), then steps driven by the input's bytes: every refusal names the
/// model file, and a step never panics.
fn compiled(m: &Model, data: &[u8]) {
    let mut bind = String::from("scope task\nhz 250\nenv irq_off = arg1\n");
    for name in ["threshold", "threshold_jiffies", "DEADLINE_NS"] {
        bind += &format!("const {name} = 3us\n");
    }
    for e in &m.events {
        bind += &format!("{e} <- call:{e} key=arg0\n");
    }
    let Ok(b) = Binding::from_str(Path::new("fuzz.bind"), &bind, m) else { return };
    let c = match vigil_model::compiled::compile(m, &b) {
        Err(d) => {
            assert!(d.file == m.path || d.file == Path::new("fuzz.bind"), "diagnostic about another file: {d}");
            return;
        }
        Ok(c) => c,
    };
    assert_eq!(c.to_blob().len() % 8, 0);
    let mut inst = vigil_model::compiled::Inst::UNMONITORED;
    let mut now = 0u64;
    for (i, &byte) in data.iter().enumerate().take(256) {
        if c.rules.is_empty() {
            break;
        }
        let r = &c.rules[byte as usize % c.rules.len()];
        let mut f = [0i64; 16];
        f[1] = (byte & 3) as i64;
        now += (byte as u64) << (i % 12);
        let _ = c.decide(r, &mut inst, &f, now);
        if byte & 0x40 != 0 {
            let _ = c.expire(&mut inst, now);
        }
    }
}

/// An `.ltl` model: parsed, compiled to its Büchi automaton, turned into
/// a model, drawn, and stepped on atom values drawn from the input.
pub fn ltl(data: &[u8]) {
    let text = text(data);
    let path = Path::new("fuzz.ltl");
    let m = match vigil_model::ltl::parse(path, &text) {
        Err(d) => return check_diag(&d, path, &text),
        Ok(m) => m,
    };
    let b = match m.buchi() {
        Err(d) => return check_diag(&d, path, &text),
        Ok(b) => b,
    };
    for s in &b.states {
        assert!(s.succ.iter().all(|&t| t < b.states.len()));
    }
    match m.to_model() {
        Err(d) => check_diag(&d, path, &text),
        Ok(model) => {
            let _ = vigil_model::render::to_dot(&model, None);
            ltl_compiled(&b, &model, data);
            let mut inst = vigil_model::ltl::LtlInst::default();
            for &byte in data.iter().take(128) {
                if b.atoms.is_empty() {
                    break;
                }
                let atom = byte as usize % b.atoms.len();
                let _ = match byte >> 6 {
                    0 => b.update(&mut inst, atom, byte & 1 == 1),
                    1 => b.pulse(&mut inst, atom, true),
                    _ => {
                        b.set(&mut inst, atom, byte & 1 == 1);
                        false
                    }
                };
                assert_eq!(inst.states >> b.states.len().min(31) >> 1, 0, "a state outside the automaton");
            }
        }
    }
}

/// The C step's form of the labels says what the labels say (on atom sets
/// drawn from the input), and the model compiles to a blob, or is refused
/// in the model's words.
fn ltl_compiled(b: &vigil_model::ltl::Buchi, model: &Model, data: &[u8]) {
    for s in 0..b.states.len() {
        let Some(l) = vigil_model::compiled::labels::label(b, s) else { continue };
        for w in data.chunks(4).take(16) {
            let set = u32::from_le_bytes([w[0], *w.get(1).unwrap_or(&0), *w.get(2).unwrap_or(&0), *w.get(3).unwrap_or(&0)]);
            assert_eq!(l.holds(set), b.label_holds(s, set as u64), "S{s}, atoms {set:#x}: {l:?}");
        }
    }
    let mut bind = String::from("scope task\n");
    for (i, a) in b.atoms.iter().enumerate() {
        bind += &format!("{a} <- call:a{i} key=arg0 true\n{a} <- call:n{i} key=arg0 set false\n");
    }
    let Ok(binding) = Binding::from_str(Path::new("fuzz.bind"), &bind, model) else { return };
    match vigil_model::compiled::compile(model, &binding) {
        Err(d) => assert_eq!(d.file, model.path, "diagnostic about another file: {d}"),
        Ok(c) => assert_eq!(c.to_blob().len() % 8, 0),
    }
}

/// Compiled blobs of the fixture models (the `vk` target's seeds), LTL
/// models included.
pub fn vk_seeds() -> Vec<(String, Vec<u8>)> {
    let f = fixtures();
    let mut out: Vec<(String, Vec<u8>)> = f
        .pairs
        .iter()
        .filter_map(|(m, b)| {
            let c = vigil_model::compiled::compile(&f.models[*m], b).ok()?;
            Some((format!("{}-{}.blob", f.models[*m].name, b.rules.len()), c.to_blob()))
        })
        .collect();
    for ((mp, mt), (bp, bt)) in LTL_PAIRS {
        let m = vigil_model::ltl::parse(Path::new(mp), mt).and_then(|l| l.to_model()).unwrap_or_else(|d| panic!("fixture: {d}"));
        let b = Binding::from_str(Path::new(bp), bt, &m).unwrap_or_else(|d| panic!("fixture: {d}"));
        let c = vigil_model::compiled::compile(&m, &b).unwrap_or_else(|d| panic!("fixture: {d}"));
        out.push((format!("{}-ltl-{}.blob", m.name, b.rules.len()), c.to_blob()));
    }
    // The same with steps to take past the blob's end (vk_fuzz.c).
    let steps: Vec<u8> = (0..192u32).map(|i| (i.wrapping_mul(0x9e37_79b9) >> 24) as u8).collect();
    for i in 0..out.len() {
        let (name, mut blob) = out[i].clone();
        blob.extend_from_slice(&steps);
        out.push((name.replace(".blob", "-steps.blob"), blob));
    }
    out
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
    repo_file!("models/runnable.dot"),
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
    (7, repo_file!("models/runnable.bind")),
    (6, repo_file!("tests/lit/check/inputs/irq-timed.bind")),
];

/// LTL models and bindings (the `vk` seeds): the repository's, and one
/// whose labels take both forms (an OR of terms, and a negated one).
const LTL_PAIRS: &[((&str, &str), (&str, &str))] = &[
    (repo_file!("models/pagefault.ltl"), repo_file!("models/pagefault.bind")),
    (repo_file!("tests/conformance/cases/ltl-next/next.ltl"), repo_file!("tests/conformance/cases/ltl-next/binding.bind")),
    (
        ("both.ltl", "RULE = always ((A and B) imply ((not C) until (D or (A and E))))\n"),
        (
            "both.bind",
            "scope object\nA <- call:a key=arg0 true\nA <- call:na key=arg0 false\nB <- call:b key=arg0 set true\nB <- call:nb key=arg0 set false\nC <- call:c key=arg0 pulse\nD <- call:d key=arg0 if arg1 > 0 true\nD <- call:nd key=arg0 false\nE <- call:e key=arg0 pulse\nforget <- call:free key=arg0\n",
        ),
    ),
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
                    // A hybrid model's constant the binding does not
                    // define is the model's line.
                    Err(d) if d.file == m.path => assert!(d.line > 0, "{d}"),
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

/// What a reader made of a stream: each message or non-fatal refusal in
/// order, ending at the stream's end or at the first fatal refusal.
type Outcome = Vec<Result<Message, StreamError>>;

/// A small deterministic generator (xorshift64*), seeded from the input
/// so that a crash replays with the same chunking.
struct Rng(u64);

impl Rng {
    fn new(data: &[u8]) -> Rng {
        let mut h: u64 = 0x9e37_79b9_7f4a_7c15 ^ data.len() as u64;
        for &b in data {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3).rotate_left(5);
        }
        Rng(h | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A chunk length: mostly small (documents straddle chunks), sometimes
    /// large, never 0.
    fn chunk(&mut self) -> usize {
        match self.next() % 8 {
            0..=3 => 1 + (self.next() % 8) as usize,
            4..=6 => 1 + (self.next() % 300) as usize,
            _ => usize::MAX,
        }
    }
}

const PEER: &str = "fuzz";

fn decode(data: &[u8], max_len: usize, mut chunk: impl FnMut() -> usize) -> Outcome {
    let mut d = Decoder::new(PEER).with_max_len(max_len);
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let n = chunk().min(rest.len());
        d.push(&rest[..n]);
        rest = &rest[n..];
        loop {
            match d.next() {
                Ok(Some(m)) => out.push(Ok(m)),
                Ok(None) => break,
                Err(e) => {
                    let fatal = e.kind.is_fatal();
                    out.push(Err(e));
                    if fatal {
                        return out;
                    }
                }
            }
        }
    }
    if let Err(e) = d.finish() {
        out.push(Err(e));
    }
    out
}

/// A reader handing out chunks of the generator's lengths.
struct ShortReads<'a> {
    data: &'a [u8],
    rng: Rng,
}

impl std::io::Read for ShortReads<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.rng.chunk().min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn frame(data: &[u8], rng: Rng) -> Outcome {
    let mut f = Framer::new(ShortReads { data, rng }, PEER);
    let mut out = Vec::new();
    loop {
        match f.next_message() {
            Ok(Some(m)) => out.push(Ok(m)),
            Ok(None) => return out,
            Err(e) => {
                let fatal = e.kind.is_fatal();
                out.push(Err(e));
                if fatal {
                    return out;
                }
            }
        }
    }
}

fn check_stream_error(e: &StreamError, len: usize) {
    assert_eq!(e.peer, PEER);
    assert!(!e.message.trim().is_empty(), "empty message: {e:?}");
    assert!(
        e.offset <= len as u64,
        "offset {} past the end ({len} bytes): {e}",
        e.offset
    );
    if e.kind == ErrorKind::Truncated {
        assert!(e.offset < len as u64, "{e}");
    }
    assert!(e.to_string().starts_with("fuzz: byte "), "{e}");
}

pub fn stream(data: &[u8]) {
    let max = vigil_stream::MAX_DOCUMENT_LEN;
    let whole = decode(data, max, || usize::MAX);
    let mut rng = Rng::new(data);
    let chunked = decode(data, max, || rng.chunk());
    assert_eq!(whole, chunked, "the chunking changed the outcome");
    let framed = frame(data, Rng::new(data));
    assert_eq!(whole, framed, "the framer and the decoder disagree");
    // A small limit refuses the first longer document, and nothing before
    // it changes.
    let mut rng = Rng::new(data);
    let small = decode(data, 64, || rng.chunk());
    let same = small.iter().zip(&whole).take_while(|(a, b)| a == b).count();
    if same < small.len() {
        let e = small[same]
            .as_ref()
            .expect_err("a message the full limit did not give");
        assert_eq!(e.kind, ErrorKind::Oversized, "{e}");
        assert_eq!(same + 1, small.len());
    }

    let mut schema: Option<Schema> = None;
    for m in &whole {
        let m = match m {
            Err(e) => {
                check_stream_error(e, data.len());
                continue;
            }
            Ok(m) => m,
        };
        // Every message re-encodes to itself.
        let bytes = vigil_stream::encode(m);
        let raw = vigil_stream::bson::RawDocumentBuf::from_bytes(bytes)
            .expect("an encoding is a document");
        let again = Message::parse(raw).unwrap_or_else(|e| panic!("re-encoded {m:?}: {e}"));
        assert_eq!(&again, m);
        match m {
            Message::Hello(h) => {
                for (i, e) in h.events.iter().enumerate() {
                    assert_eq!(e.id as usize, i);
                }
                schema = Some(Schema::from_hello(h));
            }
            Message::Schema(decls) => {
                if let Some(s) = &mut schema {
                    let before = s.len();
                    match s.extend(decls) {
                        Ok(()) => assert_eq!(s.len(), before + decls.len()),
                        Err(e) => {
                            assert!(!e.message.is_empty());
                            assert_eq!(s.len(), before);
                        }
                    }
                }
            }
            Message::Batch(b) => {
                let mut words = 0;
                let mut count = 0;
                for (i, r) in b.records().enumerate() {
                    assert_eq!(r.tseq, b.header.tseq + i as i64);
                    assert_eq!(r.args.to_vec().len(), r.args.len());
                    let _ = b.time_ns(&r);
                    words += 2 + r.args.len();
                    count += 1;
                }
                assert_eq!(count, b.header.n as usize);
                assert_eq!(words * 8, b.ev().len());
                let s = schema.clone().unwrap_or_default();
                match b.validate_against(&s) {
                    Ok(()) => {
                        for r in b.records() {
                            let d = s.get(r.id).expect("validated: declared");
                            assert_eq!(d.args.len(), r.args.len());
                        }
                    }
                    Err(e) => {
                        check_stream_error(&e, data.len());
                        assert_eq!(e.kind, ErrorKind::Format);
                        assert!(e.offset >= b.offset(), "{e}");
                    }
                }
            }
            Message::End(_) | Message::Mark(_) | Message::Ack(_) | Message::Error(_) => {}
        }
    }
    session(&whole);
}

/// The collector's per-connection checks (vigil_stream::Session) over the
/// decoded messages: never a panic; a refusal is final (the collector
/// closes the connection), says why, and only a started session accepts
/// anything but a hello; what it accepts is ordered as the format says.
fn session(msgs: &[Result<Message, StreamError>]) {
    let mut s = vigil_stream::Session::new();
    let mut last_seq: Option<i64> = None;
    for m in msgs {
        let Ok(m) = m else { return };
        let started = s.started();
        match s.accept(m) {
            Err(why) => {
                assert!(!why.is_empty());
                return;
            }
            Ok(()) => {
                assert!(started || matches!(m, Message::Hello(_)), "{m:?} before a hello");
                if let Message::Batch(b) = m {
                    assert!(last_seq.map_or(true, |l| b.header.seq > l));
                    last_seq = Some(b.header.seq);
                }
            }
        }
    }
}

/// Seeds of the `stream` target: streams made by the encoders (both
/// directions, every message, the cases the validation refuses).
pub fn stream_seeds() -> Vec<(String, Vec<u8>)> {
    use vigil_stream::*;
    let decl = |id, name: &str, kind, args: &[ArgType]| EventDecl {
        id,
        name: name.to_string(),
        kind,
        args: args.to_vec(),
        names: Vec::new(),
    };
    let hello = Hello {
        stream: "host:4242:1000".into(),
        program: "/usr/bin/demo".into(),
        pid: 4242,
        host: "host".into(),
        mode: Mode::Lossless,
        resume: 0,
        events: vec![
            decl(
                0,
                "open_file",
                EventKind::Entry,
                &[ArgType::Ptr, ArgType::I64],
            ),
            decl(
                1,
                "open_file",
                EventKind::Return,
                &[ArgType::Ptr, ArgType::I64, ArgType::I64],
            ),
            decl(2, "assert_open", EventKind::Event, &[ArgType::U64]),
            decl(3, "verdict", EventKind::Verdict, &[]),
        ],
    };
    let header = |seq, thread, tseq, n, ns_per_tick| BatchHeader {
        seq,
        thread,
        tseq,
        lost: 0,
        n,
        clock: Clock {
            tsc: 1_000_000,
            ns: 2_000_000,
            ns_per_tick,
        },
    };
    let records = |recs: &[(u32, u64, &[u64])]| {
        let mut ev = Vec::new();
        for (id, ticks, args) in recs {
            push_record(&mut ev, *id, *ticks, args);
        }
        ev
    };
    let end = |seq| End {
        seq,
        threads: vec![ThreadTotals {
            thread: 7,
            produced: 3,
            lost: 0,
        }],
    };
    let mut seeds: Vec<(String, Vec<u8>)> = Vec::new();

    // hello, one batch, end.
    let mut s = encode_hello(&hello);
    s.extend(encode_batch(
        &header(0, 7, 0, 3, 1.0),
        &records(&[
            (0, 1_000_001, &[0x7fff_0000, 3]),
            (2, 1_000_002, &[1]),
            (3, 1_000_003, &[]),
        ]),
    ));
    s.extend(encode_end(&end(1)));
    seeds.push(("simple".into(), s));

    // Named argument words and a watermark.
    let mut h = hello.clone();
    h.events[0].names = vec!["path".into(), "flags".into()];
    let mut s = encode_hello(&h);
    s.extend(encode_batch(
        &header(0, 7, 0, 1, 1.0),
        &records(&[(0, 1_000_001, &[0x7fff_0000, 3])]),
    ));
    s.extend(encode_mark(2_000_002));
    seeds.push(("names-mark".into(), s));

    // Three threads, a schema document in the middle, discard mode.
    let mut h = hello.clone();
    h.mode = Mode::Discard;
    let mut s = encode_hello(&h);
    for seq in 0..6 {
        if seq == 3 {
            s.extend(encode_schema(&[decl(
                4,
                "late",
                EventKind::Uprobe,
                &[ArgType::U64],
            )]));
        }
        let id = if seq >= 3 { 4 } else { 2 };
        let mut hd = header(seq, 100 + seq % 3, seq / 3 * 2, 2, 0.37);
        hd.lost = seq / 3;
        s.extend(encode_batch(&hd, &records(&[(id, 5, &[9]), (3, 6, &[])])));
    }
    s.extend(encode_end(&end(6)));
    seeds.push(("threads".into(), s));

    // A reconnect: hello resuming at 5, batches 5 and 6.
    let mut h = hello.clone();
    h.resume = 5;
    let mut s = encode_hello(&h);
    for seq in 5..7 {
        s.extend(encode_batch(
            &header(seq, 7, seq * 10, 1, 1.0),
            &records(&[(1, 9, &[1, 2, 3])]),
        ));
    }
    seeds.push(("resume".into(), s));

    // The collector's side.
    let mut s = encode_ack(-1);
    s.extend(encode_ack(4));
    s.extend(encode_error(
        "unsupported stream format version 2 (this collector reads 1)",
    ));
    seeds.push(("collector".into(), s));

    // Refused: undeclared event, wrong argument count, truncated stream.
    let mut s = encode_hello(&hello);
    s.extend(encode_batch(
        &header(0, 7, 0, 1, 1.0),
        &records(&[(9, 1, &[])]),
    ));
    s.extend(encode_batch(
        &header(1, 7, 1, 1, 1.0),
        &records(&[(0, 1, &[1])]),
    ));
    seeds.push(("undeclared".into(), s));
    let mut s = encode_hello(&hello);
    let b = encode_batch(&header(0, 7, 0, 1, 1.0), &records(&[(0, 1, &[1, 2])]));
    s.extend(&b[..b.len() - 7]);
    seeds.push(("truncated".into(), s));

    // Each message alone.
    seeds.push(("hello".into(), encode_hello(&hello)));
    seeds.push(("schema".into(), encode_schema(&hello.events)));
    seeds.push(("end".into(), encode_end(&end(0))));
    seeds.push((
        "batch".into(),
        encode_batch(&header(0, 1, 0, 1, 1.0), &records(&[(0, 1, &[2, 3])])),
    ));
    seeds
}
