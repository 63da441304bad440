/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reporter of a benchmark run: intervals, checkpoints, the final
 * report; see sb_monitor.h.
 */
#include "engine/sb_monitor.h"
#include "config/sb_instance.h"
#include "builtin/sb_builtin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_clock.h"
#include "core/sb_log.h"
#include "results/sb_metrics.h"
#include "results/sb_result_writer.h"
#include "results/sb_text_report.h"
#include "results/sb_point_result.h"
#include "results/sb_selfcheck_write.h"
#include "core/sb_stop.h"
#include "engine/sb_worker.h"
#include "engine/sb_stmt_gather.h"
#include "results/sb_stmt_result.h"
#include "pure/sb_histogram.h"

static double secs(uint64_t ns)
{
    return (double)ns / 1e9;
}

/* A restarted server is measured again from the sample it was found
 * with: the current interval starts there for the server's CPU. */
static void watch_server(struct sb_monitor *r, uint64_t now)
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
    if (run->point.mode == SB_PACE_POISSON) {
        pthread_mutex_lock(&run->arrivals_lock);
        b = sb_arrivals_backlog(&run->arrivals, now);
        pthread_mutex_unlock(&run->arrivals_lock);
    } else if (run->point.mode == SB_PACE_FIXED) {
        /* Slots due by their nominal time and not yet started. */
        b = sb_worker_backlog(run, now);
    }
    return b;
}

static bool has_hook(lua_State *L, const char *name)
{
    bool yes;
    /* Raw lookups: outside lua_pcall a metamethod's error is a PANIC. */
    lua_pushstring(L, "sysbench");
    lua_rawget(L, LUA_GLOBALSINDEX);
    sb_lua_rawfield(L, -1, "hooks");
    sb_lua_rawfield(L, -1, name);
    yes = lua_isfunction(L, -1);
    lua_pop(L, 3);
    return yes;
}

/* Pushes a report stat as the Lua table scripts' hooks receive. */
static void push_stat(lua_State *L, const struct sb_text_report_stat *s, bool final)
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

static int call_hook(lua_State *L, const char *name, const struct sb_text_report_stat *s,
                     bool final, enum sb_text_report_kind kind)
{
    char err[1024];
    sb_text_report_set_kind(kind, stdout);
    lua_pushstring(L, "sysbench");
    lua_rawget(L, LUA_GLOBALSINDEX);
    sb_lua_rawfield(L, -1, "hooks");
    sb_lua_rawfield(L, -1, name);
    lua_remove(L, -2);
    lua_remove(L, -2);
    push_stat(L, s, final);
    if (sb_lua_pcall(L, 1, 0, err, sizeof(err)) != 0) {
        sb_fatal("sysbench.hooks.%s: %s", name, err);
        return -1;
    }
    return 0;
}

/* Empties a total kept between reports (codes included). */
static void stats_clear(struct sb_stats *s)
{
    sb_stats_reset(s);
    s->ncodes = 0;
}

/*
 * Sets total to the statistics of every slot (a worker thread's, or a
 * loop's shared by its connections) that belongs to the run's current
 * epoch, and, when ev and busy are given, each worker's events and
 * seconds inside events (0 for a worker still in warmup). Within an epoch
 * the set of such slots and workers only grows and their counters only
 * grow, so the difference of two totals is what happened in between.
 */
static void sum_workers(struct sb_monitor *r, int epoch, struct sb_stats *total,
                        uint64_t *ev, double *busy)
{
    struct sb_run *run = r->run;

    stats_clear(total);
    for (unsigned i = 0; i < run->nslots; i++)
        if (__atomic_load_n(&run->slots[i].epoch, __ATOMIC_ACQUIRE) == epoch)
            sb_live_accumulate(total, run->slots[i].stats);
    for (unsigned i = 0; ev != NULL && i < run->point.threads; i++) {
        const struct sb_worker *w = &run->workers[i];
        bool counts = __atomic_load_n(&w->epoch, __ATOMIC_ACQUIRE) == epoch;

        ev[i] = counts ? __atomic_load_n(&w->events, __ATOMIC_RELAXED) : 0;
        busy[i] = counts ? secs(__atomic_load_n(&w->busy_ns, __ATOMIC_RELAXED)) : 0;
    }
}

/* Sets r->delta to what every worker did since the last report, counting a
 * worker whose statistics still belong to warmup as empty. */
