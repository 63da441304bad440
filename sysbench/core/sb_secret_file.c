/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Secrets read from files, and passwords wiped from argv; see
 * sb_secret_file.h.
 */
#include "core/sb_secret_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads at most cap bytes of fd into buf; *len what was read, *more
 * whether the file goes on. Returns 0, or -1 with errno set. */
static int read_capped(int fd, char *buf, size_t cap, size_t *len, int *more)
{
    char extra;
    ssize_t n;

    *len = 0;
    while (*len < cap) {
        n = read(fd, buf + *len, cap - *len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0) {
            *more = 0;
            return 0;
        }
        *len += (size_t)n;
    }
    do
        n = read(fd, &extra, 1);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -1;
    *more = n > 0;
    return 0;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Cuts buf (len bytes) down to the secret; returns its new length, or
 * (size_t)-1 with why in *why. */
static size_t trim_secret(char *buf, size_t len, bool trim, const char **why)
{
    size_t start = 0;

    if (memchr(buf, '\0', len) != NULL) {
        *why = "holds a NUL byte";
        return (size_t)-1;
    }
    if (trim) {
        while (start < len && is_blank(buf[start]))
            start++;
        while (len > start && is_blank(buf[len - 1]))
            len--;
        memmove(buf, buf + start, len - start);
        len -= start;
    } else if (len > 0 && buf[len - 1] == '\n') {
        len -= len > 1 && buf[len - 2] == '\r' ? 2 : 1;
    }
    if (len == 0) {
        *why = "is empty";
        return (size_t)-1;
    }
    if (memchr(buf, '\n', len) != NULL || memchr(buf, '\r', len) != NULL) {
        *why = "holds more than one line";
        return (size_t)-1;
    }
    return len;
}

char *sb_secret_file_read(const char *path, const char *option, bool trim, char *err,
                          size_t errlen)
{
    char *buf;
    size_t len;
    int fd, more = 0, saved;
    const char *why = NULL;
    struct stat st;

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "--%s=%s: cannot open: %s", option, path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        snprintf(err, errlen, "--%s=%s: is a directory, not a file", option, path);
        return NULL;
    }
    buf = malloc(SB_SECRET_MAX + 1);
    if (buf == NULL) {
        close(fd);
        snprintf(err, errlen, "--%s=%s: out of memory", option, path);
        return NULL;
    }
    if (read_capped(fd, buf, SB_SECRET_MAX + 1, &len, &more) != 0) {
        saved = errno;
        close(fd);
        sb_secret_free(buf);
        snprintf(err, errlen, "--%s=%s: cannot read: %s", option, path, strerror(saved));
        return NULL;
    }
    close(fd);
    /* One final line end beyond the limit is still within it. */
    if (more || (len > SB_SECRET_MAX && !(len == SB_SECRET_MAX + 1 && buf[SB_SECRET_MAX] == '\n')))
        why = "is longer than 4096 bytes";
    else
        len = trim_secret(buf, len, trim, &why);
    if (why != NULL) {
        memset(buf, 0, SB_SECRET_MAX + 1);
        free(buf);
        snprintf(err, errlen, "--%s=%s: %s", option, path, why);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

void sb_secret_free(char *secret)
{
    if (secret == NULL)
        return;
    memset(secret, 0, strlen(secret));
    free(secret);
}

size_t sb_secret_scrub_argv(int argc, char **argv,
                            bool (*is_secret)(const char *name, size_t len, void *ctx),
                            void *ctx)
{
    size_t n = 0;

    for (int i = 1; i < argc; i++) {
        char *a = argv[i], *eq;

        if (a == NULL)
            continue;
        if (strcmp(a, "--") == 0)
            break;
        if (strncmp(a, "--", 2) != 0 || (eq = strchr(a + 2, '=')) == NULL)
            continue;
        if (!is_secret(a + 2, (size_t)(eq - a - 2), ctx))
            continue;
        for (char *v = eq + 1; *v != '\0'; v++)
            *v = 'x';
        n++;
    }
    return n;
}
