/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_PLOT_FIG_H
#define SB_PLOT_FIG_H

/*
 * The figures the charts draw and how their legends name them
 * (sb_plot_fig.c); internal to plot/. The chart writers take every value
 * they draw from here, so a chart shows what the text beside it prints.
 */

#include <stdbool.h>
#include <stddef.h>

#include "plot/sb_plot_chart.h"

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

/* Figure f of result r over the n keys from position i of the order: for
 * one key its sb_plot_fig. For a rate measured again as new points, and
 * for every rate of a --find-max search (pl->marks), the median of the
 * runs (the search's own rule, as its curve prints it) with lo and hi
 * the lowest and the highest run, and no ratio. */
void sb_plot_group_fig(const struct sb_plot_charts *pl, size_t r, size_t i, size_t n,
                       enum sb_point_result_fig f, double pct, struct sb_plot_fig *out);

#endif /* SB_PLOT_FIG_H */
