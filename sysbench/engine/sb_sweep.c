/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The points of one run command (sb_sweep.h): the sweep, repeats with
 * their cooldowns and per-point headers, and --find-max's probes.
 */
#include "config.h"

#include "engine/sb_sweep.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/sb_config.h"
#include "config/sb_point.h"
#include "core/sb_clock.h"
#include "core/sb_log.h"
#include "core/sb_stop.h"
#include "engine/sb_run.h"
#include "engine/sb_signal.h"
#include "lua/sb_lua.h"
#include "results/sb_repeat.h"
#include "results/sb_point_result.h"
#include "results/sb_usl_report.h"

/* Sleeps `secs` seconds between two points or two repeats, so the server
 * settles (flushes, purges) before the next one. Returns false when a
 * signal asked to stop meanwhile. */
static bool cooldown(double secs, const char *what)
{
    uint64_t until;

    if (secs <= 0)
        return true;
    printf("Cooling down for %g second(s) before the next %s...\n", secs, what);
    fflush(stdout);
    until = sb_now_ns() + (uint64_t)(secs * 1e9);
    while (!sb_stopping() && sb_now_ns() < until) {
        uint64_t step = sb_now_ns() + 100 * SB_NS_PER_MS;
        sb_sleep_until_ns(step < until ? step : until);
    }
    return !sb_stopping();
}

/* A sweep's or a repeat's header line in brief (sb_result_writer.h): "point 2 of
 * 4: threads=8, tx-rate=500, run 1 of 3 (about 40 s left)", into
 * c->out->point_title for the run to print. */
static void point_header(const struct sb_sweep *c, const struct sb_point_config *pt)
{
    unsigned rep = pt->repeat, repeats = pt->nrepeat;
    char *b = c->out->point_title;
    size_t len = sizeof(c->out->point_title), n;
    unsigned left = (unsigned)((c->npoints - c->point_no) * repeats + (repeats - rep) + 1);
    double per = c->runs_done > 0 ? c->runs_s / c->runs_done
                 : sb_cfg->time_limit > 0 ? sb_cfg->warmup_time + sb_cfg->time_limit : 0;

    if (c->npoints > 1)
        snprintf(b, len, "point %zu of %zu: threads=%u", c->point_no, c->npoints, pt->threads);
    else
        snprintf(b, len, "run %u of %u: threads=%u", rep, repeats, pt->threads);
    n = strlen(b);
    /* A --rate (Poisson) is the same at every point: not repeated here. */
    if (pt->mode == SB_PACE_FIXED && n < len)
        n += (size_t)snprintf(b + n, len - n, ", tx-rate=%g", pt->rate);
    if (c->npoints > 1 && repeats > 1 && n < len)
        n += (size_t)snprintf(b + n, len - n, ", run %u of %u", rep, repeats);
    /* Pauses between runs count too. */
    per += left > 1 ? (repeats > 1 ? sb_cfg->repeat_cooldown : sb_cfg->sweep_cooldown) : 0;
    if (per > 0 && left * per >= 1 && n < len)
        snprintf(b + n, len - n, " (about %.0f s left)", left * per);
}

/*
 * Runs one point (c->threads, rate) `repeats` times (--repeat), every run
 * with the same options and seed, each with its own frozen point config,
 * then prints the repeat summary. Returns the first non-zero status of a run.
 */
static int run_point(void *p, double rate, unsigned repeats)
{
    struct sb_sweep *c = p;
    size_t first = c->out->npoints;
    uint64_t t0;
    double run_s;
    int rc = 0;

    for (unsigned rep = 1; rep <= repeats && rc == 0; rep++) {
        const struct sb_point_config pt =
            sb_point_config_make(sb_cfg, c->threads, rate, rep, repeats);

        if (c->started) {
            sb_stop_reset();
            bool rerun = rep > 1 || c->again;
            if (!cooldown(rerun ? sb_cfg->repeat_cooldown : sb_cfg->sweep_cooldown,
                          rerun ? "repeat" : "point"))
                return 128 + sb_signal_caught();
            if (!c->out->brief)
                printf("\n");
        }
        c->started = true;
        if (c->out->brief && sb_cfg->verbosity >= SB_LOG_NOTICE)
            point_header(c, &pt);
        else if (repeats > 1)
            printf("Run %u of %u:\n", rep, repeats);
        /* init() runs in the main state: give it the same random
         * sequence at every point and every repeat. */
        sb_rand_seed_stream(c->main_rand, sb_cfg->rand_seed,
                            0x100000000ULL + sb_cfg->instance.index, &sb_cfg->rand);
        t0 = sb_now_ns();
        rc = sb_run_benchmark(c->L, c->env, &pt, c->out);
        run_s = (double)(sb_now_ns() - t0) / 1e9;
        c->runs_done++;
        c->runs_s += run_s;
        c->run_max_s = run_s > c->run_max_s ? run_s : c->run_max_s;
    }
    if (repeats > 1 && rc != 1)
        sb_repeat_print_group(c->out, first, stdout);
    return rc;
}

