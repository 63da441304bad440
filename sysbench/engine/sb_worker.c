/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Worker threads; see sb_worker.h.
 */
#include "engine/sb_worker.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "builtin/sb_builtin.h"
#include "core/sb_clock.h"
#include "config/sb_config.h"
#include "core/sb_log.h"
#include "engine/sb_run.h"
#include "core/sb_stop.h"
#include "engine/sb_sampler.h"
#include "engine/sb_ffi_rand.h"
#include "pure/sb_selfcheck.h"
#include "measure/sb_txlog.h"

struct sb_worker_table sb_worker_table_pub;

void sb_worker_table_set(struct sb_worker *workers, unsigned n)
{
    sb_worker_table_pub.w = workers;
    sb_worker_table_pub.n = n;
}

/* The statistics w records into, or NULL when w's events belong to
 * another epoch than its slot's: a multiplexed connection still in warmup,
 * or ending an event it began in warmup, after another connection of its
 * loop reset their slot. A worker thread's slot always has its epoch. */
static struct sb_live_stats *rec(struct sb_worker *w)
{
    return w->slot->epoch == w->epoch ? w->stats : NULL;
}

static void on_db_error(void *ctx, const struct sb_db_error *err, bool reconnect)
{
    struct sb_worker *w = ctx;
    struct sb_live_stats *s = rec(w);
    if (s != NULL)
        sb_live_count_code(s, err, reconnect);
}

void sb_worker_init(struct sb_worker *w, struct sb_run *run, int tid)
{
    /* w is zeroed already (calloc). Its statistics are a slot of the
     * run's (new_slots in sb_run.c), in the run's live set: histogram
     * buckets on zero-filled pages, taken as values arrive (clearing
     * 110 KB of histograms per worker had touched every page, 440 MB at
     * 4,000 threads, seconds of page faults before the first thread
     * started). */
    w->tid = tid;
    w->run = run;
    /* The stream of global connection I * threads + tid (sb_instance.h). */
    sb_rand_seed_stream(&w->rand, run->cfg->rand_seed,
                        sb_instance_gtid(&run->cfg->instance, run->point.threads, (unsigned)tid),
                        &run->cfg->rand);
    sb_rand_seed_stream(&w->pace_rand, run->cfg->rand_seed,
                        SB_RAND_STREAM_PACER +
                            sb_instance_gtid(&run->cfg->instance, run->point.threads, (unsigned)tid),
                        &run->cfg->rand);
    w->db.on_error = on_db_error;
    w->db.ctx = w;
    w->lt.tid = tid;
    w->lt.rand = &w->rand;
    w->lt.counters = &w->db;
    w->pacing = run->point.mode != SB_PACE_NONE;
}

/* A shared slot gets what is new in one SQL counter since *pub. */
static void publish_new(struct sb_live_stats *s, enum sb_counter c, uint64_t now, uint64_t *pub)
{
    if (s != NULL && now != *pub)
        sb_live_add(s, c, now - *pub);
    *pub = now;
}

void sb_worker_publish(struct sb_worker *w)
{
    struct sb_live_stats *s = w->stats;

    if (w->loop != NULL) {
        s = rec(w);
        publish_new(s, SB_STAT_READS, w->db.reads, &w->pub_reads);
        publish_new(s, SB_STAT_WRITES, w->db.writes, &w->pub_writes);
        publish_new(s, SB_STAT_OTHER, w->db.other, &w->pub_other);
        publish_new(s, SB_STAT_ERRORS, w->db.errors, &w->pub_errors);
        publish_new(s, SB_STAT_RECONNECTS, w->db.reconnects, &w->pub_reconnects);
        return;
    }
    /* Plain stores of values only this thread changes. */
    __atomic_store_n(&s->c[SB_STAT_READS], w->db.reads, __ATOMIC_RELAXED);
    __atomic_store_n(&s->c[SB_STAT_WRITES], w->db.writes, __ATOMIC_RELAXED);
    __atomic_store_n(&s->c[SB_STAT_OTHER], w->db.other, __ATOMIC_RELAXED);
    __atomic_store_n(&s->c[SB_STAT_ERRORS], w->db.errors, __ATOMIC_RELAXED);
    __atomic_store_n(&s->c[SB_STAT_RECONNECTS], w->db.reconnects, __ATOMIC_RELAXED);
}

