/* echo_client.h — the load generator of the echo benchmark (echo_client.c). */
#ifndef VIGIL_EXAMPLE_ECHO_CLIENT_H
#define VIGIL_EXAMPLE_ECHO_CLIENT_H

#include "lwip/sys.h"
#include "lwip/tcp.h"

struct echo_client_config {
  ip_addr_t server;
  u16_t port;
  unsigned connections;   /* concurrent connections */
  unsigned long messages; /* in all, spread over the connections */
  unsigned size;          /* bytes per message */
  int stream;             /* 0: ping-pong (one message in flight per
                             connection); 1: as many as the window takes */
};

struct echo_client_result {
  unsigned long messages;     /* echoed completely and verified */
  unsigned long long bytes;   /* echoed */
  unsigned long long mismatches; /* echoed bytes that differ from those sent */
  unsigned failed;            /* connections that ended in an error */
  double seconds;             /* first connect to the last byte echoed */
};

/* Connects and starts sending; call with the tcpip core locked.  `done` is
 * signalled once every connection has finished (or failed).  Returns 0, or
 * -1 when a connection cannot be started. */
int echo_client_start(const struct echo_client_config *config, sys_sem_t *done);

/* What the client saw; call with the tcpip core locked. */
void echo_client_result(struct echo_client_result *result);

#endif
