/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_pacer, driven by a fake clock: every "now" is a number
 * the test chooses, so the schedules are checked exactly and quickly.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pure/sb_pacer.h"

#define ERRLEN 256
#define T0 1000000000ULL  /* an arbitrary start, 1 s after the clock's zero */
#define MS 1000000ULL

/* Jitter small enough to round to zero: schedules become exact. */
#define NO_JITTER 0.0001

static const double rates[] = {1, 7, 1000, 33333, 2e6};
static const unsigned thread_counts[] = {1, 2, 3, 8, 64};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The jitter settings: default (10% of P), small, equal to P, and so small
 * that it rounds to nothing, which makes the schedule exact to 1 ns. */
#define NJITTERS 4
static double jitter_choice(int which, double period_ns)
{
    switch (which) {
    case 0:
        return 0;
    case 1:
        return period_ns / 1000.0 / 50.0;
    case 2:
        return period_ns / 1000.0;
    default:
        return NO_JITTER;
    }
}

static double signed_diff(uint64_t a, double b)
{
    return (double)a - b;
}

/* ------------------------------------------------------- fixed rate */

/*
 * After K slots the last due time is where the exact period puts it, for
 * every rate, thread count and jitter: rounding never accumulates.
 */
START_TEST(test_long_run_exact)
{
    struct sb_rand_params params;
    struct sb_rand r;
    size_t ri, ni;
    int ji;
    char err[ERRLEN];

    sb_rand_params_default(&params);
    for (ri = 0; ri < NELEM(rates); ri++) {
        for (ni = 0; ni < NELEM(thread_counts); ni++) {
            unsigned n = thread_counts[ni];
            double period = (double)n * 1e9 / rates[ri];
            /* Fewer slots for many threads keep the test quick. */
            uint64_t k_slots = n >= 64 ? 3000 : 40000;

            for (ji = 0; ji < NJITTERS; ji++) {
                double jit = jitter_choice(ji, period);
                unsigned i;

                ck_assert_int_eq(sb_pacer_check(rates[ri], n, jit, err,
                                                sizeof(err)), 0);
                for (i = 0; i < n; i++) {
                    struct sb_pacer p;
                    uint64_t k, due = 0;
                    double want, half;

                    sb_rand_seed_stream(&r, 42, i, &params);
                    sb_pacer_init(&p, rates[ri], n, i, sb_pacer_jitter_us(rates[ri], n, jit),
                                  SB_LATE_CATCHUP, T0);
                    half = (double)p.jitter_ns / 2.0;
                    if (ji == 0)
                        ck_assert(fabs((double)p.jitter_ns - period * 0.1) <= 0.5);
                    for (k = 0; k < k_slots; k++)
                        due = sb_pacer_next(&p, &r, 0);
                    want = (double)T0 + (double)i * period / n +
                           (double)(k_slots - 1) * period;
                    ck_assert_msg(fabs(signed_diff(due, want)) <= half + 1,
                                  "R=%g N=%u J=%d i=%u: due %llu want %.1f",
                                  rates[ri], n, ji, i,
                                  (unsigned long long)due, want);
                    ck_assert_uint_eq(p.late, 0);
                    ck_assert_uint_eq(p.slot, k_slots);
                }
            }
        }
    }
}
END_TEST

/*
 * All threads together start R transactions per second: count the due
 * times in a long window.
 */
