/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Server discovery for CPU accounting: which local processes listen on
 * the socket or port a driver connects to, found through /proc/net (its
 * lines read by sb_cpu_parse.c) and each process's open file descriptors;
 * and --server-pid lists. See sb_cpu.h for the API.
 */
#include "config.h"

#include "cpu/sb_cpu.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cpu/sb_cpu_int.h"

/* Socket inodes one endpoint may map to (IPv4 and IPv6 listeners, several
 * listeners with SO_REUSEPORT). */
#define MAX_INODES 64

/* Process owning one of those inodes; more than the result can hold, so
 * the "top owner" rule sees every owner before trimming. */
#define MAX_OWNERS 256

/* Addresses a resolved TCP host may have. */
#define MAX_ADDRS 16

void sb_cpu_msg(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (buf == NULL || len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------- server discovery */

/* Addresses are kept as 16 bytes, IPv4 as IPv4-mapped IPv6 (::ffff:a.b.c.d),
 * so that IPv4 and IPv6 listeners compare alike. */
struct addr16 {
    uint8_t b[16];
};

static void addr_from_v4(struct addr16 *a, const void *v4)
{
    memset(a->b, 0, 10);
    a->b[10] = 0xff;
    a->b[11] = 0xff;
    memcpy(a->b + 12, v4, 4);
}

static bool addr_is_v4mapped(const struct addr16 *a)
{
    static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                       0xff, 0xff};

    return memcmp(a->b, prefix, 12) == 0;
}

static bool addr_is_any(const struct addr16 *a)
{
    static const uint8_t zero[16] = {0};

    if (memcmp(a->b, zero, 16) == 0)
        return true;
    return addr_is_v4mapped(a) && memcmp(a->b + 12, zero, 4) == 0;
}

static bool addr_is_loopback(const struct addr16 *a)
{
    static const uint8_t v6lo[16] = {0, 0, 0, 0, 0, 0, 0, 0,
                                     0, 0, 0, 0, 0, 0, 0, 1};

    if (memcmp(a->b, v6lo, 16) == 0)
        return true;
    return addr_is_v4mapped(a) && a->b[12] == 127;
}

static bool addr_from_sockaddr(struct addr16 *a, const struct sockaddr *sa)
{
    if (sa == NULL)
        return false;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

        addr_from_v4(a, &in->sin_addr);
        return true;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

        memcpy(a->b, &in6->sin6_addr, 16);
        return true;
    }
    return false;
}

/* True if a is assigned to one of this machine's interfaces. */
static bool addr_is_local_interface(const struct addr16 *a)
{
    struct ifaddrs *ifs, *it;
    bool found = false;

    if (getifaddrs(&ifs) != 0)
        return false;
    for (it = ifs; it != NULL && !found; it = it->ifa_next) {
        struct addr16 x;

        if (addr_from_sockaddr(&x, it->ifa_addr) &&
            memcmp(x.b, a->b, 16) == 0)
            found = true;
    }
    freeifaddrs(ifs);
    return found;
}

/* Where a TCP host is, and which local listener addresses serve it. */
struct tcp_target {
    bool loopback;                /* any loopback listener serves it */
    struct addr16 addrs[MAX_ADDRS];
    size_t naddrs;                /* local non-loopback addresses of host */
};

/* Classifies host. Returns 0 if it is this machine, 1 if remote, -1 if it
 * cannot be resolved. */
static int classify_host(const char *host, struct tcp_target *t)
{
    struct addrinfo hints, *res, *ai;
    struct in_addr v4;
    struct in6_addr v6;
    struct addr16 one[1];
    size_t ncand = 0;

    memset(t, 0, sizeof(*t));
    if (strcasecmp(host, "localhost") == 0) {
        t->loopback = true;
        return 0;
    }
    if (inet_pton(AF_INET, host, &v4) == 1) {
        addr_from_v4(&one[0], &v4);
        ncand = 1;
    } else if (inet_pton(AF_INET6, host, &v6) == 1) {
        memcpy(one[0].b, &v6, 16);
        ncand = 1;
    }
    if (ncand == 1) {
        /* Connecting to the wildcard address reaches this machine too. */
        if (addr_is_loopback(&one[0]) || addr_is_any(&one[0])) {
            t->loopback = true;
            return 0;
        }
        if (addr_is_local_interface(&one[0])) {
            t->addrs[t->naddrs++] = one[0];
            return 0;
        }
        return 1;
    }

    /* A name: the driver has just resolved it to connect, so this is
     * normally answered from a cache. */
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, NULL, &hints, &res) != 0)
        return -1;
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        struct addr16 a;

        if (!addr_from_sockaddr(&a, ai->ai_addr))
            continue;
        if (addr_is_loopback(&a) || addr_is_any(&a))
            t->loopback = true;
        else if (t->naddrs < MAX_ADDRS && addr_is_local_interface(&a))
            t->addrs[t->naddrs++] = a;
    }
    freeaddrinfo(res);
    return t->loopback || t->naddrs > 0 ? 0 : 1;
}

