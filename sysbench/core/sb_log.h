/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_LOG_H
#define SB_LOG_H

/*
 * Messages to the user. Errors are one line on stderr prefixed "FATAL: " or
 * "WARNING: " as sysbench 1.0 does, so wrappers that grep for them keep
 * working; --verbosity (0..5, default 3) hides the less important ones.
 * With SB_COMPAT=1.0 they go to standard output, where 1.0.20 prints them.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

enum sb_log_level {
    SB_LOG_FATAL = 0,
    SB_LOG_ALERT = 1,
    SB_LOG_WARNING = 2,
    SB_LOG_NOTICE = 3,
    SB_LOG_INFO = 4,
    SB_LOG_DEBUG = 5
};

/* Sets the threshold; set once from --verbosity before threads start. */
void sb_log_set_level(int level);
int sb_log_level(void);

void sb_log(enum sb_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Copies `in` to `out` (capacity outlen; "" below 8 bytes; NUL-terminated) with
 * every control byte written as \xNN, keeping newlines and tabs when
 * keep_newline; a text too long ends in "...". Returns out. sb_log applies
 * it to every message (keeping newlines); option errors quote a user's
 * value with keep_newline false so the message stays one line.
 */
const char *sb_log_escape(const char *in, char *out, size_t outlen, bool keep_newline);

/* The first FATAL message printed (escaped to one line), or NULL: what
 * the result files give as the error a failed run ended with. */
const char *sb_log_first_fatal(void);

/*
 * True when the environment has SB_COMPAT=1.0: print exactly sysbench
 * 1.0.20's layout and wordings (no extra report sections or interval
 * fields), for wrappers that compare text. doc/compat.md lists what it
 * changes. Reads the environment only; call it outside per-event paths.
 */
bool sb_compat10(void);

#define sb_fatal(...) sb_log(SB_LOG_FATAL, __VA_ARGS__)
#define sb_warn(...) sb_log(SB_LOG_WARNING, __VA_ARGS__)
#define sb_notice(...) sb_log(SB_LOG_NOTICE, __VA_ARGS__)
#define sb_debug(...) sb_log(SB_LOG_DEBUG, __VA_ARGS__)

#endif /* SB_LOG_H */
