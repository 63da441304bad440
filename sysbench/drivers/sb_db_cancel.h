/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_DB_CANCEL_H
#define SB_DB_CANCEL_H

/*
 * Cancelling statements in flight from another thread: at the end of
 * --time plus --deadline-grace, and at once on a signal, so that a
 * statement the server does not finish (SELECT SLEEP(30), a lock wait, a
 * hung server) cannot hold the run past its deadline.
 *
 * Every open connection is in one list (a mutex taken at connect and
 * disconnect, never per statement). A statement marks its connection busy
 * with two relaxed atomic stores around the driver call. The canceller
 * walks the list under the mutex and asks the driver to cancel each busy
 * connection's statement (MariaDB: KILL QUERY on a side connection;
 * libpq: PQcancel). A statement that was in flight when its cancel was
 * sent is "cut": the common layer then restarts the event without
 * counting an error (the stop flag is up, so the event is not retried and
 * not counted), and the run reports how many statements it cut.
 *
 * The list and the counters are part of the stop machinery, as global as
 * the stop flag.
 */

#include <stdbool.h>
#include <stdint.h>

#include "drivers/sb_driver.h"

/* Adds con to the list of open connections (at connect). */
void sb_db_cancel_register(struct sb_conn *con);
/* Removes con; waits for a cancel sweep that may be using it (at
 * disconnect, before the driver state is freed). */
void sb_db_cancel_unregister(struct sb_conn *con);
/* Brackets a driver state change of a registered connection (reconnect:
 * the old driver state is freed, a new one made) against a sweep. */
void sb_db_cancel_lock(void);
void sb_db_cancel_unlock(void);

/* A statement starts (busy) or ends on con. Called by the owning thread. */
static inline void sb_db_cancel_busy(struct sb_conn *con)
{
    __atomic_store_n(&con->stmt_seq, con->stmt_seq + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&con->busy, 1, __ATOMIC_RELEASE);
}

static inline void sb_db_cancel_idle(struct sb_conn *con)
{
    __atomic_store_n(&con->busy, 0, __ATOMIC_RELEASE);
}

/* Whether the statement that just ended on con was cut by a cancel: its
 * cancel was sent while it ran, or (with cancelling on) it failed after a
 * sweep. Called by the owning thread after sb_db_cancel_idle. */
bool sb_db_cancel_was_cut(const struct sb_conn *con, bool failed);

/*
 * Cancels the statement in flight on every registered connection whose
 * driver can cancel. Any thread; blocks while the driver reaches the
 * server (a side connection for MariaDB, bounded by its connect timeout).
 * A statement an earlier sweep cancelled that is still running gets its
 * cancel again (it may have reached the server first) but is not counted
 * again. Returns how many statements it newly cancelled (also added to
 * the count sb_db_cancel_count returns).
 */
unsigned sb_db_cancel_all(void);

/* Statements cancelled since the last sb_db_cancel_reset. */
uint64_t sb_db_cancel_count(void);

/* Clears the count and the cancelling state (between runs, no statement
 * in flight). */
void sb_db_cancel_reset(void);

#endif /* SB_DB_CANCEL_H */
