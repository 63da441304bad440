/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Messages to the user; see sb_log.h. The level is part of the config:
 * written once by main before any thread starts, read-only afterwards.
 */
#include "core/sb_log.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int log_level = SB_LOG_NOTICE;
/* The first FATAL message, for the result files' "how the run ended";
 * claimed once by whichever thread gets there first. */
static char first_fatal[512];
static int first_fatal_state; /* 0 empty, 1 being written, 2 set */

void sb_log_set_level(int level)
{
    log_level = level;
}

int sb_log_level(void)
{
    return log_level;
}

const char *sb_log_escape(const char *in, char *out, size_t outlen, bool keep_newline)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;

    if (outlen < 8) { /* too small for a byte and "..." */
        if (outlen > 0)
            out[0] = '\0';
        return out;
    }
    for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
        bool plain = (*p >= 0x20 && *p != 0x7f) ||
                     (keep_newline && (*p == '\n' || *p == '\t'));
        size_t need = plain ? 1 : 4;

        if (o + need + 4 >= outlen) { /* room for "..." and the NUL */
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (plain) {
            out[o++] = (char)*p;
            continue;
        }
        out[o++] = '\\';
        out[o++] = 'x';
        out[o++] = hex[*p >> 4];
        out[o++] = hex[*p & 15];
    }
    out[o] = '\0';
    return out;
}

const char *sb_log_first_fatal(void)
{
    return __atomic_load_n(&first_fatal_state, __ATOMIC_ACQUIRE) == 2 ? first_fatal : NULL;
}

void sb_log(enum sb_log_level level, const char *fmt, ...)
{
    static const char *const prefix[] = {
        "FATAL: ", "ALERT: ", "WARNING: ", "", "", "DEBUG: "
    };
    char line[2048], safe[4096];
    va_list ap;
    size_t n;

    if ((int)level > log_level)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    /* One message is one line: the caller's text ends without a newline. */
    n = strlen(line);
    while (n > 0 && line[n - 1] == '\n')
        line[--n] = '\0';
    if (level == SB_LOG_FATAL) {
        int empty = 0;
        if (__atomic_compare_exchange_n(&first_fatal_state, &empty, 1, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            sb_log_escape(line, first_fatal, sizeof(first_fatal), false);
            __atomic_store_n(&first_fatal_state, 2, __ATOMIC_RELEASE);
        }
    }
    /* Control bytes from a value, a file or a server (terminal escapes, a
     * carriage return hiding the text before it) are shown as \xNN. */
    sb_log_escape(line, safe, sizeof(safe), true);
    /* A single fprintf keeps lines from different threads whole.
     * SB_COMPAT=1.0: 1.0.20 logs everything, FATAL included, on standard
     * output (its regression suite greps a FATAL out of a pipe). */
    fprintf(level <= SB_LOG_WARNING && !sb_compat10() ? stderr : stdout, "%s%s\n",
            prefix[level], safe);
    if (level > SB_LOG_WARNING)
        fflush(stdout);
}

bool sb_compat10(void)
{
    const char *v = getenv("SB_COMPAT");

    return v != NULL && strcmp(v, "1.0") == 0;
}
