/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_selfcheck: the trend test's statistics, its false
 * positive rate on noise, each flag at its threshold, and labelled
 * synthetic runs (the cases among them) with the verdict each
 * must get: stalls are not the client's, a busy client is, service time
 * above the period is the server's or too few connections', others'
 * CPU is contention.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pure/sb_selfcheck.h"
#include "results/sb_selfcheck_write.h"

/* A fixed-seed generator, so every run of the tests sees the same series. */
static uint64_t rng = 0x853c49e6748fea9bULL;
static double uniform01(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* A standard normal deviate (Box-Muller). */
static double normal(void)
{
    double u = uniform01(), v = uniform01();
    if (u < 1e-300)
        u = 1e-300;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

START_TEST(test_t95_table)
{
    ck_assert_double_eq_tol(sb_selfcheck_t95(1), 12.7062, 1e-4);
    ck_assert_double_eq_tol(sb_selfcheck_t95(10), 2.2281, 1e-4);
    ck_assert_double_eq_tol(sb_selfcheck_t95(30), 2.0423, 1e-4);
    /* The expansion continues the table and tends to the normal's 1.96. */
    ck_assert_double_eq_tol(sb_selfcheck_t95(40), 2.0211, 2e-4);
    ck_assert_double_eq_tol(sb_selfcheck_t95(120), 1.9799, 2e-4);
    ck_assert_double_eq_tol(sb_selfcheck_t95(100000), 1.96, 1e-3);
    for (unsigned df = 1; df < 200; df++)
        ck_assert(sb_selfcheck_t95(df + 1) < sb_selfcheck_t95(df));
    ck_assert(isinf(sb_selfcheck_t95(0)));
}
END_TEST

START_TEST(test_trend_exact_line)
{
    double y[10];
    struct sb_trend t;

    for (int i = 0; i < 10; i++)
        y[i] = 1000 - 50.0 * i;      /* 1000 .. 550 */
    sb_selfcheck_trend(y, 10, 2.0, &t);
    ck_assert_uint_eq(t.n, 10);
    ck_assert(t.tested);
    ck_assert_double_eq_tol(t.mean, 775, 1e-9);
    ck_assert_double_eq_tol(t.slope, -25, 1e-9);   /* per second, dt = 2 */
    ck_assert_double_eq_tol(t.change_pct, 100.0 * -450 / 775, 1e-9);
    ck_assert(t.significant);
    ck_assert(t.flagged);
}
END_TEST

START_TEST(test_trend_flat)
{
    double y[12];
    struct sb_trend t;

    for (int i = 0; i < 12; i++)
        y[i] = 500;
    sb_selfcheck_trend(y, 12, 1.0, &t);
    ck_assert(t.tested);
    ck_assert_double_eq(t.slope, 0);
    ck_assert(!t.significant);
    ck_assert(!t.flagged);
}
END_TEST

START_TEST(test_trend_known_t)
{
    /* y = 0, 2, 1, 3: slope 0.8, intercept 0.3, residuals -0.3, 0.9,
     * -0.9, 0.3, SSE 1.8, Sxx 5, se = sqrt(1.8 / 2 / 5), t = 0.8 / se. */
    double y[] = {0, 2, 1, 3};
    struct sb_trend t;

    sb_selfcheck_trend(y, 4, 1.0, &t);
    ck_assert_double_eq_tol(t.slope, 0.8, 1e-12);
    ck_assert_double_eq_tol(t.t, 0.8 / sqrt(1.8 / 10), 1e-12);
    ck_assert_double_eq_tol(t.t_crit, 4.3027, 1e-4);
    ck_assert(!t.tested);   /* 4 samples: too few to judge */
    ck_assert(!t.flagged);
}
END_TEST

START_TEST(test_trend_too_few)
{
    double y[] = {100, 10, 1, 0.1};
    struct sb_trend t;

    double z[SB_SELFCHECK_MIN_INTERVALS];

    for (size_t n = 0; n < SB_SELFCHECK_MIN_INTERVALS; n++) {
        sb_selfcheck_trend(y, n < 4 ? n : 4, 1.0, &t);
        ck_assert(!t.tested);
        ck_assert(!t.flagged);
        ck_assert_int_eq(t.verdict, SB_TREND_TOO_FEW);
    }
    /* The case: a +90% fitted change over 6 samples said
     * "stationary: yes". Below the minimum it is not enough evidence. */
    for (size_t i = 0; i < 6; i++)
        z[i] = 100 + 30.0 * (double)i + (i % 2 ? 120 : -120);
    sb_selfcheck_trend(z, 6, 1.0, &t);
    ck_assert(fabs(t.change_pct) > 50);
    ck_assert_int_eq(t.verdict, SB_TREND_TOO_FEW);
    ck_assert_str_eq(sb_selfcheck_trend_name(t.verdict), "too-few-samples");
}
END_TEST

/* A large change that is not significant is not enough evidence either
 * way; a small one is stationary; a large significant one is a drift. */
START_TEST(test_trend_verdicts)
{
    double y[12];
    struct sb_trend t;

    /* +50% fitted over 12 samples buried in +-400 alternating noise. */
    for (int i = 0; i < 12; i++)
        y[i] = 800 + 40.0 * i + (i % 2 ? 400 : -400);
    sb_selfcheck_trend(y, 12, 1.0, &t);
    ck_assert(t.tested);
    ck_assert(!t.significant);
    ck_assert(fabs(t.change_pct) >= 10);
    ck_assert_int_eq(t.verdict, SB_TREND_UNDECIDED);
    ck_assert(!t.flagged);
    ck_assert_str_eq(sb_selfcheck_trend_name(t.verdict), "not-enough-evidence");
    /* The same trend without the noise: a drift, flagged. */
    for (int i = 0; i < 12; i++)
        y[i] = 800 + 40.0 * i + (i % 2 ? 4 : -4);
    sb_selfcheck_trend(y, 12, 1.0, &t);
    ck_assert_int_eq(t.verdict, SB_TREND_DRIFT);
    ck_assert(t.flagged);
    /* A flat noisy series: stationary. */
    for (int i = 0; i < 12; i++)
        y[i] = 1000 + (i % 2 ? 30 : -30);
    sb_selfcheck_trend(y, 12, 1.0, &t);
    ck_assert_int_eq(t.verdict, SB_TREND_STATIONARY);
    ck_assert_str_eq(sb_selfcheck_trend_name(t.verdict), "stationary");
}
END_TEST

/* On white noise the 95% test is significant about 5% of the time. */
START_TEST(test_trend_false_positive_rate)
{
    const int series = 4000, n = 30;
    int significant = 0, flagged = 0;
    double y[30];

    for (int s = 0; s < series; s++) {
        struct sb_trend t;
        for (int i = 0; i < n; i++)
            y[i] = 1000 + 50 * normal();   /* 5% noise */
        sb_selfcheck_trend(y, n, 1.0, &t);
        significant += t.significant;
        flagged += t.flagged;
    }
    ck_assert_int_ge(significant, series * 4 / 100);
    ck_assert_int_le(significant, series * 6 / 100);
    /* Significant and at least a 10% change: rarer still. */
    ck_assert_int_le(flagged, significant);
}
END_TEST

/* A 30% decline buried in 5% noise is found. */
START_TEST(test_trend_noisy_decline)
{
    double y[20];
    struct sb_trend t;

    for (int i = 0; i < 20; i++)
        y[i] = 1000 * (1 - 0.3 * i / 19.0) + 50 * normal();
    sb_selfcheck_trend(y, 20, 1.0, &t);
    ck_assert(t.flagged);
    /* The fitted change is -300 / 850 of the mean, give or take the noise. */
    ck_assert_double_eq_tol(t.change_pct, -100.0 * 300 / 850, 8);
}
END_TEST

START_TEST(test_errors)
{
    ck_assert(!sb_selfcheck_error_dominated(0, 0));
    ck_assert(!sb_selfcheck_error_dominated(5, 100));
    ck_assert(sb_selfcheck_error_dominated(6, 100));
    ck_assert(sb_selfcheck_error_dominated(1, 0));
}
END_TEST

/* A quiet closed-loop run: 2 threads on 4 CPUs, 10 s, workers 10% of
 * two cores, the machine 20% busy (client 5%, server 10%). */
static struct sb_selfcheck_in base_in(void)
{
    struct sb_selfcheck_in in;
    memset(&in, 0, sizeof(in));
    in.threads = 2;
    in.ncpus = 4;
    in.wall_s = 10;
    in.worker_cpu_s = 2;   /* 10% of two cores */
    in.worker_wait_s = -1; /* run-queue wait unknown */
    in.events = 1000;
    in.client_cpu_pct = 5;
    in.server_cpu_pct = 10;
    in.machine_cpu_pct = 20;
    return in;
}

/* A rate-mode run at target tps (2 threads) that kept up: service s_ms. */
static struct sb_selfcheck_in rate_in(double tps, double s_ms)
{
    struct sb_selfcheck_in in = base_in();

    in.rate_mode = SB_PACE_FIXED;
    in.target_tps = tps;
    in.achieved_tps = tps;
    in.events = (uint64_t)(tps * in.wall_s);
    in.service_mean_s = s_ms / 1000;
    in.worker_cpu_s = 0.1;
    in.worker_wait_s = 0.05;
    in.lag_p99_s = 0;
    return in;
}

START_TEST(test_client_cpu)
{
    struct sb_selfcheck_in in = base_in();
    struct sb_selfcheck c;

    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, 0);
    ck_assert_double_eq_tol(c.worker_cpu_pct, 10, 1e-9);
    in.worker_cpu_s = 18;          /* 90% of 2 x 10 s */
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.cpu_bound);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CLIENT_BOUND);
    in.worker_cpu_s = 17.9;
    sb_selfcheck_eval(&in, &c);
    ck_assert(!c.cpu_bound);
    ck_assert_uint_eq(c.flags, 0);
    /* 8 threads on 4 CPUs can use at most 4 cores. */
    in.threads = 8;
    in.worker_cpu_s = 36;
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.cpu_bound);
    ck_assert_double_eq_tol(c.worker_cpu_pct, 90, 1e-9);
    /* With the run-queue wait: 8 threads, 36 s on a CPU and 40 s waiting
     * for one over 10 s is 95% busy. */
    in.worker_wait_s = 40;
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.cpu_bound);
    ck_assert_double_eq_tol(c.worker_busy_pct, 95, 1e-9);
    ck_assert_double_eq_tol(c.worker_wait_pct, 50, 1e-9);
    in.worker_wait_s = 35;         /* 88.75%: not */
    sb_selfcheck_eval(&in, &c);
    ck_assert(!c.cpu_bound);
    /* Two threads on a machine of its own: half a core each, the rest
     * waiting for each other's CPU: client-bound although CPU time says
     * 50%. */
    in.threads = 2;
    in.worker_cpu_s = 10;
    in.worker_wait_s = 9;
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.cpu_bound);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CLIENT_BOUND);
    ck_assert_double_eq_tol(c.worker_cpu_pct, 50, 1e-9);
    in.worker_wait_s = 0;          /* idle half the time: not */
    sb_selfcheck_eval(&in, &c);
    ck_assert(!c.cpu_bound);
    in.worker_cpu_s = -1;          /* unknown: not judged */
    sb_selfcheck_eval(&in, &c);
    ck_assert(!c.cpu_bound);
    ck_assert(isnan(c.worker_cpu_pct));
    ck_assert_uint_eq(c.flags, 0);
}
END_TEST

