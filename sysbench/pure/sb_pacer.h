/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_PACER_H
#define SB_PACER_H

/*
 * Transaction scheduling (pure module: no threads, no I/O, no clock; the
 * caller passes "now" in nanoseconds, so tests drive it with a fake clock).
 *
 * Two rate modes, see doc/design.md "Steady rate":
 *
 * Fixed (--tx-rate=R): thread i of N has period P = N/R seconds and its k-th
 * transaction is due at t0 + i*P/N + k*P + j_k, with j_k uniform in
 * [-J/2, +J/2] drawn from the thread's own generator. Jitter moves a start
 * inside its slot and never accumulates, so the long-run rate is exactly R.
 *
 * Poisson (--rate=R): sysbench 1.0's meaning. Arrivals over all threads form
 * one Poisson process of rate R; a free thread takes the next arrival. The
 * arrival sequence (struct sb_arrivals) is shared, so the caller must
 * serialise calls on it (a mutex); the module itself holds no lock.
 */

#include <stdint.h>
#include <stdbool.h>
#include "pure/sb_rand.h"

/*
 * How transactions are paced: the one rate-mode enum of the program (the
 * run, the reports, the result files and the result-file reader). The
 * values are stable: 0 closed loop, 1 --tx-rate, 2 --rate.
 */
enum sb_pace_mode {
    SB_PACE_NONE = 0,  /* closed loop, as fast as possible */
    SB_PACE_FIXED = 1, /* --tx-rate: a fixed schedule per thread */
    SB_PACE_POISSON = 2 /* --rate: Poisson arrivals */
};

/* True in the rate modes (a target rate). */
static inline bool sb_pace_rated(enum sb_pace_mode m)
{
    return m != SB_PACE_NONE;
}

/* The name of a mode in result files ("none", "tx-rate", "rate"). */
const char *sb_pace_mode_name(enum sb_pace_mode m);

/* The mode named s by sb_pace_mode_name; false when s is NULL or no mode's
 * name (*m is then SB_PACE_NONE). */
bool sb_pace_mode_parse(const char *s, enum sb_pace_mode *m);

enum sb_late_policy {
    SB_LATE_CATCHUP, /* start missed slots at once, back to back */
    SB_LATE_SKIP     /* drop missed slots and count them */
};

/* Per-thread schedule for --tx-rate. */
struct sb_pacer {
    uint64_t period_ns;   /* P */
    uint64_t jitter_ns;   /* J (full width) */
    uint64_t base_ns;     /* t0 + i*P/N */
    uint64_t slot;        /* k of the next transaction */
    enum sb_late_policy late_policy;
    /* Counters, owned by the pacer's thread. */
    uint64_t late;        /* starts whose due time had passed when asked */
    uint64_t skipped;     /* slots dropped by SB_LATE_SKIP */
    /* P unrounded: due times are base_ns + k * period_exact_ns, so rounding
     * P to whole nanoseconds never accumulates over the run. */
    double period_exact_ns;
    /* Nominal time (the slot's centre, without jitter) of the slot
     * sb_pacer_next returned last: the run counts a slot in its window by
     * this time, so jitter never moves a slot in or out of it. */
    uint64_t nominal_ns;
    /* The schedule's origin: no slot is due before it, so a first slot's
     * negative jitter is clamped here instead of the schedule starting
     * half a jitter late (seconds at a tiny rate). */
    uint64_t t0_ns;
};

/*
 * Validates a fixed-rate configuration. rate_tps > 0, nthreads >= 1,
 * jitter_us >= 0 (0 means 10% of the period). Returns 0, or -1 with a
 * one-line reason in err (capacity errlen), e.g. when the jitter exceeds
 * the period P.
 */
int sb_pacer_check(double rate_tps, unsigned nthreads, double jitter_us,
                   char *err, size_t errlen);

/*
 * The jitter width in microseconds a configuration really uses: jitter_us
 * itself, or 10% of the per-thread period N/R when it is 0. The point
 * (config/sb_point.c) resolves it once; the run shows it in its header
 * and hands it to sb_pacer_init.
 */
double sb_pacer_jitter_us(double rate_tps, unsigned nthreads, double jitter_us);

