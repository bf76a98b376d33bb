//! The in-process engine on a conformance case: a C program whose functions
//! are the binding's `call:` sources, built with `vigil-cc
//! --vigil-monitor=BINDING` (the generated unit, the link-time pass and
//! libvigil: the real path), that calls them in the order of the case's
//! events and prints each violation its handler receives.
//!
//! Hybrid models run on the test clock: the driver runs with
//! `VIGIL_MONITOR_CLOCK=manual` and calls `__vigil_monitor_set_time(TIME)`
//! before each event and at each `tick`, which fires the invariants that
//! expired by then, earliest first, as the reference does before each
//! event.  (The real engine reads CLOCK_MONOTONIC and fires them from its
//! timer thread: tests/lit/e2e/monitor-clock.c.)
//!
//! Cases it cannot express are refused with the reason:
//! sources other than `call:`, and keys, conditions or guards on the common
//! fields (the driver is one thread on one cpu).

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use vigil_model::binding::Source;
use vigil_model::compiled::Kind;
use vigil_trace::conform::Case;

use crate::error::{Error, Result};
use crate::tempdir::TempDir;

/// Why the case cannot run in-process, if it cannot.
pub fn unsupported(case: &Case) -> Option<String> {
    for (i, r) in case.binding.rules.iter().enumerate() {
        let Source::Call { func, .. } = &r.source else {
            return Some(format!("{} is not a call: source", r.source));
        };
        if !func.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Some(format!("`{func}` is not a plain C name"));
        }
        const DRIVER_USES: &[&str] = &["main", "free", "printf", "snprintf", "strstr", "strcspn", "strcmp", "strtoull", "fflush", "vigil_set_handler"];
        if DRIVER_USES.contains(&func.as_str()) {
            return Some(format!("`{func}` is a function the driver itself uses"));
        }
        // Declared by the driver's headers with other parameters.
        const LIBC: &[&str] = &["exit", "abort", "malloc", "calloc", "realloc", "puts", "getenv", "atoi", "atol", "strlen", "memcpy", "memset", "memcmp", "strncmp", "qsort", "rand", "system"];
        if LIBC.contains(&func.as_str()) {
            return Some(format!("`{func}` is a C library function the driver's headers declare"));
        }
        let fields = r.source.fields();
        let common = |f: usize| fields[f] == "common_pid" || fields[f] == "tgid" || fields[f] == "cpu";
        let env_common = case.compiled.rules[i].env_fields.iter().any(|&f| (f as usize) < fields.len() && common(f as usize));
        if r.key.is_some_and(common) || r.conds.iter().any(|c| common(c.field)) || env_common {
            return Some(format!("rule at line {} reads a common field (one thread on one cpu)", r.line));
        }
        if r.key.is_none() && case.binding.scope != vigil_model::Scope::Global {
            return Some(format!("rule at line {} keys by the thread or the cpu", r.line));
        }
    }
    None
}

