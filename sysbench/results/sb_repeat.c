/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Summaries of repeated runs; see sb_repeat.h.
 */
#include "config.h"

#include "results/sb_repeat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pure/sb_histogram.h"
#include "results/sb_result_writer.h"

/* Which figure of a run. */
enum fig_kind { FIG_TPS, FIG_QPS, FIG_LATENCY, FIG_CPU_CLIENT, FIG_CPU_SERVER, FIG_CPU_MACHINE };

/* The figure of run p; NaN when the run is incomplete or the figure was
 * not measured. pct is the percentile of FIG_LATENCY. */
static double figure(const struct sb_point_result *p, enum fig_kind k, double pct)
{
    /* A run that measured no time has no rates (the model says 0). */
    if (!sb_point_result_complete(p) || !(p->time_s > 0))
        return NAN;
    switch (k) {
    case FIG_TPS:
        return sb_point_result_tps(p);
    case FIG_QPS:
        return sb_point_result_qps(p);
    case FIG_LATENCY:
        return sb_point_result_pct_ms(p, pct);
    case FIG_CPU_CLIENT:
        return sb_point_result_cpu_us(p, SB_POINT_RESULT_CLIENT);
    case FIG_CPU_SERVER:
        return sb_point_result_cpu_us(p, SB_POINT_RESULT_SERVER);
    case FIG_CPU_MACHINE:
        return sb_point_result_cpu_us(p, SB_POINT_RESULT_MACHINE);
    }
    return NAN;
}

size_t sb_repeat_group_end(const struct sb_result_writer *o, size_t first)
{
    size_t i = first + 1;

    while (i < o->npoints && o->points[i].cfg.repeat > o->points[i - 1].cfg.repeat &&
           o->points[i].cfg.threads == o->points[first].cfg.threads &&
           o->points[i].cfg.target_tps == o->points[first].cfg.target_tps)
        i++;
    return i;
}

void sb_repeat_summarize(const double *x, size_t n, bool percentile, struct sb_ci_summary *s)
{
    sb_ci_summarize_log(x, n, s);
    /* A percentile is the upper bound of its histogram bucket: the true
     * value lies up to a bucket width (2^-7 of it) below. */
    if (percentile)
        s->lo /= 1 + 1.0 / (double)(1u << SB_HIST_SUB_BITS);
}

static void summarize(const struct sb_result_writer *o, size_t first, size_t end, enum fig_kind k,
                      double pct, struct sb_ci_summary *s)
{
    double *v = malloc((end > first ? end - first : 1) * sizeof(*v));
    size_t n = 0;

    for (size_t i = first; i < end && v != NULL; i++)
        v[n++] = figure(&o->points[i], k, pct);
    sb_repeat_summarize(v, n, k == FIG_LATENCY, s);
    free(v);
}

static size_t complete_runs(const struct sb_result_writer *o, size_t first, size_t end)
{
    size_t n = 0;

    for (size_t i = first; i < end; i++)
        n += o->points[i].total != NULL;
    return n;
}

/* The percentiles a summary shows, ascending: every --percentile (95
 * when none was given) and the 99th, which each run's result line shows
 * too: a figure on the runs' lines is never missing from their summary.
 * Returns the number written to pcts (room for SB_MAX_PERCENTILES + 1). */
static size_t summary_pcts(const struct sb_result_writer *o, double *pcts)
{
    size_t n = 0;

    for (size_t i = 0; i < o->npcts; i++)
        pcts[n++] = o->pcts[i];
    pcts[n++] = 99;
    /* Insertion sort with duplicates dropped: a handful of values. */
    for (size_t i = 1, k; i < n; i++) {
        double v = pcts[i];
        for (k = i; k > 0 && pcts[k - 1] > v; k--)
            pcts[k] = pcts[k - 1];
        pcts[k] = v;
    }
    for (size_t i = 1; i < n;)
        if (pcts[i] == pcts[i - 1])
            memmove(&pcts[i], &pcts[i + 1], (--n - i) * sizeof(*pcts));
        else
            i++;
    return n;
}

static void print_row(FILE *out, const char *name, const struct sb_ci_summary *s)
{
    if (s->n == 0) {
        fprintf(out, "    %-22s %12s\n", name, "n/a");
        return;
    }
    fprintf(out, "    %-22s %12.3f  [%.3f, %.3f]", name, isnan(s->gmean) ? s->mean : s->gmean,
            s->min, s->max);
    if (!isnan(s->lo))
        fprintf(out, "  %.3f .. %.3f (-%.1f%%, +%.1f%%)", s->lo, s->hi,
                100 * (1 - s->lo / s->gmean), 100 * (s->hi / s->gmean - 1));
    fputc('\n', out);
}

