/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for compare's verdicts (sb_verdict) on labelled synthetic
 * runs whose truth is known: A/A comparisons (the same distribution on
 * both sides, so every "better" or "worse" is false) must give false
 * verdicts on at most 5% of figures and in at most about 5% of
 * comparisons once the family control is applied; A/B comparisons with a
 * known 5% and 50% effect must hold the true ratio in their intervals and
 * find the effect when the runs are precise enough; single runs get no
 * verdict; the value shown is the geometric mean of the runs and the ratio
 * that of the values shown; percentiles one bucket apart are not called
 * different.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "pure/sb_ci.h"
#include "pure/sb_histogram.h"
#include "compare/sb_verdict.h"
#include "sb_test_rng.h"

/* A deterministic standard normal (tests/unit/sb_test_rng.h). */
static uint64_t rng = SB_TEST_RNG_SEED;

static double normal(void)
{
    return sb_test_normal(&rng);
}

/* n log-normal runs around centre with a relative spread of cv. */
static void runs(double *x, size_t n, double centre, double cv)
{
    for (size_t i = 0; i < n; i++)
        x[i] = centre * exp(cv * normal());
}

/* Figures of a typical comparison: TPS, p95, p99, CPU of client, server
 * and machine, each with its own run-to-run spread. */
static const double spread[] = {0.03, 0.15, 0.30, 0.05, 0.04, 0.10};
#define NFIG (sizeof(spread) / sizeof(spread[0]))

/* Judges one comparison of `reps` runs per side with every figure's b
 * centre at `effect` times a's; returns the verdicts in v (NFIG). */
static void compare_once(size_t reps, double effect, struct sb_verdict *v)
{
    double a[16], b[16];

    for (size_t f = 0; f < NFIG; f++) {
        runs(a, reps, 1000, spread[f]);
        runs(b, reps, 1000 * effect, spread[f]);
        sb_verdict_from_runs(a, reps, b, reps, f == 1 || f == 2, f == 0, &v[f]);
    }
    ck_assert_uint_eq(sb_verdict_family(v, NFIG), NFIG);
}

START_TEST(test_aa_false_verdicts)
{
    const int trials = 4000;
    static const size_t reps[] = {2, 3, 5};

    for (size_t i = 0; i < sizeof(reps) / sizeof(reps[0]); i++) {
        int false_figs = 0, false_cmps = 0;
        for (int t = 0; t < trials; t++) {
            struct sb_verdict v[NFIG];
            int any = 0;
            compare_once(reps[i], 1.0, v);
            for (size_t f = 0; f < NFIG; f++) {
                ck_assert(v[f].method == SB_VERDICT_REPEATS);
                any |= v[f].v == SB_CI_BETTER || v[f].v == SB_CI_WORSE;
                false_figs += v[f].v == SB_CI_BETTER || v[f].v == SB_CI_WORSE;
            }
            false_cmps += any;
        }
        /* At most 5% of comparisons with any false verdict (the family
         * control's promise; 3.5 standard errors of slack for the draw),
         * hence far fewer than 5% of figures. */
        ck_assert_msg(false_cmps < trials * 0.05 + 3.5 * sqrt(trials * 0.05 * 0.95),
                      "%zu runs: %d of %d A/A comparisons had a false verdict", reps[i],
                      false_cmps, trials);
        ck_assert_msg(false_figs <= trials * (int)NFIG * 0.05 / 4,
                      "%zu runs: %d of %d A/A figures falsely judged", reps[i], false_figs,
                      trials * (int)NFIG);
    }
}
END_TEST

