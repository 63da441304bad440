/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_VERDICT_H
#define SB_VERDICT_H

/*
 * compare's judgement: the figure of each side of a comparison, the ratio
 * of the two with its confidence interval and a verdict (sb_ci.h), the
 * control for the number of figures judged, the runs the files flag in
 * their self-check, and the list of options and environment fields that
 * differ between the files.
 *
 * A verdict needs evidence of run-to-run variation: two or more runs
 * (--repeat) on both sides, compared by Welch's t on the logs of the runs'
 * figures. A single run shows only how the figure varied within that run,
 * which says nothing of how a second run would differ (on MariaDB two
 * identical 6 s runs differed by up to 1.7x in throughput), so single
 * runs get their ratio and no verdict. The figure shown for a side is the
 * geometric mean of its runs (the run's own figure for a single run), so
 * the ratio printed is the ratio of the figures printed. Latency
 * percentiles are histogram bucket bounds (the true value lies up to 2^-7
 * below), so a ratio of two has its interval widened by that on each side.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pure/sb_ci.h"
#include "results/sb_result_file.h"

/* The chance of any false verdict among the figures of one comparison. */
#define SB_VERDICT_ALPHA 0.05
/* The power behind the detectable change. */
#define SB_VERDICT_POWER 0.80

/* How a ratio's interval was obtained. */
enum sb_verdict_method {
    SB_VERDICT_NONE = 0,      /* no interval: a side has fewer than 2 runs */
    SB_VERDICT_REPEATS        /* Welch on the repeats */
};

struct sb_verdict {
    double a, b;              /* the figures shown; NaN when absent */
    size_t runs_a, runs_b;    /* runs that have the figure on each side */
    struct sb_ci_ratio r;     /* b against a; ratio NaN when unknown */
    enum sb_ci_verdict v;
    enum sb_verdict_method method;
    bool latency;             /* bucket bounds: interval widened */
    bool higher_is_better;
};

/*
 * Judges runs b against runs a (each a figure per run; NaN for a run
 * without it) at the 95% level, before any control for the number of
 * figures (sb_verdict_family). A side's figure is the geometric mean of
 * its runs; with a run at 0 (or below) the arithmetic mean, without a
 * verdict. latency says the values are histogram percentiles;
 * higher_is_better gives the direction (throughput) or not (latency,
 * CPU). Never fails: missing figures give NaN and SB_CI_UNKNOWN.
 */
void sb_verdict_from_runs(const double *a, size_t na, const double *b, size_t nb, bool latency,
                          bool higher_is_better, struct sb_verdict *out);

/* The figure of point p that compare shows (percentile pct for latency):
 * the geometric mean of its runs as sb_verdict_from_runs takes it; NaN
 * when no run has it. */
double sb_verdict_value(const struct sb_point_result *p, enum sb_point_result_fig f, double pct);

/* Judges figure f (percentile pct for latency) of point b against point
 * a from their runs (sb_point_result_fig_runs), as sb_verdict_from_runs. */
void sb_verdict_judge(const struct sb_point_result *a, const struct sb_point_result *b,
                      enum sb_point_result_fig f, double pct, bool higher_is_better,
                      struct sb_verdict *out);

/*
 * The smallest change (a fraction: 0.05 = 5%) the comparison behind v had
 * an 80% chance (SB_VERDICT_POWER) to call better or worse, at its
 * interval's level and the runs' variation (sb_ci_detectable, widened as
 * the interval is for percentiles); NaN without an interval. A "no
 * significant difference" says nothing of changes below it. Computed on
 * demand: it costs a numerical integration.
 */
double sb_verdict_detectable(const struct sb_verdict *v);

/*
 * Controls the n verdicts of one comparison for their number (Bonferroni):
 * with m of them having an interval, each interval is set to level
 * 1 - SB_VERDICT_ALPHA / m and its verdict taken again from it, so that
 * all m intervals hold together with 95% confidence and the chance of any
 * false "better" or "worse" among them is at most 5%; the verdict is
 * always whether the printed interval excludes 1. Returns m.
 */
size_t sb_verdict_family(struct sb_verdict *v, size_t n);

/*
 * Prints a WARNING naming every run of the n result files whose
 * self-check (points[].selfcheck) is not ok, with its flags, and says how
 * many runs were flagged; prints nothing when none was. Returns the number
 * of flagged runs, or -1 with one line in err when a file cannot be read
 * again.
 */
int sb_verdict_print_selfcheck(FILE *out, const char *const *paths, char *const *labels,
                               size_t n, char *err, size_t errlen);

/*
 * Prints every option and environment field whose value differs between
 * the n result files (paths and labels parallel), then a warning when
 * anything but the server differs (its version, settings and binary,
 * host, port, socket, database, user, --server-pid). Output files (--json, --csv, --plot,
 * --hgrm, --log) and the verbosity are not compared. Returns the number of differing fields
 * other than the server's, or -1 with one line in err when a file cannot
 * be read again.
 */
int sb_verdict_print_diffs(FILE *out, const char *const *paths, char *const *labels, size_t n,
                           char *err, size_t errlen);

#endif /* SB_VERDICT_H */