/* --log starts with the measured transactions. */
static void arm_txlog(struct sb_worker *w)
{
    if (w->txlog_buf == NULL)
        return;
    w->txlog_buf->errors_seen = w->db.errors;
    w->txlog_buf->skipped_seen = w->pacer.skipped;
    w->txlog = w->txlog_buf;
    sb_txlog_start(w->txlog_buf);
}

/* A loop's shared slot enters epoch: reset once, by the first of its
 * connections to get there. No other connection of the loop is inside
 * sb_worker_event_stop then (they all run on this thread), and the ones
 * still in an event begun before record nothing (rec). */
static void reset_slot(struct sb_stats_slot *slot)
{
    sb_live_reset(slot->stats);
    for (unsigned k = 0; k < SB_MIX_MAX && slot->types[k] != NULL; k++)
        sb_live_reset(slot->types[k]);
    if (slot->stmts != NULL)
        sb_stmt_table_reset(slot->stmts);
}

static void enter_shared_epoch(struct sb_stats_slot *slot, int epoch)
{
    if (slot->epoch < epoch) {
        reset_slot(slot);
        __atomic_store_n(&slot->epoch, epoch, __ATOMIC_RELEASE);
    }
}

/* Warmup is over: forget everything measured so far. In rate modes this
 * happens when the worker takes its first slot of the measured window, so
 * no event of the window is lost and none of warmup is kept. */
static void reset_after_warmup(struct sb_worker *w, int epoch)
{
    w->db.reads = w->db.writes = w->db.other = 0;
    w->db.errors = w->db.reconnects = 0;
    w->pub_reads = w->pub_writes = w->pub_other = 0;
    w->pub_errors = w->pub_reconnects = 0;
    w->mix_errors_seen = 0;
    if (w->loop == NULL) {
        reset_slot(w->slot);
        __atomic_store_n(&w->slot->epoch, epoch, __ATOMIC_RELEASE);
    } else {
        enter_shared_epoch(w->slot, epoch);
    }
    __atomic_store_n(&w->events, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&w->busy_ns, 0, __ATOMIC_RELAXED);
    w->max_backlog = 0;
    w->first_ns = 0;
    w->measured = true;
    arm_txlog(w);
    sb_worker_measure_cpu(w);
    __atomic_store_n(&w->epoch, epoch, __ATOMIC_RELEASE);
}

void sb_worker_start_pacing(struct sb_run *run)
{
    for (unsigned i = 0; i < run->point.threads; i++) {
        struct sb_worker *w = &run->workers[i];
        if (run->point.mode == SB_PACE_FIXED)
            sb_pacer_init(&w->pacer, run->point.rate, run->point.nslots,
                          run->point.slot_base + i, run->point.jitter_us,
                          run->point.late_policy, run->t0_ns);
        /* Without warmup every slot is in the window (none is before t0). */
        w->measured = run->window_start_ns <= run->t0_ns;
        /* The self-check's threshold of a late start, as it computes the
         * period (sb_selfcheck.c). */
        w->client_late_ns = run->point.target_tps > 0
            ? (uint64_t)(SB_SELFCHECK_LAG_SHARE * 1e9 * run->point.threads / run->point.target_tps) : UINT64_MAX;
    }
}

uint64_t sb_worker_backlog(struct sb_run *run, uint64_t now)
{
    uint64_t b = 0;

    if (run->window_end_ns != 0 && now >= run->window_end_ns)
        now = run->window_end_ns - 1;
    for (unsigned i = 0; i < run->point.threads; i++) {
        struct sb_worker *w = &run->workers[i];
        uint64_t due = sb_pacer_due_count(&w->pacer, now);
        uint64_t taken = __atomic_load_n(&w->taken, __ATOMIC_RELAXED);
        if (due > taken)
            b += due - taken;
    }
    return b;
}

/* Whether a wait for the slot at `nominal`, due at `due`, goes on despite
 * a stop: the time limit does not cut off a slot of the window that
 * jitter moved past its end, within the run's late grace. */
