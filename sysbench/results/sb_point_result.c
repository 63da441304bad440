/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The result of one point and the figures derived from it; see
 * sb_point_result.h.
 */
#include "config.h"

#include "results/sb_point_result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pure/sb_histogram.h"
#include "pure/sb_stmt_table.h"

/* Empties the fields of p's final figures that own memory, without
 * freeing it (it has moved elsewhere, or was freed). */
static void forget_final(struct sb_point_result *p)
{
    p->total = NULL;
    p->thread_events = NULL;
    p->thread_busy = NULL;
    p->thread_cpu = NULL;
    p->check_tps = NULL;
    p->types = NULL;
    p->ntypes = 0;
    p->stmts = NULL;
    p->nthread_events = p->nthread_cpu = 0;
    p->ncheck_tps = 0;
}

/* Frees the final figures p owns and empties those fields. */
static void free_final(struct sb_point_result *p)
{
    sb_stats_free(p->total);
    free(p->thread_events);
    free(p->thread_busy);
    free(p->thread_cpu);
    free(p->check_tps);
    for (unsigned i = 0; i < p->ntypes; i++)
        sb_stats_free(p->types[i].stats);
    free(p->types);
    sb_stmt_table_free(p->stmts);
    forget_final(p);
}

void sb_point_result_move_final(struct sb_point_result *dst, struct sb_point_result *src)
{
    free_final(dst);
    dst->total = src->total;
    dst->time_s = src->time_s;
    dst->max_backlog = src->max_backlog;
    dst->interrupted = src->interrupted;
    dst->cpu = src->cpu;
    memcpy(dst->server_label, src->server_label, sizeof(dst->server_label));
    dst->thread_events = src->thread_events;
    dst->thread_busy = src->thread_busy;
    dst->nthread_events = src->nthread_events;
    dst->thread_cpu = src->thread_cpu;
    dst->nthread_cpu = src->nthread_cpu;
    dst->has_selfcheck = src->has_selfcheck;
    dst->selfcheck = src->selfcheck;
    dst->check_tps = src->check_tps;
    dst->ncheck_tps = src->ncheck_tps;
    dst->check_sample_s = src->check_sample_s;
    dst->types = src->types;
    dst->ntypes = src->ntypes;
    dst->stmts = src->stmts;
    /* Everything src owned has moved. */
    forget_final(src);
}

void sb_point_result_free(struct sb_point_result *p)
{
    free_final(p);
    free(p->intervals);
    free(p->reps);
    p->intervals = NULL;
    p->reps = NULL;
    p->nintervals = p->cap = p->nreps = 0;
}

bool sb_point_result_complete(const struct sb_point_result *p)
{
    return p->total != NULL;
}

/* Per second over the point; 0 without time, as the writer stores it. */
static double per_point_s(const struct sb_point_result *p, double n)
{
    return p->time_s > 0 ? n / p->time_s : 0;
}

double sb_point_result_tps(const struct sb_point_result *p)
{
    if (!sb_point_result_complete(p))
        return NAN;
    if (p->read_back)
        return p->file_tps;
    return per_point_s(p, (double)p->total->c[SB_STAT_EVENTS]);
}

double sb_point_result_qps(const struct sb_point_result *p)
{
    if (!sb_point_result_complete(p))
        return NAN;
    if (p->read_back)
        return p->file_qps;
    return per_point_s(p, (double)sb_stats_queries(p->total));
}

double sb_point_result_pct_ms(const struct sb_point_result *p, double pct)
{
    if (!sb_point_result_complete(p))
        return NAN;
    if (p->total->response.total > 0)
        return (double)sb_hist_percentile(&p->total->response, pct) / 1e6;
    /* Without buckets, only a percentile the file stored is known. */
    for (size_t i = 0; i < p->nfile_pcts; i++)
        if (fabs(p->file_pcts[i] - pct) < 1e-9)
            return p->file_pct_ms[i];
    return NAN;
}

