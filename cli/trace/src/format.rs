//! How each tracepoint of the catalogue ([`vigil_model::sources`]) prints in
//! ftrace text, and reading its fields from a line.
//!
//! Two shapes exist:
//!
//! * the kernel's `print fmt`, `key=value` pairs (`trace_pipe`, `trace`,
//!   `trace-cmd report` without a plugin for the event);
//! * the libtraceevent sched plugin that `trace-cmd report` uses for
//!   sched_switch and sched_wakeup(_new):
//!   `prev_comm:prev_pid [prio] S ==> next_comm:next_pid [prio]` and
//!   `comm:pid [prio] CPU:003`.
//!
//! In `key=value` text a comm may hold spaces: a token starts a new field
//! only when it reads `KEY=` for a key of the event that comes after the
//! current one in the print format; other tokens continue the current
//! field when it is a string (a comm) and are ignored after a number.

use crate::line::{find, parse_dec, parse_int, rfind, rfind_byte, trim_end};

/// How a value prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A decimal or `0x` hex number.
    Int,
    /// Free text (a comm, a name): never read as a number.
    Str,
    /// A task state in letters (`S`, `R+`, `D|W`).
    State,
    /// `handled` (1) / `unhandled` (0).
    IrqRet,
}

/// Which parser a `trace-cmd report` line of this event may need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plugin {
    None,
    Switch,
    Wakeup,
}

/// A tracepoint's ftrace text.
#[derive(Debug)]
pub struct Format {
    pub name: &'static str,
    /// The print format's keys, in order.
    pub keys: &'static [(&'static str, Kind)],
    pub plugin: Plugin,
}

/// At most this many keys per format.
pub const MAX_KEYS: usize = 8;

const WAKEUP_KEYS: &[(&str, Kind)] = &[
    ("comm", Kind::Str),
    ("pid", Kind::Int),
    ("prio", Kind::Int),
    // Kernels before 4.x printed it; harmless when absent.
    ("success", Kind::Int),
    ("target_cpu", Kind::Int),
];

const FAULT_KEYS: &[(&str, Kind)] = &[
    ("address", Kind::Int),
    ("ip", Kind::Int),
    ("error_code", Kind::Int),
];

pub const FORMATS: &[Format] = &[
    Format {
        name: "sched_switch",
        keys: &[
            ("prev_comm", Kind::Str),
            ("prev_pid", Kind::Int),
            ("prev_prio", Kind::Int),
            ("prev_state", Kind::State),
            ("next_comm", Kind::Str),
            ("next_pid", Kind::Int),
            ("next_prio", Kind::Int),
        ],
        plugin: Plugin::Switch,
    },
    Format {
        name: "sched_wakeup",
        keys: WAKEUP_KEYS,
        plugin: Plugin::Wakeup,
    },
    Format {
        name: "sched_wakeup_new",
        keys: WAKEUP_KEYS,
        plugin: Plugin::Wakeup,
    },
    // trace-cmd's plugin does not handle sched_waking, but accept its shape
    // too should a version do so.
    Format {
        name: "sched_waking",
        keys: WAKEUP_KEYS,
        plugin: Plugin::Wakeup,
    },
    Format {
        name: "sched_process_exit",
        keys: &[
            ("comm", Kind::Str),
            ("pid", Kind::Int),
            ("prio", Kind::Int),
            ("group_dead", Kind::Str),
        ],
        plugin: Plugin::None,
    },
    Format {
        name: "sched_process_fork",
        keys: &[
            ("comm", Kind::Str),
            ("pid", Kind::Int),
            ("child_comm", Kind::Str),
            ("child_pid", Kind::Int),
        ],
        plugin: Plugin::None,
    },
    Format {
        name: "irq_handler_entry",
        keys: &[("irq", Kind::Int), ("name", Kind::Str)],
        plugin: Plugin::None,
    },
    Format {
        name: "irq_handler_exit",
        keys: &[("irq", Kind::Int), ("ret", Kind::IrqRet)],
        plugin: Plugin::None,
    },
    Format {
        name: "page_fault_user",
        keys: FAULT_KEYS,
        plugin: Plugin::None,
    },
    Format {
        name: "page_fault_kernel",
        keys: FAULT_KEYS,
        plugin: Plugin::None,
    },
    Format {
        name: "signal_deliver",
        keys: &[
            ("sig", Kind::Int),
            ("errno", Kind::Int),
            ("code", Kind::Int),
            ("sa_handler", Kind::Str),
            ("sa_flags", Kind::Str),
        ],
        plugin: Plugin::None,
    },
    // preemptirq: ftrace prints `caller=sym+0x17/0x40 parent=sym+0x2/0x10`,
    // symbols rather than numbers: a rule that compares them (live, they
    // are addresses) gets a malformed-line warning here.
    Format { name: "preempt_disable", keys: PREEMPTIRQ_KEYS, plugin: Plugin::None },
    Format { name: "preempt_enable", keys: PREEMPTIRQ_KEYS, plugin: Plugin::None },
    Format { name: "irq_disable", keys: PREEMPTIRQ_KEYS, plugin: Plugin::None },
    Format { name: "irq_enable", keys: PREEMPTIRQ_KEYS, plugin: Plugin::None },
];