/* The first case: 1 ms events, 2% stalling 50 ms, 200 tx/s over 2
 * threads, workers 0.4% busy. The lag p99 is many periods, yet the client
 * was free at every due time: no client-bound, and (utilisation 20%, the
 * rate achieved) no server-bound either: the figures measure the server's
 * stalls, as they should. */
START_TEST(test_stalls_not_client)
{
    struct sb_selfcheck_in in = rate_in(200, 0.98 * 1 + 0.02 * 50);
    struct sb_selfcheck c;

    in.lag_p99_s = 0.040;          /* 400% of the 10 ms period */
    in.client_delay_s = 2000 * 20e-6;
    in.client_late = 0;
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.lag_bound);
    ck_assert_double_eq_tol(c.utilisation_pct, 19.8, 1e-9);
    ck_assert_double_eq_tol(c.client_delay_mean_ms, 0.02, 1e-9);
    ck_assert_uint_eq(c.flags, 0);
    /* The same run on a machine whose other processes took 80% of it:
     * the lag is then laid to the contention. */
    in.machine_cpu_pct = 95;
    sb_selfcheck_eval(&in, &c);
    ck_assert_double_eq_tol(c.other_cpu_pct, 80, 1e-9);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CONTENTION);
}
END_TEST

/* Idle at the due time yet late, with the workers waiting for a CPU:
 * client-bound, at the thresholds. Late without that wait: not the
 * client's (the kernel's late wake-ups, judged on their own). */
