/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Connections multiplexed over a few OS threads; see sb_loop.h.
 *
 * A worker's coroutine yields for one of three reasons, which the loop
 * tells apart by what the worker left behind:
 *   - a statement in flight: w->db.waiting names the connection, whose
 *     socket the loop waits for (epoll, registered once, edge-triggered);
 *   - a scheduled start: w->timer_wait, until w->wake_ns (the heap);
 *   - neither: it let the others run (an event that never waited), and
 *     goes to the back of the run queue.
 */
#define _GNU_SOURCE
#include "engine/sb_loop.h"

#include <errno.h>
#include <lauxlib.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "core/sb_clock.h"
#include "config/sb_config.h"
#include "drivers/sb_driver.h"
#include "lua/sb_lua.h"
#include "lua/sb_lua_shared.h"
#include "engine/sb_run.h"
#include "engine/sb_sampler.h"
#include "core/sb_stop.h"
#include "engine/sb_worker.h"
#include "engine/sb_ffi_rand.h"

/* How often a loop with nothing to do looks at the stop flag. */
#define SB_LOOP_TICK_NS (50 * SB_NS_PER_MS)
#define SB_LOOP_EVENTS 64

unsigned sb_loop_count(int client_threads, unsigned nthreads, bool driver_async,
                       bool script_thread_run, unsigned ncpus)
{
    unsigned k;

    if (client_threads == 0 || !driver_async || script_thread_run || nthreads < 2)
        return 0;
    if (client_threads > 0) {
        k = (unsigned)client_threads;
    } else {
        /* Measured on 2 CPUs with the server on the same machine
         * (doc/design.md, bench/client_cpu.sh VARIANTS): at 4 and 16
         * connections neither is cheaper throughout (one loop saved
         * 10-17% client CPU on oltp_read_write at 16 connections, cost
         * 5-10% more on oltp_point_select at 4, and lowered closed-loop
         * TPS by up to 23%: one thread's share of the CPUs against the
         * server's); at 1,000 connections two loops cost 30% less CPU
         * than 1,000 threads. */
        if (nthreads < SB_LOOP_AUTO_MIN)
            return 0;
        k = (nthreads + SB_LOOP_AUTO_MIN - 1) / SB_LOOP_AUTO_MIN;
        if (ncpus > 0 && k > ncpus)
            k = ncpus;
    }
    if (k >= nthreads)
        return 0;
    return k;
}

int sb_loop_init(struct sb_loop *loops, unsigned nloops, struct sb_run *run)
{
    unsigned per = run->point.threads / nloops, extra = run->point.threads % nloops, first = 0;

    memset(loops, 0, nloops * sizeof(*loops));
    for (unsigned i = 0; i < nloops; i++) {
        struct sb_loop *l = &loops[i];
        l->run = run;
        l->first = first;
        l->n = per + (i < extra ? 1 : 0);
        l->epfd = -1;
        l->heap = calloc(l->n, sizeof(*l->heap));
        l->runq = calloc(l->n, sizeof(*l->runq));
        if (l->heap == NULL || l->runq == NULL || sb_db_preconnect_init(&l->pre, l->n) != 0) {
            sb_loop_free(loops, i + 1);
            return -1;
        }
        for (unsigned j = 0; j < l->n; j++) {
            struct sb_worker *w = &run->workers[first + j];
            w->loop = l;
            w->loop_measure = sb_loop_measure;
            w->db.nonblocking = true;
            sb_db_preconnect_add(&l->pre, &w->db);
        }
        first += l->n;
    }
    return 0;
}

void sb_loop_free(struct sb_loop *loops, unsigned nloops)
{
    for (unsigned i = 0; loops != NULL && i < nloops; i++) {
        free(loops[i].heap);
        free(loops[i].runq);
        loops[i].heap = NULL;
        loops[i].runq = NULL;
        sb_db_preconnect_free(&loops[i].pre);
    }
}

/* The start of the loop thread's measured CPU time and run-queue wait. */
static void sample_start(struct sb_loop *l)
{
    sb_cpu_sample_this_thread(&l->cpu_start);
    l->rq_wait_start = sb_sampler_thread_wait();
}

void sb_loop_measure(struct sb_loop *l)
{
    if (l->measuring)
        return;
    l->measuring = true;
    sample_start(l);
}

/* ------------------------------------------------------------ queues */

static void runq_push(struct sb_loop *l, struct sb_worker *w)
{
    l->runq[(l->rq_head + l->rq_len) % l->n] = w;
    l->rq_len++;
}

