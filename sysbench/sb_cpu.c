/*
 * CPU accounting; see sb_cpu.h. Linux only: everything but the client's own
 * times comes from /proc.
 */
#include "sb_cpu.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Socket inodes one endpoint may map to (IPv4 and IPv6 listeners, several
 * listeners with SO_REUSEPORT). */
#define MAX_INODES 64

/* Process owning one of those inodes; more than the result can hold, so
 * the "top owner" rule sees every owner before trimming. */
#define MAX_OWNERS 256

/* Addresses a resolved TCP host may have. */
#define MAX_ADDRS 16

/* __SO_ACCEPTCON in the kernel: the socket is listening. */
#define UNIX_FLAG_ACCEPTCON 0x00010000u

/* ------------------------------------------------------------ helpers */

static void set_msg(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_msg(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (buf == NULL || len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

static const char *skip_spaces(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Converts clock ticks to nanoseconds without overflowing for any
 * realistic tick count: whole seconds and the remainder separately. */
static uint64_t ticks_to_ns(uint64_t ticks, long hz)
{
    uint64_t h = hz > 0 ? (uint64_t)hz : 100;

    return (ticks / h) * 1000000000ULL + (ticks % h) * 1000000000ULL / h;
}

static long clock_ticks(void)
{
    long hz = sysconf(_SC_CLK_TCK);

    return hz > 0 ? hz : 100;
}

/* Reads a small file (a /proc/<pid>/stat line) into buf, NUL-terminated.
 * Returns the length, or -1 with errno set. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    size_t len = 0;

    if (fd < 0)
        return -1;
    while (len + 1 < cap) {
        ssize_t n = read(fd, buf + len, cap - 1 - len);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    return (ssize_t)len;
}

/* Reads a whole file of unknown size (/proc/stat) into a malloc'd,
 * NUL-terminated buffer the caller frees. Returns NULL on error. */
static char *read_all(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    size_t cap = 16384, len = 0;
    char *buf;

    if (fd < 0)
        return NULL;
    buf = malloc(cap);
    if (buf == NULL) {
        close(fd);
        return NULL;
    }
    for (;;) {
        ssize_t n;

        if (len + 1 == cap) {
            char *bigger = realloc(buf, cap * 2);

            if (bigger == NULL) {
                free(buf);
                close(fd);
                return NULL;
            }
            buf = bigger;
            cap *= 2;
        }
        n = read(fd, buf + len, cap - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(buf);
            close(fd);
            return NULL;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    return buf;
}

/* True if name is all decimal digits (a /proc/<pid> entry). */
static bool is_pid_name(const char *name)
{
    if (*name == '\0')
        return false;
    for (; *name != '\0'; name++)
        if (!isdigit((unsigned char)*name))
            return false;
    return true;
}

/* ------------------------------------------------------- pure parsers */

/* Numeric fields read from /proc/<pid>/stat after the state: 4 (ppid) to
 * 22 (starttime); up to 17 (cstime) they are required. */
#define STAT_NFIELDS 19
#define STAT_MIN_FIELDS 14

int sb_cpu_parse_proc_stat(const char *text, struct sb_cpu_proc_stat *out)
{
    long long f[STAT_NFIELDS];
    const char *open_paren, *close_paren, *p;
    char *end;
    size_t len;
    long long pid;
    int n;

    memset(out, 0, sizeof(*out));
    open_paren = strchr(text, '(');
    /* The comm may contain ')' itself, but nothing after it can: the last
     * one in the text closes the comm. */
    close_paren = strrchr(text, ')');
    if (open_paren == NULL || close_paren == NULL || close_paren < open_paren)
        return -1;

    errno = 0;
    pid = strtoll(text, &end, 10);
    if (end == text || errno != 0 || pid <= 0 || pid > INT_MAX)
        return -1;
    if (skip_spaces(end) != open_paren)
        return -1;
    out->pid = (pid_t)pid;

    len = (size_t)(close_paren - open_paren - 1);
    if (len >= sizeof(out->comm))
        len = sizeof(out->comm) - 1;
    memcpy(out->comm, open_paren + 1, len);
    out->comm[len] = '\0';

    p = skip_spaces(close_paren + 1);
    if (*p == '\0' || isspace((unsigned char)*p))
        return -1;
    out->state = *p++;

    for (n = 0; n < STAT_NFIELDS; n++) {
        p = skip_spaces(p);
        errno = 0;
        f[n] = strtoll(p, &end, 10);
        if (end == p || errno != 0)
            break;
        p = end;
    }
    /* Fields up to cstime are needed; later ones are optional. */
    if (n < STAT_MIN_FIELDS)
        return -1;
    for (; n < STAT_NFIELDS; n++)
        f[n] = 0;

    out->ppid = (pid_t)f[0];
    /* Indices: field number - 4. Negative times (cutime/cstime are signed
     * in the kernel) are never legitimate and count as zero. */
    out->utime = f[10] > 0 ? (uint64_t)f[10] : 0;
    out->stime = f[11] > 0 ? (uint64_t)f[11] : 0;
    out->cutime = f[12] > 0 ? (uint64_t)f[12] : 0;
    out->cstime = f[13] > 0 ? (uint64_t)f[13] : 0;
    out->num_threads = (long)f[16];
    out->starttime = f[18] > 0 ? (uint64_t)f[18] : 0;
    return 0;
}

int sb_cpu_parse_stat_cpu_line(const char *line,
                               struct sb_cpu_machine_stat *out)
{
    uint64_t v[10] = {0};
    const char *p = line;
    char *end;
    int n;

    memset(out, 0, sizeof(*out));
    if (strncmp(p, "cpu", 3) != 0)
        return -1;
    p += 3;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p != ' ' && *p != '\t')
        return -1;

    for (n = 0; n < 10; n++) {
        p = skip_spaces(p);
        if (!isdigit((unsigned char)*p))
            break;
        errno = 0;
        v[n] = strtoull(p, &end, 10);
        if (errno != 0)
            return -1;
        p = end;
    }
    /* user nice system idle exist on every kernel this can run on. */
    if (n < 4)
        return -1;
    out->user = v[0];
    out->nice = v[1];
    out->system = v[2];
    out->idle = v[3];
    out->iowait = v[4];
    out->irq = v[5];
    out->softirq = v[6];
    out->steal = v[7];
    out->guest = v[8];
    out->guest_nice = v[9];
    return 0;
}

int sb_cpu_parse_proc_stat_text(const char *text,
                                struct sb_cpu_machine_stat *out,
                                unsigned *ncpus)
{
    const char *line = text;
    bool have_total = false;
    unsigned count = 0;

    memset(out, 0, sizeof(*out));
    while (line != NULL && *line != '\0') {
        if (strncmp(line, "cpu", 3) == 0) {
            if (line[3] == ' ' || line[3] == '\t') {
                if (sb_cpu_parse_stat_cpu_line(line, out) == 0)
                    have_total = true;
            } else if (isdigit((unsigned char)line[3])) {
                count++;
            }
        }
        line = strchr(line, '\n');
        if (line != NULL)
            line++;
    }
    *ncpus = count;
    return have_total && count > 0 ? 0 : -1;
}

int sb_cpu_parse_net_unix_line(const char *line,
                               struct sb_cpu_unix_entry *out)
{
    unsigned long long v[5];
    const char *p = line;
    char *end;
    size_t len;
    int i;

    memset(out, 0, sizeof(*out));
    /* "Num: RefCount Protocol Flags Type St Inode Path"; Num is a kernel
     * address (zeros when hidden), the next five are hex. */
    p = skip_spaces(p);
    if (!isxdigit((unsigned char)*p))
        return -1;
    strtoull(p, &end, 16);
    if (*end != ':')
        return -1;
    p = end + 1;
    for (i = 0; i < 5; i++) {
        p = skip_spaces(p);
        if (!isxdigit((unsigned char)*p))
            return -1;
        errno = 0;
        v[i] = strtoull(p, &end, 16);
        if (errno != 0)
            return -1;
        p = end;
    }
    p = skip_spaces(p);
    if (!isdigit((unsigned char)*p))
        return -1;
    errno = 0;
    out->inode = strtoull(p, &end, 10);
    if (errno != 0)
        return -1;
    p = end;

    out->flags = (uint32_t)v[2];
    out->type = (unsigned)v[3];
    out->state = (unsigned)v[4];
    out->listening = (out->flags & UNIX_FLAG_ACCEPTCON) != 0;

    /* The path is separated by one space and is the rest of the line; it
     * may contain spaces of its own. */
    if (*p == ' ')
        p++;
    len = strcspn(p, "\n");
    if (len >= sizeof(out->path))
        len = sizeof(out->path) - 1;
    memcpy(out->path, p, len);
    out->path[len] = '\0';
    return 0;
}

/* Parses exactly n hex digits at s. Returns 0 or -1. */
static int parse_hex_n(const char *s, size_t n, uint32_t *v)
{
    uint32_t x = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        unsigned d;

        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return -1;
        x = (x << 4) | d;
    }
    *v = x;
    return 0;
}

/* Parses "ADDR:PORT" of /proc/net/tcp(6) at *pp. The kernel prints each
 * 32-bit word of the address as a host-order integer, so storing the value
 * back in host order restores the network byte order of the address. */
static int parse_tcp_addr(const char **pp, int *family, uint8_t addr[16],
                          uint16_t *port)
{
    const char *p = skip_spaces(*pp);
    size_t n = strspn(p, "0123456789abcdefABCDEF");
    uint32_t w, pv;
    size_t i;

    if ((n != 8 && n != 32) || p[n] != ':')
        return -1;
    memset(addr, 0, 16);
    for (i = 0; i < n / 8; i++) {
        if (parse_hex_n(p + i * 8, 8, &w) != 0)
            return -1;
        memcpy(addr + i * 4, &w, 4);
    }
    *family = n == 8 ? AF_INET : AF_INET6;
    p += n + 1;
    if (strspn(p, "0123456789abcdefABCDEF") != 4 || parse_hex_n(p, 4, &pv) != 0)
        return -1;
    *port = (uint16_t)pv;
    *pp = p + 4;
    return 0;
}

int sb_cpu_parse_net_tcp_line(const char *line, struct sb_cpu_tcp_entry *out)
{
    const char *p = skip_spaces(line);
    unsigned long long v;
    char *end;
    int rfamily, i;

    memset(out, 0, sizeof(*out));
    /* "sl: local remote st tx:rx tr:when retrnsmt uid timeout inode ..." */
    if (!isdigit((unsigned char)*p))
        return -1;
    strtoul(p, &end, 10);
    if (*end != ':')
        return -1;
    p = end + 1;
    if (parse_tcp_addr(&p, &out->family, out->local_addr,
                       &out->local_port) != 0)
        return -1;
    if (parse_tcp_addr(&p, &rfamily, out->remote_addr,
                       &out->remote_port) != 0 || rfamily != out->family)
        return -1;

    p = skip_spaces(p);
    errno = 0;
    v = strtoull(p, &end, 16);
    if (end == p || errno != 0)
        return -1;
    out->state = (unsigned)v;
    p = end;

    /* tx_queue:rx_queue, tr:tm->when, then retrnsmt. */
    for (i = 0; i < 2; i++) {
        p = skip_spaces(p);
        strtoull(p, &end, 16);
        if (end == p || *end != ':')
            return -1;
        p = end + 1;
        strtoull(p, &end, 16);
        if (end == p)
            return -1;
        p = end;
    }
    p = skip_spaces(p);
    strtoull(p, &end, 16);
    if (end == p)
        return -1;
    p = skip_spaces(end);

    errno = 0;
    v = strtoull(p, &end, 10);
    if (end == p || errno != 0)
        return -1;
    out->uid = (unsigned)v;
    p = skip_spaces(end);
    strtoll(p, &end, 10);             /* timeout */
    if (end == p)
        return -1;
    p = skip_spaces(end);
    errno = 0;
    v = strtoull(p, &end, 10);
    if (end == p || errno != 0)
        return -1;
    out->inode = v;
    return 0;
}

/* ----------------------------------------------------------- sampling */

pid_t sb_cpu_gettid(void)
{
    /* syscall() rather than gettid(), which glibc only has since 2.30. */
    return (pid_t)syscall(SYS_gettid);
}

int sb_cpu_sample_self(struct sb_cpu_times *out)
{
    struct rusage ru;

    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    out->user_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000ULL +
                   (uint64_t)ru.ru_utime.tv_usec * 1000ULL;
    out->system_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000ULL +
                     (uint64_t)ru.ru_stime.tv_usec * 1000ULL;
    return 0;
}

/* Reads and parses one /proc stat file. */
static int read_proc_stat(const char *path, struct sb_cpu_proc_stat *ps)
{
    char buf[1024];

    if (read_small(path, buf, sizeof(buf)) <= 0)
        return -1;
    return sb_cpu_parse_proc_stat(buf, ps);
}

int sb_cpu_sample_thread(pid_t tid, struct sb_cpu_times *out)
{
    struct sb_cpu_proc_stat ps;
    char path[64];
    long hz = clock_ticks();

    snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
    if (read_proc_stat(path, &ps) != 0)
        return -1;
    out->user_ns = ticks_to_ns(ps.utime, hz);
    out->system_ns = ticks_to_ns(ps.stime, hz);
    return 0;
}

int sb_cpu_sample_process(pid_t pid, bool with_reaped,
                          struct sb_cpu_times *out)
{
    struct sb_cpu_proc_stat ps;
    char path[64];
    long hz = clock_ticks();
    uint64_t u, s;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    if (read_proc_stat(path, &ps) != 0)
        return -1;
    u = ps.utime + (with_reaped ? ps.cutime : 0);
    s = ps.stime + (with_reaped ? ps.cstime : 0);
    out->user_ns = ticks_to_ns(u, hz);
    out->system_ns = ticks_to_ns(s, hz);
    return 0;
}

/* One process seen in a /proc scan. */
struct proc_entry {
    pid_t pid;
    pid_t ppid;
    uint64_t user_ticks;          /* utime + cutime */
    uint64_t system_ticks;        /* stime + cstime */
};

static int cmp_entry_pid(const void *a, const void *b)
{
    const struct proc_entry *x = a, *y = b;

    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Reads every process's stat into a malloc'd array sorted by pid. Returns
 * the count (0 with *out NULL if /proc cannot be read). */
static size_t scan_processes(struct proc_entry **out)
{
    struct proc_entry *arr = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    DIR *d = opendir("/proc");

    *out = NULL;
    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL) {
        struct sb_cpu_proc_stat ps;
        char path[64];

        if (!is_pid_name(de->d_name))
            continue;
        snprintf(path, sizeof(path), "/proc/%d/stat", atoi(de->d_name));
        /* A process that exits during the scan simply is not seen. */
        if (read_proc_stat(path, &ps) != 0)
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 512;
            struct proc_entry *bigger = realloc(arr, ncap * sizeof(*arr));

            if (bigger == NULL)
                break;
            arr = bigger;
            cap = ncap;
        }
        arr[n].pid = ps.pid;
        arr[n].ppid = ps.ppid;
        arr[n].user_ticks = ps.utime + ps.cutime;
        arr[n].system_ticks = ps.stime + ps.cstime;
        n++;
    }
    closedir(d);
    if (n > 0)
        qsort(arr, n, sizeof(*arr), cmp_entry_pid);
    *out = arr;
    return n;
}

static ptrdiff_t find_entry(const struct proc_entry *arr, size_t n, pid_t pid)
{
    struct proc_entry key;
    const struct proc_entry *hit;

    key.pid = pid;
    hit = n ? bsearch(&key, arr, n, sizeof(*arr), cmp_entry_pid) : NULL;
    return hit ? hit - arr : -1;
}

/* The process trees below the server's pids, found afresh from /proc. */
static size_t sample_server_tree(const struct sb_cpu_server *server,
                                 struct sb_cpu_times *out)
{
    struct proc_entry *arr;
    size_t n = scan_processes(&arr), i, counted = 0;
    uint64_t u = 0, s = 0;
    long hz = clock_ticks();
    ptrdiff_t *parent = NULL;
    bool *in = NULL, changed;

    if (n > 0) {
        parent = malloc(n * sizeof(*parent));
        in = calloc(n, sizeof(*in));
    }
    if (n > 0 && (parent == NULL || in == NULL))
        n = 0;                    /* out of memory: fall back below */

    for (i = 0; i < n; i++)
        parent[i] = find_entry(arr, n, arr[i].ppid);
    for (i = 0; i < server->npids; i++) {
        ptrdiff_t k = find_entry(arr, n, server->pids[i]);

        if (k >= 0)
            in[k] = true;
    }
    /* Mark descendants; each pass adds one more generation. */
    do {
        changed = false;
        for (i = 0; i < n; i++) {
            if (!in[i] && parent[i] >= 0 && in[parent[i]]) {
                in[i] = true;
                changed = true;
            }
        }
    } while (changed);
    for (i = 0; i < n; i++) {
        if (in[i]) {
            u += arr[i].user_ticks;
            s += arr[i].system_ticks;
            counted++;
        }
    }
    /* A pid /proc did not list (a thread id, or the scan failed) is read
     * directly, so a named pid is never silently ignored. */
    for (i = 0; i < server->npids; i++) {
        struct sb_cpu_times t;

        if (find_entry(arr, n, server->pids[i]) >= 0)
            continue;
        if (sb_cpu_sample_process(server->pids[i], true, &t) == 0) {
            out->user_ns += t.user_ns;
            out->system_ns += t.system_ns;
            counted++;
        }
    }
    out->user_ns += ticks_to_ns(u, hz);
    out->system_ns += ticks_to_ns(s, hz);
    free(parent);
    free(in);
    free(arr);
    return counted;
}

size_t sb_cpu_sample_server(const struct sb_cpu_server *server,
                            struct sb_cpu_times *out)
{
    size_t i, counted = 0;

    out->user_ns = 0;
    out->system_ns = 0;
    if (server == NULL || server->npids == 0)
        return 0;
    if (server->include_children) {
        counted = sample_server_tree(server, out);
    } else {
        for (i = 0; i < server->npids; i++) {
            struct sb_cpu_times t;

            if (sb_cpu_sample_process(server->pids[i], false, &t) != 0)
                continue;
            out->user_ns += t.user_ns;
            out->system_ns += t.system_ns;
            counted++;
        }
    }
    if (counted == 0) {
        out->user_ns = 0;
        out->system_ns = 0;
    }
    return counted;
}

int sb_cpu_sample_machine(struct sb_cpu_machine_stat *out, unsigned *ncpus)
{
    char *text = read_all("/proc/stat");
    int rc;

    if (text == NULL)
        return -1;
    rc = sb_cpu_parse_proc_stat_text(text, out, ncpus);
    free(text);
    return rc;
}

int sb_cpu_sample(struct sb_cpu_sample *s, const struct sb_cpu_server *server)
{
    struct timespec ts;

    memset(s, 0, sizeof(*s));
    clock_gettime(CLOCK_MONOTONIC, &ts);
    s->mono_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
    s->clk_tck = clock_ticks();
    if (sb_cpu_sample_self(&s->client) != 0)
        return -1;
    if (server != NULL)
        s->server_nprocs = sb_cpu_sample_server(server, &s->server);
    s->machine_ok = sb_cpu_sample_machine(&s->machine, &s->ncpus) == 0;
    if (!s->machine_ok || s->ncpus == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);

        s->ncpus = n > 0 ? (unsigned)n : 1;
    }
    return 0;
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

        if (!is_pid_name(de->d_name))
            continue;
        snprintf(path, sizeof(path), "/proc/%d/fd", atoi(de->d_name));
        fddir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fddir < 0) {
            if (errno == EACCES || errno == EPERM) {
                if (os->denied++ == 0)
                    os->first_denied = (pid_t)atoi(de->d_name);
            }
            continue;
        }
        if (process_owns(fddir, inodes, n))
            os->owners[os->nowners++] = (pid_t)atoi(de->d_name);
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

int sb_cpu_find_server(const char *endpoint, pid_t *pids, size_t max,
                       char *why, size_t whylen)
{
    uint64_t inodes[MAX_INODES];
    size_t ninodes = 0, i, nout = 0;
    struct owner_scan *os;

    set_msg(why, whylen, "%s", "");
    if (endpoint == NULL) {
        set_msg(why, whylen, "no server endpoint");
        return 0;
    }
    if (strncmp(endpoint, "unix:", 5) == 0) {
        const char *path = endpoint + 5;

        if (*path == '\0') {
            set_msg(why, whylen, "bad server endpoint '%s'", endpoint);
            return 0;
        }
        scan_unix(path, inodes, &ninodes);
    } else if (strncmp(endpoint, "tcp:", 4) == 0) {
        char host[256];
        unsigned port;
        struct tcp_target t;
        int where;

        if (split_host_port(endpoint + 4, host, sizeof(host), &port) != 0) {
            set_msg(why, whylen, "bad server endpoint '%s'", endpoint);
            return 0;
        }
        where = classify_host(host, &t);
        if (where < 0) {
            set_msg(why, whylen, "cannot resolve server host %s", host);
            return 0;
        }
        if (where > 0) {
            set_msg(why, whylen, "server is remote (%s)", host);
            return 0;
        }
        scan_tcp_file("/proc/net/tcp", port, &t, inodes, &ninodes);
        scan_tcp_file("/proc/net/tcp6", port, &t, inodes, &ninodes);
    } else {
        set_msg(why, whylen, "bad server endpoint '%s' (want unix:PATH or "
                "tcp:HOST:PORT)", endpoint);
        return 0;
    }

    if (ninodes == 0) {
        set_msg(why, whylen, "no local process listens on %s", endpoint);
        return 0;
    }

    /* Large enough not to live on a worker's stack. */
    os = malloc(sizeof(*os));
    if (os == NULL) {
        set_msg(why, whylen, "out of memory");
        return 0;
    }
    scan_owners(inodes, ninodes, os);
    if (os->nowners == 0) {
        if (os->denied > 0)
            set_msg(why, whylen, "permission denied reading /proc/%d/fd "
                    "(and %zu other processes): cannot tell which process "
                    "listens on %s; name it with --server-pid",
                    (int)os->first_denied, os->denied - 1, endpoint);
        else
            set_msg(why, whylen, "the socket listening on %s belongs to no "
                    "visible process (another PID namespace?)", endpoint);
        free(os);
        return 0;
    }

    /* Keep the top owners: a forked worker (or a PostgreSQL child that has
     * not closed the listener yet) shares its parent's socket, and the
     * caller reaches it through the parent anyway. */
    for (i = 0; i < os->nowners && nout < max; i++) {
        char path[64];
        struct sb_cpu_proc_stat ps;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int)os->owners[i]);
        if (read_proc_stat(path, &ps) == 0 &&
            pid_in(os->owners, os->nowners, ps.ppid))
            continue;
        pids[nout++] = os->owners[i];
    }
    free(os);
    if (nout == 0)
        set_msg(why, whylen, "no room for the server's pids");
    return (int)nout;
}

