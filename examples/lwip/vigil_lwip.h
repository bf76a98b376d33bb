/*
 * vigil_lwip.h — a safer interface to lwIP's raw TCP API.
 *
 * lwIP calls an application back (tcp_accept, tcp_recv, tcp_sent, tcp_poll,
 * tcp_err, tcp_connect) and leaves it to the application to follow the
 * rules of the API inside those callbacks.  This header puts a small
 * wrapper between lwIP and each callback.  The wrapper calls the
 * application's function directly and marks where the callback begins and
 * ends.  vigil_lwip.c holds the assertions over what the application does
 * in between (README.md explains each one):
 *
 *   1. after tcp_close or tcp_abort the callback makes no other call on the
 *      pcb, and so closes it at most once;
 *   2. the error callback makes no call on a pcb (lwIP has freed it);
 *   3. a pbuf the callback consumes (pbuf_free) is acknowledged with
 *      tcp_recved, unless the callback closes or aborts the connection.
 *
 * An application uses it with one #include instead of "lwip/tcp.h", and one
 * line after each callback it registers:
 *
 *   static err_t echo_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err) {...}
 *   VIGIL_LWIP_RECV(echo_recv);
 *   ...
 *   tcp_recv(pcb, echo_recv);           // unchanged: registers the wrapper
 *
 * Built without vigil (any compiler, no __VIGIL__) the lines vanish and
 * tcp_recv() is lwIP's own: the program is exactly the unmodified one.
 *
 * Why a line per callback: the static checker (docs/static.md) can prove an
 * assertion only if the wrapper calls the application's function by name.
 * Through a function pointer it must assume that any address-taken
 * function, or none, runs there, and nothing is provable (README.md,
 * "Why the wrappers call the application directly").  C cannot define that
 * function from inside the tcp_recv(pcb, fn) expression, so the
 * application names each callback once.  Callbacks must therefore be named
 * functions; deregister with NULL (tcp_recv(pcb, NULL)).
 */
#ifndef VIGIL_LWIP_H
#define VIGIL_LWIP_H

#include "lwip/tcp.h"

#ifdef __VIGIL__

/* The wrapper calls these around the application's callback: begin opens
 * the checked window (the assertions' bound), live or dead says whether the
 * callback has a pcb it may use, end holds the assertion sites and closes
 * the window.  They do nothing; vigil observes the calls. */
void vigil_lwip_begin(void);
void vigil_lwip_live(void);
void vigil_lwip_dead(void);
void vigil_lwip_end(void);

/* Registration: lwIP gets the wrapper fn##__vigil, which VIGIL_LWIP_*(fn)
 * defines.  The argument is pasted, not expanded, so NULL becomes
 * NULL__vigil: deregistration. */
#define NULL__vigil NULL
#define tcp_accept(pcb, fn) (tcp_accept)((pcb), fn##__vigil)
#define tcp_recv(pcb, fn) (tcp_recv)((pcb), fn##__vigil)
#define tcp_sent(pcb, fn) (tcp_sent)((pcb), fn##__vigil)
#define tcp_poll(pcb, fn, interval) (tcp_poll)((pcb), fn##__vigil, (interval))
#define tcp_err(pcb, fn) (tcp_err)((pcb), fn##__vigil)
#define tcp_connect(pcb, ip, port, fn) (tcp_connect)((pcb), (ip), (port), fn##__vigil)

/* One wrapper per callback type.  The trailing declaration takes the ';'
 * the application writes after the line. */
#define VIGIL_LWIP_WRAP_(fn, marker, params, args)                             \
  static err_t fn##__vigil params {                                            \
    vigil_lwip_begin();                                                        \
    marker();                                                                  \
    err_t vigil_lwip_ret_ = fn args;                                           \
    vigil_lwip_end();                                                          \
    return vigil_lwip_ret_;                                                    \
  }                                                                            \
  struct vigil_lwip_wrapper
#define VIGIL_LWIP_ACCEPT(fn)                                                  \
  VIGIL_LWIP_WRAP_(fn, vigil_lwip_live,                                        \
                   (void *arg, struct tcp_pcb *pcb, err_t err), (arg, pcb, err))
#define VIGIL_LWIP_CONNECTED(fn) VIGIL_LWIP_ACCEPT(fn)
#define VIGIL_LWIP_RECV(fn)                                                    \
  VIGIL_LWIP_WRAP_(fn, vigil_lwip_live,                                        \
                   (void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err), \
                   (arg, pcb, p, err))
#define VIGIL_LWIP_SENT(fn)                                                    \
  VIGIL_LWIP_WRAP_(fn, vigil_lwip_live,                                        \
                   (void *arg, struct tcp_pcb *pcb, u16_t len), (arg, pcb, len))
#define VIGIL_LWIP_POLL(fn)                                                    \
  VIGIL_LWIP_WRAP_(fn, vigil_lwip_live, (void *arg, struct tcp_pcb *pcb),      \
                   (arg, pcb))
/* The error callback returns nothing and has no pcb: lwIP freed it. */
#define VIGIL_LWIP_ERR(fn)                                                     \
  static void fn##__vigil(void *arg, err_t err) {                              \
    vigil_lwip_begin();                                                        \
    vigil_lwip_dead();                                                         \
    fn(arg, err);                                                              \
    vigil_lwip_end();                                                          \
  }                                                                            \
  struct vigil_lwip_wrapper

#else /* !__VIGIL__: plain lwIP */

#define VIGIL_LWIP_ACCEPT(fn) struct vigil_lwip_wrapper
#define VIGIL_LWIP_CONNECTED(fn) struct vigil_lwip_wrapper
#define VIGIL_LWIP_RECV(fn) struct vigil_lwip_wrapper
#define VIGIL_LWIP_SENT(fn) struct vigil_lwip_wrapper
#define VIGIL_LWIP_POLL(fn) struct vigil_lwip_wrapper
#define VIGIL_LWIP_ERR(fn) struct vigil_lwip_wrapper

#endif /* __VIGIL__ */

#endif /* VIGIL_LWIP_H */