/* Points standard output at /dev/null (a --find-max probe's full report
 * goes to the JSON only). Returns the saved descriptor to give back to
 * quiet_end, or -1 when nothing was redirected. */
static int quiet_begin(void)
{
    int saved, null;

    if (sb_cfg->verbosity >= SB_LOG_INFO)
        return -1; /* --verbosity=4 or more: the reports too */
    fflush(stdout);
    saved = dup(STDOUT_FILENO);
    null = open("/dev/null", O_WRONLY);
    if (saved < 0 || null < 0 || dup2(null, STDOUT_FILENO) < 0) {
        if (saved >= 0)
            close(saved);
        saved = -1;
    }
    if (null >= 0)
        close(null);
    return saved;
}

static void quiet_end(int saved)
{
    if (saved < 0)
        return;
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
}

static double monotonic_s(void)
{
    return (double)sb_now_ns() / 1e9;
}

/*
 * The --find-max callback: one run at `rate`, its report kept out of the
 * text output, its achieved rate and SLA percentile into fig. Runs of one
 * rate in a row are grouped as repeats in the result files.
 */
static int findmax_run(void *p, double rate, bool again, struct sb_findmax_fig *fig)
{
    struct sb_sweep *c = p;
    size_t first = c->out->npoints;
    int saved = quiet_begin(), rc;

    c->again = again;
    rc = run_point(c, rate, 1);
    c->again = false;
    quiet_end(saved);
    if (!again)
        c->group = first;
    fig->tps = fig->latency_ms = NAN;
    if (c->out->npoints > first) {
        const struct sb_point_result *pt = &c->out->points[first];
        fig->tps = pt->time_s > 0 ? sb_point_result_tps(pt) : NAN;
        fig->latency_ms = sb_point_result_pct_ms(pt, sb_cfg->sla_pct);
    }
    for (size_t i = c->group; i < c->out->npoints; i++) {
        c->out->points[i].cfg.repeat = (unsigned)(i - c->group + 1);
        c->out->points[i].cfg.nrepeat = (unsigned)(c->out->npoints - c->group);
    }
    return rc;
}

static void print_seed(void)
{
    if (sb_cfg->rand_seed_given)
        printf("Random seed: %llu (--rand-seed)\n", (unsigned long long)sb_cfg->rand_seed);
    else
        printf("Random seed: %llu (from the clock; --rand-seed=%llu repeats it)\n",
               (unsigned long long)sb_cfg->rand_seed, (unsigned long long)sb_cfg->rand_seed);
}

/* --find-max at the first thread count; the result is kept for the JSON. */
static int run_findmax(struct sb_sweep *c)
{
    struct sb_findmax_params par = {
        .pct = sb_cfg->sla_pct, .ms = sb_cfg->sla_ms, .repeat = sb_cfg->repeat,
        .run_s = sb_cfg->warmup_time + sb_cfg->time_limit + sb_cfg->sweep_cooldown,
        .progress = isatty(STDOUT_FILENO) != 0, .now_s = monotonic_s};
    int rc;

    c->threads = sb_cfg->thread_list[0];
    c->out->find_max = c->fm;
    print_seed();
    rc = sb_findmax_search(findmax_run, c, &par, c->fm, stdout);
    /* The run's own report of it went to the JSON only. */
    if (rc > 128)
        printf("--find-max: interrupted by signal %d after %u run(s); they are in the "
               "result files\n", rc - 128, c->fm->runs);
    else if (rc != 0)
        printf("--find-max: stopped: run %u failed\n", c->fm->runs);
    return rc;
}

/* One --threads=auto run at c->threads, its report kept out of the text
 * output (the JSON has it), its figures into fig. */
static int auto_run(struct sb_sweep *c, struct sb_peak_fig *fig)
{
    size_t first = c->out->npoints;
    int saved = quiet_begin(), rc;
    double pct = sb_cfg->sla_ms > 0 ? sb_cfg->sla_pct : SB_PEAK_REPORT_PCT;

    rc = run_point(c, 0, 1);
    quiet_end(saved);
    fig->tps = fig->latency_ms = fig->rse = NAN;
    if (c->out->npoints > first) {
        const struct sb_point_result *pt = &c->out->points[first];
        fig->tps = pt->time_s > 0 ? sb_point_result_tps(pt) : NAN;
        fig->latency_ms = sb_point_result_pct_ms(pt, pct);
        fig->rse = sb_peak_rse(pt->check_tps, pt->ncheck_tps);
    }
    return rc;
}