/*
 * Initialises the schedule of thread `thread_idx` (0-based) of `nthreads`
 * sharing rate_tps, starting at t0_ns. The configuration must have passed
 * sb_pacer_check. jitter_us is the width itself, the default already
 * resolved (sb_pacer_jitter_us); 0 means none. A width over the period is
 * cut to the period.
 */
void sb_pacer_init(struct sb_pacer *p, double rate_tps, unsigned nthreads,
                   unsigned thread_idx, double jitter_us,
                   enum sb_late_policy policy, uint64_t t0_ns);

/*
 * Returns the due time of the thread's next transaction, drawing its jitter
 * from r, and advances the schedule. If that time is already before now_ns
 * the start is late: it is counted in p->late, and with SB_LATE_SKIP every
 * slot whose successor is also already due is dropped (counted in
 * p->skipped), so a late thread never starts more than one period behind.
 * The caller sleeps until the returned time (or starts at once if it has
 * passed) and measures response time from it.
 */
uint64_t sb_pacer_next(struct sb_pacer *p, struct sb_rand *r, uint64_t now_ns);

/*
 * Number of slots whose nominal time (centre, no jitter) is at or before
 * now_ns. Pure; reads only fields sb_pacer_init sets, so another thread may
 * call it on a pacer initialised before the threads started. The slots due
 * and not yet taken are this count minus p->slot (when positive).
 */
uint64_t sb_pacer_due_count(const struct sb_pacer *p, uint64_t now_ns);

/* Whether the next slot's nominal time has come by now_ns: the same as
 * sb_pacer_due_count(p, now_ns) > p->slot, with one due time computed. */
bool sb_pacer_slot_due(const struct sb_pacer *p, uint64_t now_ns);

/*
 * Starts the measured window at start_ns: every slot whose nominal time is
 * before start_ns and not yet taken is dropped (warmup backlog, not counted
 * as late or skipped); the next slot is the first whose nominal time is at
 * or after start_ns, or a later one if already taken. Resets the counters.
 */
void sb_pacer_start_window(struct sb_pacer *p, uint64_t start_ns);

/*
 * The shared Poisson arrival sequence for --rate. Two identical generators
 * walk the same sequence: `take` hands arrivals to threads in order, and
 * `ahead` runs forward to "now" to count arrivals that are due but not yet
 * taken (the backlog), without storing them. Memory stays constant however
 * far the workers fall behind, so a slow server never aborts the run.
 */
struct sb_arrivals {
    double mean_ns;            /* 1e9 / rate */
    struct sb_rand take_rng;
    struct sb_rand ahead_rng;
    double take_time;          /* due time of the next arrival to take */
    double ahead_time;         /* due time of the next arrival not counted */
    uint64_t taken;            /* arrivals handed out */
    uint64_t counted;          /* arrivals with due time <= last now */
    uint64_t max_backlog;      /* largest backlog seen by sb_arrivals_take */
    uint64_t late;             /* arrivals taken after their due time */
    bool window_started;       /* sb_arrivals_start_window was called */
};

/* Initialises the sequence at rate_tps (> 0) starting at t0_ns, seeded
 * from seed. params is borrowed by the generators. */
void sb_arrivals_init(struct sb_arrivals *a, double rate_tps, uint64_t t0_ns,
                      uint64_t seed, const struct sb_rand_params *params);

/* Hands out the next arrival's due time; updates late and, when the
 * arrival is late, max_backlog: the exact number of arrivals due at now_ns
 * and not yet taken, the one being taken included. Amortised O(1): the
 * counting walk only moves forward. */
uint64_t sb_arrivals_take(struct sb_arrivals *a, uint64_t now_ns);

/* Arrivals due at or before now_ns and not yet taken. */
uint64_t sb_arrivals_backlog(struct sb_arrivals *a, uint64_t now_ns);

/*
 * Starts the measured window at start_ns (end of warmup), once: arrivals
 * due before start_ns and not yet taken are dropped (the sequence restarts
 * at start_ns, which for a memoryless process is the same process), later
 * ones are kept; late and max_backlog restart from zero. Later calls do
 * nothing.
 */
void sb_arrivals_start_window(struct sb_arrivals *a, uint64_t start_ns);

#endif /* SB_PACER_H */
