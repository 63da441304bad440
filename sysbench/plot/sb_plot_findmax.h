/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_PLOT_FINDMAX_H
#define SB_PLOT_FINDMAX_H

#include <stddef.h>
#include <stdio.h>

/*
 * The --find-max chart (sb_plot_findmax.c): FILE-find-max.png (or .svg)
 * from the "find_max" object of the result document doc: the SLA
 * percentile and the achieved share of the target of every run and rate
 * against the target rate (a numeric axis), the SLA and 99.5% limits as
 * dashed lines, the rate found as a vertical line with the bracket up to
 * the lowest rate missed shaded, and the closed-loop throughput dotted.
 * The title names the script, the driver and the threads; runs whose
 * self-check was not ok (their points in doc) are ringed. Returns 0, or
 * -1 with one line in err.
 */
struct sb_jv;
int sb_plot_findmax(const struct sb_jv *doc, const char *path, FILE *out, char *err,
                    size_t errlen);

#endif /* SB_PLOT_FINDMAX_H */
