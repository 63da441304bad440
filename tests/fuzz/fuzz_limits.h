/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_FUZZ_LIMITS_H
#define SB_FUZZ_LIMITS_H

/*
 * What the option and config harnesses check once sb_config_load accepted
 * an input: every duration the run converts to int64 nanoseconds (alone,
 * and the sums the run adds to a clock reading: warmup + time + forced
 * shutdown) stays below INT64_MAX with room for the clock, and every rate
 * gives a schedule period of at least a nanosecond. A value the loader
 * lets through beyond that (--time=18446744074 once ran 0 s) aborts the
 * replay, so `make check` fails in any build, sanitizers or not.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "config/sb_config.h"

/* A clock reading (uptime) is far below this; the rest is for durations. */
#define SB_FUZZ_MAX_NS 8e18

static void sb_fuzz_require(int ok, const char *what, double v)
{
    if (!ok) {
        fprintf(stderr, "accepted value out of range: %s = %g\n", what, v);
        abort();
    }
}

static void sb_fuzz_check_limits(const struct sb_config *c)
{
    const double secs[] = {c->time_limit, c->warmup_time, c->report_interval,
                           c->forced_shutdown, c->sweep_cooldown, c->repeat_cooldown,
                           c->log_agg_s, c->tx_jitter_us / 1e6, c->tx_spin_us / 1e6};
    double run = c->time_limit + c->warmup_time + c->forced_shutdown;

    for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++)
        sb_fuzz_require(isfinite(secs[i]) && secs[i] >= 0 && secs[i] * 1e9 < SB_FUZZ_MAX_NS,
                        "a duration (s)", secs[i]);
    sb_fuzz_require(run * 1e9 < SB_FUZZ_MAX_NS, "warmup + time + forced shutdown (s)", run);
    for (size_t i = 0; i < c->ncheckpoints; i++)
        sb_fuzz_require(c->checkpoints[i] * 1e9 + run * 1e9 < SB_FUZZ_MAX_NS,
                        "--report-checkpoints (s)", c->checkpoints[i]);
    sb_fuzz_require(c->poisson_rate <= 1e9, "--rate", c->poisson_rate);
    for (size_t i = 0; i < c->ntx_rate_list; i++)
        sb_fuzz_require(c->tx_rate_list[i] <= 1e9, "--tx-rate", c->tx_rate_list[i]);
    sb_fuzz_require(c->instance.start_at * 1e9 < SB_FUZZ_MAX_NS, "--start-at",
                    c->instance.start_at);
}

#endif /* SB_FUZZ_LIMITS_H */
