/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The USL chart (--plot of a thread sweep): the runs, the fitted curve and
 * its peak, from the document's "usl" record; see sb_plot_usl.h.
 */
#include "plot/sb_plot_usl.h"
#include "plot/sb_gnuplot.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "core/sb_json_read.h"
#include "pure/sb_usl.h"

/* Samples of the fitted curve: smooth at any chart width. */
#define CURVE_SAMPLES 240
/* The x axis stretches to show an extrapolated N* up to this many times
 * the largest count measured; farther, the chart keeps to the runs and
 * says where N* is. */
#define PEAK_REACH 3.0

/* The fit as the record gives it (parameters, peak, range). */
static struct sb_usl_fit record_fit(const struct sb_jv *u)
{
    struct sb_usl_fit f;

    memset(&f, 0, sizeof(f));
    f.n = (size_t)sb_jv_num(sb_jv_get(u, "points"));
    f.lambda = sb_jv_num(sb_jv_get(u, "lambda"));
    f.sigma = sb_jv_num(sb_jv_get(u, "sigma"));
    f.kappa = sb_jv_num(sb_jv_get(u, "kappa"));
    /* null (no peak) reads as NaN */
    f.peak_threads = sb_jv_num(sb_jv_get(u, "peak_threads"));
    f.peak_tps = sb_jv_num(sb_jv_get(u, "peak_tps"));
    f.r2 = sb_jv_num(sb_jv_get(u, "r2"));
    f.max_rel_residual = sb_jv_num(sb_jv_get(u, "max_rel_residual"));
    f.min_threads = sb_jv_num(sb_jv_get(u, "min_threads"));
    f.max_threads = sb_jv_num(sb_jv_get(u, "max_threads"));
    return f;
}

/* The right end of the thread axis: the runs, and N* when near them. */
static double axis_end(const struct sb_usl_fit *f)
{
    double hi = f->max_threads;

    if (isfinite(f->peak_threads) && f->peak_threads > hi &&
        f->peak_threads <= PEAK_REACH * f->max_threads)
        hi = f->peak_threads;
    return hi > 1 ? hi : 2;
}

/*
 * The data files: runs.dat (threads, tps of every run of the document),
 * curve.dat (N, X(N) from 1 to xhi) and peak.dat (N*, X(N*); empty
 * without a finite peak). Returns the largest throughput written.
 */
static double data_files(struct sb_gnuplot_job *j, const struct sb_jv *doc,
                         const struct sb_usl_fit *f, double xhi)
{
    const struct sb_jv *points = sb_jv_get(doc, "points");
    FILE *d = sb_gnuplot_data(j, "runs.dat");
    double top = 0;

    for (size_t i = 0; d != NULL && i < sb_jv_len(points); i++) {
        const struct sb_jv *p = sb_jv_at(points, i);
        double n = sb_jv_num(sb_jv_get(p, "threads"));
        double x = sb_jv_num(sb_jv_path(p, "final.tps"));
        if (!(n >= 1) || !(x > 0))
            continue;
        sb_plot_gp_num(d, n);
        sb_plot_gp_num(d, x);
        fputc('\n', d);
        top = fmax(top, x);
    }
    sb_gnuplot_data_close(j, d);
    d = sb_gnuplot_data(j, "curve.dat");
    for (int i = 0; d != NULL && i <= CURVE_SAMPLES; i++) {
        double n = 1 + (xhi - 1) * i / CURVE_SAMPLES, x = sb_usl_eval(f, n);
        sb_plot_gp_num(d, n);
        sb_plot_gp_num(d, x);
        fputc('\n', d);
        top = fmax(top, x);
    }
    sb_gnuplot_data_close(j, d);
    d = sb_gnuplot_data(j, "peak.dat");
    if (d != NULL && isfinite(f->peak_threads) && isfinite(f->peak_tps)) {
        sb_plot_gp_num(d, f->peak_threads);
        sb_plot_gp_num(d, f->peak_tps);
        fputc('\n', d);
    }
    sb_gnuplot_data_close(j, d);
    return top;
}

/* The warnings drawn in red on the chart, in the words of the report
 * (sb_usl_report_print): poor for a poor fit, peak for N* outside the
 * range measured or no peak; "" each when there is nothing to say. */
