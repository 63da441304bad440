/*
 * Text and JSON forms of the self-check; see sb_selfcheck_report.h.
 */
#include "sb_selfcheck_report.h"

#include <math.h>
#include <string.h>

#include "sb_stats.h"

static const char *yes_no(bool b)
{
    return b ? "YES" : "no";
}

static void print_generator(const struct sb_selfcheck *c, FILE *out)
{
    fprintf(out, "    generator-bound:                     %s\n",
            yes_no(c->flags & SB_SELFCHECK_GENERATOR_BOUND));
    if (isfinite(c->worker_busy_pct))
        fprintf(out, "        client workers busy:             %.1f%% of their time on a CPU or "
                "waiting for one%s (flag at %.0f%%; CPU alone %.1f%% of the cores they could "
                "use)\n", c->worker_busy_pct, c->cpu_bound ? " [flag]" : "",
                100 * SB_SELFCHECK_CPU_SHARE, c->worker_cpu_pct);
    else if (isfinite(c->worker_cpu_pct))
        fprintf(out, "        client workers' CPU:             %.1f%% of the cores they could "
                "use%s (flag at %.0f%%)\n", c->worker_cpu_pct, c->cpu_bound ? " [flag]" : "",
                100 * SB_SELFCHECK_CPU_SHARE);
    else
        fprintf(out, "        client workers' CPU:             not measured\n");
    if (isfinite(c->period_ms)) {
        fprintf(out, "        start lag p99:                   %.3f ms, %.1f%% of the %.3f ms "
                "period%s (flag above %.0f%%)\n", c->lag_p99_ms, c->lag_pct_of_period,
                c->period_ms, c->lag_bound ? " [flag]" : "", 100 * SB_SELFCHECK_LAG_SHARE);
        fprintf(out, "        achieved rate:                   %.2f%% of target%s (flag below "
                "%.0f%%)\n", c->achieved_pct, c->rate_short ? " [flag]" : "",
                100 * SB_SELFCHECK_RATE_SHARE);
    }
    if (c->flags & SB_SELFCHECK_GENERATOR_BOUND)
        fprintf(out, "        => the client limited the run: its figures measure the load "
                "generator as much as the server (fewer or lighter events per thread, more "
                "threads, or a faster client machine)\n");
}

static void print_trend(const struct sb_trend *t, FILE *out)
{
    if (!t->tested) {
        fprintf(out, "    stationary:                          not tested (%zu sample%s of 1 s "
                "after warmup; %d needed: run at least %d s)\n", t->n, t->n == 1 ? "" : "s",
                SB_SELFCHECK_MIN_INTERVALS, SB_SELFCHECK_MIN_INTERVALS);
        return;
    }
    fprintf(out, "    stationary:                          %s (fitted throughput change %+.1f%% of the mean over "
            "%zu samples of 1 s, t = %.2f, significant at 95%% beyond +-%.2f; flagged when "
            "significant and %.0f%% or more)\n", t->flagged ? "NO" : "yes",
            t->change_pct, t->n, isfinite(t->t) ? t->t : copysign(999.99, t->t), t->t_crit,
            100 * SB_SELFCHECK_MIN_CHANGE);
    if (t->flagged)
        fprintf(out, "        => throughput drifted during the run: lengthen --warmup-time "
                "(the server may still be warming caches) or the run\n");
}

void sb_selfcheck_print(const struct sb_selfcheck *c, const struct sb_selfcheck_figures *f,
                        FILE *out)
{
    char flags[128];

    fprintf(out, "Self-check:\n");
    print_generator(c, out);
    print_trend(&c->trend, out);
    fprintf(out, "    error-dominated:                     %s (ignored errors %.2f%% of "
            "transactions; flag above %.0f%%)\n", yes_no(c->flags & SB_SELFCHECK_ERROR_DOMINATED),
            c->error_pct, 100 * SB_SELFCHECK_ERROR_SHARE);
    if (c->flags == 0) {
        fprintf(out, "    result:                              OK\n\n");
        fflush(out);
        return;
    }
    sb_selfcheck_flag_names(c->flags, flags, sizeof(flags));
    fprintf(out, "    result:                              FLAGGED [%s]\n", flags);
    fprintf(out, "        throughput:                      %.2f per sec. [%s]\n", f->tps, flags);
    fprintf(out, "        latency p95/p99 (ms):            %.2f/%.2f [%s]\n\n", f->p95_ms,
            f->p99_ms, flags);
    fflush(out);
}

