/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the Universal Scalability Law fit (sb_usl): points made
 * from known parameters, exact and with deterministic noise, must give
 * those parameters back; the bounds hold where the unconstrained minimum
 * lies below them; N* and X(N*) follow the formula; a sweep the model
 * cannot describe is reported poor; points that allow no fit are refused.
 *
 * With SB_USL_DUMP set to a file name, the tests marked below append their
 * points and fit there, as "N X" lines ended by a "fit lambda sigma kappa"
 * line, for tests/cli/usl_scipy_tests.sh to check against scipy's
 * curve_fit.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pure/sb_usl.h"
#include "sb_test_rng.h"

static double usl(double l, double s, double k, double n)
{
    return l * n / (1 + s * (n - 1) + k * n * (n - 1));
}

/* Deterministic noise in [-1, 1) (tests/unit/sb_test_rng.h). */
static double noise(uint64_t *x)
{
    return sb_test_noise(x);
}

static const double sweep[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
#define NSWEEP (sizeof(sweep) / sizeof(sweep[0]))

static void make(double l, double s, double k, double amp, uint64_t seed, double *x)
{
    for (size_t i = 0; i < NSWEEP; i++)
        x[i] = usl(l, s, k, sweep[i]) * (1 + amp * (seed ? noise(&seed) : 0));
}

/* Appends the points and the fit to $SB_USL_DUMP, when set. */
static void dump(const double *n, const double *x, size_t count, const struct sb_usl_fit *f)
{
    const char *path = getenv("SB_USL_DUMP");
    FILE *o;

    if (path == NULL)
        return;
    o = fopen(path, "a");
    ck_assert_ptr_nonnull(o);
    for (size_t i = 0; i < count; i++)
        fprintf(o, "%.17g %.17g\n", n[i], x[i]);
    fprintf(o, "fit %.17g %.17g %.17g\n", f->lambda, f->sigma, f->kappa);
    ck_assert_int_eq(fclose(o), 0);
}

static void close_rel(double got, double want, double tol)
{
    ck_assert_msg(fabs(got - want) <= tol * fabs(want), "got %.9g, want %.9g (+-%g rel)",
                  got, want, tol);
}

START_TEST(exact_points_give_the_parameters_back)
{
    static const double cases[][3] = {
        {1000, 0.05, 0.001}, {250, 0.02, 0.0002}, {12000, 0.3, 0.01}, {50, 0.001, 0.00005}};
    const double *c = cases[_i];
    double x[NSWEEP];
    struct sb_usl_fit f;

    make(c[0], c[1], c[2], 0, 0, x);
    ck_assert_int_eq(sb_usl_fit(sweep, x, NSWEEP, &f), 0);
    close_rel(f.lambda, c[0], 1e-6);
    close_rel(f.sigma, c[1], 1e-5);
    close_rel(f.kappa, c[2], 1e-5);
    ck_assert(f.r2 > 0.999999);
    ck_assert(f.max_rel_residual < 1e-6);
    ck_assert(!f.poor);
    close_rel(f.peak_threads, sqrt((1 - c[1]) / c[2]), 1e-5);
    close_rel(f.peak_tps, usl(c[0], c[1], c[2], f.peak_threads), 1e-6);
    close_rel(sb_usl_eval(&f, 10), usl(c[0], c[1], c[2], 10), 1e-6);
}
END_TEST

/* The noisy sweep of the scipy comparison: 3% noise on lambda 1000,
 * sigma 0.04, kappa 0.0008 (N* 34). */
static void noisy(double *x)
{
    make(1000, 0.04, 0.0008, 0.03, 42, x);
}

START_TEST(noisy_points_give_parameters_near_the_truth)
{
    double x[NSWEEP];
    struct sb_usl_fit f;

    noisy(x);
    ck_assert_int_eq(sb_usl_fit(sweep, x, NSWEEP, &f), 0);
    close_rel(f.lambda, 1000, 0.05);
    ck_assert_msg(fabs(f.sigma - 0.04) < 0.015, "sigma %g", f.sigma);
    close_rel(f.kappa, 0.0008, 0.25);
    close_rel(f.peak_threads, sqrt(0.96 / 0.0008), 0.15);
    close_rel(f.peak_tps, usl(1000, 0.04, 0.0008, sqrt(0.96 / 0.0008)), 0.05);
    ck_assert_int_eq(f.peak, SB_USL_PEAK_INSIDE);
    ck_assert(f.r2 > 0.95);
    ck_assert(f.max_rel_residual > 0.001 && f.max_rel_residual < 0.05);
    ck_assert(!f.poor);
    /* No point of the fit's neighbourhood does better: a tiny step in any
     * parameter raises the sum of squares. */
    for (int p = 0; p < 3; p++)
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            struct sb_usl_fit g = f;
            double *v = p == 0 ? &g.lambda : p == 1 ? &g.sigma : &g.kappa;
            double sse = 0;
            *v *= 1 + sgn * 1e-4;
            for (size_t i = 0; i < NSWEEP; i++)
                sse += pow(x[i] - sb_usl_eval(&g, sweep[i]), 2);
            ck_assert_msg(sse >= f.sse * (1 - 1e-12), "param %d step %d: %g < %g", p, sgn, sse,
                          f.sse);
        }
    dump(sweep, x, NSWEEP, &f);
}
END_TEST