/* The progress line of run k: its figures, the best so far and the
 * time the rest of the search should take. */
static void auto_line(const struct sb_sweep *c, unsigned k, unsigned t,
                      const struct sb_peak_fig *fig)
{
    const struct sb_peak *s = c->peak;
    const struct sb_peak_point *b;
    double per = c->runs_done > 0 ? c->runs_s / c->runs_done : 0;
    unsigned left = sb_peak_runs_left(s);

    printf("%3u  threads %5u  tps %10.2f  p%g %8.2f ms", k, t, fig->tps,
           sb_cfg->sla_ms > 0 ? sb_cfg->sla_pct : SB_PEAK_REPORT_PCT, fig->latency_ms);
    /* sb_peak_next has not yet judged this run: the best so far is the
     * table's best median within the SLA. */
    b = NULL;
    for (size_t i = 0; i < s->npts; i++)
        if (s->pts[i].within_sla && (b == NULL || s->pts[i].median_tps > b->median_tps))
            b = &s->pts[i];
    if (b != NULL)
        printf("   best so far: %u threads, %.2f tps", b->threads, b->median_tps);
    if (left > 0 && per > 0)
        printf(" (about %.0f s left)", left * (per + sb_cfg->sweep_cooldown));
    printf("\n");
    fflush(stdout);
}

/* --threads=auto: the search (sb_peak.h) run point by point, then its
 * table, its answer and the USL fit of every run. */
static int run_auto(struct sb_sweep *c)
{
    struct sb_peak_params par = {.max_threads = sb_cfg->threads_auto_max,
                                 .sla_pct = sb_cfg->sla_pct, .sla_ms = sb_cfg->sla_ms,
                                 .repeat = sb_cfg->repeat > SB_PEAK_MAX_RUNS ? SB_PEAK_MAX_RUNS
                                                                            : sb_cfg->repeat,
                                 .budget_s = sb_cfg->budget_s};
    double t0 = monotonic_s(), guess = sb_cfg->warmup_time + sb_cfg->time_limit;
    struct sb_usl_fit fit;
    unsigned t, k = 0;
    int rc = 0;

    sb_peak_init(c->peak, &par);
    c->out->threads_auto = c->peak;
    print_seed();
    printf("--threads=auto: searching 1 to %u threads for the highest throughput%s\n",
           par.max_threads, par.sla_ms > 0 ? " within the --sla" : "");
    fflush(stdout);
    while (rc == 0) {
        /* What the next run may take, for --budget: the longest run so
         * far (runs of more threads take longer to start and stop, and
         * the budget is a limit, not a target), else the options (a run
         * ended by --events has no --time to go by). */
        double per = c->runs_done > 0 ? c->run_max_s : guess;
        struct sb_peak_fig fig;

        t = sb_peak_next(c->peak, monotonic_s() - t0, per + sb_cfg->sweep_cooldown);
        if (t == 0)
            break;
        c->threads = t;
        rc = auto_run(c, &fig);
        if (rc != 0)
            break;
        sb_peak_record(c->peak, t, &fig);
        auto_line(c, ++k, t, &fig);
    }
    if (rc > 128)
        printf("--threads=auto: interrupted by signal %d after %u run(s); they are in the "
               "result files\n", rc - 128, c->runs_done);
    else if (rc != 0)
        printf("--threads=auto: stopped: run %u failed\n", c->runs_done);
    if (rc == 1)
        return rc;
    sb_peak_report_print(c->peak, sb_usl_report_fit(c->out, &fit) ? &fit : NULL, stdout);
    if (sb_usl_report_fit(c->out, &fit))
        sb_usl_report_print(&fit, stdout);
    return rc;
}

/* The points of the --threads and --tx-rate lists, or the --find-max
 * search at the first thread count, or the --threads=auto search. */
int sb_sweep_run(struct sb_sweep *c)
{
    size_t nr = sb_cfg->ntx_rate_list > 0 ? sb_cfg->ntx_rate_list : 1;
    int rc = 0;

    if (sb_cfg->find_max)
        return run_findmax(c);
    if (sb_cfg->threads_auto)
        return run_auto(c);
    for (size_t ti = 0; ti < sb_cfg->nthread_list && rc == 0; ti++)
        for (size_t ri = 0; ri < nr && rc == 0; ri++) {
            c->threads = sb_cfg->thread_list[ti];
            c->point_no = ti * nr + ri + 1;
            c->npoints = sb_cfg->nthread_list * nr;
            rc = run_point(c, sb_cfg->ntx_rate_list ? sb_cfg->tx_rate_list[ri] : 0,
                           sb_cfg->repeat);
        }
    return rc;
}
