/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The charts of the points (--plot): throughput, relative throughput, CPU
 * per transaction, and response time against throughput; see
 * sb_plot_chart.h. The figures come from sb_plot_fig, so each chart
 * draws what the table beside it prints, and each says what it draws in
 * its note.
 */
#include "config.h"

#include "plot/sb_plot_chart.h"
#include "plot/sb_gnuplot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The legends of the results: N, LABEL[N] (sb_plot_series_name). */
static void series_names(struct sb_plot_charts *pl)
{
    char name[256];

    sb_gnuplot_set_num(pl->job, "N", (double)pl->n);
    sb_gnuplot_array(pl->job, "LABEL", pl->n);
    for (size_t r = 0; r < pl->n; r++) {
        sb_plot_series_name(pl, r, name, sizeof(name));
        sb_gnuplot_set_str_at(pl->job, "LABEL", r + 1, name);
    }
}

/* The x of result r at key k: on a point axis the results of one point
 * stand side by side around it (their whiskers would hide each other);
 * on a rate axis, a small step of the axis apart. */
static double dodged_x(const struct sb_plot_charts *pl, size_t r, size_t k)
{
    double step, x = sb_plot_key_x(pl, k);

    if (pl->n < 2)
        return x;
    if (pl->xnum)
        step = 0.006 * (pl->xhi - pl->xlo);
    else
        step = fmin(0.12, 0.6 / (double)(pl->n - 1));
    return x + step * ((double)r - (double)(pl->n - 1) / 2);
}

/* Writes v, lo, hi, flagged runs and runs of fig to d. */
static void fig_columns(FILE *d, const struct sb_plot_fig *fg)
{
    sb_plot_gp_num(d, fg->v);
    sb_plot_gp_num(d, fg->lo);
    sb_plot_gp_num(d, fg->hi);
    fprintf(d, " %zu %zu", fg->flagged, fg->runs);
}

/* Whether some point of the charts has flagged runs (FLAGGED: a legend
 * entry for the mark). */
static bool any_flagged(const struct sb_plot_charts *pl)
{
    struct sb_plot_fig fg;

    for (size_t r = 0; r < pl->n; r++)
        for (size_t k = 0; k < pl->g->nkeys; k++) {
            sb_plot_fig(pl, r, k, SB_POINT_RESULT_TPS, 0, &fg);
            if (fg.flagged > 0)
                return true;
        }
    return false;
}

/* The note of the value charts: what the values are, and the mark of
 * flagged runs. */
static void value_note(struct sb_plot_charts *pl, char *buf, size_t len)
{
    char runs[160];

    sb_plot_runs_note(pl, runs, sizeof(runs));
    if (pl->marks != NULL && pl->xnum)
        snprintf(buf, len, "as the find-max curve: the median of each rate's runs; whiskers: "
                 "the lowest to the highest run");
    else
        snprintf(buf, len, "%s%s%s", pl->tables != NULL ? "as compare's table: " : "", runs,
                 pl->grouped ? "; a rate measured twice: the median of its runs" : "");
}

/* A sweep of target rates at one thread count: throughput-rates.gp. */
static void chart_throughput_rates(struct sb_plot_charts *pl)
{
    struct sb_gnuplot_job *j = pl->job;
    struct sb_plot_fig fg;
    char name[32], note[512];

    for (size_t r = 0; r < pl->n; r++) {
        FILE *d;
        snprintf(name, sizeof(name), "tr%zu.dat", r + 1);
        d = sb_gnuplot_data(j, name);
        for (size_t i = 0, n; d != NULL && i < pl->g->nkeys; i += n) {
            size_t k = pl->order[i];
            n = sb_plot_group_len(pl, i);
            sb_plot_group_fig(pl, r, i, n, SB_POINT_RESULT_TPS, 0, &fg);
            if (!sb_pace_rated(pl->g->keys[k].rate_mode) || isnan(fg.v))
                continue;
            sb_plot_gp_num(d, dodged_x(pl, r, k));
            fig_columns(d, &fg);
            fputc('\n', d);
        }
        sb_gnuplot_data_close(j, d);
    }
    value_note(pl, note, sizeof(note));
    sb_plot_begin_chart(pl, 0, 1000, 640, "Throughput by target rate", note);
    series_names(pl);
    sb_plot_rate_range(pl);
    sb_gnuplot_set_str(j, "YLABEL", "transactions per second");
    sb_gnuplot_set_num(j, "FLAGGED", any_flagged(pl));
    /* Each result's closed-loop throughput, its first closed-loop point. */
    sb_gnuplot_array(j, "CLOSED", pl->n);
    for (size_t r = 0; r < pl->n; r++) {
        double closed = NAN;
        for (size_t k = 0; k < pl->g->nkeys && isnan(closed); k++)
            if (sb_plot_cell(pl, r, k) != NULL && !sb_pace_rated(pl->g->keys[k].rate_mode)) {
                sb_plot_fig(pl, r, k, SB_POINT_RESULT_TPS, 0, &fg);
                closed = fg.v;
            }
        sb_gnuplot_set_num_at(j, "CLOSED", r + 1, closed);
    }
    sb_gnuplot_template(j, "throughput-rates.gp");
}