static void warnings(const struct sb_jv *u, const struct sb_usl_fit *f, double xhi, char *poor,
                     char *peak, size_t len)
{
    const struct sb_jv *bad = sb_jv_get(u, "poor");
    const char *where = sb_jv_str(sb_jv_get(u, "peak"));

    poor[0] = peak[0] = '\0';
    if (bad != NULL && bad->type == SB_JV_BOOL && bad->boolean)
        snprintf(poor, len, "Poor fit (R^2 %.3f, a run %.0f%% off the curve): N* and X(N*) "
                 "are not to be trusted.", f->r2, 100 * f->max_rel_residual);
    if (where == NULL)
        return;
    if (strcmp(where, "above") == 0)
        snprintf(peak, len, "N* = %.1f lies beyond the largest count measured (%g): an "
                 "extrapolation%s.", f->peak_threads, f->max_threads,
                 f->peak_threads > xhi ? ", off this chart" : "");
    else if (strcmp(where, "below") == 0)
        snprintf(peak, len, "N* lies below the smallest count measured (%g threads).",
                 f->min_threads);
    else if (strcmp(where, "none") == 0)
        snprintf(peak, len, "No peak within reach (kappa 0): throughput still grows at %g "
                 "threads.", f->max_threads);
}

/* "oltp_read_only, mysql": what ran, for the title. */
static void run_name(const struct sb_jv *doc, char *buf, size_t len)
{
    const char *script = sb_jv_str(sb_jv_get(doc, "script"));
    const char *drv = sb_jv_str(sb_jv_path(doc, "environment.driver"));
    const char *base = script != NULL ? strrchr(script, '/') : NULL;
    char name[256];
    size_t n;

    snprintf(name, sizeof(name), "%s", base != NULL ? base + 1 : script != NULL ? script : "?");
    n = strlen(name);
    if (n > 4 && strcmp(name + n - 4, ".lua") == 0)
        name[n - 4] = '\0';
    snprintf(buf, len, "%s%s%s", name, drv != NULL ? ", " : "", drv != NULL ? drv : "");
}

static void write_chart(struct sb_gnuplot_job *j, const struct sb_jv *doc, const char *name,
                        bool svg)
{
    const struct sb_jv *u = sb_jv_get(doc, "usl");
    struct sb_usl_fit f = record_fit(u);
    double xhi = axis_end(&f), top;
    char title[512], who[256], poor[256], peak[256];

    top = data_files(j, doc, &f, xhi);
    warnings(u, &f, xhi, poor, peak, sizeof(poor));
    run_name(doc, who, sizeof(who));
    snprintf(title, sizeof(title), "Universal Scalability Law fit: %s, %zu runs, %g to %g threads",
             who, f.n, f.min_threads, f.max_threads);
    sb_gnuplot_chart(j, name, svg, 1100, 700, title);
    sb_gnuplot_set_num(j, "LAMBDA", f.lambda);
    sb_gnuplot_set_num(j, "SIGMA", f.sigma);
    sb_gnuplot_set_num(j, "KAPPA", f.kappa);
    sb_gnuplot_set_num(j, "R2", f.r2);
    sb_gnuplot_set_num(j, "MAXREL", f.max_rel_residual);
    sb_gnuplot_set_num(j, "NSTAR", f.peak_threads);
    sb_gnuplot_set_num(j, "XSTAR", f.peak_tps);
    sb_gnuplot_set_num(j, "SHOWN", isfinite(f.peak_threads) && f.peak_threads <= xhi);
    sb_gnuplot_set_num(j, "XHI", xhi * 1.06);
    sb_gnuplot_set_num(j, "YHI", (top > 0 ? top : 1) * 1.12);
    sb_gnuplot_set_str(j, "WPOOR", poor);
    sb_gnuplot_set_str(j, "WPEAK", peak);
    sb_gnuplot_template(j, "usl.gp");
}

int sb_plot_usl(const struct sb_jv *doc, const char *path, FILE *out, char *err, size_t errlen)
{
    const struct sb_jv *u = sb_jv_get(doc, "usl");
    char name[PATH_MAX], kept[PATH_MAX + 32] = "";
    const char *outs[1] = {name};
    struct sb_gnuplot_job j;
    bool svg;

    if (u == NULL || u->type != SB_JV_OBJECT ||
        !(sb_jv_num(sb_jv_get(u, "points")) >= SB_USL_MIN_POINTS))
        return 0;
    if (!sb_gnuplot_side_name(path, "usl", name, sizeof(name), &svg)) {
        snprintf(err, errlen, "invalid value '%s' for --plot", path);
        return -1;
    }
    if (sb_gnuplot_begin(&j, "usl.gp", err, errlen) != 0)
        return -1;
    write_chart(&j, doc, name, svg);
    if (sb_gnuplot_finish(&j, outs, 1, kept, sizeof(kept), err, errlen) != 0)
        return -1;
    if (out != NULL) {
        fprintf(out, "USL chart written: %s\n", name);
        if (kept[0] != '\0')
            fprintf(out, "gnuplot script kept in %s\n", kept);
        fflush(out);
    }
    return 0;
}
