/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_USL_REPORT_H
#define SB_USL_REPORT_H

/*
 * A thread sweep told through the Universal Scalability Law (pure/sb_usl.h)
 * and the --threads=auto search (pure/sb_peak.h): the fit of a run's
 * closed-loop points, its text and its "usl" record, and the search's
 * table and "threads_auto" record (doc/results.md).
 */

#include <stdbool.h>
#include <stdio.h>

#include "core/sb_json_write.h"
#include "pure/sb_peak.h"
#include "pure/sb_usl.h"

struct sb_result_writer;

/*
 * Fits the model to o's complete points (every run a point of its own,
 * repeats included) when all are closed loop (no --rate or --tx-rate) and
 * they span at least SB_USL_MIN_POINTS thread counts. Returns true with
 * fit filled, false when there is no such sweep.
 */
bool sb_usl_report_fit(const struct sb_result_writer *o, struct sb_usl_fit *fit);

/* Prints the fit: the parameters, N* and X(N*), R^2, the largest relative
 * residual, and in plain words a poor fit or a peak outside the range. */
void sb_usl_report_print(const struct sb_usl_fit *fit, FILE *out);

/* Writes "usl": {...} (doc/results.md) into the open object of j. */
void sb_usl_report_json(struct sb_json *j, const struct sb_usl_fit *fit);

/* Prints the search's end: one row per thread count (runs, median tps,
 * the SLA percentile, the fitted tps when fit is not NULL), the answer
 * and why the search stopped. */
void sb_peak_report_print(const struct sb_peak *s, const struct sb_usl_fit *fit, FILE *out);

/* The latency percentile --threads=auto records without an --sla. */
#define SB_PEAK_REPORT_PCT 99.0

/* Writes "threads_auto": {...} (doc/results.md) into the open object of
 * j. The search is complete when it ended by itself (s->end is set). */
void sb_peak_report_json(struct sb_json *j, const struct sb_peak *s);

/* The reason s ended, in a few words ("the bracket is narrow"). */
const char *sb_peak_report_end(const struct sb_peak *s);

#endif /* SB_USL_REPORT_H */
