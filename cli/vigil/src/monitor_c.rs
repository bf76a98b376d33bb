//! Monitors on C functions: the C translation unit of one monitor
//! (`vigil gen-monitor BINDING [--model MODEL] [-o FILE.c]`), and the
//! `--vigil-monitor=BINDING` option of `vigil cc`, which generates, compiles
//! and links that unit.
//!
//! The unit follows the contract of `include/vigil/monitor.h`: the model as
//! constant tables, the monitor descriptor, a `_Thread_local` slot, one hook
//! per binding rule (`__vigil_monitor_hook_<name>_<rule>`) and the binding
//! table `__vigil_monitor_bindings_<name>` that the link-time pass reads.
//! Each hook evaluates its rule's conditions in C, behind a `#line`
//! directive naming the binding file, so that anything the C compiler says
//! about a condition points at the binding.
//!
//! Where the instances live:
//!
//! * `scope global`: one state in the descriptor;
//! * `scope task` / `thread`, every rule keyed by the default `common_pid`:
//!   the calling thread's `_Thread_local` slot (no lookup, no lock);
//! * `scope object`, and `scope task` with a key naming another thread
//!   (`key=arg0`), and `scope cpu` (keyed by `sched_getcpu()`): the
//!   runtime's table keyed by the rule's key field.
//!
//! Hybrid automata (clocks, guards, invariants) run with their clocks:
//! the unit embeds the whole compiled model and the guards' and
//! invariants' text for reports, and each hook passes the event's fields
//! the guards on its event read to `__vigil_monitor_hybrid`, whose runtime
//! keeps every instance in its table and fires invariants from a timer
//! thread (runtime/monitor_hybrid.c).
//!
//! A plain model's hook in thread or global scope makes an allowed
//! transition itself (the inline path of `include/vigil/monitor.h`): the
//! model's column for the rule's event as a `switch` from the state word to
//! the next one, a store (thread) or a compare-and-swap (global), and a
//! per-thread count; everything else calls the runtime.  Per-object
//! instances live in the runtime's table, whose lookup and stripe lock
//! cannot be a table load: their hooks always call the runtime.  With
//! `VIGIL_FAST_PATH=0` in the environment the unit has no inline path (as
//! the link-time pass makes every assertion hook a runtime call then).
//!
//! Sources must be `call:[LIB:]FUNC` or `return:[LIB:]FUNC` (LIB, for
//! uprobes, is ignored in-process).  The binding may also say
//! `at_exit final`: then an instance still monitored, in a state that is not
//! final, when its thread exits (per-thread) or the program exits is a
//! violation `not-final-at-exit` (the other engines have no such end and
//! ignore the line with a warning).

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use vigil_model::compiled::{Compiled, Kind, Opnd, NONE, NO_FIELD};
use vigil_model::{Binding, Diagnostic, Mode, Model, Op, Rule, RuleEvent, Scope, Source};

use crate::dot2c_cmd::{resolve_model, write_output};
use crate::error::{Error, Result};

/// The `vigil cc` option that names a binding (repeatable).
pub const MONITOR_FLAG: &str = "--vigil-monitor";
/// `vigil_monitor_model.function` is `uint8_t`, 0xff meaning "not allowed".
pub const MAX_STATES: usize = 65533;
pub const MAX_EVENTS: usize = 65533;
/// arg0..arg5
pub const MAX_ARGS: usize = 6;

/// Where a monitor's instances live (`enum vigil_monitor_scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    Global,
    Thread,
    Object,
}

impl Storage {
    fn c_name(self) -> &'static str {
        match self {
            Storage::Global => "VIGIL_MONITOR_GLOBAL",
            Storage::Thread => "VIGIL_MONITOR_THREAD",
            Storage::Object => "VIGIL_MONITOR_OBJECT",
        }
    }
}

/// A model and its binding, ready to generate.
#[derive(Debug, Clone)]
pub struct Monitor {
    pub model: Model,
    pub binding: Binding,
    /// The binding asked for `at_exit final`.
    pub check_exit: bool,
    /// The C identifier part of every generated name (binding file stem).
    pub name: String,
    /// The model and binding compiled (vigil_model::compiled), hybrid
    /// parts included.
    pub compiled: Compiled,
}

/// A C identifier from a file stem: other characters become `_`.
pub fn c_name(stem: &str) -> String {
    let mut s: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

pub use crate::lookup::{binding_model, resolve_binding};

/// Read a binding and its model (or `model`, which overrides the binding's
/// `model` line).  Prints nothing.
pub fn load(binding_arg: &Path, model_arg: Option<&Path>) -> Result<Monitor> {
    let path = resolve_binding(binding_arg)?;
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Error::failure(format!("cannot read binding {}: {e}", path.display())))?;
    let model_path = match model_arg {
        Some(m) => resolve_model(m)?,
        None => binding_model(&path)?,
    };
    let model = Model::from_file(&model_path).map_err(|d| Error::failure(d.to_string()))?;
    from_text(&path, &text, model)
}

/// [`load`] on text already read (tests, and callers with their own files).
pub fn from_text(path: &Path, text: &str, model: Model) -> Result<Monitor> {
    let binding =
        Binding::from_str(path, text, &model).map_err(|d| Error::failure(d.to_string()))?;
    let check_exit = binding.at_exit_final.is_some();
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let compiled = vigil_model::compiled::compile(&model, &binding).map_err(|d| Error::failure(d.to_string()))?;
    let m = Monitor {
        model,
        binding,
        check_exit,
        name: c_name(&stem),
        compiled,
    };
    check(&m).map_err(|d| Error::failure(d.to_string()))?;
    Ok(m)
}

