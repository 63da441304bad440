/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_COMPARE_STMT_H
#define SB_COMPARE_STMT_H

/*
 * compare's section on the figures per statement (--report-per-statement,
 * points[].statements): for every statement a point of the first file
 * has, its median and 99th-percentile latency in each other file's matching
 * point, judged as compare judges every figure (sb_verdict.h: Welch's t on
 * the logs of the runs' figures, needing --repeat on both sides, and the
 * statements' verdicts controlled together for their number), and the
 * statements whose latency changed listed as
 *   "UPDATE sbtest1 SET k=k+? WHERE id=? p99 +12% [8%, 16%], worse".
 */

#include <stdio.h>

#include "results/sb_result_file.h"

/* Prints the section for the n results (res[0] is the reference) over
 * grid g; nothing when no file has figures per statement. */
void sb_compare_stmt_print(FILE *out, const struct sb_result_file *res, size_t n,
                           const struct sb_result_file_grid *g);

#endif /* SB_COMPARE_STMT_H */
