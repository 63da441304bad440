/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The --find-max chart (--plot): the SLA percentile and the achieved share
 * of the target against the target rate, on a numeric rate axis, from the
 * "find_max" record of the result document; see sb_plot_findmax in
 * sb_plot.h.
 */
#include "plot/sb_plot_findmax.h"
#include "plot/sb_gnuplot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sb_json_read.h"

#define HELD_RGB 0x2a9d3a
#define MISSED_RGB 0xd62728

static double num_at(const struct sb_jv *arr, size_t i)
{
    return arr != NULL && arr->type == SB_JV_ARRAY && i < arr->n ? sb_jv_num(&arr->items[i])
                                                                 : NAN;
}

/* Whether the run of the search at target t that achieved a tx/s was
 * flagged by its self-check: the first point of the document not yet
 * matched (used[], one per point) with that target and throughput. */
static bool run_flagged(const struct sb_jv *points, bool *used, double t, double a)
{
    for (size_t i = 0; used != NULL && i < sb_jv_len(points); i++) {
        const struct sb_jv *p = sb_jv_at(points, i), *ok = sb_jv_path(p, "selfcheck.ok");
        if (used[i] || sb_jv_num(sb_jv_get(p, "target_tps")) != t ||
            sb_jv_num(sb_jv_path(p, "final.tps")) != a)
            continue;
        used[i] = true;
        return ok != NULL && ok->type == SB_JV_BOOL && !ok->boolean;
    }
    return false;
}

/*
 * The data files: runs.dat, one line per run (target, achieved % of it,
 * latency, colour of the run's own verdict, 1 when its self-check was
 * not ok), and med.dat, one per rate (the medians and the colour of the
 * rate's verdict). Widens [*lo, *hi] to the rates. Returns whether some
 * run was flagged.
 */
static bool data_files(struct sb_gnuplot_job *j, const struct sb_jv *rates,
                       const struct sb_jv *points, double ms, double *lo, double *hi)
{
    FILE *f = sb_gnuplot_data(j, "runs.dat");
    bool *used = calloc(sb_jv_len(points) + 1, sizeof(*used)), any = false;

    for (size_t i = 0; f != NULL && rates != NULL && i < rates->n; i++) {
        const struct sb_jv *r = &rates->items[i];
        const struct sb_jv *tps = sb_jv_get(r, "achieved_tps");
        const struct sb_jv *lat = sb_jv_get(r, "latency_ms");
        double t = sb_jv_num(sb_jv_get(r, "target_tps"));
        for (size_t k = 0; tps != NULL && k < tps->n; k++) {
            double a = num_at(tps, k), l = num_at(lat, k);
            bool held = a >= 0.995 * t && l <= ms, flagged = run_flagged(points, used, t, a);
            sb_plot_gp_num(f, t);
            sb_plot_gp_num(f, 100 * a / t);
            sb_plot_gp_num(f, l);
            fprintf(f, " %d %d\n", held ? HELD_RGB : MISSED_RGB, flagged);
            any = any || flagged;
        }
        *lo = fmin(*lo, t);
        *hi = fmax(*hi, t);
    }
    sb_gnuplot_data_close(j, f);
    f = sb_gnuplot_data(j, "med.dat");
    for (size_t i = 0; f != NULL && rates != NULL && i < rates->n; i++) {
        const struct sb_jv *r = &rates->items[i];
        const struct sb_jv *held = sb_jv_get(r, "held");
        double t = sb_jv_num(sb_jv_get(r, "target_tps"));
        bool ok = held != NULL && held->type == SB_JV_BOOL && held->boolean;
        sb_plot_gp_num(f, t);
        sb_plot_gp_num(f, 100 * sb_jv_num(sb_jv_get(r, "median_achieved_tps")) / t);
        sb_plot_gp_num(f, sb_jv_num(sb_jv_get(r, "median_latency_ms")));
        fprintf(f, " %d\n", ok ? HELD_RGB : MISSED_RGB);
    }
    sb_gnuplot_data_close(j, f);
    free(used);
    return any;
}

/* A positive figure, else NaN (not known: the template draws no mark). */
static double positive(double v)
{
    return v > 0 ? v : NAN;
}

/* "oltp_read_only, sqlite, 2 threads": what the search ran, for the
 * title. */
