//! Which binding rules an event of a stream feeds, and where each field a
//! rule reads comes from.
//!
//! A binding names sources as the in-process and live monitors do
//! ([`vigil_model::binding`]): `call:FUNC` is an `entry` event named FUNC
//! (compiled tracing, or a uprobe from `vigil record`), `return:FUNC` a
//! `return` event, `tp:[SYSTEM:]NAME` a `tracepoint` event named
//! `SYSTEM:NAME`.  Fields:
//!
//! * `argN` of a call: the entry's N-th argument word;
//! * `argN` of a return: the N-th argument of the matching entry on the
//!   same thread (the collector keeps each thread's open calls), `ret`:
//!   the return's value (its last word);
//! * a tracepoint's own fields: the word of that name (the event's
//!   declaration names its words);
//! * `common_pid`: the thread; `tgid`: the producer's pid.  `cpu` is not in
//!   the stream: a rule that needs it cannot be checked (said once).

use vigil_model::binding::{Binding, Source};
use vigil_model::sources;
use vigil_stream::{EventDecl, EventKind};
use vigil_trace::engine::Rule;

/// Where a rule's field comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Get {
    /// The record's argument word.
    Word(usize),
    /// The matching entry's argument word (returns).
    EntryWord(usize),
    /// The record's last word (a return's value).
    Ret,
    Thread,
    Pid,
    /// Not available in a stream: the rule is skipped.
    Missing(&'static str),
}

/// One rule an event feeds, with the getter of each field it reads
/// (indexed like the rule's source fields).
#[derive(Debug, Clone)]
pub struct Route {
    /// Index into the model run's rules.
    pub rule: usize,
    pub gets: Vec<(usize, Get)>,
    /// The first missing field, if any (the rule cannot be checked).
    pub missing: Option<&'static str>,
}

/// Whether `source` names events like `decl`.
pub fn matches(source: &Source, decl: &EventDecl) -> bool {
    match source {
        Source::Call { func, .. } => decl.kind == EventKind::Entry && decl.name == *func,
        Source::Return { func, .. } => decl.kind == EventKind::Return && decl.name == *func,
        Source::Tracepoint { name } => {
            decl.kind == EventKind::Tracepoint && {
                let bare = decl.name.rsplit(':').next().unwrap_or(&decl.name);
                sources::tracepoint(name).is_some_and(|t| t.name == bare)
            }
        }
    }
}

fn getter(source: &Source, field: &'static str, decl: &EventDecl) -> Get {
    match field {
        "common_pid" => return Get::Thread,
        "tgid" => return Get::Pid,
        "cpu" => return Get::Missing("cpu"),
        _ => {}
    }
    let arg = field.strip_prefix("arg").and_then(|n| n.parse::<usize>().ok());
    match (source, arg) {
        (Source::Call { .. }, Some(i)) if i < decl.args.len() => Get::Word(i),
        (Source::Return { .. }, Some(i)) => Get::EntryWord(i),
        (Source::Return { .. }, None) if field == "ret" && !decl.args.is_empty() => Get::Ret,
        (Source::Tracepoint { .. }, _) => match decl.names.iter().position(|n| n == field) {
            Some(i) => Get::Word(i),
            None => Get::Missing(field),
        },
        _ => Get::Missing(field),
    }
}

/// The routes of one declared event through a binding's compiled rules.
pub fn routes(binding: &Binding, rules: &[Rule], decl: &EventDecl) -> Vec<Route> {
    let mut out = Vec::new();
    for (ri, r) in rules.iter().enumerate() {
        let source = &binding.rules[r.index].source;
        if !matches(source, decl) {
            continue;
        }
        let names = source.fields();
        let mut gets = Vec::new();
        let mut missing = None;
        for f in r.fields() {
            let g = getter(source, names[f], decl);
            if let Get::Missing(what) = g {
                missing.get_or_insert(what);
            }
            gets.push((f, g));
        }
        out.push(Route {
            rule: ri,
            gets,
            missing,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use vigil_stream::ArgType;

    fn decl(name: &str, kind: EventKind, args: usize, names: &[&str]) -> EventDecl {
        EventDecl {
            id: 0,
            name: name.into(),
            kind,
            args: vec![ArgType::U64; args],
            names: names.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn model() -> vigil_model::Model {
        let dot = "digraph state_automaton {
            {node [shape = plaintext, style=invis, label=\"\"] \"__init_unlocked\"};
            {node [shape = doublecircle] \"unlocked\"};
            {node [shape = circle] \"locked\"};
            \"__init_unlocked\" -> \"unlocked\";
            \"unlocked\" -> \"locked\" [ label = \"lock\" ];
            \"locked\" -> \"unlocked\" [ label = \"unlock\" ];
        }";
        vigil_model::dot::parse(Path::new("m.dot"), dot).unwrap()
    }

    #[test]
    fn calls_returns_tracepoints() {
        let m = model();
        let b = Binding::from_str(
            Path::new("m.bind"),
            "scope object\n\
             lock <- return:pthread_mutex_lock key=arg0 if ret == 0\n\
             unlock <- call:pthread_mutex_unlock key=arg0\n\
             lock <- tp:sched:sched_wakeup key=pid if cpu == 1\n",
            &m,
        )
        .unwrap();
        let c = vigil_model::compiled::compile(&m, &b).unwrap();
        let rules: Vec<Rule> = (0..b.rules.len()).map(|i| Rule::compile(&c, i)).collect();
        let ret = decl("pthread_mutex_lock", EventKind::Return, 1, &["ret"]);
        let r = routes(&b, &rules, &ret);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].missing, None);
        assert!(r[0].gets.contains(&(0, Get::EntryWord(0))) && r[0].gets.contains(&(6, Get::Ret)));
        let entry = decl("pthread_mutex_lock", EventKind::Entry, 1, &[]);
        assert!(routes(&b, &rules, &entry).is_empty());
        let unlock = decl("pthread_mutex_unlock", EventKind::Entry, 1, &[]);
        assert_eq!(routes(&b, &rules, &unlock)[0].gets, vec![(0, Get::Word(0))]);
        let tp = decl("sched:sched_wakeup", EventKind::Tracepoint, 3, &["pid", "prio", "target_cpu"]);
        let r = routes(&b, &rules, &tp);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].missing, Some("cpu"));
        let none = decl("sched:sched_wakeup", EventKind::Tracepoint, 1, &["prio"]);
        assert_eq!(routes(&b, &rules, &none)[0].missing, Some("cpu"));
    }
}
