/*
 * vigil_lwip.c — the assertions of the safer lwIP interface (vigil_lwip.h).
 *
 * Every wrapped callback runs
 *
 *   vigil_lwip_begin(); vigil_lwip_live() or vigil_lwip_dead(); app(...); vigil_lwip_end();
 *
 * and each assertion below looks, at its site in vigil_lwip_end(), at the
 * calls the application made since vigil_lwip_live() or vigil_lwip_dead():
 * the pattern is a regular expression over those calls, and `previously`
 * means "the calls since the marker form a word of it".
 *
 * The shape is chosen so that the static checker can prove the assertions
 * (README.md, "Why these assertions are provable"): the checker must assume
 * that any call into lwIP or libc may run any wrapped callback in between,
 * and such a nested callback brings its own marker and reaches the same
 * sites, where its own calls are checked; the outer callback is checked on
 * the path without it.  Per-thread bounds: lwIP runs every callback on its
 * tcpip thread.
 *
 * Events match any pcb (ANY values): the checker cannot yet analyse values
 * captured at the site, so "the pcb" is the callback's pcb by convention,
 * which holds for callbacks that touch only their own connection.
 */
#define _POSIX_C_SOURCE 200809L /* SSIZE_MAX: lwIP's arch.h redefines ssize_t without it */

#include "vigil_lwip.h"

#ifdef __VIGIL__
#include <tesla-macros.h>

void vigil_lwip_begin(void) {}
void vigil_lwip_live(void) {}
void vigil_lwip_dead(void) {}

/* The calls that end a pcb's life (exclusive choice: `||` between the steps
 * of an automaton definition). */
automaton(vigil_lwip_last_call, void) {
  call(tcp_close) || call(tcp_abort);
  tesla_done;
}

/* The other calls that use a pcb.  (Field reads such as tcp_sndbuf() are
 * macros: no call, no event.) */
automaton(vigil_lwip_pcb_call, void) {
  call(tcp_write) || call(tcp_output) || call(tcp_recved) || call(tcp_arg) ||
      call(tcp_recv) || call(tcp_sent) || call(tcp_err) || call(tcp_poll) ||
      call(tcp_setprio) || call(tcp_shutdown);
  tesla_done;
}

automaton(vigil_lwip_any_call, void) {
  vigil_lwip_pcb_call() || vigil_lwip_last_call();
  tesla_done;
}

/* The three rules, as the calls a callback may make after its marker; the
 * `||` between live and dead is again an exclusive choice. */

/* 1. Nothing after the last call: no tcp_write (or anything else) on a
 *    closed pcb, and tcp_close/tcp_abort at most once. */
automaton(vigil_lwip_rule_last_call, void) {
  TSEQUENCE(call(vigil_lwip_live), REPEAT(0, ANY_REP, vigil_lwip_pcb_call()),
            optional(vigil_lwip_last_call())) ||
      TSEQUENCE(call(vigil_lwip_dead), REPEAT(0, ANY_REP, vigil_lwip_any_call()));
  tesla_done;
}

/* 2. The error callback does not touch a pcb: lwIP has freed it. */
automaton(vigil_lwip_rule_err, void) {
  TSEQUENCE(call(vigil_lwip_live), REPEAT(0, ANY_REP, vigil_lwip_any_call())) ||
      call(vigil_lwip_dead);
  tesla_done;
}

/* 3. Consumed data is acknowledged: each pbuf_free comes with a tcp_recved
 *    next to it (before or after), except for what is dropped with the
 *    connection (freed around tcp_close/tcp_abort, or in the error
 *    callback).  Values are not compared, so this is about pairs of calls,
 *    not about lengths. */
automaton(vigil_lwip_consumed, void) {
  call(tcp_recved) || TSEQUENCE(call(pbuf_free), call(tcp_recved)) ||
      TSEQUENCE(call(tcp_recved), call(pbuf_free));
  tesla_done;
}
automaton(vigil_lwip_rule_recved, void) {
  TSEQUENCE(call(vigil_lwip_live), REPEAT(0, ANY_REP, vigil_lwip_consumed()),
            optional(REPEAT(0, ANY_REP, call(pbuf_free)), vigil_lwip_last_call(),
                     REPEAT(0, ANY_REP, call(pbuf_free)))) ||
      TSEQUENCE(call(vigil_lwip_dead), REPEAT(0, ANY_REP, call(pbuf_free)));
  tesla_done;
}

void vigil_lwip_end(void) {
  TESLA_PERTHREAD(call(vigil_lwip_begin), returnfrom(vigil_lwip_end),
                  previously(vigil_lwip_rule_last_call()));
  TESLA_PERTHREAD(call(vigil_lwip_begin), returnfrom(vigil_lwip_end),
                  previously(vigil_lwip_rule_err()));
  TESLA_PERTHREAD(call(vigil_lwip_begin), returnfrom(vigil_lwip_end),
                  previously(vigil_lwip_rule_recved()));
}

#else
/* Without vigil there is nothing to check (ISO C wants a declaration). */
typedef int vigil_lwip_unused;
#endif
