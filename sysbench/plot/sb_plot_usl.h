/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_PLOT_USL_H
#define SB_PLOT_USL_H

#include <stddef.h>
#include <stdio.h>

/*
 * The Universal Scalability Law chart of a thread sweep (sb_plot_usl.c):
 * FILE-usl.png (or .svg) from the "usl" record of the result document
 * doc (results/sb_usl_report.h) and its points: every run's throughput
 * against its threads, the fitted curve X(N) from the record's lambda,
 * sigma and kappa, N* and X(N*) marked (or the level the curve tends to
 * when it has no peak), the parameters and R^2 in the legend, and in red
 * on the chart a poor fit or a peak outside the range measured.
 *
 * Draws nothing (returns 0, prints nothing) when doc has no "usl" record
 * or the record has fewer than SB_USL_MIN_POINTS points: a fit of so few
 * is not made. Returns 0, or -1 with one line in err.
 */
struct sb_jv;
int sb_plot_usl(const struct sb_jv *doc, const char *path, FILE *out, char *err, size_t errlen);

#endif /* SB_PLOT_USL_H */