static bool keep_waiting(const struct sb_run *run, uint64_t due, uint64_t nominal)
{
    if (!sb_stopping())
        return true;
    return run->window_end_ns != 0 && nominal < run->window_end_ns &&
           due <= run->window_end_ns + run->late_grace_ns &&
           sb_stop_reason() == SB_STOP_DONE;
}

/* Sleeps until `due`, waking at least every 50 ms to notice a stop. The
 * last --tx-spin microseconds are busy-waited when asked for. */
static bool wait_until(const struct sb_run *run, uint64_t due, uint64_t nominal)
{
    uint64_t spin = (uint64_t)(run->cfg->tx_spin_us * 1000.0);
    uint64_t now = sb_now_ns();

    while (now + spin < due) {
        uint64_t until = due - spin;
        if (until > now + 50 * SB_NS_PER_MS)
            until = now + 50 * SB_NS_PER_MS;
        sb_sleep_until_ns(until);
        if (!keep_waiting(run, due, nominal))
            return false;
        now = sb_now_ns();
    }
    while (now < due)
        now = sb_now_ns();
    return true;
}

/* --tx-rate: takes the next slot; sets its nominal time. Records the
 * backlog over all threads when this thread is behind: the backlog only
 * grows between starts, so its maximum is reached just before a late
 * start and the largest of these is the true maximum. */
static uint64_t take_fixed(struct sb_worker *w, uint64_t now, uint64_t *nominal,
                           uint64_t *backlog)
{
    struct sb_run *run = w->run;
    uint64_t skipped = w->pacer.skipped;
    uint64_t due;
    struct sb_live_stats *s;

    /* Warmup is over and this worker is behind: its slots before the
     * window are warmup backlog, dropped so the window starts on time. */
    if (!w->measured && now >= run->window_start_ns)
        sb_pacer_start_window(&w->pacer, run->window_start_ns);
    *backlog = 0;
    /* A slot due before the window cannot start the measured run, so its
     * backlog would be discarded: no scan over the threads for it. */
    if ((w->measured || now >= run->window_start_ns) && sb_pacer_slot_due(&w->pacer, now))
        *backlog = sb_worker_backlog(run, now);
    due = sb_pacer_next(&w->pacer, &w->pace_rand, now);
    __atomic_store_n(&w->taken, w->pacer.slot, __ATOMIC_RELAXED);
    *nominal = w->pacer.nominal_ns;
    if (!w->measured && *nominal >= run->window_start_ns)
        reset_after_warmup(w, 1);
    s = rec(w);
    if (w->pacer.skipped != skipped && s != NULL)
        sb_live_add(s, SB_STAT_SKIPPED, w->pacer.skipped - skipped);
    return due;
}

/* A multiplexed worker waits for `due` by yielding (then_stop: and then
 * stops). */
static enum sb_mux_next mux_wait(struct sb_worker *w, uint64_t due, uint64_t nominal,
                                 bool then_stop)
{
    w->wake_ns = due;
    w->wake_nominal = nominal;
    w->wake_then_stop = then_stop;
    w->timer_wait = true;
    return SB_MUX_WAIT;
}

/* Takes the next event; waits for its due time by sleeping, or when mux,
 * by asking to yield (SB_MUX_WAIT). */
static enum sb_mux_next next_event(struct sb_worker *w, bool mux)
{
    struct sb_run *run = w->run;
    int epoch;
    uint64_t now, due, nominal, backlog = 0;