START_TEST(test_window_count)
{
    struct sb_rand_params params;
    struct sb_rand r;
    size_t ri, ni;
    int ji;

    sb_rand_params_default(&params);
    for (ri = 0; ri < NELEM(rates); ri++) {
        for (ni = 0; ni < NELEM(thread_counts); ni++) {
            unsigned n = thread_counts[ni];
            double period = (double)n * 1e9 / rates[ri];
            /* About 20000 transactions in the window. */
            double window = 20000.0 / rates[ri] * 1e9;
            uint64_t start = T0 + (uint64_t)(3 * period);
            uint64_t end = start + (uint64_t)window;
            double expect = rates[ri] * (double)(end - start) / 1e9;

            for (ji = 0; ji < NJITTERS; ji++) {
                double jit = jitter_choice(ji, period);
                uint64_t count = 0;
                unsigned i;

                for (i = 0; i < n; i++) {
                    struct sb_pacer p;
                    uint64_t due;

                    sb_rand_seed_stream(&r, 7, i, &params);
                    sb_pacer_init(&p, rates[ri], n, i, sb_pacer_jitter_us(rates[ri], n, jit),
                                  SB_LATE_CATCHUP, T0);
                    do {
                        due = sb_pacer_next(&p, &r, 0);
                        if (due >= start && due < end)
                            count++;
                    } while (due < end + (uint64_t)period);
                }
                /* Each thread can gain or lose one slot at each edge. */
                ck_assert_msg(fabs((double)count - expect) <= 2.0 * n + 1,
                              "R=%g N=%u J=%d: %llu starts, want %.1f",
                              rates[ri], n, ji, (unsigned long long)count,
                              expect);
            }
        }
    }
}
END_TEST

/* Jitter stays within J/2 of the slot centre and fills that range evenly. */
START_TEST(test_jitter_distribution)
{
    static const double jitters_us[] = {0, 10, 1000};
    struct sb_rand_params params;
    struct sb_rand r;
    size_t ji;

    sb_rand_params_default(&params);
    for (ji = 0; ji < NELEM(jitters_us); ji++) {
        struct sb_pacer p;
        const int count = 200000;
        double sum = 0, sumsq = 0, lo = 0, hi = 0, half;
        long buckets[10] = {0};
        int k, b;

        sb_rand_seed_stream(&r, 1, 0, &params);
        sb_pacer_init(&p, 1000, 1, 0, sb_pacer_jitter_us(1000, 1, jitters_us[ji]),
                      SB_LATE_CATCHUP, T0);
        ck_assert_uint_eq(p.period_ns, 1000000);
        ck_assert_uint_eq(p.jitter_ns, jitters_us[ji] == 0 ? 100000 :
                          (uint64_t)(jitters_us[ji] * 1000));
        half = (double)p.jitter_ns / 2.0;
        for (k = 0; k < count; k++) {
            uint64_t due = sb_pacer_next(&p, &r, 0);
            double off = signed_diff(due, (double)T0 + (double)k * 1e6);
            double x = off / half;

            ck_assert_msg(fabs(off) <= half + 1, "slot %d off by %.0f", k, off);
            sum += x;
            sumsq += x * x;
            if (x < lo)
                lo = x;
            if (x > hi)
                hi = x;
            b = (int)floor((x + 1.0) * 5.0);
            if (b < 0)
                b = 0;
            if (b > 9)
                b = 9;
            buckets[b]++;
        }
        /* Uniform on [-1, 1]: mean 0, variance 1/3, flat histogram. */
        ck_assert_msg(fabs(sum / count) < 0.01, "mean %f", sum / count);
        ck_assert_msg(fabs(sumsq / count - 1.0 / 3.0) < 0.01, "var %f",
                      sumsq / count);
        ck_assert(lo < -0.99 && hi > 0.99);
        for (b = 0; b < 10; b++)
            ck_assert_msg(labs(buckets[b] - count / 10) < count / 250,
                          "bucket %d: %ld", b, buckets[b]);
    }
}
END_TEST

/* Due times of one thread never go backwards, even with J = P. */
START_TEST(test_monotonic)
{
    struct sb_rand_params params;
    struct sb_rand r;
    struct sb_pacer p;
    uint64_t prev = 0, due;
    int k;

    sb_rand_params_default(&params);
    sb_rand_seed_stream(&r, 3, 0, &params);
    sb_pacer_init(&p, 1000, 1, 0, 1000, SB_LATE_CATCHUP, T0);
    for (k = 0; k < 100000; k++) {
        due = sb_pacer_next(&p, &r, 0);
        ck_assert(due >= prev);
        prev = due;
    }
}
END_TEST

