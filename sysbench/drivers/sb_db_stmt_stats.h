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

/*
 * Records a statement sent at t0 (sb_now_ns) that ended now with driver
 * status s, after the error policy ran: latency and rows returned when
 * s is SB_DB_OK, otherwise latency and the error code of con->err,
 * unless a cancel cut it (con->cut: the run was ending). e may be NULL
 * (nothing recorded).
 */
void sb_db_stmt_done(struct sb_conn *con, struct sb_stmt_entry *e, uint64_t t0, uint64_t t1,
                     enum sb_db_status s);

#endif /* SB_DB_STMT_STATS_H */