START_TEST(superlinear_points_hold_sigma_at_zero)
{
    /* Growth faster than linear (a cache warming up) would need sigma < 0
     * unconstrained; the fit holds it at 0, kappa stays >= 0. */
    const double n[] = {1, 2, 4, 8, 16};
    const double x[] = {100, 215, 460, 980, 2050};
    struct sb_usl_fit f;

    ck_assert_int_eq(sb_usl_fit(n, x, 5, &f), 0);
    ck_assert(f.sigma == 0);
    ck_assert(f.kappa >= 0);
    ck_assert(f.lambda > 100);
    dump(n, x, 5, &f);
}
END_TEST

START_TEST(levelling_points_hold_kappa_at_zero)
{
    /* Amdahl's law with sigma 0.1, plus a slight rise at the end that an
     * unconstrained fit would take as kappa < 0: kappa is held at 0, the
     * peak is none, X(N*) the ceiling lambda / sigma. */
    double x[NSWEEP];
    struct sb_usl_fit f;

    make(500, 0.1, 0, 0, 0, x);
    x[NSWEEP - 1] *= 1.01;
    x[NSWEEP - 2] *= 1.005;
    ck_assert_int_eq(sb_usl_fit(sweep, x, NSWEEP, &f), 0);
    ck_assert(f.kappa == 0);
    ck_assert(f.sigma > 0.08 && f.sigma < 0.1);
    ck_assert_int_eq(f.peak, SB_USL_PEAK_NONE);
    ck_assert(isinf(f.peak_threads));
    close_rel(f.peak_tps, f.lambda / f.sigma, 1e-12);
    ck_assert(!f.poor);
    dump(sweep, x, NSWEEP, &f);
}
END_TEST

START_TEST(peak_above_the_range_is_reported)
{
    /* N* = sqrt(0.98 / 0.0001) = 99, measured to 16 only. */
    const double n[] = {1, 2, 4, 8, 16};
    double x[5];
    struct sb_usl_fit f;

    for (int i = 0; i < 5; i++)
        x[i] = usl(300, 0.02, 0.0001, n[i]);
    ck_assert_int_eq(sb_usl_fit(n, x, 5, &f), 0);
    ck_assert_int_eq(f.peak, SB_USL_PEAK_ABOVE);
    close_rel(f.peak_threads, 99, 1e-3);
    ck_assert(f.min_threads == 1 && f.max_threads == 16);
    dump(n, x, 5, &f);
}
END_TEST

