/*
 * vigil/monitor.h — the contract for automaton monitors on C functions,
 * between three parties:
 *
 *   generated code  one C translation unit per monitor, written by
 *                   `vigil gen-monitor BINDING` (or `vigil cc
 *                   --vigil-monitor=BINDING`) from a model (.dot) and its
 *                   binding (.bind).  It holds the model as constant data,
 *                   the monitor descriptor, one hook function per binding
 *                   rule and the binding table.
 *   link-time pass  compiler/pass/MonitorBindings.cpp reads every binding
 *                   table (a constant global named
 *                   __vigil_monitor_bindings_<name>) and inserts a call of
 *                   the rule's hook at each place the rule's function is
 *                   called or returns.
 *   runtime         runtime/monitor.c: the instances' states, the
 *                   transitions, the reports.
 *
 * Nothing else crosses these boundaries (as in compiler-rt XRay, where the
 * pass and the runtime share one header).  Bump VIGIL_MONITOR_ABI with any
 * edit of the structures below.
 *
 * ---- Hooks -------------------------------------------------------------------
 *
 * A hook is `void H(int64_t arg0, ..., int64_t arg<n-1> [, int64_t ret])`:
 * `nargs` argument words, then the return value if `ret` is 1.  The pass
 * converts each value to 64 bits as C would convert it to int64_t:
 * pointers by address, integers sign-extended unless the IR marks them
 * `zeroext` (unsigned char/short, bool) — so `int` and `long` compare as
 * signed, and an `unsigned int` above INT_MAX arrives negative.  Floating
 * point and aggregate values arrive as 0, as do arguments the function
 * does not have (the pass warns).  The hook evaluates the rule's conditions
 * (binding: `if FIELD OP VALUE`, signed 64-bit), computes the instance key
 * and calls __vigil_monitor_event / __vigil_monitor_forget with constants.
 *
 * Where the pass puts the call (rule `call:F` / `return:F`):
 *   F defined in the program   in F's body: at entry / before every return
 *                              (callee side: indirect calls are seen too);
 *   F not defined (libc, .so)  around every direct call of F: before it /
 *                              after it (caller side).
 * Hooks themselves and every `__vigil_*` function are never instrumented.
 *
 * ---- Instance state ------------------------------------------------------------
 *
 * A state word is 0 while the instance is not monitored, else state + 1,
 * so zero-initialised storage means "not monitored":
 *   VIGIL_MONITOR_THREAD  per thread: `state` of the hook's TLS slot
 *                         (struct vigil_monitor_tls, a _Thread_local in the
 *                         generated unit whose address every hook passes),
 *                         or'ed with VIGIL_MONITOR_PARKED (below).
 *                         No lock: only its thread touches it.
 *   VIGIL_MONITOR_GLOBAL  one `state` in the descriptor, changed only by
 *                         compare-and-swap (the hook's and the runtime's).
 *                         The TLS slot's `state` is then 1 once the runtime
 *                         registered the thread, or'ed with PARKED, else 0.
 *   VIGIL_MONITOR_OBJECT  a hash table key -> state inside the runtime
 *                         (striped spin locks; runtime/monitor.c says why).
 *                         Also used for a per-task binding whose key is not
 *                         the current thread (`key=arg0`), and per cpu.
 * Every monitor also gets the TLS slot: the thread's events are counted
 * there (no shared cache line per event) and the runtime registers the
 * thread (on its first event, which always reaches the runtime).
 *
 * ---- The inline path (plain models, THREAD and GLOBAL scope) ---------------------
 *
 * A hook may make an allowed transition itself, without the runtime, as
 * the kernel's da_monitor.h does: the model is data, the step tiny.  Its
 * rule's event E is a constant, so the hook holds the model's column for
 * E (state + 1 -> next + 1, a `switch` the compiler makes compares or a
 * table load) and:
 *   THREAD  if the TLS `state` is a word of the column (not 0, not
 *           PARKED), stores next + 1 there;
 *   GLOBAL  if the TLS `state` is exactly 1, reads the descriptor's `state`
 *           and, if it is a word of the column, swaps in next + 1 (CAS);
 * then adds 1 to the TLS `events` (a relaxed store: other threads read it
 * for statistics) and returns.  Anything else (the event not allowed, the
 * instance not monitored, the first event, a lost CAS, `forget`) calls
 * __vigil_monitor_event / _forget, which decide as before.  A transition
 * the model allows from a monitored state does not depend on the rule's
 * mode or on has_start, so the two paths agree.
 *
 * VIGIL_MONITOR_PARKED in a TLS `state` turns the inline path off on that
 * thread: the runtime sets it in every slot of the thread (a) while it
 * runs code that may call monitored functions (a report and its handler,
 * an allocation, registration, a hybrid step), so that such events reach
 * it and are ignored as below, and (b) for good when the program runs
 * with VIGIL_FAST_PATH=0, when the thread's registration failed, and once
 * the thread's exit destructor ran (its counters are folded then).  The
 * runtime ignores the bit when it reads the state.  Object scope and
 * hybrid models have no inline path (docs/performance.md says why).
 *
 * Hybrid automata (the compiled model's kind is VK_HA: clocks, guards,
 * invariants) keep a whole `struct vk_inst` per instance, and every one of
 * them, whatever the scope, in the runtime's table: per object by its
 * key, per thread by the thread id, global under key 0.  Their invariants
 * must fire when time passes with no event, so a timer thread has to reach
 * every instance, and it cannot safely reach another thread's TLS
 * (runtime/monitor_hybrid.c says more).  Their hooks call
 * __vigil_monitor_hybrid with the fields the guards read; plain models
 * never take that path.
 *
 * ---- Semantics (cli/model/src/binding.rs) ---------------------------------------
 *
 * Rule mode plain / start / run as the kernel's da_handle_event /
 * da_handle_start_event / da_handle_start_run_event.  A monitor without any
 * start or run rule (has_start == 0) starts an instance in the initial
 * state at its first event.  An event the model does not allow in the
 * current state is a violation `monitor-invalid-event`; then the instance
 * is reset as the kernel's da_monitor_reset does, and as vigil's other
 * engines do (docs/models.md): unmonitored until its next start event if
 * the binding has start rules, else back in the initial state.  `forget`
 * ends the instance; in a
 * state that is not final that is a violation `not-final`.  With
 * check_exit, instances still monitored in a non-final state when their
 * thread exits (per-thread) or the program exits are violations
 * `not-final-at-exit`.
 *
 * Hybrid: a false guard is a violation `monitor-guard`, an expired
 * invariant `monitor-invariant` (reported by the timer thread as soon as it
 * expires, or by the event that finds it expired), both followed by the
 * same reset.  Time is CLOCK_MONOTONIC in nanoseconds.
 */