/* Thread i's first slot is centred at t0 + i*P/N. */
START_TEST(test_interleave)
{
    struct sb_rand_params params;
    struct sb_rand r;
    size_t ni, ri;

    sb_rand_params_default(&params);
    for (ri = 0; ri < NELEM(rates); ri++) {
        for (ni = 0; ni < NELEM(thread_counts); ni++) {
            unsigned n = thread_counts[ni], i;
            double period = (double)n * 1e9 / rates[ri];
            uint64_t prev = 0;

            for (i = 0; i < n; i++) {
                struct sb_pacer p, pj;
                uint64_t first, firstj;
                double centre = (double)T0 + (double)i * period / n;

                sb_rand_seed_stream(&r, 5, i, &params);
                sb_pacer_init(&p, rates[ri], n, i, NO_JITTER,
                              SB_LATE_CATCHUP, T0);
                ck_assert_uint_eq(p.jitter_ns, 0);
                /* The width is taken as given: 0 is none, not the default
                 * (the point resolves the default once, sb_point.c). */
                sb_pacer_init(&pj, rates[ri], n, i, 0, SB_LATE_CATCHUP, T0);
                ck_assert_uint_eq(pj.jitter_ns, 0);
                first = sb_pacer_next(&p, &r, 0);
                ck_assert(fabs(signed_diff(first, centre)) <= 0.5);
                /* Without jitter the threads' starts are in thread order. */
                ck_assert(i == 0 || first > prev);
                prev = first;

                sb_pacer_init(&pj, rates[ri], n, i, sb_pacer_jitter_us(rates[ri], n, 0),
                              SB_LATE_CATCHUP, T0);
                firstj = sb_pacer_next(&pj, &r, 0);
                ck_assert(fabs(signed_diff(firstj, centre)) <=
                          (double)pj.jitter_ns / 2.0 + 1);
            }
        }
    }
}
END_TEST

/* The schedule never hands out a time before zero, even at t0 = 0. */
START_TEST(test_start_at_zero)
{
    struct sb_rand_params params;
    struct sb_rand r;
    struct sb_pacer p;
    int k;

    sb_rand_params_default(&params);
    sb_rand_seed_stream(&r, 9, 0, &params);
    for (k = 0; k < 1000; k++) {
        uint64_t due;

        sb_pacer_init(&p, 1000, 1, 0, 1000, SB_LATE_CATCHUP, 0);
        due = sb_pacer_next(&p, &r, 0);
        ck_assert(due <= 500000);
    }
}
END_TEST

/* A thread that fell behind gets its missed slots back to back. */
START_TEST(test_catchup)
{
    struct sb_rand_params params;
    struct sb_rand r;
    struct sb_pacer p;
    uint64_t now, due;
    int k;

    sb_rand_params_default(&params);
    sb_rand_seed_stream(&r, 11, 0, &params);
    sb_pacer_init(&p, 1000, 1, 0, NO_JITTER, SB_LATE_CATCHUP, T0);
    ck_assert_uint_eq(sb_pacer_next(&p, &r, T0), T0);
    ck_assert_uint_eq(p.late, 0);
    /* Exactly on time is not late. */
    ck_assert_uint_eq(sb_pacer_next(&p, &r, T0 + 1 * MS), T0 + 1 * MS);
    ck_assert_uint_eq(p.late, 0);

    /* The thread stalls until 10.5 ms: slots 2..10 are missed. */
    now = T0 + 10 * MS + MS / 2;
    for (k = 2; k <= 10; k++) {
        due = sb_pacer_next(&p, &r, now);
        ck_assert_uint_eq(due, T0 + (uint64_t)k * MS);
        ck_assert(due < now);
        ck_assert_uint_eq(p.late, (uint64_t)k - 1);
    }
    due = sb_pacer_next(&p, &r, now);
    ck_assert_uint_eq(due, T0 + 11 * MS);
    ck_assert_uint_eq(p.late, 9);
    ck_assert_uint_eq(p.skipped, 0);

    /* With jitter the missed times still come in order, all late. */
    sb_pacer_init(&p, 1000, 1, 0, 1000, SB_LATE_CATCHUP, T0);
    now = T0 + 100 * MS;
    {
        uint64_t prev = 0, late_expected = 0;

        for (;;) {
            due = sb_pacer_next(&p, &r, now);
            ck_assert(due >= prev);
            prev = due;
            if (due >= now)
                break;
            late_expected++;
            ck_assert_uint_eq(p.late, late_expected);
        }
        ck_assert(late_expected >= 99 && late_expected <= 101);
    }
}
END_TEST