void sb_selfcheck_print_run(const struct sb_selfcheck *c, const struct sb_stats *total, double t,
                            FILE *out)
{
    struct sb_selfcheck_figures f;

    f.tps = t > 0 ? (double)total->c[SB_STAT_EVENTS] / t : 0;
    f.p95_ms = (double)sb_hist_percentile(&total->response, 95) / 1e6;
    f.p99_ms = (double)sb_hist_percentile(&total->response, 99) / 1e6;
    sb_selfcheck_print(c, &f, out);
}

static void json_flags(struct sb_json *j, unsigned flags)
{
    sb_json_key(j, "flags");
    sb_json_begin_array_inline(j);
    if (flags & SB_SELFCHECK_GENERATOR_BOUND)
        sb_json_string(j, "generator-bound");
    if (flags & SB_SELFCHECK_NOT_STATIONARY)
        sb_json_string(j, "not-stationary");
    if (flags & SB_SELFCHECK_ERROR_DOMINATED)
        sb_json_string(j, "error-dominated");
    sb_json_end_array(j);
}

static void json_trend(struct sb_json *j, const struct sb_trend *t, const double *tps,
                       size_t ntps, double sample_s)
{
    sb_json_key(j, "stationarity");
    sb_json_begin_object(j);
    sb_json_kv_bool(j, "flagged", t->flagged);
    sb_json_kv_bool(j, "tested", t->tested);
    sb_json_kv_uint(j, "samples", t->n);
    sb_json_kv_double(j, "sample_s", sample_s);
    sb_json_kv_double(j, "mean_tps", t->n ? t->mean : NAN);
    sb_json_kv_double(j, "slope_tps_per_s", t->n > 2 ? t->slope : NAN);
    sb_json_kv_double(j, "change_pct", t->n > 2 ? t->change_pct : NAN);
    sb_json_kv_double(j, "t", t->n > 2 && isfinite(t->t) ? t->t : NAN);
    sb_json_kv_double(j, "t_crit", isfinite(t->t_crit) ? t->t_crit : NAN);
    sb_json_kv_bool(j, "significant", t->significant);
    sb_json_key(j, "tps");
    sb_json_begin_array_inline(j);
    for (size_t i = 0; tps != NULL && i < ntps; i++)
        sb_json_double(j, tps[i]);
    sb_json_end_array(j);
    sb_json_end_object(j);
}

void sb_selfcheck_json(struct sb_json *j, const struct sb_selfcheck *c, const double *tps,
                       size_t ntps, double sample_s)
{
    sb_json_key(j, "selfcheck");
    sb_json_begin_object(j);
    sb_json_kv_bool(j, "ok", c->flags == 0);
    json_flags(j, c->flags);
    sb_json_key(j, "generator_bound");
    sb_json_begin_object(j);
    sb_json_kv_bool(j, "flagged", (c->flags & SB_SELFCHECK_GENERATOR_BOUND) != 0);
    sb_json_kv_double(j, "worker_cpu_pct", c->worker_cpu_pct);
    sb_json_kv_double(j, "worker_busy_pct", c->worker_busy_pct);
    sb_json_kv_bool(j, "cpu_bound", c->cpu_bound);
    sb_json_kv_double(j, "period_ms", c->period_ms);
    sb_json_kv_double(j, "lag_p99_ms", c->lag_p99_ms);
    sb_json_kv_double(j, "lag_pct_of_period", c->lag_pct_of_period);
    sb_json_kv_bool(j, "lag_bound", c->lag_bound);
    sb_json_kv_double(j, "achieved_pct", c->achieved_pct);
    sb_json_kv_bool(j, "rate_short", c->rate_short);
    sb_json_end_object(j);
    json_trend(j, &c->trend, tps, ntps, sample_s);
    sb_json_key(j, "errors");
    sb_json_begin_object(j);
    sb_json_kv_bool(j, "flagged", (c->flags & SB_SELFCHECK_ERROR_DOMINATED) != 0);
    sb_json_kv_double(j, "ignored_pct", c->error_pct);
    sb_json_end_object(j);
    sb_json_key(j, "thresholds");
    sb_json_begin_object(j);
    sb_json_kv_double(j, "worker_busy_pct", 100 * SB_SELFCHECK_CPU_SHARE);
    sb_json_kv_double(j, "lag_pct_of_period", 100 * SB_SELFCHECK_LAG_SHARE);
    sb_json_kv_double(j, "achieved_pct", 100 * SB_SELFCHECK_RATE_SHARE);
    sb_json_kv_double(j, "change_pct", 100 * SB_SELFCHECK_MIN_CHANGE);
    sb_json_kv_uint(j, "min_samples", SB_SELFCHECK_MIN_INTERVALS);
    sb_json_kv_double(j, "ignored_pct", 100 * SB_SELFCHECK_ERROR_SHARE);
    sb_json_end_object(j);
    sb_json_end_object(j);
}