START_TEST(test_client_late)
{
    struct sb_selfcheck_in in = rate_in(100, 1);   /* 20 ms period */
    struct sb_selfcheck c;

    in.worker_wait_s = 2;          /* 10% of 2 threads x 10 s */
    in.client_late = 10;           /* 1% of 1000 starts: not above */
    sb_selfcheck_eval(&in, &c);
    ck_assert_double_eq_tol(c.client_late_pct, 1, 1e-9);
    ck_assert(!c.client_late);
    ck_assert(c.wait_high);
    ck_assert_uint_eq(c.flags, 0);
    in.client_late = 11;
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.client_late);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CLIENT_BOUND);
    /* The same late starts from workers that hardly waited for a CPU
     * (9.5% of their time): not short of CPU, not client-bound. */
    in.worker_wait_s = 1.9;
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.client_late && !c.wait_high);
    ck_assert_uint_eq(c.flags, 0);
    /* The wait unknown (no schedstat): no evidence of a CPU shortage. */
    in.worker_wait_s = -1;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, 0);
    /* Both connections on one loop thread (--client-threads=1): a start
     * held up by the other connection is the client's, wait or not. */
    in.os_threads = 1;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CLIENT_BOUND);
    in.os_threads = 0;
    in.worker_wait_s = 2;
    /* A short run: 2 late starts of 50 are 4%, yet an accident. */
    in.events = 50;
    in.client_late = 2;
    sb_selfcheck_eval(&in, &c);
    ck_assert(!c.client_late);
    ck_assert_uint_eq(c.flags, 0);
    in.client_late = 3;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CLIENT_BOUND);
    in.events = 1000;
    in.client_late = 11;
    /* Others took 60% of the machine: their doing, not the client's. */
    in.machine_cpu_pct = 75;
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.others_dominant);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CONTENTION);
    /* An embedded engine: a late start of an idle worker that waited for
     * a CPU is still the client's. */
    in.machine_cpu_pct = 20;
    in.in_process = true;
    in.idle_late = 11;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CLIENT_BOUND);
    /* ... but the same late starts of a worker going from one transaction
     * to the next (the engine behind its schedule; a slow sanitizer build
     * between them) are not: the engine's thread, not a start missed. */
    in.idle_late = 2;
    sb_selfcheck_eval(&in, &c);
    ck_assert(!c.client_late);
    ck_assert_double_eq_tol(c.client_late_pct, 0.2, 1e-9);
    ck_assert_uint_eq(c.flags & SB_SELFCHECK_CLIENT_BOUND, 0);
}
END_TEST