    if (sb_stopping())
        return SB_MUX_STOP;
    if (run->cfg->events_limit > 0 &&
        __atomic_fetch_add(&run->claimed, 1, __ATOMIC_RELAXED) >= run->cfg->events_limit) {
        sb_request_stop(SB_STOP_EVENTS);
        return SB_MUX_STOP;
    }
    if (!w->pacing) {
        epoch = __atomic_load_n(&run->epoch, __ATOMIC_ACQUIRE);
        if (epoch != w->epoch)
            reset_after_warmup(w, epoch);
        return SB_MUX_GO;
    }
    now = sb_now_ns();
    if (run->point.mode == SB_PACE_FIXED) {
        due = take_fixed(w, now, &nominal, &backlog);
    } else {
        pthread_mutex_lock(&run->arrivals_lock);
        if (!w->measured && now >= run->window_start_ns)
            sb_arrivals_start_window(&run->arrivals, run->window_start_ns);
        due = sb_arrivals_take(&run->arrivals, now);
        pthread_mutex_unlock(&run->arrivals_lock);
        nominal = due;
        if (!w->measured && nominal >= run->window_start_ns)
            reset_after_warmup(w, 1);
    }
    if (w->measured && backlog > w->max_backlog)
        __atomic_store_n(&w->max_backlog, backlog, __ATOMIC_RELAXED);
    /* A slot at or after the end of the window is not the run's: wait for
     * the end so the run lasts its time, and stop. */
    if (run->window_end_ns != 0 && nominal >= run->window_end_ns) {
        if (mux)
            return mux_wait(w, run->window_end_ns, nominal, true);
        wait_until(run, run->window_end_ns, nominal);
        return SB_MUX_STOP;
    }
    /* Response and lag are measured from the due time. */
    __atomic_store_n(&w->due_ns, due, __ATOMIC_RELAXED);
    if (due < now) {
        struct sb_live_stats *s = rec(w);
        if (s != NULL)
            sb_live_add(s, SB_STAT_LATE, 1);
    } else if (mux)
        return mux_wait(w, due, nominal, false);
    else if (!wait_until(run, due, nominal))
        return SB_MUX_STOP;
    return SB_MUX_GO;
}

bool sb_worker_more_events(struct sb_worker *w)
{
    return next_event(w, false) == SB_MUX_GO;
}

enum sb_mux_next sb_worker_mux_next(struct sb_worker *w)
{
    enum sb_mux_next m = next_event(w, true);

    /* An event that never waits (no statement, no schedule) would keep
     * the loop's thread to itself: it yields once between events. */
    if (m == SB_MUX_GO && w->resumes == w->resumes_seen)
        m = SB_MUX_YIELD_GO;
    w->resumes_seen = w->resumes;
    return m;
}

enum sb_mux_next sb_worker_mux_woken(struct sb_worker *w)
{
    if (sb_now_ns() >= w->wake_ns) {
        w->timer_wait = false;
        return w->wake_then_stop ? SB_MUX_STOP : SB_MUX_GO;
    }
    if (!keep_waiting(w->run, w->wake_ns, w->wake_nominal)) {
        w->timer_wait = false;
        return SB_MUX_STOP;
    }
    return SB_MUX_WAIT;
}

void sb_worker_event_start(struct sb_worker *w)
{
    w->start_ns = sb_now_ns();
    if (!w->pacing) { /* atomic: the reporter may read due_ns (sb_live_stats.h) */
        __atomic_store_n(&w->due_ns, w->start_ns, __ATOMIC_RELAXED);
    } else {
        /* Waiting behind this connection's own previous transaction is
         * the server's doing (or too few connections), not the client's:
         * only the time after both the due time and that end counts. */
        uint64_t due = __atomic_load_n(&w->due_ns, __ATOMIC_RELAXED);
        uint64_t ready = due > w->prev_end_ns ? due : w->prev_end_ns;
        w->client_delay_ns = w->start_ns > ready ? w->start_ns - ready : 0;
        w->woke = due >= w->prev_end_ns;
    }
}

unsigned sb_worker_mix_next(struct sb_worker *w)
{
    const struct sb_mix *m = w->run->env->mix;

    w->mix_type = m != NULL && m->n > 0 ? sb_mix_pick(m, &w->rand) : 0;
    return w->mix_type;
}

void sb_worker_mix_errors(struct sb_worker *w)
{
    struct sb_live_stats *t = w->slot->types[w->mix_type];

    if (t != NULL && rec(w) != NULL && w->db.errors != w->mix_errors_seen)
        sb_live_add(t, SB_STAT_ERRORS, w->db.errors - w->mix_errors_seen);
    w->mix_errors_seen = w->db.errors;
}

