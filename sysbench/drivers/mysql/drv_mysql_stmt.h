/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_DRV_MYSQL_STMT_H
#define SB_DRV_MYSQL_STMT_H

#include "drivers/mysql/drv_mysql_conn.h"

/* Prepared statements (drv_mysql_stmt.c), as in struct sb_driver_ops. */
enum sb_db_status sb_mysql_prepare(struct sb_stmt *st);
enum sb_db_status sb_mysql_execute(struct sb_stmt *st, struct sb_sql_result *rs);
void sb_mysql_close(struct sb_stmt *st);
/* Fills rs->row from the statement's next row: 1, 0 at the end, -1. */
int sb_mysql_fetch_stmt_row(struct sb_sql_result *rs, struct sb_mysql_stmt *sp);
/* The steps of an execution, shared by the blocking and non-blocking
 * paths: binds and fills st's parameters; after an execution that
 * returns rows (field count > 0), binds the result columns; after the
 * rows are stored, opens them as the connection's result set rs. */
enum sb_db_status sb_mysql_stmt_params(struct sb_stmt *st);
enum sb_db_status sb_mysql_stmt_bind_result(struct sb_stmt *st);
enum sb_db_status sb_mysql_stmt_stored(struct sb_stmt *st, struct sb_sql_result *rs);

#endif /* SB_DRV_MYSQL_STMT_H */
