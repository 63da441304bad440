/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_TYPE_WATCH_H
#define SB_TYPE_WATCH_H

/*
 * A mix's figures per transaction type for each interval report (the
 * CSV's per-type columns and the metrics' `type` label): the reporter's
 * counterpart of its totals, differences of each type's statistics summed
 * over the slots of the current epoch. Main thread only; the workers'
 * side (sb_stats_slot.types) is recorded as for the final figures.
 */

#include <stddef.h>

#include "engine/sb_run.h"
#include "pure/sb_mix.h"
#include "results/sb_point_result.h"
#include "measure/sb_stats.h"

struct sb_type_watch {
    unsigned n;                      /* the mix's types; 0: no mix */
    int prev_epoch;
    struct sb_stats *prev[SB_MIX_MAX]; /* each type at the last report */
    struct sb_stats *cur, *delta;    /* scratch */
};

/*
 * Sets t up for a mix of n types (0: nothing to do, every call a no-op).
 * Returns 0, or -1 when out of memory (t is then empty: n 0).
 */
int sb_type_watch_init(struct sb_type_watch *t, unsigned n);

/* Frees what t holds (not t); t may be zeroed. */
void sb_type_watch_free(struct sb_type_watch *t);

/*
 * Fills out[0..t->n-1] with each type's figures since the last call
 * (or since the statistics were last reset: a new epoch starts afresh)
 * over interval_s seconds, latencies at pcts[0..npcts-1]. Allocates
 * nothing.
 */
void sb_type_watch_collect(struct sb_type_watch *t, const struct sb_run *run, double interval_s,
                           const double *pcts, size_t npcts, struct sb_type_interval *out);

#endif /* SB_TYPE_WATCH_H */
