/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_PLOT_CHART_H
#define SB_PLOT_CHART_H

/*
 * The charts of one --plot invocation and the helpers every chart writer
 * shares (sb_plot_chart.c): the cells, the x axis, key titles, starting
 * a chart; internal to plot/. sb_plot.c fills struct sb_plot_charts and
 * calls the chart writers (sb_plot_lines.h, sb_plot_latency.h), which
 * take their figures from sb_plot_fig.h. A chart writer computes its
 * data files, starts its chart with sb_plot_begin_chart, sets the
 * variables its template reads and copies the template (sb_gnuplot.h).
 */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "plot/sb_gnuplot.h"
#include "plot/sb_plot.h"
#include "results/sb_result_file.h"

/* One invocation's charts. */
struct sb_plot_charts {
    struct sb_gnuplot_job *job;
    const struct sb_result_file *res;
    size_t n;
    const struct sb_result_file_grid *g;
    const struct sb_plot_marks *marks;
    const struct sb_plot_tables *tables; /* compare's, or NULL */
    bool svg;
    bool xnum;                         /* a rate sweep: x is the target rate */
    double xlo, xhi;                   /* the target rates' ends on a rate axis */
    bool grouped;                      /* a rate axis has a rate measured again
                                        * as new points (--find-max) */
    size_t *order;                     /* owned: the keys by target rate on a
                                        * rate axis, else in their order */
    char out[SB_PLOT_NCHARTS + 1][PATH_MAX]; /* the files to write */
    const char *drawn[SB_PLOT_NCHARTS + 1];  /* those drawn, in order */
    size_t ndrawn;
};

/* The complete point of result r at key k, or NULL: a gap in the chart. */
const struct sb_point_result *sb_plot_cell(const struct sb_plot_charts *pl, size_t r, size_t k);

/* Starts chart `which` (an index of the chart names: 0 throughput, 1
 * relative, 2 cpu, 3 latency, 4 latency-throughput) of w x h pixels: its
 * title gets the script's name, note (may be "") goes under the title
 * to say what the chart draws, and the chart is counted as drawn. */
void sb_plot_begin_chart(struct sb_plot_charts *pl, int which, int w, int h, const char *title,
                         const char *note);

/* Whether key k is on the x axis: every key on a point axis, the rated
 * ones on a target-rate axis. */
bool sb_plot_on_axis(const struct sb_plot_charts *pl, size_t k);

/* The x value of key k: its index on a point axis, its target rate on a
 * rate axis. */
double sb_plot_key_x(const struct sb_plot_charts *pl, size_t k);

/* XLO, XHI: the ends of an x axis over [lo, hi] with 4% margins, never
 * below 0 (rates and throughputs are not negative; gnuplot's own
 * autoscale stretched a 28..1192 axis to -200). */
void sb_plot_x_range(struct sb_gnuplot_job *j, double lo, double hi);

/* XLO, XHI over the target rates of the rated keys. */
void sb_plot_rate_range(struct sb_plot_charts *pl);

/* The point axis: NK, KEY[NK] (tick names), XLABEL, XNUM (and XLO, XHI
 * on a rate axis). */
void sb_plot_key_axis(struct sb_plot_charts *pl);

/* The number of keys from position i of the order that share the target
 * rate of the first on a rate axis (a --find-max search measures a rate
 * again as new points); 1 otherwise. */
size_t sb_plot_group_len(const struct sb_plot_charts *pl, size_t i);

/* The title of key k in legends and panel titles: "4 threads", "2
 * threads at 500 tx/s (#2)". */
void sb_plot_key_title(const struct sb_plot_charts *pl, size_t k, char *buf, size_t len);

#endif /* SB_PLOT_CHART_H */