const PREEMPTIRQ_KEYS: &[(&str, Kind)] = &[("caller", Kind::Int), ("parent", Kind::Int)];

pub fn format(tracepoint: &str) -> Option<&'static Format> {
    FORMATS.iter().find(|f| f.name == tracepoint)
}

/// Where a catalogue field's value comes from in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldSrc {
    /// The value of `keys[i]`.
    Key(usize, Kind),
    /// sched_switch's `preempt`: 1 when prev_state is `R+`.
    Preempt(usize),
}

/// The source of catalogue field `field` of `fmt` (names are ftrace's, but
/// for a few the catalogue renames).
pub fn field_source(fmt: &Format, field: &str) -> Option<FieldSrc> {
    let key = match (fmt.name, field) {
        ("sched_switch", "preempt") => {
            let i = fmt.keys.iter().position(|k| k.0 == "prev_state")?;
            return Some(FieldSrc::Preempt(i));
        }
        ("sched_process_fork", "parent_pid") => "pid",
        (_, f) => f,
    };
    let i = fmt.keys.iter().position(|k| k.0 == key)?;
    Some(FieldSrc::Key(i, fmt.keys[i].1))
}

/// The values found on one line: byte ranges into the fields text.
#[derive(Debug, Clone, Copy)]
pub struct Found {
    start: [u32; MAX_KEYS],
    end: [u32; MAX_KEYS],
    /// Read through the trace-cmd plugin (task states use its letters).
    pub plugin: bool,
    /// The text broke the format (a key out of order after a number).
    pub broken: bool,
}

const ABSENT: u32 = u32::MAX;

impl Found {
    /// Nothing found (for events whose rules need no field of the text).
    pub fn empty() -> Found {
        Found::new()
    }

    fn new() -> Found {
        Found {
            start: [ABSENT; MAX_KEYS],
            end: [ABSENT; MAX_KEYS],
            plugin: false,
            broken: false,
        }
    }

    #[inline]
    fn set(&mut self, i: usize, start: usize, end: usize) {
        self.start[i] = start as u32;
        self.end[i] = end as u32;
    }

    #[inline]
    pub fn get<'a>(&self, text: &'a [u8], i: usize) -> Option<&'a [u8]> {
        if self.start[i] == ABSENT {
            None
        } else {
            Some(&text[self.start[i] as usize..self.end[i] as usize])
        }
    }
}

/// Short byte strings equal (a loop beats a `memcmp` call for names).
#[inline(always)]
pub fn eq_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// `tok` starts with `key` then `=`.
#[inline(always)]
fn is_key(tok: &[u8], key: &[u8]) -> bool {
    tok.len() > key.len() && tok[key.len()] == b'=' && eq_bytes(&tok[..key.len()], key)
}

