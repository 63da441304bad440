/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Transaction scheduling for --tx-rate and --rate; see sb_pacer.h and
 * doc/design.md "Steady rate".
 *
 * Times are integer nanoseconds at the interface. Inside, the fixed-rate
 * schedule keeps the period as a double and derives every due time from the
 * slot index, so a period that is not a whole number of nanoseconds still
 * gives exactly the requested long-run rate.
 */
#include "pure/sb_pacer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Longest per-thread period accepted, about 31 years: anything longer is a
 * typo, and keeping due times far below 2^64 ns rules out overflow. */
#define SB_PACER_MAX_PERIOD_NS 1e18

/* Converts a non-negative time in ns to an integer, saturating instead of
 * invoking undefined behaviour on values a uint64_t cannot hold. */
static uint64_t ns_from_double(double x)
{
    if (!(x > 0))
        return 0;
    if (x >= 18446744073709549568.0)
        return UINT64_MAX;
    return (uint64_t)llround(x);
}

/* The signed distance a - b as a double, exact enough for any run length
 * and safe when b is later than a. */
static double ns_diff(uint64_t a, uint64_t b)
{
    return a >= b ? (double)(a - b) : -(double)(b - a);
}

/* Prints a number without trailing zeros, for error messages people read. */
static void fmt_num(char *buf, size_t len, double v)
{
    size_t n;

    if (!isfinite(v) || fabs(v) >= 1e15) {
        snprintf(buf, len, "%g", v);
        return;
    }
    snprintf(buf, len, "%.3f", v);
    n = strlen(buf);
    while (n > 0 && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (n > 0 && buf[n - 1] == '.')
        buf[--n] = '\0';
}

int sb_pacer_check(double rate_tps, unsigned nthreads, double jitter_us,
                   char *err, size_t errlen)
{
    char a[64], b[64], c[64];
    double period_ns;

    if (!isfinite(rate_tps) || rate_tps <= 0) {
        fmt_num(a, sizeof(a), rate_tps);
        snprintf(err, errlen,
                 "invalid value '%s' for --tx-rate: expected a positive number of transactions per second",
                 a);
        return -1;
    }
    if (nthreads < 1) {
        snprintf(err, errlen, "--tx-rate needs at least one thread (--threads=0)");
        return -1;
    }
    if (!isfinite(jitter_us) || jitter_us < 0) {
        fmt_num(a, sizeof(a), jitter_us);
        snprintf(err, errlen,
                 "invalid value '%s' for --tx-jitter: expected a non-negative number of microseconds",
                 a);
        return -1;
    }
    period_ns = (double)nthreads * 1e9 / rate_tps;
    fmt_num(b, sizeof(b), rate_tps);
    if (period_ns < 1) {
        snprintf(err, errlen,
                 "--tx-rate=%s is too high for --threads=%u: the per-thread period would be under 1 ns",
                 b, nthreads);
        return -1;
    }
    if (period_ns > SB_PACER_MAX_PERIOD_NS) {
        snprintf(err, errlen,
                 "--tx-rate=%s is too low for --threads=%u: the per-thread period would exceed 10^9 seconds",
                 b, nthreads);
        return -1;
    }
    /* The tolerance lets a jitter given as exactly the period, computed
     * in other units, pass despite rounding. */
    if (jitter_us * 1000.0 > period_ns * (1 + 1e-9)) {
        fmt_num(a, sizeof(a), jitter_us);
        fmt_num(c, sizeof(c), period_ns / 1000.0);
        snprintf(err, errlen,
                 "--tx-jitter=%s us is larger than the per-thread period of %s us (--threads=%u / --tx-rate=%s)",
                 a, c, nthreads, b);
        return -1;
    }
    return 0;
}

double sb_pacer_jitter_us(double rate_tps, unsigned nthreads, double jitter_us)
{
    return jitter_us > 0 ? jitter_us : 0.1 * (double)nthreads / rate_tps * 1e6;
}

void sb_pacer_init(struct sb_pacer *p, double rate_tps, unsigned nthreads,
                   unsigned thread_idx, double jitter_us,
                   enum sb_late_policy policy, uint64_t t0_ns)
{
    double period;
    uint64_t offset;

    /* An unchecked configuration must not crash: fall back to sane values. */
    if (nthreads < 1)
        nthreads = 1;
    period = (double)nthreads * 1e9 / rate_tps;
    if (!(period >= 1))
        period = 1;
    if (period > SB_PACER_MAX_PERIOD_NS)
        period = SB_PACER_MAX_PERIOD_NS;
    if (!(jitter_us >= 0) || !isfinite(jitter_us))
        jitter_us = 0;

    memset(p, 0, sizeof(*p));
    p->period_exact_ns = period;
    p->period_ns = ns_from_double(period);
    p->jitter_ns = ns_from_double(jitter_us * 1000.0);
    if ((double)p->jitter_ns > period)
        p->jitter_ns = (uint64_t)period;
    /* Threads start a fraction of a period apart so that their slots
     * interleave evenly instead of bunching at t0. */
    offset = ns_from_double(period * (double)(thread_idx % nthreads) /
                            (double)nthreads);
    p->base_ns = t0_ns + offset;
    p->t0_ns = t0_ns;
    p->slot = 0;
    p->late_policy = policy;
    p->late = 0;
    p->skipped = 0;
}

/* Offset of slot k's centre from base_ns, in ns. */
static double slot_offset(const struct sb_pacer *p, uint64_t k)
{
    return (double)k * p->period_exact_ns;
}

/* Draws a jitter uniform in [-J/2, +J/2). */
static double draw_jitter(const struct sb_pacer *p, struct sb_rand *r)
{
    if (p->jitter_ns == 0)
        return 0;
    return (sb_rand_next_double(r) - 0.5) * (double)p->jitter_ns;
}

/* Due time of slot k with jitter j, clamped to [t0, UINT64_MAX]. */
static uint64_t due_time(const struct sb_pacer *p, uint64_t k, double j)
{
    double off = slot_offset(p, k) + j;
    uint64_t due;

    if (off >= 0) {
        uint64_t o = ns_from_double(off);

        due = o > UINT64_MAX - p->base_ns ? UINT64_MAX : p->base_ns + o;
    } else {
        uint64_t o = ns_from_double(-off);

        due = o > p->base_ns ? 0 : p->base_ns - o;
    }
    return due < p->t0_ns ? p->t0_ns : due;
}

uint64_t sb_pacer_next(struct sb_pacer *p, struct sb_rand *r, uint64_t now_ns)
{
    uint64_t k = p->slot;
    uint64_t due = due_time(p, k, draw_jitter(p, r));

    if (due < now_ns && p->late_policy == SB_LATE_SKIP) {
        double elapsed = ns_diff(now_ns, p->base_ns);
        double half = (double)p->jitter_ns / 2.0;
        double m;

        /*
         * Jump straight over slots that are certainly followed by a due
         * successor: slot m is certainly due when even its latest possible
         * start, centre + J/2, is not after now. This keeps a thread that
         * stalled for a long time from drawing jitter for every missed slot.
         */
        m = floor((elapsed - half) / p->period_exact_ns);
        if (m > (double)k && m < 1.8e19) {
            uint64_t mk = (uint64_t)m;

            /* Floating point may put the estimate one slot off; settle it
             * with the same comparison the due times obey. */
            while (mk > k && slot_offset(p, mk) + half > elapsed)
                mk--;
            if (mk > k) {
                p->skipped += mk - k;
                k = mk;
                due = due_time(p, k, draw_jitter(p, r));
            }
        }
        /* Near now the jitter decides, so look at the drawn successor. */
        for (;;) {
            uint64_t next = due_time(p, k + 1, draw_jitter(p, r));

            if (next > now_ns)
                break;
            p->skipped++;
            k++;
            due = next;
        }
    }
    if (due < now_ns)
        p->late++;
    p->slot = k + 1;
    p->nominal_ns = due_time(p, k, 0);
    return due;
}

uint64_t sb_pacer_due_count(const struct sb_pacer *p, uint64_t now_ns)
{
    double m;
    uint64_t k;

    if (now_ns < p->base_ns)
        return 0;
    m = floor((double)(now_ns - p->base_ns) / p->period_exact_ns);
    if (!(m < 1.8e19))
        return UINT64_MAX;
    k = (uint64_t)m;
    /* Settle floating point with the comparison the due times obey:
     * k is the last slot whose nominal time is not after now. */
    while (k > 0 && due_time(p, k, 0) > now_ns)
        k--;
    while (k < UINT64_MAX - 1 && due_time(p, k + 1, 0) <= now_ns)
        k++;
    return k + 1;
}

bool sb_pacer_slot_due(const struct sb_pacer *p, uint64_t now_ns)
{
    return due_time(p, p->slot, 0) <= now_ns;
}

void sb_pacer_start_window(struct sb_pacer *p, uint64_t start_ns)
{
    /* Slots before start_ns are those due at start_ns - 1 or earlier. */
    uint64_t k = start_ns > 0 ? sb_pacer_due_count(p, start_ns - 1) : 0;

    if (k > p->slot)
        p->slot = k;
    p->late = 0;
    p->skipped = 0;
}

/* ------------------------------------------------------------- Poisson */

/* One exponential inter-arrival time; 1 - u is in (0, 1], so the log is
 * finite. */
static double draw_gap(struct sb_rand *r, double mean_ns)
{
    return -log1p(-sb_rand_next_double(r)) * mean_ns;
}

void sb_arrivals_init(struct sb_arrivals *a, double rate_tps, uint64_t t0_ns,
                      uint64_t seed, const struct sb_rand_params *params)
{
    memset(a, 0, sizeof(*a));
    /* A rate that is not positive means no arrivals ever, not a crash. */
    a->mean_ns = (isfinite(rate_tps) && rate_tps > 0) ? 1e9 / rate_tps
                                                      : HUGE_VAL;
    sb_rand_seed_stream(&a->take_rng, seed, 0, params);
    a->ahead_rng = a->take_rng;
    a->take_time = (double)t0_ns + draw_gap(&a->take_rng, a->mean_ns);
    a->ahead_time = (double)t0_ns + draw_gap(&a->ahead_rng, a->mean_ns);
}

/* Moves the counting walk forward to now; both walks do the same
 * arithmetic on the same draws, so they see identical due times. */
/*
 * Counts the arrivals due by now_ns. Exact while the walk is short; when
 * the workers are far behind, walking every missed arrival would cost work
 * in proportion to the target rate rather than to the work done, so past
 * SB_ARRIVALS_EXACT_STEPS the rest are counted by their expected number
 * (gap / mean), which is within a few square roots of the exact count.
 */
#define SB_ARRIVALS_EXACT_STEPS 100000

static void advance_ahead(struct sb_arrivals *a, uint64_t now_ns)
{
    double now = (double)now_ns;
    unsigned steps = 0;

    while (a->ahead_time <= now) {
        if (++steps > SB_ARRIVALS_EXACT_STEPS) {
            double n = floor((now - a->ahead_time) / a->mean_ns) + 1;
            a->counted += (uint64_t)n;
            a->ahead_time += n * a->mean_ns;
            break;
        }
        a->counted++;
        a->ahead_time += draw_gap(&a->ahead_rng, a->mean_ns);
    }
}

uint64_t sb_arrivals_backlog(struct sb_arrivals *a, uint64_t now_ns)
{
    uint64_t backlog;

    advance_ahead(a, now_ns);
    backlog = a->counted > a->taken ? a->counted - a->taken : 0;
    if (backlog > a->max_backlog)
        a->max_backlog = backlog;
    return backlog;
}

/*
 * Runs under the caller's lock once per transaction. A late take counts
 * the backlog exactly by moving the counting walk to now: the walk only
 * goes forward, so over a run it visits each arrival once (amortised O(1)
 * per transaction), and a very long stall is bounded by
 * SB_ARRIVALS_EXACT_STEPS. The backlog is the largest just before a late
 * start, so the maximum over late takes is the true maximum.
 */
uint64_t sb_arrivals_take(struct sb_arrivals *a, uint64_t now_ns)
{
    uint64_t due = ns_from_double(a->take_time);

    if (due < now_ns) {
        uint64_t b;

        advance_ahead(a, now_ns);
        b = a->counted > a->taken ? a->counted - a->taken : 0;
        if (b > a->max_backlog)
            a->max_backlog = b;
        a->late++;
    }
    a->taken++;
    a->take_time += draw_gap(&a->take_rng, a->mean_ns);
    return due;
}

void sb_arrivals_start_window(struct sb_arrivals *a, uint64_t start_ns)
{
    if (a->window_started)
        return;
    a->window_started = true;
    if (a->take_time < (double)start_ns) {
        a->take_time = (double)start_ns + draw_gap(&a->take_rng, a->mean_ns);
        a->ahead_rng = a->take_rng;
        a->ahead_time = a->take_time;
        a->taken = 0;
        a->counted = 0;
    }
    a->max_backlog = 0;
    a->late = 0;
}

/* ------------------------------------------------------------ rate mode */

static const char *const mode_names[] = {"none", "tx-rate", "rate"};

const char *sb_pace_mode_name(enum sb_pace_mode m)
{
    return (unsigned)m < sizeof(mode_names) / sizeof(mode_names[0]) ? mode_names[m] : "none";
}

bool sb_pace_mode_parse(const char *s, enum sb_pace_mode *m)
{
    *m = SB_PACE_NONE;
    for (unsigned i = 0; s != NULL && i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
        if (strcmp(s, mode_names[i]) == 0) {
            *m = (enum sb_pace_mode)i;
            return true;
        }
    return false;
}
