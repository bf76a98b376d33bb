/*
 * echo_main.c — the echo benchmark: lwIP's echo server (echo.c) and its
 * load generator (echo_client.c) in one process, on Debian's liblwip.
 *
 *   echo_bench [-c CONNECTIONS] [-s SIZE] [-m pingpong|stream] [-t SECONDS] MESSAGES
 *
 * Traffic never leaves the process: the client connects to 127.0.0.1, and
 * lwIP (built with LWIP_NETIF_LOOPBACK) loops packets for the stack's own
 * addresses back through netif_loop_output, whatever the netif is.  The
 * netif below exists only to give the stack an interface; its output
 * function is never reached.
 *
 * Prints one line (messages/s, MB/s, mismatches) and exits 0 when every
 * message came back intact, 1 on mismatches or failed connections, 2 on a
 * usage error or when the run does not finish within -t seconds (default
 * 120).
 */
/* POSIX: clock_gettime, getopt, and SSIZE_MAX, without which lwIP's arch.h
 * redefines ssize_t. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "echo.h"
#include "echo_client.h"
#include "lwip/init.h"
#include "lwip/netif.h"
#include "lwip/tcpip.h"

#define ECHO_PORT 7

static err_t quiet_output(struct netif *netif, struct pbuf *p, const ip4_addr_t *addr) {
  (void)netif;
  (void)p;
  (void)addr;
  return ERR_OK;
}

static err_t quiet_init(struct netif *netif) {
  netif->name[0] = 'v';
  netif->name[1] = 'g';
  netif->mtu = 1500;
  netif->output = quiet_output;
  return ERR_OK;
}

static void tcpip_ready(void *arg) { sys_sem_signal(arg); }

static int usage(void) {
  fprintf(stderr, "usage: echo_bench [-c CONNECTIONS] [-s SIZE] [-m pingpong|stream] "
                  "[-t SECONDS] MESSAGES\n");
  return 2;
}

/* Options into cfg; 0, or the exit status of a usage error. */
static int parse(int argc, char **argv, struct echo_client_config *cfg, unsigned *timeout) {
  int o;
  while ((o = getopt(argc, argv, "c:s:m:t:")) != -1) {
    if (o == 'c')
      cfg->connections = (unsigned)strtoul(optarg, NULL, 10);
    else if (o == 's')
      cfg->size = (unsigned)strtoul(optarg, NULL, 10);
    else if (o == 't')
      *timeout = (unsigned)strtoul(optarg, NULL, 10);
    else if (o == 'm' && (optarg[0] == 'p' || optarg[0] == 's'))
      cfg->stream = optarg[0] == 's';
    else
      return usage();
  }
  if (optind != argc - 1)
    return usage();
  cfg->messages = strtoul(argv[optind], NULL, 10);
  if (cfg->connections == 0 || cfg->size == 0 || cfg->size > 0xffff ||
      cfg->messages < cfg->connections || *timeout == 0)
    return usage();
  return 0;
}

int main(int argc, char **argv) {
  struct echo_client_config cfg = {.port = ECHO_PORT, .connections = 4, .size = 512};
  unsigned timeout = 120;
  int bad = parse(argc, argv, &cfg, &timeout);
  if (bad)
    return bad;
  sys_sem_t ready, done;
  sys_sem_new(&ready, 0);
  sys_sem_new(&done, 0);
  tcpip_init(tcpip_ready, &ready);
  sys_sem_wait(&ready);

  static struct netif netif;
  ip4_addr_t addr, mask, gw;
  IP4_ADDR(&addr, 127, 0, 0, 1);
  IP4_ADDR(&mask, 255, 0, 0, 0);
  IP4_ADDR(&gw, 0, 0, 0, 0);
  ipaddr_aton("127.0.0.1", &cfg.server);
  LOCK_TCPIP_CORE();
  netif_add(&netif, &addr, &mask, &gw, NULL, quiet_init, tcpip_input);
  netif_set_default(&netif);
  netif_set_up(&netif);
  netif_set_link_up(&netif);
  int started = echo_init(ECHO_PORT) != NULL && echo_client_start(&cfg, &done) == 0;
  UNLOCK_TCPIP_CORE();
  if (!started) {
    fprintf(stderr, "echo_bench: cannot start the server or the client\n");
    return 1;
  }
  int finished = sys_arch_sem_wait(&done, timeout * 1000) != SYS_ARCH_TIMEOUT;

  struct echo_client_result r;
  LOCK_TCPIP_CORE();
  echo_client_result(&r);
  UNLOCK_TCPIP_CORE();
  printf("echo: %lu messages of %u bytes, %u connections, %s: %.3f s, %.0f messages/s, "
         "%.1f MB/s, mismatches %llu, failed connections %u%s\n",
         r.messages, cfg.size, cfg.connections, cfg.stream ? "stream" : "ping-pong", r.seconds,
         r.messages / r.seconds, r.bytes / r.seconds / 1e6, r.mismatches, r.failed,
         finished ? "" : ", TIMED OUT");
  fflush(stdout);
  if (!finished) /* lwIP's thread is still busy with the stalled connections */
    _exit(2);
  return r.mismatches || r.failed || r.messages != cfg.messages ? 1 : 0;
}
