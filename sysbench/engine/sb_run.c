/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One benchmark run and parallel commands; see sb_run.h.
 */
#include "engine/sb_run.h"
#include "engine/sb_probe.h"
#include "config/sb_instance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "core/sb_clock.h"
#include "cpu/sb_cpu.h"
#include "drivers/sb_db_cancel.h"
#include "core/sb_log.h"
#include "core/sb_progress.h"
#include "engine/sb_loop.h"
#include "lua/sb_lua_interrupt.h"
#include "results/sb_result_writer.h"
#include "results/sb_text_report.h"
#include "engine/sb_monitor.h"
#include "results/sb_server_info.h"
#include "builtin/sb_builtin.h"
#include "core/sb_stop.h"
#include "measure/sb_txlog.h"
#include "engine/sb_worker.h"

static void print_header(const struct sb_run *run, const struct sb_lua_env *env,
                         const struct sb_result_writer *out)
{
    const struct sb_config *cfg = run->cfg;
    bool brief = out != NULL && out->brief;
    size_t npoints_before = out != NULL ? out->npoints : 0;

    if (cfg->verbosity < SB_LOG_NOTICE) /* sysbench 1.0: no header then */
        return;
    /* A sweep or --repeat in brief (sb_result_writer.h): the options once, then
     * the caller's line per point, which names its threads and rate. */
    if (brief && npoints_before > 0) {
        printf("%s\n", out->point_title);
        fflush(stdout);
        return;
    }
    /* 1.0's banner already ends in a blank line. */
    printf("%sRunning the test with following options:\n", sb_compat10() ? "" : "\n");
    if (!brief)
        printf("Number of threads: %u\n", run->point.threads);
    if (run->nloops > 0)
        printf("Client threads: %u (the connections are multiplexed)\n", run->nloops);
    if (env->driver != NULL && env->driver_reason != NULL && !sb_compat10())
        printf("Database driver: %s (%s)\n", env->driver->name, env->driver_reason);
    if (run->point.mode == SB_PACE_FIXED && brief)
        printf("Transaction rate: each thread on a fixed schedule (late policy %s)\n",
               run->point.late_policy == SB_LATE_SKIP ? "skip" : "catchup");
    else if (run->point.mode == SB_PACE_FIXED)
        printf("Target transaction rate: %.2f per second, each thread on a fixed schedule "
               "(period %.1f us, jitter %.1f us, late policy %s)\n",
               run->point.target_tps, (double)run->point.threads / run->point.target_tps * 1e6, run->point.jitter_us,
               run->point.late_policy == SB_LATE_SKIP ? "skip" : "catchup");
    else if (run->point.mode == SB_PACE_POISSON && brief)
        printf("Transaction rate: Poisson arrivals\n");
    else if (run->point.mode == SB_PACE_POISSON)
        printf("Target transaction rate: %.2f per second (Poisson arrivals)\n", run->point.target_tps);
    if (run->point.ninstances > 1)
        printf("Instance %u of %u (connections %u to %u of %u)\n", run->point.instance,
               run->point.ninstances, run->point.slot_base,
               run->point.slot_base + run->point.threads - 1, run->point.nslots);
    if (cfg->instance.start_at > 0)
        printf("Start at %.3f (seconds since the epoch)%s\n", cfg->instance.start_at,
               cfg->instance.clock_offset_given ? "" : "; clocks assumed synchronised");
    if (cfg->instance.clock_offset_given)
        printf("Clock offset reported by the orchestrator: %g s\n", cfg->instance.clock_offset_s);
    if (cfg->warmup_time > 0)
        printf("Warmup time: %gs\n", cfg->warmup_time);
    if (cfg->report_interval > 0)
        printf("Report intermediate results every %g second(s)\n", cfg->report_interval);
    if (cfg->ncheckpoints > 0) {
        printf("Report checkpoint(s) at ");
        for (size_t i = 0; i < cfg->ncheckpoints; i++)
            printf("%s%g", i ? ", " : "", cfg->checkpoints[i]);
        printf(" seconds\n");
    }
    if (sb_compat10() && sb_optset_bool(env->general, "validate"))
        printf("Validation checks: on.\n\n"); /* 1.0.20's line; ours validates nothing more */
    if (cfg->rand_seed_given)
        printf("Initializing random number generator from seed (%llu).\n",
               (unsigned long long)cfg->rand_seed);
    else if (sb_compat10())
        printf("Initializing random number generator from current time\n");
    else
        /* The seed the clock gave, so that the run can be repeated. */
        printf("Initializing random number generator from current time: seed %llu "
               "(--rand-seed=%llu repeats every random stream)\n",
               (unsigned long long)cfg->rand_seed, (unsigned long long)cfg->rand_seed);
    if (brief) {
        printf("\n%s\n", out->point_title);
        fflush(stdout);
        return;
    }
    printf("\n\n");
    if (env->builtin != NULL && env->builtin->print_header != NULL)
        env->builtin->print_header(env->builtin_cfg, stdout);
    printf("Initializing worker threads...\n\n");
    fflush(stdout);
}