static struct sb_worker *runq_pop(struct sb_loop *l)
{
    struct sb_worker *w = l->runq[l->rq_head];

    l->rq_head = (l->rq_head + 1) % l->n;
    l->rq_len--;
    return w;
}

/* The timer heap keeps each wait's due time beside its worker, so that
 * sifting reads only this array: comparing through the workers'
 * pointers made every step a cache miss (heap_pop was 6% of the loop
 * threads' CPU at 1,000 MariaDB connections, when a worker still held
 * its 110 KB of statistics; it is 1.8 KB now, still one far line a
 * step). */
static void heap_push(struct sb_loop *l, struct sb_worker *w)
{
    struct sb_loop_timer t = { w->wake_ns, w };
    unsigned i = l->nheap++;

    while (i > 0 && l->heap[(i - 1) / 2].wake_ns > t.wake_ns) {
        l->heap[i] = l->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    l->heap[i] = t;
}

static struct sb_worker *heap_pop(struct sb_loop *l)
{
    struct sb_worker *top = l->heap[0].w;
    struct sb_loop_timer last;
    unsigned i = 0;

    if (--l->nheap == 0)
        return top;
    last = l->heap[l->nheap];
    for (;;) {
        unsigned c = 2 * i + 1;
        if (c >= l->nheap)
            break;
        if (c + 1 < l->nheap && l->heap[c + 1].wake_ns < l->heap[c].wake_ns)
            c++;
        if (last.wake_ns <= l->heap[c].wake_ns)
            break;
        l->heap[i] = l->heap[c];
        i = c;
    }
    l->heap[i] = last;
    return top;
}

/* ------------------------------------------------------------ workers */

/* Creates w's coroutine running sysbench.__mux_run(tid), kept alive by a
 * registry reference until its Lua state is closed. */
static bool make_coroutine(struct sb_worker *w)
{
    lua_State *co;

    if (w->conn.sh != NULL) {
        w->co = sb_lua_conn_coroutine(&w->conn, w->tid, w->err, SB_WORKER_ERRLEN);
        return w->co != NULL;
    }
    co = lua_newthread(w->L);

    luaL_ref(w->L, LUA_REGISTRYINDEX);
    /* Raw lookups: outside lua_pcall a metamethod's error is a PANIC. */
    lua_pushstring(co, "sysbench");
    lua_rawget(co, LUA_GLOBALSINDEX);
    sb_lua_rawfield(co, -1, "__mux_run");
    if (!lua_isfunction(co, -1)) {
        snprintf(w->err, SB_WORKER_ERRLEN, "the script replaced the sysbench module");
        return false;
    }
    lua_remove(co, -2);
    lua_pushinteger(co, w->tid);
    w->co = co;
    return true;
}

/*
 * Waits for w's statement in flight. A connection's socket is registered
 * once, edge-triggered for both directions, so that a wait costs no
 * system call: the drivers only ask to wait after a read or write found
 * nothing more to do (EAGAIN), so the next arrival is an edge. An edge
 * for a worker that is not waiting is dropped (w->fd_wait).
 */
static bool wait_fd(struct sb_loop *l, struct sb_worker *w, struct sb_conn *con)
{
    struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLPRI | EPOLLET,
                              .data.ptr = w };

    if (con->wait.registered && con->wait.reg_gen == con->generation) {
        w->fd_wait = true;
        return true;
    }
    if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, con->wait.fd, &ev) != 0 &&
        (errno != EEXIST || epoll_ctl(l->epfd, EPOLL_CTL_MOD, con->wait.fd, &ev) != 0)) {
        snprintf(w->err, SB_WORKER_ERRLEN, "cannot wait for connection %d: %s", w->tid,
                 strerror(errno));
        return false;
    }
    con->wait.registered = true;
    con->wait.reg_gen = con->generation;
    /* What arrived before the registration made no edge: look once. */
    runq_push(l, w);
    return true;
}

/* A coroutine ended with an error: one line in w->err. A memory error
 * (also as the event loop's pcall raises it again, a string) leaves the
 * connections' shared state unused from then on. */