/* Throughput by point: the value of each result at each point, with the
 * 95% interval of its runs as whiskers, results side by side. */
void sb_plot_chart_throughput(struct sb_plot_charts *pl)
{
    struct sb_plot_fig fg;
    char name[32], note[512];

    if (pl->xnum) {
        chart_throughput_rates(pl);
        return;
    }
    for (size_t r = 0; r < pl->n; r++) {
        FILE *d;
        snprintf(name, sizeof(name), "tps%zu.dat", r + 1);
        d = sb_gnuplot_data(pl->job, name);
        for (size_t k = 0; d != NULL && k < pl->g->nkeys; k++) {
            sb_plot_fig(pl, r, k, SB_POINT_RESULT_TPS, 0, &fg);
            sb_plot_gp_num(d, dodged_x(pl, r, k));
            fig_columns(d, &fg);
            fputc('\n', d);
        }
        sb_gnuplot_data_close(pl->job, d);
    }
    value_note(pl, note, sizeof(note));
    sb_plot_begin_chart(pl, 0, 1000, 640, pl->g->rates_vary && !pl->g->threads_vary ?
                "Throughput by target rate" : "Throughput by threads", note);
    sb_plot_key_axis(pl);
    series_names(pl);
    sb_gnuplot_set_str(pl->job, "YLABEL", "transactions per second");
    sb_gnuplot_set_num(pl->job, "FLAGGED", any_flagged(pl));
    sb_gnuplot_template(pl->job, "throughput.gp");
}

/* The percentiles of the latency against throughput chart: compare's
 * lowest and highest latency tables, else p50 and p99. */
static void lt_percentiles(const struct sb_plot_charts *pl, double *pa, double *pb)
{
    *pa = 50;
    *pb = 99;
    if (pl->tables == NULL)
        return;
    *pa = INFINITY;
    *pb = -INFINITY;
    for (size_t t = 0; t < pl->tables->ntables; t++)
        if (pl->tables->tables[t].fig == SB_POINT_RESULT_LATENCY) {
            *pa = fmin(*pa, pl->tables->tables[t].pct);
            *pb = fmax(*pb, pl->tables->tables[t].pct);
        }
    if (isinf(*pa)) {
        *pa = 50;
        *pb = 99;
    }
}

/* lt<r>.dat: per rated point achieved tx/s, pa ms, pb ms, flagged runs;
 * widens the axes' ends. */
static void lt_file(struct sb_plot_charts *pl, size_t r, double pa, double pb, double *lo,
                    double *hi, double *xlo, double *xhi)
{
    struct sb_plot_fig tps, fa, fb;
    char name[32];
    FILE *d;

    snprintf(name, sizeof(name), "lt%zu.dat", r + 1);
    d = sb_gnuplot_data(pl->job, name);
    for (size_t i = 0, n; d != NULL && i < pl->g->nkeys; i += n) {
        n = sb_plot_group_len(pl, i);
        sb_plot_group_fig(pl, r, i, n, SB_POINT_RESULT_TPS, 0, &tps);
        if (!sb_pace_rated(pl->g->keys[pl->order[i]].rate_mode) || isnan(tps.v))
            continue;
        sb_plot_group_fig(pl, r, i, n, SB_POINT_RESULT_LATENCY, pa, &fa);
        sb_plot_group_fig(pl, r, i, n, SB_POINT_RESULT_LATENCY, pb, &fb);
        sb_plot_gp_num(d, tps.v);
        sb_plot_gp_num(d, fa.v);
        sb_plot_gp_num(d, fb.v);
        fprintf(d, " %zu\n", tps.flagged);
        *xlo = fmin(*xlo, tps.v);
        *xhi = fmax(*xhi, tps.v);
        for (int q = 0; q < 2; q++) {
            double v = q ? fb.v : fa.v;
            if (v > 0 && !isinf(v)) {
                *lo = fmin(*lo, v);
                *hi = fmax(*hi, v);
            }
        }
    }
    sb_gnuplot_data_close(pl->job, d);
}