/*
 * Joins every started worker that has returned and detaches the others,
 * which are abandoned with the run (their memory lives until _exit);
 * a finished thread left unjoined is a leak. Called once per run; returns
 * how many were detached.
 */
static unsigned reap_workers(struct sb_run *run)
{
    unsigned left = 0;

    for (unsigned i = 0; i < run->nloops; i++) {
        struct sb_loop *l = &run->loops[i];
        if (!l->started)
            continue;
        if (__atomic_load_n(&l->done, __ATOMIC_ACQUIRE)) {
            pthread_join(l->thread, NULL);
        } else {
            pthread_detach(l->thread);
            left++;
        }
    }
    for (unsigned i = 0; i < run->point.threads; i++) {
        struct sb_worker *w = &run->workers[i];
        if (!w->started || w->loop != NULL)
            continue;
        if (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
            pthread_join(w->thread, NULL);
        } else {
            pthread_detach(w->thread);
            left++;
        }
    }
    return left;
}

/* Whether every worker has finished and every loop thread has returned:
 * a loop counts its workers finished before it closes their connections
 * and returns, and one caught in between is not stuck. */
static bool all_returned(struct sb_run *run)
{
    if (__atomic_load_n(&run->finished, __ATOMIC_ACQUIRE) < run->point.threads)
        return false;
    for (unsigned i = 0; i < run->nloops; i++)
        if (run->loops[i].started && !__atomic_load_n(&run->loops[i].done, __ATOMIC_ACQUIRE))
            return false;
    return true;
}

/*
 * Cancels the statements in flight (sb_db_cancel.h) when it is time:
 * at once after a signal, --deadline-grace seconds after the deadline
 * otherwise, and every half second after that for statements started
 * since (an event's next statement, thread_done). Returns true once the
 * threads have had their chance to stop: a signal came, or a statement
 * was cancelled at the deadline. (Lua that is merely slow past the
 * deadline is waited for, as before: --forced-shutdown bounds it.)
 */
static bool cancel_due(struct sb_run *run, uint64_t deadline_ns, uint64_t now,
                       uint64_t *next_sweep)
{
    bool sig = sb_signal_caught() != 0;
    uint64_t at = deadline_ns > 0 ? deadline_ns + (uint64_t)(run->cfg->deadline_grace * 1e9) : 0;

    if (*next_sweep == 0 && !sig && (at == 0 || now < at))
        return false;
    if (now >= *next_sweep) {
        unsigned n = sb_db_cancel_all(sig);
        if (n > 0 && !sig)
            run->cut_at_deadline = true;
        *next_sweep = now + 500 * SB_NS_PER_MS;
    }
    return sig || run->cut_at_deadline;
}

/*
 * Waits for the workers to return, cancelling their statements when a
 * signal or the deadline (plus --deadline-grace) asks for it. One still
 * running --forced-shutdown seconds after the deadline, or a few seconds
 * after its statement was cancelled (a server that ignores the cancel, Lua
 * that loops), is left running: its statistics are still read for the
 * report, and main ends the process with _exit. Returns how many were left.
 */
