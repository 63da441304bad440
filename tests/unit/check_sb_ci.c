/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_ci: Student t quantiles against published table
 * values, the summary of a known sample, Welch ratios, their p-values,
 * levels and verdicts, and the coverage of the 95% intervals (of a ratio,
 * of a geometric mean) on simulated data (they must hold the true value
 * about 95% of the time, not merely print a number).
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "pure/sb_ci.h"
#include "sb_test_rng.h"

START_TEST(test_t_quantile)
{
    /* Two-sided 95% critical values from any t table. */
    static const double df[] = {1, 2, 4, 10, 30, 1000};
    static const double t975[] = {12.7062, 4.3027, 2.7764, 2.2281, 2.0423, 1.9623};

    for (size_t i = 0; i < sizeof(df) / sizeof(df[0]); i++)
        ck_assert_double_eq_tol(sb_ci_t_quantile(0.975, df[i]), t975[i], 1e-4);
    ck_assert_double_eq_tol(sb_ci_t_quantile(0.5, 7), 0, 1e-9);
    ck_assert_double_eq_tol(sb_ci_t_quantile(0.025, 10), -2.2281, 1e-4);
    ck_assert_double_eq_tol(sb_ci_t_cdf(2.2281, 10), 0.975, 1e-5);
    ck_assert(isnan(sb_ci_t_quantile(1.5, 3)));
    ck_assert(isnan(sb_ci_t_quantile(0.5, 0)));
}
END_TEST

START_TEST(test_summary)
{
    const double x[] = {5, 1, NAN, 4, 2, 3};
    struct sb_ci_summary s;

    sb_ci_summarize(x, 6, &s);
    ck_assert_uint_eq(s.n, 5);
    ck_assert_double_eq(s.median, 3);
    ck_assert_double_eq(s.min, 1);
    ck_assert_double_eq(s.max, 5);
    ck_assert_double_eq_tol(s.sd, 1.58113883, 1e-7);
    /* 3 +- 2.7764 * 1.5811 / sqrt(5) */
    ck_assert_double_eq_tol(s.lo, 1.03675, 1e-4);
    ck_assert_double_eq_tol(s.hi, 4.96325, 1e-4);
    sb_ci_summarize(x, 1, &s);
    ck_assert_uint_eq(s.n, 1);
    ck_assert_double_eq(s.median, 5);
    ck_assert(isnan(s.lo) && isnan(s.hi));
    sb_ci_summarize(x, 0, &s);
    ck_assert(s.n == 0 && isnan(s.median));
}
END_TEST

START_TEST(test_welch_known)
{
    const double a[] = {100, 110, 90, 105, 95};
    double b[5];
    struct sb_ci_ratio r;
    double ma = 0, va = 0, se, t;

    for (int i = 0; i < 5; i++)
        b[i] = a[i] * 1.1;
    ck_assert_int_eq(sb_ci_ratio_welch(a, 5, b, 5, &r), 0);
    ck_assert_double_eq_tol(r.ratio, 1.1, 1e-12);
    /* Equal variances and sizes: df = 2(n-1) = 8, se = sqrt(2 var / n). */
    ck_assert_double_eq_tol(r.df, 8, 1e-9);
    for (int i = 0; i < 5; i++)
        ma += log(a[i]) / 5;
    for (int i = 0; i < 5; i++)
        va += (log(a[i]) - ma) * (log(a[i]) - ma) / 4;
    se = sqrt(2 * va / 5);
    t = 2.306004; /* t(0.975, 8) */
    ck_assert_double_eq_tol(r.lo, 1.1 * exp(-t * se), 1e-5);
    ck_assert_double_eq_tol(r.hi, 1.1 * exp(t * se), 1e-5);
    /* 10% apart with +-10% noise on 5 values: not significant. */
    ck_assert_int_eq(sb_ci_judge(&r, true), SB_CI_SAME);
    ck_assert_int_eq(sb_ci_ratio_welch(a, 1, b, 5, &r), -1);
    ck_assert(isnan(r.lo));
    ck_assert_int_eq(sb_ci_judge(&r, true), SB_CI_UNKNOWN);
}
END_TEST

START_TEST(test_verdicts)
{
    const double a[] = {10, 10.1, 9.9, 10.05, 9.95};
    const double b[] = {11, 11.1, 10.9, 11.05, 10.95};
    struct sb_ci_ratio r;

    ck_assert_int_eq(sb_ci_ratio_welch(a, 5, b, 5, &r), 0);
    ck_assert(r.lo > 1.08 && r.hi < 1.12);
    ck_assert_int_eq(sb_ci_judge(&r, true), SB_CI_BETTER);   /* throughput up */
    ck_assert_int_eq(sb_ci_judge(&r, false), SB_CI_WORSE);   /* latency up */
    ck_assert_int_eq(sb_ci_ratio_welch(b, 5, a, 5, &r), 0);
    ck_assert_int_eq(sb_ci_judge(&r, true), SB_CI_WORSE);
    ck_assert_int_eq(sb_ci_judge(&r, false), SB_CI_BETTER);
    ck_assert_int_eq(sb_ci_ratio_welch(a, 5, a, 5, &r), 0);
    ck_assert_double_eq_tol(r.ratio, 1, 1e-12);
    ck_assert_int_eq(sb_ci_judge(&r, true), SB_CI_SAME);
    ck_assert_str_eq(sb_ci_verdict_name(SB_CI_SAME), "no significant difference");
}
END_TEST

