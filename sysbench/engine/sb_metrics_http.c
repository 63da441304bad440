/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The --metrics-listen server; see sb_metrics_http.h.
 *
 * One thread polls the listening socket, a wake-up pipe and every open
 * connection, none of them blocking: a connection is read while its
 * request comes in, answered when the request is complete (the answer
 * goes out at once unless the client reads slowly, then it waits for
 * POLLOUT), and closed after the answer, at its deadline, when the set
 * is full and a newer connection needs its place, or when the server
 * stops.
 */
#define _GNU_SOURCE /* accept4, pipe2 */
#include "engine/sb_metrics_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/sb_clock.h"

/* How long a client may take, from its connection, to send its request
 * and read the answer. */
#define CLIENT_TIMEOUT_MS 2000
/* A request line and headers larger than this are refused (Prometheus
 * sends about 300 bytes, a bearer token adds its length). */
#define REQUEST_MAX 8192
/* The answer's body: ~40 samples plus 4 per percentile. */
#define BODY_MAX 65536
/* Connections the kernel may hold before we accept them: a storm of
 * scrapes must not be refused. The kernel caps it at
 * net.core.somaxconn (4096 by default since Linux 5.4). */
#define LISTEN_BACKLOG 4096
/* Out of file descriptors: stop accepting for this long. */
#define ACCEPT_PAUSE_MS 100
/* With every slot taken, the oldest connection is dropped for a new one
 * only once it is this old: a burst of honest clients that connect
 * before they send waits in the kernel's queue instead of dropping
 * each other, while a slow client is long past it. */
#define EVICT_MIN_AGE_MS 200

enum client_state {
    CLIENT_FREE = 0,
    CLIENT_READING,   /* the request is coming in */
    CLIENT_WRITING,   /* the answer did not fit the socket at once */
    CLIENT_DRAINING   /* answered; reading what the client still sends */
};

struct client {
    int fd;
    enum client_state state;
    uint64_t since;    /* accepted at, ns: the oldest is dropped first */
    uint64_t deadline; /* since + CLIENT_TIMEOUT_MS */
    char *buf;         /* the request read so far, then the answer left */
    size_t used, cap, off;
};

struct sb_metrics_http {
    int fd;                     /* listening socket */
    int wake[2];                /* a pipe: written to stop the thread */
    unsigned port;
    bool wildcard;
    const char *scope;
    char address[INET6_ADDRSTRLEN + 16];
    pthread_t thread;
    struct sb_metrics *m;
    char *token;                /* NULL: no authentication */
    size_t token_len;
    uint64_t fds_retry_at;      /* out of descriptors: accept again then */
    uint64_t full_retry_at;     /* full of young connections: the oldest
                                   may be dropped then */
    size_t nclients;
    /* The thread's own: */
    struct client clients[SB_METRICS_HTTP_CLIENTS];
    struct pollfd pfd[SB_METRICS_HTTP_CLIENTS + 2];
    size_t slot_of[SB_METRICS_HTTP_CLIENTS];
    char body[BODY_MAX];
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

/* ------------------------------------------------------------ binding */

/* A socket bound to addr and listening, or -1 with errno set. An IPv6
 * wildcard takes IPv4 too (dual stack, whatever net.ipv6.bindv6only
 * says), as Prometheus' own exporters do for ":PORT" and "[::]:PORT". */
static int bind_listen(const struct sockaddr *addr, socklen_t len)
{
    int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1, zero = 0, saved;

    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (addr->sa_family == AF_INET6 &&
        IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)addr)->sin6_addr))
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    if (bind(fd, addr, len) == 0 && listen(fd, LISTEN_BACKLOG) == 0)
        return fd;
    saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

/* Every address: [::] in dual stack, or 0.0.0.0 where the host has no
 * IPv6. */
static int listen_any(unsigned port)
{
    struct sockaddr_in6 a6;
    struct sockaddr_in a4;
    int fd;

    memset(&a6, 0, sizeof(a6));
    a6.sin6_family = AF_INET6;
    a6.sin6_addr = in6addr_any;
    a6.sin6_port = htons((uint16_t)port);
    fd = bind_listen((const struct sockaddr *)&a6, sizeof(a6));
    if (fd >= 0 || (errno != EAFNOSUPPORT && errno != EADDRNOTAVAIL))
        return fd;
    memset(&a4, 0, sizeof(a4));
    a4.sin_family = AF_INET;
    a4.sin_addr.s_addr = htonl(INADDR_ANY);
    a4.sin_port = htons((uint16_t)port);
    return bind_listen((const struct sockaddr *)&a4, sizeof(a4));
}