static void collect(struct sb_monitor *r)
{
    int epoch = __atomic_load_n(&r->run->epoch, __ATOMIC_ACQUIRE);

    if (r->prev_epoch != epoch) {
        stats_clear(&r->prev);
        r->prev_epoch = epoch;
    }
    sum_workers(r, epoch, &r->cur, NULL, NULL);
    sb_stats_diff(&r->delta, &r->cur, &r->prev);
    r->prev = r->cur;
}

/* Hands one interval to the result files (--json, --csv). */
static void record_interval(struct sb_monitor *r, const struct sb_text_report_stat *s,
                            uint64_t backlog, double cpu_client, double cpu_server)
{
    struct sb_result_writer *o = r->out;
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
    if (sb_result_writer_add_interval(o, &iv) != 0)
        sb_warn("out of memory: an interval is missing from the result files");
    if (o->metrics != NULL && r->types.n > 0)
        sb_metrics_publish_types(o->metrics, o->type_iv, r->types.n);
    if (o->metrics != NULL)
        sb_metrics_publish(o->metrics, &iv, o->pcts, o->npcts, (unsigned)o->npoints,
                           r->run->point.threads, r->run->point.mode != SB_PACE_NONE, r->run->point.target_tps);
}

/*
 * Reports the interval ending at `now`. It is labelled with the scheduled
 * tick, not with `now`: when the main thread wakes late on a loaded machine
 * a label rounded from `now` could repeat or skip a second.
 */
static void interval_report(struct sb_monitor *r, uint64_t now, uint64_t tick)
{
    struct sb_run *run = r->run;
    const struct sb_config *cfg = run->cfg;
    double pct = cfg->npercentiles ? cfg->percentiles[0] : 95;
    struct sb_text_report_stat s;
    struct sb_text_report_extra x;
    uint64_t backlog;
    struct sb_cpu_sample cpu_now;
    struct sb_cpu_report cr;
    double cpu_client, cpu_server;

    collect(r);
    /* The types' pass right after the totals', before the slow parts
     * (CPU sampling reads /proc): a row's types then add up to its total
     * but for events ending between the two passes (one per thread at
     * most, where the CPU sample's milliseconds let in several). */
    if (r->out != NULL && r->out->ntypes > 0)
        sb_type_watch_collect(&r->types, run, secs(now - r->last_ns), r->out->pcts,
                              r->out->npcts, r->out->type_iv);
    if (sb_stats_queries(&r->delta) > 0 && r->run->env->builtin == NULL)
        r->sql = true;
    sb_text_report_stat_from(&s, &r->delta, secs(now - r->last_ns), secs(tick - r->start_ns),
                        run->point.threads, cfg->npercentiles ? pct : 0);
    backlog = backlog_now(run, now);
    if (backlog > r->max_backlog)
        r->max_backlog = backlog;
    s.queue_length = (double)backlog;
    s.concurrency = run->point.threads - __atomic_load_n(&run->finished, __ATOMIC_RELAXED);
    r->last_ns = now;
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
        if (call_hook(r->L, "report_intermediate", &s, false, SB_TEXT_REPORT_INTERVAL) != 0) {
            r->hook = false;
            r->hook_failed = true;
            sb_request_stop(SB_STOP_ERROR);
        }
        return;
    }
    memset(&x, 0, sizeof(x));
    x.sql = r->sql;
    x.pct = pct;
    x.rate_mode = run->point.mode;
    x.target_tps = run->point.target_tps;
    x.lag_pct_ms = (double)sb_hist_percentile(&r->delta.lag, pct) / 1e6;
    x.backlog = backlog;
    x.cpu = true;
    x.cpu_client_pct = cpu_client;
    x.cpu_server_pct = cpu_server;
    if (cfg->verbosity >= SB_LOG_NOTICE && sb_compat10() && r->run->env->builtin != NULL)
        /* 1.0's line for a compiled-in test: events, no queries. */
        printf("[ %.0fs ] thds: %.0f eps: %4.2f lat (ms,%g%%): %4.2f\n", s.time_total,
               s.threads_running, s.time_interval > 0 ? s.events / s.time_interval : 0, pct,
               s.latency_pct * 1000);
    else if (cfg->verbosity >= SB_LOG_NOTICE && sb_compat10()) /* 1.0's fields only */
        printf("[ %.0fs ] thds: %.0f tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) "
               "lat (ms,%g%%): %4.2f err/s: %4.2f reconn/s: %4.2f\n", s.time_total,
               s.threads_running, s.events / s.time_interval,
               (s.reads + s.writes + s.other) / s.time_interval, s.reads / s.time_interval,
               s.writes / s.time_interval, s.other / s.time_interval, pct,
               s.latency_pct * 1000, s.errors / s.time_interval,
               s.reconnects / s.time_interval);
    else if (cfg->verbosity >= SB_LOG_NOTICE) /* below: only the script's output */
        sb_text_report_print_line(&s, &x, stdout);
}

