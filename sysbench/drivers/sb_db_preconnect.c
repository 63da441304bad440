/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Setting up a loop thread's connections together; see sb_db_preconnect.h.
 */
#include "drivers/sb_db_preconnect.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_clock.h"
#include "core/sb_log.h"
#include "core/sb_stop.h"

/* How often a batch waiting for sockets looks at the stop flag. */
#define SB_PRECONNECT_TICK_MS 50

int sb_db_preconnect_init(struct sb_db_preconnect *p, unsigned cap)
{
    memset(p, 0, sizeof(*p));
    p->members = calloc(cap > 0 ? cap : 1, sizeof(*p->members));
    if (p->members == NULL)
        return -1;
    p->cap = cap;
    return 0;
}

void sb_db_preconnect_add(struct sb_db_preconnect *p, struct sb_db_counters *counters)
{
    if (p->n >= p->cap)
        return;
    counters->pre = p;
    counters->pre_index = p->n;
    p->members[p->n++] = counters;
}

void sb_db_preconnect_end_setup(struct sb_db_preconnect *p)
{
    p->started = true;
}

void sb_db_preconnect_release(struct sb_db_preconnect *p)
{
    for (unsigned i = 0; p->members != NULL && i < p->n; i++) {
        struct sb_db_counters *c = p->members[i];
        if (c->preopened != NULL) {
            sb_db_disconnect(c->preopened);
            c->preopened = NULL;
        }
    }
}

void sb_db_preconnect_free(struct sb_db_preconnect *p)
{
    free(p->members);
    p->members = NULL;
    p->n = p->cap = 0;
}

bool sb_db_preconnect_serves(const struct sb_driver_ops *drv,
                             const struct sb_db_counters *counters)
{
    const struct sb_db_preconnect *p = counters->pre;

    if (p == NULL)
        return false;
    if (counters->preopened != NULL)
        return counters->preopened->drv == drv;
    return !p->started && counters->nonblocking && drv->connect_start != NULL &&
           drv->connect_cont != NULL && drv->query_start != NULL &&
           drv->execute_start != NULL && drv->resume != NULL;
}

/* One attempt in flight. */
struct attempt {
    struct sb_conn *con;
    unsigned member;
    uint64_t deadline_ns;     /* 0: none */
};

/* The state of one run of a batch. */
struct batch {
    struct sb_db_preconnect *p;
    const struct sb_driver_ops *drv;
    struct attempt fly[SB_DB_PRECONNECT_INFLIGHT];
    unsigned nfly;
    struct sb_conn *mine;     /* the caller's connection */
    unsigned caller;
    bool failed;
    struct sb_db_error err;   /* the first failure */
};

static void fail_with(struct batch *b, const struct sb_db_error *err)
{
    if (b->failed)
        return;
    b->failed = true;
    b->err = *err;
}

/* An attempt ended with st: files the connection, or tries it once more
 * the blocking way when it failed (not after a timeout), which has the
 * drivers' retries and their own messages. */
static void attempt_done(struct batch *b, struct sb_conn *con, unsigned member,
                         enum sb_db_status st, bool timed_out)
{
    if (st != SB_DB_OK && !timed_out && !b->failed && !sb_stopping()) {
        b->p->retried++;
        con->priv = NULL;
        st = sb_db_conn_open_blocking(con);
    }
    if (st != SB_DB_OK) {
        fail_with(b, &con->err);
        sb_db_conn_free_unopened(con);
        return;
    }
    sb_db_conn_opened(con);
    b->p->opened++;
    if (member == b->caller)
        b->mine = con;
    else
        b->p->members[member]->preopened = con;
}

/* Starts member's attempt; keeps it in flight when it did not end at once. */
static void attempt_start(struct batch *b, unsigned member)
{
    struct sb_conn *con = sb_db_conn_new(b->drv, b->p->members[member]);
    enum sb_db_status st;

    if (con == NULL) {
        struct sb_db_error oom = { 0 };
        snprintf(oom.msg, sizeof(oom.msg), "out of memory");
        fail_with(b, &oom);
        return;
    }
    con->wait.timeout_ms = 0;
    st = b->drv->connect_start(con);
    if (st != SB_DB_PENDING) {
        attempt_done(b, con, member, st, false);
        return;
    }
    b->fly[b->nfly].con = con;
    b->fly[b->nfly].member = member;
    b->fly[b->nfly].deadline_ns =
        con->wait.timeout_ms > 0 ? sb_now_ns() + con->wait.timeout_ms * SB_NS_PER_MS : 0;
    b->nfly++;
    if (b->nfly > b->p->max_inflight)
        b->p->max_inflight = b->nfly;
}

