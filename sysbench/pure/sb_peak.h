/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_PEAK_H
#define SB_PEAK_H

/*
 * --threads=auto[:MAX]: the search for the thread count of the highest
 * closed-loop throughput (with an SLA: the highest throughput whose
 * latency percentile stays within the limit).
 *
 *  1. Doubling: 1, 2, 4, ... up to MAX, while each new count's throughput
 *     grows over the best before it by more than the noise (the noise of
 *     the two counts' medians, estimated per count: SB_PEAK_NOISE_Z
 *     below), and while the newest count is the best at all (it grew,
 *     within the noise): the doubling ends at the first count below the
 *     best, the fall. A count that misses the SLA ends it too.
 *  2. Refining: between the best count's measured neighbours, golden-
 *     section steps on the integer count (a probe 38.2% into the wider
 *     side), until every count of the bracket is within SB_PEAK_BRACKET of the
 *     best (or its immediate neighbour).
 *  3. Confirming: the best is measured to 3 runs and its neighbours to 2,
 *     and every verdict uses medians, so a single lucky run cannot win; a
 *     neighbour still tied with the best (within the noise, more than
 *     SB_PEAK_MIN_STEP below) gets one more run, and the best with it.
 *     Should a neighbour overtake, the bracket moves and the search goes
 *     on around the new best.
 *  It stops there, or when the next run would overrun --budget (the
 *  caller says how long a run may take).
 *
 * The module decides, the caller measures: sb_peak_next says which thread
 * count to run next, sb_peak_record takes the run's figures. Pure: no I/O,
 * no allocation, no clock (the caller passes the time spent).
 */

#include <stdbool.h>
#include <stddef.h>

/* Most thread counts one search measures, runs kept per count, and runs
 * in all. */
#define SB_PEAK_MAX_POINTS 64
#define SB_PEAK_MAX_RUNS 8
#define SB_PEAK_MAX_ORDER (SB_PEAK_MAX_POINTS * SB_PEAK_MAX_RUNS)
/* The noise: two counts' medians are told apart when they differ by more
 * than SB_PEAK_NOISE_Z times their combined relative uncertainty (sb_peak.c,
 * noise()), and never by less than SB_PEAK_MIN_STEP, a gain too small to be
 * worth runs. A count's uncertainty comes from its runs' own 1-s samples
 * and from the run-to-run spread of the counts measured more than once,
 * pooled; before there is any, a run is taken to be off by
 * SB_PEAK_NOISE_PRIOR, a prior worth SB_PEAK_PRIOR_WEIGHT runs. */
#define SB_PEAK_NOISE_Z 1.5
#define SB_PEAK_MIN_STEP 0.02
#define SB_PEAK_NOISE_PRIOR 0.05
#define SB_PEAK_PRIOR_WEIGHT 2.0
/* Runs of the best count, and of each of its neighbours, at the end. */
#define SB_PEAK_CONFIRM_BEST 3
#define SB_PEAK_CONFIRM_NEIGHBOUR 2
/* The bracket is narrow when no count in it is further than this share of
 * the best count from it (or than 1 thread). */
#define SB_PEAK_BRACKET 0.25
/* A bracket at most this wide (highest count over lowest) whose counts are
 * all within the noise of the best is flat: narrowing it further could
 * not tell its counts apart (sb_peak.c, flat()). */
#define SB_PEAK_FLAT_RATIO 1.5

/* What one run measured; NaN for what it could not. */
struct sb_peak_fig {
    double tps;
    double latency_ms;  /* the SLA percentile (NaN without an SLA) */
    double rse;         /* relative standard error of tps within the run (sb_peak_rse) */
};

/* One thread count: its runs, medians, and the SLA verdict on them. */
struct sb_peak_point {
    unsigned threads;
    unsigned runs;
    double tps[SB_PEAK_MAX_RUNS], latency_ms[SB_PEAK_MAX_RUNS], rse[SB_PEAK_MAX_RUNS];
    double median_tps, median_latency_ms;
    bool within_sla;    /* always true without an SLA; false when no transaction ran */
};

struct sb_peak_params {
    unsigned max_threads;   /* MAX of auto:MAX, >= 1 */
    double sla_pct, sla_ms; /* 0: no SLA */
    unsigned repeat;        /* runs of each new count (0 counts as 1), <= SB_PEAK_MAX_RUNS */
    double budget_s;        /* 0: no budget */
};

enum sb_peak_stage {
    SB_PEAK_DOUBLING,
    SB_PEAK_REFINING,
    SB_PEAK_CONFIRMING,
    SB_PEAK_DONE
};

/* Why the search ended. */
enum sb_peak_end {
    SB_PEAK_GOING,          /* not ended (or the caller stopped it: a failed run, a signal) */
    SB_PEAK_NARROW,         /* the bracket is narrow and confirmed */
    SB_PEAK_FLAT,           /* the bracket is flat within the noise, and confirmed */
    SB_PEAK_BUDGET,         /* the next run would overrun --budget */
    SB_PEAK_NO_SLA,         /* even 1 thread missed the SLA */
    SB_PEAK_NOTHING,        /* 1 thread ran no transaction */
    SB_PEAK_FULL            /* SB_PEAK_MAX_POINTS counts measured */
};

/* The search; every field is read-only for the caller. */
struct sb_peak {
    struct sb_peak_params par;
    struct sb_peak_point pts[SB_PEAK_MAX_POINTS]; /* by threads, ascending */
    size_t npts;
    unsigned order[SB_PEAK_MAX_ORDER]; /* the thread count of every run, in run order */
    size_t nruns;
    enum sb_peak_stage stage;
    enum sb_peak_end end;
    /* The doubling's counts, and whether each grew by more than the noise. */
    unsigned dbl[32];
    bool grew[32];
    size_t ndbl;
    double noise;              /* the threshold of the last doubling verdict */
    unsigned plateau_top;      /* the doubling ended on a plateau at this count; 0 if not */
    bool flat;                 /* the refining stopped on a flat bracket */
    unsigned current;          /* the count being measured; 0 before any */
    unsigned due;              /* runs it still needs before the next decision */
    /* The answer so far: the best count and its measured neighbours
     * (lo == best when none below, hi == best when none above); 0 when
     * no count is within the SLA. */
    unsigned best, lo, hi;
};

/* Starts a search with par (copied). */
void sb_peak_init(struct sb_peak *s, const struct sb_peak_params *par);

/*
 * The thread count of the next run, or 0 when the search is over (s->end
 * says why). elapsed_s is the time the search has taken so far, run_s
 * what one more run may take (both for --budget: the search ends rather than
 * start a run that would overrun it; the first run is always allowed).
 */
unsigned sb_peak_next(struct sb_peak *s, double elapsed_s, double run_s);

/* Records a run at `threads` (the count sb_peak_next gave) with its
 * figures; runs past SB_PEAK_MAX_RUNS of a count are ignored. */
void sb_peak_record(struct sb_peak *s, unsigned threads, const struct sb_peak_fig *fig);

/* The record of thread count t, or NULL when not measured. */
const struct sb_peak_point *sb_peak_point_of(const struct sb_peak *s, unsigned t);

/* A rough number of runs still to come, for the time left (0 when over). */
unsigned sb_peak_runs_left(const struct sb_peak *s);

/*
 * The relative standard error of a run's mean throughput from its n
 * per-interval samples (standard deviation / mean / sqrt(n)); NaN with
 * fewer than 3 samples or a zero mean.
 */
double sb_peak_rse(const double *samples, size_t n);

#endif /* SB_PEAK_H */