/* A clean rate run on a virtual machine, as the issue measured it: 1 ms
 * events at 200 tx/s over 2 threads (10 ms period), the machine 11% busy,
 * workers 1.1% busy, wake-ups of an idle worker with a p99 of wake_ms
 * (wake_late of 2000 later than 1 ms), response p99 resp_ms, lag p99
 * lag_ms. */
static struct sb_selfcheck_in vm_in(double wake_ms, uint64_t wake_late, double resp_ms,
                                    double lag_ms)
{
    struct sb_selfcheck_in in = rate_in(200, 1.1);

    in.worker_cpu_s = 0.2;
    in.worker_wait_s = 0.02;
    in.client_cpu_pct = 1;
    in.server_cpu_pct = NAN;
    in.machine_cpu_pct = 11;
    in.wakeups = in.events;
    in.wake_p99_s = wake_ms / 1000;
    in.wake_late = wake_late;
    in.client_late = wake_late;    /* later than 1 ms = 10% of the period */
    in.response_p99_s = resp_ms / 1000;
    in.lag_p99_s = lag_ms / 1000;
    return in;
}

/* The labelled samples of the late wake-ups rule (sb_selfcheck.h). */
START_TEST(test_late_wakeups)
{
    struct sb_selfcheck_in in;
    struct sb_selfcheck c;
    char buf[128];

    /* The run: 2% of events stall 50 ms (response p99 51 ms, lag
     * p99 40 ms from waiting behind them), 1.58% of starts more than
     * 1 ms late, wake-up p99 1.2 ms. It was FLAGGED [client-bound] in 1 of
     * 8 runs; the wake-ups move neither figure: no flag. */
    in = vm_in(1.2, 32, 51, 40);
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.client_late && !c.wait_high);
    ck_assert(c.wake_high && !c.wake_moves);
    ck_assert_double_eq_tol(c.wake_of_response_pct, 100 * 1.2 / 51, 1e-9);
    ck_assert_uint_eq(c.flags, 0);
    /* No stalls: the response p99 (4 ms) is mostly a 3 ms wake-up tail.
     * Late wake-ups, and only that; --tx-spin of the p99. */
    in = vm_in(3, 40, 4, 3);
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.wake_high && c.wake_moves);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_LATE_WAKEUPS);
    ck_assert_uint_eq(sb_selfcheck_spin_us(&c), 3000);
    ck_assert_str_eq(sb_selfcheck_flag_names(c.flags, buf, sizeof(buf)), "late wake-ups");
    in.wake_p99_s = 0.00121;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(sb_selfcheck_spin_us(&c), 1250);
    /* At the threshold: a p99 of 1.0 ms is this machine's normal tail. */
    in = vm_in(SB_SELFCHECK_WAKE_P99_MS, 40, 2, 1);
    sb_selfcheck_eval(&in, &c);
    ck_assert(!c.wake_high);
    ck_assert_uint_eq(c.flags, 0);
    /* Two late wake-ups are an accident, whatever their share. */
    in = vm_in(3, 2, 4, 3);
    in.wakeups = in.events = 100;
    sb_selfcheck_eval(&in, &c);
    ck_assert(!c.wake_high);
    ck_assert_uint_eq(c.flags, 0);
    /* Exactly a tenth of the response p99 moves it; less does not. */
    in = vm_in(2, 40, 20, 0.5);
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_LATE_WAKEUPS);
    in.response_p99_s = 0.0201;
    sb_selfcheck_eval(&in, &c);
    ck_assert(!c.wake_moves);
    ck_assert_uint_eq(c.flags, 0);
    /* Slow transactions hide the wake-ups in the response p99 (100 ms),
     * but the lag p99, 30% of the period, is mostly wake-up (2.5 of 3 ms). */
    in = vm_in(2.5, 40, 100, 3);
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.lag_bound && c.wake_moves);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_LATE_WAKEUPS);
    /* A lag p99 under a tenth of the period is no evidence. */
    in.lag_p99_s = 0.0009;
    sb_selfcheck_eval(&in, &c);
    ck_assert(!c.lag_bound);
    ck_assert_uint_eq(c.flags, 0);
    /* A client short of CPU (its workers waited for one 20% of their
     * time): client-bound, and the wake-ups are not judged apart. */
    in = vm_in(3, 40, 4, 3);
    in.worker_wait_s = 4;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CLIENT_BOUND);
    /* Others took the machine: contention explains the delay. */
    in = vm_in(3, 40, 4, 3);
    in.machine_cpu_pct = 90;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CONTENTION);
    /* No wake-up seen (every start waited behind its predecessor). */
    in = vm_in(3, 0, 4, 3);
    in.wakeups = 0;
    sb_selfcheck_eval(&in, &c);
    ck_assert(isnan(c.wake_p99_ms));
    ck_assert_uint_eq(c.flags, 0);
    /* A closed loop has no schedule: never judged. */
    in = base_in();
    in.wakeups = 1000;
    in.wake_p99_s = 0.005;
    in.wake_late = 500;
    in.response_p99_s = 0.006;
    sb_selfcheck_eval(&in, &c);
    ck_assert(isnan(c.wake_p99_ms));
    ck_assert_uint_eq(c.flags, 0);
}
END_TEST

