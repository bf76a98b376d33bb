//! The event sources vigil knows, and the fields each one carries.
//!
//! This table is the contract between the binding language, the offline
//! checker (which reads the fields from ftrace text) and the eBPF monitor
//! (bpf/, which fills the same fields, in the same order, from the
//! tracepoint's arguments).  `bpf/fields.h` mirrors it; a test compares the
//! two.
//!
//! Every source also has the common fields [`COMMON`]: the current task's
//! thread id (`common_pid`, as ftrace names it), its process id (`tgid`) and
//! the cpu.

/// Fields every event has, whatever its source.
pub const COMMON: &[&str] = &["common_pid", "tgid", "cpu"];

/// A tracepoint vigil can read offline and attach to live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tracepoint {
    /// Subsystem in tracefs (`sched`); "" for bare tracepoints that have no
    /// trace event (`sched_entry_tp`): those can be attached to live
    /// (tp_btf) but never appear in an ftrace text trace.
    pub system: &'static str,
    pub name: &'static str,
    /// The tracepoint's own fields, in the order the eBPF monitor fills them.
    pub fields: &'static [&'static str],
}

/// The catalogue.  Field names are ftrace's where the event has a trace
/// event; `prev_state` is normalised (see [`task_state_code`]).
pub const TRACEPOINTS: &[Tracepoint] = &[
    Tracepoint {
        system: "sched",
        name: "sched_switch",
        fields: &["prev_pid", "prev_state", "next_pid", "prev_prio", "next_prio", "preempt"],
    },
    Tracepoint { system: "sched", name: "sched_wakeup", fields: &["pid", "prio", "target_cpu"] },
    Tracepoint { system: "sched", name: "sched_wakeup_new", fields: &["pid", "prio", "target_cpu"] },
    Tracepoint { system: "sched", name: "sched_waking", fields: &["pid", "prio", "target_cpu"] },
    Tracepoint { system: "sched", name: "sched_process_exit", fields: &["pid", "prio"] },
    Tracepoint { system: "sched", name: "sched_process_fork", fields: &["parent_pid", "child_pid"] },
    Tracepoint { system: "", name: "sched_entry_tp", fields: &["preempt"] },
    Tracepoint { system: "", name: "sched_exit_tp", fields: &[] },
    Tracepoint { system: "", name: "sched_set_need_resched_tp", fields: &["pid", "target_cpu", "tif"] },
    Tracepoint { system: "irq", name: "irq_handler_entry", fields: &["irq"] },
    Tracepoint { system: "irq", name: "irq_handler_exit", fields: &["irq", "ret"] },
    Tracepoint { system: "exceptions", name: "page_fault_user", fields: &["address", "ip", "error_code"] },
    Tracepoint { system: "exceptions", name: "page_fault_kernel", fields: &["address", "ip", "error_code"] },
    Tracepoint { system: "signal", name: "signal_deliver", fields: &["sig", "errno", "code"] },
    // Only in kernels built with the preempt/irqsoff tracers; live monitors
    // say so when the running kernel lacks them.
    Tracepoint { system: "preemptirq", name: "preempt_disable", fields: &["caller", "parent"] },
    Tracepoint { system: "preemptirq", name: "preempt_enable", fields: &["caller", "parent"] },
    Tracepoint { system: "preemptirq", name: "irq_disable", fields: &["caller", "parent"] },
    Tracepoint { system: "preemptirq", name: "irq_enable", fields: &["caller", "parent"] },
];

/// Look a tracepoint up by name (`sched_switch`), with or without its
/// system (`sched:sched_switch`).
pub fn tracepoint(name: &str) -> Option<&'static Tracepoint> {
    let (system, bare) = match name.split_once(':') {
        Some((s, n)) => (Some(s), n),
        None => (None, name),
    };
    TRACEPOINTS
        .iter()
        .find(|t| t.name == bare && system.is_none_or(|s| s == t.system || s.is_empty()))
}

/// Fields of a function call event (`call:f`): its first six integer or
/// pointer arguments.
pub const CALL_FIELDS: &[&str] = &["arg0", "arg1", "arg2", "arg3", "arg4", "arg5"];
/// Fields of a function return event (`return:f`): the arguments, then the
/// return value.
pub const RETURN_FIELDS: &[&str] = &["arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "ret"];

/// ftrace's task-state letters (`prev_state=S`) as the numbers bindings
/// compare against, the same offline and live:
/// R 0, S 1, D 2, T 4, t 8, X 16, Z 32, P 64, I 128, and R+ (preempted
/// while runnable) 256.  Returns `None` for an unknown letter.
pub fn task_state_code(s: &str) -> Option<i64> {
    Some(match s {
        "R" => 0,
        "S" => 1,
        "D" => 2,
        "T" => 4,
        "t" => 8,
        "X" => 16,
        "Z" => 32,
        "P" => 64,
        "I" => 128,
        "R+" => 256,
        _ => {
            // ftrace joins several letters with '|' (e.g. "D|K"): or them.
            if s.contains('|') {
                let mut v = 0;
                for part in s.split('|') {
                    v |= task_state_code(part)?;
                }
                return Some(v);
            }
            return None;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_with_and_without_system() {
        assert_eq!(tracepoint("sched_switch").unwrap().fields[0], "prev_pid");
        assert!(tracepoint("sched:sched_switch").is_some());
        assert!(tracepoint("irq:sched_switch").is_none());
        assert!(tracepoint("sched_entry_tp").is_some());
        assert!(tracepoint("no_such_tp").is_none());
    }

    #[test]
    fn task_states() {
        assert_eq!(task_state_code("S"), Some(1));
        assert_eq!(task_state_code("R+"), Some(256));
        assert_eq!(task_state_code("D|K"), None);
        assert_eq!(task_state_code("S|D"), Some(3));
    }
}