/* A mix: the event's figures again, under its type (the caller checked
 * that the slot records). */
static void record_type(struct sb_worker *w, uint64_t response, uint64_t busy, uint64_t lag)
{
    struct sb_live_stats *t = w->slot->types[w->mix_type];

    sb_hist_live_record(&t->response, response);
    if (w->pacing) {
        sb_hist_live_record(&t->rate->service, busy);
        sb_hist_live_record(&t->rate->lag, lag);
    }
    sb_live_add(t, SB_STAT_EVENTS, 1);
    sb_worker_mix_errors(w);
}

void sb_worker_event_stop(struct sb_worker *w)
{
    uint64_t end = sb_now_ns();
    /* Closed loop: due_ns is the start, so response is the service time
     * and the lag is 0. */
    uint64_t response = end - w->due_ns;
    uint64_t lag = w->start_ns > w->due_ns ? w->start_ns - w->due_ns : 0;
    uint64_t busy = w->pacing ? end - w->start_ns : response;
    struct sb_live_stats *s = rec(w);

    if (s != NULL) {
        sb_hist_live_record(&s->response, response);
        if (w->pacing) {
            sb_hist_live_record(&s->rate->service, busy);
            sb_hist_live_record(&s->rate->lag, lag);
            sb_live_add(s, SB_STAT_CLIENT_DELAY_NS, w->client_delay_ns);
            if (w->client_delay_ns > w->client_late_ns)
                sb_live_add(s, SB_STAT_CLIENT_LATE, 1);
            if (w->woke)
                sb_dhist_record(&s->rate->wake, w->client_delay_ns);
        }
        sb_live_add(s, SB_STAT_EVENTS, 1);
        if (w->slot->types[0] != NULL)
            record_type(w, response, busy, lag);
        if (w->first_ns == 0) {
            w->first_ns = w->start_ns;
            w->first_due_ns = w->due_ns;
        }
        __atomic_store_n(&w->last_end_ns, end, __ATOMIC_RELAXED);
    }
    if (w->pacing)
        w->prev_end_ns = end;
    __atomic_store_n(&w->events, w->events + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&w->busy_ns, w->busy_ns + busy, __ATOMIC_RELAXED);
    w->completed++;
    sb_worker_publish(w);
    if (w->txlog != NULL)
        sb_txlog_add(w->txlog, end, response, lag, w->db.errors, w->pacer.skipped);
}

static void fail(struct sb_worker *w)
{
    w->failed = true;
    sb_request_stop(SB_STOP_ERROR);
}

bool sb_ffi_stop_requested(void)
{
    return sb_stop_claimed();
}

void sb_worker_count_trx(struct sb_worker *w)
{
    struct sb_live_stats *s = rec(w);

    if (s != NULL)
        sb_live_add(s, SB_STAT_EVENTS, 1);
    __atomic_store_n(&w->events, w->events + 1, __ATOMIC_RELAXED);
}

void sb_worker_measure_cpu(struct sb_worker *w)
{
    if (w->loop != NULL) {
        w->run_ns = 0;
        w->loop_measure(w->loop);
        return;
    }
    sb_cpu_sample_this_thread(&w->cpu_start);
    w->rq_wait_start = sb_sampler_thread_wait();
}

bool sb_worker_wait_go(struct sb_run *run)
{
    int go;

    pthread_mutex_lock(&run->go_lock);
    while ((go = run->go) == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        /* A signal cannot wake the condition: poll for it, but seldom.
         * The main thread broadcasts a stop within its grace anyway, and
         * a 50 ms poll on this one mutex is 80,000 wake-ups a second at
         * 4,000 threads, taken from the threads still connecting. */
        ts.tv_sec += 1;
        if (sb_stop_reason() == SB_STOP_SIGNAL)
            break;
        pthread_cond_timedwait(&run->go_cond, &run->go_lock, &ts);
    }
    pthread_mutex_unlock(&run->go_lock);
    return go > 0;
}