static unsigned join_workers(struct sb_run *run, uint64_t deadline_ns)
{
    const struct sb_config *cfg = run->cfg;
    double fs = cfg->forced_shutdown;
    uint64_t force = fs > 0 && deadline_ns > 0 ? deadline_ns + (uint64_t)(fs * 1e9) : 0;
    uint64_t give_up = 0, next_sweep = 0;
    unsigned left = 0;

    while (!all_returned(run)) {
        uint64_t now = sb_now_ns();
        /* From the end of the sweep, which may have waited for the
         * server (MariaDB: a side connection). A thread whose statement
         * was cancelled at the deadline gets longer than one a signal
         * stops: its thread_done still runs. */
        if (cancel_due(run, deadline_ns, now, &next_sweep) && give_up == 0)
            give_up = sb_now_ns() + (uint64_t)((sb_signal_caught() != 0
                                                    ? SB_SIGNAL_GRACE_S
                                                    : SB_RUN_CANCEL_GRACE_S) * 1e9);
        if ((force != 0 && now >= force) || (give_up != 0 && now >= give_up))
            break;
        sb_sleep_until_ns(now + 10 * SB_NS_PER_MS);
    }
    left = reap_workers(run);
    if (left > 0) {
        sb_signal_abandon();
        if (sb_signal_caught() != 0)
            sb_fatal("%u thread(s) did not stop within %gs of signal %d: reporting what ran",
                     left, SB_SIGNAL_GRACE_S, sb_signal_caught());
        else if (force != 0 && sb_now_ns() >= force)
            sb_fatal("forced shutdown: %u thread(s) still running %gs after the time limit",
                     left, fs);
        else
            sb_fatal("%u thread(s) did not stop within %gs of cancelling their statements "
                     "at the deadline: reporting what ran", left, SB_RUN_CANCEL_GRACE_S);
    }
    return left;
}

/* A worker whose thread (number i) could not be created (rc) counts as
 * ready, finished and failed, so nobody waits for it. */
static void not_started(struct sb_run *run, struct sb_worker *w, unsigned i, int rc)
{
    snprintf(w->err, SB_WORKER_ERRLEN, "cannot create thread %u: %s", i, strerror(rc));
    w->failed = true;
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&run->ready, 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&run->finished, 1, __ATOMIC_RELEASE);
    sb_request_stop(SB_STOP_ERROR);
}

/* Workers from `from` on are not started: a stop came during set-up, and
 * the run will not start. They count as ready and finished, so that
 * nobody waits for them. */
static void not_needed(struct sb_run *run, unsigned from)
{
    for (unsigned i = from; i < run->point.threads; i++) {
        __atomic_store_n(&run->workers[i].done, 1, __ATOMIC_RELEASE);
        __atomic_fetch_add(&run->ready, 1, __ATOMIC_RELEASE);
        __atomic_fetch_add(&run->finished, 1, __ATOMIC_RELEASE);
    }
}

/* Starts the loop threads; a loop whose thread cannot be created counts
 * its workers as not started. */
static void start_loops(struct sb_run *run, pthread_attr_t *attr)
{
    for (unsigned i = 0; i < run->nloops; i++) {
        struct sb_loop *l = &run->loops[i];
        int rc = pthread_create(&l->thread, attr, sb_loop_main, l);
        for (unsigned j = 0; j < l->n; j++) {
            struct sb_worker *w = &run->workers[l->first + j];
            if (rc == 0)
                w->started = true;
            else
                not_started(run, w, i, rc);
        }
        l->started = rc == 0;
    }
}

/* Starts the workers. A thread that cannot be created counts as ready,
 * finished and failed, so nobody waits for it. */
static void start_threads(struct sb_run *run)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (run->cfg->thread_stack_size > 0)
        pthread_attr_setstacksize(&attr, run->cfg->thread_stack_size);
    start_loops(run, &attr);
    for (unsigned i = 0; i < run->point.threads && run->nloops == 0; i++) {
        struct sb_worker *w = &run->workers[i];
        int rc;
        /* With thousands of threads this loop competes with the ones
         * already building their Lua states and connecting: at 4,000 it
         * ran for tens of seconds, deaf to SIGINT. After a stop (a
         * signal, or a thread that failed to connect) the rest are not
         * created (reap_workers skips them). */
        if (sb_stopping()) {
            not_needed(run, i);
            break;
        }
        rc = pthread_create(&w->thread, &attr, sb_worker_main, w);
        if (rc == 0)
            w->started = true;
        else
            not_started(run, w, i, rc);
    }
    pthread_attr_destroy(&attr);
}

/* Lets the workers start their loops (go), or only end (no go). */
static void release_workers(struct sb_run *run, bool go)
{
    pthread_mutex_lock(&run->go_lock);
    run->go = go ? 1 : -1;
    pthread_cond_broadcast(&run->go_cond);
    pthread_mutex_unlock(&run->go_lock);
}

