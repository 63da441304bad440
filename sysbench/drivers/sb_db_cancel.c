/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cancelling statements in flight; see sb_db_cancel.h.
 */
#include "drivers/sb_db_cancel.h"

#include <pthread.h>
#include <stddef.h>

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sb_conn *reg_head;
static uint64_t cancelled;
/* Set once a sweep started in this run: a statement failing after it was
 * most likely cancelled by it (a cancel can land just after the
 * connection's busy mark was read). */
static int cancelling;

void sb_db_cancel_register(struct sb_conn *con)
{
    pthread_mutex_lock(&reg_lock);
    con->reg_prev = NULL;
    con->reg_next = reg_head;
    if (reg_head != NULL)
        reg_head->reg_prev = con;
    reg_head = con;
    pthread_mutex_unlock(&reg_lock);
}

void sb_db_cancel_unregister(struct sb_conn *con)
{
    pthread_mutex_lock(&reg_lock);
    if (con->reg_prev != NULL)
        con->reg_prev->reg_next = con->reg_next;
    else if (reg_head == con)
        reg_head = con->reg_next;
    if (con->reg_next != NULL)
        con->reg_next->reg_prev = con->reg_prev;
    con->reg_prev = con->reg_next = NULL;
    pthread_mutex_unlock(&reg_lock);
}

void sb_db_cancel_lock(void)
{
    pthread_mutex_lock(&reg_lock);
}

void sb_db_cancel_unlock(void)
{
    pthread_mutex_unlock(&reg_lock);
}

bool sb_db_cancel_was_cut(const struct sb_conn *con, bool failed)
{
    uint64_t seq = __atomic_load_n(&con->cancel_seq, __ATOMIC_ACQUIRE);

    if (seq != 0 && seq == con->stmt_seq)
        return true;
    return failed && __atomic_load_n(&cancelling, __ATOMIC_ACQUIRE);
}

unsigned sb_db_cancel_all(void)
{
    const struct sb_driver_ops *drv = NULL;
    void *sweep = NULL;
    unsigned n = 0;

    __atomic_store_n(&cancelling, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&reg_lock);
    for (struct sb_conn *con = reg_head; con != NULL; con = con->reg_next) {
        uint64_t seq;
        bool again;
        /* Busy first: a connection between statements may be
         * reconnecting, changing priv (under this lock only to free it). */
        if (!__atomic_load_n(&con->busy, __ATOMIC_ACQUIRE) || con->drv->cancel == NULL ||
            con->priv == NULL)
            continue;
        seq = __atomic_load_n(&con->stmt_seq, __ATOMIC_RELAXED);
        /* Still running after an earlier sweep cancelled it: that cancel
         * may have reached the server before the statement did (KILL
         * QUERY and PQcancel do nothing to an idle connection), so it is
         * sent again, and counted once. */
        again = __atomic_load_n(&con->cancel_seq, __ATOMIC_RELAXED) == seq;
        /* One driver per run: the sweep state is that driver's. */
        drv = con->drv;
        if (!again)
            __atomic_store_n(&con->cancel_seq, seq, __ATOMIC_RELEASE);
        if (drv->cancel(con, &sweep) && !again)
            n++;
    }
    pthread_mutex_unlock(&reg_lock);
    if (drv != NULL && drv->cancel_end != NULL)
        drv->cancel_end(sweep);
    __atomic_fetch_add(&cancelled, n, __ATOMIC_RELAXED);
    return n;
}

uint64_t sb_db_cancel_count(void)
{
    return __atomic_load_n(&cancelled, __ATOMIC_RELAXED);
}

void sb_db_cancel_reset(void)
{
    __atomic_store_n(&cancelled, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&cancelling, 0, __ATOMIC_RELEASE);
}