static bool tcp_entry_serves(const struct sb_cpu_tcp_entry *e,
                             const struct tcp_target *t)
{
    struct addr16 a;
    size_t i;

    if (e->family == AF_INET)
        addr_from_v4(&a, e->local_addr);
    else
        memcpy(a.b, e->local_addr, 16);
    if (addr_is_any(&a))
        return true;
    if (t->loopback && addr_is_loopback(&a))
        return true;
    for (i = 0; i < t->naddrs; i++)
        if (memcmp(t->addrs[i].b, a.b, 16) == 0)
            return true;
    return false;
}

static void add_inode(uint64_t *inodes, size_t *n, uint64_t inode)
{
    size_t i;

    for (i = 0; i < *n; i++)
        if (inodes[i] == inode)
            return;
    if (*n < MAX_INODES)
        inodes[(*n)++] = inode;
}

/* Listening TCP sockets on port serving target, from one /proc file. */
static void scan_tcp_file(const char *path, unsigned port,
                          const struct tcp_target *t,
                          uint64_t *inodes, size_t *n)
{
    char line[512];
    FILE *f = fopen(path, "re");

    if (f == NULL)
        return;                   /* no IPv6 on this machine, say */
    while (fgets(line, sizeof(line), f) != NULL) {
        struct sb_cpu_tcp_entry e;

        if (sb_cpu_parse_net_tcp_line(line, &e) != 0)
            continue;
        if (e.state == SB_CPU_TCP_LISTEN && e.local_port == port &&
            e.inode != 0 && tcp_entry_serves(&e, t))
            add_inode(inodes, n, e.inode);
    }
    fclose(f);
}

/* The listening unix socket(s) bound to path. A path that differs in
 * spelling (symlinks, "//") is compared after resolving both. */
static void scan_unix(const char *path, uint64_t *inodes, size_t *n)
{
    char line[SB_CPU_UNIX_PATH_MAX + 128];
    char want_real[PATH_MAX], have_real[PATH_MAX];
    bool have_want_real = realpath(path, want_real) != NULL;
    FILE *f = fopen("/proc/net/unix", "re");

    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f) != NULL) {
        struct sb_cpu_unix_entry e;

        if (sb_cpu_parse_net_unix_line(line, &e) != 0 || !e.listening ||
            e.path[0] == '\0')
            continue;
        if (strcmp(e.path, path) == 0 ||
            (have_want_real && e.path[0] == '/' &&
             realpath(e.path, have_real) != NULL &&
             strcmp(have_real, want_real) == 0))
            add_inode(inodes, n, e.inode);
    }
    fclose(f);
}

/* Outcome of scanning /proc/<pid>/fd for the socket inodes. */
struct owner_scan {
    pid_t owners[MAX_OWNERS];
    size_t nowners;
    size_t denied;                /* processes whose fd list was refused */
    pid_t first_denied;
};

static bool inode_wanted(const uint64_t *inodes, size_t n, uint64_t inode)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (inodes[i] == inode)
            return true;
    return false;
}

static bool process_owns(int fddir, const uint64_t *inodes, size_t n)
{
    DIR *d = fdopendir(fddir);
    struct dirent *de;
    bool owns = false;

    if (d == NULL) {
        close(fddir);
        return false;
    }
    while (!owns && (de = readdir(d)) != NULL) {
        char target[64];
        unsigned long long inode;
        ssize_t len;

        if (de->d_name[0] == '.')
            continue;
        len = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        if (sscanf(target, "socket:[%llu]", &inode) == 1 &&
            inode_wanted(inodes, n, (uint64_t)inode))
            owns = true;
    }
    closedir(d);
    return owns;
}

