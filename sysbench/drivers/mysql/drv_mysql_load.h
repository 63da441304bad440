/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_DRV_MYSQL_LOAD_H
#define SB_DRV_MYSQL_LOAD_H

/*
 * The MySQL driver's bulk load (the copy_* ops of sb_driver.h): each
 * copy_data is one LOAD DATA LOCAL INFILE whose "file" the client library
 * reads from memory through a local-infile handler, so no temporary file
 * is written.
 *
 * Local infile is enabled on the driver's connections, and every
 * connection has the handler below, which serves only the name sysbench
 * itself asked for while one of its loads runs: a server cannot make the
 * client read a file of its choosing.
 *
 * LOAD DATA LOCAL turns rows it cannot store (a duplicate key, a bad
 * value) into warnings and goes on, where an INSERT fails; so a load that
 * stored fewer rows than it sent, or left warnings, fails with the first
 * warning as its error.
 */

#include "drivers/mysql/drv_mysql_conn.h"

/* Enables local infile with sysbench's handler on a handle before it
 * connects. */
void sb_mysql_load_setup(struct sb_mysql_conn *cp);

enum sb_db_status sb_mysql_copy_begin(struct sb_conn *con, const char *table, const char *cols);
enum sb_db_status sb_mysql_copy_data(struct sb_conn *con, const char *data, size_t len,
                                     uint64_t nrows);
enum sb_db_status sb_mysql_copy_end(struct sb_conn *con, bool abort);
/* The server's max_allowed_packet (asked once per connection), 0 when
 * unknown. */
size_t sb_mysql_statement_limit(struct sb_conn *con);
/* Frees what the loads kept (at disconnect). */
void sb_mysql_load_free(struct sb_mysql_conn *cp);

#endif /* SB_DRV_MYSQL_LOAD_H */
