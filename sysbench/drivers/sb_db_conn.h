/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_DB_CONN_H
#define SB_DB_CONN_H

/*
 * The life of one connection object below the error policy: making it,
 * opening it through the process-wide connect gate, registering it for
 * cancels once open, and closing it. sb_driver.c's sb_db_connect,
 * sb_db_disconnect and reconnect, and the set-up batches
 * (sb_db_preconnect.c), are built on these; scripts and the engine use
 * sb_driver.h's sb_db_connect and sb_db_disconnect instead.
 *
 * The gate: at most SB_DB_CONNECT_PARALLEL blocking connection attempts
 * are in flight at once, process-wide. A server accepts and
 * authenticates connections one after another, so with thousands of
 * threads connecting together the last ones spent their whole connect
 * timeout queued behind the others and failed. Waiting here, outside the
 * attempt, makes the driver's timeout apply to the attempt itself; a
 * stop request ends the wait. bench/README.md (connect_storm.sh) has
 * the figures that chose this.
 *
 * Any thread may call these; each connection is used by one thread at a
 * time.
 */

#include "drivers/sb_driver.h"

/* Blocking connection attempts in flight at once, process-wide. */
#define SB_DB_CONNECT_PARALLEL 16

/* A new connection of drv for counters (borrowed, must outlive it), not
 * yet opened: its number (which picks the host, round-robin across all
 * threads) is taken here. NULL out of memory. Free it with
 * sb_db_conn_free_unopened until it is opened. */
struct sb_conn *sb_db_conn_new(const struct sb_driver_ops *drv,
                               struct sb_db_counters *counters);
/* Frees a connection that is not open (a failed attempt). */
void sb_db_conn_free_unopened(struct sb_conn *con);
/* One blocking attempt of the driver's connect, through the gate. Returns
 * its status; on failure con->err says why ("not connected: the run is
 * stopping" when a stop ended the wait for the gate). */
enum sb_db_status sb_db_conn_open_blocking(struct sb_conn *con);
/* Registers an opened connection with the cancel list (sb_db_cancel.h). */
void sb_db_conn_opened(struct sb_conn *con);
/* Closes an opened connection that holds no result set and no statement
 * (sb_db_disconnect frees those first) and frees it. */
void sb_db_conn_close(struct sb_conn *con);

#endif /* SB_DB_CONN_H */
