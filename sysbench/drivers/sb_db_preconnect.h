/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_DB_PRECONNECT_H
#define SB_DB_PRECONNECT_H

/*
 * Setting up many connections of one client thread at once (issue 18).
 *
 * A loop thread (engine/sb_loop.c) runs many connections, and each opens
 * its database connection in its script's thread_init, one after another
 * on that thread: a blocking connect per connection, so the thread sat
 * idle while the server forked a backend and authenticated (PostgreSQL:
 * about 5 ms of server CPU a connection on the bench machine, and the
 * client's own SCRAM key derivation, about 2 ms).
 *
 * A batch belongs to one loop thread and lists its connections' counters
 * (struct sb_db_counters, one per worker) in worker order. The first
 * sb_db_connect on any of them, from that worker's thread_init, opens the
 * connections of that worker and of every later worker of the batch
 * together (during set-up only, before the run starts) with the driver's
 * non-blocking connect (connect_start and
 * connect_cont: mysql_real_connect_start/_cont, PQconnectStartParams and
 * PQconnectPoll), at most SB_DB_PRECONNECT_INFLIGHT attempts at a time,
 * waiting with poll(). The caller gets its own connection; each later
 * worker's first sb_db_connect takes the one opened for it. A script that
 * never connects in thread_init never starts a batch, and one that
 * connects twice gets the second connection the usual way.
 *
 * Errors are as with one connection at a time: an attempt that fails is
 * tried once more the blocking way (which has the drivers' retries for a
 * backend dropped during start-up); if that fails too the batch stops
 * starting attempts, closes what it opened and the caller's connect fails
 * with that error, so the run stops with one line. A stop request (a
 * signal) ends the batch the same way.
 *
 * Everything here runs on the batch's loop thread, except init and free.
 */

#include <stdbool.h>

#include "drivers/sb_driver.h"

/* Connection attempts one batch keeps in flight at most. */
#define SB_DB_PRECONNECT_INFLIGHT 32

struct sb_db_preconnect {
    struct sb_db_counters **members;   /* owned array, borrowed entries */
    unsigned n, cap;
    bool started;                      /* the batch ran (it runs once) */
    /* What the batch did, for --db-debug and the tests: connections
     * opened without blocking, the most attempts in flight at once, and
     * attempts retried the blocking way. */
    unsigned opened, max_inflight, retried;
};

/* Prepares an empty batch for up to cap members. 0, or -1 out of memory. */
int sb_db_preconnect_init(struct sb_db_preconnect *p, unsigned cap);
/* Adds counters (borrowed, must outlive the batch) as the next member:
 * sets counters->pre and counters->pre_index. At most cap members. */
void sb_db_preconnect_add(struct sb_db_preconnect *p, struct sb_db_counters *counters);
/* Ends the set-up: a connect after it (a script connecting in event())
 * opens one connection the usual way, instead of a batch. */
void sb_db_preconnect_end_setup(struct sb_db_preconnect *p);
/* Disconnects the connections the batch opened that nobody took (a
 * script that did not connect, a set-up stopped early). On the batch's
 * thread, before the driver's thread_done. */
void sb_db_preconnect_release(struct sb_db_preconnect *p);
/* Frees the member array (any thread, after release). */
void sb_db_preconnect_free(struct sb_db_preconnect *p);

/*
 * For sb_db_connect (sb_driver.c): whether a connect on counters is served
 * by the batch (a connection already opened for it, or a batch not yet
 * started whose driver connects without blocking). Then
 * sb_db_preconnect_take returns the connection, or NULL with *err set.
 */
bool sb_db_preconnect_serves(const struct sb_driver_ops *drv,
                             const struct sb_db_counters *counters);
struct sb_conn *sb_db_preconnect_take(const struct sb_driver_ops *drv,
                                      struct sb_db_counters *counters,
                                      struct sb_db_error *err);

/* sb_driver.c's parts the batch uses: a new connection (not yet opened,
 * NULL out of memory) for counters, freeing one that never opened, the
 * blocking attempt (through the process-wide gate) and registering an
 * opened one with the cancel list. */
struct sb_conn *sb_db_conn_new(const struct sb_driver_ops *drv,
                               struct sb_db_counters *counters);
void sb_db_conn_free_unopened(struct sb_conn *con);
enum sb_db_status sb_db_conn_open_blocking(struct sb_conn *con);
void sb_db_conn_opened(struct sb_conn *con);

#endif /* SB_DB_PRECONNECT_H */