/* A late thread with the skip policy runs the latest due slot only. */
START_TEST(test_skip)
{
    struct sb_rand_params params;
    struct sb_rand r;
    struct sb_pacer p;
    uint64_t now, due;
    int trial;

    sb_rand_params_default(&params);
    sb_rand_seed_stream(&r, 13, 0, &params);
    sb_pacer_init(&p, 1000, 1, 0, NO_JITTER, SB_LATE_SKIP, T0);
    ck_assert_uint_eq(sb_pacer_next(&p, &r, T0), T0);

    now = T0 + 10 * MS + MS / 2;
    due = sb_pacer_next(&p, &r, now);
    ck_assert_uint_eq(due, T0 + 10 * MS);
    ck_assert_uint_eq(p.skipped, 9);
    ck_assert_uint_eq(p.late, 1);
    due = sb_pacer_next(&p, &r, now);
    ck_assert_uint_eq(due, T0 + 11 * MS);
    ck_assert_uint_eq(p.late, 1);

    /* Landing exactly on a due time: that slot runs, on time. */
    now = T0 + 20 * MS;
    due = sb_pacer_next(&p, &r, now);
    ck_assert_uint_eq(due, now);
    ck_assert_uint_eq(p.skipped, 9 + 8);
    ck_assert_uint_eq(p.late, 1);

    /* A very long stall is skipped in one step. */
    now = T0 + 1000000 * MS + 3;
    due = sb_pacer_next(&p, &r, now);
    ck_assert_uint_eq(due, T0 + 1000000 * MS);
    ck_assert_uint_eq(p.skipped, 17 + (1000000 - 21));
    ck_assert_uint_eq(p.late, 2);
    ck_assert_uint_eq(p.slot, 1000001);

    /* Late by less than a period: nothing to skip, the start is late. */
    due = sb_pacer_next(&p, &r, T0 + 1000001 * MS + MS / 2);
    ck_assert_uint_eq(due, T0 + 1000001 * MS);
    ck_assert_uint_eq(p.late, 3);
    ck_assert_uint_eq(p.skipped, 17 + (1000000 - 21));

    /*
     * With jitter J = P: the returned start is due, the next one is not,
     * and slots taken plus skipped account for every slot up to it.
     */
    for (trial = 0; trial < 2000; trial++) {
        uint64_t jump = (uint64_t)(trial * 7919 % 5000) * 100000 + 2 * MS + 12345;

        sb_pacer_init(&p, 1000, 1, 0, 1000, SB_LATE_SKIP, T0);
        sb_pacer_next(&p, &r, 0);
        now = T0 + jump;
        due = sb_pacer_next(&p, &r, now);
        ck_assert(due <= now);
        ck_assert(now - due < 2 * MS);
        ck_assert_uint_eq(p.skipped + 2, p.slot);
        ck_assert_uint_eq(p.late, due < now ? 1 : 0);
        ck_assert(sb_pacer_next(&p, &r, now) >= now - MS - 1);
    }
}
END_TEST

