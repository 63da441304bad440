/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_PLOT_H
#define SB_PLOT_H

/*
 * Charts of one or more results, drawn by gnuplot to PNG or SVG. From the
 * name given to --plot (out.png) up to five files are derived, each drawn
 * only when it has something to show (two points, or two results at one
 * point):
 *
 *   out-throughput.png  transactions per second against threads (or the
 *                       target rate, a numeric axis), one line per result
 *   out-relative.png    throughput relative to the first result at each
 *                       point; for a single result, relative to its first
 *                       point (the sweep's scaling)
 *   out-cpu.png         CPU microseconds per transaction, user and system
 *                       stacked, client and server bars side by side
 *   out-latency.png     the response-time percentile curve from the
 *                       stored histograms (a point's runs pooled), both
 *                       axes logarithmic, the reported percentiles dotted
 *   out-latency-throughput.png  response time against achieved
 *                       throughput, over two or more rated points
 *
 * Each chart draws the figures the text beside it prints and says which
 * under its title: compare's tables (sb_plot_write_compare), else the
 * run's report (a --repeat group's geometric mean and 95% interval, as its
 * Repeat summary; a --find-max search's medians, as its curve). Legends
 * name each result's label (with several), script and driver; points
 * with a run whose self-check was not ok are ringed.
 *
 * gnuplot runs as a child process (fork and exec, no shell) on a script
 * made of the chart templates (sysbench/plot/templates, installed in
 * pkgdatadir/plot; see sb_gnuplot.h), its data in files beside it in a
 * private temporary directory that is removed afterwards (kept with
 * SB_PLOT_KEEP set). The program is the one configure found
 * (SB_GNUPLOT), unless the environment variable SB_GNUPLOT names another.
 */

#include <stddef.h>
#include <stdio.h>

#include "config/sb_lua_env.h"
#include "results/sb_result_writer.h"
#include "results/sb_result_file.h"
#include "plot/sb_plot_findmax.h"
#include "plot/sb_plot_time.h"
#include "plot/sb_plot_usl.h"

/* How many files one --plot writes. */
#define SB_PLOT_NCHARTS 4

/*
 * Checks, before any work is done, that path ends in .png or .svg and
 * that gnuplot can be run. Returns 0, or -1 with one line in err.
 */
int sb_plot_check(const char *path, char *err, size_t errlen);

/*
 * Draws the charts of the n results (n >= 1; the first is the reference)
 * that have something to show to the files derived from path, and prints
 * their names to out (may be NULL); with none to draw it says so and
 * returns 0. Returns 0, or -1 with one line in err (gnuplot missing, failed,
 * or did not write a file; the temporary directory could not be made).
 */
int sb_plot_write(const struct sb_result_file *res, size_t n, const char *path, FILE *out,
                  char *err, size_t errlen);

/* What a --find-max search adds to the charts of its run: the SLA line,
 * a mark at the rate found, and the final bracket (the rate held and the
 * lowest rate missed: the latency chart draws only their curves); NaN
 * when not known. */
struct sb_plot_marks {
    double sla_pct, sla_ms, rate_held, rate_missed;
};

/* sb_plot_write with the marks of a --find-max search (marks may be
 * NULL: none). */
int sb_plot_write_marked(const struct sb_result_file *res, size_t n, const char *path,
                         const struct sb_plot_marks *marks, FILE *out, char *err,
                         size_t errlen);

/*
 * compare's tables as it printed them, for the charts to draw the same
 * figures. A table is one figure (throughput, a latency percentile, a
 * side's CPU) with a cell per file and point: cells[r * nkeys + k] for
 * file r and key k of the grid sb_result_file_grid_build makes of the
 * same files (compare builds it the same way).
 */
struct sb_plot_cell {
    double value;        /* the file's figure (the geometric mean of its
                          * runs); NaN where the table prints '-' */
    double ratio;        /* against the first file; NaN for the first */
    double lo, hi;       /* the ratio's interval as printed; NaN: none */
    const char *verdict; /* "better", ... as printed; NULL: no verdict */
};

struct sb_plot_table {
    enum sb_point_result_fig fig;
    double pct;                        /* the percentile of a latency table */
    const struct sb_plot_cell *cells;  /* borrowed; nres * nkeys */
};

struct sb_plot_tables {
    const struct sb_plot_table *tables; /* borrowed */
    size_t ntables;
    /* Per file (index r, from 1): the confidence level of its ratios'
     * intervals (after the control for their number) and how many
     * figures were judged; NaN and 0 without verdicts. Borrowed. */
    const double *level;
    const size_t *judged;
};

/* sb_plot_write drawing compare's figures: every value, ratio,
 * interval and verdict a chart shows is the table's (tables may be
 * NULL: the figures are then those of the runs, as for a single file). */
int sb_plot_write_compare(const struct sb_result_file *res, size_t n, const char *path,
                          const struct sb_plot_tables *tables, FILE *out, char *err,
                          size_t errlen);

/*
 * Draws the charts of the run that o holds (every point of its sweep),
 * after the run: o's JSON document is written to memory and read back, so
 * the charts are exactly those of the --json file. The run is named after
 * the --json file, else the script. Returns 0, or -1 with one line in err.
 */
int sb_plot_output(const struct sb_result_writer *o, const struct sb_lua_env *env, const char *path,
                   FILE *out, char *err, size_t errlen);
#endif /* SB_PLOT_H */