/* Response time against achieved throughput over the rated points (a
 * --tx-rate sweep, a --find-max search), with the SLA and the rate a
 * --find-max search found. */
void sb_plot_chart_latency_throughput(struct sb_plot_charts *pl)
{
    struct sb_gnuplot_job *j = pl->job;
    const struct sb_plot_marks *m = pl->marks;
    double lo = INFINITY, hi = 0, xlo = INFINITY, xhi = 0, pa, pb;
    char note[512];

    lt_percentiles(pl, &pa, &pb);
    for (size_t r = 0; r < pl->n; r++)
        lt_file(pl, r, pa, pb, &lo, &hi, &xlo, &xhi);
    value_note(pl, note, sizeof(note));
    sb_plot_begin_chart(pl, SB_PLOT_NCHARTS, 1000, 640, "Response time against throughput", note);
    series_names(pl);
    sb_gnuplot_set_num(j, "PA", pa);
    sb_gnuplot_set_num(j, "PB", pb);
    sb_gnuplot_set_num(j, "FLAGGED", any_flagged(pl));
    /* The rate held is marked inside the axis, not on its edge. */
    if (m != NULL && m->rate_held > 0) {
        xlo = fmin(xlo, m->rate_held);
        xhi = fmax(xhi, m->rate_held);
    }
    if (m != NULL && m->sla_ms > 0) {
        lo = fmin(lo, m->sla_ms);
        hi = fmax(hi, m->sla_ms);
    }
    /* More than two decades apart: a linear axis would flatten the low
     * latencies onto zero. */
    sb_gnuplot_set_num(j, "LOGY", hi > 100 * lo);
    sb_plot_x_range(j, xlo, xhi);
    sb_gnuplot_set_num(j, "SLA_PCT", m != NULL ? m->sla_pct : NAN);
    sb_gnuplot_set_num(j, "SLA_MS", m != NULL && m->sla_ms > 0 ? m->sla_ms : NAN);
    sb_gnuplot_set_num(j, "HELD", m != NULL && m->rate_held > 0 ? m->rate_held : NAN);
    /* The label of the rate held goes on the side of its line with more
     * room. */
    sb_gnuplot_set_num(j, "HELD_RIGHT", m != NULL && m->rate_held > (xlo + xhi) / 2);
    sb_gnuplot_template(j, "latency-throughput.gp");
}

/*
 * The y ticks of the relative chart for ratios in [lo, hi] (1.0 among
 * them): a round step giving about six ticks over the range and the
 * margins, and just enough decimals to tell every tick apart (a fixed
 * '%.2f' wrote 1.01x 1.01x 1.00x for ticks 0.0025 apart).
 */
static void ratio_ticks(double lo, double hi, double *step, int *decimals)
{
    double span = hi > lo ? (hi - lo) * 1.24 : 0.1;
    double raw = span / 6, mag = pow(10, floor(log10(raw))), f = raw / mag;
    double m = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
    int k = (int)floor(log10(raw));

    if (m == 10) {
        m = 1;
        k++;
    }
    *step = m * pow(10, k);
    *decimals = (m == 2.5 ? 1 : 0) - k;
    if (*decimals < 0)
        *decimals = 0;
}

/* The ratio of result r at the keys from position i of the order against
 * the reference: compare's ratio, interval and verdict when it judged,
 * else the ratio of the values (to the first point for one result). */
static void ratio_at(const struct sb_plot_charts *pl, size_t r, size_t i, size_t n,
                     struct sb_plot_fig *out)
{
    struct sb_plot_fig base;

    sb_plot_group_fig(pl, r, i, n, SB_POINT_RESULT_TPS, 0, out);
    if (pl->tables != NULL && n == 1)
        return;
    if (pl->n == 1)
        sb_plot_fig(pl, 0, 0, SB_POINT_RESULT_TPS, 0, &base);
    else
        sb_plot_group_fig(pl, 0, i, n, SB_POINT_RESULT_TPS, 0, &base);
    out->ratio = base.v > 0 ? out->v / base.v : NAN;
    out->rlo = out->rhi = NAN;
    out->verdict = NULL;
}

/* rel<r>.dat for the results drawn: x, ratio, interval, the label beside
 * the point and its height. Widens [*lo, *hi]. */
