/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the repeat summary (sb_repeat_summarize) on labelled
 * runs: the interval of a few widely spread runs stays positive (the
 * mean's interval of TPS 100 and 3000 goes far below zero), it is the
 * geometric mean's interval computed on the logs, and a percentile's
 * interval holds the true value although each run reports its histogram
 * bucket's upper bound (a p50 interval [2.006, 2.020] ms excluded the true
 * 2.0013 before the bucket was allowed for).
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "pure/sb_histogram.h"
#include "results/sb_repeat.h"
#include "sb_test_rng.h"

/* A deterministic standard normal (tests/unit/sb_test_rng.h). */
static uint64_t rng = SB_TEST_RNG_SEED;

static double normal(void)
{
    return sb_test_normal(&rng);
}

START_TEST(test_interval_positive)
{
    const double tps[] = {100, 3000}, cpu[] = {150, 2400, 900};
    struct sb_ci_summary s;

    /* The arithmetic interval of these goes negative... */
    sb_ci_summarize(tps, 2, &s);
    ck_assert(s.lo < 0);
    /* ...the summary's does not, and holds the geometric mean. */
    sb_repeat_summarize(tps, 2, false, &s);
    ck_assert_uint_eq(s.n, 2);
    ck_assert_double_eq_tol(s.gmean, sqrt(100.0 * 3000), 1e-9);
    ck_assert(s.lo > 0 && s.lo < s.gmean && s.gmean < s.hi);
    ck_assert_double_eq(s.median, 1550);
    ck_assert_double_eq(s.min, 100);
    ck_assert_double_eq(s.max, 3000);
    sb_repeat_summarize(cpu, 3, false, &s);
    ck_assert(s.lo > 0 && s.lo < s.gmean && s.gmean < s.hi);
}
END_TEST

START_TEST(test_interval_on_logs)
{
    const double x[] = {900, 1000, 1100, NAN};
    struct sb_ci_summary s;
    double m = (log(900) + log(1000) + log(1100)) / 3, ss = 0, h;

    for (int i = 0; i < 3; i++)
        ss += (log(x[i]) - m) * (log(x[i]) - m);
    h = 4.302653 * sqrt(ss / 2) / sqrt(3); /* t(0.975, 2) */
    sb_repeat_summarize(x, 4, false, &s);
    ck_assert_uint_eq(s.n, 3);
    ck_assert_double_eq_tol(s.gmean, exp(m), 1e-9);
    ck_assert_double_eq_tol(s.lo, exp(m - h), 1e-4);
    ck_assert_double_eq_tol(s.hi, exp(m + h), 1e-4);
    /* Not positive: no geometric mean, no interval; the rest is kept. */
    {
        const double z[] = {0, 10, 20};
        sb_repeat_summarize(z, 3, false, &s);
        ck_assert(isnan(s.gmean) && isnan(s.lo) && isnan(s.hi));
        ck_assert_double_eq(s.mean, 10);
    }
    /* One run: no interval. */
    sb_repeat_summarize(x, 1, false, &s);
    ck_assert(isnan(s.lo) && s.gmean == 900);
}
END_TEST

/* A run's reported p50: its true p50 recorded and read back by the
 * histogram's rule (the bucket's upper bound). */
static double reported_ms(double true_ms)
{
    return (double)sb_hist_bucket_high(sb_hist_bucket_of((uint64_t)(true_ms * 1e6))) / 1e6;
}

START_TEST(test_percentile_bucket_bias)
{
    /* The filed case: runs whose true p50 is 2.0013 ms; every report is
     * the bound of the bucket above, so an interval of the reports alone
     * lies wholly above the truth. */
    const double truth = 2.0013;
    double x[5];
    struct sb_ci_summary s;
    int held = 0, held_raw = 0;

    for (int i = 0; i < 5; i++)
        x[i] = reported_ms(truth);
    sb_repeat_summarize(x, 5, false, &s);
    ck_assert(s.lo > truth);
    sb_repeat_summarize(x, 5, true, &s);
    ck_assert(s.lo <= truth && truth <= s.hi);
    /* Runs scattered 0.1% around the truth, many times over. */
    for (int t = 0; t < 2000; t++) {
        for (int i = 0; i < 3; i++)
            x[i] = reported_ms(truth * exp(0.001 * normal()));
        sb_repeat_summarize(x, 3, false, &s);
        held_raw += s.lo <= truth && truth <= s.hi;
        sb_repeat_summarize(x, 3, true, &s);
        held += s.lo <= truth && truth <= s.hi;
    }
    ck_assert_msg(held >= 2000 * 0.95, "the interval held the true p50 %d times of 2000", held);
    ck_assert_msg(held_raw < 2000 * 0.9, "without the bucket: %d times of 2000", held_raw);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_repeat");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_interval_positive);
    tcase_add_test(tc, test_interval_on_logs);
    tcase_add_test(tc, test_percentile_bucket_bias);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
