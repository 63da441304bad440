/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Charts with gnuplot; see sb_plot.h.
 *
 * One gnuplot script draws every chart: per chart, the variables its
 * template reads, then the template (templates/NAME.gp; see sb_gnuplot.h),
 * with the data in files beside the script. This file decides which
 * charts have something to show and computes their data; the templates
 * hold the drawing. Text is drawn with enhanced mode off (in common.gp):
 * script names such as oltp_read_write would otherwise turn into
 * subscripts.
 */
#include "config.h"

#include "plot/sb_plot.h"
#include "plot/sb_gnuplot.h"
#include "plot/sb_plot_chart.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const chart_names[SB_PLOT_NCHARTS + 1] = {
    "throughput", "relative", "cpu", "latency", "latency-throughput"
};


/* ------------------------------------------------------------ files and names */

/* Splits path into its stem and extension (".png", ".svg", any case).
 * Returns 0, or -1 when the extension is neither. */
static int split_path(const char *path, char *stem, size_t len, const char **ext, bool *svg)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');

    if (dot == NULL || (slash != NULL && dot < slash) || dot == path || dot[-1] == '/' ||
        (strcasecmp(dot, ".png") != 0 && strcasecmp(dot, ".svg") != 0))
        return -1;
    if ((size_t)(dot - path) + 1 > len)
        return -1;
    memcpy(stem, path, (size_t)(dot - path));
    stem[dot - path] = '\0';
    *ext = dot;
    *svg = strcasecmp(dot, ".svg") == 0;
    return 0;
}