int sb_cpu_parse_pid_list(const char *s, pid_t *pids, size_t max,
                          char *err, size_t errlen)
{
    const char *p = s;
    size_t n = 0;

    if (s == NULL || *skip_spaces(s) == '\0') {
        set_msg(err, errlen, "--server-pid: empty list");
        return -1;
    }
    for (;;) {
        char *end;
        long v;
        char path[64];
        struct stat st;

        p = skip_spaces(p);
        if (!isdigit((unsigned char)*p)) {
            set_msg(err, errlen, "--server-pid: expected a pid at '%s'", p);
            return -1;
        }
        errno = 0;
        v = strtol(p, &end, 10);
        if (errno != 0 || v <= 0 || v > INT_MAX) {
            set_msg(err, errlen, "--server-pid: bad pid '%.*s'",
                    (int)(end - p), p);
            return -1;
        }
        p = skip_spaces(end);
        if (*p != ',' && *p != '\0') {
            set_msg(err, errlen, "--server-pid: bad pid list at '%s'", p);
            return -1;
        }
        snprintf(path, sizeof(path), "/proc/%ld/stat", v);
        if (stat(path, &st) != 0) {
            set_msg(err, errlen, "--server-pid: no process with pid %ld", v);
            return -1;
        }
        if (!pid_in(pids, n, (pid_t)v)) {
            if (n == max) {
                set_msg(err, errlen, "--server-pid: more than %zu pids", max);
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

/* --------------------------------------------------------- the figures */

static uint64_t delta(uint64_t before, uint64_t after)
{
    /* A counter that goes down (a server child lost between samples) is
     * treated as no progress rather than as a huge unsigned wrap. */
    return after >= before ? after - before : 0;
}

static double clamp_pct(double v)
{
    if (!(v > 0))                 /* also catches NAN */
        return 0;
    return v > 100 ? 100 : v;
}

void sb_cpu_times_figures(const struct sb_cpu_times *before,
                          const struct sb_cpu_times *after,
                          uint64_t transactions, double elapsed_s,
                          unsigned ncpus, struct sb_cpu_figures *out)
{
    uint64_t du = delta(before->user_ns, after->user_ns);
    uint64_t ds = delta(before->system_ns, after->system_ns);

    out->measured = true;
    out->cpu_s = (double)(du + ds) / 1e9;
    if (transactions > 0) {
        double tx = (double)transactions;

        out->user_us_per_tx = (double)du / 1e3 / tx;
        out->system_us_per_tx = (double)ds / 1e3 / tx;
        out->total_us_per_tx = (double)(du + ds) / 1e3 / tx;
    } else {
        out->user_us_per_tx = NAN;
        out->system_us_per_tx = NAN;
        out->total_us_per_tx = NAN;
    }
    if (elapsed_s > 0 && ncpus > 0)
        out->util_pct = clamp_pct(out->cpu_s /
                                  (elapsed_s * (double)ncpus) * 100.0);
    else
        out->util_pct = 0;
}

static void unmeasured(struct sb_cpu_figures *f)
{
    f->measured = false;
    f->cpu_s = 0;
    f->user_us_per_tx = NAN;
    f->system_us_per_tx = NAN;
    f->total_us_per_tx = NAN;
    f->util_pct = 0;
}

static void machine_figures(const struct sb_cpu_sample *a,
                            const struct sb_cpu_sample *b,
                            uint64_t transactions,
                            struct sb_cpu_machine_figures *out)
{
    const struct sb_cpu_machine_stat *x = &a->machine, *y = &b->machine;
    uint64_t user = delta(x->user, y->user) + delta(x->nice, y->nice);
    uint64_t sys = delta(x->system, y->system) + delta(x->irq, y->irq) +
                   delta(x->softirq, y->softirq);
    uint64_t steal = delta(x->steal, y->steal);
    uint64_t iowait = delta(x->iowait, y->iowait);
    uint64_t idle = delta(x->idle, y->idle);
    uint64_t busy = user + sys + steal;
    uint64_t all = busy + iowait + idle;
    double hz = (double)(b->clk_tck > 0 ? b->clk_tck : 100);

    memset(out, 0, sizeof(*out));
    out->measured = true;
    if (transactions > 0) {
        double us_per_tick_tx = 1e6 / hz / (double)transactions;

        out->user_us_per_tx = (double)user * us_per_tick_tx;
        out->system_us_per_tx = (double)sys * us_per_tick_tx;
        out->busy_us_per_tx = (double)busy * us_per_tick_tx;
    } else {
        out->user_us_per_tx = NAN;
        out->system_us_per_tx = NAN;
        out->busy_us_per_tx = NAN;
    }
    if (all > 0) {
        double t = (double)all;

        out->util_pct = clamp_pct((double)busy / t * 100.0);
        out->user_pct = clamp_pct((double)user / t * 100.0);
        out->system_pct = clamp_pct((double)sys / t * 100.0);
        out->iowait_pct = clamp_pct((double)iowait / t * 100.0);
        out->steal_pct = clamp_pct((double)steal / t * 100.0);
        out->idle_pct = clamp_pct((double)idle / t * 100.0);
    }
}

void sb_cpu_compute(const struct sb_cpu_sample *before,
                    const struct sb_cpu_sample *after,
                    uint64_t transactions, struct sb_cpu_report *out)
{
    uint64_t dt = delta(before->mono_ns, after->mono_ns);

    memset(out, 0, sizeof(*out));
    out->elapsed_s = (double)dt / 1e9;
    out->ncpus = after->ncpus > 0 ? after->ncpus : 1;
    out->transactions = transactions;

    sb_cpu_times_figures(&before->client, &after->client, transactions,
                         out->elapsed_s, out->ncpus, &out->client);
    if (before->server_nprocs > 0 && after->server_nprocs > 0)
        sb_cpu_times_figures(&before->server, &after->server, transactions,
                             out->elapsed_s, out->ncpus, &out->server);
    else
        unmeasured(&out->server);
    if (before->machine_ok && after->machine_ok) {
        machine_figures(before, after, transactions, &out->machine);
    } else {
        memset(&out->machine, 0, sizeof(out->machine));
        out->machine.user_us_per_tx = NAN;
        out->machine.system_us_per_tx = NAN;
        out->machine.busy_us_per_tx = NAN;
    }
}