static void search_name(const struct sb_jv *doc, char *buf, size_t len)
{
    const char *script = sb_jv_str(sb_jv_get(doc, "script"));
    const char *drv = sb_jv_str(sb_jv_path(doc, "environment.driver"));
    const char *base = script != NULL ? strrchr(script, '/') : NULL;
    double threads = sb_jv_num(sb_jv_path(doc, "points.0.threads"));
    char name[256];
    size_t n;

    snprintf(name, sizeof(name), "%s", base != NULL ? base + 1 : script != NULL ? script : "?");
    n = strlen(name);
    if (n > 4 && strcmp(name + n - 4, ".lua") == 0)
        name[n - 4] = '\0';
    if (threads >= 1)
        snprintf(buf, len, "%s%s%s, %g thread%s", name, drv != NULL ? ", " : "",
                 drv != NULL ? drv : "", threads, threads == 1 ? "" : "s");
    else
        snprintf(buf, len, "%s%s%s", name, drv != NULL ? ", " : "", drv != NULL ? drv : "");
}

/* The chart: its data files, then findmax.gp with the SLA, the rates
 * found and the rate axis set before it. */
static void write_chart(struct sb_gnuplot_job *j, const struct sb_jv *doc, const char *name,
                        bool svg)
{
    const struct sb_jv *fm = sb_jv_get(doc, "find_max");
    const struct sb_jv *rates = sb_jv_get(fm, "rates");
    double pct = sb_jv_num(sb_jv_path(fm, "sla.percentile"));
    double ms = sb_jv_num(sb_jv_path(fm, "sla.limit_ms"));
    double closed = sb_jv_num(sb_jv_get(fm, "closed_loop_tps"));
    double lo = INFINITY, hi = 0;
    char title[512], who[256];
    bool flagged;

    flagged = data_files(j, rates, sb_jv_get(doc, "points"), ms, &lo, &hi);
    if (closed > 0) {
        lo = fmin(lo, closed);
        hi = fmax(hi, closed);
    }
    if (!(hi > 0)) {
        lo = 0;
        hi = 1;
    }
    search_name(doc, who, sizeof(who));
    snprintf(title, sizeof(title), "Find-max: %s; SLA p%g <= %g ms", who, pct, ms);
    sb_gnuplot_chart(j, name, svg, 1100, 900, title);
    sb_gnuplot_set_num(j, "FLAGGED", flagged);
    sb_gnuplot_set_num(j, "PCT", pct);
    sb_gnuplot_set_num(j, "MS", ms);
    sb_gnuplot_set_num(j, "HELD", positive(sb_jv_num(sb_jv_get(fm, "rate_held"))));
    sb_gnuplot_set_num(j, "MISSED", positive(sb_jv_num(sb_jv_get(fm, "lowest_rate_missed"))));
    sb_gnuplot_set_num(j, "CLOSED", positive(closed));
    /* Rates are not negative: the axis does not start below 0. */
    sb_gnuplot_set_num(j, "XLO", fmax(0, lo - (hi - lo) * 0.06 - 1e-9));
    sb_gnuplot_set_num(j, "XHI", hi + (hi - lo) * 0.06 + 1e-9);
    sb_gnuplot_template(j, "findmax.gp");
}

int sb_plot_findmax(const struct sb_jv *doc, const char *path, FILE *out, char *err,
                    size_t errlen)
{
    char name[PATH_MAX], kept[PATH_MAX + 32] = "";
    const char *outs[1] = {name};
    struct sb_gnuplot_job j;
    bool svg;

    if (!sb_gnuplot_side_name(path, "find-max", name, sizeof(name), &svg)) {
        snprintf(err, errlen, "invalid value '%s' for --plot", path);
        return -1;
    }
    if (sb_gnuplot_begin(&j, "findmax.gp", err, errlen) != 0)
        return -1;
    write_chart(&j, doc, name, svg);
    if (sb_gnuplot_finish(&j, outs, 1, kept, sizeof(kept), err, errlen) != 0)
        return -1;
    if (out != NULL) {
        fprintf(out, "Find-max chart written: %s\n", name);
        if (kept[0] != '\0')
            fprintf(out, "gnuplot script kept in %s\n", kept);
        fflush(out);
    }
    return 0;
}