START_TEST(test_ab_known_effects)
{
    const int trials = 2000;
    static const double effects[] = {1.05, 1.5};

    for (size_t e = 0; e < 2; e++) {
        int covered = 0, judged = 0, wrong = 0;
        for (int t = 0; t < trials; t++) {
            struct sb_verdict v[NFIG];
            compare_once(3, effects[e], v);
            for (size_t f = 0; f < NFIG; f++) {
                covered += v[f].r.lo <= effects[e] && effects[e] <= v[f].r.hi;
                judged++;
                wrong += v[f].v == (f == 0 ? SB_CI_WORSE : SB_CI_BETTER);
            }
        }
        /* A verdict pointing the wrong way is rarer still: at most half
         * the family's 5% split over its 6 figures, 0.42% of them. */
        ck_assert_msg(wrong <= judged * 0.0042, "effect %g: %d of %d verdicts the wrong way",
                      effects[e], wrong, judged);
        /* Simultaneous intervals: all of a comparison's hold together at
         * 95%, so each far more often. */
        ck_assert_msg(covered >= judged * 0.97, "effect %g: the true ratio in %d of %d intervals",
                      effects[e], covered, judged);
    }
}
END_TEST

START_TEST(test_ab_detected)
{
    /* A 50% throughput gain, runs within 3% of each other, 3 runs: found
     * nearly always. A 5% gain with runs within 1%, 5 runs: found too. */
    struct {
        double effect, cv;
        size_t reps;
    } cases[] = {{1.5, 0.03, 3}, {1.05, 0.01, 5}, {1 / 1.5, 0.03, 3}};
    const int trials = 1000;

    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        int found = 0;
        for (int t = 0; t < trials; t++) {
            double a[8], b[8];
            struct sb_verdict v[NFIG];
            runs(a, cases[c].reps, 1000, cases[c].cv);
            runs(b, cases[c].reps, 1000 * cases[c].effect, cases[c].cv);
            sb_verdict_from_runs(a, cases[c].reps, b, cases[c].reps, false, true, &v[0]);
            /* Five other figures without a difference share the family. */
            for (size_t f = 1; f < NFIG; f++) {
                runs(a, cases[c].reps, 10, 0.1);
                runs(b, cases[c].reps, 10, 0.1);
                sb_verdict_from_runs(a, cases[c].reps, b, cases[c].reps, false, false, &v[f]);
            }
            sb_verdict_family(v, NFIG);
            found += v[0].v == (cases[c].effect > 1 ? SB_CI_BETTER : SB_CI_WORSE);
        }
        ck_assert_msg(found >= trials * 0.9, "effect %g, cv %g, %zu runs: found %d of %d",
                      cases[c].effect, cases[c].cv, cases[c].reps, found, trials);
    }
}
END_TEST

/* The detectable change compare prints is what its name says: a
 * change of that size, at the runs' variation, is called with about 80%
 * probability. 5 runs per side with 5% spread, judged in a family of
 * six figures as compare judges them. */
START_TEST(test_detectable_power)
{
    const size_t reps = 5;
    const double cv = 0.05;
    const int trials = 2000;
    int found = 0;
    double level = 1 - SB_VERDICT_ALPHA / NFIG, df = (double)reps - 1, sum = 0;
    /* The detectable change at the true spread: se of the difference of
     * two means of 5 logs. */
    double det = sb_ci_detectable(cv * sqrt(2.0 / (double)reps), df, level, SB_VERDICT_POWER);

    for (int t = 0; t < trials; t++) {
        double a[8], b[8];
        struct sb_verdict v[NFIG];
        runs(a, reps, 1000, cv);
        runs(b, reps, 1000 * (1 + det), cv);
        sb_verdict_from_runs(a, reps, b, reps, false, true, &v[0]);
        for (size_t f = 1; f < NFIG; f++) {
            runs(a, reps, 10, 0.1);
            runs(b, reps, 10, 0.1);
            sb_verdict_from_runs(a, reps, b, reps, false, false, &v[f]);
        }
        sb_verdict_family(v, NFIG);
        double d = sb_verdict_detectable(&v[0]);
        ck_assert(isfinite(d) && d > 0);
        sum += log(d);
        found += v[0].v == SB_CI_BETTER;
    }
    /* 0.8 +- 4 standard errors of 2,000 draws; Hsu's degrees of
     * freedom are a little conservative, so a little above. */
    ck_assert_msg(found >= trials * 0.77 && found <= trials * 0.88, "found %d of %d at %.1f%%",
                  found, trials, 100 * det);
    /* The detectable change each comparison printed, from its own runs,
     * is about the true one (geometric mean within 25%). */
    ck_assert_msg(fabs(exp(sum / trials) / det - 1) < 0.25, "printed %.1f%%, true %.1f%%",
                  100 * exp(sum / trials), 100 * det);
    /* Single runs: no interval, no detectable change. */
    {
        struct sb_verdict one;
        sb_verdict_from_runs((double[]){1}, 1, (double[]){2}, 1, false, true, &one);
        ck_assert(isnan(sb_verdict_detectable(&one)));
    }
}
END_TEST

