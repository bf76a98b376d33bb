/* echo.h — the echo server of echo.c (lwIP raw TCP API). */
#ifndef VIGIL_EXAMPLE_ECHO_H
#define VIGIL_EXAMPLE_ECHO_H

#include "lwip/tcp.h"

/* Listens on `port` (IPv4 and IPv6); call with the tcpip core locked.
 * Returns the listening pcb, or NULL. */
struct tcp_pcb *echo_init(u16_t port);

#endif
