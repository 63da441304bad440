/*
 * Messages to the user; see sb_log.h. The level is part of the config:
 * written once by main before any thread starts, read-only afterwards.
 */
#include "sb_log.h"

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

void sb_log(enum sb_log_level level, const char *fmt, ...)
{
    static const char *const prefix[] = {
        "FATAL: ", "ALERT: ", "WARNING: ", "", "", "DEBUG: "
    };
    char line[2048];
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
    /* A single fprintf keeps lines from different threads whole. */
    fprintf(level <= SB_LOG_WARNING ? stderr : stdout, "%s%s\n",
            prefix[level], line);
    if (level > SB_LOG_WARNING)
        fflush(stdout);
}
