/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pure parsers of CPU accounting: the text of /proc/<pid>/stat,
 * /proc/stat, and lines of /proc/net/unix and /proc/net/tcp(6) into
 * structs, with no I/O, so unit tests feed them fixed strings. See
 * sb_cpu.h for the API.
 */
#include "config.h"

#include "cpu/sb_cpu.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "cpu/sb_cpu_int.h"

const char *sb_cpu_skip_spaces(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
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
    if (sb_cpu_skip_spaces(end) != open_paren)
        return -1;
    out->pid = (pid_t)pid;

    len = (size_t)(close_paren - open_paren - 1);
    if (len >= sizeof(out->comm))
        len = sizeof(out->comm) - 1;
    memcpy(out->comm, open_paren + 1, len);
    out->comm[len] = '\0';

    p = sb_cpu_skip_spaces(close_paren + 1);
    if (*p == '\0' || isspace((unsigned char)*p))
        return -1;
    out->state = *p++;

    for (n = 0; n < STAT_NFIELDS; n++) {
        p = sb_cpu_skip_spaces(p);
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
        p = sb_cpu_skip_spaces(p);
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

/* ---------------------------------------------------- /proc/net lines */

/* __SO_ACCEPTCON in the kernel: the socket is listening. */
#define UNIX_FLAG_ACCEPTCON 0x00010000u

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
    p = sb_cpu_skip_spaces(p);
    if (!isxdigit((unsigned char)*p))
        return -1;
    strtoull(p, &end, 16);
    if (*end != ':')
        return -1;
    p = end + 1;
    for (i = 0; i < 5; i++) {
        p = sb_cpu_skip_spaces(p);
        if (!isxdigit((unsigned char)*p))
            return -1;
        errno = 0;
        v[i] = strtoull(p, &end, 16);
        if (errno != 0)
            return -1;
        p = end;
    }
    p = sb_cpu_skip_spaces(p);
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
    const char *p = sb_cpu_skip_spaces(*pp);
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

/* Reads the next number of a line in base at *pp, after spaces, and moves
 * *pp past it; v may be NULL for fields that are only skipped. Returns 0,
 * or -1 when there is no number there or it overflows. */
static int next_number(const char **pp, int base, unsigned long long *v)
{
    const char *p = sb_cpu_skip_spaces(*pp);
    unsigned long long x;
    char *end;

    errno = 0;
    x = strtoull(p, &end, base);
    if (end == p || errno != 0)
        return -1;
    *pp = end;
    if (v != NULL)
        *v = x;
    return 0;
}

int sb_cpu_parse_net_tcp_line(const char *line, struct sb_cpu_tcp_entry *out)
{
    const char *p = sb_cpu_skip_spaces(line);
    unsigned long long v;
    int rfamily, i;

    memset(out, 0, sizeof(*out));
    /* "sl: local remote st tx:rx tr:when retrnsmt uid timeout inode ..." */
    if (!isdigit((unsigned char)*p) || next_number(&p, 10, NULL) != 0 || *p != ':')
        return -1;
    p++;
    if (parse_tcp_addr(&p, &out->family, out->local_addr,
                       &out->local_port) != 0)
        return -1;
    if (parse_tcp_addr(&p, &rfamily, out->remote_addr,
                       &out->remote_port) != 0 || rfamily != out->family)
        return -1;
    if (next_number(&p, 16, &v) != 0)
        return -1;
    out->state = (unsigned)v;
    /* tx_queue:rx_queue and tr:tm->when, two hex pairs. */
    for (i = 0; i < 2; i++) {
        if (next_number(&p, 16, NULL) != 0 || *p != ':')
            return -1;
        p++;
        if (next_number(&p, 16, NULL) != 0)
            return -1;
    }
    /* retrnsmt (hex), then uid. */
    if (next_number(&p, 16, NULL) != 0 || next_number(&p, 10, &v) != 0)
        return -1;
    out->uid = (unsigned)v;
    /* timeout, then inode. */
    if (next_number(&p, 10, NULL) != 0 || next_number(&p, 10, &v) != 0)
        return -1;
    out->inode = v;
    return 0;
}