#ifndef VIGIL_MONITOR_H
#define VIGIL_MONITOR_H

#include <stdint.h>

#define VIGIL_MONITOR_ABI 4

#define VIGIL_MONITOR_MAX_STATES 65533  /* as the compiled model (vigil/vk.h)  */
#define VIGIL_MONITOR_MAX_EVENTS 65533
#define VIGIL_MONITOR_MAX_ARGS 6        /* arg0..arg5                          */
#define VIGIL_MONITOR_FORGET 0xffffffffu /* vigil_monitor_rule.event: forget   */
#define VIGIL_MONITOR_MAX_FIELDS 16     /* a hybrid hook's fields (vk.h's VK_MAX_FIELDS) */
#define VIGIL_MONITOR_PARKED 0x80000000u /* in a TLS state: no inline path */

/* Where instances live (vigil_monitor.scope). */
enum vigil_monitor_scope {
  VIGIL_MONITOR_GLOBAL = 0,
  VIGIL_MONITOR_THREAD = 1,
  VIGIL_MONITOR_OBJECT = 2
};

/* vigil_monitor_rule.mode */
enum vigil_monitor_mode {
  VIGIL_MONITOR_PLAIN = 0,
  VIGIL_MONITOR_START = 1,
  VIGIL_MONITOR_RUN = 2
};

/* __vigil_monitor_field(which): the binding's common fields. */
enum vigil_monitor_field {
  VIGIL_MONITOR_FIELD_TID = 0,  /* common_pid: the calling thread's id      */
  VIGIL_MONITOR_FIELD_TGID = 1, /* tgid: the process id                     */
  VIGIL_MONITOR_FIELD_CPU = 2   /* cpu: sched_getcpu()                      */
};

/* A guard or an invariant of a hybrid automaton as the model writes it,
 * for reports (the compiled model holds it as numbers only). */
struct vigil_monitor_constraint {
  const char *text;  /* "clk < 50ms"; NULL: none (a state with no invariant) */
  uint32_t line;     /* its line in the model file                          */
  uint32_t reserved;
};

/* A deterministic automaton (kernel dot2c order: initial state first).
 * The transitions, final states and rules are the compiled model, the one
 * numeric form every vigil engine reads (vigil/vk.h); the runtime steps it
 * with vk_decide().  The names and constraints are for reports. */
struct vigil_monitor_model {
  const char *name;                /* "mutex"                                */
  const char *path;                /* the .dot file, as the generator saw it */
  const char *const *state_names;  /* nstates                                */
  const char *const *event_names;  /* nevents                                */
  const uint64_t *compiled;        /* the compiled model, 8-aligned          */
  uint32_t compiled_size;          /* its bytes                              */
  uint32_t nstates;
  uint32_t nevents;
  uint32_t nguards;                /* hybrid: the compiled model's guards    */
  const struct vigil_monitor_constraint *guards;     /* nguards, or NULL    */
  const struct vigil_monitor_constraint *invariants; /* nstates, or NULL    */
};

