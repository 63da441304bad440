/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_DB_STMT_STATS_H
#define SB_DB_STMT_STATS_H

/*
 * The driver layer's side of the figures per statement
 * (pure/sb_stmt_table.h): which entry a statement text records under,
 * and the recording of one completed execution. sb_driver.c calls these
 * around every statement when the connection's counters have a table.
 */

#include <stdint.h>

#include "drivers/sb_driver.h"
#include "pure/sb_stmt_table.h"

/* Longest normalised text kept as a statement's name (bytes); texts
 * alike in their first this many bytes share an entry. */
#define SB_DB_STMT_TEXT_MAX 1024

/*
 * The entry of sql's normalised text in t (made on first sight), or NULL
 * when t is NULL or memory ran out. No allocation once the text has its
 * entry: the normalised text is built on the stack.
 */
struct sb_stmt_entry *sb_db_stmt_entry(struct sb_stmt_table *t, const char *sql, size_t len,
                                       enum sb_query_kind kind);

/* The error half of sb_db_stmt_done (out of line: rare). */
void sb_db_stmt_failed(struct sb_conn *con, struct sb_stmt_entry *e, uint64_t ns);

/*
 * Records a statement sent at t0 (sb_now_ns) that ended at t1 with driver
 * status s, after the error policy ran: latency and rows returned when s
 * is SB_DB_OK, otherwise latency and the error code of con->err, unless a
 * cancel cut it (con->cut: the run was ending). e may be NULL (nothing
 * recorded). Inline: it runs for every statement.
 */
static inline void sb_db_stmt_done(struct sb_conn *con, struct sb_stmt_entry *e, uint64_t t0,
                                   uint64_t t1, enum sb_db_status s)
{
    uint64_t ns = t1 > t0 ? t1 - t0 : 0;

    if (e == NULL)
        return;
    if (s == SB_DB_OK)
        sb_stmt_record_ok(e, ns, con->rs.active ? con->rs.nrows : 0, con->rs.affected);
    else
        sb_db_stmt_failed(con, e, ns);
}

#endif /* SB_DB_STMT_STATS_H */
