/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_HGRM_H
#define SB_HGRM_H

/*
 * --hgrm=FILE: the response-time histogram in HdrHistogram's percentile
 * distribution text format (the .hgrm files HdrHistogram's plotter and
 * its tools read): a header line, one row per reporting level with the
 * columns Value (ms), Percentile (0..1), TotalCount and 1/(1-Percentile),
 * five levels per halving of the distance to 100% as HdrHistogram's
 * default, a last row at 100% without the last column, and the
 * "#[Mean ...]", "#[Max ...]" and "#[Buckets ...]" footer lines. A value
 * is the upper bound of its bucket capped at the largest value recorded,
 * the rule the text report's percentiles follow, so the two agree.
 */

#include <stddef.h>
#include <stdio.h>

#include "pure/sb_histogram.h"

struct sb_result_writer;

/* Writes h to out with values divided by unit_ns (1e6: milliseconds).
 * Returns 0, or -1 when out reported a write error. */
int sb_hgrm_write(const struct sb_hist *h, double unit_ns, FILE *out);

/*
 * Checks before the run that the files of npoints points (0: not known
 * yet) can be written under sb_safefile.h's rule, without creating or
 * changing anything. Returns 0, or -1 with one line in err.
 */
int sb_hgrm_check(const char *path, size_t npoints, char *err, size_t errlen);

/*
 * Writes the response-time histogram of every complete point of o: to
 * path for a single point, to path with "-N" (N the point's index) before
 * its extension for a sweep. Each file is written to a temporary name and
 * renamed over its final name once complete (sb_safefile.h: never through
 * a symlink, never over a file that is not a histogram). Prints the names
 * written to out (may be NULL). Returns 0, or -1 with one line in err.
 */
int sb_hgrm_write_output(const struct sb_result_writer *o, const char *path, FILE *out,
                         char *err, size_t errlen);

#endif /* SB_HGRM_H */
