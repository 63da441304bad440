/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_PLOT_TIME_H
#define SB_PLOT_TIME_H

#include <stddef.h>
#include <stdio.h>

#include "results/sb_point_result.h"

/*
 * The time axis of one point (sb_plot_time.c, timeline.gp):
 * FILE-timeline.png (or .svg) with, per interval, throughput against the
 * target, response time p50/p99 (a log axis when they span more than two
 * decades) and start lag p99, the backlog (at a target rate only), and
 * the client/server CPU that was measured. The title names the run (who:
 * "oltp_read_only, sqlite", may be NULL) and its point; the note under
 * it, the run's self-check. Without intervals (no --report-interval) it
 * draws nothing and says so on out.
 * Returns 0, or -1 with one line in err.
 */
int sb_plot_timeline(const struct sb_point_result *p, const char *who, const char *path,
                     FILE *out, char *err, size_t errlen);

#endif /* SB_PLOT_TIME_H */
