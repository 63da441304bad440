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

/*
 * What the charts draw of one figure of result r at key k (sb_plot_fig.c).
 * The value is compare's table's when the charts have its tables, else
 * the one the run's own report gives: the geometric mean of the point's
 * runs, as its Repeat summary (a single run's own figure). The interval
 * is the 95% interval of that geometric mean over the runs, the Repeat
 * summary's (sb_repeat_summarize), NaN under two runs. The ratio, its
 * interval and verdict come from compare's table (NaN and NULL without
 * one: the caller divides values).
 */
struct sb_plot_fig {
    double v, lo, hi;
    size_t runs;               /* runs with the figure */
    size_t flagged;            /* runs whose self-check is not ok */
    double ratio, rlo, rhi;
    const char *verdict;
};

void sb_plot_fig(const struct sb_plot_charts *pl, size_t r, size_t k,
                 enum sb_point_result_fig f, double pct, struct sb_plot_fig *out);

/* The runs of point p of result r (its --repeat group, or p alone):
 * fills runs (room for max) and returns their number. */
size_t sb_plot_runs(const struct sb_point_result *p, const struct sb_point_result **runs,
                    size_t max);

/* Whether run p of result r was flagged by its self-check. */
bool sb_plot_run_flagged(const struct sb_plot_charts *pl, size_t r,
                         const struct sb_point_result *p);

/* The name of result r in legends: its label, script and driver
 * ("a: oltp_read_only, mysql"); for a single result, which needs no
 * label to tell it apart, only the script and the driver. */
void sb_plot_series_name(const struct sb_plot_charts *pl, size_t r, char *buf, size_t len);

/* What a chart of values draws, for its note: "one run per point", or
 * "geometric mean of 3 runs per point; whiskers: its 95% interval". */
void sb_plot_runs_note(const struct sb_plot_charts *pl, char *buf, size_t len);

/* The smallest and largest number of runs of the points drawn. */
void sb_plot_runs_range(const struct sb_plot_charts *pl, size_t *lo, size_t *hi);

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

/* Figure f of result r over the n keys from position i of the order: for
 * one key its sb_plot_fig. For a rate measured again as new points, and
 * for every rate of a --find-max search (pl->marks), the median of the
 * runs (the search's own rule, as its curve prints it) with lo and hi
 * the lowest and the highest run, and no ratio. */
void sb_plot_group_fig(const struct sb_plot_charts *pl, size_t r, size_t i, size_t n,
                       enum sb_point_result_fig f, double pct, struct sb_plot_fig *out);

/* The charts of the points (sb_plot_lines.c): throughput.gp or
 * throughput-rates.gp, relative.gp, cpu.gp, latency-throughput.gp. */
void sb_plot_chart_throughput(struct sb_plot_charts *pl);
void sb_plot_chart_relative(struct sb_plot_charts *pl);
void sb_plot_chart_cpu(struct sb_plot_charts *pl);
void sb_plot_chart_latency_throughput(struct sb_plot_charts *pl);

/* The title of key k in legends and panel titles: "4 threads", "2
 * threads at 500 tx/s (#2)". */
void sb_plot_key_title(const struct sb_plot_charts *pl, size_t k, char *buf, size_t len);

/* The response-time percentile curves (latency.gp): a panel per point
 * (at most 6) with a curve per result, or for one result a curve per
 * point (at most 12) on one colour scale in load order; none drawn when
 * no point has a histogram. */
void sb_plot_chart_latency(struct sb_plot_charts *pl);

#endif /* SB_PLOT_CHART_H */
