/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The --metrics-listen server; see sb_metrics_http.h.
 */
#define _GNU_SOURCE /* accept4, pipe2 */
#include "engine/sb_metrics_http.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "core/sb_clock.h"

/* How long a client may take to send its request or read the answer. */
#define CLIENT_TIMEOUT_MS 2000
/* A request line and headers larger than this are refused (Prometheus
 * sends about 300 bytes). */
#define REQUEST_MAX 8192
/* The answer's body: ~40 samples plus 4 per percentile. */
#define BODY_MAX 65536

struct sb_metrics_http {
    int fd;                     /* listening socket */
    int wake[2];                /* a pipe: written to stop the thread */
    unsigned port;
    pthread_t thread;
    struct sb_metrics *m;
    char body[BODY_MAX];        /* the thread's own */
};

int sb_metrics_http_parse(const char *hostport, char *host, size_t hostlen, unsigned *port)
{
    const char *colon, *h = hostport;
    size_t n;
    char *end;
    unsigned long p;

    if (hostport == NULL)
        return -1;
    if (*h == '[') {
        const char *close = strchr(h, ']');
        if (close == NULL || close[1] != ':')
            return -1;
        h++;
        n = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(h, ':');
        if (colon == NULL)
            return -1;
        n = (size_t)(colon - h);
    }
    if (n >= hostlen || colon[1] == '\0')
        return -1;
    errno = 0;
    p = strtoul(colon + 1, &end, 10);
    if (errno != 0 || *end != '\0' || p > 65535 || colon[1] < '0' || colon[1] > '9')
        return -1;
    memcpy(host, h, n);
    host[n] = '\0';
    *port = (unsigned)p;
    return 0;
}

/* Opens the listening socket on host:port. Returns it, or -1 with the
 * reason in err. */
static int listen_on(const char *hostport, const char *host, unsigned port, unsigned *bound,
                     char *err, size_t errlen)
{
    struct addrinfo hints, *res = NULL, *ai;
    char service[16];
    int fd = -1, rc, saved = 0, one = 1;
    bool any = *host == '\0' || strcmp(host, "*") == 0;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    snprintf(service, sizeof(service), "%u", port);
    rc = getaddrinfo(any ? NULL : host, service, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "--metrics-listen=%s: cannot resolve '%s': %s", hostport, host,
                 gai_strerror(rc));
        return -1;
    }
    for (ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            saved = errno;
            continue;
        }
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 16) != 0) {
            saved = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, errlen, "--metrics-listen=%s: cannot listen: %s", hostport,
                 strerror(saved ? saved : EADDRNOTAVAIL));
        return -1;
    }
    {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        *bound = port;
        if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
            *bound = ss.ss_family == AF_INET6
                         ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                         : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    }
    return fd;
}

/* Milliseconds left until deadline (ns), at least 0. */
static int ms_left(uint64_t deadline)
{
    uint64_t now = sb_now_ns();
    return now >= deadline ? 0 : (int)((deadline - now) / SB_NS_PER_MS) + 1;
}

/* Reads the request's head (up to the blank line) into req. Returns its
 * length, or -1 when the client closed, timed out or sent too much. */
static ssize_t read_request(int fd, char *req, size_t cap, uint64_t deadline)
{
    size_t used = 0;

    while (used + 1 < cap) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        ssize_t n;
        int ms = ms_left(deadline);

        if (ms == 0 || poll(&p, 1, ms) <= 0)
            return -1;
        n = recv(fd, req + used, cap - 1 - used, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            return -1;
        used += (size_t)n;
        req[used] = '\0';
        if (strstr(req, "\r\n\r\n") != NULL || strstr(req, "\n\n") != NULL)
            return (ssize_t)used;
    }
    return -1;
}