double sb_point_result_cpu_us(const struct sb_point_result *p, enum sb_point_result_side side)
{
    const struct sb_cpu_report *c = &p->cpu;

    switch (side) {
    case SB_POINT_RESULT_CLIENT:
        return c->client.measured ? c->client.total_us_per_tx : NAN;
    case SB_POINT_RESULT_SERVER:
        return c->server.measured ? c->server.total_us_per_tx : NAN;
    case SB_POINT_RESULT_MACHINE:
        return c->machine.measured ? c->machine.busy_us_per_tx : NAN;
    }
    return NAN;
}

double sb_point_result_iv_cpu_us(const struct sb_point_result *p, size_t i, enum sb_point_result_side side)
{
    const struct sb_interval *iv = &p->intervals[i];
    double pct = side == SB_POINT_RESULT_CLIENT ? iv->cpu_client_pct
                 : side == SB_POINT_RESULT_SERVER ? iv->cpu_server_pct : NAN;

    /* A share of all CPUs times their number is CPU seconds per second;
     * per transaction and in microseconds that is pct / 100 * 1e6 / tps. */
    if (!(iv->tps > 0) || p->ncpus == 0)
        return NAN;
    return pct * (double)p->ncpus * 1e4 / iv->tps;
}

double sb_point_result_fig(const struct sb_point_result *p, enum sb_point_result_fig f, double pct)
{
    if (!sb_point_result_complete(p))
        return NAN;
    switch (f) {
    case SB_POINT_RESULT_TPS:
        return sb_point_result_tps(p);
    case SB_POINT_RESULT_LATENCY:
        return sb_point_result_pct_ms(p, pct);
    case SB_POINT_RESULT_CPU_CLIENT:
        return sb_point_result_cpu_us(p, SB_POINT_RESULT_CLIENT);
    case SB_POINT_RESULT_CPU_SERVER:
        return sb_point_result_cpu_us(p, SB_POINT_RESULT_SERVER);
    case SB_POINT_RESULT_CPU_MACHINE:
        return sb_point_result_cpu_us(p, SB_POINT_RESULT_MACHINE);
    }
    return NAN;
}

size_t sb_point_result_fig_runs(const struct sb_point_result *p, enum sb_point_result_fig f, double pct,
                          double *out, size_t max)
{
    size_t n = 0;

    if (p->nreps == 0) {
        if (max > 0)
            out[n++] = sb_point_result_fig(p, f, pct);
        return n;
    }
    for (size_t i = 0; i < p->nreps && n < max; i++)
        out[n++] = sb_point_result_fig(p->reps[i], f, pct);
    return n;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double sb_point_result_fig_median(const struct sb_point_result *p, enum sb_point_result_fig f, double pct)
{
    double v[1024];
    size_t n = sb_point_result_fig_runs(p, f, pct, v, 1024), m = 0;

    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            v[m++] = v[i];
    if (m == 0)
        return NAN;
    qsort(v, m, sizeof(v[0]), cmp_dbl);
    return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

/* Index of pct in the point's interval percentiles, or npcts. */
static size_t iv_pct_index(const struct sb_point_result *p, double pct)
{
    size_t j = 0;

    while (j < p->npcts && fabs(p->pcts[j] - pct) > 1e-9)
        j++;
    return j;
}

size_t sb_point_result_fig_intervals(const struct sb_point_result *p, enum sb_point_result_fig f, double pct,
                               double *out, size_t max)
{
    size_t n = p->nintervals < max ? p->nintervals : max;
    size_t j = iv_pct_index(p, pct);

    if (f == SB_POINT_RESULT_CPU_MACHINE || (f == SB_POINT_RESULT_LATENCY && j == p->npcts))
        return 0;
    for (size_t i = 0; i < n; i++) {
        switch (f) {
        case SB_POINT_RESULT_TPS:
            out[i] = p->intervals[i].tps;
            break;
        case SB_POINT_RESULT_CPU_CLIENT:
            out[i] = sb_point_result_iv_cpu_us(p, i, SB_POINT_RESULT_CLIENT);
            break;
        case SB_POINT_RESULT_CPU_SERVER:
            out[i] = sb_point_result_iv_cpu_us(p, i, SB_POINT_RESULT_SERVER);
            break;
        case SB_POINT_RESULT_LATENCY:
            out[i] = p->intervals[i].latency_ms[j];
            break;
        case SB_POINT_RESULT_CPU_MACHINE:
            return 0;
        }
    }
    return n;
}