/* Names what h->fd is bound to: port, address, wildcard, scope. */
static void describe_bound(struct sb_metrics_http *h, unsigned port)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    char host[INET6_ADDRSTRLEN] = "?";

    h->port = port;
    h->scope = "this address only";
    if (getsockname(h->fd, (struct sockaddr *)&ss, &sl) != 0)
        return;
    getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), NULL, 0, NI_NUMERICHOST);
    if (ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
        int v6only = 0;
        socklen_t ol = sizeof(v6only);

        h->port = ntohs(a->sin6_port);
        snprintf(h->address, sizeof(h->address), "[%s]:%u", host, h->port);
        h->wildcard = IN6_IS_ADDR_UNSPECIFIED(&a->sin6_addr);
        getsockopt(h->fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, &ol);
        if (h->wildcard)
            h->scope = v6only ? "every IPv6 address of this host"
                              : "every IPv6 and IPv4 address of this host";
        else if (IN6_IS_ADDR_LOOPBACK(&a->sin6_addr))
            h->scope = "loopback only";
    } else {
        const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;

        h->port = ntohs(a->sin_port);
        snprintf(h->address, sizeof(h->address), "%s:%u", host, h->port);
        h->wildcard = a->sin_addr.s_addr == htonl(INADDR_ANY);
        if (h->wildcard)
            h->scope = "every IPv4 address of this host";
        else if ((ntohl(a->sin_addr.s_addr) >> 24) == 127)
            h->scope = "loopback only";
    }
}

/* Opens h->fd on host:port. Returns 0, or -1 with the reason in err. */
static int listen_on(struct sb_metrics_http *h, const char *hostport, const char *host,
                     unsigned port, char *err, size_t errlen)
{
    struct addrinfo hints, *res = NULL, *ai;
    char service[16];
    int rc, saved = 0;

    h->fd = -1;
    if (*host == '\0' || strcmp(host, "*") == 0) {
        h->fd = listen_any(port);
        saved = errno;
    } else {
        memset(&hints, 0, sizeof(hints));
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
        snprintf(service, sizeof(service), "%u", port);
        rc = getaddrinfo(host, service, &hints, &res);
        if (rc != 0) {
            snprintf(err, errlen, "--metrics-listen=%s: cannot resolve '%s': %s", hostport,
                     host, gai_strerror(rc));
            return -1;
        }
        for (ai = res; ai != NULL && h->fd < 0; ai = ai->ai_next) {
            h->fd = bind_listen(ai->ai_addr, ai->ai_addrlen);
            saved = errno;
        }
        freeaddrinfo(res);
    }
    if (h->fd < 0) {
        snprintf(err, errlen, "--metrics-listen=%s: cannot listen: %s", hostport,
                 strerror(saved ? saved : EADDRNOTAVAIL));
        return -1;
    }
    describe_bound(h, port);
    return 0;
}

/* ------------------------------------------------------------ requests */

/* The value of header `name` (lower case, with its colon) in the request
 * head req, its length in *len; NULL when absent. */
static const char *header_value(const char *req, const char *name, size_t *len)
{
    size_t nl = strlen(name);
    const char *line = strchr(req, '\n');

    while (line != NULL && line[1] != '\0') {
        const char *p = line + 1, *end;

        if (strncasecmp(p, name, nl) == 0) {
            p += nl;
            while (*p == ' ' || *p == '\t')
                p++;
            end = p + strcspn(p, "\r\n");
            while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
                end--;
            *len = (size_t)(end - p);
            return p;
        }
        line = strchr(p, '\n');
    }
    return NULL;
}

/* Whether req carries "Authorization: Bearer TOKEN" with h's token; the
 * comparison takes the same time wherever the first difference is. */
static bool authorized(const struct sb_metrics_http *h, const char *req)
{
    size_t len, i;
    const char *v = header_value(req, "authorization:", &len);
    unsigned char diff = 0;

    if (h->token == NULL)
        return true;
    if (v == NULL || len < 7 || strncasecmp(v, "bearer", 6) != 0 || (v[6] != ' ' && v[6] != '\t'))
        return false;
    for (v += 7, len -= 7; len > 0 && (*v == ' ' || *v == '\t'); v++, len--)
        ;
    if (len != h->token_len)
        return false;
    for (i = 0; i < len; i++)
        diff |= (unsigned char)(v[i] ^ h->token[i]);
    return diff == 0;
}

