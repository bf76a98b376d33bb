/*
 * tesla-macros.h — TESLA's user-facing names, as implemented by vigil.
 *
 *   #include <tesla-macros.h>     (or <vigil/tesla-macros.h>)
 *
 * Everything <tesla.h> provides, plus TESLA's named automata:
 *
 *   automaton(tcp_established, struct tcpcb *tp) {
 *       tp->t_state = TCPS_ESTABLISHED;
 *       tcp_active_close(tp) || tcp_passive_close(tp);
 *       tesla_done;
 *   }
 *   automaton(tcp_active_close, struct tcpcb *tp);      (a declaration)
 *
 *   TESLA_STRUCT_AUTOMATON(struct tcpcb *tp, tcp_established, __tesla_global,
 *                          call(tcp_init(tp)), returnfrom(tcp_free(tp)));
 *
 * Under vigil an automaton is a (used, weak) function whose body the plugin
 * reads and replaces by the definition's descriptor.  With an ordinary
 * compiler it is an unused static inline function whose body mentions
 * nothing of vigil's: the event words below expand to a no-op, so the
 * program is unchanged and never references the runtime.
 */
#ifndef VIGIL_TESLA_MACROS_H
#define VIGIL_TESLA_MACROS_H

#include "tesla.h"

#ifdef __VIGIL__

#define automaton(name, ...) __VIGIL_AUTOMATON(name, __VA_ARGS__)
#define tesla_done __VIGIL_AUTOMATON_DONE

#else /* !__VIGIL__ */

struct __vigil_automaton_description;
static inline __attribute__((__unused__)) int __vigil_nothing(int x, ...) {
  return x;
}

/* `e1 || e2;` steps would be "value computed is not used" for gcc: the
 * warning is off from automaton(...) to tesla_done. */
#define automaton(name, ...)                                                   \
  _Pragma("GCC diagnostic push")                                               \
  _Pragma("GCC diagnostic ignored \"-Wunused-value\"")                         \
  static inline __attribute__((__unused__))                                    \
  struct __vigil_automaton_description *name(__VA_ARGS__)
#define tesla_done                                                             \
  return 0;                                                                    \
  _Pragma("GCC diagnostic pop")(void) 0

#define __tesla_global 0
#define __tesla_perthread 0
#define TSEQUENCE(...) __vigil_nothing(0)
#define previously(...) __vigil_nothing(0)
#define eventually(...) __vigil_nothing(0)
#define TESLA_ASSERTION_SITE __vigil_nothing(0)
#define call(...) __vigil_nothing(0)
#define returnfrom(...) __vigil_nothing(0)
#define caller(...) __vigil_nothing(0)
#define callee(...) __vigil_nothing(0)
#define ANY(type) 0
#define ANY_REP __INT_MAX__
#define REPEAT(...) __vigil_nothing(0)
#define UPTO(...) __vigil_nothing(0)
#define ATLEAST(...) __vigil_nothing(0)
#define optional(...) __vigil_nothing(0)
#define flags(c) (c)
#define bitmask(c) (c)
#define strict(...) __vigil_nothing(0)
#define conditional(...) __vigil_nothing(0)
#define guideline(...) __vigil_nothing(0)

#endif /* __VIGIL__ */

#endif /* VIGIL_TESLA_MACROS_H */