static void scan_owners(const uint64_t *inodes, size_t n,
                        struct owner_scan *os)
{
    struct dirent *de;
    DIR *d = opendir("/proc");

    memset(os, 0, sizeof(*os));
    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL && os->nowners < MAX_OWNERS) {
        char path[64];
        int fddir;
        pid_t pid;

        if (!sb_cpu_is_pid_name(de->d_name))
            continue;
        pid = (pid_t)atoi(de->d_name);
        snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
        fddir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fddir < 0) {
            if (errno == EACCES || errno == EPERM) {
                if (os->denied++ == 0)
                    os->first_denied = pid;
            }
            continue;
        }
        if (process_owns(fddir, inodes, n))
            os->owners[os->nowners++] = pid;
    }
    closedir(d);
}

static bool pid_in(const pid_t *set, size_t n, pid_t pid)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (set[i] == pid)
            return true;
    return false;
}

/* Splits "HOST:PORT" (HOST possibly "[v6]" or a bare IPv6 address, the
 * port after the last colon). Returns 0 or -1. */
static int split_host_port(const char *s, char *host, size_t hostlen,
                           unsigned *port)
{
    const char *colon = strrchr(s, ':');
    const char *h = s;
    size_t len;
    char *end;
    unsigned long p;

    if (colon == NULL || colon == s)
        return -1;
    len = (size_t)(colon - s);
    if (h[0] == '[') {
        if (len < 3 || h[len - 1] != ']')
            return -1;
        h++;
        len -= 2;
    }
    if (len == 0 || len >= hostlen)
        return -1;
    memcpy(host, h, len);
    host[len] = '\0';
    errno = 0;
    p = strtoul(colon + 1, &end, 10);
    if (end == colon + 1 || *end != '\0' || errno != 0 || p == 0 ||
        p > 65535)
        return -1;
    *port = (unsigned)p;
    return 0;
}

/* Collects the inodes of the sockets listening on a "tcp:HOST:PORT"
 * endpoint. Returns 0, or -1 with `why` set when the endpoint is bad or
 * the server is not on this machine. */
static int find_tcp_listeners(const char *endpoint, uint64_t *inodes, size_t *ninodes,
                              char *why, size_t whylen)
{
    char host[256];
    unsigned port;
    struct tcp_target t;
    int where;

    if (split_host_port(endpoint + 4, host, sizeof(host), &port) != 0) {
        sb_cpu_msg(why, whylen, "bad server endpoint '%s'", endpoint);
        return -1;
    }
    where = classify_host(host, &t);
    if (where < 0) {
        sb_cpu_msg(why, whylen, "cannot resolve server host %s", host);
        return -1;
    }
    if (where > 0) {
        sb_cpu_msg(why, whylen, "server is remote (%s)", host);
        return -1;
    }
    scan_tcp_file("/proc/net/tcp", port, &t, inodes, ninodes);
    scan_tcp_file("/proc/net/tcp6", port, &t, inodes, ninodes);
    return 0;
}

/* Collects the inodes of the sockets listening on `endpoint` (unix:PATH
 * or tcp:HOST:PORT). Returns 0, or -1 with `why` set. */
static int find_listeners(const char *endpoint, uint64_t *inodes, size_t *ninodes,
                          char *why, size_t whylen)
{
    if (strncmp(endpoint, "unix:", 5) == 0) {
        const char *path = endpoint + 5;

        if (*path == '\0') {
            sb_cpu_msg(why, whylen, "bad server endpoint '%s'", endpoint);
            return -1;
        }
        scan_unix(path, inodes, ninodes);
        return 0;
    }
    if (strncmp(endpoint, "tcp:", 4) == 0)
        return find_tcp_listeners(endpoint, inodes, ninodes, why, whylen);
    sb_cpu_msg(why, whylen, "bad server endpoint '%s' (want unix:PATH or "
            "tcp:HOST:PORT)", endpoint);
    return -1;
}