void sb_repeat_print_group(const struct sb_result_writer *o, size_t first, FILE *out)
{
    size_t end = sb_repeat_group_end(o, first), n = complete_runs(o, first, end);
    const struct sb_point_result *p = &o->points[first];
    struct sb_ci_summary s;
    char name[64];
    double pcts[SB_MAX_PERCENTILES + 1];
    size_t npcts = summary_pcts(o, pcts);

    if (n < 2)
        return;
    fprintf(out, "\nRepeat summary: %zu runs of %u thread%s", n, p->cfg.threads,
            p->cfg.threads == 1 ? "" : "s");
    if (p->cfg.mode != SB_PACE_NONE)
        fprintf(out, " at %g tx/s", p->cfg.target_tps);
    fprintf(out, " (geometric mean  [min, max]  its 95%% CI):\n");
    summarize(o, first, end, FIG_TPS, 0, &s);
    print_row(out, "tps", &s);
    summarize(o, first, end, FIG_QPS, 0, &s);
    print_row(out, "qps", &s);
    for (size_t i = 0; i < npcts; i++) {
        snprintf(name, sizeof(name), "p%g latency (ms)", pcts[i]);
        summarize(o, first, end, FIG_LATENCY, pcts[i], &s);
        print_row(out, name, &s);
    }
    summarize(o, first, end, FIG_CPU_CLIENT, 0, &s);
    print_row(out, "cpu client (us/tx)", &s);
    summarize(o, first, end, FIG_CPU_SERVER, 0, &s);
    print_row(out, "cpu server (us/tx)", &s);
    summarize(o, first, end, FIG_CPU_MACHINE, 0, &s);
    print_row(out, "cpu machine (us/tx)", &s);
    fputc('\n', out);
    fflush(out);
}

static void json_summary(struct sb_json *j, const char *key, const struct sb_ci_summary *s)
{
    if (key != NULL)
        sb_json_key(j, key);
    sb_json_begin_object(j);
    sb_json_kv_uint(j, "n", s->n);
    sb_json_kv_double(j, "median", s->median);
    sb_json_kv_double(j, "min", s->min);
    sb_json_kv_double(j, "max", s->max);
    sb_json_kv_double(j, "mean", s->mean);
    sb_json_kv_double(j, "geomean", s->gmean);
    sb_json_kv_double(j, "ci95_low", s->lo);
    sb_json_kv_double(j, "ci95_high", s->hi);
    sb_json_end_object(j);
}

static void json_group(struct sb_json *j, const struct sb_result_writer *o, size_t first, size_t end)
{
    const struct sb_point_result *p = &o->points[first];
    struct sb_ci_summary s;
    char name[32];
    double pcts[SB_MAX_PERCENTILES + 1];
    size_t npcts = summary_pcts(o, pcts);

    sb_json_begin_object(j);
    sb_json_kv_uint(j, "threads", p->cfg.threads);
    sb_json_kv_double(j, "target_tps", p->cfg.mode != SB_PACE_NONE ? p->cfg.target_tps : NAN);
    sb_json_key(j, "points");
    sb_json_begin_array_inline(j);
    for (size_t i = first; i < end; i++)
        sb_json_uint(j, i + 1);
    sb_json_end_array(j);
    summarize(o, first, end, FIG_TPS, 0, &s);
    json_summary(j, "tps", &s);
    summarize(o, first, end, FIG_QPS, 0, &s);
    json_summary(j, "qps", &s);
    sb_json_key(j, "latency_ms");
    sb_json_begin_object(j);
    for (size_t i = 0; i < npcts; i++) {
        snprintf(name, sizeof(name), "%g", pcts[i]);
        summarize(o, first, end, FIG_LATENCY, pcts[i], &s);
        json_summary(j, name, &s);
    }
    sb_json_end_object(j);
    sb_json_key(j, "cpu_us_per_tx");
    sb_json_begin_object(j);
    summarize(o, first, end, FIG_CPU_CLIENT, 0, &s);
    json_summary(j, "client", &s);
    summarize(o, first, end, FIG_CPU_SERVER, 0, &s);
    json_summary(j, "server", &s);
    summarize(o, first, end, FIG_CPU_MACHINE, 0, &s);
    json_summary(j, "machine", &s);
    sb_json_end_object(j);
    sb_json_end_object(j);
}

void sb_repeat_json(struct sb_json *j, const struct sb_result_writer *o)
{
    sb_json_key(j, "repeat_summary");
    sb_json_begin_array(j);
    for (size_t i = 0; i < o->npoints;) {
        size_t end = sb_repeat_group_end(o, i);
        if (complete_runs(o, i, end) >= 2)
            json_group(j, o, i, end);
        i = end;
    }
    sb_json_end_array(j);
}