/* Everything since the last checkpoint (all of it without checkpoints),
 * merged over workers, with each worker's events and time inside events
 * (ev, busy: nthreads entries). r->cur keeps the snapshot it diffed, for
 * advance_checkpoint. */
static void gather(struct sb_monitor *r, struct sb_stats *total, uint64_t *ev, double *busy)
{
    unsigned n = r->run->point.threads;
    int epoch = __atomic_load_n(&r->run->epoch, __ATOMIC_ACQUIRE);

    if (r->ckpt_ev == NULL) {
        sum_workers(r, epoch, total, ev, busy);
        return;
    }
    if (r->ckpt_epoch != epoch) {
        stats_clear(&r->ckpt);
        memset(r->ckpt_ev, 0, n * sizeof(*r->ckpt_ev));
        memset(r->ckpt_busy, 0, n * sizeof(*r->ckpt_busy));
        r->ckpt_epoch = epoch;
    }
    sum_workers(r, epoch, &r->cur, ev, busy);
    sb_stats_diff(total, &r->cur, &r->ckpt);
    for (unsigned i = 0; i < n; i++) {
        ev[i] = ev[i] >= r->ckpt_ev[i] ? ev[i] - r->ckpt_ev[i] : 0;
        busy[i] = busy[i] >= r->ckpt_busy[i] ? busy[i] - r->ckpt_busy[i] : 0;
    }
}

/* A checkpoint was reported: what gather() just returned
 * (ev, busy: each worker's share since the previous checkpoint) becomes
 * the new starting point. Not called when the report failed, so that the
 * final report still counts what no report showed. */
static void advance_checkpoint(struct sb_monitor *r, const uint64_t *ev, const double *busy)
{
    if (r->ckpt_ev == NULL)
        return;
    for (unsigned i = 0; i < r->run->point.threads; i++) {
        r->ckpt_ev[i] += ev[i];
        r->ckpt_busy[i] += busy[i];
    }
    r->ckpt = r->cur;
}

/*
 * Starts the point a checkpoint or the final report prints from: the
 * run's frozen config, empty totals and per-thread arrays for gather()
 * to fill, the largest backlog so far. p owns what it holds (freed by
 * sb_point_result_free, also after a failure). Returns 0, or -1 when out of
 * memory.
 */
static int new_point(struct sb_point_result *p, const struct sb_monitor *r)
{
    unsigned n = r->run->point.threads;

    memset(p, 0, sizeof(*p));
    p->cfg = r->run->point;
    p->start_unix_s = NAN;
    p->max_backlog = r->max_backlog;
    p->total = sb_stats_new();
    p->thread_events = calloc(n ? n : 1, sizeof(*p->thread_events));
    p->thread_busy = calloc(n ? n : 1, sizeof(*p->thread_busy));
    if (p->total == NULL || p->thread_events == NULL || p->thread_busy == NULL)
        return -1;
    p->nthread_events = n;
    return 0;
}

/* How the text report presents the run's points: the --percentile list
 * (borrowed from the configuration), --histogram, and the SQL section
 * once any query was counted; interval_s as struct sb_text_report_opts. */
static void report_opts(struct sb_text_report_opts *o, const struct sb_monitor *r,
                        double interval_s)
{
    const struct sb_config *cfg = r->run->cfg;

    memset(o, 0, sizeof(*o));
    o->percentiles = cfg->percentiles;
    o->npercentiles = cfg->npercentiles;
    o->histogram = cfg->histogram;
    o->sql = r->sql;
    o->interval_s = interval_s;
}

/*
 * --report-checkpoints: the cumulative report of everything since the
 * previous checkpoint (or the start), through the report_cumulative hook
 * when the script has one, after which the counters start again, as in
 * sysbench 1.0. The label is the checkpoint's scheduled second.
 */
