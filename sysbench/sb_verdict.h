#ifndef SB_VERDICT_H
#define SB_VERDICT_H

/*
 * compare's judgement: the ratio of a figure between two result files
 * with its 95% confidence interval and a verdict (sb_ci.h), and the list
 * of options and environment fields that differ between the files.
 *
 * The interval comes from the repeats when both points have two or more
 * runs (--repeat): Welch's t on the logs of the runs' figures. For single
 * runs it comes from the interval series (--report-interval): batch means
 * (sb_ci_batch_means) stand in for independent samples, their Welch
 * interval is centred on the ratio of the whole-run figures. Latency
 * percentiles are histogram bucket bounds (relative error up to 2^-7), so
 * their interval is widened by that resolution on each side.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sb_ci.h"
#include "sb_resfile.h"

/* How a ratio's interval was obtained. */
enum sb_verdict_method {
    SB_VERDICT_NONE = 0,      /* no interval: one run without intervals */
    SB_VERDICT_REPEATS,       /* Welch on the repeats */
    SB_VERDICT_BATCHES        /* Welch on batch means of the intervals */
};

struct sb_verdict {
    struct sb_ci_ratio r;     /* b against a; ratio NaN when unknown */
    enum sb_ci_verdict v;
    enum sb_verdict_method method;
};

/*
 * Judges figure f (percentile pct for latency) of point b against point
 * a. higher_is_better gives the direction (throughput) or not (latency,
 * CPU). Never fails: a figure missing on either side gives a NaN ratio
 * and SB_CI_UNKNOWN.
 */
void sb_verdict_judge(const struct sb_point *a, const struct sb_point *b,
                      enum sb_result_fig f, double pct, bool higher_is_better,
                      struct sb_verdict *out);

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