/* A deterministic standard normal (tests/unit/sb_test_rng.h). */
static uint64_t rng = SB_TEST_RNG_SEED;

static double normal(void)
{
    return sb_test_normal(&rng);
}

START_TEST(test_welch_coverage)
{
    /* Log-normal samples, true ratio 1.1, unequal sizes and spreads. */
    const int trials = 4000;
    int covered = 0;

    for (int t = 0; t < trials; t++) {
        double a[5], b[8];
        struct sb_ci_ratio r;
        for (int i = 0; i < 5; i++)
            a[i] = 1000 * exp(0.05 * normal());
        for (int i = 0; i < 8; i++)
            b[i] = 1100 * exp(0.12 * normal());
        ck_assert_int_eq(sb_ci_ratio_welch(a, 5, b, 8, &r), 0);
        covered += r.lo <= 1.1 && 1.1 <= r.hi;
    }
    ck_assert_msg(covered > trials * 0.93 && covered < trials * 0.97,
                  "95%% interval covered the true ratio %d times of %d", covered, trials);
}
END_TEST

START_TEST(test_welch_p_and_level)
{
    const double a[] = {100, 110, 90, 105, 95};
    double b[5];
    struct sb_ci_ratio r;

    for (int i = 0; i < 5; i++)
        b[i] = a[i] * 1.1;
    ck_assert_int_eq(sb_ci_ratio_welch(a, 5, b, 5, &r), 0);
    /* p is the two-sided tail of |d| / se: the 95% interval holds 1
     * exactly when p >= 0.05, and at level 1 - p its end touches 1. */
    ck_assert_double_eq_tol(r.p, 2 * (1 - sb_ci_t_cdf(fabs(r.d) / r.se, r.df)), 1e-12);
    ck_assert(r.p > 0.05);
    sb_ci_ratio_at_level(&r, 1 - r.p);
    ck_assert_double_eq_tol(r.lo, 1, 1e-6);
    /* A higher level widens the interval about the same centre. */
    sb_ci_ratio_at_level(&r, 0.99);
    ck_assert_double_eq_tol(r.level, 0.99, 1e-12);
    ck_assert_double_eq_tol(r.lo * r.hi, r.ratio * r.ratio, 1e-9);
    ck_assert(r.lo < 1.1 * exp(-2.306004 * r.se));
    /* Identical runs, different sides: exact, p 0. Same sides: p 1. */
    ck_assert_int_eq(sb_ci_ratio_welch(a, 1, b, 1, &r), -1);
    ck_assert(isnan(r.p));
    {
        const double c[] = {5, 5, 5}, d[] = {6, 6, 6};
        ck_assert_int_eq(sb_ci_ratio_welch(c, 3, d, 3, &r), 0);
        ck_assert(r.p < 1e-12 && fabs(r.lo - r.hi) < 1e-9);
        ck_assert_double_eq_tol(r.lo, 1.2, 1e-12);
        ck_assert_int_eq(sb_ci_ratio_welch(c, 3, c, 3, &r), 0);
        ck_assert(r.p == 1);
    }
}
END_TEST

START_TEST(test_summary_log_coverage)
{
    /* Log-normal runs around 1000: the geometric mean's interval holds
     * the true median 1000 about 95% of the time, and is never <= 0. */
    const int trials = 4000;
    int covered = 0;

    for (int t = 0; t < trials; t++) {
        double x[3];
        struct sb_ci_summary s;
        for (int i = 0; i < 3; i++)
            x[i] = 1000 * exp(0.8 * normal());
        sb_ci_summarize_log(x, 3, &s);
        ck_assert(s.lo > 0);
        covered += s.lo <= 1000 && 1000 <= s.hi;
    }
    ck_assert_msg(covered > trials * 0.93 && covered < trials * 0.97,
                  "95%% interval covered the true value %d times of %d", covered, trials);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_ci");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_t_quantile);
    tcase_add_test(tc, test_summary);
    tcase_add_test(tc, test_welch_known);
    tcase_add_test(tc, test_verdicts);
    tcase_add_test(tc, test_welch_coverage);
    tcase_add_test(tc, test_welch_p_and_level);
    tcase_add_test(tc, test_summary_log_coverage);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