static void checkpoint_report(struct sb_monitor *r, uint64_t now, double label_s)
{
    struct sb_run *run = r->run;
    const struct sb_config *cfg = run->cfg;
    unsigned n = run->point.threads;
    struct sb_point_result p; /* a temporary point, freed below */
    double since = secs(now - r->ckpt_ns), t = secs(now - r->start_ns);

    if (new_point(&p, r) != 0) {
        sb_warn("out of memory: checkpoint report at %gs skipped", label_s);
        goto out;
    }
    gather(r, p.total, p.thread_events, p.thread_busy);
    p.time_s = t;
    /* fileio counts its reads and writes as queries: not SQL. */
    if (sb_stats_queries(p.total) > 0 && r->run->env->builtin == NULL)
        r->sql = true;
    sb_text_report_set_kind(SB_TEXT_REPORT_CHECKPOINT, stdout);
    if (cfg->verbosity >= SB_LOG_NOTICE) /* below: only the script's output */
        printf("[ %.0fs ] Checkpoint report:\n", label_s);
    if (has_hook(r->L, "report_cumulative")) {
        struct sb_text_report_stat s;
        /* Labelled with the scheduled checkpoint, as intervals are with
         * their tick: a reporter woken late on a loaded machine would
         * otherwise call the 1-s checkpoint "time": 2. */
        sb_text_report_stat_from(&s, p.total, since, label_s, n,
                            cfg->npercentiles ? cfg->percentiles[0] : 0);
        s.threads_running = n - __atomic_load_n(&run->finished, __ATOMIC_RELAXED);
        /* As report_intermediate: one error line and the run stops, not
         * the same error at every checkpoint. */
        if (call_hook(r->L, "report_cumulative", &s, true, SB_TEXT_REPORT_CHECKPOINT) != 0) {
            r->hook_failed = true;
            r->cumulative_failed = true;
            sb_request_stop(SB_STOP_ERROR);
            goto failed;
        }
    } else if (cfg->verbosity >= SB_LOG_NOTICE) {
        struct sb_text_report_opts o;
        report_opts(&o, r, since);
        printf("\n");
        sb_text_report_print_point(&p, &o, stdout);
    }
    advance_checkpoint(r, p.thread_events, p.thread_busy);
out:
    r->ckpt_ns = now;
failed:
    fflush(stdout);
    sb_point_result_free(&p);
}

/* When the next --report-checkpoints report is due, 0 when none is left. */
static uint64_t next_checkpoint(const struct sb_monitor *r)
{
    const struct sb_config *cfg = r->run->cfg;
    if (r->next_ckpt >= cfg->ncheckpoints)
        return 0;
    return r->start_ns + (uint64_t)(cfg->checkpoints[r->next_ckpt] * 1e9);
}

int sb_monitor_init(struct sb_monitor *r, struct sb_run *run, lua_State *L,
                     struct sb_result_writer *out)
{
    unsigned n = run->point.threads;

    r->run = run;
    r->L = L;
    r->out = out;
    /* Epochs count from 0: -1 makes the first report start afresh. */
    r->prev_epoch = r->ckpt_epoch = -1;
    if (run->cfg->ncheckpoints > 0) {
        r->ckpt_ev = calloc(n ? n : 1, sizeof(*r->ckpt_ev));
        r->ckpt_busy = calloc(n ? n : 1, sizeof(*r->ckpt_busy));
        if (r->ckpt_ev == NULL || r->ckpt_busy == NULL)
            return -1;
    }
    if (sb_sampler_init(&r->sampler, n, 1.0) != 0)
        return -1;
    r->hook = has_hook(L, "report_intermediate");
    if (out != NULL && out->ntypes > 0 && sb_type_watch_init(&r->types, out->ntypes) != 0)
        return -1;
    return 0;
}

void sb_monitor_free(struct sb_monitor *r)
{
    free(r->ckpt_ev);
    free(r->ckpt_busy);
    sb_sampler_free(&r->sampler);
    sb_type_watch_free(&r->types);
}

void sb_monitor_start(struct sb_monitor *r, uint64_t start_ns)
{
    r->start_ns = r->last_ns = start_ns;
    r->ckpt_ns = r->start_ns;
    sb_sampler_start(&r->sampler, r->start_ns);
    /* The wall clock at the measurement origin, for absolute times; the
     * result file's start is the same instant. */
    r->epoch0_s = sb_instance_unix_of(r->start_ns);
    if (r->out != NULL)
        sb_result_writer_set_start(r->out, r->epoch0_s);
}

