/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The time axis of a single run (--plot): one chart of stacked panels
 * sharing the time axis, drawn from the point's interval reports; see
 * sb_plot_timeline in sb_plot.h.
 */
#include "plot/sb_plot_time.h"
#include "plot/sb_gnuplot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* FILE.png -> FILE-timeline.png; false when path has no .png/.svg. */
static bool timeline_name(const char *path, char *buf, size_t len, bool *svg)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');

    if (dot == NULL || (slash != NULL && dot < slash) ||
        (strcasecmp(dot, ".png") != 0 && strcasecmp(dot, ".svg") != 0))
        return false;
    *svg = strcasecmp(dot, ".svg") == 0;
    snprintf(buf, len, "%.*s-timeline%s", (int)(dot - path), path, dot);
    return true;
}

/* tl.dat: per interval the columns timeline.gp reads. */
static void data_file(struct sb_gnuplot_job *j, const struct sb_point_result *p)
{
    FILE *f = sb_gnuplot_data(j, "tl.dat");

    for (size_t i = 0; f != NULL && i < p->nintervals; i++) {
        const struct sb_interval *iv = &p->intervals[i];
        sb_plot_gp_num(f, iv->time_s);
        sb_plot_gp_num(f, iv->tps);
        sb_plot_gp_num(f, p->cfg.mode != SB_PACE_NONE ? p->cfg.target_tps : NAN);
        sb_plot_gp_num(f, iv->p50_ms);
        sb_plot_gp_num(f, iv->p99_ms);
        sb_plot_gp_num(f, p->cfg.mode != SB_PACE_NONE ? iv->lag_p99_ms : NAN);
        sb_plot_gp_num(f, (double)iv->backlog);
        sb_plot_gp_num(f, iv->cpu_client_pct);
        sb_plot_gp_num(f, iv->cpu_server_pct);
        fputc('\n', f);
    }
    sb_gnuplot_data_close(j, f);
}

/* Widens [*lo, *hi] to v when it is a positive latency. */
static void widen(double v, double *lo, double *hi)
{
    if (v > 0 && !isinf(v)) {
        *lo = fmin(*lo, v);
        *hi = fmax(*hi, v);
    }
}

/* The note under the title: what a point is, and the run's self-check. */
static void timeline_note(const struct sb_point_result *p, char *buf, size_t len)
{
    char flags[160];

    if (!p->has_selfcheck)
        snprintf(buf, len, "one point per interval (--report-interval)");
    else if (p->selfcheck.flags == 0)
        snprintf(buf, len, "one point per interval (--report-interval); self-check: OK");
    else
        snprintf(buf, len, "one point per interval (--report-interval); self-check: FLAGGED [%s]",
                 sb_selfcheck_flag_names(p->selfcheck.flags, flags, sizeof(flags)));
}

/* The chart: tl.dat, then timeline.gp with what was measured set before
 * it, so that it draws only panels and series with something to show. */
static void write_chart(struct sb_gnuplot_job *j, const struct sb_point_result *p, const char *who,
                        const char *name, bool svg)
{
    bool rate = p->cfg.mode != SB_PACE_NONE, client = false, server = false;
    double lo = INFINITY, hi = 0;
    int npanels;
    char title[320], note[256], run[128];

    for (size_t i = 0; i < p->nintervals; i++) {
        const struct sb_interval *iv = &p->intervals[i];
        client |= !isnan(iv->cpu_client_pct);
        server |= !isnan(iv->cpu_server_pct);
        widen(iv->p50_ms, &lo, &hi);
        widen(iv->p99_ms, &lo, &hi);
        if (rate)
            widen(iv->lag_p99_ms, &lo, &hi);
    }
    npanels = 2 + rate + (client || server);
    data_file(j, p);
    if (rate)
        snprintf(run, sizeof(run), "%u thread%s at %g tx/s", p->cfg.threads,
                 p->cfg.threads == 1 ? "" : "s", p->cfg.target_tps);
    else
        snprintf(run, sizeof(run), "%u thread%s, closed loop", p->cfg.threads,
                 p->cfg.threads == 1 ? "" : "s");
    snprintf(title, sizeof(title), "Time axis: %s%s%s", who != NULL && *who ? who : "",
             who != NULL && *who ? ", " : "", run);
    timeline_note(p, note, sizeof(note));
    sb_gnuplot_chart_noted(j, name, svg, 1100, 120 + 250 * npanels, title, note);
    sb_gnuplot_set_num(j, "RATE", rate);
    sb_gnuplot_set_num(j, "CLIENT", client);
    sb_gnuplot_set_num(j, "SERVER", server);
    sb_gnuplot_set_num(j, "NPANELS", npanels);
    /* More than two decades (100x) apart: a linear axis would flatten
     * the p50 line onto zero. */
    sb_gnuplot_set_num(j, "LOGY", hi > 100 * lo);
    sb_gnuplot_template(j, "timeline.gp");
}

int sb_plot_timeline(const struct sb_point_result *p, const char *who, const char *path,
                     FILE *out, char *err, size_t errlen)
{
    char name[PATH_MAX], kept[PATH_MAX + 32] = "";
    const char *outs[1] = {name};
    struct sb_gnuplot_job j;
    bool svg;

    if (!timeline_name(path, name, sizeof(name), &svg)) {
        snprintf(err, errlen, "invalid value '%s' for --plot", path);
        return -1;
    }
    if (p->nintervals < 2) {
        if (out != NULL)
            fprintf(out, "No time-axis chart: it needs at least 2 interval reports "
                    "(--report-interval)\n");
        return 0;
    }
    if (sb_gnuplot_begin(&j, "timeline.gp", err, errlen) != 0)
        return -1;
    write_chart(&j, p, who, name, svg);
    if (sb_gnuplot_finish(&j, outs, 1, kept, sizeof(kept), err, errlen) != 0)
        return -1;
    if (out != NULL) {
        fprintf(out, "Time-axis chart written: %s\n", name);
        if (kept[0] != '\0')
            fprintf(out, "gnuplot script kept in %s\n", kept);
        fflush(out);
    }
    return 0;
}