static void coroutine_error(struct sb_worker *w, int rc)
{
    if (rc != LUA_ERRMEM) {
        if (lua_type(w->co, -1) == LUA_TSTRING)
            luaL_traceback(w->co, w->co, lua_tostring(w->co, -1), 0);
        sb_lua_describe_error(w->co, w->err, SB_WORKER_ERRLEN);
        if (!sb_lua_is_oom(w->err))
            return;
    }
    if (w->conn.sh != NULL)
        sb_lua_shared_oom(w->conn.sh);
    snprintf(w->err, SB_WORKER_ERRLEN, "%s in event() of a multiplexed connection", SB_LUA_OOM);
}

/* Resumes w until it yields or ends; then files it where it waits. */
static void resume(struct sb_loop *l, struct sb_worker *w)
{
    /* First resume: the loop function's arguments are on the stack. */
    int nargs = w->resumes == 0 ? lua_gettop(w->co) - 1 : 0;
    uint64_t t0 = sb_now_ns();
    int rc;

    w->resumes++;
    sb_ffi_rand_bind(&w->rand);
    if (w->conn.sh != NULL)
        sb_lua_conn_enter(&w->conn, &w->lt);
    rc = lua_resume(w->co, nargs);
    w->run_ns += sb_now_ns() - t0;
    if (rc == LUA_YIELD) {
        struct sb_conn *con = w->db.waiting;
        lua_settop(w->co, 0);
        if (con != NULL) {
            w->db.waiting = NULL;
            if (wait_fd(l, w, con))
                return;
        } else if (w->timer_wait) {
            heap_push(l, w);
            return;
        } else {
            runq_push(l, w);
            return;
        }
    } else if (rc != 0) {
        coroutine_error(w, rc);
    } else {
        l->alive--;
        return;
    }
    sb_worker_fail(w);
    l->alive--;
}

/* ------------------------------------------------------------ the loop */

/* Waits up to ts for the loop's sockets; returns epoll's count, or -1.
 * epoll_pwait2 (Linux 5.11) takes the timer heap's nanoseconds; kernels
 * before it, and valgrind 3.19, answer ENOSYS, on which the loop would
 * never see a socket again. The loop then uses epoll_wait, its timeout
 * rounded up to whole milliseconds so that it sleeps rather than spins:
 * starts can be up to a millisecond late, which shows as start lag. */
static int wait_sockets(struct sb_loop *l, struct epoll_event *evs, const struct timespec *ts)
{
    if (!l->no_pwait2) {
        int n = epoll_pwait2(l->epfd, evs, SB_LOOP_EVENTS, ts, NULL);
        if (n >= 0 || errno != ENOSYS)
            return n;
        l->no_pwait2 = true;
    }
    /* ts is at most a tick (poll_ready), so the milliseconds fit an int. */
    return epoll_wait(l->epfd, evs, SB_LOOP_EVENTS,
                      (int)(ts->tv_sec * 1000 + (ts->tv_nsec + 999999) / 1000000));
}

/* Waits for sockets and timers up to the earliest timer (at most a tick,
 * so that a stop is noticed), and queues what is ready. */
static void poll_ready(struct sb_loop *l, bool block)
{
    struct epoll_event evs[SB_LOOP_EVENTS];
    uint64_t now = sb_now_ns(), until = now + SB_LOOP_TICK_NS;
    struct timespec ts = { 0, 0 };
    int n;

    if (l->nheap > 0 && l->heap[0].wake_ns < until)
        until = l->heap[0].wake_ns;
    if (block && until > now) {
        ts.tv_sec = (time_t)((until - now) / SB_NS_PER_SEC);
        ts.tv_nsec = (long)((until - now) % SB_NS_PER_SEC);
    }
    n = wait_sockets(l, evs, &ts);
    for (int i = 0; i < n; i++) {
        struct sb_worker *w = evs[i].data.ptr;
        if (w->fd_wait) {
            w->fd_wait = false;
            runq_push(l, w);
        }
    }
    now = sb_now_ns();
    while (l->nheap > 0 && l->heap[0].wake_ns <= now)
        runq_push(l, heap_pop(l));
    /* A stop ends timed waits early (sb_worker_mux_woken decides). */
    if (sb_stopping())
        while (l->nheap > 0)
            runq_push(l, heap_pop(l));
}

/* Runs the coroutines of the loop's workers that are ok until all end. */
static void run_all(struct sb_loop *l, const bool *ok)
{
    for (unsigned i = 0; i < l->n; i++) {
        struct sb_worker *w = &l->run->workers[l->first + i];
        if (!ok[i])
            continue;
        sb_worker_begin(w);
        if (!make_coroutine(w)) {
            sb_worker_fail(w);
            continue;
        }
        l->alive++;
        runq_push(l, w);
    }
    sample_start(l);
    while (l->alive > 0) {
        unsigned k = l->rq_len;
        /* Only those queued now: a worker that yields to let the others
         * run goes to the back, after a look at the sockets. */
        while (k-- > 0)
            resume(l, runq_pop(l));
        if (l->alive > 0)
            poll_ready(l, l->rq_len == 0);
    }
}

