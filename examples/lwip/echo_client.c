/*
 * echo_client.c — the load generator of the echo benchmark: raw-API TCP
 * connections to the echo server inside the same lwIP stack, each sending
 * fixed-size messages and checking every byte that comes back.
 *
 * It stands for the remote peer, so the benchmark compiles it once with
 * plain clang and links the same object into every build: only the server
 * (echo.c) differs between the unmodified, instrumented and pruned builds.
 * It uses the safer interface too (vigil_lwip.h): built with vigil-cc, its
 * callbacks are checked like the server's (tests/lit/static/lwip-echo.test).
 * Built natively, as in the benchmark, that is plain lwIP, and its calls
 * are outside vigil's link-time module, so the checker does not see them.
 *
 * Every callback runs on lwIP's tcpip thread.
 */
/* POSIX: clock_gettime, getopt, and SSIZE_MAX, without which lwIP's arch.h
 * redefines ssize_t. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "echo_client.h"
#include "vigil_lwip.h"

struct conn {
  struct tcp_pcb *pcb;
  unsigned id;
  unsigned long quota;    /* messages to send */
  unsigned long written;  /* messages handed to tcp_write */
  unsigned long long rcvd; /* bytes echoed back */
};

static struct {
  struct echo_client_config cfg;
  struct conn *conns;
  unsigned char *pattern; /* size + 256 bytes; message m starts at a shift */
  sys_sem_t *done;
  unsigned finished, failed;
  unsigned long long mismatches;
  struct timespec t0, t1;
} cl;

/* Message m of connection id: a slice of the pattern, so consecutive
 * messages differ and a lost or reordered one shows. */
static const unsigned char *message(const struct conn *c, unsigned long m) {
  return cl.pattern + (m * 7 + c->id * 13) % 256;
}

static void finish(struct conn *c) {
  tcp_arg(c->pcb, NULL);
  tcp_recv(c->pcb, NULL);
  tcp_sent(c->pcb, NULL);
  tcp_err(c->pcb, NULL);
  c->pcb = NULL;
  if (++cl.finished == cl.cfg.connections)
    sys_sem_signal(cl.done);
}

/* Ping-pong: write the next message once the previous one is back.
 * Stream: write while the send buffer takes whole messages. */
static void push(struct conn *c) {
  unsigned long back = (unsigned long)(c->rcvd / cl.cfg.size);
  unsigned long limit = cl.cfg.stream ? c->quota : back + 1;
  while (c->written < c->quota && c->written < limit &&
         tcp_sndbuf(c->pcb) >= cl.cfg.size &&
         tcp_sndqueuelen(c->pcb) < TCP_SND_QUEUELEN - 4) {
    if (tcp_write(c->pcb, message(c, c->written), (u16_t)cl.cfg.size,
                  TCP_WRITE_FLAG_COPY) != ERR_OK)
      break; /* ERR_MEM: again from the sent callback */
    c->written++;
  }
}

/* Compare `len` echoed bytes, starting at stream offset c->rcvd. */
static void verify(struct conn *c, const unsigned char *data, u16_t len) {
  while (len > 0) {
    unsigned long m = (unsigned long)(c->rcvd / cl.cfg.size);
    unsigned k = (unsigned)(c->rcvd % cl.cfg.size);
    unsigned n = cl.cfg.size - k < len ? cl.cfg.size - k : len;
    const unsigned char *want = message(c, m) + k;
    if (m >= c->written || memcmp(data, want, n) != 0)
      for (unsigned i = 0; i < n; i++)
        cl.mismatches += m >= c->written || data[i] != want[i];
    c->rcvd += n;
    data += n;
    len = (u16_t)(len - n);
  }
}

static err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err) {
  struct conn *c = arg;
  (void)err;
  if (p == NULL) { /* the server closed after our FIN: done */
    finish(c);
    tcp_close(pcb);
    return ERR_OK;
  }
  for (struct pbuf *q = p; q != NULL; q = q->next)
    verify(c, q->payload, q->len);
  tcp_recved(pcb, p->tot_len);
  pbuf_free(p);
  /* Acknowledge at once, as a socket client in quick-ack mode would:
   * otherwise the server's Nagle holds its last partial segment until
   * lwIP's 250 ms delayed-ACK timer, and a stream run measures that. */
  tcp_set_flags(pcb, TF_ACK_NOW);
  if (c->rcvd == (unsigned long long)c->quota * cl.cfg.size) {
    clock_gettime(CLOCK_MONOTONIC, &cl.t1);
    tcp_shutdown(pcb, 0, 1); /* send FIN, wait for the server's */
  } else {
    push(c);
  }
  return ERR_OK;
}
VIGIL_LWIP_RECV(on_recv);

static err_t on_sent(void *arg, struct tcp_pcb *pcb, u16_t len) {
  (void)pcb;
  (void)len;
  push(arg);
  return ERR_OK;
}
VIGIL_LWIP_SENT(on_sent);

static void on_err(void *arg, err_t err) {
  struct conn *c = arg;
  (void)err;
  cl.failed++;
  c->pcb = NULL; /* lwIP freed it */
  if (++cl.finished == cl.cfg.connections)
    sys_sem_signal(cl.done);
}
VIGIL_LWIP_ERR(on_err);

static err_t on_connected(void *arg, struct tcp_pcb *pcb, err_t err) {
  (void)pcb;
  if (err != ERR_OK)
    return err;
  push(arg);
  return ERR_OK;
}
VIGIL_LWIP_CONNECTED(on_connected);

int echo_client_start(const struct echo_client_config *config, sys_sem_t *done) {
  cl.cfg = *config;
  cl.done = done;
  cl.conns = calloc(config->connections, sizeof *cl.conns);
  cl.pattern = malloc(config->size + 256);
  if (cl.conns == NULL || cl.pattern == NULL)
    return -1;
  for (unsigned i = 0; i < config->size + 256; i++)
    cl.pattern[i] = (unsigned char)(i * 7 + (i >> 8) * 13 + 1);
  clock_gettime(CLOCK_MONOTONIC, &cl.t0);
  for (unsigned i = 0; i < config->connections; i++) {
    struct conn *c = &cl.conns[i];
    c->id = i;
    c->quota = config->messages / config->connections +
               (i < config->messages % config->connections);
    c->pcb = tcp_new_ip_type(IP_GET_TYPE(&config->server));
    if (c->pcb == NULL)
      return -1;
    tcp_nagle_disable(c->pcb); /* a message is written whole, no need to wait */
    tcp_arg(c->pcb, c);
    tcp_recv(c->pcb, on_recv);
    tcp_sent(c->pcb, on_sent);
    tcp_err(c->pcb, on_err);
    if (tcp_connect(c->pcb, &config->server, config->port, on_connected) != ERR_OK)
      return -1;
  }
  return 0;
}

void echo_client_result(struct echo_client_result *r) {
  memset(r, 0, sizeof *r);
  for (unsigned i = 0; i < cl.cfg.connections; i++) {
    r->bytes += cl.conns[i].rcvd;
    r->messages += (unsigned long)(cl.conns[i].rcvd / cl.cfg.size);
  }
  r->mismatches = cl.mismatches;
  r->failed = cl.failed;
  struct timespec t1 = cl.t1;
  if (t1.tv_sec == 0 && t1.tv_nsec == 0)
    clock_gettime(CLOCK_MONOTONIC, &t1);
  r->seconds = (double)(t1.tv_sec - cl.t0.tv_sec) + (t1.tv_nsec - cl.t0.tv_nsec) / 1e9;
}
