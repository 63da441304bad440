/*
 * One benchmark run and parallel commands; see sb_run.h.
 */
#include "sb_run.h"
#include "sb_instance.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "sb_clock.h"
#include "sb_cpu.h"
#include "sb_log.h"
#include "sb_output.h"
#include "sb_report.h"
#include "sb_sampler.h"
#include "sb_selfcheck_report.h"
#include "sb_stop.h"
#include "sb_txlog.h"
#include "sb_worker.h"

static double secs(uint64_t ns)
{
    return (double)ns / 1e9;
}

/* Everything the reporter keeps between intervals. */
struct reporter {
    struct sb_run *run;
    lua_State *L;
    struct sb_stats *prev;     /* per worker, last snapshot */
    int *prev_epoch;
    /* Scratch space for collect(): a snapshot, one worker's share of the
     * interval, and the interval over all workers. */
    struct sb_stats cur, one, delta;
    uint64_t start_ns, last_ns;
    uint64_t max_backlog;
    bool sql;                  /* any query seen: tps/qps format */
    bool hook;                 /* the script replaces interval reports */
    struct sb_output *out;     /* result collector, or NULL */
    struct sb_cpu_server *cpu_srv; /* NULL: server not measured */
    struct sb_cpu_sample cpu_prev; /* taken at the start of the interval */
    struct sb_server_watch srv_watch; /* follows a restarted server */
    /* --report-checkpoints: per worker, its statistics at the last
     * checkpoint (NULL without checkpoints), and when that was. */
    struct sb_stats *ckpt;
    int *ckpt_epoch;
    uint64_t ckpt_ns;
    size_t next_ckpt;          /* index into cfg->checkpoints */
    bool hook_failed;          /* report_intermediate raised an error */
    struct sb_sampler sampler; /* 1 s throughput samples for the self-check */
    double epoch0_s;           /* Unix time at start_ns */
};

/* A restarted server is measured again from the sample it was found
 * with: the current interval starts there for the server's CPU. */
static void watch_server(struct reporter *r, uint64_t now)
{
    struct sb_cpu_times fresh;
    size_t nprocs;

    if (sb_server_watch_check(&r->srv_watch, now, &fresh, &nprocs)) {
        r->cpu_prev.server = fresh;
        r->cpu_prev.server_nprocs = nprocs;
    }
}

static uint64_t backlog_now(struct sb_run *run, uint64_t now)
{
    uint64_t b = 0;

    /* Only slots of the window count: none due after its end. */
    if (run->window_end_ns != 0 && now >= run->window_end_ns)
        now = run->window_end_ns - 1;
    if (run->mode == SB_PACE_POISSON) {
        pthread_mutex_lock(&run->arrivals_lock);
        b = sb_arrivals_backlog(&run->arrivals, now);
        pthread_mutex_unlock(&run->arrivals_lock);
    } else if (run->mode == SB_PACE_FIXED) {
        /* Slots due by their nominal time and not yet started. */
        b = sb_worker_backlog(run, now);
    }
    return b;
}

static bool has_hook(lua_State *L, const char *name)
{
    bool yes = false;
    lua_getglobal(L, "sysbench");
    if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "hooks");
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, name);
            yes = lua_isfunction(L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return yes;
}