/* Explains why no process was found owning a listening socket. */
static void explain_no_owner(const struct owner_scan *os, const char *endpoint, char *why,
                             size_t whylen)
{
    if (os->denied > 0)
        sb_cpu_msg(why, whylen, "permission denied reading /proc/%d/fd "
                "(and %zu other processes): cannot tell which process "
                "listens on %s; name it with --server-pid",
                (int)os->first_denied, os->denied - 1, endpoint);
    else
        sb_cpu_msg(why, whylen, "the socket listening on %s belongs to no "
                "visible process (another PID namespace?)", endpoint);
}

/*
 * Keeps the top owners: a forked worker (or a PostgreSQL child that has
 * not closed the listener yet) shares its parent's socket, and the
 * caller reaches it through the parent anyway. Returns how many pids it
 * stored, at most `max`.
 */
static size_t keep_top_owners(const struct owner_scan *os, pid_t *pids, size_t max)
{
    size_t nout = 0;

    for (size_t i = 0; i < os->nowners && nout < max; i++) {
        char path[64];
        struct sb_cpu_proc_stat ps;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int)os->owners[i]);
        if (sb_cpu_read_proc_stat(path, &ps) == 0 &&
            pid_in(os->owners, os->nowners, ps.ppid))
            continue;
        pids[nout++] = os->owners[i];
    }
    return nout;
}

int sb_cpu_find_server(const char *endpoint, pid_t *pids, size_t max,
                       char *why, size_t whylen)
{
    uint64_t inodes[MAX_INODES];
    size_t ninodes = 0, nout;
    struct owner_scan *os;

    sb_cpu_msg(why, whylen, "%s", "");
    if (endpoint == NULL) {
        sb_cpu_msg(why, whylen, "no server endpoint");
        return 0;
    }
    if (find_listeners(endpoint, inodes, &ninodes, why, whylen) != 0)
        return 0;
    if (ninodes == 0) {
        sb_cpu_msg(why, whylen, "no local process listens on %s", endpoint);
        return 0;
    }

    /* Large enough not to live on a worker's stack. */
    os = malloc(sizeof(*os));
    if (os == NULL) {
        sb_cpu_msg(why, whylen, "out of memory");
        return 0;
    }
    scan_owners(inodes, ninodes, os);
    if (os->nowners == 0) {
        explain_no_owner(os, endpoint, why, whylen);
        free(os);
        return 0;
    }
    nout = keep_top_owners(os, pids, max);
    free(os);
    if (nout == 0)
        sb_cpu_msg(why, whylen, "no room for the server's pids");
    return (int)nout;
}

int sb_cpu_parse_pid_list(const char *s, pid_t *pids, size_t max,
                          char *err, size_t errlen)
{
    const char *p = s;
    size_t n = 0;

    if (s == NULL || *sb_cpu_skip_spaces(s) == '\0') {
        sb_cpu_msg(err, errlen, "--server-pid: empty list");
        return -1;
    }
    for (;;) {
        char *end;
        long v;
        char path[64];
        struct stat st;

        p = sb_cpu_skip_spaces(p);
        if (!isdigit((unsigned char)*p)) {
            sb_cpu_msg(err, errlen, "--server-pid: expected a pid at '%s'", p);
            return -1;
        }
        errno = 0;
        v = strtol(p, &end, 10);
        if (errno != 0 || v <= 0 || v > INT_MAX) {
            sb_cpu_msg(err, errlen, "--server-pid: bad pid '%.*s'",
                    (int)(end - p), p);
            return -1;
        }
        p = sb_cpu_skip_spaces(end);
        if (*p != ',' && *p != '\0') {
            sb_cpu_msg(err, errlen, "--server-pid: bad pid list at '%s'", p);
            return -1;
        }
        snprintf(path, sizeof(path), "/proc/%ld/stat", v);
        if (stat(path, &st) != 0) {
            sb_cpu_msg(err, errlen, "--server-pid: no process with pid %ld", v);
            return -1;
        }
        if (!pid_in(pids, n, (pid_t)v)) {
            if (n == max) {
                sb_cpu_msg(err, errlen, "--server-pid: more than %zu pids", max);
                return -1;
            }
            pids[n++] = (pid_t)v;
        }
        if (*p == '\0')
            break;
        p++;
    }
    return (int)n;
}