/// Split an event's text into its fields, reading `key=value` text only
/// up to key `stop` (the last one needed).
pub fn split(fmt: &Format, text: &[u8], stop: usize) -> Found {
    let first = fmt.keys[0].0.as_bytes();
    let kv = is_key(text, first);
    if !kv {
        let mut f = Found::new();
        let ok = match fmt.plugin {
            Plugin::Switch => plugin_switch(text, &mut f),
            Plugin::Wakeup => plugin_wakeup(text, &mut f),
            Plugin::None => false,
        };
        if ok {
            f.plugin = true;
            return f;
        }
    }
    split_kv(fmt.keys, text, stop)
}

fn split_kv(keys: &[(&str, Kind)], text: &[u8], stop: usize) -> Found {
    let mut f = Found::new();
    let n = text.len();
    let mut cur: usize = usize::MAX; // no field yet
    let mut i = 0;
    while i < n {
        while i < n && text[i] == b' ' {
            i += 1;
        }
        if i >= n {
            break;
        }
        let start = i;
        while i < n && text[i] != b' ' {
            i += 1;
        }
        let tok = &text[start..i];
        let from = cur.wrapping_add(1);
        // Fast path: the next key in the format.
        if from < keys.len() && is_key(tok, keys[from].0.as_bytes()) {
            cur = from;
            f.set(cur, start + keys[cur].0.len() + 1, i);
            if cur >= stop && keys[cur].1 != Kind::Str {
                break;
            }
            continue;
        }
        let mut started = false;
        if let Some(eq) = tok.iter().position(|&c| c == b'=') {
            let name = &tok[..eq];
            if let Some(j) = keys[from.min(keys.len())..]
                .iter()
                .position(|k| eq_bytes(k.0.as_bytes(), name))
            {
                cur = from + j;
                f.set(cur, start + eq + 1, i);
                if cur >= stop && keys[cur].1 != Kind::Str {
                    break;
                }
                started = true;
            } else if cur != usize::MAX
                && keys[cur].1 != Kind::Str
                && keys[..=cur].iter().any(|k| eq_bytes(k.0.as_bytes(), name))
            {
                // A key again, or out of order, after a number.
                f.broken = true;
            }
        }
        if !started && cur != usize::MAX && keys[cur].1 == Kind::Str {
            f.end[cur] = i as u32; // a comm with spaces
        }
    }
    f
}

/// `[digits]` ending at `end` (exclusive) of `s`: the position of `[`.
fn bracket_before(s: &[u8], end: usize) -> Option<usize> {
    let s = &s[..end];
    if s.last() != Some(&b']') {
        return None;
    }
    let open = rfind_byte(s, b'[')?;
    let inner = &s[open + 1..s.len() - 1];
    let inner = inner.strip_prefix(b"-").unwrap_or(inner);
    parse_dec(inner)?;
    Some(open)
}

/// `COMM:PID` in `s[..end]`: sets key `pid_key` (and `comm_key`).
fn comm_pid(
    s: &[u8],
    start: usize,
    end: usize,
    comm_key: usize,
    pid_key: usize,
    f: &mut Found,
) -> bool {
    let part = &s[start..end];
    let colon = match rfind_byte(part, b':') {
        Some(c) => c,
        None => return false,
    };
    if parse_dec(&part[colon + 1..]).is_none() {
        return false;
    }
    f.set(comm_key, start, start + colon);
    f.set(pid_key, start + colon + 1, end);
    true
}

#[inline]
fn trimmed_end(s: &[u8], end: usize) -> usize {
    trim_end(&s[..end]).len()
}

