/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sampling for CPU accounting: the CPU times of this process and its
 * threads (getrusage), of the server's processes and their trees, and of
 * the machine (/proc). See sb_cpu.h for the API. Linux only: everything
 * but the client's own times comes from /proc.
 */
#include "config.h"

#include "cpu/sb_cpu.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "cpu/sb_cpu_int.h"

/* ------------------------------------------------------------ helpers */

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
bool sb_cpu_is_pid_name(const char *name)
{
    if (*name == '\0')
        return false;
    for (; *name != '\0'; name++)
        if (!isdigit((unsigned char)*name))
            return false;
    return true;
}

/* ----------------------------------------------------------- sampling */

static int sample_rusage(int who, struct sb_cpu_times *out)
{
    struct rusage ru;

    if (getrusage(who, &ru) != 0)
        return -1;
    out->user_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000ULL +
                   (uint64_t)ru.ru_utime.tv_usec * 1000ULL;
    out->system_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000ULL +
                     (uint64_t)ru.ru_stime.tv_usec * 1000ULL;
    return 0;
}

int sb_cpu_sample_self(struct sb_cpu_times *out)
{
    return sample_rusage(RUSAGE_SELF, out);
}

int sb_cpu_sample_this_thread(struct sb_cpu_times *out)
{
    return sample_rusage(RUSAGE_THREAD, out);
}

/* Reads and parses one /proc stat file. */
int sb_cpu_read_proc_stat(const char *path, struct sb_cpu_proc_stat *ps)
{
    char buf[1024];

    if (read_small(path, buf, sizeof(buf)) <= 0)
        return -1;
    return sb_cpu_parse_proc_stat(buf, ps);
}

/* The CPU times of one /proc stat file (a thread's or a process's), with
 * the reaped children's added when with_reaped. */
static int sample_stat_file(const char *path, bool with_reaped, struct sb_cpu_times *out)
{
    struct sb_cpu_proc_stat ps;
    long hz = clock_ticks();

    if (sb_cpu_read_proc_stat(path, &ps) != 0)
        return -1;
    out->user_ns = ticks_to_ns(ps.utime + (with_reaped ? ps.cutime : 0), hz);
    out->system_ns = ticks_to_ns(ps.stime + (with_reaped ? ps.cstime : 0), hz);
    return 0;
}

int sb_cpu_sample_process(pid_t pid, bool with_reaped,
                          struct sb_cpu_times *out)
{
    char path[64];

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    return sample_stat_file(path, with_reaped, out);
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

        if (!sb_cpu_is_pid_name(de->d_name))
            continue;
        snprintf(path, sizeof(path), "/proc/%d/stat", atoi(de->d_name));
        /* A process that exits during the scan simply is not seen. */
        if (sb_cpu_read_proc_stat(path, &ps) != 0)
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

/* Marks in `in` (n entries) the processes of arr in the trees below the
 * server's pids. Returns -1 when out of memory. */
static int mark_tree(const struct sb_cpu_server *server, const struct proc_entry *arr,
                     size_t n, bool *in)
{
    ptrdiff_t *parent = n > 0 ? malloc(n * sizeof(*parent)) : NULL;
    size_t i;
    bool changed;

    if (n > 0 && parent == NULL)
        return -1;
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
    free(parent);
    return 0;
}

/* The process trees below the server's pids, found afresh from /proc. */
static size_t sample_server_tree(const struct sb_cpu_server *server,
                                 struct sb_cpu_times *out)
{
    struct proc_entry *arr;
    size_t n = scan_processes(&arr), i, counted = 0;
    uint64_t u = 0, s = 0;
    long hz = clock_ticks();
    bool *in = n > 0 ? calloc(n, sizeof(*in)) : NULL;

    if (n > 0 && (in == NULL || mark_tree(server, arr, n, in) != 0))
        n = 0;                    /* out of memory: fall back below */
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
    free(in);
    free(arr);
    return counted;
}

static int cmp_pid(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

    return (x > y) - (x < y);
}

size_t sb_cpu_server_tree_pids(const struct sb_cpu_server *server, pid_t **pids)
{
    struct proc_entry *arr;
    size_t n, i, k = 0;
    bool *in;

    *pids = NULL;
    if (server == NULL || !server->include_children)
        return 0;
    n = scan_processes(&arr);
    in = n > 0 ? calloc(n, sizeof(*in)) : NULL;
    *pids = n > 0 ? malloc(n * sizeof(**pids)) : NULL;
    if (n == 0 || in == NULL || *pids == NULL || mark_tree(server, arr, n, in) != 0) {
        free(*pids);
        *pids = NULL;
        n = 0;
    }
    for (i = 0; i < n; i++)
        if (in[i])
            (*pids)[k++] = arr[i].pid; /* arr is sorted by pid */
    free(in);
    free(arr);
    return k;
}

/* Server processes alive now that are not in known (sorted). */
static size_t count_new(const struct sb_cpu_server *server, const pid_t *known, size_t nknown)
{
    pid_t *now;
    size_t n = sb_cpu_server_tree_pids(server, &now), fresh = 0;

    for (size_t i = 0; i < n; i++)
        if (nknown == 0 || bsearch(&now[i], known, nknown, sizeof(*known), cmp_pid) == NULL)
            fresh++;
    free(now);
    return fresh;
}

static double mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

size_t sb_cpu_server_settle(const struct sb_cpu_server *server, const pid_t *known,
                            size_t nknown, double max_s)
{
    double start = mono_s(), shrunk = start;
    size_t fresh, least;

    if (server == NULL || !server->include_children)
        return 0;
    least = fresh = count_new(server, known, nknown);
    while (fresh > 0) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        double t = mono_s();

        /* Processes that stopped going away belong to someone else. */
        if (t - start >= max_s || t - shrunk >= SB_CPU_SETTLE_IDLE_S)
            break;
        nanosleep(&ts, NULL);
        fresh = count_new(server, known, nknown);
        if (fresh < least) {
            least = fresh;
            shrunk = mono_s();
        }
    }
    return fresh;
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