struct init_call {
    lua_State *L;
    char err[1024];
    int rc;
};

static void *init_main(void *p)
{
    struct init_call *c = p;
    c->rc = sb_lua_call_global(c->L, "init", -1, NULL, c->err, sizeof(c->err));
    return NULL;
}

static const char *worker_error(const struct sb_run *run);

/* init() in the main state, in a thread of its own so that a signal ends
 * it at once. Returns 0, 1 (error reported) or 128+signal. */
static int call_init(lua_State *L, const struct sb_lua_env *env)
{
    struct init_call *c = calloc(1, sizeof(*c));
    int rc;

    if (c == NULL) {
        sb_fatal("out of memory");
        return 1;
    }
    c->L = L;
    rc = sb_signal_guarded(env->driver, init_main, c);
    if (rc == 1)
        return 128 + sb_signal_caught(); /* c stays with the abandoned thread */
    if (rc == 0 && c->rc != 0 && sb_signal_caught() != 0) {
        rc = 128 + sb_signal_caught(); /* init() interrupted: no error of its own */
    } else if (rc < 0 || c->rc != 0) {
        sb_fatal("%s", rc < 0 ? "cannot create a thread for init()" : c->err);
        rc = 1;
    }
    free(c);
    return rc;
}

/*
 * init(), the workers' threads and their thread_init. Returns 0 when every
 * worker is ready; otherwise the workers are told to end without running
 * and it returns 1 (a failure, reported) or 128+signal. A signal does not
 * wait for every connection: workers still connecting after a short grace
 * are abandoned.
 */
static int start_workers(struct sb_run *run, lua_State *L, const struct sb_lua_env *env)
{
    /* SB_COMPAT=1.0 ran init() before the header (sb_run_benchmark). */
    int rc = sb_compat10() ? 0 : call_init(L, env);
    bool ready;

    if (rc != 0)
        return rc;
    /* Workers inherit the timer slack: 1 ns so sleeps end on time. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    /* Thousands of connections take a while: their progress on standard
     * error (sb_progress.h; silent for the first second on a terminal). */
    if (!sb_compat10()) {
        sb_progress_begin("connecting", "connections", run->point.threads);
        sb_progress_watch(&run->ready);
    }
    start_threads(run);
    ready = sb_signal_wait_count(&run->ready, run->point.threads, SB_SIGNAL_GRACE_S);
    sb_progress_end(NULL);
    if (!ready) {
        release_workers(run, false);
        sb_signal_abandon();
        /* Workers that were ready end promptly without running; give
         * them the grace to be joined, not reported as leaked. */
        sb_signal_wait_count(&run->finished, __atomic_load_n(&run->ready, __ATOMIC_ACQUIRE),
                          SB_SIGNAL_GRACE_S);
        reap_workers(run);
        return 128 + sb_signal_caught();
    }
    if (worker_error(run) != NULL) {
        sb_fatal("%s", worker_error(run));
        rc = 1;
    }
    if (rc == 0 && sb_signal_caught() != 0)
        rc = 128 + sb_signal_caught();
    if (rc != 0) {
        release_workers(run, false);
        join_workers(run, 0);
    }
    return rc;
}

/* The first failed worker's error, NULL if none failed. Lua interrupted
 * after a signal is not a failure: the signal says what happened. */
static const char *worker_error(const struct sb_run *run)
{
    for (unsigned i = 0; i < run->point.threads; i++)
        if (run->workers[i].failed && !sb_lua_is_interrupt(run->workers[i].err))
            return run->workers[i].err;
    return NULL;
}

