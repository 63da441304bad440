/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_POINT_H
#define SB_POINT_H

/*
 * One point of a sweep, frozen before it runs. The general configuration
 * (sb_config.h) is read-only once parsed; what differs between the points
 * of a sweep (--threads and --tx-rate lists, --repeat, --find-max probes)
 * is a struct sb_point_config that main builds per run and passes to the
 * run explicitly. The run keeps its own copy, so the Lua states (main and
 * workers), the reports and the result files all see the same values.
 */

#include <stdbool.h>
#include <stddef.h>

#include "pure/sb_pacer.h"

struct sb_config;

/* What one point runs with. Build it with sb_point_config_make; treat it
 * as read-only afterwards. */
struct sb_point_config {
    unsigned threads;        /* this process's worker threads */
    enum sb_pace_mode mode;
    double tx_rate;          /* --tx-rate of the point, all instances; 0 without */
    /* This process's share of the target (rate over --instances), and the
     * effective --tx-jitter (sb_pacer_jitter_us); 0 in closed loop. */
    double target_tps;
    double jitter_us;
    unsigned repeat, nrepeat; /* run repeat of nrepeat (--repeat), 1-based */
};

/*
 * Builds the point with `threads` threads at --tx-rate tx_rate (0: the
 * configuration's --rate, or closed loop), run `repeat` of `nrepeat`, from
 * the read-only configuration cfg. Never fails.
 */
struct sb_point_config sb_point_config_make(const struct sb_config *cfg, unsigned threads,
                                            double tx_rate, unsigned repeat,
                                            unsigned nrepeat);

#endif /* SB_POINT_H */
