/*
 * Messages to the user; see sb_log.h. The level is part of the config:
 * written once by main before any thread starts, read-only afterwards.
 */
#include "sb_log.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int log_level = SB_LOG_NOTICE;

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

    if (outlen == 0)
        return out;
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
    /* Control bytes from a value, a file or a server (terminal escapes, a
     * carriage return hiding the text before it) are shown as \xNN. */
    sb_log_escape(line, safe, sizeof(safe), true);
    /* A single fprintf keeps lines from different threads whole. */
    fprintf(level <= SB_LOG_WARNING ? stderr : stdout, "%s%s\n",
            prefix[level], safe);
    if (level > SB_LOG_WARNING)
        fflush(stdout);
}