/* Pushes a report stat as the Lua table scripts' hooks receive. */
static void push_stat(lua_State *L, const struct sb_report_stat *s, bool final)
{
    lua_newtable(L);
#define SETN(field)                    \
    lua_pushnumber(L, s->field);       \
    lua_setfield(L, -2, #field)
    SETN(threads_running);
    SETN(time_interval);
    SETN(time_total);
    SETN(latency_pct);
    SETN(events);
    SETN(reads);
    SETN(writes);
    SETN(other);
    SETN(errors);
    SETN(reconnects);
    if (final) {
        SETN(latency_min);
        SETN(latency_max);
        SETN(latency_avg);
        SETN(latency_sum);
    } else {
        SETN(queue_length);
        SETN(concurrency);
    }
#undef SETN
}

static int call_hook(lua_State *L, const char *name, const struct sb_report_stat *s,
                     bool final, enum sb_report_kind kind)
{
    char err[1024];
    sb_report_set_kind(kind, stdout);
    lua_getglobal(L, "sysbench");
    lua_getfield(L, -1, "hooks");
    lua_getfield(L, -1, name);
    lua_remove(L, -2);
    lua_remove(L, -2);
    push_stat(L, s, final);
    if (sb_lua_pcall(L, 1, 0, err, sizeof(err)) != 0) {
        sb_fatal("sysbench.hooks.%s: %s", name, err);
        return -1;
    }
    return 0;
}

/* Forgets worker i's previous snapshot: its statistics start again. */
static void restart_prev(struct reporter *r, unsigned i, int epoch)
{
    sb_stats_reset(&r->prev[i]);
    r->prev[i].ncodes = 0;
    r->prev_epoch[i] = epoch;
}

/* Sets r->delta to what every worker did since the last report, counting a
 * worker whose statistics still belong to warmup as empty. */
static void collect(struct reporter *r)
{
    struct sb_run *run = r->run;
    int epoch = __atomic_load_n(&run->epoch, __ATOMIC_ACQUIRE);

    sb_stats_reset(&r->delta);
    r->delta.ncodes = 0;
    for (unsigned i = 0; i < run->nthreads; i++) {
        struct sb_worker *w = &run->workers[i];
        if (r->prev_epoch[i] != epoch)
            restart_prev(r, i, epoch);
        if (__atomic_load_n(&w->epoch, __ATOMIC_ACQUIRE) != epoch)
            continue;
        sb_stats_snapshot(&r->cur, &w->stats);
        sb_stats_diff(&r->one, &r->cur, &r->prev[i]);
        sb_stats_merge(&r->delta, &r->one);
        r->prev[i] = r->cur;
    }
}

/* Hands one interval to the result files (--json, --csv). */
static void record_interval(struct reporter *r, const struct sb_report_stat *s,
                            uint64_t backlog, double cpu_client, double cpu_server)
{
    struct sb_output *o = r->out;
    struct sb_interval iv;
    double t = s->time_interval;

    if (o == NULL)
        return;
    memset(&iv, 0, sizeof(iv));
    /* Whole milliseconds: how late after the scheduled end the reporter
     * woke is noise, and 1.000143 is no use as a time stamp. */
    iv.time_s = round(s->time_total * 1000) / 1000;
    iv.epoch_s = r->epoch0_s + s->time_total;
    iv.interval_s = t;
    iv.threads = (unsigned)s->threads_running;
    iv.events = r->delta.c[SB_STAT_EVENTS];
    iv.tps = t > 0 ? s->events / t : 0;
    iv.reads_ps = t > 0 ? s->reads / t : 0;
    iv.writes_ps = t > 0 ? s->writes / t : 0;
    iv.other_ps = t > 0 ? s->other / t : 0;
    iv.qps = iv.reads_ps + iv.writes_ps + iv.other_ps;
    iv.errors_ps = t > 0 ? s->errors / t : 0;
    iv.reconnects_ps = t > 0 ? s->reconnects / t : 0;
    for (size_t i = 0; i < o->npcts; i++) {
        iv.latency_ms[i] = (double)sb_hist_percentile(&r->delta.response, o->pcts[i]) / 1e6;
        iv.lag_ms[i] = (double)sb_hist_percentile(&r->delta.lag, o->pcts[i]) / 1e6;
    }
    iv.backlog = backlog;
    iv.p50_ms = (double)sb_hist_percentile(&r->delta.response, 50) / 1e6;
    iv.p99_ms = (double)sb_hist_percentile(&r->delta.response, 99) / 1e6;
    iv.lag_p99_ms = (double)sb_hist_percentile(&r->delta.lag, 99) / 1e6;
    iv.cpu_client_pct = cpu_client;
    iv.cpu_server_pct = cpu_server;
    if (sb_output_add_interval(o, &iv) != 0)
        sb_warn("out of memory: an interval is missing from the result files");
}

/*
 * Reports the interval ending at `now`. It is labelled with the scheduled
 * tick, not with `now`: when the main thread wakes late on a loaded machine
 * a label rounded from `now` could repeat or skip a second.
 */
static void interval_report(struct reporter *r, uint64_t now, uint64_t tick)
{
    struct sb_run *run = r->run;
    const struct sb_config *cfg = run->cfg;
    double pct = cfg->npercentiles ? cfg->percentiles[0] : 95;
    struct sb_report_stat s;
    struct sb_report_extra x;
    uint64_t backlog;
    struct sb_cpu_sample cpu_now;
    struct sb_cpu_report cr;
    double cpu_client, cpu_server;

    collect(r);
    if (sb_stats_queries(&r->delta) > 0)
        r->sql = true;
    sb_report_stat_from(&s, &r->delta, secs(now - r->last_ns), secs(tick - r->start_ns),
                        run->nthreads, cfg->npercentiles ? pct : 0);
    backlog = backlog_now(run, now);
    if (backlog > r->max_backlog)
        r->max_backlog = backlog;
    s.queue_length = (double)backlog;
    s.concurrency = run->nthreads - __atomic_load_n(&run->finished, __ATOMIC_RELAXED);
    r->last_ns = now;
    watch_server(r, now);
    sb_cpu_sample(&cpu_now, r->cpu_srv);
    sb_server_watch_note(&r->srv_watch, &cpu_now, now);
    sb_cpu_compute(&r->cpu_prev, &cpu_now, r->delta.c[SB_STAT_EVENTS], &cr);
    r->cpu_prev = cpu_now;
    cpu_client = cr.client.measured ? cr.client.util_pct : NAN;
    cpu_server = cr.server.measured ? cr.server.util_pct : NAN;
    record_interval(r, &s, backlog, cpu_client, cpu_server);
    if (r->hook) {
        /* One error line, not one per interval: the run stops, and its
         * final report still shows what ran. */
        if (call_hook(r->L, "report_intermediate", &s, false, SB_REPORT_INTERVAL) != 0) {
            r->hook = false;
            r->hook_failed = true;
            sb_request_stop(SB_STOP_ERROR);
        }
        return;
    }
    memset(&x, 0, sizeof(x));
    x.sql = r->sql;
    x.pct = pct;
    x.rate_mode = run->mode != SB_PACE_NONE;
    x.target_tps = run->rate;
    x.lag_pct_ms = (double)sb_hist_percentile(&r->delta.lag, pct) / 1e6;
    x.backlog = backlog;
    x.cpu = true;
    x.cpu_client_pct = cpu_client;
    x.cpu_server_pct = cpu_server;
    if (cfg->verbosity >= SB_LOG_NOTICE) /* below: only the script's output */
        sb_report_print_line(&s, &x, stdout);
}

/*
 * Sets r->one to worker i's statistics since the last checkpoint (all of
 * them without checkpoints); with advance, they become the new base.
 * False for a worker whose statistics still belong to warmup.
 */
static bool since_checkpoint(struct reporter *r, unsigned i, bool advance)
{
    struct sb_run *run = r->run;
    int epoch = __atomic_load_n(&run->epoch, __ATOMIC_ACQUIRE);

    if (__atomic_load_n(&run->workers[i].epoch, __ATOMIC_ACQUIRE) != epoch)
        return false;
    sb_stats_snapshot(&r->cur, &run->workers[i].stats);
    if (r->ckpt == NULL) {
        r->one = r->cur;
        return true;
    }
    if (r->ckpt_epoch[i] != epoch) {
        sb_stats_reset(&r->ckpt[i]);
        r->ckpt[i].ncodes = 0;
        r->ckpt_epoch[i] = epoch;
    }
    sb_stats_diff(&r->one, &r->cur, &r->ckpt[i]);
    if (advance)
        r->ckpt[i] = r->cur;
    return true;
}

/* Everything since the last checkpoint, merged over workers, with each
 * worker's events and time inside events (ev, busy: nthreads entries). */
static void gather(struct reporter *r, bool advance, struct sb_stats *total, uint64_t *ev,
                   double *busy)
{
    struct sb_run *run = r->run;

    sb_stats_reset(total);
    total->ncodes = 0;
    for (unsigned i = 0; i < run->nthreads; i++) {
        ev[i] = 0;
        busy[i] = 0;
        if (!since_checkpoint(r, i, advance))
            continue;
        sb_stats_merge(total, &r->one);
        ev[i] = r->one.c[SB_STAT_EVENTS];
        /* Time inside events is the sum of service times, which the
         * closed loop records as response times. */
        busy[i] = secs(run->mode != SB_PACE_NONE ? r->one.service.sum_ns
                                                 : r->one.response.sum_ns);
    }
}

/* Fills the final-report figures shared by checkpoints and the end. */
static void fill_final(struct sb_final *f, const struct reporter *r,
                       const struct sb_stats *total, const uint64_t *ev, const double *busy)
{
    const struct sb_run *run = r->run;

    memset(f, 0, sizeof(*f));
    f->total = total;
    f->threads = run->nthreads;
    f->thread_events = ev;
    f->thread_busy = busy;
    f->percentiles = run->cfg->percentiles;
    f->npercentiles = run->cfg->npercentiles;
    f->histogram = run->cfg->histogram;
    f->sql = r->sql;
    f->rate_mode = run->mode == SB_PACE_FIXED ? 1 : run->mode == SB_PACE_POISSON ? 2 : 0;
    f->target_tps = run->rate;
    f->jitter_us = run->jitter_us;
    f->max_backlog = r->max_backlog;
}

/*
 * --report-checkpoints: the cumulative report of everything since the
 * previous checkpoint (or the start), through the report_cumulative hook
 * when the script has one, after which the counters start again, as in
 * sysbench 1.0. The label is the checkpoint's scheduled second.
 */
static void checkpoint_report(struct reporter *r, uint64_t now, double label_s)
{
    struct sb_run *run = r->run;
    const struct sb_config *cfg = run->cfg;
    unsigned n = run->nthreads;
    struct sb_stats *total = malloc(sizeof(*total));
    uint64_t *ev = calloc(n, sizeof(*ev));
    double *busy = calloc(n, sizeof(*busy));
    double since = secs(now - r->ckpt_ns), t = secs(now - r->start_ns);

    if (total == NULL || ev == NULL || busy == NULL) {
        sb_warn("out of memory: checkpoint report at %gs skipped", label_s);
        goto out;
    }
    gather(r, true, total, ev, busy);
    if (sb_stats_queries(total) > 0)
        r->sql = true;
    sb_report_set_kind(SB_REPORT_CHECKPOINT, stdout);
    if (cfg->verbosity >= SB_LOG_NOTICE) /* below: only the script's output */
        printf("[ %.0fs ] Checkpoint report:\n", label_s);
    if (has_hook(r->L, "report_cumulative")) {
        struct sb_report_stat s;
        sb_report_stat_from(&s, total, since, t, n,
                            cfg->npercentiles ? cfg->percentiles[0] : 0);
        s.threads_running = n - __atomic_load_n(&run->finished, __ATOMIC_RELAXED);
        call_hook(r->L, "report_cumulative", &s, true, SB_REPORT_CHECKPOINT);
    } else if (cfg->verbosity >= SB_LOG_NOTICE) {
        struct sb_final f;
        fill_final(&f, r, total, ev, busy);
        f.time_total = t;
        f.interval_s = since;
        printf("\n");
        sb_report_print_final(&f, stdout);
    }
    fflush(stdout);
out:
    r->ckpt_ns = now;
    free(total);
    free(ev);
    free(busy);
}

/* When the next --report-checkpoints report is due, 0 when none is left. */
static uint64_t next_checkpoint(const struct reporter *r)
{
    const struct sb_config *cfg = r->run->cfg;
    if (r->next_ckpt >= cfg->ncheckpoints)
        return 0;
    return r->start_ns + (uint64_t)(cfg->checkpoints[r->next_ckpt] * 1e9);
}

static enum sb_output_rate_mode output_rate_mode(enum sb_pace_mode mode)
{
    switch (mode) {
    case SB_PACE_FIXED:
        return SB_OUTPUT_RATE_FIXED;
    case SB_PACE_POISSON:
        return SB_OUTPUT_RATE_POISSON;
    case SB_PACE_NONE:
    default:
        return SB_OUTPUT_RATE_NONE;
    }
}

static void print_header(const struct sb_run *run, const struct sb_lua_env *env)
{
    const struct sb_config *cfg = run->cfg;

    if (cfg->verbosity < SB_LOG_NOTICE) /* sysbench 1.0: no header then */
        return;
    printf("\nRunning the test with following options:\n");
    printf("Number of threads: %u\n", run->nthreads);
    if (env->driver != NULL && env->driver_reason != NULL)
        printf("Database driver: %s (%s)\n", env->driver->name, env->driver_reason);
    if (run->mode == SB_PACE_FIXED)
        printf("Target transaction rate: %.2f per second, each thread on a fixed schedule "
               "(period %.1f us, jitter %.1f us, late policy %s)\n",
               run->rate, (double)run->nthreads / run->rate * 1e6, run->jitter_us,
               cfg->late_policy == SB_LATE_SKIP ? "skip" : "catchup");
    else if (run->mode == SB_PACE_POISSON)
        printf("Target transaction rate: %.2f per second (Poisson arrivals)\n", run->rate);
    if (cfg->instance.count > 1)
        printf("Instance %u of %u (connections %u to %u of %u)\n", cfg->instance.index,
               cfg->instance.count, run->pace_base, run->pace_base + run->nthreads - 1,
               run->pace_threads);
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
    if (cfg->rand_seed_given)
        printf("Initializing random number generator from seed (%llu).\n",
               (unsigned long long)cfg->rand_seed);
    else
        printf("Initializing random number generator from current time\n");
    printf("\n\nInitializing worker threads...\n\n");
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

    for (unsigned i = 0; i < run->nthreads; i++) {
        struct sb_worker *w = &run->workers[i];
        if (!w->started)
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

/*
 * Waits for the workers to return. One still running --forced-shutdown
 * seconds after the deadline, or a few seconds after a signal (it is stuck
 * in a statement or a reconnect that does not look at the stop flag), is
 * left running: its statistics are still read for the report, and main
 * ends the process with _exit. Returns how many were left.
 */
static unsigned join_workers(struct sb_run *run, uint64_t deadline_ns)
{
    const struct sb_config *cfg = run->cfg;
    double fs = cfg->forced_shutdown;
    uint64_t force = fs > 0 && deadline_ns > 0 ? deadline_ns + (uint64_t)(fs * 1e9) : 0;
    uint64_t sig_give_up = 0;
    unsigned left = 0;

    while (__atomic_load_n(&run->finished, __ATOMIC_ACQUIRE) < run->nthreads) {
        uint64_t now = sb_now_ns();
        if (sig_give_up == 0 && sb_stop_reason() == SB_STOP_SIGNAL)
            sig_give_up = now + (uint64_t)((fs > 0 ? fs : SB_RUN_SIGNAL_GRACE_S) * 1e9);
        if ((force != 0 && now >= force) || (sig_give_up != 0 && now >= sig_give_up))
            break;
        sb_sleep_until_ns(now + 10 * SB_NS_PER_MS);
    }
    left = reap_workers(run);
    if (left > 0) {
        sb_run_abandon();
        if (sb_stop_reason() == SB_STOP_SIGNAL)
            sb_fatal("%u thread(s) did not stop within %gs of signal %d: reporting what ran",
                     left, fs > 0 ? fs : SB_RUN_SIGNAL_GRACE_S, sb_run_signal());
        else
            sb_fatal("forced shutdown: %u thread(s) still running %gs after the time limit",
                     left, fs);
    }
    return left;
}

/* Starts the workers. A thread that cannot be created counts as ready,
 * finished and failed, so nobody waits for it. */
static void start_threads(struct sb_run *run)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (run->cfg->thread_stack_size > 0)
        pthread_attr_setstacksize(&attr, run->cfg->thread_stack_size);
    for (unsigned i = 0; i < run->nthreads; i++) {
        struct sb_worker *w = &run->workers[i];
        int rc = pthread_create(&w->thread, &attr, sb_worker_main, w);
        if (rc == 0) {
            w->started = true;
            continue;
        }
        snprintf(w->err, sizeof(w->err), "cannot create thread %u: %s", i, strerror(rc));
        w->failed = true;
        __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
        __atomic_fetch_add(&run->ready, 1, __ATOMIC_RELEASE);
        __atomic_fetch_add(&run->finished, 1, __ATOMIC_RELEASE);
        sb_request_stop(SB_STOP_ERROR);
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
    rc = sb_run_guarded(env->driver, init_main, c);
    if (rc == 1)
        return 128 + sb_run_signal(); /* c stays with the abandoned thread */
    if (rc < 0 || c->rc != 0) {
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
    int rc = call_init(L, env);
    if (rc != 0)
        return rc;
    /* Workers inherit the timer slack: 1 ns so sleeps end on time. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    start_threads(run);
    if (!sb_run_wait_count(&run->ready, run->nthreads, SB_RUN_SIGNAL_GRACE_S)) {
        release_workers(run, false);
        sb_run_abandon();
        /* Workers that were ready end promptly without running; give
         * them the grace to be joined, not reported as leaked. */
        sb_run_wait_count(&run->finished, __atomic_load_n(&run->ready, __ATOMIC_ACQUIRE),
                          SB_RUN_SIGNAL_GRACE_S);
        reap_workers(run);
        return 128 + sb_run_signal();
    }
    for (unsigned i = 0; i < run->nthreads && rc == 0; i++)
        if (run->workers[i].failed) {
            sb_fatal("%s", run->workers[i].err);
            rc = 1;
        }
    if (rc == 0 && sb_stop_reason() == SB_STOP_SIGNAL)
        rc = 128 + sb_run_signal();
    if (rc != 0) {
        release_workers(run, false);
        join_workers(run, 0);
    }
    return rc;
}

/* The first failed worker's error, NULL if none failed. */
static const char *worker_error(const struct sb_run *run)
{
    for (unsigned i = 0; i < run->nthreads; i++)
        if (run->workers[i].failed)
            return run->workers[i].err;
    return NULL;
}

/* Times the main loop works with, all in ns. */
struct run_clock {
    uint64_t start;       /* when the workers were released */
    uint64_t warm_end;    /* end of warmup, 0 when over or none */
    uint64_t next_report; /* next interval report, 0 for none */
    uint64_t deadline;    /* --time, 0 for none */
};

/* Sets the schedule and the measurement origin, just before "go". */
static void set_clock(struct sb_run *run, struct reporter *r, struct run_clock *c)
{
    const struct sb_config *cfg = run->cfg;
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
    if (run->mode == SB_PACE_POISSON)
        sb_arrivals_init(&run->arrivals, run->rate, run->t0_ns,
                         (cfg->rand_seed ^ 0x9e3779b97f4a7c15ULL) +
                             cfg->instance.index * 0x100000001b3ULL, &cfg->rand);
    c->start = now;
    if (cfg->warmup_time > 0) {
        c->warm_end = now + (uint64_t)(cfg->warmup_time * 1e9);
        if (cfg->verbosity >= SB_LOG_NOTICE)
            printf("Warming up for %g second(s)...\n", cfg->warmup_time);
    }
    if (cfg->verbosity >= SB_LOG_NOTICE)
        printf("Threads started!\n\n");
    fflush(stdout);
    r->start_ns = r->last_ns = c->warm_end ? c->warm_end
                              : run->mode != SB_PACE_NONE ? run->t0_ns : now;
    if (cfg->report_interval > 0)
        c->next_report = r->start_ns + (uint64_t)(cfg->report_interval * 1e9);
    r->ckpt_ns = r->start_ns;
    sb_sampler_start(&r->sampler, r->start_ns);
    {
        /* The wall clock at the measurement origin, for absolute times. */
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        r->epoch0_s = (double)rt.tv_sec + (double)rt.tv_nsec / 1e9 -
                      ((double)sb_now_ns() - (double)r->start_ns) / 1e9;
    }
    /* --time counts from the same origin as the reports, so the last
     * interval line falls on the deadline rather than just after it. */
    if (cfg->time_limit > 0)
        c->deadline = r->start_ns + (uint64_t)(cfg->time_limit * 1e9);
    /* Rate modes count exactly the slots whose nominal time falls in the
     * measured window. */
    run->window_start_ns = r->start_ns;
    run->window_end_ns = c->deadline;
    if (r->out != NULL)
        sb_output_set_start(r->out, sb_instance_unix_of(r->start_ns));
    if (run->mode != SB_PACE_NONE)
        sb_worker_start_pacing(run);
}

/* Warmup is over: the workers' statistics start again. */
static void end_warmup(struct sb_run *run, struct reporter *r,
                       struct sb_cpu_sample *cpu_before)
{
    /* In rate modes each worker starts its window itself, at its first
     * slot due at or after the end of warmup. */
    __atomic_fetch_add(&run->epoch, 1, __ATOMIC_RELEASE);
    sb_cpu_sample(cpu_before, r->cpu_srv);
    r->cpu_prev = *cpu_before;
    sb_server_watch_start(&r->srv_watch, r->cpu_srv, cpu_before, cpu_before->mono_ns);
}

/* The main thread is the reporter and the timekeeper until the workers
 * finish or a stop is requested. */
static void report_loop(struct sb_run *run, struct reporter *r, struct run_clock *c,
                        struct sb_cpu_sample *cpu_before)
{
    const struct sb_config *cfg = run->cfg;
    uint64_t now = c->start;

    while (!sb_stopping() && __atomic_load_n(&run->finished, __ATOMIC_ACQUIRE) < run->nthreads) {
        uint64_t wake = now + 100 * SB_NS_PER_MS;
        if (c->warm_end && c->warm_end < wake)
            wake = c->warm_end;
        if (c->next_report && c->next_report < wake)
            wake = c->next_report;
        if (c->deadline && c->deadline < wake)
            wake = c->deadline;
        if (next_checkpoint(r) && next_checkpoint(r) < wake)
            wake = next_checkpoint(r);
        if (r->sampler.next_ns && r->sampler.next_ns < wake)
            wake = r->sampler.next_ns;
        sb_sleep_until_ns(wake);
        now = sb_now_ns();
        watch_server(r, now);
        if (c->warm_end && now >= c->warm_end) {
            end_warmup(run, r, cpu_before);
            c->warm_end = 0;
        }
        if (!c->deadline || r->sampler.next_ns <= c->deadline)
            sb_sampler_tick(&r->sampler, run, now);
        if (c->next_report && now >= c->next_report) {
            interval_report(r, now, c->next_report);
            /* Ticks missed while the main thread was descheduled are
             * folded into this report; the schedule keeps its phase. */
            while (c->next_report <= now)
                c->next_report += (uint64_t)(cfg->report_interval * 1e9);
        }
        /* A checkpoint at the deadline is the final report's job. */
        while (next_checkpoint(r) && now >= next_checkpoint(r) &&
               (!c->deadline || next_checkpoint(r) < c->deadline)) {
            checkpoint_report(r, now, cfg->checkpoints[r->next_ckpt]);
            r->next_ckpt++;
        }
        if (c->deadline && now >= c->deadline)
            sb_request_stop(SB_STOP_DONE);
    }
}

/* What the final report needs besides the reporter. */
struct final_in {
    uint64_t end;                 /* when the last worker finished */
    uint64_t deadline;            /* 0 for none */
    struct sb_cpu_sample *cpu_before, *cpu_after;
    const char *cpu_label, *server_version;
};

/* Each finished worker's CPU time in the measured window; NULL entries
 * for workers that never left warmup or never finished. */
static struct sb_cpu_thread *thread_cpu(const struct sb_run *run, const uint64_t *ev)
{
    struct sb_cpu_thread *tcpu = calloc(run->nthreads, sizeof(*tcpu));

    for (unsigned i = 0; tcpu != NULL && i < run->nthreads; i++) {
        const struct sb_worker *w = &run->workers[i];
        if (__atomic_load_n(&w->epoch, __ATOMIC_ACQUIRE) != run->epoch ||
            !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE) || !w->started)
            continue;
        tcpu[i].user_s = secs(w->cpu_end.user_ns - w->cpu_start.user_ns);
        tcpu[i].system_s = secs(w->cpu_end.system_ns - w->cpu_start.system_ns);
        tcpu[i].events = ev[i];
    }
    return tcpu;
}

/* Hands the point's final figures to the result files. */
static void record_final(struct reporter *r, const struct sb_stats *total, double t,
                         const struct sb_cpu_report *cr, const struct final_in *in,
                         struct sb_cpu_thread *tcpu, const struct sb_selfcheck *chk)
{
    struct sb_point_final pf;
    const struct sb_lua_env *env = r->run->env;

    memset(&pf, 0, sizeof(pf));
    pf.total = total;
    pf.time_s = t;
    pf.max_backlog = r->max_backlog;
    pf.interrupted = sb_stop_reason() == SB_STOP_SIGNAL;
    pf.cpu = cr;
    pf.server_label = in->cpu_label;
    pf.thread_cpu = tcpu;
    pf.nthread_cpu = r->run->nthreads;
    pf.selfcheck = chk;
    pf.check_tps = r->sampler.tps;
    pf.ncheck_tps = r->sampler.ntps;
    pf.check_sample_s = 1.0;
    if (sb_output_end_point(r->out, &pf) != 0)
        sb_warn("out of memory: a point's final figures are missing from the result files");
    /* Only a script that ran queries used the driver; one that did not
     * says nothing about any server. */
    if (r->sql && env->driver != NULL)
        sb_output_set_server(r->out, env->driver->name, in->server_version);
}

/*
 * The final report of what ran: every worker's own statistics, merged
 * (also those of a worker that failed or was left running). Returns -1
 * when the report_cumulative hook failed.
 */
static int final_report(struct reporter *r, lua_State *L, const struct final_in *in)
{
    struct sb_run *run = r->run;
    const struct sb_config *cfg = run->cfg;
    unsigned n = run->nthreads;
    struct sb_stats *total = calloc(1, sizeof(*total));
    uint64_t *ev = calloc(n, sizeof(uint64_t));
    double *busy = calloc(n, sizeof(double));
    struct sb_cpu_thread *tcpu;
    struct sb_cpu_report cr;
    struct sb_selfcheck chk;
    /* A run ended by --time is measured over exactly that window: a
     * worker asleep until a slot beyond the deadline notices the stop only
     * when it wakes, and that wait is not benchmark time. */
    uint64_t stop_ns = in->deadline != 0 && in->end > in->deadline ? in->deadline : in->end;
    double t = secs(stop_ns - r->start_ns), since = secs(stop_ns - r->ckpt_ns);
    uint64_t b;
    int rc = 0;

    if (total == NULL || ev == NULL || busy == NULL) {
        sb_fatal("out of memory: no final report");
        free(total);
        free(ev);
        free(busy);
        return -1;
    }
    gather(r, false, total, ev, busy);
    tcpu = thread_cpu(run, ev);
    /* The largest backlog at a late start (exact), or what was left due at
     * the end of the window when the workers never caught up. */
    b = backlog_now(run, in->end);
    if (run->mode == SB_PACE_POISSON && run->arrivals.max_backlog > b)
        b = run->arrivals.max_backlog;
    for (unsigned i = 0; i < n; i++)
        if (run->workers[i].measured && run->workers[i].max_backlog > b)
            b = run->workers[i].max_backlog;
    if (b > r->max_backlog)
        r->max_backlog = b;
    if (sb_stats_queries(total) > 0)
        r->sql = true;
    if (sb_stop_reason() == SB_STOP_SIGNAL)
        printf("\nInterrupted by signal %d: reporting what ran.\n", sb_run_signal());
    else if (sb_stop_reason() == SB_STOP_ERROR || sb_run_abandoned())
        printf("\nStopped by an error: reporting what ran.\n");
    if (cfg->verbosity >= SB_LOG_NOTICE)
        printf("\n");
    sb_cpu_compute(in->cpu_before, in->cpu_after, total->c[SB_STAT_EVENTS], &cr);
    sb_sampler_check(&r->sampler, run, total, t, &cr, tcpu, &chk);
    if (has_hook(L, "report_cumulative")) {
        struct sb_report_stat s;
        sb_report_stat_from(&s, total, since, t, n, cfg->npercentiles ? cfg->percentiles[0] : 0);
        /* Every worker has finished: sysbench 1.0 reports 0 here. */
        s.threads_running = 0;
        if (call_hook(L, "report_cumulative", &s, true, SB_REPORT_FINAL) != 0)
            rc = -1;
        sb_report_json_close(stdout);
    } else if (cfg->verbosity >= SB_LOG_NOTICE) {
        struct sb_final f;
        fill_final(&f, r, total, ev, busy);
        f.time_total = t;
        f.interval_s = since;
        sb_report_print_final(&f, stdout);
        sb_report_print_cpu(&cr, in->cpu_label, tcpu, n, stdout);
        sb_selfcheck_print_run(&chk, total, t, stdout);
    }
    if (r->out != NULL)
        record_final(r, total, t, &cr, in, tcpu, &chk);
    fflush(stdout);
    free(total);
    free(ev);
    free(busy);
    free(tcpu);
    return rc;
}

/* Allocates the run and its reporter for cfg->threads workers. */
static int new_run(const struct sb_config *cfg, const struct sb_lua_env *env, lua_State *L,
                   struct sb_output *out, struct sb_run **runp, struct reporter **rp)
{
    unsigned n = cfg->threads;
    struct sb_run *run = calloc(1, sizeof(*run));
    struct reporter *r = calloc(1, sizeof(*r));

    *runp = run;
    *rp = r;
    if (run == NULL || r == NULL)
        return -1;
    run->cfg = cfg;
    run->env = env;
    run->nthreads = n;
    /* With --instance=I/N this process holds 1/N of the rate, its
     * connections taking their places among all instances' (sb_instance.h). */
    run->pace_threads = n * cfg->instance.count;
    run->pace_base = n * cfg->instance.index;
    if (cfg->tx_rate > 0) {
        run->mode = SB_PACE_FIXED;
        run->pace_rate = cfg->tx_rate;
        run->rate = cfg->tx_rate / cfg->instance.count;
        run->jitter_us = sb_pacer_jitter_us(cfg->tx_rate, run->pace_threads, cfg->tx_jitter_us);
    } else if (cfg->rate > 0) {
        run->mode = SB_PACE_POISSON;
        run->rate = cfg->rate / cfg->instance.count;
    }
    run->workers = calloc(n, sizeof(*run->workers));
    r->prev = calloc(n, sizeof(*r->prev));
    r->prev_epoch = calloc(n, sizeof(int));
    if (cfg->ncheckpoints > 0) {
        r->ckpt = calloc(n, sizeof(*r->ckpt));
        r->ckpt_epoch = calloc(n, sizeof(int));
    }
    if (sb_sampler_init(&r->sampler, n, 1.0) != 0)
        return -1;
    if (run->workers == NULL || r->prev == NULL || r->prev_epoch == NULL ||
        (cfg->ncheckpoints > 0 && (r->ckpt == NULL || r->ckpt_epoch == NULL)))
        return -1;
    for (unsigned i = 0; i < n; i++) {
        sb_worker_init(&run->workers[i], run, (int)i);
        if (out != NULL && out->txlog != NULL) {
            struct sb_txlog_thread *t = malloc(sizeof(*t));
            if (t == NULL)
                return -1;
            sb_txlog_thread_init(t, out->txlog, (int)i, run->mode != SB_PACE_NONE);
            run->workers[i].txlog_buf = t;
        }
    }
    pthread_mutex_init(&run->go_lock, NULL);
    pthread_cond_init(&run->go_cond, NULL);
    pthread_mutex_init(&run->arrivals_lock, NULL);
    r->run = run;
    r->L = L;
    r->hook = has_hook(L, "report_intermediate");
    r->out = out;
    return 0;
}

/* Frees what new_run allocated (either may be NULL, or partly built). */
static void free_run(struct sb_run *run, struct reporter *r)
{
    if (run != NULL && run->workers != NULL) {
        pthread_mutex_destroy(&run->go_lock);
        pthread_cond_destroy(&run->go_cond);
        pthread_mutex_destroy(&run->arrivals_lock);
    }
    if (run != NULL && run->workers != NULL)
        for (unsigned i = 0; i < run->nthreads; i++)
            free(run->workers[i].txlog_buf);
    if (run != NULL)
        free(run->workers);
    free(run);
    if (r != NULL) {
        free(r->prev);
        free(r->prev_epoch);
        free(r->ckpt);
        free(r->ckpt_epoch);
        sb_sampler_free(&r->sampler);
    }
    free(r);
}

int sb_run_benchmark(lua_State *L, const struct sb_lua_env *env,
                     struct sb_output *out)
{
    const struct sb_config *cfg = &sb_config;
    struct sb_run *run;
    struct reporter *r;
    struct run_clock clk;
    struct final_in fin;
    struct sb_cpu_server cpu_srv;
    struct sb_cpu_sample cpu_before, cpu_after;
    char cpu_label[512], server_version[256], err[1024];
    const char *werr;
    pid_t *known = NULL;
    size_t nknown;
    bool found;
    int rc;

    if (new_run(cfg, env, L, out, &run, &r) != 0) {
        free_run(run, r);
        sb_fatal("out of memory");
        return 1;
    }
    print_header(run, env);
    rc = sb_run_probe(env, &cpu_srv, cpu_label, sizeof(cpu_label), server_version,
                      sizeof(server_version), &found);
    if (rc != 0) {
        if (rc > 0)
            printf("\nInterrupted by signal %d before the run started.\n", sb_run_signal());
        else
            sb_fatal("cannot create a thread for the server probe");
        if (!sb_run_abandoned())
            free_run(run, r);
        return rc > 0 ? 128 + sb_run_signal() : 1;
    }
    r->cpu_srv = found ? &cpu_srv : NULL;
    if (out != NULL &&
        sb_output_begin_point(out, run->nthreads, output_rate_mode(run->mode), run->rate,
                              run->jitter_us) == NULL) {
        free_run(run, r);
        sb_fatal("out of memory");
        return 1;
    }
    sb_worker_table_set(run->workers, run->nthreads);
    /* The server's processes before the workers connect: the final sample
     * waits for the backends started after this to be reaped. */
    nknown = sb_cpu_server_tree_pids(r->cpu_srv, &known);
    rc = start_workers(run, L, env);
    if (rc != 0) {
        free(known);
        /* Nothing ran: no report. Abandoned threads keep their memory. */
        if (rc > 128)
            printf("\nInterrupted by signal %d before the run started.\n", sb_run_signal());
        if (!sb_run_abandoned()) {
            sb_worker_table_set(NULL, 0);
            free_run(run, r);
        }
        return rc;
    }
    set_clock(run, r, &clk);
    sb_cpu_sample(&cpu_before, r->cpu_srv);
    r->cpu_prev = cpu_before;
    sb_server_watch_start(&r->srv_watch, r->cpu_srv, &cpu_before, cpu_before.mono_ns);
    release_workers(run, true);
    report_loop(run, r, &clk, &cpu_before);
    /* Workers that ended at the deadline may beat the reporter to it: the
     * last full second still counts. */
    if (!clk.deadline || r->sampler.next_ns <= clk.deadline)
        sb_sampler_tick(&r->sampler, run, sb_now_ns());
    /* Workers that ended on their own (event() returned true, or a custom
     * thread_run finished) leave the stop flag unset. */
    sb_request_stop(SB_STOP_DONE);
    join_workers(run, clk.deadline);
    /* The interval reports' JSON array ends with them, as sysbench 1.0's
     * ends with its reporting thread. */
    sb_report_json_close(stdout);
    if (!sb_run_abandoned())
        sb_cpu_server_settle(r->cpu_srv, known, nknown, 2.0);
    free(known);
    sb_cpu_sample(&cpu_after, r->cpu_srv);
    sb_server_watch_adjust(&r->srv_watch, &cpu_after, cpu_label, sizeof(cpu_label));
    memset(&fin, 0, sizeof(fin));
    for (unsigned i = 0; i < run->nthreads; i++)
        if (run->workers[i].end_ns > fin.end)
            fin.end = run->workers[i].end_ns;
    if (sb_run_abandoned())
        fin.end = sb_now_ns(); /* the run ended now for the threads left */
    fin.deadline = clk.deadline;
    fin.cpu_before = &cpu_before;
    fin.cpu_after = &cpu_after;
    fin.cpu_label = cpu_label;
    fin.server_version = server_version;
    /* The error first, then the report of what ran before it. */
    werr = worker_error(run);
    if (werr != NULL)
        sb_fatal("%s", werr);
    rc = werr != NULL || r->hook_failed || sb_run_abandoned() ? 1 : 0;
    if (final_report(r, L, &fin) != 0)
        rc = 1;
    /* done() would clean up under the feet of a thread left running. */
    if (!sb_run_abandoned() && sb_lua_call_global(L, "done", -1, NULL, err, sizeof(err)) != 0) {
        sb_fatal("%s", err);
        rc = 1;
    }
    if (!sb_run_abandoned()) {
        sb_worker_table_set(NULL, 0);
        free_run(run, r);
    }
    /* A failure caused by the signal (a reconnect given up) is still an
     * interruption. */
    if (sb_stop_reason() == SB_STOP_SIGNAL)
        rc = 128 + sb_run_signal();
    return rc;
}