void sb_monitor_begin_cpu(struct sb_monitor *r, struct sb_cpu_sample *cpu_before)
{
    sb_cpu_sample(cpu_before, r->cpu_srv);
    r->cpu_prev = *cpu_before;
    sb_server_watch_start(&r->srv_watch, r->cpu_srv, cpu_before, cpu_before->mono_ns);
}

/* Warmup is over: the workers' statistics start again. */
static void end_warmup(struct sb_run *run, struct sb_monitor *r,
                       struct sb_cpu_sample *cpu_before)
{
    /* In rate modes each worker starts its window itself, at its first
     * slot due at or after the end of warmup. */
    __atomic_fetch_add(&run->epoch, 1, __ATOMIC_RELEASE);
    sb_monitor_begin_cpu(r, cpu_before);
}

/* The share of the connections' time since the start spent in finished
 * transactions (start to end): near 1 for threads that cannot keep up,
 * small for threads that were only held off their CPUs for a while. */
static double busy_share(const struct sb_monitor *r, uint64_t now)
{
    const struct sb_run *run = r->run;
    double busy = 0, span = (double)(now - r->start_ns) * run->point.threads;

    for (unsigned i = 0; i < run->point.threads; i++)
        busy += (double)__atomic_load_n(&run->workers[i].busy_ns, __ATOMIC_RELAXED);
    return span > 0 ? busy / span : 0;
}

/*
 * Once, after the first second of the measured run: a target rate the
 * threads fell far short of then is said at once, as what was measured,
 * rather than only afterwards as a lag of millions of percent of the
 * period. Nothing before the run can prove a rate out of reach (how long
 * an event takes is the script's and the server's), so this waits for
 * the first second's figure; under half the target is beyond what a slow
 * start (a cold cache, connections warming up) explains in one second,
 * and only when the threads spent at least half of it in transactions.
 */
static void check_rate_reachable(struct sb_monitor *r)
{
    const struct sb_run *run = r->run;
    double tps;

    if (r->rate_checked || r->sampler.ntps == 0)
        return;
    r->rate_checked = true;
    /* SB_COMPAT=1.0 prints 1.0's output, which has no such line;
     * --find-max probes past what the threads reach on purpose. */
    if (!sb_pace_rated(run->point.mode) || !(run->point.target_tps > 0) || sb_compat10() || run->point.probe)
        return;
    tps = r->sampler.tps[0];
    if (tps >= 0.5 * run->point.target_tps)
        return;
    /* Threads that were idle most of the second did not fall short for
     * want of time: a loaded machine kept them off their CPUs (the
     * schedule catches up when they run), which the self-check calls
     * contention, not a rate out of reach. */
    if (busy_share(r, sb_now_ns()) < 0.5)
        return;
    /* A fact, not advice: what limits the rate (the server, too few
     * connections, the client's CPU, the machine) is the self-check's
     * finding at the end, the run's one source of advice. */
    sb_warn("%s=%.15g is out of reach so far: in the first second the %u thread(s) completed "
            "%.0f events (%.1f%% of the target); at that pace the schedule falls further "
            "behind every second and lag grows for the whole run (the self-check at the end "
            "says what limits it)", run->point.mode == SB_PACE_POISSON ? "--rate" : "--tx-rate",
            run->point.rate, run->point.threads,
            tps, 100.0 * tps / run->point.target_tps);
}

/* Whether the pending interval tick falls on the deadline (within a
 * millisecond of the two times' rounding). That interval is reported after
 * the workers are joined (sb_monitor_last_interval): an event of the window
 * that ends just after the deadline counts in the total, and must count in
 * an interval too, or the intervals do not add up to the total. */
static bool tick_at_deadline(const struct sb_run_clock *c)
{
    return c->deadline != 0 && c->next_report != 0 &&
           c->next_report + SB_NS_PER_MS >= c->deadline &&
           c->next_report <= c->deadline + SB_NS_PER_MS;
}

/* The end of a run's measured time, given its deadline (0: none) and
 * when its last worker finished. A run without a deadline, or one that
 * ended before it, was measured until the end. Past a deadline, a rate
 * mode's time is the window: its events are the window's slots, and a
 * worker asleep until a slot beyond the deadline is not working. A closed
 * loop counts the events in flight at the deadline, so its time runs until
 * the last of them ended, as sysbench 1.0's total time does: ending it at
 * the deadline counted up to one event per thread more than the time held
 * (4 threads of 300-ms events for 1 s: 16 events in 1.0 s, 16/s from a
 * workload that cannot pass 13.3/s). thread_done's time is not counted. */