START_TEST(test_single_runs_no_verdict)
{
    const double a[] = {1000}, b[] = {1709}, b3[] = {1700, 1710, 1720};
    struct sb_verdict v[2];

    /* The filed case: two identical runs 1.709x apart. No verdict. */
    sb_verdict_from_runs(a, 1, b, 1, false, true, &v[0]);
    ck_assert_int_eq(v[0].method, SB_VERDICT_NONE);
    ck_assert_int_eq(v[0].v, SB_CI_UNKNOWN);
    ck_assert_double_eq(v[0].a, 1000);
    ck_assert_double_eq(v[0].b, 1709);
    ck_assert_double_eq_tol(v[0].r.ratio, 1.709, 1e-12);
    ck_assert(isnan(v[0].r.lo) && isnan(v[0].r.hi));
    /* One side repeated is not enough either. */
    sb_verdict_from_runs(a, 1, b3, 3, false, true, &v[1]);
    ck_assert_int_eq(v[1].method, SB_VERDICT_NONE);
    ck_assert_uint_eq(v[1].runs_b, 3);
    /* Nothing to control: no interval to change. */
    ck_assert_uint_eq(sb_verdict_family(v, 2), 0);
    ck_assert_int_eq(v[0].v, SB_CI_UNKNOWN);
    /* A missing figure. */
    sb_verdict_from_runs(NULL, 0, b, 1, false, true, &v[0]);
    ck_assert(isnan(v[0].a) && isnan(v[0].r.ratio));
    ck_assert_int_eq(v[0].v, SB_CI_UNKNOWN);
}
END_TEST

START_TEST(test_ratio_of_values_shown)
{
    /* Medians 1320 and 1141 against geometric means: the ratio is that
     * of the values the table shows. */
    const double a[] = {900, 1320, 1400}, b[] = {1141, 1150, 1500};
    const double z[] = {0, 10, 20}, w[] = {10, NAN, 30};
    struct sb_verdict v;

    sb_verdict_from_runs(a, 3, b, 3, false, true, &v);
    ck_assert_double_eq_tol(v.a, cbrt(900.0 * 1320 * 1400), 1e-9);
    ck_assert_double_eq_tol(v.b, cbrt(1141.0 * 1150 * 1500), 1e-9);
    ck_assert_double_eq_tol(v.r.ratio, v.b / v.a, 1e-12);
    ck_assert_int_eq(v.method, SB_VERDICT_REPEATS);
    ck_assert(v.r.lo < v.r.ratio && v.r.ratio < v.r.hi && v.r.lo > 0);
    /* A run at 0 has no logarithm: the arithmetic mean, and no verdict. */
    sb_verdict_from_runs(z, 3, w, 3, false, false, &v);
    ck_assert_double_eq(v.a, 10);
    ck_assert_double_eq_tol(v.b, sqrt(300), 1e-9);
    ck_assert_uint_eq(v.runs_b, 2);
    ck_assert_int_eq(v.method, SB_VERDICT_NONE);
}
END_TEST