int sb_plot_check(const char *path, char *err, size_t errlen)
{
    char stem[PATH_MAX], dir[PATH_MAX], prog[PATH_MAX];
    const char *ext, *slash;
    bool svg;

    if (split_path(path, stem, sizeof(stem), &ext, &svg) != 0) {
        snprintf(err, errlen, "invalid value '%s' for --plot: expected a file name ending in .png or .svg",
                 path);
        return -1;
    }
    slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(dir, sizeof(dir), ".");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) + (slash == path), path);
    if (access(dir, W_OK) != 0) {
        snprintf(err, errlen, "cannot write the --plot charts to '%s': %s", dir, strerror(errno));
        return -1;
    }
    if (sb_plot_find_gnuplot(prog, sizeof(prog)) != 0) {
        snprintf(err, errlen, "--plot needs gnuplot, which was not found (looked for '%s'); "
                 "install it (Debian: apt-get install gnuplot-nox) or set SB_GNUPLOT", prog);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ chart helpers */

/* The complete point of result r at key k, or NULL: a gap in the chart. */
const struct sb_point_result *sb_plot_cell(const struct sb_plot_charts *pl, size_t r, size_t k)
{
    return sb_result_file_grid_cell(pl->g, r, k);
}

/* The script name for titles when every file ran the same one. */
static const char *common_script(const struct sb_plot_charts *pl)
{
    for (size_t r = 1; r < pl->n; r++)
        if (strcmp(pl->res[r].script, pl->res[0].script) != 0)
            return "";
    return pl->res[0].script;
}

/* Starts chart `which` (an index of chart_names) of w x h pixels: its
 * title gets the script's name, and the chart is counted as drawn. */
void sb_plot_begin_chart(struct sb_plot_charts *pl, int which, int w, int h, const char *title)
{
    const char *script = common_script(pl);
    char t[512];

    if (*script)
        snprintf(t, sizeof(t), "%s: %s", title, script);
    else
        snprintf(t, sizeof(t), "%s", title);
    sb_gnuplot_chart(pl->job, pl->out[which], pl->svg, w, h, t);
    pl->drawn[pl->ndrawn++] = pl->out[which];
}

/* Whether key k is on the x axis: every key on a point axis, the rated
 * ones on a target-rate axis. */
static bool on_axis(const struct sb_plot_charts *pl, size_t k)
{
    return !pl->xnum || sb_pace_rated(pl->g->keys[k].rate_mode);
}

/* The x value of key k: its index on a point axis, its target rate on a
 * rate axis. */
static double key_x(const struct sb_plot_charts *pl, size_t k)
{
    return pl->xnum ? pl->g->keys[k].target_tps : (double)k;
}

/* Whether key a comes before key b on a rate axis: a lower target, and
 * closed-loop points (no target) after every rated one. */
static bool rate_before(const struct sb_plot_charts *pl, size_t a, size_t b)
{
    bool ra = sb_pace_rated(pl->g->keys[a].rate_mode), rb = sb_pace_rated(pl->g->keys[b].rate_mode);

    if (ra != rb)
        return ra;
    return ra && pl->g->keys[a].target_tps < pl->g->keys[b].target_tps;
}

/* XLO, XHI: the ends of an x axis over [lo, hi] with 4% margins, never
 * below 0 (rates and throughputs are not negative; gnuplot's own
 * autoscale stretched a 28..1192 axis to -200). */
static void x_range(struct sb_gnuplot_job *j, double lo, double hi)
{
    double m = hi > lo ? (hi - lo) * 0.04 : fabs(hi) * 0.05 + 1e-9;

    if (!(hi >= lo)) {
        lo = 0;
        hi = 1;
    }
    sb_gnuplot_set_num(j, "XLO", lo - m < 0 ? 0 : lo - m);
    sb_gnuplot_set_num(j, "XHI", hi + m);
}

/* XLO, XHI over the target rates of the rated keys. */
static void rate_range(struct sb_plot_charts *pl)
{
    double lo = INFINITY, hi = -INFINITY;

    for (size_t k = 0; k < pl->g->nkeys; k++)
        if (sb_pace_rated(pl->g->keys[k].rate_mode)) {
            lo = fmin(lo, pl->g->keys[k].target_tps);
            hi = fmax(hi, pl->g->keys[k].target_tps);
        }
    x_range(pl->job, lo, hi);
}

/* The point axis: NK, KEY[NK] (tick names), XLABEL, XNUM. */
static void key_axis(struct sb_plot_charts *pl)
{
    char name[64];

    sb_gnuplot_set_num(pl->job, "XNUM", pl->xnum);
    sb_gnuplot_set_num(pl->job, "NK", (double)pl->g->nkeys);
    sb_gnuplot_array(pl->job, "KEY", pl->g->nkeys);
    for (size_t k = 0; k < pl->g->nkeys; k++) {
        sb_result_file_key_name(pl->g, k, name, sizeof(name));
        sb_gnuplot_set_str_at(pl->job, "KEY", k + 1, name);
    }
    sb_gnuplot_set_str(pl->job, "XLABEL", pl->xnum ? "target rate (tx/s)"
                                                   : sb_result_file_grid_axis(pl->g));
    if (pl->xnum)
        rate_range(pl);
}

/* N and LABEL[N]: the results. */
static void result_labels(struct sb_plot_charts *pl)
{
    sb_gnuplot_set_num(pl->job, "N", (double)pl->n);
    sb_gnuplot_array(pl->job, "LABEL", pl->n);
    for (size_t r = 0; r < pl->n; r++)
        sb_gnuplot_set_str_at(pl->job, "LABEL", r + 1, pl->res[r].label);
}

/* The title of a key in legends and panel titles: "4 threads". */
void sb_plot_key_title(const struct sb_plot_charts *pl, size_t k, char *buf, size_t len)
{
    const struct sb_result_file_key *key = &pl->g->keys[k];
    char rate[64] = "";

    if (key->rate_mode != SB_PACE_NONE)
        snprintf(rate, sizeof(rate), " at %g tx/s", key->target_tps);
    snprintf(buf, len, "%u thread%s%s", key->threads, key->threads == 1 ? "" : "s", rate);
    if (key->occurrence > 0) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, " (#%u)", key->occurrence + 1);
    }
}

/* ------------------------------------------------------------ the charts */

