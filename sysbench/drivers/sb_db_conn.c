/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A connection's life below the error policy and the connect gate; see
 * sb_db_conn.h.
 */
#include "drivers/sb_db_conn.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/sb_stop.h"
#include "drivers/sb_db_cancel.h"

/* Connection numbers pick hosts round-robin across all threads. */
static unsigned connection_counter;

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static unsigned gate_inflight;

static bool gate_enter(void)
{
    bool ok = true;

    pthread_mutex_lock(&gate_lock);
    while (gate_inflight >= SB_DB_CONNECT_PARALLEL) {
        struct timespec ts;
        if (sb_stopping()) {
            ok = false;
            break;
        }
        /* A leaving attempt wakes one waiter; the timeout only notices a
         * stop. It is long on purpose: thousands of threads waking often
         * on one lock took most of the CPUs and slowed the connecting
         * itself. */
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&gate_cond, &gate_lock, &ts);
    }
    if (ok)
        gate_inflight++;
    pthread_mutex_unlock(&gate_lock);
    return ok;
}

static void gate_leave(void)
{
    pthread_mutex_lock(&gate_lock);
    gate_inflight--;
    pthread_cond_signal(&gate_cond);
    pthread_mutex_unlock(&gate_lock);
}

struct sb_conn *sb_db_conn_new(const struct sb_driver_ops *drv,
                               struct sb_db_counters *counters)
{
    struct sb_conn *con = calloc(1, sizeof(*con));

    if (con == NULL)
        return NULL;
    con->drv = drv;
    con->counters = counters;
    con->rs.con = con;
    con->index = __atomic_fetch_add(&connection_counter, 1, __ATOMIC_RELAXED);
    con->nonblocking = counters->nonblocking && drv->query_start != NULL &&
                       drv->execute_start != NULL && drv->resume != NULL;
    return con;
}

void sb_db_conn_free_unopened(struct sb_conn *con)
{
    free(con);
}

enum sb_db_status sb_db_conn_open_blocking(struct sb_conn *con)
{
    enum sb_db_status st;

    if (!gate_enter()) {
        memset(&con->err, 0, sizeof(con->err));
        snprintf(con->err.msg, sizeof(con->err.msg), "not connected: the run is stopping");
        return SB_DB_ERROR;
    }
    st = con->drv->connect(con);
    gate_leave();
    return st;
}

void sb_db_conn_opened(struct sb_conn *con)
{
    sb_db_cancel_register(con);
}

void sb_db_conn_close(struct sb_conn *con)
{
    sb_db_cancel_unregister(con);
    con->drv->disconnect(con);
    free(con->last_query);
    free(con);
}