static void rel_files(struct sb_plot_charts *pl, size_t from, double *lo, double *hi)
{
    struct sb_plot_fig fg;
    char name[32];

    for (size_t r = from; r < pl->n; r++) {
        FILE *d;
        snprintf(name, sizeof(name), "rel%zu.dat", r + 1);
        d = sb_gnuplot_data(pl->job, name);
        for (size_t i = 0, n; d != NULL && i < pl->g->nkeys; i += n) {
            size_t k = pl->order[i];
            n = sb_plot_group_len(pl, i);
            if (!sb_plot_on_axis(pl, k))
                continue;
            ratio_at(pl, r, i, n, &fg);
            sb_plot_gp_num(d, pl->n > 2 ? dodged_x(pl, r, k) : sb_plot_key_x(pl, k));
            sb_plot_gp_num(d, fg.ratio);
            sb_plot_gp_num(d, fg.rlo);
            sb_plot_gp_num(d, fg.rhi);
            sb_plot_gp_num(d, isnan(fg.rhi) ? fg.ratio : fg.rhi);
            /* The label as the table prints the ratio. */
            if (isnan(fg.ratio))
                fprintf(d, " \"\"\n");
            else if (fg.verdict != NULL)
                fprintf(d, " \"%.3fx %s\"\n", fg.ratio, fg.verdict);
            else
                fprintf(d, " \"%.2fx\"\n", fg.ratio);
            for (int q = 0; q < 3; q++) {
                double v = q == 0 ? fg.ratio : q == 1 ? fg.rlo : fg.rhi;
                if (v > 0 && !isinf(v)) {
                    *lo = fmin(*lo, v);
                    *hi = fmax(*hi, v);
                }
            }
        }
        sb_gnuplot_data_close(pl->job, d);
    }
}

/* The note of the relative chart: what the ratio is and its interval. */
static void relative_note(const struct sb_plot_charts *pl, char *buf, size_t len)
{
    char runs[160];
    size_t r = pl->n > 1 ? 1 : 0;

    sb_plot_runs_note(pl, runs, sizeof(runs));
    if (pl->tables != NULL && pl->n == 2 && pl->tables->judged[1] > 0)
        snprintf(buf, len, "ratio of geometric means and its %.4g%% interval as compare's table "
                 "(all %zu figures judged hold together at 95%%), verdict beside each point",
                 100 * pl->tables->level[1], pl->tables->judged[1]);
    else if (pl->tables != NULL && pl->tables->judged[r] > 0)
        snprintf(buf, len, "ratios, intervals and verdicts as compare's table (intervals "
                 "holding together at 95%% per file)");
    else if (pl->tables != NULL)
        snprintf(buf, len, "ratios as compare's table; no interval or verdict: single runs "
                 "show no run-to-run variation");
    else
        snprintf(buf, len, "ratio of the values (%s)", runs);
}

/*
 * Throughput relative to the first result at the same point; with one
 * result, relative to its first point, which shows how the sweep scales.
 */
void sb_plot_chart_relative(struct sb_plot_charts *pl)
{
    struct sb_gnuplot_job *j = pl->job;
    bool single = pl->n == 1;
    char title[320], first[128], ref[256], note[512];
    double lo = 1, hi = 1, step;
    int decimals;

    rel_files(pl, single ? 0 : 1, &lo, &hi);
    relative_note(pl, note, sizeof(note));
    sb_plot_series_name(pl, 0, ref, sizeof(ref));
    if (single) {
        sb_plot_key_title(pl, 0, first, sizeof(first));
        snprintf(title, sizeof(title), "Throughput relative to %s", first);
    } else {
        snprintf(title, sizeof(title), "Throughput relative to %s", pl->res[0].label);
    }
    sb_plot_begin_chart(pl, 1, 1000, 640, title, note);
    sb_plot_key_axis(pl);
    series_names(pl);
    sb_gnuplot_set_num(j, "FROM", single ? 1 : 2);
    sb_gnuplot_set_str(j, "REFTITLE", single ? "" : ref);
    if (single)
        snprintf(title, sizeof(title), "throughput / throughput at %s", first);
    else
        snprintf(title, sizeof(title), "throughput / throughput of %s", pl->res[0].label);
    sb_gnuplot_set_str(j, "YLABEL", title);
    /* The ratios written next to the points, as in a report table; with
     * many lines they would overlap, so only for a few. */
    sb_gnuplot_set_num(j, "PTLABELS", pl->n <= 4);
    /* Intervals a decade wide or more (a few noisy runs) on a linear
     * axis would flatten every ratio onto one line. */
    sb_gnuplot_set_num(j, "LOGY", hi > 10 * lo);
    ratio_ticks(lo, hi, &step, &decimals);
    sb_gnuplot_set_num(j, "YSTEP", step);
    sb_gnuplot_set_num(j, "YDEC", decimals);
    sb_gnuplot_template(j, "relative.gp");
}

/* The user share of side s's CPU (0 client, 1 server) over the runs of
 * result r at the keys from position i of the order: user over user plus
 * system, summed over the runs. NaN when not measured. */
