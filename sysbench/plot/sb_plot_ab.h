/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_PLOT_AB_H
#define SB_PLOT_AB_H

/*
 * The chart of a `sysbench ab` comparison (sb_plot_ab.c): FILE-ab.png
 * (or .svg), the ratio B/A of the primary figure in every round (marked
 * by which target went first), the estimate and its interval at every
 * look (a band narrowing over the rounds, at each look's own level), no
 * change and the equivalence margin as lines, the verdict in the title.
 * It shows what the comparison's table shows: the primary figure's
 * ratio, interval and verdict.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct sb_plot_ab_data {
    const char *title;            /* the verdict line */
    const char *figure;           /* the primary figure, for the axis */
    const char *label_a, *label_b;
    size_t nrounds;
    const double *ratio;          /* per round, B/A (NaN: not measured) */
    const bool *a_first;          /* per round */
    size_t nlooks;
    const size_t *look_round;     /* per look: the round it followed */
    const double *look_ratio, *look_lo, *look_hi;
    double margin;                /* a fraction; 0: none drawn */
};

/*
 * Draws the chart for --plot=path (a .png or .svg name; the chart is
 * path with "-ab" before the suffix) and prints its name to out (may be
 * NULL). Returns 0, or -1 with one line in err (a bad name, gnuplot
 * missing or failed).
 */
int sb_plot_ab(const struct sb_plot_ab_data *d, const char *path, FILE *out, char *err,
               size_t errlen);

#endif /* SB_PLOT_AB_H */