static uint64_t measured_end(const struct sb_monitor *r, uint64_t deadline, uint64_t end)
{
    const struct sb_run *run = r->run;
    int epoch = __atomic_load_n(&run->epoch, __ATOMIC_ACQUIRE);
    uint64_t last = deadline;

    if (deadline == 0 || end <= deadline)
        return end;
    if (sb_pace_rated(run->point.mode))
        return deadline;
    for (unsigned i = 0; i < run->point.threads; i++) {
        const struct sb_worker *w = &run->workers[i];

        uint64_t t = __atomic_load_n(&w->last_end_ns, __ATOMIC_RELAXED);

        if (__atomic_load_n(&w->epoch, __ATOMIC_ACQUIRE) == epoch && t > last)
            last = t;
    }
    return last < end ? last : end;
}

/* See sb_monitor.h. */
void sb_monitor_last_interval(struct sb_monitor *r, const struct sb_run_clock *c)
{
    uint64_t now = sb_now_ns(), end;

    if (!tick_at_deadline(c) || now < c->deadline || sb_stop_reason() != SB_STOP_DONE ||
        r->hook_failed)
        return;
    end = measured_end(r, c->deadline, now);
    interval_report(r, end > r->last_ns ? end : r->last_ns, c->next_report);
}

/* The main thread is the reporter and the timekeeper until the workers
 * finish or a stop is requested. */
void sb_monitor_loop(struct sb_monitor *r, struct sb_run_clock *c,
                      struct sb_cpu_sample *cpu_before)
{
    struct sb_run *run = r->run;
    const struct sb_config *cfg = run->cfg;
    uint64_t now = c->start;