/// `prev_comm:prev_pid [prev_prio] STATE ==> next_comm:next_pid [next_prio]`
fn plugin_switch(s: &[u8], f: &mut Found) -> bool {
    let arrow = match find(s, b" ==> ") {
        Some(a) => a,
        None => return false,
    };
    // Left: ... STATE
    let mut end = trimmed_end(s, arrow);
    let sp = match rfind_byte(&s[..end], b' ') {
        Some(sp) => sp,
        None => return false,
    };
    f.set(3, sp + 1, end); // prev_state
    end = trimmed_end(s, sp);
    if let Some(open) = bracket_before(s, end) {
        f.set(2, open + 1, end - 1); // prev_prio
        end = trimmed_end(s, open);
    }
    let start = s.iter().position(|&c| c != b' ').unwrap_or(0).min(end);
    if !comm_pid(s, start, end, 0, 1, f) {
        return false;
    }
    // Right: next_comm:next_pid [next_prio]
    let rstart = arrow + 5;
    let mut end = trimmed_end(s, s.len()).max(rstart);
    if let Some(open) = bracket_before(s, end) {
        if open >= rstart {
            f.set(6, open + 1, end - 1);
            end = trimmed_end(s, open).max(rstart);
        }
    }
    comm_pid(s, rstart, end, 4, 5, f)
}

/// `comm:pid [prio] [success=1] CPU:003` (the success part may also be
/// `<CANT FIND FIELD success>` from some libtraceevent versions).
fn plugin_wakeup(s: &[u8], f: &mut Found) -> bool {
    let mut end = trimmed_end(s, s.len());
    if let Some(c) = rfind(&s[..end], b" CPU:") {
        if parse_dec(&s[c + 5..end]).is_some() {
            f.set(4, c + 5, end);
            end = trimmed_end(s, c);
        }
    }
    if let Some(c) = rfind(&s[..end], b"<CANT FIND FIELD success>") {
        end = trimmed_end(s, c);
    }
    if let Some(c) = rfind(&s[..end], b" success=") {
        if parse_dec(&s[c + 9..end]).is_some() {
            f.set(3, c + 9, end);
            end = trimmed_end(s, c);
        }
    }
    if let Some(open) = bracket_before(s, end) {
        f.set(2, open + 1, end - 1);
        end = trimmed_end(s, open);
    }
    comm_pid(s, 0, end, 0, 1, f)
}

/// A task state as ftrace prints it (`S`, `R+`, `D|K`), as
/// [`vigil_model::sources::task_state_code`] numbers it.
#[inline]
pub fn ftrace_state(v: &[u8]) -> Option<i64> {
    if v.len() == 1 {
        return Some(match v[0] {
            b'R' => 0,
            b'S' => 1,
            b'D' => 2,
            b'T' => 4,
            b't' => 8,
            b'X' => 16,
            b'Z' => 32,
            b'P' => 64,
            b'I' => 128,
            _ => return None,
        });
    }
    vigil_model::sources::task_state_code(std::str::from_utf8(v).ok()?)
}

/// A task state as trace-cmd's sched plugin prints it.  The plugin names
/// the low eight bits of the raw value `SDTtZXxW` (an older kernel's
/// letters), and `R` when none is set: the letters are turned back into
/// the raw bits, which are what bindings compare against (the kernel's
/// X is the plugin's Z, and so on).  A preempted task prints as `R`.
pub fn plugin_state(v: &[u8]) -> Option<i64> {
    if v == b"R" {
        return Some(0);
    }
    let mut code = 0;
    for part in v.split(|&c| c == b'|') {
        if part.len() != 1 {
            return None;
        }
        let bit = b"SDTtZXxW".iter().position(|&c| c == part[0])?;
        code |= 1 << bit;
    }
    Some(code)
}

