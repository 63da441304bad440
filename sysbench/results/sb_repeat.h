/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_REPEAT_H
#define SB_REPEAT_H

/*
 * --repeat: the summary of the repeated runs of a point. Each run is a
 * point of the output of its own (its figures stay in the JSON, with
 * "repeat" and "repeats"); the runs of one point form a group, and this
 * module summarizes a group (sb_ci.h): the geometric mean, the median,
 * the spread (min, max) and the 95% confidence interval of the geometric
 * mean (on the logs, so it stays positive) of the throughput, each
 * response-time percentile and each side's CPU per transaction. The text
 * summary follows the group's runs; the JSON document gets a top-level
 * "repeat_summary" array with one object per group.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pure/sb_ci.h"
#include "core/sb_json_write.h"

struct sb_result_writer;
struct sb_point_result;

/*
 * The summary of n runs' figure x (NaN for a run without it), as the
 * report prints it: sb_ci_summarize_log, and for a response-time
 * percentile (a histogram bucket's upper bound, up to 2^-7 above the true
 * value) the interval's low end lowered by that resolution. Pure.
 */
void sb_repeat_summarize(const double *x, size_t n, bool percentile, struct sb_ci_summary *s);

/* One point past the group of runs that starts at points[first]. */
size_t sb_repeat_group_end(const struct sb_result_writer *o, size_t first);

/*
 * Prints the summary of the group starting at points[first] (a header
 * line, then a row per figure: median, [min, max], 95% CI and its half
 * width relative to the median). Prints nothing when the group has fewer
 * than two complete runs.
 */
void sb_repeat_print_group(const struct sb_result_writer *o, size_t first, FILE *out);

/* Writes "repeat_summary": [...] (groups of two or more runs only; an
 * empty array when there are none) into the open document object. */
void sb_repeat_json(struct sb_json *j, const struct sb_result_writer *o);

#endif /* SB_REPEAT_H */