    /* --events reached is not the end: the events already claimed
     * finish, retries included, and the stop measure() requests next
     * would replace that reason and cut their retries off (a run of
     * --events=3000 whose every event retried once reported 2,995
     * transactions for 3,000 ignored errors). */
    while (!sb_stop_claimed() &&
           __atomic_load_n(&run->finished, __ATOMIC_ACQUIRE) < run->point.threads) {
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
        check_rate_reachable(r);
        if (c->next_report && now >= c->next_report && !tick_at_deadline(c)) {
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

/* Each finished worker's CPU time in the measured window; NULL entries
 * for workers that never left warmup or never finished. */
static struct sb_cpu_thread *thread_cpu(const struct sb_run *run, const uint64_t *ev)
{
    struct sb_cpu_thread *tcpu = calloc(run->point.threads, sizeof(*tcpu));

    for (unsigned i = 0; tcpu != NULL && i < run->point.threads; i++) {
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

/* Hands the point's final figures (the ones the text report printed) to
 * the result files, which take them over from p. */
static void record_final(struct sb_monitor *r, struct sb_point_result *p,
                         const struct sb_final_in *in)
{
    const struct sb_lua_env *env = r->run->env;

    if (sb_result_writer_end_point(r->out, p) != 0)
        sb_warn("out of memory: a point's final figures are missing from the result files");
    /* Only a script that ran queries used the driver; one that did not
     * says nothing about any server. */
    if (r->sql && env->driver != NULL) {
        sb_result_writer_set_server(r->out, env->driver->name, in->server_version);
        if (in->server_info != NULL)
            sb_result_writer_set_server_info(r->out, in->server_info);
    }
}

/* The script's report_cumulative hook in place of the built-in final
 * report. Returns 0, or -1 when it raised an error (reported). */
static int call_cumulative(lua_State *L, const struct sb_config *cfg,
                           const struct sb_stats *total, double since, double t, unsigned n)
{
    struct sb_text_report_stat s;
    int rc;

    sb_text_report_stat_from(&s, total, since, t, n, cfg->npercentiles ? cfg->percentiles[0] : 0);
    /* Every worker has finished: sysbench 1.0 reports 0 here. */
    s.threads_running = 0;
    rc = call_hook(L, "report_cumulative", &s, true, SB_TEXT_REPORT_FINAL);
    sb_text_report_json_close(stdout);
    return rc;
}

/* The largest backlog of the run into r->max_backlog: at a late start
 * (exact), or what was left due at the end of the window when the
 * workers never caught up. */
static void final_backlog(struct sb_monitor *r, uint64_t end)
{
    struct sb_run *run = r->run;
    uint64_t b = backlog_now(run, end);

    if (run->point.mode == SB_PACE_POISSON && run->arrivals.max_backlog > b)
        b = run->arrivals.max_backlog;
    for (unsigned i = 0; i < run->point.threads; i++)
        if (run->workers[i].measured && run->workers[i].max_backlog > b)
            b = run->workers[i].max_backlog;
    if (b > r->max_backlog)
        r->max_backlog = b;
}

/* Completes the final point p (gathered, time_s set) with the CPU report,
 * the per-thread CPU times, the self-check and how the run ended. */
static void finish_point(struct sb_monitor *r, struct sb_point_result *p,
                         const struct sb_final_in *in)
{
    struct sb_run *run = r->run;
    size_t ntps = r->sampler.ntps;

    p->thread_cpu = thread_cpu(run, p->thread_events);
    p->nthread_cpu = p->thread_cpu != NULL ? run->point.threads : 0;
    p->interrupted = sb_stop_reason() == SB_STOP_SIGNAL;
    snprintf(p->server_label, sizeof(p->server_label), "%s", in->cpu_label);
    sb_cpu_compute(in->cpu_before, in->cpu_after, p->total->c[SB_STAT_EVENTS], &p->cpu);
    sb_sampler_check(&r->sampler, run, p->total, p->time_s, &p->cpu, p->thread_cpu,
                     &p->selfcheck);
    p->has_selfcheck = true;
    p->check_sample_s = 1.0;
    /* The sampler keeps its samples; the point gets its own copy, an
     * extra it does without when memory is short. */
    if (ntps > 0 && (p->check_tps = malloc(ntps * sizeof(double))) != NULL) {
        memcpy(p->check_tps, r->sampler.tps, ntps * sizeof(double));
        p->ncheck_tps = ntps;
    }
}

/* A mix: each type's statistics, summed over the slots of the measured
 * epoch. Without memory for them the point goes without (a warning). */
static void gather_types(struct sb_monitor *r, struct sb_point_result *p)
{
    const struct sb_run *run = r->run;
    const struct sb_mix *m = run->env->mix;
    int epoch = __atomic_load_n(&run->epoch, __ATOMIC_ACQUIRE);

    /* With --report-checkpoints the final figures are those since the
     * last checkpoint, which the types' (kept for the whole run) would
     * not add up to: none then. */
    if (m == NULL || m->n == 0 || r->ckpt_ev != NULL)
        return;
    p->types = calloc(m->n, sizeof(*p->types));
    if (p->types == NULL) {
        sb_warn("out of memory: no figures per transaction type");
        return;
    }
    p->ntypes = m->n;
    for (unsigned k = 0; k < m->n; k++) {
        struct sb_point_type *t = &p->types[k];
        snprintf(t->name, sizeof(t->name), "%s", m->t[k].name);
        t->weight = m->t[k].weight;
        t->stats = sb_stats_new();
        if (t->stats == NULL) {
            sb_warn("out of memory: no figures per transaction type");
            for (unsigned i = 0; i < k; i++)
                sb_stats_free(p->types[i].stats);
            free(p->types);
            p->types = NULL;
            p->ntypes = 0;
            return;
        }
        for (unsigned i = 0; i < run->nslots; i++)
            if (__atomic_load_n(&run->slots[i].epoch, __ATOMIC_ACQUIRE) == epoch &&
                run->slots[i].types[k] != NULL)
                sb_live_accumulate(t->stats, run->slots[i].types[k]);
    }
}

/* Why the run ended, when not by its own limits, and what was cancelled. */
static void print_end_notices(const struct sb_final_in *in, const struct sb_config *cfg)
{
    if (sb_stop_reason() == SB_STOP_SIGNAL)
        printf("\nInterrupted by signal %d: reporting what ran.\n", sb_signal_caught());
    else if (sb_stop_reason() == SB_STOP_ERROR || sb_signal_abandoned())
        printf("\nStopped by an error: reporting what ran.\n");
    if (in->cut_at_deadline)
        printf("\nDeadline: %llu statement(s) still running %gs after --time were "
               "cancelled; their events are not counted.\n",
               (unsigned long long)in->cancelled, cfg->deadline_grace);
    else if (in->cancelled > 0)
        printf("%llu statement(s) in flight were cancelled.\n",
               (unsigned long long)in->cancelled);
}

/* A point of a sweep or a repeat: one line (sb_result_writer.h), then
 * the point is stored and p freed. Returns 0, or -1 when the
 * report_cumulative hook failed. */
static int final_brief(struct sb_monitor *r, lua_State *L, struct sb_point_result *p,
                       const struct sb_final_in *in, double since)
{
    const struct sb_config *cfg = r->run->cfg;
    struct sb_text_report_opts o;
    bool use_hook;
    int rc = 0;

    finish_point(r, p, in);
    use_hook = has_hook(L, "report_cumulative") && !r->cumulative_failed;
    if (use_hook && call_cumulative(L, cfg, p->total, since, p->time_s,
                                    r->run->point.threads) != 0)
        rc = -1;
    report_opts(&o, r, since);
    if (!use_hook || rc != 0)
        sb_text_report_print_point_line(p, &o, stdout);
    record_final(r, p, in);
    fflush(stdout);
    sb_point_result_free(p);
    return rc;
}

/* The final report; see sb_monitor.h. */
int sb_monitor_final(struct sb_monitor *r, lua_State *L, const struct sb_final_in *in)
{
    const struct sb_config *cfg = r->run->cfg;
    struct sb_point_result p; /* the point's result: printed, then stored */
    struct sb_text_report_opts o;
    uint64_t stop_ns = measured_end(r, in->deadline, in->end);
    double since = secs(stop_ns - r->ckpt_ns);
    bool use_hook;
    int rc = 0;

    final_backlog(r, in->end);
    if (new_point(&p, r) != 0) {
        sb_fatal("out of memory: no final report");
        sb_point_result_free(&p);
        return -1;
    }
    gather(r, p.total, p.thread_events, p.thread_busy);
    gather_types(r, &p);
    if (r->ckpt_ev == NULL)
        sb_stmt_gather(r->run, &p);
    /* A run that ended during --warmup-time stops before the measured
     * start: it measured 0 s (the unsigned difference wrapped to 5e11 s). */
    p.time_s = secs(stop_ns > r->start_ns ? stop_ns - r->start_ns : 0);
    if (sb_stats_queries(p.total) > 0 && r->run->env->builtin == NULL)
        r->sql = true;
    print_end_notices(in, cfg);
    if (cfg->verbosity >= SB_LOG_NOTICE && cfg->histogram && sb_compat10()) {
        /* 1.0 prints the histogram before the report, then " \n". */
        printf("Latency histogram (values are in milliseconds)\n");
        sb_hist_print(&p.total->response, stdout);
        printf(" \n");
    }
    if (cfg->verbosity >= SB_LOG_NOTICE && r->out != NULL && r->out->brief)
        return final_brief(r, L, &p, in, since);
    if (cfg->verbosity >= SB_LOG_NOTICE) {
        /* A compiled-in test's own section comes first, as in 1.0. */
        if (r->run->env->builtin != NULL && r->run->env->builtin->report != NULL)
            r->run->env->builtin->report(r->run->env->builtin_cfg, &p, stdout);
        /* 1.0: no blank line before "SQL statistics" of a script. */
        if (r->run->env->builtin != NULL || !r->sql)
            printf("\n");
    }
    finish_point(r, &p, in);
    use_hook = has_hook(L, "report_cumulative") && !r->cumulative_failed;
    if (use_hook && call_cumulative(L, cfg, p.total, since, p.time_s, r->run->point.threads) != 0)
        rc = -1;
    /* A report_cumulative hook that failed printed at most part of a
     * report: the built-in one still shows what the run measured. */
    if ((!use_hook || rc != 0) && cfg->verbosity >= SB_LOG_NOTICE) {
        report_opts(&o, r, since);
        /* Our sections in full at --verbosity=4, else one summary block;
         * SB_COMPAT=1.0: 1.0's sections only. */
        o.brief = !sb_compat10() && cfg->verbosity < SB_LOG_INFO;
        sb_text_report_print_point(&p, &o, stdout);
        sb_text_report_print_types(&p, &o, stdout);
        if (o.brief) {
            sb_text_report_print_summary(&p, &o, stdout);
        } else if (!sb_compat10()) {
            sb_text_report_print_cpu(&p.cpu, p.server_label, p.thread_cpu, p.nthread_cpu, stdout);
            sb_selfcheck_print_run(&p.selfcheck, p.total, p.time_s, stdout);
            sb_stmt_result_print(p.stmts, stdout);
        }
    }
    if (r->out != NULL)
        record_final(r, &p, in);
    fflush(stdout);
    sb_point_result_free(&p);
    return rc;
}
