/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_METRICS_HTTP_H
#define SB_METRICS_HTTP_H

/*
 * --metrics-listen=HOST:PORT: a minimal HTTP/1.x server, in a thread of
 * its own, that answers GET /metrics (and GET /) with the latest
 * interval's figures in the Prometheus text exposition format
 * (results/sb_metrics.h) while the invocation lasts.
 *
 * It serves up to SB_METRICS_HTTP_CLIENTS connections at once, polled
 * without blocking, each closed after one answer: a client has 2 s from
 * its connection to send its request and read the answer, and when the
 * set is full a new connection drops the oldest one (once that one is
 * 0.2 s old; until then new ones wait in the kernel's queue). So slow
 * or silent clients cannot hold up a scraper (it is served as soon as
 * its request is in), nor the run, nor the stop (which closes every
 * connection at once). With a token (--metrics-token) every request must carry
 * "Authorization: Bearer TOKEN", as Prometheus' `authorization`
 * scrape setting sends; others get 401. It reads only the published
 * snapshot (one small mutex, taken once per interval by the reporter),
 * never the workers' statistics.
 */

#include <stdbool.h>
#include <stddef.h>

#include "results/sb_metrics.h"

/* Connections served at once; a new one beyond this drops the oldest. */
#define SB_METRICS_HTTP_CLIENTS 512

struct sb_metrics_http;

/*
 * Binds HOST:PORT (HOST a name or address, [v6] in brackets; empty, "*"
 * or "[::]" for every IPv6 and IPv4 address, "0.0.0.0" for every IPv4
 * one; PORT 0 picks a free port, see sb_metrics_http_port) and starts the
 * server thread serving m (borrowed: it must outlive
 * sb_metrics_http_stop). token, when not NULL, is the bearer token every
 * request must carry (copied). Returns the server, or NULL with one line
 * in err naming the address and the reason.
 */
struct sb_metrics_http *sb_metrics_http_start(const char *hostport, const char *token,
                                              struct sb_metrics *m, char *err, size_t errlen);

/* The port the server listens on (the one chosen for PORT 0). */
unsigned sb_metrics_http_port(const struct sb_metrics_http *h);

/* The address bound, numeric, as a URL writes it ("127.0.0.1:9100",
 * "[::]:9100"); owned by h. */
const char *sb_metrics_http_address(const struct sb_metrics_http *h);

/* True when bound to a wildcard address (every address of the host, not
 * one interface). */
bool sb_metrics_http_wildcard(const struct sb_metrics_http *h);

/* Who can reach the address, for the start-up line: "every IPv6 and
 * IPv4 address of this host", "every IPv4 address of this host",
 * "loopback only" or "this address only". Static text. */
const char *sb_metrics_http_scope(const struct sb_metrics_http *h);

/* Stops the thread at once (connections in progress are closed, never
 * waited for), closes the socket and frees h. NULL is a no-op. */
void sb_metrics_http_stop(struct sb_metrics_http *h);

/* Splits "HOST:PORT" into host (brackets removed) and port. Returns 0, or
 * -1 when there is no port or it is not a number from 0 to 65535. */
int sb_metrics_http_parse(const char *hostport, char *host, size_t hostlen, unsigned *port);

#endif /* SB_METRICS_HTTP_H */