/* ---------------------------------------------------------- connections */

static void client_close(struct sb_metrics_http *h, struct client *c)
{
    close(c->fd);
    free(c->buf);
    memset(c, 0, sizeof(*c));
    c->fd = -1;
    h->nclients--;
}

/* Answered: closed, or, when the client sent more than we read (closing
 * then would reset the connection and could destroy the answer in
 * flight), half-closed and drained until the client closes. */
static void client_answered(struct sb_metrics_http *h, struct client *c)
{
    char b;

    if (recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 1 && shutdown(c->fd, SHUT_WR) == 0) {
        c->state = CLIENT_DRAINING;
        return;
    }
    client_close(h, c);
}

/* Sends what is left of the answer in c->buf. */
static void client_write(struct sb_metrics_http *h, struct client *c)
{
    while (c->off < c->used) {
        ssize_t n = send(c->fd, c->buf + c->off, c->used - c->off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            client_close(h, c);
            return;
        }
        c->off += (size_t)n;
    }
    client_answered(h, c);
}

/* Sends head and body; what the socket does not take at once is kept in
 * c->buf and sent as the client reads (client_write). */
static void send_answer(struct sb_metrics_http *h, struct client *c, const char *head,
                        size_t hlen, const char *body, size_t blen)
{
    struct iovec iov[2] = {{(void *)head, hlen}, {(void *)body, blen}};
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
    ssize_t n;
    size_t sent, rest;
    char *left;

    do
        n = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
        client_close(h, c);
        return;
    }
    sent = n < 0 ? 0 : (size_t)n;
    if (sent == hlen + blen) {
        client_answered(h, c);
        return;
    }
    rest = hlen + blen - sent;
    left = malloc(rest);
    if (left == NULL) {
        client_close(h, c);
        return;
    }
    if (sent < hlen) {
        memcpy(left, head + sent, hlen - sent);
        memcpy(left + hlen - sent, body, blen);
    } else {
        memcpy(left, body + (sent - hlen), rest);
    }
    free(c->buf);
    c->buf = left;
    c->used = rest;
    c->cap = rest;
    c->off = 0;
    c->state = CLIENT_WRITING;
}

static void answer(struct sb_metrics_http *h, struct client *c, int status, const char *reason,
                   const char *type, const char *body, size_t blen, bool head_only)
{
    char head[384];
    int n = snprintf(head, sizeof(head),
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
                     "Connection: close\r\n\r\n",
                     status, reason, type, blen,
                     status == 401 ? "WWW-Authenticate: Bearer realm=\"sysbench\"\r\n" : "");

    send_answer(h, c, head, (size_t)n, body, head_only ? 0 : blen);
}

