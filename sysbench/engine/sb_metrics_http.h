/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_METRICS_HTTP_H
#define SB_METRICS_HTTP_H

/*
 * --metrics-listen=HOST:PORT: a minimal HTTP/1.x server, in a thread of
 * its own, that answers GET /metrics (and GET /) with the latest
 * interval's figures in the Prometheus text exposition format
 * (results/sb_metrics.h) while the invocation lasts.
 *
 * It serves one connection at a time and closes it after one answer; a
 * client that sends no full request within 2 s, or does not read the
 * answer within 2 s, is dropped, so a slow or bad client can delay the
 * next scrape but never the run. It reads only the published snapshot
 * (one small mutex, taken once per interval by the reporter), never the
 * workers' statistics.
 */

#include <stddef.h>

#include "results/sb_metrics.h"

struct sb_metrics_http;

/*
 * Binds HOST:PORT (HOST a name or address, [v6] in brackets, empty or
 * "*" for every address; PORT 0 picks a free port, see
 * sb_metrics_http_port) and starts the server thread serving m (borrowed:
 * it must outlive sb_metrics_http_stop). Returns the server, or NULL with
 * one line in err naming the address and the reason.
 */
struct sb_metrics_http *sb_metrics_http_start(const char *hostport, struct sb_metrics *m,
                                              char *err, size_t errlen);

/* The port the server listens on (the one chosen for PORT 0). */
unsigned sb_metrics_http_port(const struct sb_metrics_http *h);

/* Stops the thread (an answer in progress is finished or times out),
 * closes the socket and frees h. NULL is a no-op. */
void sb_metrics_http_stop(struct sb_metrics_http *h);

/* Splits "HOST:PORT" into host (brackets removed) and port. Returns 0, or
 * -1 when there is no port or it is not a number from 0 to 65535. */
int sb_metrics_http_parse(const char *hostport, char *host, size_t hostlen, unsigned *port);

#endif /* SB_METRICS_HTTP_H */