/* A client spinning 5 ms per event at 1000 tx/s on 1 thread: it needs five
 * cores, whatever else runs. */
START_TEST(test_client_demand)
{
    struct sb_selfcheck_in in = rate_in(1000, 30);
    struct sb_selfcheck c;

    in.threads = 1;
    in.achieved_tps = 35;
    in.events = 350;
    in.worker_cpu_s = 350 * 0.005;
    in.worker_wait_s = 10 - in.worker_cpu_s;
    in.machine_cpu_pct = 100;      /* others 85% */
    sb_selfcheck_eval(&in, &c);
    ck_assert_double_eq_tol(c.client_demand_pct, 500, 1e-9);
    ck_assert(c.demand_bound && c.rate_short);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CLIENT_BOUND | SB_SELFCHECK_CONTENTION);
    /* Alone on the machine: client-bound only, never server-bound. */
    in.machine_cpu_pct = 20;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CLIENT_BOUND);
    /* An embedded engine's CPU is the database's: server-bound, the
     * server (the engine, 1 thread on 1 CPU) the limit. */
    in.ncpus = 1;
    in.in_process = true;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_SERVER_BOUND);
    ck_assert_int_eq(c.cause, SB_SELFCHECK_CAUSE_SERVER);
}
END_TEST

/* Service time above the period: server-bound, with what would help. */
START_TEST(test_server_bound)
{
    struct sb_selfcheck_in in = rate_in(100, 17.9);  /* 2 threads, 89.5% */
    struct sb_selfcheck c;
    char buf[128];

    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, 0);
    in.service_mean_s = 0.0182;    /* 91% */
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_SERVER_BOUND);
    ck_assert_int_eq(c.cause, SB_SELFCHECK_CAUSE_CONNECTIONS);   /* server CPU 10% */
    ck_assert_uint_eq(c.suggest_threads, 3);   /* 2 x 0.91 / 0.7 = 2.6 */
    ck_assert_str_eq(sb_selfcheck_cause_name(c.cause), "connections");
    ck_assert_str_eq(sb_selfcheck_flag_names(c.flags, buf, sizeof(buf)), "server-bound");
    /* 20 ms per transaction at 100 tx/s on 1 connection: 200%. */
    in.threads = 1;
    in.service_mean_s = 0.020;
    in.achieved_tps = 50;
    in.events = 500;
    sb_selfcheck_eval(&in, &c);
    ck_assert_double_eq_tol(c.utilisation_pct, 200, 1e-9);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_SERVER_BOUND);
    ck_assert_uint_eq(c.suggest_threads, 3);   /* 1 x 2 / 0.7 = 2.9 */
    /* The server's CPU saturated: it is the limit. */
    in.server_cpu_pct = 85;
    in.machine_cpu_pct = 92;
    sb_selfcheck_eval(&in, &c);
    ck_assert_int_eq(c.cause, SB_SELFCHECK_CAUSE_SERVER);
    ck_assert_uint_eq(c.suggest_threads, 0);
    /* The server had CPU to spare (30%, 60% at the target) but the
     * client and it saturated the machine: more connections would not
     * help (issue 28: "CPU to spare ... --threads=6" on a machine 99.9%
     * busy). */
    in.server_cpu_pct = 30;
    in.client_cpu_pct = 65;
    in.machine_cpu_pct = 99.9;
    sb_selfcheck_eval(&in, &c);
    ck_assert(!c.others_dominant);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_SERVER_BOUND);
    ck_assert_int_eq(c.cause, SB_SELFCHECK_CAUSE_MACHINE);
    ck_assert_uint_eq(c.suggest_threads, 0);
    ck_assert_str_eq(sb_selfcheck_cause_name(c.cause), "machine");
    in.machine_cpu_pct = 79.9;
    sb_selfcheck_eval(&in, &c);
    ck_assert_int_eq(c.cause, SB_SELFCHECK_CAUSE_CONNECTIONS);
    /* Others took the machine: contention, and the cause stays
     * connections (the advice then puts the contention first). */
    in.client_cpu_pct = 5;
    in.machine_cpu_pct = 99.9;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_SERVER_BOUND | SB_SELFCHECK_CONTENTION);
    ck_assert_int_eq(c.cause, SB_SELFCHECK_CAUSE_CONNECTIONS);
    in.client_cpu_pct = 5;
    /* Not measured (remote server, no driver): unknown. */
    in.server_cpu_pct = NAN;
    in.machine_cpu_pct = 20;
    sb_selfcheck_eval(&in, &c);
    ck_assert_int_eq(c.cause, SB_SELFCHECK_CAUSE_UNKNOWN);
    /* A shortfall alone (--tx-late=skip) is server-bound too. */
    in = rate_in(100, 1);
    in.achieved_tps = 98.9;
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.rate_short);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_SERVER_BOUND);
    in.achieved_tps = 99;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, 0);
}
END_TEST