/* Sends all of buf before the deadline. Returns 0, or -1. */
static int send_all(int fd, const char *buf, size_t len, uint64_t deadline)
{
    while (len > 0) {
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        ssize_t n;
        int ms = ms_left(deadline);

        if (ms == 0 || poll(&p, 1, ms) <= 0)
            return -1;
        n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static void answer(int fd, int status, const char *reason, const char *type, const char *body,
                   size_t blen, bool head_only, uint64_t deadline)
{
    char head[256];
    int n = snprintf(head, sizeof(head),
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n",
                     status, reason, type, blen);

    if (send_all(fd, head, (size_t)n, deadline) == 0 && !head_only)
        send_all(fd, body, blen, deadline);
}

/* One client: one request, one answer, closed. */
static void serve(struct sb_metrics_http *h, int fd)
{
    char req[REQUEST_MAX];
    uint64_t deadline = sb_now_ns() + (uint64_t)CLIENT_TIMEOUT_MS * SB_NS_PER_MS;
    bool get, head;
    const char *path;
    static const char plain[] = "text/plain; charset=utf-8";

    if (read_request(fd, req, sizeof(req), deadline) < 0)
        return;
    get = strncmp(req, "GET ", 4) == 0;
    head = strncmp(req, "HEAD ", 5) == 0;
    if (!get && !head) {
        answer(fd, 405, "Method Not Allowed", plain, "GET only\n", 9, false, deadline);
        return;
    }
    path = req + (get ? 4 : 5);
    if (strncmp(path, "/metrics ", 9) == 0 || strncmp(path, "/metrics?", 9) == 0 ||
        strncmp(path, "/ ", 2) == 0) {
        struct sb_metrics_snap s;
        bool have = sb_metrics_latest(h->m, &s);
        size_t n = sb_metrics_format_text(h->m, have ? &s : NULL, h->body, sizeof(h->body));
        if (n >= sizeof(h->body))
            n = sizeof(h->body) - 1;
        answer(fd, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", h->body, n, head,
               deadline);
    } else {
        answer(fd, 404, "Not Found", plain, "try /metrics\n", 13, head, deadline);
    }
}

static void *serve_main(void *arg)
{
    struct sb_metrics_http *h = arg;

    for (;;) {
        struct pollfd p[2] = {{.fd = h->fd, .events = POLLIN}, {.fd = h->wake[0], .events = POLLIN}};
        int c;

        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[1].revents != 0)
            break;
        if (!(p[0].revents & POLLIN))
            continue;
        c = accept4(h->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (c < 0)
            continue;
        serve(h, c);
        close(c);
    }
    return NULL;
}

struct sb_metrics_http *sb_metrics_http_start(const char *hostport, struct sb_metrics *m,
                                              char *err, size_t errlen)
{
    struct sb_metrics_http *h;
    char host[256];
    unsigned port;
    sigset_t all, old;
    int rc;

    if (sb_metrics_http_parse(hostport, host, sizeof(host), &port) != 0) {
        snprintf(err, errlen, "invalid value for --metrics-listen: '%s' (expected HOST:PORT, "
                 "e.g. 127.0.0.1:9100)", hostport ? hostport : "");
        return NULL;
    }
    h = calloc(1, sizeof(*h));
    if (h == NULL) {
        snprintf(err, errlen, "--metrics-listen: out of memory");
        return NULL;
    }
    h->m = m;
    h->fd = listen_on(hostport, host, port, &h->port, err, errlen);
    if (h->fd < 0) {
        free(h);
        return NULL;
    }
    if (pipe2(h->wake, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "--metrics-listen: pipe: %s", strerror(errno));
        close(h->fd);
        free(h);
        return NULL;
    }
    /* Signals are the other threads' business: the thread starts with all
     * of them blocked. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&h->thread, NULL, serve_main, h);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "--metrics-listen: cannot start its thread: %s", strerror(rc));
        close(h->fd);
        close(h->wake[0]);
        close(h->wake[1]);
        free(h);
        return NULL;
    }
    return h;
}

unsigned sb_metrics_http_port(const struct sb_metrics_http *h)
{
    return h->port;
}

void sb_metrics_http_stop(struct sb_metrics_http *h)
{
    ssize_t w;

    if (h == NULL)
        return;
    w = write(h->wake[1], "x", 1);
    (void)w;
    pthread_join(h->thread, NULL);
    close(h->fd);
    close(h->wake[0]);
    close(h->wake[1]);
    free(h);
}