/// Read a value of `kind`.
#[inline]
pub fn value(kind: Kind, v: &[u8], plugin: bool) -> Option<i64> {
    match kind {
        Kind::Int => parse_int(v),
        Kind::State if plugin => plugin_state(v),
        Kind::State => ftrace_state(v),
        Kind::IrqRet => match v {
            b"handled" => Some(1),
            b"unhandled" => Some(0),
            _ => parse_int(v),
        },
        Kind::Str => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vigil_model::sources::TRACEPOINTS;

    fn get(fmt: &str, text: &str, key: &str) -> Option<String> {
        let fmt = format(fmt).unwrap();
        let f = split(fmt, text.as_bytes(), usize::MAX);
        let i = fmt.keys.iter().position(|k| k.0 == key).unwrap();
        f.get(text.as_bytes(), i)
            .map(|v| String::from_utf8(v.to_vec()).unwrap())
    }

    #[test]
    fn every_offline_tracepoint_has_a_format_for_each_field() {
        for tp in TRACEPOINTS.iter().filter(|t| !t.system.is_empty()) {
            let fmt = format(tp.name).unwrap_or_else(|| panic!("no format for {}", tp.name));
            assert!(fmt.keys.len() <= MAX_KEYS);
            for f in tp.fields {
                assert!(field_source(fmt, f).is_some(), "{}.{f}", tp.name);
            }
        }
    }

    const SWITCH: &str = "prev_comm=kworker/0:1 prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120";

    #[test]
    fn key_value_switch() {
        assert_eq!(
            get("sched_switch", SWITCH, "prev_comm").as_deref(),
            Some("kworker/0:1")
        );
        assert_eq!(
            get("sched_switch", SWITCH, "prev_pid").as_deref(),
            Some("12")
        );
        assert_eq!(
            get("sched_switch", SWITCH, "prev_state").as_deref(),
            Some("S")
        );
        assert_eq!(
            get("sched_switch", SWITCH, "next_pid").as_deref(),
            Some("0")
        );
        assert_eq!(
            get("sched_switch", SWITCH, "next_prio").as_deref(),
            Some("120")
        );
    }

    #[test]
    fn comms_with_spaces_and_equals() {
        let t = "prev_comm=Web Content prev_pid=7 prev_prio=120 prev_state=R+ ==> next_comm=DOM Worker x=1 next_pid=8 next_prio=120";
        assert_eq!(
            get("sched_switch", t, "prev_comm").as_deref(),
            Some("Web Content")
        );
        assert_eq!(get("sched_switch", t, "prev_pid").as_deref(), Some("7"));
        assert_eq!(get("sched_switch", t, "prev_state").as_deref(), Some("R+"));
        assert_eq!(
            get("sched_switch", t, "next_comm").as_deref(),
            Some("DOM Worker x=1")
        );
        assert_eq!(get("sched_switch", t, "next_pid").as_deref(), Some("8"));
        // A next_comm that pretends to be an earlier field does not override it.
        let t = "prev_comm=a prev_pid=7 prev_prio=1 prev_state=S ==> next_comm=b prev_pid=9 next_pid=8 next_prio=1";
        assert_eq!(get("sched_switch", t, "prev_pid").as_deref(), Some("7"));
        assert_eq!(get("sched_switch", t, "next_pid").as_deref(), Some("8"));
        // A repeated key after a number breaks the line.
        let f = split(
            format("sched_wakeup").unwrap(),
            b"comm=a pid=1 pid=2 prio=3 target_cpu=001",
            usize::MAX,
        );
        assert!(f.broken);
    }

    #[test]
    fn stops_after_the_last_needed_key() {
        let fmt = format("sched_wakeup").unwrap();
        let t = b"comm=a pid=5 prio=120 target_cpu=001";
        let f = split(fmt, t, 1);
        assert_eq!(f.get(t, 1), Some(&b"5"[..]));
        assert_eq!(f.get(t, 2), None);
        let f = split(fmt, t, 4);
        assert_eq!(f.get(t, 4), Some(&b"001"[..]));
    }

    #[test]
    fn key_value_wakeup_old_and_new() {
        let t = "comm=rcu_preempt pid=15 prio=120 target_cpu=001";
        assert_eq!(get("sched_wakeup", t, "pid").as_deref(), Some("15"));
        assert_eq!(get("sched_wakeup", t, "target_cpu").as_deref(), Some("001"));
        let t = "comm=rcu_preempt pid=15 prio=120 success=1 target_cpu=001";
        assert_eq!(get("sched_wakeup", t, "success").as_deref(), Some("1"));
        assert_eq!(get("sched_wakeup", t, "target_cpu").as_deref(), Some("001"));
        let t = "comm=x pid=15";
        assert_eq!(get("sched_wakeup", t, "prio"), None);
    }

    #[test]
    fn plugin_switch_format() {
        let t = "kworker/0:1:12 [120] S ==> swapper/0:0 [120]";
        let fmt = format("sched_switch").unwrap();
        let f = split(fmt, t.as_bytes(), usize::MAX);
        assert!(f.plugin);
        assert_eq!(
            get("sched_switch", t, "prev_comm").as_deref(),
            Some("kworker/0:1")
        );
        assert_eq!(get("sched_switch", t, "prev_pid").as_deref(), Some("12"));
        assert_eq!(get("sched_switch", t, "prev_prio").as_deref(), Some("120"));
        assert_eq!(get("sched_switch", t, "prev_state").as_deref(), Some("S"));
        assert_eq!(
            get("sched_switch", t, "next_comm").as_deref(),
            Some("swapper/0")
        );
        assert_eq!(get("sched_switch", t, "next_pid").as_deref(), Some("0"));
        assert_eq!(get("sched_switch", t, "next_prio").as_deref(), Some("120"));
        let t = "Web Content:7 [-51] D|W ==> a b:8";
        assert_eq!(
            get("sched_switch", t, "prev_comm").as_deref(),
            Some("Web Content")
        );
        assert_eq!(get("sched_switch", t, "prev_prio").as_deref(), Some("-51"));
        assert_eq!(get("sched_switch", t, "prev_state").as_deref(), Some("D|W"));
        assert_eq!(get("sched_switch", t, "next_pid").as_deref(), Some("8"));
        assert_eq!(get("sched_switch", t, "next_prio"), None);
    }

    #[test]
    fn plugin_wakeup_format() {
        for t in [
            "sshd:567 [120] CPU:003",
            "sshd:567 [120] success=1 CPU:003",
            "sshd:567 [120]<CANT FIND FIELD success> CPU:003",
        ] {
            assert_eq!(
                get("sched_wakeup", t, "comm").as_deref(),
                Some("sshd"),
                "{t}"
            );
            assert_eq!(get("sched_wakeup", t, "pid").as_deref(), Some("567"), "{t}");
            assert_eq!(
                get("sched_wakeup", t, "prio").as_deref(),
                Some("120"),
                "{t}"
            );
            assert_eq!(
                get("sched_wakeup", t, "target_cpu").as_deref(),
                Some("003"),
                "{t}"
            );
        }
        assert_eq!(
            get("sched_wakeup_new", "a:b:9", "pid").as_deref(),
            Some("9")
        );
    }

    #[test]
    fn fast_state_letters_agree_with_the_catalogue() {
        for l in ["R", "S", "D", "T", "t", "X", "Z", "P", "I", "R+", "S|D", "K"] {
            assert_eq!(
                ftrace_state(l.as_bytes()),
                vigil_model::sources::task_state_code(l),
                "{l}"
            );
        }
    }

    #[test]
    fn states() {
        assert_eq!(ftrace_state(b"S"), Some(1));
        assert_eq!(ftrace_state(b"R+"), Some(256));
        assert_eq!(ftrace_state(b"X"), Some(16));
        assert_eq!(ftrace_state(b"S|D"), Some(3));
        assert_eq!(ftrace_state(b"?"), None);
        assert_eq!(plugin_state(b"R"), Some(0));
        assert_eq!(plugin_state(b"S"), Some(1));
        assert_eq!(plugin_state(b"D|W"), Some(2 | 128));
        assert_eq!(plugin_state(b"Z"), Some(16));
        assert_eq!(plugin_state(b"R+"), None);
        assert_eq!(value(Kind::IrqRet, b"handled", false), Some(1));
        assert_eq!(value(Kind::IrqRet, b"unhandled", false), Some(0));
        assert_eq!(value(Kind::Str, b"1", false), None);
    }
}