START_TEST(test_check)
{
    char err[ERRLEN];

    ck_assert_int_eq(sb_pacer_check(1000, 1, 0, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_pacer_check(1000, 2, 2000, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_pacer_check(0.5, 64, 0, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_pacer_check(2e6, 1, 0.5, err, sizeof(err)), 0);

    ck_assert_int_eq(sb_pacer_check(1000, 2, 5000, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "--tx-jitter=5000 us is larger than the per-thread period of 2000 us (--threads=2 / --tx-rate=1000)");
    ck_assert_int_eq(sb_pacer_check(3000, 2, 1000, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "--tx-jitter=1000 us is larger than the per-thread period of 666.667 us (--threads=2 / --tx-rate=3000)");
    ck_assert_int_eq(sb_pacer_check(1000, 1, 1000.001, err, sizeof(err)), -1);

    ck_assert_int_eq(sb_pacer_check(0, 1, 0, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "--tx-rate"));
    ck_assert_int_eq(sb_pacer_check(-5, 1, 0, err, sizeof(err)), -1);
    ck_assert_int_eq(sb_pacer_check(NAN, 1, 0, err, sizeof(err)), -1);
    ck_assert_int_eq(sb_pacer_check(INFINITY, 1, 0, err, sizeof(err)), -1);
    ck_assert_int_eq(sb_pacer_check(1e-15, 1, 0, err, sizeof(err)), -1);
    ck_assert_int_eq(sb_pacer_check(1e10, 1, 0, err, sizeof(err)), -1);
    ck_assert_int_eq(sb_pacer_check(1000, 0, 0, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "thread"));
    ck_assert_int_eq(sb_pacer_check(1000, 1, -1, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "--tx-jitter"));
    ck_assert_int_eq(sb_pacer_check(1000, 1, NAN, err, sizeof(err)), -1);
    ck_assert_int_eq(sb_pacer_check(1000, 1, INFINITY, err, sizeof(err)), -1);
    /* Every message is one line. */
    ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

/* ---------------------------------------------------------- Poisson */

START_TEST(test_poisson_moments)
{
    struct sb_rand_params params;
    struct sb_arrivals a;
    const int count = 200000;
    const double rate = 1000, mean = 1e9 / rate;
    double sum = 0, sumsq = 0, m, var;
    uint64_t prev, due;
    int k;

    sb_rand_params_default(&params);
    sb_arrivals_init(&a, rate, T0, 12345, &params);
    ck_assert(a.mean_ns == mean);
    prev = T0;
    for (k = 0; k < count; k++) {
        double gap;

        due = sb_arrivals_take(&a, 0);
        ck_assert(due >= prev);
        gap = (double)(due - prev);
        sum += gap;
        sumsq += gap * gap;
        prev = due;
    }
    m = sum / count;
    var = sumsq / count - m * m;
    ck_assert_msg(fabs(m / mean - 1) < 0.02, "mean %f", m);
    ck_assert_msg(fabs(var / (mean * mean) - 1) < 0.05, "variance %f", var);
    ck_assert_uint_eq(a.taken, (uint64_t)count);
    ck_assert_uint_eq(a.late, 0);
    /* Taking ahead of time never makes a negative backlog. */
    ck_assert_uint_eq(sb_arrivals_backlog(&a, 0), 0);
    ck_assert_uint_eq(sb_arrivals_backlog(&a, T0), 0);
    ck_assert_uint_eq(a.max_backlog, 0);
}
END_TEST

START_TEST(test_poisson_reproducible)
{
    struct sb_rand_params params;
    struct sb_arrivals a, b, c;
    int k, same = 0;

    sb_rand_params_default(&params);
    sb_arrivals_init(&a, 500, T0, 99, &params);
    sb_arrivals_init(&b, 500, T0, 99, &params);
    sb_arrivals_init(&c, 500, T0, 100, &params);
    for (k = 0; k < 1000; k++) {
        uint64_t x = sb_arrivals_take(&a, 0);

        ck_assert_uint_eq(x, sb_arrivals_take(&b, 0));
        same += x == sb_arrivals_take(&c, 0);
    }
    ck_assert_int_lt(same, 10);
}
END_TEST

/* Counts the arrivals due at or before t with a separate, identical
 * sequence, as the reference for the backlog. */
static uint64_t reference_due(uint64_t seed, double rate, uint64_t t,
                              const struct sb_rand_params *params)
{
    struct sb_arrivals ref;
    uint64_t n = 0;

    sb_arrivals_init(&ref, rate, T0, seed, params);
    while ((double)ref.take_time <= (double)t) {
        sb_arrivals_take(&ref, 0);
        n++;
    }
    return n;
}

START_TEST(test_poisson_backlog)
{
    struct sb_rand_params params;
    struct sb_arrivals a;
    uint64_t due1s, due2s, k, b, due;

    sb_rand_params_default(&params);
    due1s = reference_due(77, 1000, T0 + 1000 * MS, &params);
    due2s = reference_due(77, 1000, T0 + 2000 * MS, &params);
    ck_assert(due1s > 850 && due1s < 1150);
    ck_assert(due2s > due1s);

    sb_arrivals_init(&a, 1000, T0, 77, &params);
    ck_assert_uint_eq(sb_arrivals_backlog(&a, T0), 0);
    ck_assert_uint_eq(sb_arrivals_backlog(&a, T0 + 1000 * MS), due1s);
    /* Asking again, or about an earlier time, does not change it. */
    ck_assert_uint_eq(sb_arrivals_backlog(&a, T0 + 1000 * MS), due1s);
    ck_assert_uint_eq(sb_arrivals_backlog(&a, T0 + 10 * MS), due1s);

    /* The workers lag: ten takes at 1 s, each late. */
    for (k = 0; k < 10; k++) {
        due = sb_arrivals_take(&a, T0 + 1000 * MS);
        ck_assert(due < T0 + 1000 * MS);
    }
    ck_assert_uint_eq(a.late, 10);
    /* A late take counts the backlog exactly: every arrival due at 1 s,
     * the one being taken included. */
    ck_assert_uint_eq(a.max_backlog, due1s);
    ck_assert_uint_eq(sb_arrivals_backlog(&a, T0 + 1000 * MS), due1s - 10);

    /* More arrivals fall due while the workers drain the rest. */
    ck_assert_uint_eq(sb_arrivals_backlog(&a, T0 + 2000 * MS), due2s - 10);
    for (k = 10; k < due2s; k++)
        sb_arrivals_take(&a, T0 + 2000 * MS);
    ck_assert_uint_eq(a.max_backlog, due2s - 10);
    ck_assert_uint_eq(a.late, due2s);
    ck_assert_uint_eq(sb_arrivals_backlog(&a, T0 + 2000 * MS), 0);
    /* The next arrival is in the future: taking it early is not late. */
    due = sb_arrivals_take(&a, T0 + 2000 * MS);
    ck_assert(due > T0 + 2000 * MS);
    ck_assert_uint_eq(a.late, due2s);
    b = sb_arrivals_backlog(&a, T0 + 2000 * MS);
    ck_assert_uint_eq(b, 0);
    ck_assert_uint_eq(a.counted, due2s);
}
END_TEST

/* A nonsensical rate must not crash or hang: it simply never fires. */
START_TEST(test_poisson_bad_rate)
{
    struct sb_rand_params params;
    struct sb_arrivals a;

    sb_rand_params_default(&params);
    sb_arrivals_init(&a, 0, T0, 1, &params);
    ck_assert_uint_eq(sb_arrivals_backlog(&a, UINT64_MAX), 0);
    ck_assert_uint_eq(sb_arrivals_take(&a, T0), UINT64_MAX);
    sb_arrivals_init(&a, NAN, T0, 1, &params);
    ck_assert_uint_eq(sb_arrivals_backlog(&a, UINT64_MAX), 0);
}
END_TEST

/* The nominal time of the slot next() returns is the slot's centre, and
 * due_count counts exactly the slots whose centre is not after now. */
START_TEST(test_nominal_due_count)
{
    struct sb_rand_params params;
    struct sb_rand r;
    struct sb_pacer p;

    sb_rand_params_default(&params);
    sb_rand_seed_stream(&r, 3, 0, &params);
    for (size_t ri = 0; ri < NELEM(rates); ri++)
        for (size_t ti = 0; ti < NELEM(thread_counts); ti++) {
            unsigned n = thread_counts[ti];
            double period = (double)n * 1e9 / rates[ri];
            unsigned idx = n - 1;

            sb_pacer_init(&p, rates[ri], n, idx, period / 1000.0, SB_LATE_CATCHUP, T0);
            ck_assert_uint_eq(sb_pacer_due_count(&p, 0), 0);
            ck_assert_uint_eq(sb_pacer_due_count(&p, p.base_ns - (p.base_ns > 0)),
                              p.base_ns > 0 ? 0 : 1);
            for (uint64_t k = 0; k < 200; k++) {
                uint64_t due = sb_pacer_next(&p, &r, 0);
                double centre = (double)p.base_ns + (double)k * period;

                ck_assert(fabs(signed_diff(p.nominal_ns, centre)) <= 1);
                /* The jitter moves the start, never the nominal time. */
                ck_assert(fabs(signed_diff(due, (double)p.nominal_ns)) <=
                          (double)p.jitter_ns / 2 + 1);
                ck_assert_uint_eq(sb_pacer_due_count(&p, p.nominal_ns), k + 1);
                ck_assert_uint_eq(sb_pacer_due_count(&p, p.nominal_ns - 1), k);
            }
        }
}
END_TEST

/*
 * The window [W0, W1) holds exactly rate x (W1 - W0) slots by nominal time,
 * over all threads, whatever the jitter: a worker that runs the slots it
 * takes with nominal time in the window (start_window at W0, stop at the
 * first slot at or after W1) counts exactly that many.
 */
START_TEST(test_window_by_nominal)
{
    struct sb_rand_params params;
    struct sb_rand r;
    struct sb_pacer p;

    sb_rand_params_default(&params);
    for (size_t ti = 0; ti < NELEM(thread_counts); ti++) {
        unsigned n = thread_counts[ti];
        double rate = 1000;
        double period = (double)n * 1e9 / rate;
        uint64_t w0 = T0 + 777 * MS, w1 = w0 + 2000 * MS;
        uint64_t total = 0;

        for (unsigned i = 0; i < n; i++) {
            sb_rand_seed_stream(&r, 11, i, &params);
            sb_pacer_init(&p, rate, n, i, period / 1000.0, SB_LATE_CATCHUP, T0);
            /* Warmup: some slots before the window. */
            while (sb_pacer_next(&p, &r, 0) < T0 + 300 * MS)
                ;
            sb_pacer_start_window(&p, w0);
            ck_assert_uint_eq(p.late, 0);
            for (;;) {
                sb_pacer_next(&p, &r, 0);
                ck_assert(p.nominal_ns >= w0);
                if (p.nominal_ns >= w1)
                    break;
                total++;
            }
        }
        ck_assert_uint_eq(total, 2000);
    }
}
END_TEST

/* start_window drops only slots before the window and keeps the phase. */
START_TEST(test_start_window)
{
    struct sb_rand_params params;
    struct sb_rand r;
    struct sb_pacer p;

    sb_rand_params_default(&params);
    sb_rand_seed_stream(&r, 5, 0, &params);
    sb_pacer_init(&p, 1000, 1, 0, NO_JITTER, SB_LATE_CATCHUP, T0);
    sb_pacer_next(&p, &r, 0);
    /* Behind at the window start: slots 1..9 (before T0 + 10 ms) go. */
    sb_pacer_start_window(&p, T0 + 10 * MS);
    sb_pacer_next(&p, &r, T0 + 12 * MS);
    ck_assert_uint_eq(p.nominal_ns, T0 + 10 * MS);
    ck_assert_uint_eq(p.late, 1);
    ck_assert_uint_eq(p.skipped, 0);
    /* A slot already taken beyond the window start is kept. */
    sb_pacer_start_window(&p, T0 + 5 * MS);
    sb_pacer_next(&p, &r, 0);
    ck_assert_uint_eq(p.nominal_ns, T0 + 11 * MS);
    /* Between two slots: the next one after. */
    sb_pacer_start_window(&p, T0 + 20 * MS + 1);
    sb_pacer_next(&p, &r, 0);
    ck_assert_uint_eq(p.nominal_ns, T0 + 21 * MS);
}
END_TEST

/* A thread stalls for 1 s at 200/s: at its next (late) take the slots due
 * and not taken are exactly those whose centre fell in the stall. */
START_TEST(test_stall_backlog)
{
    struct sb_rand_params params;
    struct sb_rand r;
    struct sb_pacer p;
    uint64_t due, stall_end;

    sb_rand_params_default(&params);
    sb_rand_seed_stream(&r, 9, 0, &params);
    sb_pacer_init(&p, 200, 1, 0, 500, SB_LATE_CATCHUP, T0);
    for (int k = 0; k < 10; k++)
        sb_pacer_next(&p, &r, 0);
    due = sb_pacer_next(&p, &r, 0);      /* slot 10, due near T0 + 50 ms */
    stall_end = due + 1000 * MS;
    /* Slots 11..210 have centres in (T0 + 50 ms, T0 + 1050 ms]. */
    ck_assert_uint_eq(sb_pacer_due_count(&p, stall_end) - p.slot,
                      (uint64_t)((stall_end - T0) / (5 * MS)) - 10);
    ck_assert(sb_pacer_due_count(&p, stall_end) - p.slot >= 199);
    ck_assert(sb_pacer_due_count(&p, stall_end) - p.slot <= 201);
}
END_TEST

/* The window start drops arrivals before it once and keeps later ones. */
START_TEST(test_poisson_start_window)
{
    struct sb_rand_params params;
    struct sb_arrivals a, b;
    uint64_t due;

    sb_rand_params_default(&params);
    /* Behind at the window start: the sequence restarts there. */
    sb_arrivals_init(&a, 1000, T0, 5, &params);
    sb_arrivals_take(&a, T0 + 3000 * MS);
    ck_assert(a.max_backlog > 2500);
    sb_arrivals_start_window(&a, T0 + 2000 * MS);
    ck_assert_uint_eq(a.max_backlog, 0);
    ck_assert_uint_eq(a.late, 0);
    due = sb_arrivals_take(&a, T0 + 3000 * MS);
    ck_assert(due >= T0 + 2000 * MS);
    /* Its backlog at 3 s counts the window's arrivals only (about 1000). */
    ck_assert(a.max_backlog > 850 && a.max_backlog < 1150);
    /* A second call changes nothing. */
    sb_arrivals_start_window(&a, T0 + 2900 * MS);
    ck_assert(a.max_backlog > 850);

    /* On time at the window start: the sequence is kept as it is. */
    sb_arrivals_init(&a, 1000, T0, 6, &params);
    sb_arrivals_init(&b, 1000, T0, 6, &params);
    while (sb_arrivals_take(&a, 0) < T0 + 100 * MS)
        sb_arrivals_take(&b, 0);
    sb_arrivals_take(&b, 0);
    sb_arrivals_start_window(&a, T0 + 100 * MS);
    for (int k = 0; k < 100; k++)
        ck_assert_uint_eq(sb_arrivals_take(&a, 0), sb_arrivals_take(&b, 0));
}
END_TEST

static Suite *pacer_suite(void)
{
    Suite *s = suite_create("sb_pacer");
    TCase *fixed = tcase_create("fixed");
    TCase *poisson = tcase_create("poisson");

    tcase_set_timeout(fixed, 60);
    tcase_add_test(fixed, test_long_run_exact);
    tcase_add_test(fixed, test_window_count);
    tcase_add_test(fixed, test_jitter_distribution);
    tcase_add_test(fixed, test_monotonic);
    tcase_add_test(fixed, test_interleave);
    tcase_add_test(fixed, test_start_at_zero);
    tcase_add_test(fixed, test_catchup);
    tcase_add_test(fixed, test_skip);
    tcase_add_test(fixed, test_check);
    tcase_add_test(fixed, test_nominal_due_count);
    tcase_add_test(fixed, test_window_by_nominal);
    tcase_add_test(fixed, test_start_window);
    tcase_add_test(fixed, test_stall_backlog);
    suite_add_tcase(s, fixed);

    tcase_set_timeout(poisson, 60);
    tcase_add_test(poisson, test_poisson_moments);
    tcase_add_test(poisson, test_poisson_reproducible);
    tcase_add_test(poisson, test_poisson_backlog);
    tcase_add_test(poisson, test_poisson_start_window);
    tcase_add_test(poisson, test_poisson_bad_rate);
    suite_add_tcase(s, poisson);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(pacer_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