START_TEST(test_direction)
{
    const double a[] = {10, 10.1, 9.9}, b[] = {12, 12.1, 11.9};
    struct sb_verdict v;

    sb_verdict_from_runs(a, 3, b, 3, false, true, &v);
    ck_assert_int_eq(v.v, SB_CI_BETTER);      /* throughput up */
    sb_verdict_from_runs(a, 3, b, 3, true, false, &v);
    ck_assert_int_eq(v.v, SB_CI_WORSE);       /* latency up */
    sb_verdict_from_runs(b, 3, a, 3, false, false, &v);
    ck_assert_int_eq(v.v, SB_CI_BETTER);      /* CPU down */
    ck_assert_str_eq(sb_ci_verdict_name(v.v), "better");
}
END_TEST

START_TEST(test_percentile_bucket)
{
    /* Every run's p50 lands in the same bucket on one side and the next
     * bucket on the other: the bounds are 1/128 apart but the true values
     * may be equal, so no verdict may call them different. */
    uint64_t ns = 2001300;
    size_t bucket = sb_hist_bucket_of(ns);
    double lo = (double)sb_hist_bucket_high(bucket) / 1e6;
    double hi = (double)sb_hist_bucket_high(bucket + 1) / 1e6;
    const double a[] = {lo, lo, lo}, b[] = {hi, hi, hi};
    struct sb_verdict v;

    sb_verdict_from_runs(a, 3, b, 3, true, false, &v);
    ck_assert_int_eq(v.method, SB_VERDICT_REPEATS);
    ck_assert(v.r.ratio > 1);
    ck_assert_int_eq(v.v, SB_CI_SAME);
    /* The same figures as throughput are exact: a real difference. */
    sb_verdict_from_runs(a, 3, b, 3, false, true, &v);
    ck_assert_int_eq(v.v, SB_CI_BETTER);
    sb_verdict_family(&v, 1);
    ck_assert_int_eq(v.v, SB_CI_BETTER);
}
END_TEST

START_TEST(test_family_level)
{
    double a[3], b[3];
    struct sb_verdict v[5];

    for (size_t i = 0; i < 4; i++) {
        runs(a, 3, 100, 0.05);
        runs(b, 3, 100, 0.05);
        sb_verdict_from_runs(a, 3, b, 3, false, true, &v[i]);
        ck_assert_double_eq_tol(v[i].r.level, 0.95, 1e-12);
    }
    sb_verdict_from_runs(a, 1, b, 1, false, true, &v[4]);
    ck_assert_uint_eq(sb_verdict_family(v, 5), 4);
    for (size_t i = 0; i < 4; i++) {
        double t = sb_ci_t_quantile(1 - 0.05 / 8, v[i].r.df);
        ck_assert_double_eq_tol(v[i].r.level, 1 - 0.05 / 4, 1e-12);
        ck_assert_double_eq_tol(v[i].r.lo, exp(v[i].r.d - t * v[i].r.se), 1e-9);
        ck_assert_double_eq_tol(v[i].r.hi, exp(v[i].r.d + t * v[i].r.se), 1e-9);
        /* The verdict is whether the printed interval excludes 1. */
        ck_assert_int_eq(v[i].v, v[i].r.lo > 1 || v[i].r.hi < 1
                                     ? (v[i].r.lo > 1 ? SB_CI_BETTER : SB_CI_WORSE)
                                     : SB_CI_SAME);
    }
    ck_assert_int_eq(v[4].method, SB_VERDICT_NONE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_verdict");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_aa_false_verdicts);
    tcase_add_test(tc, test_ab_known_effects);
    tcase_add_test(tc, test_ab_detected);
    tcase_add_test(tc, test_detectable_power);
    tcase_add_test(tc, test_single_runs_no_verdict);
    tcase_add_test(tc, test_ratio_of_values_shown);
    tcase_add_test(tc, test_direction);
    tcase_add_test(tc, test_percentile_bucket);
    tcase_add_test(tc, test_family_level);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
