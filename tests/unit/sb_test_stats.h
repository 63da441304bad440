/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers of the statistics unit tests (check_sb_stats.c,
 * check_sb_live_stats.c): a driver error as the SQL layer reports one,
 * and the count a document holds under an error code. Test-only. */
#ifndef SB_TEST_STATS_H
#define SB_TEST_STATS_H

#include <stdio.h>
#include <string.h>

#include "measure/sb_stats.h"

/* An error with number sql_errno and SQLSTATE state. */
static inline struct sb_db_error sb_test_db_error(unsigned sql_errno, const char *state)
{
    struct sb_db_error e;

    memset(&e, 0, sizeof(e));
    e.sql_errno = sql_errno;
    snprintf(e.sql_state, sizeof(e.sql_state), "%s", state);
    return e;
}

/* The count under code and kind, or -1 when s has no such entry. */
static inline long long sb_test_code_count(const struct sb_stats *s, const char *code,
                                           bool reconnect)
{
    for (unsigned i = 0; i < s->ncodes; i++)
        if (s->codes[i].reconnect == reconnect && strcmp(s->codes[i].code, code) == 0)
            return (long long)s->codes[i].count;
    return -1;
}

#endif /* SB_TEST_STATS_H */
