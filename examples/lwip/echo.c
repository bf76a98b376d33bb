/*
 * echo.c — an RFC 862 echo server on lwIP's raw TCP API.
 *
 * Written for this example in the style of lwIP's contrib tcpecho_raw
 * (the unmodified application of the benchmark): a connection is accepted,
 * receives data, or is closing; data received is queued, written back with
 * tcp_write as the send buffer allows, and acknowledged with tcp_recved
 * once written; the sent and poll callbacks write what is still queued and
 * finish a close the peer asked for.
 *
 * The only changes for vigil are the #include of vigil_lwip.h and the
 * VIGIL_LWIP_*(fn) line after each callback; built without vigil they
 * expand to nothing.
 *
 * -DSEEDED_MISUSE plants a bug: echo_send() acknowledges a written pbuf
 * only when more data is queued behind it, so a connection that echoes
 * message by message never reopens its receive window and stalls after
 * TCP_WND bytes.  Rule 3 of vigil_lwip.c catches it.
 */
#define _POSIX_C_SOURCE 200809L /* SSIZE_MAX: lwIP's arch.h redefines ssize_t without it */

#include <stdlib.h>

#include "echo.h"
#include "vigil_lwip.h"

enum echo_state { ECHO_ACCEPTED = 1, ECHO_RECEIVED, ECHO_CLOSING };

struct echo_conn {
  enum echo_state state;
  struct pbuf *queue; /* received, not yet written back */
};

static void echo_conn_free(struct echo_conn *c) {
  if (c->queue != NULL)
    pbuf_free(c->queue); /* dropped with the connection */
  free(c);
}

/* Forget the connection's callbacks before tcp_close: lwIP may still
 * deliver events for the pcb until the close completes.  tcp_close fails
 * only when lwIP cannot allocate the FIN; like lwIP's own examples we do
 * not retry. */
static void echo_close(struct tcp_pcb *pcb, struct echo_conn *c) {
  tcp_arg(pcb, NULL);
  tcp_sent(pcb, NULL);
  tcp_recv(pcb, NULL);
  tcp_err(pcb, NULL);
  tcp_poll(pcb, NULL, 0);
  echo_conn_free(c);
  tcp_close(pcb);
}

/* Write queued pbufs back while the send buffer has room; each one written
 * is copied by lwIP, so it is freed and acknowledged at once. */
static void echo_send(struct tcp_pcb *pcb, struct echo_conn *c) {
  while (c->queue != NULL && c->queue->len <= tcp_sndbuf(pcb)) {
    struct pbuf *head = c->queue;
    if (tcp_write(pcb, head->payload, head->len, TCP_WRITE_FLAG_COPY) != ERR_OK)
      return; /* ERR_MEM: the sent or poll callback tries again */
    u16_t written = head->len;
    c->queue = head->next;
    if (c->queue != NULL) {
      pbuf_ref(c->queue); /* the rest outlives its head */
#ifdef SEEDED_MISUSE
      tcp_recved(pcb, written); /* BUG: only when more is queued */
#endif
    }
    pbuf_free(head);
#ifndef SEEDED_MISUSE
    tcp_recved(pcb, written);
#endif
  }
}

static err_t echo_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err) {
  struct echo_conn *c = arg;
  if (p == NULL) { /* the peer closed: echo what is queued, then close */
    c->state = ECHO_CLOSING;
    if (c->queue == NULL)
      echo_close(pcb, c);
    else
      echo_send(pcb, c);
    return ERR_OK;
  }
  if (err != ERR_OK || c->state == ECHO_CLOSING) { /* drop, but reopen the window */
    u16_t len = p->tot_len;
    pbuf_free(p);
    tcp_recved(pcb, len);
    return ERR_OK;
  }
  c->state = ECHO_RECEIVED;
  if (c->queue == NULL) {
    c->queue = p;
    echo_send(pcb, c);
  } else {
    pbuf_cat(c->queue, p); /* behind queued data: written from echo_sent */
  }
  return ERR_OK;
}
VIGIL_LWIP_RECV(echo_recv);

static err_t echo_sent(void *arg, struct tcp_pcb *pcb, u16_t len) {
  struct echo_conn *c = arg;
  (void)len;
  if (c->queue != NULL)
    echo_send(pcb, c);
  else if (c->state == ECHO_CLOSING)
    echo_close(pcb, c);
  return ERR_OK;
}
VIGIL_LWIP_SENT(echo_sent);

/* Every few seconds while the connection is idle: a second chance for a
 * write that failed with ERR_MEM or a close waiting for it. */
static err_t echo_poll(void *arg, struct tcp_pcb *pcb) {
  struct echo_conn *c = arg;
  if (c == NULL) { /* no state: nothing to finish */
    tcp_abort(pcb);
    return ERR_ABRT;
  }
  if (c->queue != NULL)
    echo_send(pcb, c);
  else if (c->state == ECHO_CLOSING)
    echo_close(pcb, c);
  return ERR_OK;
}
VIGIL_LWIP_POLL(echo_poll);

/* lwIP has already freed the pcb (reset or abort): free our state only. */
static void echo_err(void *arg, err_t err) {
  (void)err;
  if (arg != NULL)
    echo_conn_free(arg);
}
VIGIL_LWIP_ERR(echo_err);

static err_t echo_accept(void *arg, struct tcp_pcb *pcb, err_t err) {
  (void)arg;
  if (err != ERR_OK || pcb == NULL)
    return ERR_VAL;
  struct echo_conn *c = calloc(1, sizeof *c);
  if (c == NULL)
    return ERR_MEM; /* lwIP aborts the new connection */
  c->state = ECHO_ACCEPTED;
  tcp_setprio(pcb, TCP_PRIO_MIN);
  tcp_arg(pcb, c);
  tcp_recv(pcb, echo_recv);
  tcp_sent(pcb, echo_sent);
  tcp_err(pcb, echo_err);
  tcp_poll(pcb, echo_poll, 4); /* 4 coarse timer ticks: 2 s */
  return ERR_OK;
}
VIGIL_LWIP_ACCEPT(echo_accept);

struct tcp_pcb *echo_init(u16_t port) {
  struct tcp_pcb *pcb = tcp_new_ip_type(IPADDR_TYPE_ANY);
  if (pcb == NULL)
    return NULL;
  struct tcp_pcb *listener = NULL;
  if (tcp_bind(pcb, IP_ANY_TYPE, port) == ERR_OK)
    listener = tcp_listen(pcb); /* frees pcb when it succeeds */
  if (listener == NULL) {
    tcp_close(pcb);
    return NULL;
  }
  tcp_accept(listener, echo_accept);
  return listener;
}
