/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_PLOT_CHART_H
#define SB_PLOT_CHART_H

/*
 * The charts of one --plot invocation, shared by the chart writers of
 * sb_plot.c and the latency chart (sb_plot_latency.c); internal to
 * plot/. A chart writer computes its data files, starts its chart with
 * sb_plot_begin_chart, sets the variables its template reads and copies
 * the template (sb_gnuplot.h).
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
    bool svg;
    bool xnum;                         /* a rate sweep: x is the target rate */
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
 * title gets the script's name, and the chart is counted as drawn. */
void sb_plot_begin_chart(struct sb_plot_charts *pl, int which, int w, int h, const char *title);

/* The title of key k in legends and panel titles: "4 threads", "2
 * threads at 500 tx/s (#2)". */
void sb_plot_key_title(const struct sb_plot_charts *pl, size_t k, char *buf, size_t len);

/* The response-time percentile curves (latency.gp): a panel per point
 * (at most 6) with a curve per result, or for one result a curve per
 * point (at most 12) on one colour scale in load order; none drawn when
 * no point has a histogram. */
void sb_plot_chart_latency(struct sb_plot_charts *pl);

#endif /* SB_PLOT_CHART_H */