/* A compiled-in test's thread state (sb_builtin.h). */
static bool builtin_open(struct sb_worker *w)
{
    const struct sb_builtin *b = w->run->env->builtin;
    struct sb_bi_thread t = {
        .cfg = w->run->env->builtin_cfg, .tid = w->tid, .nthreads = w->run->point.threads,
        .rand = &w->rand, .counters = &w->db, .err = w->err, .errlen = SB_WORKER_ERRLEN
    };

    if (b->thread_init(&w->bctx, &t) == 0)
        return true;
    if (w->err[0] == '\0')
        snprintf(w->err, SB_WORKER_ERRLEN, "%s: cannot start thread %d: out of memory", b->name,
                 w->tid);
    return false;
}

/* A compiled-in test's event loop: the built-in Lua loop's protocol with
 * the test's C event in place of event(). */
static bool builtin_run(struct sb_worker *w)
{
    int (*event)(void *) = w->run->env->builtin->event;
    void *ctx = w->bctx;

    while (sb_worker_more_events(w)) {
        int rc;

        sb_worker_event_start(w);
        rc = event(ctx);
        if (rc == SB_BI_DONE)
            break;
        if (rc != SB_BI_OK)
            return false;
        sb_worker_event_stop(w);
    }
    return true;
}

/* Ends a compiled-in test's thread; its error counts only when it is the
 * first (an earlier one keeps w->err). Returns ok, false when it failed. */
static bool builtin_close(struct sb_worker *w, bool ok)
{
    char first[SB_WORKER_ERRLEN];

    memcpy(first, w->err, sizeof(first));
    if (w->run->env->builtin->thread_done(w->bctx) != 0) {
        if (ok)
            fail(w);
        else
            memcpy(w->err, first, sizeof(first));
        ok = false;
    }
    w->bctx = NULL;
    return ok;
}

/* The worker's Lua: a state of its own, or its globals in the state its
 * loop's connections share (sb_lua_shared.h), whose code draws from the
 * generator bound to the thread. */
static bool worker_lua_open(struct sb_worker *w)
{
    if (w->conn.sh == NULL) {
        w->L = sb_lua_new_state(w->run->env, &w->lt, true, w->err, SB_WORKER_ERRLEN);
        return w->L != NULL;
    }
    sb_ffi_rand_bind(&w->rand);
    return sb_lua_conn_open(&w->conn, &w->lt, w->err, SB_WORKER_ERRLEN) == 0;
}

static int worker_lua_call(struct sb_worker *w, const char *name, char *err, size_t errlen)
{
    if (w->conn.sh == NULL)
        return sb_lua_call_global(w->L, name, w->tid, NULL, err, errlen);
    sb_ffi_rand_bind(&w->rand);
    return sb_lua_conn_call(&w->conn, &w->lt, name, w->tid, err, errlen);
}

bool sb_worker_open(struct sb_worker *w)
{
    bool ok;

    /* A stop during set-up (a signal, or another connection's fatal
     * error: the run cannot start then) leaves the rest unopened: at
     * 10,000 connections, building every state and trying every
     * connection after the first refusal took 95 s. */
    if (sb_stopping()) {
        __atomic_fetch_add(&w->run->ready, 1, __ATOMIC_RELEASE);
        return false;
    }
    /* A compiled-in test's events are C: its workers get no Lua state
     * (the script is an empty chunk, so thread_init and thread_done
     * would do nothing). A state was 150-200 KB resident per thread, most
     * of what a thread of `sysbench cpu` cost. */
    w->db.stmts = w->slot->stmts;
    if (w->run->env->builtin != NULL) {
        ok = builtin_open(w);
    } else {
        ok = worker_lua_open(w);
        if (ok && worker_lua_call(w, "thread_init", w->err, SB_WORKER_ERRLEN) != 0)
            ok = false;
    }
    if (!ok && w->L != NULL && sb_lua_is_oom(w->err)) {
        sb_lua_drop(w->L); /* no thread_done, no close: see sb_lua_drop */
        w->L = NULL;
    }
    /* A failure after another thread's error or a signal stopped the run
     * (a connect given up in the queue, sb_driver.c) is a consequence:
     * the error reported is the one that stopped the run. */
    if (!ok && sb_stop_reason() != SB_STOP_ERROR && sb_stop_reason() != SB_STOP_SIGNAL)
        fail(w);
    __atomic_fetch_add(&w->run->ready, 1, __ATOMIC_RELEASE);
    return ok;
}