/// What in-process monitors cannot do, as errors at the binding's line.
pub fn check(m: &Monitor) -> std::result::Result<(), Diagnostic> {
    let b = &m.binding;
    if m.model.states.len() > MAX_STATES {
        return Err(Diagnostic::new(
            &m.model.path,
            0,
            format!(
                "{} states: in-process monitors take at most {MAX_STATES}",
                m.model.states.len()
            ),
        ));
    }
    if m.model.events.len() > MAX_EVENTS {
        return Err(Diagnostic::new(
            &m.model.path,
            0,
            format!(
                "{} events: in-process monitors take at most {MAX_EVENTS}",
                m.model.events.len()
            ),
        ));
    }
    for r in &b.rules {
        match &r.source {
            Source::Tracepoint { name } => {
                return Err(Diagnostic::new(
                    &b.path,
                    r.line,
                    format!(
                        "tracepoint source tp:{name}: monitors compiled into a program take \
                         call:FUNC and return:FUNC sources only (run kernel tracepoints with \
                         `vigil monitor` or `vigil check`)"
                    ),
                ))
            }
            Source::Call { func, .. } | Source::Return { func, .. } => {
                let ok = func.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && func
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$');
                if !ok {
                    return Err(Diagnostic::new(
                        &b.path,
                        r.line,
                        format!("`{func}` is not a C function (symbol) name"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Warnings to print before generating: the binding's (in-process
/// monitors run every part of a hybrid model).
pub fn warnings(m: &Monitor) -> Vec<String> {
    let mut out: Vec<String> = m
        .binding
        .warnings(&m.model)
        .iter()
        .map(|d| d.to_string())
        .collect();
    if m.binding.scope == Scope::Cpu {
        out.push(format!(
            "{}: warning: scope cpu in a program: instances are keyed by the cpu the calling \
             thread runs on (sched_getcpu()), and a thread may migrate between two events",
            m.binding.path.display()
        ));
    }
    out
}

fn field_name(r: &Rule, index: usize) -> &'static str {
    r.source.fields()[index]
}

/// Where the instances live (see the module documentation).
pub fn storage(m: &Monitor) -> Storage {
    match m.binding.scope {
        Scope::Global => Storage::Global,
        Scope::Task => {
            let all_self = m
                .binding
                .rules
                .iter()
                .all(|r| r.key.is_none_or(|k| field_name(r, k) == "common_pid"));
            if all_self {
                Storage::Thread
            } else {
                Storage::Object
            }
        }
        Scope::Cpu | Scope::Object => Storage::Object,
    }
}

/// A C string literal.
pub fn c_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\x7f' => {
                let _ = write!(out, "\\{:03o}", c as u32);
            }
            '?' => out.push_str("\\?"), // no trigraphs
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An int64_t constant in C (`INT64_MIN` has no literal).
pub fn c_int(v: i64) -> String {
    if v == i64::MIN {
        "(-INT64_C(9223372036854775807) - 1)".into()
    } else if v < 0 {
        format!("(-INT64_C({}))", -(v as i128))
    } else {
        format!("INT64_C({v})")
    }
}

fn op_c(op: Op) -> &'static str {
    op.as_str()
}

/// The C expression for field `name` inside a hook.
fn field_c(name: &str) -> String {
    match name {
        "common_pid" => "__vigil_monitor_field(VIGIL_MONITOR_FIELD_TID)".into(),
        "tgid" => "__vigil_monitor_field(VIGIL_MONITOR_FIELD_TGID)".into(),
        "cpu" => "__vigil_monitor_field(VIGIL_MONITOR_FIELD_CPU)".into(),
        other => other.into(), // arg0..arg5, ret: the hook's parameters
    }
}

/// The function a rule binds, and whether at its return.
fn function_of(r: &Rule) -> (&str, bool) {
    match &r.source {
        Source::Call { func, .. } => (func, false),
        Source::Return { func, .. } => (func, true),
        Source::Tracepoint { name } => (name, false), // refused by check()
    }
}

/// Whether the hooks call `__vigil_monitor_hybrid`: the runtime keeps a
/// whole instance (a hybrid model's clocks, an LTL model's atoms).
fn hybrid(m: &Monitor) -> bool {
    m.compiled.kind != Kind::Da
}

/// The fields of rule `index`'s source that a guard on its event reads
/// (from any state), by their index in the source's fields: what its hook
/// passes to the runtime.
fn guard_fields(c: &Compiled, index: usize) -> Vec<usize> {
    let rule = &c.rules[index];
    let mut out = BTreeSet::new();
    if c.kind != Kind::Ha || rule.event >= c.nevents {
        return Vec::new();
    }
    for s in 0..c.nstates as usize {
        let g = c.edges[s * c.nevents as usize + rule.event as usize].guard;
        if g == NONE {
            continue;
        }
        let g = &c.guards[g as usize];
        for k in &c.cmps[g.first as usize..][..g.n as usize] {
            for (kind, i) in [(k.lhs_kind, k.lhs), (k.rhs_kind, k.rhs)] {
                let field = match kind {
                    Opnd::Env => rule.env_fields[i as usize],
                    Opnd::Field => i,
                    _ => NO_FIELD,
                };
                if field != NO_FIELD {
                    out.insert(field as usize);
                }
            }
        }
    }
    out.into_iter().collect()
}

/// The hook's parameters: how many argument words, and whether `ret`.
/// `extra`: fields the hook passes besides its conditions and key (a
/// hybrid model's guard fields).
fn hook_params(r: &Rule, storage: Storage, extra: &[&str]) -> (usize, bool) {
    let mut used: Vec<&str> = r.conds.iter().map(|c| c.field_name.as_str()).collect();
    used.extend_from_slice(extra);
    if storage == Storage::Object {
        if let Some(k) = r.key {
            used.push(field_name(r, k));
        }
    }
    let nargs = used
        .iter()
        .filter_map(|f| f.strip_prefix("arg").and_then(|n| n.parse::<usize>().ok()))
        .map(|n| n + 1)
        .max()
        .unwrap_or(0);
    (nargs, used.contains(&"ret"))
}

/// The rule as a line of the binding (normalised), for reports.
pub fn rule_text(m: &Monitor, r: &Rule) -> String {
    let event = match r.event {
        RuleEvent::Event(e) => m.model.events[e].as_str(),
        RuleEvent::Forget => "forget",
    };
    let mut s = format!("{event} <- {}", r.source);
    if let Some(k) = r.key {
        let f = field_name(r, k);
        let default = matches!(
            (m.binding.scope, f),
            (Scope::Task, "common_pid") | (Scope::Cpu, "cpu")
        );
        if !default {
            let _ = write!(s, " key={f}");
        }
    }
    for (i, c) in r.conds.iter().enumerate() {
        let _ = write!(
            s,
            "{} {} {} {}",
            if i == 0 { " if" } else { " &&" },
            c.field_name,
            c.op.as_str(),
            c.value_text
        );
    }
    match r.mode {
        Mode::Plain => {}
        Mode::Start => s.push_str(" start"),
        Mode::Run => s.push_str(" run"),
    }
    s
}

/// C source, counting lines for `#line`.
struct Out {
    text: String,
    /// The generated file's name, for the `#line` that ends a condition.
    file: String,
}

impl Out {
    fn line(&mut self, s: &str) {
        self.text.push_str(s);
        self.text.push('\n');
    }
    /// Number of the next line to be written.
    fn next_line(&self) -> usize {
        self.text.matches('\n').count() + 1
    }
    fn resume(&mut self) {
        let n = self.next_line() + 1;
        let f = c_string(&self.file);
        self.line(&format!("#line {n} {f}"));
    }
}

/// Paths as reports show them.
pub struct Names<'a> {
    /// The binding file, in reports and `#line` (as the user wrote it).
    pub binding: &'a str,
    /// The model file, in reports (`vigil render MODEL`).
    pub model: &'a str,
    /// The generated file's own name, for `#line`.
    pub output: &'a str,
}

/// Whether hooks get the inline path: not when the environment says
/// `VIGIL_FAST_PATH=0` (every event then reaches the runtime, which the
/// tests compare with the inline path).
pub fn inline_wanted() -> bool {
    std::env::var_os("VIGIL_FAST_PATH").is_none_or(|v| v != "0")
}

/// The translation unit of one monitor, inline paths as the environment
/// says ([`inline_wanted`]).
pub fn generate(m: &Monitor, names: &Names) -> String {
    generate_unit(m, names, inline_wanted())
}

/// The translation unit of one monitor; `inline`: plain thread and global
/// hooks make allowed transitions themselves.
pub fn generate_unit(m: &Monitor, names: &Names, inline: bool) -> String {
    let model = &m.model;
    let b = &m.binding;
    let name = &m.name;
    let storage = storage(m);
    let ns = model.states.len();
    let ne = model.events.len();
    let mut o = Out {
        text: String::new(),
        file: names.output.to_string(),
    };

    o.line(&format!(
        "/* Monitor `{name}`, generated by `vigil gen-monitor` from\n *   binding {}\n *   model   {}\n * Do not edit: regenerate. The contract is include/vigil/monitor.h. */",
        names.binding.replace("*/", "* /"),
        names.model.replace("*/", "* /")
    ));
    o.line("#include <stddef.h>");
    o.line("#include <stdint.h>");
    o.line("#include <vigil/monitor.h>");
    o.line("");
    o.line(&format!("#if VIGIL_MONITOR_ABI != 4\n#error \"{name}: generated for monitor ABI 4; regenerate it with this vigil\"\n#endif"));
    o.line("");

    // The model.
    let list = |items: &[String]| {
        items
            .iter()
            .map(|s| c_string(s))
            .collect::<Vec<_>>()
            .join(", ")
    };
    o.line(&format!(
        "static const char *const vigil_state_names[{ns}] = {{{}}};",
        list(&model.states)
    ));
    o.line(&format!(
        "static const char *const vigil_event_names[{ne}] = {{{}}};",
        list(&model.events)
    ));
    // The transition table for readers; the compiled model is what runs.
    o.line("/* Transitions (X: not allowed):");
    let width = model.states.iter().map(String::len).max().unwrap_or(0);
    for (st, row) in model.function.iter().enumerate() {
        let cells: Vec<String> = row
            .iter()
            .map(|n| n.map_or("X".to_string(), |n| n.to_string()))
            .collect();
        let fin = if model.finals[st] { " (final)" } else { "" };
        o.line(&format!(
            " *   {:width$}: {}{fin}",
            model.states[st].replace("*/", "* /"),
            cells.join(", ")
        ));
    }
    o.line(" * The compiled model (include/vigil/vk.h), the one form every vigil engine runs: */");
    let blob = m.compiled.to_blob();
    o.line(&format!(
        "static const uint64_t vigil_compiled[{}] __attribute__((aligned(8))) = {{",
        blob.len() / 8
    ));
    for chunk in blob.chunks(32) {
        let words: Vec<String> = chunk
            .chunks(8)
            .map(|w| format!("0x{:016x}ull", u64::from_le_bytes(w.try_into().unwrap())))
            .collect();
        o.line(&format!("    {},", words.join(", ")));
    }
    o.line("};");
    let (guards, invariants) = constraints(&mut o, &m.compiled);
    o.line(&format!(
        "static const struct vigil_monitor_model vigil_model = {{\n    {}, {},\n    vigil_state_names, vigil_event_names, vigil_compiled, {},\n    {ns}, {ne}, {}, {guards}, {invariants}}};",
        c_string(&model.name),
        c_string(names.model),
        blob.len(),
        m.compiled.guards.len()
    ));
    o.line("");

    // Rules and descriptor.
    let nr = b.rules.len();
    o.line(&format!(
        "static const struct vigil_monitor_rule vigil_rules[{nr}] = {{"
    ));
    for r in &b.rules {
        let event = match r.event {
            RuleEvent::Event(e) => e.to_string(),
            RuleEvent::Forget => "VIGIL_MONITOR_FORGET".into(),
        };
        let mode = match r.mode {
            Mode::Plain => "VIGIL_MONITOR_PLAIN",
            Mode::Start => "VIGIL_MONITOR_START",
            Mode::Run => "VIGIL_MONITOR_RUN",
        };
        o.line(&format!(
            "    {{{}, {}, {}, {event}, {mode}, {{0}}}},",
            c_string(&rule_text(m, r)),
            c_string(&r.source.to_string()),
            r.line
        ));
    }
    o.line("};");
    o.line(&format!(
        "static struct vigil_monitor vigil_monitor = {{\n    {}, {}, {},\n    &vigil_model, vigil_rules, {nr}, VIGIL_MONITOR_ABI,\n    {}, {}, {}, {{0}}, 0, 0, 0}};",
        c_string(name),
        c_string(names.binding),
        c_string(b.scope.as_str()),
        storage.c_name(),
        u8::from(b.has_start_rules()),
        u8::from(m.check_exit)
    ));
    o.line("static _Thread_local struct vigil_monitor_tls vigil_tls;");
    o.line("");

    // Hooks.
    let mut entries = Vec::new();
    // Only if a hook passes no field: an unused static is a -Wall warning.
    if hybrid(m) && (0..b.rules.len()).any(|i| guard_fields(&m.compiled, i).is_empty()) {
        o.line("static const int64_t vigil_no_fields[VIGIL_MONITOR_MAX_FIELDS];");
        o.line("");
    }
    for (i, r) in b.rules.iter().enumerate() {
        let (func, at_return) = function_of(r);
        let fields = guard_fields(&m.compiled, i);
        let field_names: Vec<&str> = fields.iter().map(|&f| field_name(r, f)).collect();
        let (nargs, ret) = hook_params(r, storage, &field_names);
        let hook = format!("__vigil_monitor_hook_{name}_{i}");
        let mut params: Vec<String> = (0..nargs).map(|a| format!("int64_t arg{a}")).collect();
        if ret {
            params.push("int64_t ret".into());
        }
        let params = if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        };
        let text = rule_text(m, r).replace("*/", "* /");
        o.line(&format!(
            "/* {}:{}: {text} */",
            names.binding.replace("*/", "* /"),
            r.line
        ));
        o.line(&format!("void {hook}({params});"));
        o.line(&format!("void {hook}({params}) {{"));
        let mut used = BTreeSet::new();
        for c in &r.conds {
            used.insert(c.field_name.clone());
        }
        used.extend(field_names.iter().map(|f| f.to_string()));
        let key = match (storage, r.key) {
            (Storage::Object, Some(k)) => {
                let f = field_name(r, k);
                used.insert(f.to_string());
                format!("(uint64_t){}", field_c(f))
            }
            _ => "0".into(),
        };
        for a in 0..nargs {
            if !used.contains(&format!("arg{a}")) {
                o.line(&format!("  (void)arg{a};"));
            }
        }
        for c in &r.conds {
            o.line(&format!("#line {} {}", r.line, c_string(names.binding)));
            o.line(&format!(
                "  if (!({} {} {})) return; /* {} {} {} */",
                field_c(&c.field_name),
                op_c(c.op),
                c_int(c.value),
                c.field_name,
                c.op.as_str(),
                c.value_text.replace("*/", "* /")
            ));
            o.resume();
        }
        if hybrid(m) {
            hybrid_call(&mut o, i, &key, &fields, &field_names);
        } else {
            if let (true, RuleEvent::Event(e)) = (inline, r.event) {
                inline_step(&mut o, m, storage, e);
            }
            let entry = if r.event == RuleEvent::Forget {
                "__vigil_monitor_forget"
            } else {
                "__vigil_monitor_event"
            };
            o.line(&format!(
                "  {entry}(&vigil_monitor, &vigil_tls, {i}, {key});"
            ));
        }
        o.line("}");
        o.line("");
        entries.push(format!(
            "    {{{}, {}, (void (*)(void)){hook}, VIGIL_MONITOR_ABI, {}, {nargs}, {}, 0}},",
            c_string(func),
            c_string(&format!("{}:{}", names.binding, r.line)),
            u8::from(at_return),
            u8::from(ret)
        ));
    }

    // The binding table.
    o.line("/* The link-time pass reads this table (vigil/monitor.h). */");
    o.line(&format!(
        "__attribute__((used)) const struct vigil_monitor_binding {}{name}[{nr}] = {{",
        "__vigil_monitor_bindings_"
    ));
    for e in entries {
        o.line(&e);
    }
    o.line("};");
    o.text
}

/// The inline path of a plain model's hook for `event` (vigil/monitor.h):
/// the model's column for the event, from state word (state + 1) to the
/// next word; a word it does not list (0: not monitored, PARKED, an event
/// not allowed) falls through to the runtime call that follows.  Nothing
/// for per-object instances, nor for an event no state allows.
fn inline_step(o: &mut Out, m: &Monitor, storage: Storage, event: usize) {
    let c = &m.compiled;
    let ne = c.nevents as usize;
    let cases: Vec<String> = (0..c.nstates as usize)
        .filter_map(|s| {
            let n = c.next[s * ne + event];
            (n != NONE).then(|| {
                format!(
                    "    case {}: next = {}; break; /* {} -> {} */",
                    s + 1,
                    n as usize + 1,
                    m.model.states[s].replace("*/", "* /"),
                    m.model.states[n as usize].replace("*/", "* /")
                )
            })
        })
        .collect();
    if cases.is_empty() || storage == Storage::Object {
        return;
    }
    let ev = m.model.events[event].replace("*/", "* /");
    let column = |o: &mut Out, word: &str| {
        o.line(&format!("    uint32_t next;\n    switch ({word}) {{ /* event {ev} */"));
        for l in &cases {
            o.line(l);
        }
        o.line("    default: next = 0; break;\n    }");
    };
    // Relaxed loads and stores (the statistics read the count from other
    // threads), which x86 folds into one `inc` of the TLS word.
    let count = "      __atomic_store_n(&vigil_tls.events, __atomic_load_n(&vigil_tls.events, __ATOMIC_RELAXED) + 1,\n                       __ATOMIC_RELAXED);\n      return;";
    o.line("  { /* the inline path: an allowed transition (vigil/monitor.h) */");
    match storage {
        Storage::Thread => {
            column(o, "vigil_tls.state");
            o.line("    if (__builtin_expect(next != 0, 1)) {\n      vigil_tls.state = next;");
            o.line(count);
            o.line("    }");
        }
        _ => {
            // the thread registered and not parked; a lost swap: the runtime
            o.line("    uint32_t w = __atomic_load_n(&vigil_monitor.state, __ATOMIC_RELAXED);");
            column(o, "w");
            o.line("    if (__builtin_expect(vigil_tls.state == 1 && next != 0, 1) &&\n        __atomic_compare_exchange_n(&vigil_monitor.state, &w, next, 0, __ATOMIC_ACQ_REL,\n                                    __ATOMIC_RELAXED)) {");
            o.line(count);
            o.line("    }");
        }
    }
    o.line("  }");
}

/// The guards' and invariants' text and model line, for reports: the C
/// expressions of the model descriptor's `guards` and `invariants`.
fn constraints(o: &mut Out, c: &Compiled) -> (String, String) {
    let one = |text: &str, line: u32| format!("{{{}, {line}, 0}}", c_string(text));
    let guards = if c.guards.is_empty() {
        "NULL".to_string()
    } else {
        o.line(&format!(
            "static const struct vigil_monitor_constraint vigil_guards[{}] = {{",
            c.guards.len()
        ));
        for g in &c.guards {
            o.line(&format!("    {},", one(&g.text, g.line)));
        }
        o.line("};");
        "vigil_guards".to_string()
    };
    let invariants = if c.invariants.iter().all(Option::is_none) {
        "NULL".to_string()
    } else {
        o.line(&format!(
            "static const struct vigil_monitor_constraint vigil_invariants[{}] = {{",
            c.invariants.len()
        ));
        for i in &c.invariants {
            match i {
                Some(i) => o.line(&format!("    {},", one(&i.text, i.line))),
                None => o.line("    {NULL, 0, 0},"),
            }
        }
        o.line("};");
        "vigil_invariants".to_string()
    };
    (guards, invariants)
}

/// A hybrid model's hook calls the runtime with the fields its guards read
/// (indexed as the rule's source numbers them), or with none.
fn hybrid_call(o: &mut Out, rule: usize, key: &str, fields: &[usize], names: &[&str]) {
    if fields.is_empty() {
        o.line(&format!(
            "  __vigil_monitor_hybrid(&vigil_monitor, &vigil_tls, {rule}, {key}, vigil_no_fields);"
        ));
        return;
    }
    o.line("  int64_t f[VIGIL_MONITOR_MAX_FIELDS] = {0};");
    for (i, name) in fields.iter().zip(names) {
        o.line(&format!("  f[{i}] = {};", field_c(name)));
    }
    o.line(&format!(
        "  __vigil_monitor_hybrid(&vigil_monitor, &vigil_tls, {rule}, {key}, f);"
    ));
}

/// `vigil gen-monitor`.
pub fn run(binding: &Path, model: Option<&Path>, output: Option<&Path>) -> Result<()> {
    let m = load(binding, model)?;
    for w in warnings(&m) {
        eprintln!("vigil: {w}");
    }
    let out_name = match output {
        Some(p) => p.display().to_string(),
        None => format!("{}.monitor.c", m.name),
    };
    let model_path = absolute(&m.model.path);
    let c = generate(
        &m,
        &Names {
            binding: &m.binding.path.display().to_string(),
            model: &model_path.display().to_string(),
            output: &out_name,
        },
    );
    write_output(output, c.as_bytes())
}

fn absolute(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// Take `--vigil-monitor=BINDING` / `--vigil-monitor BINDING` out of a
/// compiler command line: (bindings, the other arguments).
pub fn take_monitor_flags(args: &[OsString]) -> Result<(Vec<PathBuf>, Vec<OsString>)> {
    let mut bindings = Vec::new();
    let mut rest = Vec::new();
    let mut it = args.iter();
    let eq = format!("{MONITOR_FLAG}=");
    while let Some(a) = it.next() {
        let s = a.to_string_lossy();
        if s == MONITOR_FLAG {
            match it.next() {
                Some(v) => bindings.push(PathBuf::from(v)),
                None => {
                    return Err(Error::setup(format!(
                        "{MONITOR_FLAG} needs a binding file: {MONITOR_FLAG}=FILE.bind"
                    )))
                }
            }
        } else if let Some(v) = s.strip_prefix(&eq) {
            if v.is_empty() {
                return Err(Error::setup(format!(
                    "{MONITOR_FLAG}= needs a binding file: {MONITOR_FLAG}=FILE.bind"
                )));
            }
            bindings.push(PathBuf::from(v));
        } else {
            rest.push(a.clone());
        }
    }
    Ok((bindings, rest))
}

/// Options of the user's command line that must also apply to the monitor
/// units (the target and ABI): `-m…`, `--target=…`/`-target X`, `-f[no-]pic/pie`, `-g…`.
pub fn target_flags(user: &[OsString]) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut it = user.iter();
    while let Some(a) = it.next() {
        let s = a.to_string_lossy();
        if s == "-target" || s == "--target" {
            out.push(a.clone());
            if let Some(v) = it.next() {
                out.push(v.clone());
            }
        } else if (s.starts_with("-m") && s != "-mllvm")
            || s.starts_with("--target=")
            || matches!(
                s.as_ref(),
                "-fPIC"
                    | "-fpic"
                    | "-fPIE"
                    | "-fpie"
                    | "-fno-pic"
                    | "-fno-PIC"
                    | "-fno-pie"
                    | "-fno-PIE"
            )
            || (s.starts_with("-g") && !s.starts_with("-gcc"))
        {
            out.push(a.clone());
        } else if s == "-mllvm" {
            it.next();
        }
    }
    out
}

/// Generate each monitor's unit into `dir`; returns (name, C file) pairs.
/// Two different bindings may not share a monitor name.
pub fn generate_all(bindings: &[PathBuf], dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut seen: Vec<(String, PathBuf)> = Vec::new();
    let mut out = Vec::new();
    for b in bindings {
        let canon = absolute(b);
        if seen.iter().any(|(_, p)| *p == canon) {
            continue; // the same binding twice
        }
        let m = load(b, None)?;
        if let Some((_, other)) = seen.iter().find(|(n, _)| *n == m.name) {
            return Err(Error::setup(format!(
                "two monitors named `{}`: {} and {}; monitor names come from the binding file names, rename one",
                m.name,
                other.display(),
                b.display()
            )));
        }
        seen.push((m.name.clone(), canon));
        for w in warnings(&m) {
            eprintln!("vigil: {w}");
        }
        let file = dir.join(format!("{}.monitor.c", m.name));
        let model_path = absolute(&m.model.path);
        let c = generate(
            &m,
            &Names {
                binding: &b.display().to_string(),
                model: &model_path.display().to_string(),
                output: &file.display().to_string(),
            },
        );
        std::fs::write(&file, c)
            .map_err(|e| Error::failure(format!("cannot write {}: {e}", file.display())))?;
        out.push((m.name, file));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MUTEX_DOT: &str = r#"digraph state_automaton {
	{node [shape = plaintext, style=invis, label=""] "__init_unlocked"};
	{node [shape = doublecircle] "unlocked"};
	{node [shape = circle] "locked"};
	"__init_unlocked" -> "unlocked";
	"unlocked" -> "locked" [ label = "lock" ];
	"locked" -> "unlocked" [ label = "unlock" ];
}
"#;

    const MUTEX_BIND: &str = "\
model mutex.dot
scope object
lock   <- return:pthread_mutex_lock key=arg0 if ret == 0
unlock <- call:pthread_mutex_unlock key=arg0
forget <- call:pthread_mutex_destroy key=arg0
";

    fn model() -> Model {
        vigil_model::dot::parse(Path::new("/m/mutex.dot"), MUTEX_DOT).unwrap()
    }

    fn monitor(text: &str) -> Monitor {
        from_text(Path::new("/b/mutex.bind"), text, model()).unwrap()
    }

    fn gen(m: &Monitor) -> String {
        generate(
            m,
            &Names {
                binding: "b/mutex.bind",
                model: "/m/mutex.dot",
                output: "out.c",
            },
        )
    }

    #[test]
    fn mutex_unit() {
        let m = monitor(MUTEX_BIND);
        assert_eq!(m.name, "mutex");
        assert_eq!(storage(&m), Storage::Object);
        let c = gen(&m);
        assert!(c.contains("#include <vigil/monitor.h>"), "{c}");
        assert!(
            c.contains(r#"vigil_state_names[2] = {"unlocked", "locked"}"#),
            "{c}"
        );
        assert!(
            c.contains(r#"vigil_event_names[2] = {"lock", "unlock"}"#),
            "{c}"
        );
        assert!(c.contains(" *   unlocked: 1, X (final)\n *   locked  : X, 0\n"), "{c}");
        // The compiled model: magic and size first, then the table.
        let blob = m.compiled.to_blob();
        assert!(c.contains(&format!("vigil_compiled[{}]", blob.len() / 8)), "{c}");
        assert!(c.contains(&format!("0x{:016x}ull", u64::from_le_bytes(blob[..8].try_into().unwrap()))), "{c}");
        assert!(c.contains(&format!("vigil_compiled, {},\n    2, 2, 0, NULL, NULL}};", blob.len())), "{c}");
        assert!(c.contains("#if VIGIL_MONITOR_ABI != 4\n"), "{c}");
        // a plain model: no hybrid entry point, no constraints
        assert!(!c.contains("__vigil_monitor_hybrid"), "{c}");
        assert!(!c.contains("vigil_guards"), "{c}");
        // hooks: the return rule gets arg0 and ret, the call rules arg0
        assert!(
            c.contains("void __vigil_monitor_hook_mutex_0(int64_t arg0, int64_t ret) {"),
            "{c}"
        );
        assert!(
            c.contains("void __vigil_monitor_hook_mutex_1(int64_t arg0) {"),
            "{c}"
        );
        assert!(
            c.contains("#line 3 \"b/mutex.bind\"\n  if (!(ret == INT64_C(0))) return;"),
            "{c}"
        );
        assert!(
            c.contains("__vigil_monitor_event(&vigil_monitor, &vigil_tls, 0, (uint64_t)arg0);"),
            "{c}"
        );
        assert!(
            c.contains("__vigil_monitor_forget(&vigil_monitor, &vigil_tls, 2, (uint64_t)arg0);"),
            "{c}"
        );
        assert!(c.contains("__attribute__((used)) const struct vigil_monitor_binding __vigil_monitor_bindings_mutex[3] = {"), "{c}");
        assert!(c.contains(r#"{"pthread_mutex_lock", "b/mutex.bind:3", (void (*)(void))__vigil_monitor_hook_mutex_0, VIGIL_MONITOR_ABI, 1, 1, 1, 0},"#), "{c}");
        assert!(c.contains(r#"{"pthread_mutex_unlock", "b/mutex.bind:4", (void (*)(void))__vigil_monitor_hook_mutex_1, VIGIL_MONITOR_ABI, 0, 1, 0, 0},"#), "{c}");
        assert!(c.contains("VIGIL_MONITOR_OBJECT, 0, 0,"), "{c}");
        assert!(c.contains(r#"{"lock <- return:pthread_mutex_lock key=arg0 if ret == 0", "return:pthread_mutex_lock", 3, 0, VIGIL_MONITOR_PLAIN, {0}},"#), "{c}");
        assert!(c.contains(r#"{"forget <- call:pthread_mutex_destroy key=arg0", "call:pthread_mutex_destroy", 5, VIGIL_MONITOR_FORGET, VIGIL_MONITOR_PLAIN, {0}},"#), "{c}");
    }

    /// A request must be answered within 50 ms, and not before 1 ms; the
    /// guard on `reply` also reads a field (arg1, through `env`).
    const REQ_DOT: &str = r#"digraph state_automaton {
	{node [shape = plaintext, style=invis, label=""] "__init_idle"};
	{node [shape = doublecircle] "idle"};
	{node [shape = circle] "waiting"};
	"__init_idle" -> "idle";
	"waiting" [label = "waiting\nclk < 50ms"];
	"idle" -> "waiting" [ label = "request;reset(clk)" ];
	"waiting" -> "idle" [ label = "reply;clk >= 1ms && ok == 1" ];
}
"#;

    fn hybrid_monitor(bind: &str) -> Monitor {
        let model = vigil_model::dot::parse(Path::new("/m/req.dot"), REQ_DOT).unwrap();
        from_text(Path::new("/b/req.bind"), bind, model).unwrap()
    }

    #[test]
    fn hybrid_unit_runs_the_clocks() {
        let m = hybrid_monitor("scope object\nenv ok = arg1\nrequest <- call:request key=arg0\nreply <- call:reply key=arg0\nforget <- call:drop key=arg0\n");
        assert_eq!(m.compiled.kind, Kind::Ha);
        let c = gen(&m);
        // the whole model: the guard and the invariant, with their lines
        assert!(c.contains("static const struct vigil_monitor_constraint vigil_guards[1] = {\n    {\"clk >= 1ms && ok == 1\", 8, 0},\n};"), "{c}");
        assert!(c.contains("static const struct vigil_monitor_constraint vigil_invariants[2] = {\n    {NULL, 0, 0},\n    {\"clk < 50ms\", 6, 0},\n};"), "{c}");
        assert!(c.contains("\n    2, 2, 1, vigil_guards, vigil_invariants};"), "{c}");
        // request: no guard reads a field; reply: arg1 carries `ok`
        assert!(c.contains("void __vigil_monitor_hook_req_0(int64_t arg0) {\n  __vigil_monitor_hybrid(&vigil_monitor, &vigil_tls, 0, (uint64_t)arg0, vigil_no_fields);"), "{c}");
        assert!(c.contains("void __vigil_monitor_hook_req_1(int64_t arg0, int64_t arg1) {\n  int64_t f[VIGIL_MONITOR_MAX_FIELDS] = {0};\n  f[1] = arg1;\n  __vigil_monitor_hybrid(&vigil_monitor, &vigil_tls, 1, (uint64_t)arg0, f);"), "{c}");
        // forget goes the same way (the runtime's step knows it)
        assert!(c.contains("__vigil_monitor_hybrid(&vigil_monitor, &vigil_tls, 2, (uint64_t)arg0, vigil_no_fields);"), "{c}");
        assert!(!c.contains("__vigil_monitor_event("), "{c}");
        assert!(!c.contains("__vigil_monitor_forget("), "{c}");
        // the blob is the hybrid one
        let blob = m.compiled.to_blob();
        assert!(c.contains(&format!("vigil_compiled[{}]", blob.len() / 8)), "{c}");
    }

    #[test]
    fn hybrid_fields_from_the_return_value_and_common_fields() {
        let m = hybrid_monitor("scope thread\nenv ok = ret\nrequest <- call:request\nreply <- return:reply\n");
        assert_eq!(storage(&m), Storage::Thread);
        let c = gen(&m);
        assert!(c.contains("void __vigil_monitor_hook_req_1(int64_t ret) {\n  int64_t f[VIGIL_MONITOR_MAX_FIELDS] = {0};\n  f[6] = ret;\n  __vigil_monitor_hybrid(&vigil_monitor, &vigil_tls, 1, 0, f);"), "{c}");
        let m = hybrid_monitor("scope global\nenv ok = common_pid\nrequest <- call:request\nreply <- call:reply\n");
        let c = gen(&m);
        assert!(c.contains("  f[6] = __vigil_monitor_field(VIGIL_MONITOR_FIELD_TID);\n"), "{c}");
        // every hook passes fields or none: the empty array only if used
        assert!(c.contains("static const int64_t vigil_no_fields["), "{c}");
        let m = hybrid_monitor("scope object\nenv ok = arg1\nreply <- call:reply key=arg0\n");
        assert!(!gen(&m).contains("vigil_no_fields"));
    }

    #[test]
    fn line_directives_resume_at_the_right_line() {
        let c = gen(&monitor(MUTEX_BIND));
        let lines: Vec<&str> = c.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            if let Some(rest) = l.strip_prefix("#line ") {
                if rest.ends_with("\"out.c\"") {
                    let n: usize = rest.split_whitespace().next().unwrap().parse().unwrap();
                    assert_eq!(n, i + 2, "line {} says {l}", i + 1);
                }
            }
        }
        assert!(c.contains("\"out.c\""));
    }

    #[test]
    fn per_thread_by_default_key() {
        let text = "scope thread\nlock <- call:take if arg1 >= 2 && arg0 != -5\nunlock <- return:give if ret == 0x10\n";
        let m = monitor(text);
        assert_eq!(storage(&m), Storage::Thread);
        let c = gen(&m);
        assert!(
            c.contains("void __vigil_monitor_hook_mutex_0(int64_t arg0, int64_t arg1) {"),
            "{c}"
        );
        assert!(c.contains("if (!(arg1 >= INT64_C(2))) return;"), "{c}");
        assert!(c.contains("if (!(arg0 != (-INT64_C(5)))) return;"), "{c}");
        assert!(
            c.contains("void __vigil_monitor_hook_mutex_1(int64_t ret) {"),
            "{c}"
        );
        assert!(
            c.contains("if (!(ret == INT64_C(16))) return; /* ret == 0x10 */"),
            "{c}"
        );
        assert!(
            c.contains("__vigil_monitor_event(&vigil_monitor, &vigil_tls, 0, 0);"),
            "{c}"
        );
        assert!(c.contains("VIGIL_MONITOR_THREAD, 0, 0,"), "{c}");
        // the default key is not shown
        assert!(
            c.contains(r#""lock <- call:take if arg1 >= 2 && arg0 != -5""#),
            "{c}"
        );
    }

    /// Thread and global hooks of a plain model hold their event's column
    /// and make the allowed transitions themselves; `forget`, per-object
    /// instances and VIGIL_FAST_PATH=0 leave every event to the runtime.
    #[test]
    fn inline_paths_where_the_state_is_a_word() {
        let m = monitor("scope thread\nlock <- call:take\nunlock <- call:give\nforget <- call:drop\n");
        let c = gen(&m);
        let hook = |c: &str, i: usize| -> String {
            let start = c.find(&format!("void __vigil_monitor_hook_mutex_{i}(")).unwrap();
            let body = &c[start..];
            body[..body.find("\n}\n").unwrap()].to_string()
        };
        let lock = hook(&c, 0);
        assert!(lock.contains("    switch (vigil_tls.state) { /* event lock */\n    case 1: next = 2; break; /* unlocked -> locked */\n    default: next = 0; break;\n    }"), "{lock}");
        assert!(lock.contains("      vigil_tls.state = next;\n      __atomic_store_n(&vigil_tls.events, __atomic_load_n(&vigil_tls.events, __ATOMIC_RELAXED) + 1,"), "{lock}");
        // what the column does not allow still reaches the runtime, after it
        assert!(lock.find("inline path").unwrap() < lock.find("__vigil_monitor_event(&vigil_monitor, &vigil_tls, 0, 0);").unwrap(), "{lock}");
        assert!(hook(&c, 1).contains("    case 2: next = 1; break; /* locked -> unlocked */"), "{c}");
        let forget = hook(&c, 2);
        assert!(!forget.contains("inline path") && forget.contains("__vigil_monitor_forget("), "{forget}");

        let g = gen(&monitor("scope global\nlock <- call:take\nunlock <- call:give\n"));
        let lock = hook(&g, 0);
        assert!(lock.contains("uint32_t w = __atomic_load_n(&vigil_monitor.state, __ATOMIC_RELAXED);\n    uint32_t next;\n    switch (w) { /* event lock */\n    case 1: next = 2;"), "{lock}");
        assert!(lock.contains("if (__builtin_expect(vigil_tls.state == 1 && next != 0, 1) &&\n        __atomic_compare_exchange_n(&vigil_monitor.state, &w, next, 0, __ATOMIC_ACQ_REL,"), "{lock}");

        assert!(!gen(&monitor(MUTEX_BIND)).contains("inline path"));
        let names = Names { binding: "b/mutex.bind", model: "/m/mutex.dot", output: "out.c" };
        let off = generate_unit(&m, &names, false);
        assert!(!off.contains("inline path") && off.contains("__vigil_monitor_event(&vigil_monitor, &vigil_tls, 0, 0);"), "{off}");
    }

    #[test]
    fn per_task_with_another_key_uses_the_table() {
        let m = monitor("scope task\nlock <- call:take key=arg2\nunlock <- call:give\n");
        assert_eq!(storage(&m), Storage::Object);
        let c = gen(&m);
        assert!(
            c.contains(
                "void __vigil_monitor_hook_mutex_0(int64_t arg0, int64_t arg1, int64_t arg2) {"
            ),
            "{c}"
        );
        assert!(c.contains("  (void)arg0;\n  (void)arg1;\n"), "{c}");
        assert!(
            c.contains("(uint64_t)__vigil_monitor_field(VIGIL_MONITOR_FIELD_TID)"),
            "{c}"
        );
    }

    #[test]
    fn global_start_rules_and_at_exit() {
        let m = monitor("scope global\nat_exit final # check\nlock <- call:take start\nunlock <- call:give run\n");
        assert!(m.check_exit);
        assert_eq!(storage(&m), Storage::Global);
        let c = gen(&m);
        assert!(c.contains("VIGIL_MONITOR_GLOBAL, 1, 1,"), "{c}");
        assert!(c.contains("VIGIL_MONITOR_START"), "{c}");
        assert!(c.contains("VIGIL_MONITOR_RUN"), "{c}");
        assert!(
            c.contains("void __vigil_monitor_hook_mutex_0(void) {"),
            "{c}"
        );
        assert!(c.contains(r#""lock <- call:take start""#), "{c}");
    }

    #[test]
    fn tracepoints_are_refused_at_their_line() {
        let e = from_text(
            Path::new("/b/x.bind"),
            "scope task\nlock <- tp:sched_switch key=prev_pid\nunlock <- call:f\n",
            model(),
        )
        .unwrap_err();
        assert!(e.message.contains("/b/x.bind:2:"), "{}", e.message);
        assert!(e.message.contains("call:FUNC"), "{}", e.message);
    }

    #[test]
    fn binding_errors_carry_file_and_line() {
        let e = from_text(
            Path::new("/b/x.bind"),
            "scope object\nlock <- return:f key=arg0 if ret = 0\n",
            model(),
        )
        .unwrap_err();
        assert!(e.message.starts_with("/b/x.bind:2:"), "{}", e.message);
    }

    #[test]
    fn values_and_names() {
        assert_eq!(c_int(0), "INT64_C(0)");
        assert_eq!(c_int(-1), "(-INT64_C(1))");
        assert_eq!(c_int(i64::MIN), "(-INT64_C(9223372036854775807) - 1)");
        assert_eq!(c_int(i64::MAX), "INT64_C(9223372036854775807)");
        assert_eq!(c_name("my-mutex.v2"), "my_mutex_v2");
        assert_eq!(c_name("2pc"), "_2pc");
        assert_eq!(c_string("a\"b\\c?\n"), r#""a\"b\\c\?\n""#);
    }

    #[test]
    fn monitor_flags_are_taken_out() {
        let os = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        let (b, rest) = take_monitor_flags(&os(&[
            "-O2",
            "--vigil-monitor=a.bind",
            "x.c",
            "--vigil-monitor",
            "b.bind",
            "-o",
            "x",
        ]))
        .unwrap();
        assert_eq!(b, vec![PathBuf::from("a.bind"), PathBuf::from("b.bind")]);
        assert_eq!(rest, os(&["-O2", "x.c", "-o", "x"]));
        assert!(take_monitor_flags(&os(&["--vigil-monitor"])).is_err());
        assert!(take_monitor_flags(&os(&["--vigil-monitor="])).is_err());
    }

    #[test]
    fn target_flags_follow_the_user() {
        let os = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            target_flags(&os(&[
                "-O2",
                "-m64",
                "-g",
                "-target",
                "x86_64-linux-gnu",
                "-fPIC",
                "-mllvm",
                "-x",
                "-Wall",
                "a.c"
            ])),
            os(&["-m64", "-g", "-target", "x86_64-linux-gnu", "-fPIC"])
        );
    }
}
