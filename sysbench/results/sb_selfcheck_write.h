/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_SELFCHECK_WRITE_H
#define SB_SELFCHECK_WRITE_H

/*
 * The self-check (sb_selfcheck.h) as people and machines read it: the
 * "Self-check" section of the text report and the "selfcheck" object of a
 * point in the JSON document (doc/results.md).
 */

#include <stdio.h>

#include "core/sb_json_write.h"
#include "pure/sb_selfcheck.h"

/* What the flagged figures are, for the section's last line. */
struct sb_selfcheck_figures {
    double tps;
    double p95_ms, p99_ms;   /* response time */
};

/*
 * Prints the "Self-check:" section: each check with the figures it was
 * judged on and its threshold, what to do about a flag, and the run's
 * headline figures with their flags ("OK" when none).
 */
void sb_selfcheck_print(const struct sb_selfcheck *c, const struct sb_selfcheck_figures *f,
                        FILE *out);

/*
 * The verdict alone, for the report's summary block: one line
 * "    self-check: OK" (saying so when stationarity was not tested) or
 * "FLAGGED [client-bound, ...]", then the "=> what to do" line of each
 * flag, as sb_selfcheck_print words them.
 */
void sb_selfcheck_print_brief(const struct sb_selfcheck *c, FILE *out);

/* sb_selfcheck_print with the figures taken from a run's merged
 * statistics over t seconds. */
struct sb_stats;
void sb_selfcheck_print_run(const struct sb_selfcheck *c, const struct sb_stats *total, double t,
                            FILE *out);

/* Writes key "selfcheck": {...} into the object j is in; tps (ntps values
 * of sample_s seconds, may be NULL) is the series the trend was fitted
 * to. */
void sb_selfcheck_json(struct sb_json *j, const struct sb_selfcheck *c, const double *tps,
                       size_t ntps, double sample_s);

#endif /* SB_SELFCHECK_WRITE_H */