/* Drops in-flight attempt i (the batch failed or the run stops). */
static void attempt_abandon(struct batch *b, unsigned i)
{
    struct sb_conn *con = b->fly[i].con;

    b->drv->disconnect(con);
    sb_db_conn_free_unopened(con);
}

/* Waits for the attempts in flight (at most a tick, or up to the
 * earliest deadline) and continues those that are ready or late. */
static void wait_and_continue(struct batch *b)
{
    struct pollfd pfd[SB_DB_PRECONNECT_INFLIGHT];
    uint64_t now = sb_now_ns(), until = now + SB_PRECONNECT_TICK_MS * SB_NS_PER_MS;
    unsigned i = 0;
    int n;

    for (unsigned k = 0; k < b->nfly; k++) {
        pfd[k].fd = b->fly[k].con->wait.fd;
        pfd[k].events = b->fly[k].con->wait.events;
        pfd[k].revents = 0;
        if (b->fly[k].deadline_ns != 0 && b->fly[k].deadline_ns < until)
            until = b->fly[k].deadline_ns;
    }
    n = poll(pfd, b->nfly, until > now ? (int)((until - now + SB_NS_PER_MS - 1) / SB_NS_PER_MS) : 0);
    if (n < 0)
        n = 0; /* EINTR: look again */
    now = sb_now_ns();
    while (i < b->nfly) {
        struct attempt a = b->fly[i];
        bool late = a.deadline_ns != 0 && now >= a.deadline_ns;
        bool timed_out = late && pfd[i].revents == 0;
        enum sb_db_status st;

        if (pfd[i].revents == 0 && !late) {
            i++;
            continue;
        }
        st = b->drv->connect_cont(a.con, timed_out);
        if (st == SB_DB_PENDING && !late) {
            i++;
            continue;
        }
        if (st == SB_DB_PENDING) {
            /* Past its time and still going: a driver whose connect_cont
             * did not end it. */
            b->drv->disconnect(a.con);
            memset(&a.con->err, 0, sizeof(a.con->err));
            snprintf(a.con->err.sql_state, sizeof(a.con->err.sql_state), "08001");
            snprintf(a.con->err.msg, sizeof(a.con->err.msg), "timeout expired");
            st = SB_DB_CONN_LOST;
            timed_out = true;
        }
        /* The last in flight takes its place, its pfd with it. */
        b->nfly--;
        b->fly[i] = b->fly[b->nfly];
        pfd[i] = pfd[b->nfly];
        attempt_done(b, a.con, a.member, st, timed_out);
    }
}

struct sb_conn *sb_db_preconnect_take(const struct sb_driver_ops *drv,
                                      struct sb_db_counters *counters,
                                      struct sb_db_error *err)
{
    struct sb_db_preconnect *p = counters->pre;
    struct batch b;
    unsigned next;
    uint64_t t0 = sb_now_ns();

    if (counters->preopened != NULL) {
        struct sb_conn *con = counters->preopened;
        counters->preopened = NULL;
        return con;
    }
    memset(&b, 0, sizeof(b));
    b.p = p;
    b.drv = drv;
    b.caller = counters->pre_index;
    p->started = true;
    next = b.caller;
    while ((next < p->n && !b.failed) || b.nfly > 0) {
        if (sb_stopping() && !b.failed) {
            struct sb_db_error stop = { 0 };
            snprintf(stop.msg, sizeof(stop.msg), "not connected: the run is stopping");
            fail_with(&b, &stop);
        }
        if (b.failed) {
            while (b.nfly > 0)
                attempt_abandon(&b, --b.nfly);
            break;
        }
        while (b.nfly < SB_DB_PRECONNECT_INFLIGHT && next < p->n && !b.failed)
            attempt_start(&b, next++);
        if (b.nfly > 0)
            wait_and_continue(&b);
    }
    if (b.failed) {
        /* Set-up stops: the connections opened go, the caller reports. */
        if (b.mine != NULL)
            sb_db_disconnect(b.mine);
        sb_db_preconnect_release(p);
        *err = b.err;
        return NULL;
    }
    sb_debug("connections: %u opened together by one client thread in %.2f s, at most %u in "
             "flight, %u retried blocking", p->opened, (double)(sb_now_ns() - t0) / 1e9,
             p->max_inflight, p->retried);
    return b.mine;
}