/* A complete request head in c->buf: one answer. */
static void respond(struct sb_metrics_http *h, struct client *c)
{
    const char *req = c->buf, *path;
    bool get = strncmp(req, "GET ", 4) == 0, head = strncmp(req, "HEAD ", 5) == 0;
    static const char plain[] = "text/plain; charset=utf-8";
    static const char need_token[] = "a bearer token is required\n";

    if (!authorized(h, req)) {
        answer(h, c, 401, "Unauthorized", plain, need_token, sizeof(need_token) - 1, head);
        return;
    }
    if (!get && !head) {
        answer(h, c, 405, "Method Not Allowed", plain, "GET only\n", 9, false);
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
        answer(h, c, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", h->body, n, head);
    } else {
        answer(h, c, 404, "Not Found", plain, "try /metrics\n", 13, head);
    }
}

/* Reads what the client sent; answers once the head is complete. */
static void client_read(struct sb_metrics_http *h, struct client *c)
{
    for (;;) {
        ssize_t n;
        size_t from;

        if (c->used + 1 >= c->cap) {
            size_t cap = c->cap == 0 ? 1024 : c->cap * 2;
            char *grown;
            if (c->cap >= REQUEST_MAX || (grown = realloc(c->buf, cap)) == NULL) {
                client_close(h, c); /* too long a request */
                return;
            }
            c->buf = grown;
            c->cap = cap;
        }
        n = recv(c->fd, c->buf + c->used, c->cap - 1 - c->used, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            client_close(h, c);
            return;
        }
        from = c->used >= 3 ? c->used - 3 : 0;
        c->used += (size_t)n;
        c->buf[c->used] = '\0';
        if (strstr(c->buf + from, "\r\n\r\n") != NULL || strstr(c->buf + from, "\n\n") != NULL) {
            respond(h, c);
            return;
        }
    }
}

/* Answered and half-closed: discards what comes until the client closes. */
static void client_drain(struct sb_metrics_http *h, struct client *c)
{
    char scratch[1024];
    ssize_t n;

    while ((n = recv(c->fd, scratch, sizeof(scratch), MSG_DONTWAIT)) > 0 ||
           (n < 0 && errno == EINTR))
        ;
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
        client_close(h, c);
}

/* The connection accepted first, NULL when there is none. */
static struct client *oldest_client(struct sb_metrics_http *h)
{
    struct client *oldest = NULL;

    for (size_t i = 0; i < SB_METRICS_HTTP_CLIENTS; i++) {
        struct client *c = &h->clients[i];
        if (c->state != CLIENT_FREE && (oldest == NULL || c->since < oldest->since))
            oldest = c;
    }
    return oldest;
}

/* A free slot for a new connection; with every slot taken, the oldest
 * connection is dropped for it. */
static struct client *free_slot(struct sb_metrics_http *h)
{
    struct client *oldest;

    for (size_t i = 0; i < SB_METRICS_HTTP_CLIENTS; i++)
        if (h->clients[i].state == CLIENT_FREE)
            return &h->clients[i];
    oldest = oldest_client(h);
    client_close(h, oldest);
    return oldest;
}

/* Accepts every connection waiting, and reads each at once: a scraper's
 * request is usually there already, and is answered before this returns.
 * With every slot taken by a connection younger than EVICT_MIN_AGE_MS,
 * the rest wait in the kernel's queue until the oldest is that old. */
static void accept_all(struct sb_metrics_http *h, uint64_t now)
{
    const uint64_t min_age = EVICT_MIN_AGE_MS * SB_NS_PER_MS;

    for (;;) {
        struct client *c;
        int fd;

        if (h->nclients == SB_METRICS_HTTP_CLIENTS) {
            const struct client *oldest = oldest_client(h);
            if (now - oldest->since < min_age) {
                h->full_retry_at = oldest->since + min_age;
                return;
            }
        }
        fd = accept4(h->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0 && (errno == EINTR || errno == ECONNABORTED))
            continue;
        if (fd < 0) {
            /* Out of descriptors: the connection stays queued; poll for
             * it again a little later rather than spin. */
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                h->fds_retry_at = now + ACCEPT_PAUSE_MS * SB_NS_PER_MS;
            return;
        }
        c = free_slot(h);
        c->fd = fd;
        c->state = CLIENT_READING;
        c->since = now;
        c->deadline = now + CLIENT_TIMEOUT_MS * SB_NS_PER_MS;
        h->nclients++;
        client_read(h, c);
    }
}

/* The poll set: the listening socket (unless accepting is paused), the
 * wake-up pipe, every connection. Returns its size; *timeout_ms is the
 * time to the nearest deadline (-1: none). */
static nfds_t poll_set(struct sb_metrics_http *h, uint64_t now, int *timeout_ms)
{
    nfds_t n = 2;
    uint64_t next = UINT64_MAX;
    /* Paused while out of descriptors, or while the set is full of
     * young connections (a slot freed resumes accepting at once). */
    bool out_of_fds = now < h->fds_retry_at;
    bool full = h->nclients == SB_METRICS_HTTP_CLIENTS && now < h->full_retry_at;
    bool paused = out_of_fds || full;

    h->pfd[0] = (struct pollfd){.fd = paused ? -1 : h->fd, .events = POLLIN};
    h->pfd[1] = (struct pollfd){.fd = h->wake[0], .events = POLLIN};
    if (out_of_fds)
        next = h->fds_retry_at;
    if (full && h->full_retry_at < next)
        next = h->full_retry_at;
    for (size_t i = 0; i < SB_METRICS_HTTP_CLIENTS; i++) {
        const struct client *c = &h->clients[i];
        if (c->state == CLIENT_FREE)
            continue;
        h->pfd[n] = (struct pollfd){.fd = c->fd,
                                    .events = c->state == CLIENT_WRITING ? POLLOUT : POLLIN};
        h->slot_of[n - 2] = i;
        n++;
        if (c->deadline < next)
            next = c->deadline;
    }
    *timeout_ms = next == UINT64_MAX ? -1
                  : next <= now      ? 0
                                     : (int)((next - now + SB_NS_PER_MS - 1) / SB_NS_PER_MS);
    return n;
}

static void serve_ready(struct sb_metrics_http *h, nfds_t n)
{
    for (nfds_t k = 2; k < n; k++) {
        struct client *c = &h->clients[h->slot_of[k - 2]];

        if (h->pfd[k].revents == 0 || c->state == CLIENT_FREE || c->fd != h->pfd[k].fd)
            continue;
        if (c->state == CLIENT_READING)
            client_read(h, c);
        else if (c->state == CLIENT_WRITING)
            client_write(h, c);
        else
            client_drain(h, c);
    }
}

static void *serve_main(void *arg)
{
    struct sb_metrics_http *h = arg;

    for (;;) {
        int timeout_ms;
        uint64_t now = sb_now_ns();
        nfds_t n = poll_set(h, now, &timeout_ms);

        if (poll(h->pfd, n, timeout_ms) < 0 && errno != EINTR)
            break;
        if (h->pfd[1].revents != 0)
            break;
        serve_ready(h, n);
        now = sb_now_ns();
        for (size_t i = 0; i < SB_METRICS_HTTP_CLIENTS; i++)
            if (h->clients[i].state != CLIENT_FREE && h->clients[i].deadline <= now)
                client_close(h, &h->clients[i]);
        if (h->pfd[0].fd >= 0 && (h->pfd[0].revents & POLLIN))
            accept_all(h, now);
    }
    return NULL;
}

/* --------------------------------------------------------- start, stop */

static void free_server(struct sb_metrics_http *h)
{
    for (size_t i = 0; i < SB_METRICS_HTTP_CLIENTS; i++)
        if (h->clients[i].state != CLIENT_FREE)
            client_close(h, &h->clients[i]);
    if (h->fd >= 0)
        close(h->fd);
    if (h->wake[0] >= 0) {
        close(h->wake[0]);
        close(h->wake[1]);
    }
    if (h->token != NULL) {
        memset(h->token, 0, h->token_len);
        free(h->token);
    }
    free(h);
}

struct sb_metrics_http *sb_metrics_http_start(const char *hostport, const char *token,
                                              struct sb_metrics *m, char *err, size_t errlen)
{
    struct sb_metrics_http *h;
    char host[256];
    unsigned port;
    sigset_t all, old;
    int rc;

    if (sb_metrics_http_parse(hostport, host, sizeof(host), &port) != 0) {
        snprintf(err, errlen, "invalid value for --metrics-listen: '%s' (expected HOST:PORT, "
                 "e.g. 127.0.0.1:9100, [::1]:9100 or :9100 for every address)",
                 hostport ? hostport : "");
        return NULL;
    }
    h = calloc(1, sizeof(*h));
    if (h == NULL || (token != NULL && (h->token = strdup(token)) == NULL)) {
        free(h);
        snprintf(err, errlen, "--metrics-listen: out of memory");
        return NULL;
    }
    h->m = m;
    h->token_len = token != NULL ? strlen(token) : 0;
    h->wake[0] = h->wake[1] = -1;
    for (size_t i = 0; i < SB_METRICS_HTTP_CLIENTS; i++)
        h->clients[i].fd = -1;
    if (listen_on(h, hostport, host, port, err, errlen) != 0) {
        free_server(h);
        return NULL;
    }
    if (pipe2(h->wake, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "--metrics-listen: pipe: %s", strerror(errno));
        h->wake[0] = h->wake[1] = -1;
        free_server(h);
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
        free_server(h);
        return NULL;
    }
    return h;
}

unsigned sb_metrics_http_port(const struct sb_metrics_http *h)
{
    return h->port;
}

const char *sb_metrics_http_address(const struct sb_metrics_http *h)
{
    return h->address;
}

bool sb_metrics_http_wildcard(const struct sb_metrics_http *h)
{
    return h->wildcard;
}

const char *sb_metrics_http_scope(const struct sb_metrics_http *h)
{
    return h->scope;
}

void sb_metrics_http_stop(struct sb_metrics_http *h)
{
    ssize_t w;

    if (h == NULL)
        return;
    w = write(h->wake[1], "x", 1);
    (void)w;
    pthread_join(h->thread, NULL);
    free_server(h);
}
