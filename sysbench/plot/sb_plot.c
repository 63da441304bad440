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
#include "plot/sb_plot_latency.h"
#include "plot/sb_plot_lines.h"

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

/* ------------------------------------------------------------ key order */

/* Whether key a comes before key b on a rate axis: a lower target, and
 * closed-loop points (no target) after every rated one. */
static bool rate_before(const struct sb_plot_charts *pl, size_t a, size_t b)
{
    bool ra = sb_pace_rated(pl->g->keys[a].rate_mode), rb = sb_pace_rated(pl->g->keys[b].rate_mode);

    if (ra != rb)
        return ra;
    return ra && pl->g->keys[a].target_tps < pl->g->keys[b].target_tps;
}

/* The ends of the target rates of the rated keys into pl->xlo, xhi. */
static void rate_ends(struct sb_plot_charts *pl)
{
    pl->xlo = INFINITY;
    pl->xhi = -INFINITY;
    for (size_t k = 0; k < pl->g->nkeys; k++)
        if (sb_pace_rated(pl->g->keys[k].rate_mode)) {
            pl->xlo = fmin(pl->xlo, pl->g->keys[k].target_tps);
            pl->xhi = fmax(pl->xhi, pl->g->keys[k].target_tps);
        }
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
        m += sb_plot_on_axis(pl, k);
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

    for (size_t i = 0; i < pl->g->nkeys; i += sb_plot_group_len(pl, i))
        pl->grouped = pl->grouped || sb_plot_group_len(pl, i) > 1;
    if (points)
        sb_plot_chart_throughput(pl);
    if (points && !(pl->n == 1 && pl->xnum))
        sb_plot_chart_relative(pl);
    if (points)
        sb_plot_chart_cpu(pl);
    sb_plot_chart_latency(pl);
    if (pl->g->any_rated && rated_line(pl))
        sb_plot_chart_latency_throughput(pl);
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

/* sb_plot_write with the marks of a --find-max search and compare's
 * tables (each may be NULL). */
static int write_all(const struct sb_result_file *res, size_t n, const char *path,
                     const struct sb_plot_marks *marks, const struct sb_plot_tables *tables,
                     FILE *out, char *err, size_t errlen)
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
    pl.tables = tables;
    pl.xnum = g.any_rated && g.rates_vary && !g.threads_vary;
    rate_ends(&pl);
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

int sb_plot_write_marked(const struct sb_result_file *res, size_t n, const char *path,
                         const struct sb_plot_marks *marks, FILE *out, char *err,
                         size_t errlen)
{
    return write_all(res, n, path, marks, NULL, out, err, errlen);
}

int sb_plot_write_compare(const struct sb_result_file *res, size_t n, const char *path,
                          const struct sb_plot_tables *tables, FILE *out, char *err,
                          size_t errlen)
{
    return write_all(res, n, path, NULL, tables, out, err, errlen);
}

int sb_plot_write(const struct sb_result_file *res, size_t n, const char *path, FILE *out,
                  char *err, size_t errlen)
{
    return write_all(res, n, path, NULL, NULL, out, err, errlen);
}

int sb_plot_output(const struct sb_result_writer *o, const struct sb_lua_env *env, const char *path,
                   FILE *out, char *err, size_t errlen)
{
    struct sb_result_file r;
    struct sb_jv *doc;
    char perr[512], *text = NULL, *label, who[256];
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
            .rate_missed = fm ? sb_jv_num(sb_jv_get(fm, "lowest_rate_missed")) : NAN,
        };
        rc = sb_plot_write_marked(&r, 1, path, fm ? &marks : NULL, out, err, errlen);
    }
    snprintf(who, sizeof(who), "%s%s%s", r.script, *r.driver ? ", " : "", r.driver);
    sb_result_file_free(&r);
    /* A single run also gets its time axis. */
    if (rc == 0 && o->npoints == 1)
        rc = sb_plot_timeline(&o->points[0], who, path, out, err, errlen);
    /* A --find-max search, its chart on a numeric rate axis. */
    if (rc == 0 && sb_jv_get(doc, "find_max") != NULL)
        rc = sb_plot_findmax(doc, path, out, err, errlen);
    /* A thread sweep of 4 counts or more: its USL fit. */
    if (rc == 0)
        rc = sb_plot_usl(doc, path, out, err, errlen);
    sb_jv_free(doc);
    return rc;
}
