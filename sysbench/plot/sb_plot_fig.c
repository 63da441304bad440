/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The figures the charts draw and how their legends name them; see
 * sb_plot_fig in sb_plot_chart.h.
 *
 * A chart draws what the text beside it prints: compare's table when
 * compare draws (its values, ratios, intervals and verdicts, handed over
 * as they were printed), else the run's own report (the Repeat summary's
 * geometric mean and interval, a single run's own figure). Nothing here
 * takes a median of runs.
 */
#include "config.h"

#include "plot/sb_plot_chart.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "results/sb_repeat.h"

/* Most runs of one point read (a --repeat group is far smaller). */
#define MAX_RUNS 1024

size_t sb_plot_runs(const struct sb_point_result *p, const struct sb_point_result **runs,
                    size_t max)
{
    size_t n = 0;

    if (p == NULL || max == 0)
        return 0;
    if (p->nreps == 0) {
        runs[n++] = p;
        return n;
    }
    for (size_t i = 0; i < p->nreps && n < max; i++)
        runs[n++] = p->reps[i];
    return n;
}

bool sb_plot_run_flagged(const struct sb_plot_charts *pl, size_t r,
                         const struct sb_point_result *p)
{
    const struct sb_result_file *f = &pl->res[r];

    if (f->flagged == NULL || p < f->points || p >= f->points + f->npoints)
        return false;
    return f->flagged[p - f->points];
}

/* Compare's table of figure f (percentile pct), or NULL. */
static const struct sb_plot_table *table_of(const struct sb_plot_charts *pl,
                                            enum sb_point_result_fig f, double pct)
{
    if (pl->tables == NULL)
        return NULL;
    for (size_t t = 0; t < pl->tables->ntables; t++) {
        const struct sb_plot_table *tb = &pl->tables->tables[t];
        if (tb->fig == f && (f != SB_POINT_RESULT_LATENCY || fabs(tb->pct - pct) < 1e-9))
            return tb;
    }
    return NULL;
}

void sb_plot_fig(const struct sb_plot_charts *pl, size_t r, size_t k,
                 enum sb_point_result_fig f, double pct, struct sb_plot_fig *out)
{
    const struct sb_point_result *p = sb_plot_cell(pl, r, k), *runs[MAX_RUNS];
    const struct sb_plot_table *tb = table_of(pl, f, pct);
    size_t n = sb_plot_runs(p, runs, MAX_RUNS);
    double x[MAX_RUNS];
    struct sb_ci_summary s;

    memset(out, 0, sizeof(*out));
    out->v = out->lo = out->hi = out->ratio = out->rlo = out->rhi = NAN;
    for (size_t i = 0; i < n; i++) {
        x[i] = sb_point_result_fig(runs[i], f, pct);
        out->runs += !isnan(x[i]);
        out->flagged += sb_plot_run_flagged(pl, r, runs[i]);
    }
    if (out->runs >= 2) {
        sb_repeat_summarize(x, n, f == SB_POINT_RESULT_LATENCY, &s);
        out->v = isnan(s.gmean) ? s.mean : s.gmean;
        out->lo = s.lo;
        out->hi = s.hi;
    } else {
        for (size_t i = 0; i < n; i++)
            if (!isnan(x[i]))
                out->v = x[i];
    }
    if (tb != NULL) {
        const struct sb_plot_cell *c = &tb->cells[r * pl->g->nkeys + k];
        out->v = c->value;
        out->ratio = c->ratio;
        out->rlo = c->lo;
        out->rhi = c->hi;
        out->verdict = c->verdict;
    }
}

void sb_plot_series_name(const struct sb_plot_charts *pl, size_t r, char *buf, size_t len)
{
    const struct sb_result_file *f = &pl->res[r];
    const char *script = *f->script ? f->script : "?";

    if (pl->n == 1 && *f->driver)
        snprintf(buf, len, "%s, %s", script, f->driver);
    else if (pl->n == 1)
        snprintf(buf, len, "%s", script);
    else if (*f->driver)
        snprintf(buf, len, "%s: %s, %s", f->label, script, f->driver);
    else
        snprintf(buf, len, "%s: %s", f->label, script);
}

void sb_plot_runs_range(const struct sb_plot_charts *pl, size_t *lo, size_t *hi)
{
    const struct sb_point_result *runs[MAX_RUNS];

    *lo = SIZE_MAX;
    *hi = 0;
    for (size_t r = 0; r < pl->n; r++)
        for (size_t k = 0; k < pl->g->nkeys; k++) {
            const struct sb_point_result *p = sb_plot_cell(pl, r, k);
            size_t n;
            if (p == NULL)
                continue;
            n = sb_plot_runs(p, runs, MAX_RUNS);
            *lo = n < *lo ? n : *lo;
            *hi = n > *hi ? n : *hi;
        }
    if (*lo == SIZE_MAX)
        *lo = 0;
}

void sb_plot_runs_note(const struct sb_plot_charts *pl, char *buf, size_t len)
{
    size_t lo, hi;

    sb_plot_runs_range(pl, &lo, &hi);
    if (hi <= 1)
        snprintf(buf, len, "one run per point");
    else if (lo == hi)
        snprintf(buf, len, "geometric mean of %zu runs; whiskers: its 95%% interval", hi);
    else
        snprintf(buf, len, "geometric mean of each point's %zu to %zu runs; whiskers: its 95%% "
                 "interval", lo, hi);
}
