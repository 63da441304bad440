/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_DB_BULK_H
#define SB_DB_BULK_H

/*
 * Bulk inserts: what con:bulk_insert_init/next/done do. The script gives
 * an INSERT head ("INSERT INTO t (a, b) VALUES") and then rows, SQL value
 * tuples; the rows are sent together, many to a statement.
 *
 * Every row is checked as it comes (sb_bulk_rows.h): a malformed one
 * fails with a message naming it instead of a server error about a
 * statement of thousands of rows.
 *
 * Rows sent together are one statement, and a statement that fails leaves
 * none of them (the servers' statement atomicity). What a statement that
 * was cut (cancelled at the deadline or by a signal, sb_db_cancel.h) did
 * is known from its status: one that completed anyway holds its rows,
 * one that failed holds none. So:
 *
 *  - a row is added only when the statement sending the rows before it
 *    succeeded: a failed statement fails the row's call too, and in the
 *    event loop that event is not counted (at a stop) or is run again
 *    (an ignorable error, a reconnect), adding its row then;
 *  - the rows of a statement that failed are kept and sent again by the
 *    next statement; those of one that completed, even cut, never are;
 *  - the statement of sb_db_bulk_done (thread_done's flush: its rows were
 *    counted as events already) is not cancelled at the deadline, only by
 *    a signal; cut by one, its rows are dropped without an error.
 *
 * How rows are sent (--bulk-mode):
 *
 *  - the server's bulk path: PostgreSQL's COPY FROM STDIN and MySQL's LOAD
 *    DATA LOCAL INFILE (the driver's copy_* ops) with the rows as
 *    tab-separated text (generated rows in PostgreSQL's binary format
 *    where the columns' types allow, below), or on SQLite one prepared single-row INSERT in
 *    a transaction (committed every 50,000 rows, so that concurrent
 *    loaders take turns). Only rows of plain literals (integers,
 *    strings, NULL; sb_bulk_rows.h) go that way: the first row with
 *    anything else switches the bulk insert to INSERTs. A server that
 *    refuses LOAD DATA LOCAL gets INSERTs sized to its
 *    max_allowed_packet, and one notice per process;
 *  - multi-row INSERTs of up to 256 KB of text, as sysbench 1.0 sends.
 *
 * auto takes the bulk path outside the event loop (prepare and the
 * script's other commands) and INSERTs in run's events, so that a
 * benchmark of inserts (bulk_insert.lua) measures what 1.0's does; copy
 * takes the bulk path in both, and so does copy-text, never in binary
 * (the before of a measurement); SB_COMPAT=1.0 always sends INSERTs. Outside the event loop the bulk
 * path streams: PostgreSQL's COPY stays open from the first row to
 * bulk_insert_done (or to another statement on the connection, which
 * ends it first), MySQL sends a LOAD DATA per 4 MB. In the event loop
 * each 256 KB of rows is one statement, settled as above.
 *
 * The state lives with the connection (con->bulk), made by the first
 * sb_db_bulk_init and freed at disconnect.
 */

#include <stdbool.h>
#include <stddef.h>

#include "drivers/sb_driver.h"

/* How bulk inserts load rows (--bulk-mode). */
enum sb_bulk_mode { SB_BULK_AUTO, SB_BULK_INSERT, SB_BULK_COPY, SB_BULK_COPY_TEXT };

/* Reads --bulk-mode (auto, copy, copy-text or insert; NULL: auto). Called by
 * sb_db_init. Returns 0, or -1 with a one-line reason in err. */
int sb_db_bulk_configure(const char *mode, char *err, size_t errlen);

/*
 * Starts a bulk insert on con with head (copied); in_run: inside the
 * event loop of run (below). A bulk insert still open is dropped with its
 * unsent rows, as sysbench 1.0 does. Returns 0; -1 when memory runs out,
 * -2 when asking the server about its bulk path failed (con->err says
 * why).
 */
int sb_db_bulk_init(struct sb_conn *con, const char *head, size_t len, bool in_run);

/* Whether a bulk insert is open on con (init called, done not yet). */
bool sb_db_bulk_open(const struct sb_conn *con);