/* Sets the schedule and the measurement origin, just before "go". */
static void set_clock(struct sb_run *run, struct sb_monitor *r, struct sb_run_clock *c)
{
    const struct sb_config *cfg = run->cfg;
    bool brief = r->out != NULL && r->out->brief; /* a sweep's point: one line */
    /* --start-at is the start of the first point of a sweep only. */
    uint64_t at = r->out == NULL || r->out->npoints <= 1
                      ? sb_instance_wait_start(&cfg->instance, sb_stopping)
                      : 0;
    uint64_t now = sb_now_ns();

    /* --start-at: every instance's schedule and intervals start at the
     * same wall-clock instant; t0 below lands exactly on it. */
    if (at > SB_NS_PER_MS)
        now = at - SB_NS_PER_MS;
    memset(c, 0, sizeof(*c));
    /* The schedule starts now; a first slot whose negative jitter would
     * put it before t0 is due at t0 (sb_pacer), so the measured window
     * and --time start here even when a tiny rate makes the default
     * jitter seconds long, and the window holds exactly rate x time
     * nominal slots. */
    run->t0_ns = now + SB_NS_PER_MS;
    if (run->point.mode == SB_PACE_POISSON)
        sb_arrivals_init(&run->arrivals, run->point.target_tps, run->t0_ns,
                         (cfg->rand_seed ^ 0x9e3779b97f4a7c15ULL) +
                             run->point.instance * 0x100000001b3ULL, &cfg->rand);
    c->start = now;
    if (cfg->warmup_time > 0) {
        c->warm_end = now + (uint64_t)(cfg->warmup_time * 1e9);
        if (cfg->verbosity >= SB_LOG_NOTICE && !brief)
            printf("Warming up for %g second(s)...\n", cfg->warmup_time);
    }
    if (cfg->verbosity >= SB_LOG_NOTICE && !brief)
        printf("Threads started!\n\n");
    fflush(stdout);
    sb_monitor_start(r, c->warm_end ? c->warm_end
                         : run->point.mode != SB_PACE_NONE ? run->t0_ns : now);
    if (cfg->report_interval > 0)
        c->next_report = r->start_ns + (uint64_t)(cfg->report_interval * 1e9);
    /* --time counts from the same origin as the reports, so the last
     * interval line falls on the deadline rather than just after it. */
    if (cfg->time_limit > 0)
        c->deadline = r->start_ns + (uint64_t)(cfg->time_limit * 1e9);
    /* Rate modes count exactly the slots whose nominal time falls in the
     * measured window. */
    run->window_start_ns = r->start_ns;
    run->window_end_ns = c->deadline;
    if (c->deadline != 0) {
        uint64_t half_jitter = (uint64_t)(run->point.jitter_us * 500.0);
        uint64_t tenth = (c->deadline - r->start_ns) / 10;
        run->late_grace_ns = half_jitter < tenth ? half_jitter : tenth;
    }
    if (run->point.mode != SB_PACE_NONE)
        sb_worker_start_pacing(run);
}

/* The statistics slots: each worker thread's own, or one per loop shared
 * by its connections (sb_worker.h), pointing into one live set: a slot's
 * statistics and, with a mix, one per type after all the slots'. Without
 * a rate only the response time is recorded (no due time: service is the
 * response, lag 0). Returns 0, or -1 when out of memory. */
static int new_slots(struct sb_run *run)
{
    unsigned ntypes = run->env->mix != NULL ? run->env->mix->n : 0;

    run->nslots = run->nloops > 0 ? run->nloops : run->point.threads;
    run->slots = calloc(run->nslots ? run->nslots : 1, sizeof(*run->slots));
    run->live = sb_live_set_new(run->nslots * (1 + ntypes), run->point.mode != SB_PACE_NONE);
    if (run->slots == NULL || run->live == NULL)
        return -1;
    for (unsigned i = 0; i < run->nslots; i++) {
        run->slots[i].stats = sb_live_set_at(run->live, i);
        for (unsigned k = 0; k < ntypes; k++)
            run->slots[i].types[k] = sb_live_set_at(run->live, run->nslots + i * ntypes + k);
        if (run->cfg->per_statement && (run->slots[i].stmts = sb_stmt_table_new()) == NULL)
            return -1;
    }
    if (run->nloops == 0) {
        for (unsigned i = 0; i < run->point.threads; i++) {
            run->workers[i].slot = &run->slots[i];
            run->workers[i].stats = run->slots[i].stats;
        }
        return 0;
    }
    for (unsigned i = 0; i < run->nloops; i++)
        for (unsigned j = 0; j < run->loops[i].n; j++) {
            run->workers[run->loops[i].first + j].slot = &run->slots[i];
            run->workers[run->loops[i].first + j].stats = run->slots[i].stats;
        }
    return 0;
}

/* Allocates the run and its reporter for the point's workers. */
static int new_run(const struct sb_config *cfg, const struct sb_lua_env *env,
                   const struct sb_point_config *point, lua_State *L, struct sb_result_writer *out,
                   struct sb_run **runp, struct sb_monitor **rp)
{
    unsigned n = point->threads;
    struct sb_run *run = calloc(1, sizeof(*run));
    struct sb_monitor *r = calloc(1, sizeof(*r));

