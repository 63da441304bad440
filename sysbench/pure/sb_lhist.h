/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_LHIST_H
#define SB_LHIST_H

/*
 * The bounded, logarithmically bucketed histograms scripts create with
 * sysbench.histogram.new(size, min, max), laid out as sysbench 1.0's are:
 * `size` buckets whose values grow geometrically from min to max. A value
 * goes to the bucket whose value is nearest on a log scale; values below
 * min (also zero, negative and NaN) count in the first bucket, values above
 * max in the last. Updates are atomic (relaxed), so one histogram may be
 * updated from several threads; printing and percentiles read a snapshot
 * that is as consistent as the counters at the time.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sb_lhist {
    size_t size;        /* number of buckets, >= 1 */
    double range_min;
    double range_max;
    double deduct;      /* log(range_min) */
    double mult;        /* (size - 1) / (log(range_max) - log(range_min)) */
    uint64_t *counts;   /* size counters (owned) */
};

/*
 * Allocates a histogram of `size` buckets over [range_min, range_max].
 * Returns NULL when size is 0 or memory runs out. A degenerate range
 * (min <= 0, min == max, or size 1) puts every value in the first bucket,
 * printed as range_min. range_min > range_max is accepted (1.0 does): the
 * buckets then run from min down to max. Free with sb_lhist_free.
 */
struct sb_lhist *sb_lhist_new(size_t size, double range_min, double range_max);
void sb_lhist_free(struct sb_lhist *h);

/* The bucket `value` counts in (see above), in [0, size). */
size_t sb_lhist_bucket(const struct sb_lhist *h, double value);

/* The representative value printed for bucket i. */
double sb_lhist_value(const struct sb_lhist *h, size_t i);

/* Counts one value. */
void sb_lhist_update(struct sb_lhist *h, double value);

/*
 * Writes the histogram as sysbench 1.0 prints it: a header line, then one
 * line per non-empty bucket ("%12.3f |" value, a bar of up to 40 '*' scaled
 * to the fullest bucket, the count). Prints nothing when it is empty.
 */
void sb_lhist_print(const struct sb_lhist *h, FILE *out);

/*
 * The value of the bucket holding the pct-th percentile (pct in [0, 100])
 * of the counted values, or 0 when nothing was counted.
 */
double sb_lhist_percentile(const struct sb_lhist *h, double pct);

#endif /* SB_LHIST_H */