START_TEST(one_thread_best_is_peak_below)
{
    /* Throughput that only falls: contention of 1 or more. */
    const double n[] = {2, 4, 8, 16};
    const double x[] = {90, 60, 38, 22};
    struct sb_usl_fit f;

    ck_assert_int_eq(sb_usl_fit(n, x, 4, &f), 0);
    ck_assert_int_eq(f.peak, SB_USL_PEAK_BELOW);
    ck_assert(f.peak_threads == 1);
    close_rel(f.peak_tps, sb_usl_eval(&f, 1), 1e-12);
}
END_TEST

START_TEST(zigzag_is_a_poor_fit)
{
    const double n[] = {1, 2, 4, 8, 16, 32};
    const double x[] = {100, 400, 120, 500, 110, 450};
    struct sb_usl_fit f;

    ck_assert_int_eq(sb_usl_fit(n, x, 6, &f), 0);
    ck_assert(f.poor);
    ck_assert(f.max_rel_residual > SB_USL_POOR_RESIDUAL);
    ck_assert(f.sigma >= 0 && f.kappa >= 0 && f.lambda >= 0);
    /* The worst point is the one furthest from the curve, relatively. */
    for (size_t i = 0; i < 6; i++)
        ck_assert(fabs(x[i] - sb_usl_eval(&f, n[i])) / x[i] <= f.max_rel_residual + 1e-12);
    close_rel(fabs(x[f.worst] - sb_usl_eval(&f, n[f.worst])) / x[f.worst], f.max_rel_residual,
              1e-12);
}
END_TEST

START_TEST(repeated_counts_are_fitted_as_points)
{
    /* Repeats of a count are points of their own (the fit of a sweep
     * with --repeat); four distinct counts are enough. */
    const double n[] = {1, 1, 2, 2, 4, 4, 8, 8};
    double x[8];
    struct sb_usl_fit f;

    for (int i = 0; i < 8; i++)
        x[i] = usl(100, 0.1, 0.01, n[i]) * (i % 2 ? 1.02 : 0.98);
    ck_assert_int_eq(sb_usl_fit(n, x, 8, &f), 0);
    close_rel(f.sigma, 0.1, 0.05);
    close_rel(f.kappa, 0.01, 0.05);
    ck_assert_uint_eq(f.n, 8);
    dump(n, x, 8, &f);
}
END_TEST

START_TEST(unusable_points_are_refused)
{
    const double n3[] = {1, 2, 4, 4, 4};
    const double x5[] = {10, 19, 35, 35, 36};
    const double n4[] = {1, 2, 4, 8};
    const double bad_x[][4] = {{10, 19, NAN, 50}, {10, 0, 35, 50}, {10, 19, -1, 50},
                               {10, 19, INFINITY, 50}};
    const double bad_n[] = {0, 2, 4, 8};
    const double x4[] = {10, 19, 35, 50};
    struct sb_usl_fit f = {.lambda = 7};

    ck_assert_int_eq(sb_usl_fit(n3, x5, 5, &f), -1); /* 3 distinct counts */
    ck_assert_int_eq(sb_usl_fit(n4, x4, 3, &f), -1);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(sb_usl_fit(n4, bad_x[i], 4, &f), -1);
    ck_assert_int_eq(sb_usl_fit(bad_n, x4, 4, &f), -1);
    ck_assert_int_eq(sb_usl_fit(n4, x4, SB_USL_MAX_POINTS + 1, &f), -1);
    ck_assert(f.lambda == 7); /* untouched */
    ck_assert_int_eq(sb_usl_fit(n4, x4, 4, &f), 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sb_usl");
    TCase *tc = tcase_create("fit");

    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, exact_points_give_the_parameters_back, 0, 4);
    tcase_add_test(tc, noisy_points_give_parameters_near_the_truth);
    tcase_add_test(tc, superlinear_points_hold_sigma_at_zero);
    tcase_add_test(tc, levelling_points_hold_kappa_at_zero);
    tcase_add_test(tc, peak_above_the_range_is_reported);
    tcase_add_test(tc, one_thread_best_is_peak_below);
    tcase_add_test(tc, zigzag_is_a_poor_fit);
    tcase_add_test(tc, repeated_counts_are_fitted_as_points);
    tcase_add_test(tc, unusable_points_are_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