static double user_share(const struct sb_plot_charts *pl, size_t r, size_t i, size_t n, int s)
{
    const struct sb_point_result *runs[1024];
    double user = 0, total = 0;

    for (size_t q = 0; q < n; q++) {
        size_t m = sb_plot_runs(sb_plot_cell(pl, r, pl->order[i + q]), runs, 1024);
        for (size_t x = 0; x < m; x++) {
            const struct sb_cpu_figures *c = s ? &runs[x]->cpu.server : &runs[x]->cpu.client;
            if (!c->measured || isnan(c->user_us_per_tx) || isnan(c->system_us_per_tx))
                continue;
            user += c->user_us_per_tx;
            total += c->user_us_per_tx + c->system_us_per_tx;
        }
    }
    return total > 0 ? user / total : NAN;
}

/* The CPU data files: cpu<j>.dat per result and side measured, per point
 * its x (bar centre on a point axis), user part, total, the total's
 * interval and the flagged runs. */
static void cpu_files(struct sb_plot_charts *pl, const bool has[2], size_t nbars, double w)
{
    const char *side_name[2] = {"client", "server"};
    char name[320], series[256];
    struct sb_plot_fig fg;
    size_t j = 0;

    sb_gnuplot_array(pl->job, "BLABEL", nbars);
    for (size_t r = 0; r < pl->n; r++) {
        for (int s = 0; s < 2; s++) {
            FILE *d;
            if (!has[s])
                continue;
            snprintf(name, sizeof(name), "cpu%zu.dat", ++j);
            d = sb_gnuplot_data(pl->job, name);
            for (size_t i = 0, n; d != NULL && i < pl->g->nkeys; i += n) {
                size_t k = pl->order[i];
                n = sb_plot_group_len(pl, i);
                if (!sb_plot_on_axis(pl, k))
                    continue;
                sb_plot_group_fig(pl, r, i, n, s ? SB_POINT_RESULT_CPU_SERVER
                                                 : SB_POINT_RESULT_CPU_CLIENT, 0, &fg);
                sb_plot_gp_num(d, pl->xnum ? sb_plot_key_x(pl, k)
                                           : (double)k - 0.4 + w * ((double)(j - 1) + 0.5));
                sb_plot_gp_num(d, fg.v * user_share(pl, r, i, n, s));
                fig_columns(d, &fg);
                fputc('\n', d);
            }
            sb_gnuplot_data_close(pl->job, d);
            sb_plot_series_name(pl, r, series, sizeof(series));
            snprintf(name, sizeof(name), "%s %s", series, side_name[s]);
            sb_gnuplot_set_str_at(pl->job, "BLABEL", j, name);
        }
    }
}

/*
 * CPU microseconds per transaction: bars per point, one per result and
 * side (client, server), or lines on a rate axis. Sides no file measured
 * are left out.
 */
void sb_plot_chart_cpu(struct sb_plot_charts *pl)
{
    bool has[2] = {false, false};
    size_t nbars;
    double w;
    char note[512];

    for (size_t r = 0; r < pl->n; r++)
        for (size_t k = 0; k < pl->g->nkeys; k++) {
            const struct sb_point_result *p = sb_plot_cell(pl, r, k);
            /* A side that was not measured has NaN figures. */
            if (p && !isnan(sb_point_result_cpu_us(p, SB_POINT_RESULT_CLIENT)))
                has[0] = true;
            if (p && !isnan(sb_point_result_cpu_us(p, SB_POINT_RESULT_SERVER)))
                has[1] = true;
        }
    nbars = pl->n * ((size_t)has[0] + (size_t)has[1]);
    w = nbars > 0 ? 0.8 / (double)nbars : 0.8;
    value_note(pl, note, sizeof(note));
    strncat(note, "; user and system in the runs' proportion", sizeof(note) - strlen(note) - 1);
    sb_plot_begin_chart(pl, 2, 1000, 640, "CPU per transaction (user + system)", note);
    sb_gnuplot_set_num(pl->job, "NOCPU", nbars == 0);
    sb_gnuplot_set_num(pl->job, "NB", (double)nbars);
    sb_gnuplot_set_num(pl->job, "BOXW", w * 0.92);
    sb_gnuplot_set_num(pl->job, "BARLABELS", nbars * pl->g->nkeys <= 24);
    sb_gnuplot_set_num(pl->job, "FLAGGED", any_flagged(pl));
    sb_plot_key_axis(pl);
    cpu_files(pl, has, nbars, w);
    sb_gnuplot_template(pl->job, "cpu.gp");
}