/* One binding rule, for the runtime and its reports. */
struct vigil_monitor_rule {
  const char *text;    /* the rule, normalised: "lock <- return:f if ret == 0" */
  const char *source;  /* "return:pthread_mutex_lock"                          */
  uint32_t line;       /* line in the binding file                             */
  uint32_t event;      /* model event index, or VIGIL_MONITOR_FORGET           */
  uint8_t mode;        /* enum vigil_monitor_mode                              */
  uint8_t reserved[7];
};

/* One per monitor, writable: the runtime owns the fields after `reserved0`
 * (zero-initialised). */
struct vigil_monitor {
  const char *name;                       /* binding file stem: "mutex"       */
  const char *binding;                    /* binding file path                */
  const char *scope_text;                 /* as the binding says: "object"    */
  const struct vigil_monitor_model *model;
  const struct vigil_monitor_rule *rules; /* nrules                           */
  uint32_t nrules;
  uint32_t abi;                           /* VIGIL_MONITOR_ABI                */
  uint8_t scope;                          /* enum vigil_monitor_scope         */
  uint8_t has_start;                      /* some rule has mode start or run  */
  uint8_t check_exit;                     /* report not-final-at-exit         */
  uint8_t reserved0[5];
  /* ---- libvigil's ---- */
  uint32_t reserved1;                     /* (was a spin lock, ABI 3)         */
  uint32_t state;                         /* GLOBAL: 0, or state + 1; CAS only */
  void *runtime;                          /* bookkeeping, object table        */
};

/* Per monitor and thread: a zero-initialised _Thread_local in the generated
 * unit; hooks pass its address.  `state` is the THREAD scope's state; the
 * rest is libvigil's. */
struct vigil_monitor_tls {
  uint32_t state;      /* THREAD: 0, or state + 1; GLOBAL: 1 registered; | PARKED */
  uint32_t flags;      /* libvigil                                         */
  uint64_t events;     /* events this thread delivered (hooks add theirs)  */
  void *runtime;       /* libvigil: this thread's registration             */
};

/* The binding table the pass reads: one constant global array
 * `__vigil_monitor_bindings_<name>` of these, one entry per rule in rule
 * order, marked __attribute__((used)).  The layout has no padding, so the
 * pass reads the initializer's fields in order. */
struct vigil_monitor_binding {
  const char *function;  /* the C function (symbol) name                    */
  const char *where;     /* "file.bind:7", for the pass's warnings          */
  void (*hook)(void);    /* the hook; its real type is described above      */
  uint32_t abi;          /* VIGIL_MONITOR_ABI                               */
  uint8_t at_return;     /* 0: call:F (entry), 1: return:F                  */
  uint8_t nargs;         /* argument words the hook takes (<= 6)            */
  uint8_t ret;           /* 1: the return value follows the arguments       */
  uint8_t reserved;
};

#define VIGIL_MONITOR_BINDINGS_PREFIX "__vigil_monitor_bindings_"

#ifdef __cplusplus
extern "C" {
#endif

/* Deliver rule `rule`'s event (m->rules[rule].event, .mode) to the instance
 * `key` (OBJECT scope; ignored otherwise).  `tls` is the monitor's slot for
 * the calling thread.  Events raised while the runtime itself is running on
 * this thread (a violation handler calling monitored code) are ignored. */
void __vigil_monitor_event(struct vigil_monitor *m, struct vigil_monitor_tls *tls,
                           uint32_t rule, uint64_t key);
/* A `forget` rule: end the instance `key`; a violation if it is monitored
 * and not in a final state. */
void __vigil_monitor_forget(struct vigil_monitor *m, struct vigil_monitor_tls *tls,
                            uint32_t rule, uint64_t key);
/* The common fields (enum vigil_monitor_field); the thread id is cached. */
int64_t __vigil_monitor_field(uint32_t which);
/* A rule of a hybrid automaton, its event or `forget`: as the two above,
 * with the event's time (read here) and `fields`, VIGIL_MONITOR_MAX_FIELDS
 * values numbered as the rule's source numbers its fields (arg0..arg5
 * [, ret], common_pid, tgid, cpu).  Only those the guards on the rule's
 * event read need be set.  `key` is ignored for THREAD (the thread id)
 * and GLOBAL scopes. */
void __vigil_monitor_hybrid(struct vigil_monitor *m, struct vigil_monitor_tls *tls,
                            uint32_t rule, uint64_t key, const int64_t *fields);
/* For tests (the conformance driver): when the program runs with
 * VIGIL_MONITOR_CLOCK=manual, hybrid monitors read their time from here,
 * no timer thread runs, and this call fires, on the calling thread and
 * before it returns, every invariant that expired by `ns`, earliest first.
 * Time must not go backwards.  Without that variable it does nothing. */
void __vigil_monitor_set_time(uint64_t ns);

#ifdef __cplusplus
}
#endif

#endif /* VIGIL_MONITOR_H */
