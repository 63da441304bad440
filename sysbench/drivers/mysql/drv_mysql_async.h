/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_DRV_MYSQL_ASYNC_H
#define SB_DRV_MYSQL_ASYNC_H

/*
 * Non-blocking statements (drv_mysql_async.c), with MariaDB Connector/C's
 * mysql_*_start/_cont API; not available with other client libraries
 * (SB_MYSQL_ASYNC, drv_mysql_conn.h).
 */

#include "drivers/mysql/drv_mysql_conn.h"

/* Makes my (connected) usable with the non-blocking API: 0, or -1 when
 * the library cannot. */
int sb_mysql_enable_nonblocking(MYSQL *my);
/* Sets con->wait (my's socket, and the poll events for the library's
 * MYSQL_WAIT_* status bits) for a call in flight. */
void sb_mysql_wait_for(struct sb_conn *con, MYSQL *my, int status);
/* The events con->wait was for, as the library's status bits: the call
 * resumes once one of them is there (or spuriously: the library then
 * finds nothing to read and waits again). */
int sb_mysql_ready_status(const struct sb_conn *con);
#ifdef SB_MYSQL_ASYNC
enum sb_db_status sb_mysql_query_start(struct sb_conn *con, const char *sql, size_t len,
                                       struct sb_sql_result *rs);
enum sb_db_status sb_mysql_execute_start(struct sb_stmt *st, struct sb_sql_result *rs);
enum sb_db_status sb_mysql_resume(struct sb_conn *con, struct sb_sql_result *rs);
#endif

#endif /* SB_DRV_MYSQL_ASYNC_H */