/* The MariaDB case of the issue: 4 threads at 300 tx/s where the closed
 * loop reaches 644 (6.2 ms per transaction), workers 11% busy, some lag:
 * clean. */
START_TEST(test_below_capacity_clean)
{
    struct sb_selfcheck_in in = rate_in(300, 4 / 644.0 * 1000);
    struct sb_selfcheck c;

    in.threads = 4;
    in.events = 3000;
    in.worker_cpu_s = 0.11 * 4 * 10;
    in.worker_wait_s = 0;
    in.lag_p99_s = 0.005;          /* 37.5% of the 13.3 ms period */
    in.client_delay_s = 3000 * 30e-6;
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.lag_bound);
    ck_assert_double_eq_tol(c.utilisation_pct, 46.6, 0.1);
    ck_assert_uint_eq(c.flags, 0);
}
END_TEST

/* Transactions that are the client's own work, slowed by others taking
 * the CPU: contention, not server-bound (the server did not make them
 * long) and not client-bound (the client alone needs 30% of a core). */
START_TEST(test_contention)
{
    struct sb_selfcheck_in in = rate_in(150, 7);
    struct sb_selfcheck c;

    in.threads = 1;
    in.achieved_tps = 120;
    in.events = 1200;
    in.worker_cpu_s = 1200 * 0.002;
    in.worker_wait_s = 10 - in.worker_cpu_s;
    in.client_cpu_pct = 12;
    in.server_cpu_pct = NAN;
    in.machine_cpu_pct = 100;
    sb_selfcheck_eval(&in, &c);
    ck_assert_double_eq_tol(c.client_demand_pct, 30, 1e-9);
    ck_assert(c.client_tx_pct >= 50);
    ck_assert_double_eq_tol(c.other_cpu_pct, 88, 1e-9);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CONTENTION);
    /* Others dominant but no effect: not flagged. */
    in = rate_in(150, 1);
    in.machine_cpu_pct = 100;
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.others_dominant);
    ck_assert_uint_eq(c.flags, 0);
    /* A closed loop whose workers wait for a CPU 10% of their time. */
    in = base_in();
    in.machine_cpu_pct = 100;
    in.worker_wait_s = 2;
    sb_selfcheck_eval(&in, &c);
    ck_assert_double_eq_tol(c.worker_wait_pct, 10, 1e-9);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CONTENTION);
    in.worker_wait_s = 1.9;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, 0);
    /* The machine not measured: never contention. */
    in.worker_wait_s = 5;
    in.machine_cpu_pct = NAN;
    sb_selfcheck_eval(&in, &c);
    ck_assert(isnan(c.other_cpu_pct));
    ck_assert_uint_eq(c.flags, 0);
}
END_TEST

/* An embedded engine in a closed loop keeps its workers busy: that is the
 * database at work, not a client limit. */
START_TEST(test_in_process_closed_loop)
{
    struct sb_selfcheck_in in = base_in();
    struct sb_selfcheck c;

    in.in_process = true;
    in.worker_cpu_s = 19;
    in.worker_wait_s = 0.5;
    in.server_cpu_pct = NAN;
    in.client_cpu_pct = 48;
    in.machine_cpu_pct = 50;
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.cpu_bound);
    ck_assert_uint_eq(c.flags, 0);
    in.in_process = false;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CLIENT_BOUND);
}
END_TEST

