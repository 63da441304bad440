/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_HIST_JSON_H
#define SB_HIST_JSON_H

/*
 * A latency histogram in result files (doc/results.md, "points[].histogram"):
 * the layout, the exact count, sum and extremes, and every non-empty bucket
 * as [low_ns, high_ns, count]. Histograms of the same layout written this
 * way merge exactly by adding the counts of equal buckets, and
 * sb_hist_add_bucket rebuilds one with the same percentiles. Used for the
 * response, service-time and lag histograms of each point, and by anything
 * else that stores a histogram (one writer, one format).
 */

#include "pure/sb_histogram.h"
#include "core/sb_json_write.h"

/* Writes key: {"of": of, "unit": "ns", ...} into the object j is in. */
void sb_hist_json_write(struct sb_json *j, const char *key, const char *of,
                       const struct sb_hist *h);

#endif /* SB_HIST_JSON_H */
