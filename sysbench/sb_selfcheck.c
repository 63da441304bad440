/*
 * The run's check of itself; see sb_selfcheck.h.
 */
#include "sb_selfcheck.h"
#include "sb_ci.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double sb_selfcheck_t95(unsigned df)
{
    return df == 0 ? INFINITY : sb_ci_t_quantile(0.975, (double)df);
}

void sb_selfcheck_trend(const double *y, size_t n, double dt, struct sb_trend *out)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, sse = 0, xm, ym, b, a, se;

    memset(out, 0, sizeof(*out));
    out->n = n;
    out->t_crit = n > 2 ? sb_selfcheck_t95((unsigned)(n - 2)) : INFINITY;
    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        sx += (double)i;
        sy += y[i];
    }
    xm = sx / (double)n;
    ym = sy / (double)n;
    out->mean = ym;
    if (n < 3)
        return;
    for (size_t i = 0; i < n; i++) {
        double dx = (double)i - xm;
        sxx += dx * dx;
        sxy += dx * (y[i] - ym);
    }
    b = sxy / sxx;
    a = ym - b * xm;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - (a + b * (double)i);
        sse += r * r;
    }
    se = sqrt(sse / (double)(n - 2) / sxx);
    out->slope = dt > 0 ? b / dt : b;
    /* A perfectly straight series has no error: its trend is certain. */
    out->t = se > 0 ? b / se : b != 0 ? copysign(INFINITY, b) : 0;
    out->change_pct = ym != 0 ? 100.0 * b * (double)(n - 1) / ym : 0;
    out->significant = fabs(out->t) > out->t_crit;
    out->tested = n >= SB_SELFCHECK_MIN_INTERVALS;
    out->flagged = out->tested && out->significant &&
                   fabs(out->change_pct) >= 100.0 * SB_SELFCHECK_MIN_CHANGE;
}

bool sb_selfcheck_error_dominated(uint64_t errors, uint64_t events)
{
    return errors > 0 && (double)errors > SB_SELFCHECK_ERROR_SHARE * (double)events;
}

static void check_generator(const struct sb_selfcheck_in *in, struct sb_selfcheck *out)
{
    /* The OS threads that run the connections (fewer when multiplexed). */
    unsigned nos = in->os_threads > 0 ? in->os_threads : in->threads;
    unsigned cores = nos < in->ncpus ? nos : in->ncpus;

    out->worker_cpu_pct = out->worker_busy_pct = NAN;
    if (in->worker_cpu_s >= 0 && in->wall_s > 0 && cores > 0) {
        out->worker_cpu_pct = 100.0 * in->worker_cpu_s / (in->wall_s * cores);
        out->cpu_bound = out->worker_cpu_pct >= 100.0 * SB_SELFCHECK_CPU_SHARE;
        /* A thread kept off the CPU by other work is as busy as one on it:
         * on a shared machine CPU time alone would miss it. */
        if (in->worker_wait_s >= 0) {
            out->worker_busy_pct = 100.0 * (in->worker_cpu_s + in->worker_wait_s) /
                                   (in->wall_s * nos);
            out->cpu_bound = out->worker_busy_pct >= 100.0 * SB_SELFCHECK_CPU_SHARE;
        }
    }
    out->period_ms = out->lag_p99_ms = out->lag_pct_of_period = out->achieved_pct = NAN;
    if (in->rate_mode != SB_PACE_NONE && in->target_tps > 0) {
        out->period_ms = 1000.0 * in->threads / in->target_tps;
        out->lag_p99_ms = in->lag_p99_s * 1000.0;
        out->lag_pct_of_period = 100.0 * out->lag_p99_ms / out->period_ms;
        out->lag_bound = out->lag_pct_of_period > 100.0 * SB_SELFCHECK_LAG_SHARE;
        out->achieved_pct = 100.0 * in->achieved_tps / in->target_tps;
        out->rate_short = out->achieved_pct < 100.0 * SB_SELFCHECK_RATE_SHARE;
    }
    if (out->cpu_bound || out->lag_bound || out->rate_short)
        out->flags |= SB_SELFCHECK_GENERATOR_BOUND;
}

void sb_selfcheck_eval(const struct sb_selfcheck_in *in, struct sb_selfcheck *out)
{
    memset(out, 0, sizeof(*out));
    check_generator(in, out);
    sb_selfcheck_trend(in->tps, in->tps != NULL ? in->ntps : 0, in->sample_s, &out->trend);
    if (out->trend.flagged)
        out->flags |= SB_SELFCHECK_NOT_STATIONARY;
    out->error_pct = in->events > 0 ? 100.0 * (double)in->errors / (double)in->events
                     : in->errors > 0 ? 100.0 : 0;
    if (sb_selfcheck_error_dominated(in->errors, in->events))
        out->flags |= SB_SELFCHECK_ERROR_DOMINATED;
}

const char *sb_selfcheck_flag_names(unsigned flags, char *buf, size_t len)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{SB_SELFCHECK_GENERATOR_BOUND, "generator-bound"},
                 {SB_SELFCHECK_NOT_STATIONARY, "not stationary"},
                 {SB_SELFCHECK_ERROR_DOMINATED, "error-dominated"}};
    size_t used = 0;

    if (len == 0)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        int n;
        if (!(flags & names[i].bit))
            continue;
        n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", names[i].name);
        if (n < 0 || (size_t)n >= len - used) {
            buf[used] = '\0'; /* only whole names */
            break;
        }
        used += (size_t)n;
    }
    return buf;
}
