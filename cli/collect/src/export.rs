//! `vigil collect --export-trace OUT.json --store PATH`: the stored events
//! as a Chrome trace (the JSON Trace Event Format that Perfetto's UI,
//! ui.perfetto.dev, and chrome://tracing open), so that a person can look
//! at a run: one process per producer, one track per thread, a traced
//! function's entry and return as a slice ("B"/"E") with its arguments and
//! return value, every other event (assertion events, verdicts,
//! tracepoints) as an instant ("i").  Times are the events'
//! `CLOCK_MONOTONIC` microseconds, with nanosecond decimals.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use vigil_trace::report::json_str;

use crate::catalog::Catalog;
use crate::error::{Context, Result};
use crate::read;

struct Producer {
    pid: i64,
    label: String,
}

/// Writes the trace; `only` keeps one producer (its stream id, or its
/// pid).  Returns the number of events written.
pub fn chrome_trace(store: &Path, only: Option<&str>, out: &mut dyn Write) -> Result<u64> {
    let catalog = Catalog::open_existing(store)?;
    let db = catalog.connection();
    let mut producers: HashMap<String, Producer> = HashMap::new();
    let mut names: HashMap<(String, String, String), Vec<String>> = HashMap::new();
    {
        let mut st = db
            .prepare("SELECT id, stream, program, pid, host FROM streams ORDER BY id")
            .ctx(|| "catalog: streams")?;
        let rows = st
            .query_map([], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, i64>(3)?, r.get::<_, String>(4)?))
            })
            .ctx(|| "catalog: streams")?;
        let mut used = std::collections::HashSet::new();
        for row in rows {
            let (id, stream, program, pid, host) = row.ctx(|| "catalog: streams")?;
            // Two producers with one pid (pid reuse, two hosts) get two tracks.
            let track = if used.insert(pid) { pid } else { 1_000_000_000 + id };
            let label = format!("{program} (pid {pid} on {host})");
            producers.insert(stream, Producer { pid: track, label });
        }
        let mut st = db
            .prepare(
                "SELECT s.stream, e.name, e.kind, e.names FROM event_types e
                 JOIN streams s ON s.id = e.stream_id WHERE e.names IS NOT NULL",
            )
            .ctx(|| "catalog: event_types")?;
        let rows = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get::<_, String>(3)?)))
            .ctx(|| "catalog: event_types")?;
        for row in rows {
            let (stream, name, kind, n) = row.ctx(|| "catalog: event_types")?;
            names.insert((stream, name, kind), n.split(',').map(str::to_string).collect());
        }
    }
    let keep = |stream: &str, p: &Producer| match only {
        None => true,
        Some(o) => o == stream || o.parse::<i64>().is_ok_and(|pid| pid == p.pid),
    };
    let w = |out: &mut dyn Write, s: &str| out.write_all(s.as_bytes()).ctx(|| "writing the trace");
    w(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")?;
    let mut first = true;
    for (stream, p) in &producers {
        if keep(stream, p) {
            let sep = if first { "" } else { ",\n" };
            first = false;
            w(out, &format!(
                "{sep}{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":{}}}}}",
                p.pid,
                json_str(&p.label)
            ))?;
        }
    }
    let mut count = 0u64;
    read::for_each(store, |e| {
        let Some(p) = producers.get(&e.stream) else { return Ok(()) };
        if !keep(&e.stream, p) {
            return Ok(());
        }
        let ph = match e.kind.as_str() {
            "entry" => "B",
            "return" => "E",
            _ => "i",
        };
        let arg_names = names.get(&(e.stream.clone(), e.event.clone(), e.kind.clone()));
        let args = args_json(&e.args, arg_names, &e.kind);
        let scope = if ph == "i" { ",\"s\":\"t\"" } else { "" };
        let sep = if first { "" } else { ",\n" };
        first = false;
        count += 1;
        w(out, &format!(
            "{sep}{{\"name\":{},\"cat\":{},\"ph\":\"{ph}\"{scope},\"ts\":{}.{:03},\"pid\":{},\"tid\":{},\"args\":{args}}}",
            json_str(&e.event),
            json_str(&e.kind),
            e.ns.div_euclid(1000),
            e.ns.rem_euclid(1000),
            p.pid,
            e.thread
        ))
    })?;
    w(out, "\n]}\n")?;
    Ok(count)
}

fn args_json(args: &[i64], names: Option<&Vec<String>>, kind: &str) -> String {
    let mut parts = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        let name = match names.and_then(|n| n.get(i)) {
            Some(n) => n.clone(),
            None if kind == "return" && i + 1 == args.len() => "ret".into(),
            None => format!("arg{i}"),
        };
        parts.push(format!("{}:{a}", json_str(&name)));
    }
    format!("{{{}}}", parts.join(","))
}