/* Shares the loop thread's CPU time (and run-queue wait) out among its
 * workers by the time each one's coroutine ran. */
static void share_cpu(struct sb_loop *l)
{
    uint64_t total = 0;
    uint64_t user = l->cpu_end.user_ns - l->cpu_start.user_ns;
    uint64_t sys = l->cpu_end.system_ns - l->cpu_start.system_ns;
    bool wait_known = l->rq_wait_start != UINT64_MAX && l->rq_wait_end != UINT64_MAX &&
                      l->rq_wait_end >= l->rq_wait_start;
    uint64_t wait = wait_known ? l->rq_wait_end - l->rq_wait_start : 0;

    for (unsigned i = 0; i < l->n; i++)
        total += l->run->workers[l->first + i].run_ns;
    for (unsigned i = 0; i < l->n; i++) {
        struct sb_worker *w = &l->run->workers[l->first + i];
        double share = total > 0 ? (double)w->run_ns / (double)total : 1.0 / l->n;
        memset(&w->cpu_start, 0, sizeof(w->cpu_start));
        w->cpu_end = w->cpu_start;
        w->cpu_end.user_ns = (uint64_t)((double)user * share);
        w->cpu_end.system_ns = (uint64_t)((double)sys * share);
        w->rq_wait_start = wait_known ? 0 : UINT64_MAX;
        w->rq_wait_end = wait_known ? (uint64_t)((double)wait * share) : UINT64_MAX;
    }
}

/* The Lua state the loop's workers share (sb_lua_shared.h), unless the
 * run stops during set-up; false with one line in err when it cannot be
 * made. */
static bool open_lua(struct sb_loop *l, char *err, size_t errlen)
{
    if (sb_stopping())
        return true; /* sb_worker_open ends each worker unopened */
    l->lua = sb_lua_shared_new(l->run->env, err, errlen);
    return l->lua != NULL;
}

void *sb_loop_main(void *arg)
{
    struct sb_loop *l = arg;
    struct sb_run *run = l->run;
    const struct sb_driver_ops *drv = run->env->driver;
    bool *ok = calloc(l->n ? l->n : 1, sizeof(*ok));
    char lerr[SB_WORKER_ERRLEN] = "";
    bool set_up, go;

    if (drv != NULL && drv->thread_init != NULL)
        drv->thread_init();
    l->epfd = epoll_create1(EPOLL_CLOEXEC);
    set_up = ok != NULL && l->epfd >= 0 && open_lua(l, lerr, sizeof(lerr));
    for (unsigned i = 0; i < l->n; i++) {
        struct sb_worker *w = &run->workers[l->first + i];
        if (set_up) {
            w->conn.sh = l->lua;
            ok[i] = sb_worker_open(w);
            continue;
        }
        snprintf(w->err, SB_WORKER_ERRLEN, "%s",
                 lerr[0] != '\0' ? lerr : "cannot set up the connection loop");
        sb_worker_fail(w);
        /* Not opened, yet ready: nobody waits for it. */
        __atomic_fetch_add(&run->ready, 1, __ATOMIC_RELEASE);
    }
    sb_lua_shared_ready(l->lua);
    /* Connections opened later (in event()) are opened one at a time. */
    sb_db_preconnect_end_setup(&l->pre);
    go = sb_worker_wait_go(run);
    if (go && set_up)
        run_all(l, ok);
    sb_cpu_sample_this_thread(&l->cpu_end);
    l->rq_wait_end = sb_sampler_thread_wait();
    share_cpu(l);
    for (unsigned i = 0; i < l->n; i++)
        sb_worker_close(&run->workers[l->first + i], go && set_up && ok[i]);
    sb_db_preconnect_release(&l->pre);
    /* Closes the connections the workers left, before the library's
     * per-thread state goes. */
    sb_lua_shared_close(l->lua);
    l->lua = NULL;
    if (l->epfd >= 0)
        close(l->epfd);
    free(ok);
    if (drv != NULL && drv->thread_done != NULL)
        drv->thread_done();
    __atomic_store_n(&l->done, 1, __ATOMIC_RELEASE);
    return NULL;
}
