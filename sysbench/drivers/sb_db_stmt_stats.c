/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Figures per statement, the driver layer's side; see sb_db_stmt_stats.h.
 */
#include "drivers/sb_db_stmt_stats.h"

struct sb_stmt_entry *sb_db_stmt_entry(struct sb_stmt_table *t, const char *sql, size_t len,
                                       enum sb_query_kind kind)
{
    char buf[SB_DB_STMT_TEXT_MAX];
    size_t n;

    if (t == NULL)
        return NULL;
    n = sb_sql_normalise(sql, len, buf, sizeof(buf));
    if (n > sizeof(buf))
        n = sizeof(buf);
    return sb_stmt_table_get(t, buf, n, sb_stmt_hash(SB_STMT_HASH0, buf, n), (int)kind);
}

void sb_db_stmt_failed(struct sb_conn *con, struct sb_stmt_entry *e, uint64_t ns)
{
    if (!con->cut)
        sb_stmt_record_error(e, ns, con->err.sql_errno, con->err.sql_state);
}