void sb_worker_begin(struct sb_worker *w)
{
    struct sb_run *run = w->run;

    int epoch = __atomic_load_n(&run->epoch, __ATOMIC_ACQUIRE);

    /* The reporter reads the epochs concurrently (sb_live_stats.h). A worker
     * thread's slot keeps what thread_init recorded, as it always did. */
    if (w->loop == NULL)
        __atomic_store_n(&w->slot->epoch, epoch, __ATOMIC_RELEASE);
    else
        enter_shared_epoch(w->slot, epoch);
    __atomic_store_n(&w->epoch, epoch, __ATOMIC_RELEASE);
    if (w->loop == NULL) {
        sb_cpu_sample_this_thread(&w->cpu_start);
        w->rq_wait_start = sb_sampler_thread_wait();
    }
    /* Measured from the first event: no warmup, or a rate mode whose
     * window starts with the schedule. */
    if (w->pacing ? w->measured : run->cfg->warmup_time <= 0)
        arm_txlog(w);
}

void sb_worker_fail(struct sb_worker *w)
{
    fail(w);
}

void sb_worker_close(struct sb_worker *w, bool ok)
{
    struct sb_run *run = w->run;

    sb_worker_publish(w);
    if (w->bctx != NULL)
        ok = builtin_close(w, ok);
    sb_worker_publish(w);
    if (w->txlog_buf != NULL)
        sb_txlog_thread_done(w->txlog_buf, w->pacer.skipped);
    /* After running out of memory, thread_done would only fail again
     * (a second FATAL line); the state is still closed, which frees what
     * the failed code held (a finalizer that fails then ends the process
     * through the panic handler, without another line). */
    if ((w->L != NULL || w->conn.open) && !(sb_lua_is_oom(w->err) && !ok)) {
        char err2[1024];
        if (worker_lua_call(w, "thread_done", err2, sizeof(err2)) != 0 && ok) {
            snprintf(w->err, SB_WORKER_ERRLEN, "thread_done: %.900s", err2);
            fail(w);
        }
        sb_worker_publish(w);
    }
    w->end_ns = sb_now_ns();
    /* Connections are closed with the Lua state, before the library's
     * per-thread state goes. */
    sb_lua_close(w->L);
    w->L = NULL;
    if (w->conn.sh != NULL)
        sb_lua_conn_close(&w->conn);
    w->co = NULL;
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&run->finished, 1, __ATOMIC_RELEASE);
}

void *sb_worker_main(void *arg)
{
    struct sb_worker *w = arg;
    struct sb_run *run = w->run;
    const struct sb_driver_ops *drv = run->env->driver;
    bool ok;

    /* Client libraries keep per-thread state (mysql_thread_init). */
    if (drv != NULL && drv->thread_init != NULL)
        drv->thread_init();
    ok = sb_worker_open(w);
    if (!sb_worker_wait_go(run))
        ok = false;

    /* As in sysbench 1.0, every thread enters its loop, also one that will
     * get no event (an event limit already reached, a stop during start):
     * a script's own thread_run may do work of its own. */
    if (ok && run->env->builtin != NULL) {
        sb_worker_begin(w);
        if (!builtin_run(w)) {
            ok = false;
            fail(w);
        }
    } else if (ok) {
        sb_worker_begin(w);
        sb_lua_push_thread_run(w->L);
        lua_pushinteger(w->L, w->tid);
        if (sb_lua_pcall(w->L, 1, 0, w->err, SB_WORKER_ERRLEN) != 0) {
            if (sb_lua_is_oom(w->err))
                snprintf(w->err, SB_WORKER_ERRLEN, "%s in event() of a worker thread",
                         SB_LUA_OOM);
            ok = false;
            fail(w);
        }
    }
    sb_cpu_sample_this_thread(&w->cpu_end);
    w->rq_wait_end = sb_sampler_thread_wait();
    sb_worker_close(w, ok);
    if (drv != NULL && drv->thread_done != NULL)
        drv->thread_done();
    return NULL;
}