/* Whether some point of some result has two or more runs (--repeat). */
static bool any_repeats(const struct sb_plot_charts *pl)
{
    for (size_t k = 0; k < pl->g->nkeys; k++)
        for (size_t r = 0; r < pl->n; r++) {
            const struct sb_point_result *p = sb_plot_cell(pl, r, k);
            if (p != NULL && p->nreps > 1)
                return true;
        }
    return false;
}

/* The median throughput of point p's runs; NaN for a gap. */
static double tps_of(const struct sb_point_result *p)
{
    return p != NULL ? sb_point_result_fig_median(p, SB_POINT_RESULT_TPS, 0) : NAN;
}

/* The slowest and the fastest run of point p (NaN when none). */
static void tps_range(const struct sb_point_result *p, double *lo, double *hi)
{
    double v[1024];
    size_t n = p != NULL ? sb_point_result_fig_runs(p, SB_POINT_RESULT_TPS, 0, v, 1024) : 0;

    *lo = *hi = NAN;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        *lo = isnan(*lo) || v[i] < *lo ? v[i] : *lo;
        *hi = isnan(*hi) || v[i] > *hi ? v[i] : *hi;
    }
}

/* The figures the line charts draw, of one point. */
enum fig {
    FIG_TPS,
    FIG_P50,
    FIG_P99,
    FIG_USER_CLIENT,
    FIG_TOTAL_CLIENT,
    FIG_USER_SERVER,
    FIG_TOTAL_SERVER
};

/* Figure f of point p (NULL: a gap); NaN when it was not measured. */
static double fig_of(const struct sb_point_result *p, enum fig f)
{
    const struct sb_cpu_figures *c;

    if (p == NULL)
        return NAN;
    switch (f) {
    case FIG_TPS:
        return tps_of(p);
    case FIG_P50:
    case FIG_P99:
        return sb_point_result_fig_median(p, SB_POINT_RESULT_LATENCY, f == FIG_P50 ? 50 : 99);
    default:
        c = f <= FIG_TOTAL_CLIENT ? &p->cpu.client : &p->cpu.server;
        if (!c->measured)
            return NAN;
        return c->user_us_per_tx + (f == FIG_TOTAL_CLIENT || f == FIG_TOTAL_SERVER ?
                                    c->system_us_per_tx : 0);
    }
}

/* The number of keys from position i of the order that share the target
 * rate of the first on a rate axis (a --find-max search measures a rate
 * again as new points, which the lines draw as one, their median); 1
 * otherwise. */
static size_t group_len(const struct sb_plot_charts *pl, size_t i)
{
    const struct sb_result_file_key *a = &pl->g->keys[pl->order[i]];
    size_t n = 1;

    if (!pl->xnum || !sb_pace_rated(a->rate_mode))
        return 1;
    while (i + n < pl->g->nkeys) {
        const struct sb_result_file_key *b = &pl->g->keys[pl->order[i + n]];
        if (!sb_pace_rated(b->rate_mode) || b->target_tps != a->target_tps)
            break;
        n++;
    }
    return n;
}

/* The median of figure f over result r's points at positions i..i+n-1 of
 * the order (NaN when none has it). */