START_TEST(test_eval_all_flags)
{
    struct sb_selfcheck_in in = base_in();
    struct sb_selfcheck c;
    double y[12];
    char buf[128];

    for (int i = 0; i < 12; i++)
        y[i] = 100 + 20 * i;
    in.tps = y;
    in.ntps = 12;
    in.sample_s = 1;
    in.errors = 200;
    in.worker_cpu_s = 20;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_CLIENT_BOUND | SB_SELFCHECK_NOT_STATIONARY |
                                   SB_SELFCHECK_ERROR_DOMINATED);
    ck_assert_double_eq_tol(c.error_pct, 20, 1e-9);
    ck_assert_str_eq(sb_selfcheck_flag_names(c.flags, buf, sizeof(buf)),
                     "client-bound, not stationary, error-dominated");
    ck_assert_str_eq(sb_selfcheck_flag_names(0, buf, sizeof(buf)), "");
    ck_assert_str_eq(sb_selfcheck_flag_names(SB_SELFCHECK_NOT_STATIONARY, buf, sizeof(buf)),
                     "not stationary");
    ck_assert_str_eq(sb_selfcheck_flag_names(SB_SELFCHECK_SERVER_BOUND |
                                             SB_SELFCHECK_CONTENTION, buf, sizeof(buf)),
                     "server-bound, contention");
    /* A short buffer is cut, never overrun. */
    ck_assert_str_eq(sb_selfcheck_flag_names(c.flags, buf, 20), "client-bound");
}
END_TEST

/* A self-check result with the given flags, cause and trend verdict, its
 * figures plausible for them (the advice lines print them). */
static struct sb_selfcheck crafted(unsigned flags, enum sb_selfcheck_cause cause,
                                   enum sb_trend_verdict v)
{
    struct sb_selfcheck c;

    memset(&c, 0, sizeof(c));
    c.flags = flags;
    c.cause = flags & SB_SELFCHECK_SERVER_BOUND ? cause : SB_SELFCHECK_CAUSE_NONE;
    c.suggest_threads = 4;
    c.period_ms = 10;
    c.lag_p99_ms = 2;
    c.utilisation_pct = 95;
    c.achieved_pct = 90;
    c.service_mean_ms = 9.5;
    c.client_delay_mean_ms = c.client_late_pct = 0.1;
    c.worker_cpu_pct = c.worker_busy_pct = c.worker_wait_pct = 5;
    c.client_demand_pct = c.client_tx_pct = 3;
    c.client_cpu_pct = 10;
    c.server_cpu_pct = 20;
    c.machine_cpu_pct = 99.9;
    c.other_cpu_pct = 69.9;
    c.wake_p99_ms = 1.8;
    c.wake_late_pct = 2;
    c.response_p99_ms = 4;
    c.wake_of_response_pct = 45;
    c.wake_of_lag_pct = 90;
    c.trend.verdict = v;
    c.trend.n = v == SB_TREND_TOO_FEW ? 5 : 20;
    c.trend.tested = v != SB_TREND_TOO_FEW;
    c.trend.change_pct = v == SB_TREND_STATIONARY ? 2 : -15;
    c.trend.flagged = v == SB_TREND_DRIFT;
    c.trend.t_crit = 2.1;
    c.error_pct = 7;
    return c;
}

/* Checks the advice lines ("=> NAME: ...") of a printed self-check: each
 * names a flag in the FLAGGED list (a cause in parentheses after it), or
 * is the undecided-stationarity note, which says it is not a flag; every
 * flag has exactly one. Returns the number of advice lines. */
static int check_advice(char *text, unsigned flags, enum sb_trend_verdict v)
{
    char names[256], *line, *save = NULL;
    int n = 0, per_flag[6] = {0};
    static const char *const flag_names[6] = {"client-bound", "not stationary",
                                              "error-dominated", "server-bound", "contention",
                                              "late wake-ups"};

    sb_selfcheck_flag_names(flags, names, sizeof(names));
    for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        char *a = strstr(line, "=> "), name[64];
        size_t len;
        bool known = false;

        if (a == NULL)
            continue;
        a += 3;
        len = strcspn(a, ":(");
        ck_assert_uint_lt(len, sizeof(name));
        memcpy(name, a, len);
        while (len > 0 && name[len - 1] == ' ')
            len--;
        name[len] = '\0';
        n++;
        if (strcmp(name, "stationarity undecided") == 0) {
            ck_assert_msg(strstr(a, "(not a flag)") == a + len + 1, "%s", line);
            ck_assert_int_eq(v, SB_TREND_UNDECIDED);
            continue;
        }
        for (int i = 0; i < 6; i++)
            if (strcmp(name, flag_names[i]) == 0) {
                ck_assert_msg(flags & (1u << i), "advice for %s under [%s]: %s", name, names,
                              line);
                per_flag[i]++;
                known = true;
            }
        ck_assert_msg(known, "advice line names no flag: %s", line);
    }
    for (int i = 0; i < 6; i++)
        ck_assert_msg(per_flag[i] == ((flags & (1u << i)) ? 1 : 0), "flag %d: %d advice lines",
                      i, per_flag[i]);
    return n;
}

