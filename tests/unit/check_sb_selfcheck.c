/*
 * Unit tests for sb_selfcheck: the trend test's statistics, its false
 * positive rate on noise, and each of the three flags at its threshold.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sb_selfcheck.h"

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

    for (size_t n = 0; n < SB_SELFCHECK_MIN_INTERVALS; n++) {
        sb_selfcheck_trend(y, n < 4 ? n : 4, 1.0, &t);
        ck_assert(!t.tested);
        ck_assert(!t.flagged);
    }
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
    return in;
}

START_TEST(test_generator_cpu)
{
    struct sb_selfcheck_in in = base_in();
    struct sb_selfcheck c;

    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, 0);
    ck_assert_double_eq_tol(c.worker_cpu_pct, 10, 1e-9);
    in.worker_cpu_s = 18;          /* 90% of 2 x 10 s */
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.cpu_bound);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_GENERATOR_BOUND);
    in.worker_cpu_s = 17.9;
    sb_selfcheck_eval(&in, &c);
    ck_assert(!c.cpu_bound);
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
    in.worker_wait_s = 35;         /* 88.75%: not */
    sb_selfcheck_eval(&in, &c);
    ck_assert(!c.cpu_bound);
    /* Two threads on a shared machine: half a core each, the rest
     * waiting for the CPU: client-bound although CPU time says 50%. */
    in.threads = 2;
    in.worker_cpu_s = 10;
    in.worker_wait_s = 9;
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.cpu_bound);
    ck_assert_double_eq_tol(c.worker_cpu_pct, 50, 1e-9);
    in.worker_wait_s = 0;          /* idle half the time: not */
    sb_selfcheck_eval(&in, &c);
    ck_assert(!c.cpu_bound);
    in.worker_cpu_s = -1;          /* unknown: not judged */
    sb_selfcheck_eval(&in, &c);
    ck_assert(!c.cpu_bound);
    ck_assert(isnan(c.worker_cpu_pct));
}
END_TEST

START_TEST(test_generator_rate)
{
    struct sb_selfcheck_in in = base_in();
    struct sb_selfcheck c;

    in.rate_mode = SB_PACE_FIXED;
    in.target_tps = 100;           /* 2 threads: 20 ms period */
    in.achieved_tps = 100;
    in.lag_p99_s = 0.002;          /* exactly 10%: not above */
    sb_selfcheck_eval(&in, &c);
    ck_assert_double_eq_tol(c.period_ms, 20, 1e-9);
    ck_assert_double_eq_tol(c.lag_pct_of_period, 10, 1e-9);
    ck_assert_uint_eq(c.flags, 0);
    in.lag_p99_s = 0.0021;
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.lag_bound);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_GENERATOR_BOUND);
    in.lag_p99_s = 0;
    in.achieved_tps = 98.9;
    sb_selfcheck_eval(&in, &c);
    ck_assert(c.rate_short && !c.lag_bound);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_GENERATOR_BOUND);
    in.achieved_tps = 99;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, 0);
}
END_TEST

START_TEST(test_eval_all_flags)
{
    struct sb_selfcheck_in in = base_in();
    struct sb_selfcheck c;
    double y[8];
    char buf[128];

    for (int i = 0; i < 8; i++)
        y[i] = 100 + 20 * i;
    in.tps = y;
    in.ntps = 8;
    in.sample_s = 1;
    in.errors = 200;
    in.worker_cpu_s = 20;
    sb_selfcheck_eval(&in, &c);
    ck_assert_uint_eq(c.flags, SB_SELFCHECK_GENERATOR_BOUND | SB_SELFCHECK_NOT_STATIONARY |
                                   SB_SELFCHECK_ERROR_DOMINATED);
    ck_assert_double_eq_tol(c.error_pct, 20, 1e-9);
    ck_assert_str_eq(sb_selfcheck_flag_names(c.flags, buf, sizeof(buf)),
                     "generator-bound, not stationary, error-dominated");
    ck_assert_str_eq(sb_selfcheck_flag_names(0, buf, sizeof(buf)), "");
    ck_assert_str_eq(sb_selfcheck_flag_names(SB_SELFCHECK_NOT_STATIONARY, buf, sizeof(buf)),
                     "not stationary");
    /* A short buffer is cut, never overrun. */
    ck_assert_str_eq(sb_selfcheck_flag_names(c.flags, buf, 20), "generator-bound");
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
    tcase_add_test(tc, test_generator_cpu);
    tcase_add_test(tc, test_generator_rate);
    tcase_add_test(tc, test_eval_all_flags);
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