    *runp = run;
    *rp = r;
    if (run == NULL || r == NULL)
        return -1;
    run->cfg = cfg;
    run->point = *point;
    run->point_env = *env;
    run->point_env.point = &run->point;
    run->env = &run->point_env;
    run->workers = calloc(n, sizeof(*run->workers));
    /* Apart from the workers: calloc'd pages stay untouched until a worker
     * fails, a kilobyte a thread the run would otherwise keep resident. */
    run->worker_errs = calloc(n ? n : 1, SB_WORKER_ERRLEN);
    if (sb_monitor_init(r, run, L, out) != 0 || run->workers == NULL ||
        run->worker_errs == NULL)
        return -1;
    run->nloops = sb_loop_count(cfg->client_threads, n,
                                env->driver != NULL && env->driver->query_start != NULL,
                                sb_lua_has_script_thread_run(L),
                                (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
    for (unsigned i = 0; i < n; i++) {
        run->workers[i].err = run->worker_errs + (size_t)i * SB_WORKER_ERRLEN;
        sb_worker_init(&run->workers[i], run, (int)i);
        if (out != NULL && out->txlog != NULL) {
            struct sb_txlog_thread *t = malloc(sizeof(*t));
            if (t == NULL)
                return -1;
            sb_txlog_thread_init(t, out->txlog, (int)i, run->point.mode != SB_PACE_NONE);
            run->workers[i].txlog_buf = t;
        }
    }
    if (run->nloops > 0) {
        run->loops = calloc(run->nloops, sizeof(*run->loops));
        if (run->loops == NULL || sb_loop_init(run->loops, run->nloops, run) != 0) {
            free(run->loops);
            run->loops = NULL;
            run->nloops = 0;
            return -1;
        }
    }
    if (new_slots(run) != 0)
        return -1;
    pthread_mutex_init(&run->go_lock, NULL);
    pthread_cond_init(&run->go_cond, NULL);
    pthread_mutex_init(&run->arrivals_lock, NULL);
    return 0;
}

/* Frees what new_run allocated (either may be NULL, or partly built). */
static void free_run(struct sb_run *run, struct sb_monitor *r)
{
    if (run != NULL && run->workers != NULL) {
        pthread_mutex_destroy(&run->go_lock);
        pthread_cond_destroy(&run->go_cond);
        pthread_mutex_destroy(&run->arrivals_lock);
    }
    if (run != NULL && run->workers != NULL)
        for (unsigned i = 0; i < run->point.threads; i++)
            free(run->workers[i].txlog_buf);
    if (run != NULL) {
        sb_loop_free(run->loops, run->nloops);
        free(run->loops);
        for (unsigned i = 0; run->slots != NULL && i < run->nslots; i++)
            sb_stmt_table_free(run->slots[i].stmts);
        free(run->slots);
        sb_live_set_free(run->live);
        free(run->workers);
        free(run->worker_errs);
    }
    free(run);
    if (r != NULL)
        sb_monitor_free(r);
    free(r);
}


/* The server a run measures, found before it starts. */
struct run_server {
    struct sb_cpu_server srv;
    char label[512];   /* how it was found, or why not */
    char version[256]; /* "" if unknown */
    struct sb_server_info info; /* settings and binary; owned */
};

/*
 * Prints the header, finds the server to measure and opens the point in
 * the result files. Returns 0, or the run's exit status, the run freed
 * unless a thread was abandoned.
 */
static int begin_point(struct sb_run *run, struct sb_monitor *r, struct run_server *sv)
{
    bool found, rate_warned;
    int rc;

    print_header(run, run->env, r->out);
    rc = sb_run_probe(run->env, &sv->srv, sv->label, sizeof(sv->label), sv->version,
                      sizeof(sv->version), &sv->info, &found, &rate_warned);
    if (rc != 0) {
        if (rc > 0)
            printf("\nInterrupted by signal %d before the run started.\n", sb_signal_caught());
        else
            sb_fatal("cannot create a thread for the server probe");
        if (!sb_signal_abandoned())
            free_run(run, r);
        return rc > 0 ? 128 + sb_signal_caught() : 1;
    }
    r->cpu_srv = found ? &sv->srv : NULL;
    /* Said before the run: the first second's check would repeat it. */
    r->rate_checked = rate_warned;
    if (r->out != NULL &&
        sb_result_writer_begin_point(r->out, &run->point) == NULL) {
        free_run(run, r);
        sb_fatal("out of memory");
        return 1;
    }
    return 0;
}

/*
 * Starts init() and the workers, first noting the server's processes
 * (*known, nknown: the caller frees *known). Returns 0 when every worker
 * is ready, or the run's exit status (nothing ran, no report), the run
 * freed unless a thread was abandoned.
 */
static int launch(struct sb_run *run, struct sb_monitor *r, lua_State *L, pid_t **known,
                  size_t *nknown)
{
    int rc;

    sb_worker_table_set(run->workers, run->point.threads);
    /* The server's processes before the workers connect: the final sample
     * waits for the backends started after this to be reaped. */
    *nknown = sb_cpu_server_tree_pids(r->cpu_srv, known);
    rc = start_workers(run, L, run->env);
    if (rc == 0)
        return 0;
    /* Nothing ran: no report. Abandoned threads keep their memory. */
    if (rc > 128)
        printf("\nInterrupted by signal %d before the run started.\n", sb_signal_caught());
    if (!sb_signal_abandoned()) {
        sb_worker_table_set(NULL, 0);
        free_run(run, r);
    }
    return rc;
}

/*
 * Releases the workers, reports while they run, and waits for them:
 * from the CPU sample *cpu_before to *cpu_after, which covers the server
 * processes started since `known` were noted (sv->label then says how a
 * restarted server was followed).
 */
static void measure(struct sb_run *run, struct sb_monitor *r, struct sb_run_clock *clk,
                    struct sb_cpu_sample *cpu_before, struct sb_cpu_sample *cpu_after,
                    const pid_t *known, size_t nknown, struct run_server *sv)
{
    set_clock(run, r, clk);
    sb_monitor_begin_cpu(r, cpu_before);
    release_workers(run, true);
    sb_monitor_loop(r, clk, cpu_before);
    /* Workers that ended at the deadline may beat the reporter to it: the
     * last full second still counts. */
    if (!clk->deadline || r->sampler.next_ns <= clk->deadline)
        sb_sampler_tick(&r->sampler, run, sb_now_ns());
    /* Workers that ended on their own (event() returned true, or a custom
     * thread_run finished) leave the stop flag unset. */
    sb_request_stop(SB_STOP_DONE);
    join_workers(run, clk->deadline);
    sb_monitor_last_interval(r, clk);
    /* The interval reports' JSON array ends with them, as sysbench 1.0's
     * ends with its reporting thread. */
    sb_text_report_json_close(stdout);
    if (!sb_signal_abandoned())
        sb_cpu_server_settle(r->cpu_srv, known, nknown, 2.0);
    sb_cpu_sample(cpu_after, r->cpu_srv);
    sb_server_watch_adjust(&r->srv_watch, cpu_after, sv->label, sizeof(sv->label));
}

/*
 * A run whose every event was restarted (an error the script or
 * --db-ignore-errors makes ignorable, on every try) measured nothing, yet
 * had no error to report: it fails with one line saying so, after the
 * report. Returns true when it did. Only the built-in event loop counts
 * restarts; a run in which some event completed is a benchmark.
 */
static bool all_restarted(const struct sb_run *run)
{
    uint64_t completed = 0, restarts = 0;

    for (unsigned i = 0; i < run->point.threads; i++) {
        completed += run->workers[i].completed;
        restarts += run->workers[i].restarts;
    }
    if (completed > 0 || restarts == 0)
        return false;
    sb_fatal("no event completed: every event was restarted (%llu restarts)",
             (unsigned long long)restarts);
    return true;
}

/* The earliest actual start of a measured event over the (joined)
 * workers and that event's due time, as wall-clock times: scale-out
 * instances compare them with --start-at and with each other (sysbench
 * merge); the schedule's phases make instances' first slots differ by
 * design, the difference of the two is how late the instance began. */
static void record_first_dispatch(const struct sb_run *run, struct sb_result_writer *out)
{
    const struct sb_worker *first = NULL;

    for (unsigned i = 0; i < run->point.threads; i++) {
        const struct sb_worker *w = &run->workers[i];
        if (w->first_ns != 0 && (first == NULL || w->first_ns < first->first_ns))
            first = w;
    }
    if (first != NULL)
        sb_result_writer_set_first_dispatch(out, sb_instance_unix_of(first->first_ns),
                                            sb_instance_unix_of(first->first_due_ns));
}

/*
 * After the workers: the first worker's error, the final report of what
 * ran, done(), and the run freed (unless a thread was abandoned: done()
 * would clean up under its feet). Returns the run's exit status.
 */
static int finish(struct sb_run *run, struct sb_monitor *r, lua_State *L,
                  const struct sb_run_clock *clk, struct sb_cpu_sample *cpu_before,
                  struct sb_cpu_sample *cpu_after, struct run_server *sv)
{
    struct sb_final_in fin;
    const char *werr;
    char err[1024];
    int rc;

    memset(&fin, 0, sizeof(fin));
    for (unsigned i = 0; i < run->point.threads; i++)
        if (run->workers[i].end_ns > fin.end)
            fin.end = run->workers[i].end_ns;
    if (sb_signal_abandoned())
        fin.end = sb_now_ns(); /* the run ended now for the threads left */
    else if (r->out != NULL)
        record_first_dispatch(run, r->out);
    fin.deadline = clk->deadline;
    fin.cancelled = sb_db_cancel_count();
    fin.cut_at_deadline = run->cut_at_deadline;
    fin.cpu_before = cpu_before;
    fin.cpu_after = cpu_after;
    fin.cpu_label = sv->label;
    fin.server_version = sv->version;
    fin.server_info = &sv->info;
    /* The error first, then the report of what ran before it. */
    werr = worker_error(run);
    if (werr != NULL)
        sb_fatal("%s", werr);
    rc = werr != NULL || r->hook_failed || sb_signal_abandoned() ? 1 : 0;
    if (sb_monitor_final(r, L, &fin) != 0)
        rc = 1;
    if (r->out != NULL)
        sb_result_writer_note_cancelled(r->out, fin.cancelled, fin.cut_at_deadline);
    /* done() would clean up under the feet of a thread left running. */
    if (!sb_signal_abandoned() && sb_lua_call_global(L, "done", -1, NULL, err, sizeof(err)) != 0 &&
        !(sb_signal_caught() != 0 && sb_lua_is_interrupt(err))) {
        sb_fatal("%s", err);
        rc = 1;
    }
    /* Any other failure already has its error line; a signal its status. */
    if (rc == 0 && sb_stop_reason() != SB_STOP_SIGNAL && fin.cancelled == 0 &&
        all_restarted(run))
        rc = 1;
    if (!sb_signal_abandoned()) {
        sb_worker_table_set(NULL, 0);
        free_run(run, r);
    }
    /* A failure caused by the signal (a reconnect given up) is still an
     * interruption. */
    if (sb_signal_caught() != 0)
        rc = 128 + sb_signal_caught();
    return rc;
}

int sb_run_benchmark(lua_State *L, const struct sb_lua_env *env,
                     const struct sb_point_config *point, struct sb_result_writer *out)
{
    struct sb_run *run;
    struct sb_monitor *r;
    struct sb_run_clock clk;
    struct run_server sv;
    struct sb_cpu_sample cpu_before, cpu_after;
    pid_t *known = NULL;
    size_t nknown;
    int rc;

    if (new_run(sb_cfg, env, point, L, out, &run, &r) != 0) {
        free_run(run, r);
        sb_fatal("out of memory");
        return 1;
    }
    sb_db_cancel_reset();
    /* init(), done() and the report hooks see the point being run. */
    sb_lua_export_point(L, run->env);
    memset(&sv, 0, sizeof(sv));
    /* SB_COMPAT=1.0: init() before the header, where 1.0.20 calls it. */
    if (sb_compat10() && (rc = call_init(L, run->env)) != 0) {
        if (!sb_signal_abandoned())
            free_run(run, r);
        return rc;
    }
    rc = begin_point(run, r, &sv);
    if (rc == 0)
        rc = launch(run, r, L, &known, &nknown);
    if (rc != 0) {
        free(known);
        sb_server_info_free(&sv.info);
        return rc;
    }
    measure(run, r, &clk, &cpu_before, &cpu_after, known, nknown, &sv);
    free(known);
    rc = finish(run, r, L, &clk, &cpu_before, &cpu_after, &sv);
    sb_server_info_free(&sv.info);
    return rc;
}
