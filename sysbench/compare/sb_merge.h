/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_MERGE_H
#define SB_MERGE_H

/*
 * `sysbench merge A.json B.json ... [--json=ALL.json]`: the result files
 * of the N instances of one scale-out run (--instance=I/N, sb_instance.h)
 * combined into one result, exactly where the files allow it:
 *
 *   - counts (events, queries, errors, late starts, ...) and rates are
 *     summed; the target rate is the global one;
 *   - the response-time histograms, and in rate modes the service-time
 *     and lag histograms, are merged bucket by bucket, and the final
 *     percentiles are computed from the merged histograms by the run's own
 *     rule (sb_hist_percentile); when some file lacks the service or lag
 *     histogram (an older version), that figure's percentiles are the
 *     largest of the instances' and merged.upper_bounds says so;
 *   - interval series are aligned by absolute time (each point's
 *     start_unix_s plus the interval's time_s) and summed; per-interval
 *     percentiles, for which the files hold no histogram, are the largest
 *     of the instances' (an upper bound of the true value), and so is
 *     rate.max_backlog (the sum of the instances' maxima);
 *   - client CPU is summed over instances; the server's CPU is taken once,
 *     from the lowest-numbered instance that measured it.
 *
 * Inputs that are not one experiment (another script, command, seed,
 * start time, option or sweep; duplicate or missing instances) are
 * refused with one line; --allow-missing merges the instances present
 * into a result labelled partial. The merged window is the earliest
 * start to the last end, its rates are over that window and its "ended"
 * is the worst instance's, so an instance cut short shows (and makes the
 * exit status 3, as a partial merge does). The result has the schema of a run's --json file
 * (doc/results.md) plus a "merged" member, so `compare` and `--plot` read
 * it like any other.
 */

#include <stdbool.h>
#include <stdio.h>

#include "core/sb_json_read.h"

/* Whether argv's first non-option word is "merge". */
bool sb_merge_requested(int argc, char **argv);

/*
 * Runs the merge command: reads the files named in argv, prints the
 * merged report to out and writes --json=FILE when given. Returns the
 * exit status: 0; 3 when the merged run is not complete (an instance
 * cut short, or missing with --allow-missing: the report and file are
 * written and say so); or 1 after printing one "FATAL:" line on stderr.
 */
int sb_merge_main(int argc, char **argv, FILE *out);

/* ---- sb_merge_types.c: a point's points[].types and points[].statements
 * merged into pts[0] (the merged tree's point) from the n instances'
 * points. Returns 0, or -1 with one line in err (instances with different
 * transaction types, out of memory). */
int sb_merge_types(struct sb_jv *const *pts, size_t n, char *err, size_t errlen);

/* ---- sb_merge_print.c: editing the merged tree and writing it, shared
 * by the sb_merge files (not for other modules) */

/* A writable member of object o (NULL when missing or o is no object). */
struct sb_jv *sb_merge_get(struct sb_jv *o, const char *key);
/* Member key of object o, appended (as null) when missing. Appending may
 * move o's other members: do not keep pointers to them across this call.
 * Returns NULL when out of memory or o is no object. */
struct sb_jv *sb_merge_set(struct sb_jv *o, const char *key);
/* Whether a and b are equal JSON values (both NULL counts as equal). */
bool sb_merge_jv_equal(const struct sb_jv *a, const struct sb_jv *b);
/* Sets member key of o to a copy of the string s (null when s is NULL).
 * Returns 0, or -1 when out of memory or o is no object. */
int sb_merge_set_str(struct sb_jv *o, const char *key, const char *s);
/* Frees what v owns and makes it null. */
void sb_merge_clear(struct sb_jv *v);
/* Sets member key of o to the number x (null when x is NaN). Returns 0 or
 * -1 when out of memory. */
int sb_merge_set_num(struct sb_jv *o, const char *key, double x);
/* Writes v as JSON to fp. Returns 0, or -1 on a write error. */
int sb_merge_write_json(const struct sb_jv *v, FILE *fp);

/* ---- sb_merge_report.c: the text report */

/* Prints the text report of a merged document (doc) to out. */
void sb_merge_print_report(const struct sb_jv *doc, FILE *out);

/* ---- sb_merge_status.c: what the merged run was as a whole */

/* Point p's window over the instances: the earliest start_unix_s to the
 * latest start_unix_s + final.time_s, and the earliest first dispatch
 * (with its due time); NaN where no instance says. */
struct sb_merge_window {
    double start, end, first_dispatch, first_due;
};
/* The window of the n instances' points pts (unedited). */
void sb_merge_window_of(struct sb_jv *const *pts, size_t n, struct sb_merge_window *w);
/* Sets the merged point pt's final.time_s to the window and its rates
 * (tps, qps, errors per second, rate.achieved_tps and _pct) to its summed
 * counts over it: an instance cut short lowers the rate rather than the
 * time. */
void sb_merge_put_window(struct sb_jv *pt, const struct sb_merge_window *w);
/* Sets out's "ended" to the worst instance's (failed, then interrupted,
 * then completed), cancelled summed, deadline "cut" when any was. docs
 * are the n instances' documents; out may be docs[0]. Returns 0 or -1
 * when out of memory. */
int sb_merge_ended(struct sb_jv *out, struct sb_jv *const *docs, size_t n);
/* Adds to the "merged" member mg: count, partial and missing (the
 * instances of count not in index[0..n-1], ascending), cut_short (the
 * instances that did not run point 0 through, and when they stopped),
 * start_spread, each instances[] entry's measured start, and complete
 * (all present and none cut short). docs are unedited, in index order.
 * Returns 0 or -1 when out of memory. */
int sb_merge_status(struct sb_jv *mg, struct sb_jv *const *docs, const unsigned *index, size_t n,
                    unsigned count);
/* Whether merged document doc is a complete run (merged.complete). */
bool sb_merge_complete(const struct sb_jv *doc);
/* Prints the PARTIAL, CUT SHORT and start lines of doc's report. */
void sb_merge_print_status(const struct sb_jv *doc, FILE *out);

#endif /* SB_MERGE_H */