/*
 * Adds row (one or more value tuples; borrowed: it must stay valid until
 * the call's outcome is known, also across SB_DB_INFLIGHT). When the rows
 * before it fill a statement, they are sent first. Returns SB_DB_DONE
 * when the row was taken, SB_DB_INFLIGHT when the statement sending the
 * rows before it is in flight on a non-blocking connection (wait for
 * con->wait, sb_db_continue until it returns something else, and pass
 * that to sb_db_bulk_settle), or the failed statement's outcome (the row
 * was not taken). SB_DB_FATAL with sb_db_bulk_bad_row true: the row is
 * malformed, con->err.msg names it.
 */
enum sb_db_outcome sb_db_bulk_next(struct sb_conn *con, const char *row, size_t len);

/* The end of the statement sb_db_bulk_next left in flight: takes its
 * outcome, returns what sb_db_bulk_next would have. */
enum sb_db_outcome sb_db_bulk_settle(struct sb_conn *con, enum sb_db_outcome o);

/*
 * Sends the rows not sent yet and closes the bulk insert (blocking, also
 * on a non-blocking connection). Returns SB_DB_DONE, or the outcome of
 * the statement that failed (its rows are dropped: the bulk insert is
 * closed either way). SB_DB_DONE without a bulk insert open.
 */
enum sb_db_outcome sb_db_bulk_done(struct sb_conn *con);

/* Ends what the bulk insert keeps open on con (a COPY, a transaction),
 * sending its rows, so that another statement can run; the next row opens
 * it again. Called by the common layer before every other statement on
 * con, through con->bulk_pause (set by sb_db_bulk_init). Returns
 * SB_DB_DONE or the failed statement's outcome. */
enum sb_db_outcome sb_db_bulk_pause(struct sb_conn *con);

/*
 * Rows a caller writes itself, straight into the server's bulk path,
 * with no row text to read: the generated rows of con:bulk_insert_rows
 * (pure/sb_rowgen.h). sb_db_bulk_gen_begin, for rows first..last of the
 * template cols (n values per row), begins the load if it is not open
 * yet and says how to write them:
 *
 *  - SB_DB_GEN_BIN: PostgreSQL's binary COPY rows, sb_rowgen_bin with
 *    *bin (the target columns' forms, valid while the bulk insert is
 *    open). Taken when the driver has the form (copy_types), the
 *    columns' types take every value the template can give
 *    (sb_rowgen_bin_fits) and --bulk-mode is not copy-text; the types
 *    are asked once per bulk insert. A load open in binary ends (as
 *    another statement would end it) before rows that do not fit it, and
 *    before rows of SQL text (sb_db_bulk_next), which go in text;
 *  - SB_DB_GEN_TSV: tab-separated lines, sb_rowgen_tsv (a load already
 *    open in text stays in text);
 *  - SB_DB_GEN_SQL: not into the bulk path (INSERTs, SQLite, the event
 *    loop, a server that refused LOAD DATA now): the caller passes the
 *    rows as SQL tuples to sb_db_bulk_next. With *o other than
 *    SB_DB_DONE: beginning the load failed, or n differs from the
 *    column list's (SB_DB_FATAL with sb_db_bulk_bad_row true).
 *
 * Then per row sb_db_bulk_gen_reserve returns room for max bytes after
 * the rows filled so far (valid until the next call on con; NULL with
 * *o when memory runs out), and sb_db_bulk_gen_commit takes the bytes
 * written there as rows rows, sending the filled rows first when they
 * would take it past a statement's size; it returns SB_DB_DONE or the
 * outcome of the send that failed.
 */
struct sb_rowgen_col;
enum sb_db_gen_form { SB_DB_GEN_SQL, SB_DB_GEN_TSV, SB_DB_GEN_BIN };
enum sb_db_gen_form sb_db_bulk_gen_begin(struct sb_conn *con, const struct sb_rowgen_col *cols,
                                         unsigned n, int64_t first, int64_t last,
                                         const uint8_t **bin, enum sb_db_outcome *o);
char *sb_db_bulk_gen_reserve(struct sb_conn *con, size_t max, enum sb_db_outcome *o);
enum sb_db_outcome sb_db_bulk_gen_commit(struct sb_conn *con, size_t bytes, uint64_t rows);

/* Whether the last SB_DB_FATAL of sb_db_bulk_next was a malformed row. */
bool sb_db_bulk_bad_row(const struct sb_conn *con);

/* Frees con's bulk state (sb_db_disconnect calls it). */
void sb_db_bulk_free(struct sb_conn *con);

#endif /* SB_DB_BULK_H */