/* One source of advice, consistent with the flags shown (issue 28 item 4):
 * over every combination of flags, causes and trend verdicts, the brief
 * summary and the full section give each flag one advice line that names
 * it, and nothing else but the undecided-stationarity note, which says it
 * is not a flag. */
START_TEST(test_advice_names_its_flag)
{
    for (unsigned flags = 0; flags < 64; flags++)
        for (int cause = SB_SELFCHECK_CAUSE_UNKNOWN; cause <= SB_SELFCHECK_CAUSE_MACHINE; cause++)
            for (int v = SB_TREND_TOO_FEW; v <= SB_TREND_DRIFT; v++) {
                struct sb_selfcheck c;
                struct sb_selfcheck_figures f = {100, 5, 9};
                char *buf = NULL;
                size_t len = 0;
                FILE *out;

                /* The trend flag and a drift verdict go together. */
                if (((flags & SB_SELFCHECK_NOT_STATIONARY) != 0) != (v == SB_TREND_DRIFT))
                    continue;
                c = crafted(flags, (enum sb_selfcheck_cause)cause, (enum sb_trend_verdict)v);
                out = open_memstream(&buf, &len);
                sb_selfcheck_print_brief(&c, out);
                fclose(out);
                ck_assert_int_eq(check_advice(buf, flags, (enum sb_trend_verdict)v),
                                 __builtin_popcount(flags) + (v == SB_TREND_UNDECIDED));
                free(buf);
                buf = NULL;
                out = open_memstream(&buf, &len);
                sb_selfcheck_print(&c, &f, out);
                fclose(out);
                ck_assert_int_eq(check_advice(buf, flags, (enum sb_trend_verdict)v),
                                 __builtin_popcount(flags) + (v == SB_TREND_UNDECIDED));
                free(buf);
            }
}
END_TEST

/* The advice agrees with the figures: a server-bound run on a machine
 * others took never says the machine had CPU to spare (issue 28: "server
 * had CPU to spare ... about --threads=6" while the machine was 99.9%
 * busy). */
START_TEST(test_advice_no_spare_cpu_on_busy_machine)
{
    struct sb_selfcheck c = crafted(SB_SELFCHECK_SERVER_BOUND | SB_SELFCHECK_CONTENTION,
                                    SB_SELFCHECK_CAUSE_CONNECTIONS, SB_TREND_STATIONARY);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    sb_selfcheck_print_brief(&c, out);
    fclose(out);
    ck_assert_ptr_null(strstr(buf, "to spare"));
    ck_assert_ptr_nonnull(strstr(buf, "rerun where nothing else competes"));
    free(buf);
    c = crafted(SB_SELFCHECK_SERVER_BOUND, SB_SELFCHECK_CAUSE_MACHINE, SB_TREND_STATIONARY);
    buf = NULL;
    out = open_memstream(&buf, &len);
    sb_selfcheck_print_brief(&c, out);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(buf, "the machine was 99.9% busy"));
    ck_assert_ptr_null(strstr(buf, "--threads="));
    free(buf);
    /* Late wake-ups: the p99 and the --tx-spin that covers it. */
    c = crafted(SB_SELFCHECK_LATE_WAKEUPS, SB_SELFCHECK_CAUSE_NONE, SB_TREND_STATIONARY);
    buf = NULL;
    out = open_memstream(&buf, &len);
    sb_selfcheck_print_brief(&c, out);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(buf, "FLAGGED [late wake-ups]"));
    ck_assert_ptr_nonnull(strstr(buf, "wake-up delay p99 1.800 ms"));
    ck_assert_ptr_nonnull(strstr(buf, "--tx-spin=1800"));
    ck_assert_ptr_null(strstr(buf, "client-bound"));
    free(buf);
}
END_TEST

static Suite *selfcheck_suite(void)
{
    Suite *s = suite_create("sb_selfcheck");
    TCase *tc = tcase_create("selfcheck");

    tcase_add_test(tc, test_t95_table);
    tcase_add_test(tc, test_trend_exact_line);
    tcase_add_test(tc, test_trend_flat);
    tcase_add_test(tc, test_trend_known_t);
    tcase_add_test(tc, test_trend_too_few);
    tcase_add_test(tc, test_trend_false_positive_rate);
    tcase_add_test(tc, test_trend_noisy_decline);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_trend_verdicts);
    tcase_add_test(tc, test_client_cpu);
    tcase_add_test(tc, test_stalls_not_client);
    tcase_add_test(tc, test_client_late);
    tcase_add_test(tc, test_late_wakeups);
    tcase_add_test(tc, test_client_demand);
    tcase_add_test(tc, test_server_bound);
    tcase_add_test(tc, test_below_capacity_clean);
    tcase_add_test(tc, test_contention);
    tcase_add_test(tc, test_in_process_closed_loop);
    tcase_add_test(tc, test_eval_all_flags);
    tcase_add_test(tc, test_advice_names_its_flag);
    tcase_add_test(tc, test_advice_no_spare_cpu_on_busy_machine);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(selfcheck_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