/// The driver's source: one function per source, then the calls.
fn driver(case: &Case) -> String {
    let mut c = String::from(
        "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <vigil/monitor.h>\n#include <vigil/runtime.h>\n\n\
         static long line;\nstatic volatile int64_t sink;\n\n",
    );
    c += r#"/* "event X is not allowed in state Y" / "... forgotten in state Y, which ..." /
 * "guard `G` is false for event X in state Y" / "invariant `I` expired in state Y"; the
 * event is the rule's first word ("time passed" when a timer fired: none). */
static void on_violation(const struct vigil_violation *v, void *ctx) {
  (void)ctx;
  const char *s = strstr(v->explanation, "in state ");
  char state[128] = "?";
  if (s) {
    s += 9;
    size_t n = strcspn(s, ", ");
    snprintf(state, sizeof state, "%.*s", (int)n, s);
  }
  char event[128] = "none";
  if (strstr(v->event, " <- "))
    snprintf(event, sizeof event, "%.*s", (int)strcspn(v->event, " "), v->event);
  const char *k = strstr(v->values, "key = ");
  long long key = k ? (long long)strtoull(k + 6, NULL, 0) : 0;
  const char *kind = !strcmp(v->reason, "not-final") ? "not-final"
                     : !strcmp(v->reason, "monitor-guard") ? "guard"
                     : !strcmp(v->reason, "monitor-invariant") ? "invariant"
                     : !strcmp(v->reason, "monitor-ltl") ? "ltl" : "event";
  /* an LTL verdict's state set: S0|S1 in reports, S0,S1 in the corpus */
  for (char *p = state; *p; p++)
    if (*p == '|')
      *p = ',';
  const char *at = strstr(v->values, "expired at = ");
  if (at && !strcmp(event, "none"))
    printf("%ld %s key=%lld state=%s event=%s at=%llu\n", line, kind, key, state, event,
           strtoull(at + 13, NULL, 10));
  else
    printf("%ld %s key=%lld state=%s event=%s\n", line, kind, key, state, event);
}

"#;
    let mut funcs: Vec<&str> = Vec::new();
    for r in &case.binding.rules {
        if let Source::Call { func, .. } = &r.source {
            if !funcs.contains(&func.as_str()) {
                funcs.push(func);
            }
        }
    }
    for f in &funcs {
        let _ = writeln!(
            c,
            "__attribute__((noinline)) void {f}(int64_t a0, int64_t a1, int64_t a2, int64_t a3, int64_t a4, int64_t a5) {{\n  sink = a0 + a1 + a2 + a3 + a4 + a5;\n}}"
        );
    }
    c += "\nint main(void) {\n  vigil_set_handler(on_violation, 0);\n";
    let clocked = case.compiled.kind == Kind::Ha;
    for ev in &case.events {
        if clocked {
            let _ = writeln!(c, "  line = {}; __vigil_monitor_set_time(UINT64_C({}));", ev.line, ev.ts);
        }
        let Some(src) = ev.source else { continue };
        let name = &case.compiled.sources[src as usize];
        let func = name.strip_prefix("call:").unwrap_or(name);
        let args: Vec<String> = ev.fields[..6].iter().map(|v| format!("INT64_C({v})")).collect();
        let _ = writeln!(c, "  line = {}; {func}({});", ev.line, args.join(", "));
    }
    c += "  fflush(stdout);\n  return 0;\n}\n";
    c
}

/// Build and run the driver; its verdict lines.
pub fn run(vigil_cc: &Path, case: &Case) -> Result<Vec<String>> {
    let tmp = TempDir::create("conform-process").map_err(|e| Error::failure(format!("temporary directory: {e}")))?;
    let src = tmp.path().join("driver.c");
    let exe = tmp.path().join("driver");
    std::fs::write(&src, driver(case)).map_err(|e| Error::failure(format!("cannot write {}: {e}", src.display())))?;
    let bind = case.dir.join("binding.bind");
    let out = Command::new(vigil_cc)
        .arg("-O1")
        .arg(format!("--vigil-monitor={}", bind.display()))
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .env("VIGIL_STATIC", "off")
        .output()
        .map_err(|e| Error::setup(format!("cannot run {}: {e}", vigil_cc.display())))?;
    if !out.status.success() {
        return Err(Error::failure(format!(
            "{}: the in-process driver does not build: {}",
            case.dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let run = Command::new(&exe)
        .env("VIGIL_ON_FAILURE", "log")
        .env("VIGIL_MONITOR_CLOCK", "manual")
        .env_remove("VIGIL_REPORT")
        .output()
        .map_err(|e| Error::failure(format!("cannot run the driver: {e}")))?;
    if !run.status.success() {
        return Err(Error::failure(format!(
            "{}: the in-process driver failed: {}",
            case.dir.display(),
            String::from_utf8_lossy(&run.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&run.stdout).lines().map(str::to_string).collect())
}