static double group_fig(const struct sb_plot_charts *pl, size_t r, size_t i, size_t n, enum fig f)
{
    double v[64];
    size_t m = 0;

    for (size_t q = 0; q < n && m < 64; q++) {
        double x = fig_of(sb_plot_cell(pl, r, pl->order[i + q]), f);
        size_t at = m++;
        if (isnan(x)) {
            m--;
            continue;
        }
        for (; at > 0 && v[at - 1] > x; at--)
            v[at] = v[at - 1];
        v[at] = x;
    }
    if (m == 0)
        return NAN;
    return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

/* The y label of the throughput charts. */
static const char *tps_label(bool bars)
{
    return bars ? "transactions per second (median; bars: min to max of the runs)"
                : "transactions per second";
}

/* A sweep of target rates at one thread count: throughput-rates.gp. */
static void chart_throughput_rates(struct sb_plot_charts *pl, bool bars)
{
    struct sb_gnuplot_job *j = pl->job;
    char name[32];

    for (size_t r = 0; r < pl->n; r++) {
        FILE *d;
        snprintf(name, sizeof(name), "tr%zu.dat", r + 1);
        d = sb_gnuplot_data(j, name);
        for (size_t i = 0, n; d != NULL && i < pl->g->nkeys; i += n) {
            size_t k = pl->order[i];
            double lo = NAN, hi = NAN, med;
            n = group_len(pl, i);
            med = group_fig(pl, r, i, n, FIG_TPS);
            if (!sb_pace_rated(pl->g->keys[k].rate_mode) || isnan(med))
                continue;
            /* The bars span every run of the rate. */
            for (size_t q = 0; q < n; q++) {
                double l, h;
                tps_range(sb_plot_cell(pl, r, pl->order[i + q]), &l, &h);
                lo = isnan(lo) || l < lo ? l : lo;
                hi = isnan(hi) || h > hi ? h : hi;
            }
            sb_plot_gp_num(d, pl->g->keys[k].target_tps);
            sb_plot_gp_num(d, med);
            sb_plot_gp_num(d, lo);
            sb_plot_gp_num(d, hi);
            fputc('\n', d);
        }
        sb_gnuplot_data_close(j, d);
    }
    sb_plot_begin_chart(pl, 0, 1000, 620, "Throughput by target rate");
    result_labels(pl);
    rate_range(pl);
    sb_gnuplot_set_str(j, "YLABEL", tps_label(bars));
    sb_gnuplot_set_num(j, "BARS", bars);
    /* Each result's closed-loop throughput, its first closed-loop point. */
    sb_gnuplot_array(j, "CLOSED", pl->n);
    for (size_t r = 0; r < pl->n; r++) {
        double closed = NAN;
        for (size_t k = 0; k < pl->g->nkeys && isnan(closed); k++) {
            const struct sb_point_result *p = sb_plot_cell(pl, r, k);
            if (p != NULL && !sb_pace_rated(pl->g->keys[k].rate_mode))
                closed = tps_of(p);
        }
        sb_gnuplot_set_num_at(j, "CLOSED", r + 1, closed);
    }
    sb_gnuplot_template(j, "throughput-rates.gp");
}

/* Throughput by point: the median of the runs, with error bars from the
 * slowest to the fastest run when there are repeats. */
static void chart_throughput(struct sb_plot_charts *pl)
{
    bool bars = any_repeats(pl);
    FILE *d;

    if (pl->xnum) {
        chart_throughput_rates(pl, bars);
        return;
    }
    d = sb_gnuplot_data(pl->job, "tps.dat");
    for (size_t k = 0; d != NULL && k < pl->g->nkeys; k++) {
        fprintf(d, "%zu", k);
        for (size_t r = 0; r < pl->n; r++) {
            const struct sb_point_result *p = sb_plot_cell(pl, r, k);
            double lo, hi;
            tps_range(p, &lo, &hi);
            sb_plot_gp_num(d, tps_of(p));
            sb_plot_gp_num(d, lo);
            sb_plot_gp_num(d, hi);
        }
        fputc('\n', d);
    }
    sb_gnuplot_data_close(pl->job, d);
    sb_plot_begin_chart(pl, 0, 1000, 620, pl->g->rates_vary && !pl->g->threads_vary ?
                "Throughput by target rate" : "Throughput by threads");
    key_axis(pl);
    result_labels(pl);
    sb_gnuplot_set_str(pl->job, "YLABEL", tps_label(bars));
    sb_gnuplot_set_num(pl->job, "BARS", bars);
    sb_gnuplot_template(pl->job, "throughput.gp");
}

/* Response time against achieved throughput over the rated points (a
 * --tx-rate sweep, a --find-max search), with the SLA and the rate a
 * --find-max search found. Medians of the runs. */
static void chart_latency_throughput(struct sb_plot_charts *pl)
{
    struct sb_gnuplot_job *j = pl->job;
    double lo = INFINITY, hi = 0, xlo = INFINITY, xhi = 0;
    char name[32];

    for (size_t r = 0; r < pl->n; r++) {
        FILE *d;
        snprintf(name, sizeof(name), "lt%zu.dat", r + 1);
        d = sb_gnuplot_data(j, name);
        for (size_t i = 0, n; d != NULL && i < pl->g->nkeys; i += n) {
            double tps;
            n = group_len(pl, i);
            tps = group_fig(pl, r, i, n, FIG_TPS);
            if (!sb_pace_rated(pl->g->keys[pl->order[i]].rate_mode) || isnan(tps))
                continue;
            sb_plot_gp_num(d, tps);
            xlo = fmin(xlo, tps);
            xhi = fmax(xhi, tps);
            for (int q = 0; q < 2; q++) {
                double v = group_fig(pl, r, i, n, q ? FIG_P99 : FIG_P50);
                sb_plot_gp_num(d, v);
                if (v > 0 && !isinf(v)) {
                    lo = fmin(lo, v);
                    hi = fmax(hi, v);
                }
            }
            fputc('\n', d);
        }
        sb_gnuplot_data_close(j, d);
    }
    sb_plot_begin_chart(pl, SB_PLOT_NCHARTS, 1000, 620, "Response time against throughput");
    result_labels(pl);
    /* The rate held is marked inside the axis, not on its edge. */
    if (pl->marks != NULL && pl->marks->rate_held > 0) {
        xlo = fmin(xlo, pl->marks->rate_held);
        xhi = fmax(xhi, pl->marks->rate_held);
    }
    if (pl->marks != NULL && pl->marks->sla_ms > 0) {
        lo = fmin(lo, pl->marks->sla_ms);
        hi = fmax(hi, pl->marks->sla_ms);
    }
    /* More than two decades apart: a linear axis would flatten the low
     * latencies onto zero. */
    sb_gnuplot_set_num(j, "LOGY", hi > 100 * lo);
    x_range(j, xlo, xhi);
    sb_gnuplot_set_num(j, "SLA_PCT", pl->marks != NULL ? pl->marks->sla_pct : NAN);
    sb_gnuplot_set_num(j, "SLA_MS", pl->marks != NULL && pl->marks->sla_ms > 0 ?
                       pl->marks->sla_ms : NAN);
    sb_gnuplot_set_num(j, "HELD", pl->marks != NULL && pl->marks->rate_held > 0 ?
                       pl->marks->rate_held : NAN);
    /* The label of the rate held goes on the side of its line with more
     * room. */
    sb_gnuplot_set_num(j, "HELD_RIGHT", pl->marks != NULL &&
                       pl->marks->rate_held > (xlo + xhi) / 2);
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

/*
 * Throughput relative to the first result at the same point; with one
 * result, relative to its first point, which shows how the sweep scales.
 */
static void chart_relative(struct sb_plot_charts *pl)
{
    struct sb_gnuplot_job *j = pl->job;
    bool single = pl->n == 1;
    char title[256], first[128];
    double lo = 1, hi = 1, step;
    int decimals;
    FILE *d = sb_gnuplot_data(j, "rel.dat");

    for (size_t i = 0, n; d != NULL && i < pl->g->nkeys; i += n) {
        size_t k = pl->order[i];
        double b;
        n = group_len(pl, i);
        b = single ? tps_of(sb_plot_cell(pl, 0, 0)) : group_fig(pl, 0, i, n, FIG_TPS);
        if (!on_axis(pl, k))
            continue;
        sb_plot_gp_num(d, key_x(pl, k));
        for (size_t r = 0; r < pl->n; r++) {
            double v = b > 0 ? group_fig(pl, r, i, n, FIG_TPS) / b : NAN;
            sb_plot_gp_num(d, v);
            if (!isnan(v) && !isinf(v)) {
                lo = fmin(lo, v);
                hi = fmax(hi, v);
            }
        }
        fputc('\n', d);
    }
    sb_gnuplot_data_close(j, d);
    if (single) {
        sb_plot_key_title(pl, 0, first, sizeof(first));
        snprintf(title, sizeof(title), "Throughput relative to %s", first);
    } else {
        snprintf(title, sizeof(title), "Throughput relative to %s", pl->res[0].label);
    }
    sb_plot_begin_chart(pl, 1, 1000, 620, title);
    key_axis(pl);
    result_labels(pl);
    sb_gnuplot_set_num(j, "FROM", single ? 1 : 2);
    sb_gnuplot_set_str(j, "REFTITLE", single ? "" : pl->res[0].label);
    if (single)
        snprintf(title, sizeof(title), "throughput / throughput at %s", first);
    else
        snprintf(title, sizeof(title), "throughput / throughput of %s", pl->res[0].label);
    sb_gnuplot_set_str(j, "YLABEL", title);
    /* The ratios written next to the points, as in a report table; with
     * many lines they would overlap, so only for a few. */
    sb_gnuplot_set_num(j, "PTLABELS", pl->n <= 4);
    ratio_ticks(lo, hi, &step, &decimals);
    sb_gnuplot_set_num(j, "YSTEP", step);
    sb_gnuplot_set_num(j, "YDEC", decimals);
    sb_gnuplot_template(j, "relative.gp");
}

/* The CPU data files: cpu<j>.dat per result and side measured, per point
 * its x (bar centre on a point axis), user, and user + system. */
static void cpu_files(struct sb_plot_charts *pl, const bool has[2], size_t nbars, double w)
{
    const char *side_name[2] = {"client", "server"};
    char name[256];
    size_t j = 0;

    sb_gnuplot_array(pl->job, "BLABEL", nbars);
    for (size_t r = 0; r < pl->n; r++) {
        for (size_t s = 0; s < 2; s++) {
            FILE *d;
            if (!has[s])
                continue;
            snprintf(name, sizeof(name), "cpu%zu.dat", ++j);
            d = sb_gnuplot_data(pl->job, name);
            for (size_t i = 0, n; d != NULL && i < pl->g->nkeys; i += n) {
                size_t k = pl->order[i];
                n = group_len(pl, i);
                if (!on_axis(pl, k))
                    continue;
                sb_plot_gp_num(d, pl->xnum ? key_x(pl, k)
                                           : (double)k - 0.4 + w * ((double)(j - 1) + 0.5));
                sb_plot_gp_num(d, group_fig(pl, r, i, n, s ? FIG_USER_SERVER : FIG_USER_CLIENT));
                sb_plot_gp_num(d, group_fig(pl, r, i, n, s ? FIG_TOTAL_SERVER : FIG_TOTAL_CLIENT));
                fputc('\n', d);
            }
            sb_gnuplot_data_close(pl->job, d);
            snprintf(name, sizeof(name), "%s %s", pl->res[r].label, side_name[s]);
            sb_gnuplot_set_str_at(pl->job, "BLABEL", j, name);
        }
    }
}

/*
 * CPU microseconds per transaction: bars per point, one per result and
 * side (client, server), or lines on a rate axis. Sides no file measured
 * are left out.
 */
static void chart_cpu(struct sb_plot_charts *pl)
{
    bool has[2] = {false, false};
    size_t nbars;
    double w;

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
    sb_plot_begin_chart(pl, 2, 1000, 620, pl->xnum ? "CPU per transaction"
                                           : "CPU per transaction (user solid, system light)");
    sb_gnuplot_set_num(pl->job, "NOCPU", nbars == 0);
    sb_gnuplot_set_num(pl->job, "NB", (double)nbars);
    sb_gnuplot_set_num(pl->job, "BOXW", w * 0.92);
    sb_gnuplot_set_num(pl->job, "BARLABELS", nbars * pl->g->nkeys <= 24);
    key_axis(pl);
    cpu_files(pl, has, nbars, w);
    sb_gnuplot_template(pl->job, "cpu.gp");
}

/* ------------------------------------------------------------ which charts */

/* The order of the keys in the data files of lines: by target rate on a
 * rate axis (a --find-max search probes out of order, and its lines must
 * not zigzag), closed-loop points last; else as they are. Returns 0 or -1
 * (out of memory). */
static int key_order(struct sb_plot_charts *pl)
{
    size_t n = pl->g->nkeys;

    pl->order = malloc((n ? n : 1) * sizeof(*pl->order));
    if (pl->order == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t k = i, at = i;
        /* Insertion sort, stable: a few dozen points at most. */
        while (pl->xnum && at > 0 && rate_before(pl, k, pl->order[at - 1])) {
            pl->order[at] = pl->order[at - 1];
            at--;
        }
        pl->order[at] = k;
    }
    return 0;
}

/* Whether some result has two or more rated points: a latency against
 * throughput line. */
static bool rated_line(const struct sb_plot_charts *pl)
{
    for (size_t r = 0; r < pl->n; r++) {
        size_t m = 0;
        for (size_t k = 0; k < pl->g->nkeys; k++) {
            const struct sb_point_result *p = sb_plot_cell(pl, r, k);
            m += p != NULL && p->cfg.mode != SB_PACE_NONE;
        }
        if (m >= 2)
            return true;
    }
    return false;
}

/* The number of points on the x axis of the point charts. */
static size_t axis_points(const struct sb_plot_charts *pl)
{
    size_t m = 0;

    for (size_t k = 0; k < pl->g->nkeys; k++)
        m += on_axis(pl, k);
    return m;
}

/*
 * Writes the charts that have something to show: a chart of the points
 * needs two points, or two results to set side by side at one point (a
 * single run gets no throughput, relative or CPU chart of one point; its
 * time axis is sb_plot_timeline); a rate sweep of one result has no
 * relative chart (it would repeat the throughput chart scaled); the
 * latency curves need a histogram, and latency against throughput two
 * rated points.
 */
static void write_charts(struct sb_plot_charts *pl)
{
    size_t npts = axis_points(pl);
    bool points = npts >= 2 || (pl->n >= 2 && npts >= 1);

    if (points)
        chart_throughput(pl);
    if (points && !(pl->n == 1 && pl->xnum))
        chart_relative(pl);
    if (points)
        chart_cpu(pl);
    sb_plot_chart_latency(pl);
    if (pl->g->any_rated && rated_line(pl))
        chart_latency_throughput(pl);
}

/* Names the charts drawn on out (or says there were none). */
static void say_drawn(const struct sb_plot_charts *pl, const char *kept, FILE *out)
{
    if (out == NULL)
        return;
    if (pl->ndrawn == 0) {
        fprintf(out, "No sweep charts: one point has no lines to draw\n");
    } else {
        fprintf(out, "Charts written:");
        for (size_t i = 0; i < pl->ndrawn; i++)
            fprintf(out, " %s", pl->drawn[i]);
        fprintf(out, "\n");
    }
    /* The script is kept with SB_PLOT_KEEP set, for whoever wants to
     * restyle the charts by hand. */
    if (kept != NULL && kept[0] != '\0')
        fprintf(out, "gnuplot script kept in %s\n", kept);
    fflush(out);
}

int sb_plot_write_marked(const struct sb_result_file *res, size_t n, const char *path,
                         const struct sb_plot_marks *marks, FILE *out, char *err,
                         size_t errlen)
{
    struct sb_plot_charts pl;
    struct sb_result_file_grid g;
    struct sb_gnuplot_job job;
    char stem[PATH_MAX], kept[PATH_MAX + 32] = "";
    const char *ext;
    int rc;

    memset(&pl, 0, sizeof(pl));
    if (sb_plot_check(path, err, errlen) != 0)
        return -1;
    split_path(path, stem, sizeof(stem), &ext, &pl.svg);
    for (int i = 0; i <= SB_PLOT_NCHARTS; i++)
        snprintf(pl.out[i], sizeof(pl.out[i]), "%.*s-%s%s", PATH_MAX - 32, stem, chart_names[i], ext);
    if (sb_result_file_grid_build(&g, res, n) != 0 || g.nkeys == 0) {
        sb_result_file_grid_free(&g);
        snprintf(err, errlen, "no points to plot");
        return -1;
    }
    if (sb_gnuplot_begin(&job, "charts.gp", err, errlen) != 0) {
        sb_result_file_grid_free(&g);
        return -1;
    }
    pl.job = &job;
    pl.res = res;
    pl.n = n;
    pl.g = &g;
    pl.marks = marks;
    pl.xnum = g.any_rated && g.rates_vary && !g.threads_vary;
    if (key_order(&pl) == 0)
        write_charts(&pl);
    rc = sb_gnuplot_finish(&job, pl.drawn, pl.ndrawn, kept, sizeof(kept), err, errlen);
    if (pl.order == NULL && rc == 0) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    free(pl.order);
    if (rc == 0)
        say_drawn(&pl, kept, out);
    sb_result_file_grid_free(&g);
    return rc;
}

int sb_plot_write(const struct sb_result_file *res, size_t n, const char *path, FILE *out,
                  char *err, size_t errlen)
{
    return sb_plot_write_marked(res, n, path, NULL, out, err, errlen);
}

int sb_plot_output(const struct sb_result_writer *o, const struct sb_lua_env *env, const char *path,
                   FILE *out, char *err, size_t errlen)
{
    struct sb_result_file r;
    struct sb_jv *doc;
    char perr[512], *text = NULL, *label;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int rc;

    if (mem == NULL) {
        snprintf(err, errlen, "cannot draw the --plot charts: %s", strerror(errno));
        return -1;
    }
    rc = sb_result_writer_write_json_to(o, env, mem, "in memory", err, errlen);
    if (fclose(mem) != 0 && rc == 0) {
        snprintf(err, errlen, "cannot draw the --plot charts: %s", strerror(errno));
        rc = -1;
    }
    if (rc != 0) {
        free(text);
        return -1;
    }
    doc = sb_jv_parse(text, len, perr, sizeof(perr));
    free(text);
    if (doc == NULL) {
        snprintf(err, errlen, "cannot read back the results for --plot: %s", perr);
        return -1;
    }
    label = sb_result_file_default_label(o->json_path != NULL && *o->json_path ? o->json_path :
                                    env->script_path != NULL ? env->script_path : "run");
    if (label != NULL) {
        size_t l = strlen(label);
        if (l > 4 && strcmp(label + l - 4, ".lua") == 0)
            label[l - 4] = '\0';
    }
    rc = label == NULL ? -1 : sb_result_file_from_json(&r, doc, "the run", label, err, errlen);
    if (label == NULL)
        snprintf(err, errlen, "out of memory");
    free(label);
    if (rc != 0) {
        sb_jv_free(doc);
        return -1;
    }
    {
        /* A --find-max search marks its SLA and the rate it found. */
        const struct sb_jv *fm = sb_jv_get(doc, "find_max");
        struct sb_plot_marks marks = {
            .sla_pct = fm ? sb_jv_num(sb_jv_path(fm, "sla.percentile")) : NAN,
            .sla_ms = fm ? sb_jv_num(sb_jv_path(fm, "sla.limit_ms")) : NAN,
            .rate_held = fm ? sb_jv_num(sb_jv_get(fm, "rate_held")) : NAN,
        };
        rc = sb_plot_write_marked(&r, 1, path, fm ? &marks : NULL, out, err, errlen);
    }
    sb_result_file_free(&r);
    /* A single run also gets its time axis. */
    if (rc == 0 && o->npoints == 1)
        rc = sb_plot_timeline(&o->points[0], path, out, err, errlen);
    /* A --find-max search, its chart on a numeric rate axis. */
    if (rc == 0 && sb_jv_get(doc, "find_max") != NULL)
        rc = sb_plot_findmax(sb_jv_get(doc, "find_max"), path, out, err, errlen);
    sb_jv_free(doc);
    return rc;
}
