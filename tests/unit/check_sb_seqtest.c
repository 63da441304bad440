/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_seqtest, the statistics of sysbench ab: the spending
 * function and the boundaries its numerical integration finds (against
 * published values and against a simulation of the statistic's path),
 * the look schedule, the paired estimate with its position term, and the
 * whole sequential procedure on simulated rounds: at most alpha false
 * verdicts when nothing differs (with a position bias present), the
 * detectable change found with the power it claims, equivalence reached.
 */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "pure/sb_ci.h"
#include "pure/sb_rand.h"
#include "pure/sb_seqtest.h"

static struct sb_rand_params params;

static double gauss(struct sb_rand *r)
{
    double u1 = sb_rand_next_double(r), u2 = sb_rand_next_double(r);

    return sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2);
}

START_TEST(test_normal)
{
    ck_assert_double_eq_tol(sb_seq_norm_quantile(0.975), 1.959964, 1e-6);
    ck_assert_double_eq_tol(sb_seq_norm_quantile(0.5), 0, 1e-9);
    ck_assert_double_eq_tol(sb_seq_norm_quantile(1e-10), -6.361341, 1e-5);
    ck_assert_double_eq_tol(sb_seq_norm_cdf(1.644854), 0.95, 1e-6);
    ck_assert(isnan(sb_seq_norm_quantile(0)));
    ck_assert(isnan(sb_seq_norm_quantile(1)));
}
END_TEST

START_TEST(test_spent)
{
    /* Twice 2 - 2 Phi(2.241403 / sqrt(t)). */
    ck_assert_double_eq_tol(sb_seq_spent(0.05, 1), 0.05, 1e-12);
    ck_assert_double_eq_tol(sb_seq_spent(0.05, 0.5), 4 - 4 * sb_seq_norm_cdf(2.241403 / sqrt(0.5)),
                            1e-7);
    ck_assert_double_eq(sb_seq_spent(0.05, 0), 0);
    ck_assert(sb_seq_spent(0.05, 0.01) > 0 && sb_seq_spent(0.05, 0.01) < 1e-40);
    for (double t = 0.05; t < 1; t += 0.05)
        ck_assert(sb_seq_spent(0.05, t) < sb_seq_spent(0.05, t + 0.05));
}
END_TEST

/* Lan-DeMets O'Brien-Fleming-type bounds for 5 equally spaced looks at
 * two-sided alpha 0.05, as tabulated for this spending function (e.g.
 * Jennison and Turnbull 2000, and the R packages gsDesign and ldbounds):
 * 4.877, 3.357, 2.680, 2.290, 2.031. */
START_TEST(test_bounds_published)
{
    static const double want[] = {4.877, 3.357, 2.680, 2.290, 2.031};
    struct sb_seq_design d;
    double nominal;

    sb_seq_design_init(&d, 0.05);
    for (int k = 1; k <= 5; k++) {
        double c = sb_seq_design_look(&d, k, k / 5.0, &nominal);
        ck_assert_double_eq_tol(c, want[k - 1], 2e-3);
        ck_assert_double_eq_tol(nominal, 2 * (1 - sb_seq_norm_cdf(c)), 1e-12);
    }
    ck_assert(d.final);
    ck_assert(isnan(sb_seq_design_look(&d, 6, 1, &nominal)));
    sb_seq_design_free(&d);
}
END_TEST

/* Boundaries at unequal looks (the schedule of a 40-round budget that
 * ends early, at round 31) hold their alpha on simulated paths of the
 * score with known variance: the integration, not a table. */
START_TEST(test_bounds_simulated)
{
    size_t looks[64], nl = 0, last = 0;
    double c[64], nominal;
    struct sb_seq_design d;
    struct sb_rand r;
    const size_t nmax = 40, end = 31, sims = 200000;
    size_t crossed = 0;

    sb_seq_design_init(&d, 0.05);
    for (size_t n = 1; n <= end; n++) {
        bool final = n == end;
        if (!final && !sb_seq_is_look(n, last, nmax))
            continue;
        looks[nl] = n;
        c[nl] = sb_seq_design_look(&d, (double)n, final ? 1.0 : (double)n / nmax, &nominal);
        ck_assert(isfinite(c[nl]));
        last = n;
        nl++;
    }
    sb_seq_design_free(&d);
    sb_rand_seed_stream(&r, 7, 0, &params);
    for (size_t s = 0; s < sims; s++) {
        double sum = 0;
        size_t n = 0;
        for (size_t k = 0; k < nl; k++) {
            /* The budget ended at round 31 of 40: the last look
             * spends what is left, with its real information. */
            for (; n < looks[k]; n++)
                sum += gauss(&r);
            if (fabs(sum / sqrt((double)n)) >= c[k]) {
                crossed++;
                break;
            }
        }
    }
    /* 0.05 +- 4 standard errors of 200,000 draws (0.0005 each). */
    ck_assert_msg(fabs((double)crossed / sims - 0.05) < 0.002, "crossed %zu of %zu", crossed,
                  sims);
}
END_TEST

START_TEST(test_look_schedule)
{
    static const size_t want[] = {4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 21, 24, 27, 30};
    size_t got[40], n = 0, last = 0;

    for (size_t i = 1; i <= 30; i++)
        if (sb_seq_is_look(i, last, 30)) {
            got[n++] = i;
            last = i;
        }
    ck_assert_uint_eq(n, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(got[i], want[i]);
    /* A short plan still ends with its last round. */
    ck_assert(!sb_seq_is_look(3, 0, 5));
    ck_assert(sb_seq_is_look(4, 0, 5) && sb_seq_is_look(5, 4, 5));
    ck_assert(sb_seq_is_look(2, 0, 2));
}
END_TEST

START_TEST(test_estimate_bias)
{
    /* log(B/A) = 0.10 with B 6% ahead whenever A goes first. */
    double x[8];
    bool first[8];
    struct sb_seq_est e;

    for (int i = 0; i < 8; i++) {
        first[i] = i % 2 == 0;
        x[i] = 0.10 + (first[i] ? 0.03 : -0.03) + (i < 4 ? 0.001 : -0.001);
    }
    ck_assert_int_eq(sb_seq_estimate(x, first, 8, &e), 0);
    ck_assert_uint_eq(e.n, 8);
    ck_assert_uint_eq(e.n_first, 4);
    ck_assert_double_eq_tol(e.d, 0.10, 1e-12);
    ck_assert_double_eq_tol(e.bias, 0.03, 1e-12);
    ck_assert_double_eq(e.df, 6);
    ck_assert(e.se > 0 && e.se < 0.001);
    /* Unbalanced orders weigh alike: 3 rounds of one, 1 of the other. */
    first[0] = first[1] = first[2] = true;
    first[3] = false;
    x[0] = x[1] = x[2] = 0.2;
    x[3] = 0.0;
    ck_assert_int_eq(sb_seq_estimate(x, first, 4, &e), 0);
    ck_assert_double_eq_tol(e.d, 0.1, 1e-12);
    ck_assert_double_eq_tol(e.bias, 0.1, 1e-12);
    /* One order only: no interval. */
    for (int i = 0; i < 4; i++)
        first[i] = true;
    ck_assert_int_eq(sb_seq_estimate(x, first, 4, &e), -1);
    ck_assert(isnan(e.se));
}
END_TEST

/* The looks of a comparison of at most nmax rounds and their nominal
 * levels, computed once for many simulated comparisons (the boundaries
 * do not depend on the data). Returns the number of looks. */
static size_t plan(size_t nmax, size_t *looks, double *nominal)
{
    struct sb_seq_design d;
    size_t nl = 0, last = 0;

    /* As sysbench ab does: the spending calibrated for t statistics. */
    sb_seq_design_init(&d, sb_seq_calibrate(nmax, 0.05, 50000, 99));
    for (size_t n = 1; n <= nmax; n++) {
        if (!sb_seq_is_look(n, last, nmax))
            continue;
        looks[nl] = last = n;
        sb_seq_design_look(&d, (double)n, (double)n / (double)nmax, &nominal[nl]);
        ck_assert(nominal[nl] > 0 && nominal[nl] < 0.05);
        nl++;
    }
    sb_seq_design_free(&d);
    return nl;
}

/*
 * Runs one simulated comparison: per-round log ratios of true effect
 * `effect`, noise sd, a position bias, the looks of plan(). Returns the
 * verdict and the rounds used.
 */
static enum sb_seq_verdict simulate(struct sb_rand *r, double effect, double sd, double bias,
                                    const size_t *looks, const double *nominal, size_t nl,
                                    double margin, size_t *rounds)
{
    double x[256];
    bool first[256];
    struct sb_seq_decision dec = {.v = SB_SEQ_INCONCLUSIVE};
    size_t n = 0;

    for (size_t k = 0; k < nl; k++) {
        struct sb_seq_est e;
        for (; n < looks[k]; n++) {
            first[n] = n % 2 == 0;
            x[n] = effect + (first[n] ? bias : -bias) + sd * gauss(r);
        }
        sb_seq_estimate(x, first, n, &e);
        sb_seq_decide(&e, nominal[k], 1, margin, k == nl - 1, &dec);
        if (dec.v != SB_SEQ_CONTINUE)
            break;
    }
    *rounds = n;
    return dec.v;
}

/* Nothing differs, but the second target gains 4% from its position:
 * 5% of comparisons call a difference (the calibration's job: without
 * it, 5.4%), neither more nor needlessly fewer. The draws are not the
 * calibration's. */
START_TEST(test_sequential_false_verdicts)
{
    struct sb_rand r;
    size_t rounds, wrong = 0, equivalent = 0, looks[64], nl;
    const size_t sims = 10000;
    double nominal[64];

    nl = plan(30, looks, nominal);
    sb_rand_seed_stream(&r, 11, 0, &params);
    for (size_t s = 0; s < sims; s++) {
        enum sb_seq_verdict v = simulate(&r, 0, 0.05, 0.04, looks, nominal, nl, 0.03, &rounds);
        wrong += v == SB_SEQ_DIFFERENT;
        equivalent += v == SB_SEQ_EQUIVALENT;
    }
    /* 0.05 + 3 standard errors of 10,000 draws. */
    ck_assert_msg(wrong <= 0.0565 * sims, "%zu false verdicts of %zu", wrong, sims);
    ck_assert_msg(wrong >= 0.0435 * sims, "%zu false verdicts of %zu: too strict", wrong, sims);
    /* sd 0.05 over 30 rounds: se about 0.009, the interval about
     * +-0.02 at the end, within a 3% margin most of the time. */
    ck_assert_msg(equivalent >= sims / 2, "equivalent %zu of %zu", equivalent, sims);
}
END_TEST

/* The detectable change a single look reports is found with the power
 * it claims: simulate that change at that variation and count. */
START_TEST(test_detectable_power)
{
    struct sb_rand r;
    const size_t n = 12, sims = 4000;
    const double sd = 0.05;
    double x[12], det;
    bool first[12];
    size_t found = 0;
    struct sb_seq_est e;
    struct sb_seq_decision dec;

    sb_rand_seed_stream(&r, 13, 0, &params);
    /* The detectable change of a comparison with exactly sd's
     * variation, from a run of rounds scaled to that sd. */
    for (size_t i = 0; i < n; i++) {
        first[i] = i % 2 == 0;
        x[i] = (i % 4 < 2 ? 1 : -1) * sd * sqrt((double)(n - 2) / (double)n);
    }
    sb_seq_estimate(x, first, n, &e);
    ck_assert_double_eq_tol(e.se, sd / sqrt((double)n), 1e-12);
    sb_seq_decide(&e, 0.05, 1, 0, true, &dec);
    det = sb_seq_detectable(&e, 0.05, 1);
    ck_assert(det > 0.03 && det < 0.06);
    for (size_t s = 0; s < sims; s++) {
        for (size_t i = 0; i < n; i++)
            x[i] = log(1 + det) + sd * gauss(&r);
        sb_seq_estimate(x, first, n, &e);
        sb_seq_decide(&e, 0.05, 1, 0, true, &dec);
        found += dec.v == SB_SEQ_DIFFERENT;
    }
    /* 80% claimed: 0.8 +- 4 standard errors of 4,000 draws. */
    ck_assert_msg(found >= 0.775 * sims && found <= 0.825 * sims, "found %zu of %zu", found, sims);
}
END_TEST

/* A 10% change with 5% noise per round is found early, and the
 * interval of the verdict holds the truth. */
START_TEST(test_sequential_finds)
{
    struct sb_rand r;
    size_t rounds = 0, found = 0, early = 0, looks[64], nl;
    const size_t sims = 2000;
    double nominal[64];

    nl = plan(30, looks, nominal);
    sb_rand_seed_stream(&r, 17, 0, &params);
    for (size_t s = 0; s < sims; s++) {
        if (simulate(&r, log(1.10), 0.05, 0.02, looks, nominal, nl, 0.02, &rounds) ==
            SB_SEQ_DIFFERENT) {
            found++;
            early += rounds <= 15;
        }
    }
    ck_assert_msg(found >= 0.95 * sims, "found %zu of %zu", found, sims);
    ck_assert_msg(early >= 0.8 * sims, "early %zu of %zu", early, sims);
}
END_TEST

/* The calibration lowers alpha only where the looks need it, and
 * gives the same answer for the same seed. */
START_TEST(test_calibrate)
{
    double a8 = sb_seq_calibrate(8, 0.05, 20000, 1);

    ck_assert(a8 > 0.035 && a8 < 0.05);
    ck_assert_double_eq(a8, sb_seq_calibrate(8, 0.05, 20000, 1));
    /* One look (a plan of 4 rounds): the t test is exact. */
    ck_assert_double_eq(sb_seq_calibrate(4, 0.05, 20000, 1), 0.05);
    ck_assert_double_eq(sb_seq_calibrate(30, 0.05, 0, 1), 0.05);
}
END_TEST

START_TEST(test_decide_cases)
{
    struct sb_seq_est e = {.n = 10, .n_first = 5, .d = log(1.01), .se = 0.002, .df = 8};
    struct sb_seq_decision dec;

    sb_seq_decide(&e, 0.05, 1, 0.02, false, &dec);
    ck_assert_int_eq(dec.v, SB_SEQ_DIFFERENT);
    ck_assert(dec.lo > 1 && dec.hi < 1.02);
    e.d = log(1.003);
    sb_seq_decide(&e, 0.05, 1, 0.02, false, &dec);
    ck_assert_int_eq(dec.v, SB_SEQ_EQUIVALENT);
    /* No margin, no equivalence: continue, or inconclusive at the end. */
    sb_seq_decide(&e, 0.05, 1, 0, false, &dec);
    ck_assert_int_eq(dec.v, SB_SEQ_CONTINUE);
    sb_seq_decide(&e, 0.05, 1, 0, true, &dec);
    ck_assert_int_eq(dec.v, SB_SEQ_INCONCLUSIVE);
    /* Widening for bucket resolution pulls a near call back. */
    e.d = log(1.006);
    sb_seq_decide(&e, 0.05, 1.0078125, 0, true, &dec);
    ck_assert_int_eq(dec.v, SB_SEQ_INCONCLUSIVE);
    /* No interval at all. */
    e.se = NAN;
    sb_seq_decide(&e, 0.05, 1, 0.02, true, &dec);
    ck_assert_int_eq(dec.v, SB_SEQ_INCONCLUSIVE);
    ck_assert(isnan(dec.lo) && isnan(sb_seq_detectable(&e, 0.05, 1)));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_seqtest");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    sb_rand_params_default(&params);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_normal);
    tcase_add_test(tc, test_spent);
    tcase_add_test(tc, test_bounds_published);
    tcase_add_test(tc, test_bounds_simulated);
    tcase_add_test(tc, test_look_schedule);
    tcase_add_test(tc, test_estimate_bias);
    tcase_add_test(tc, test_sequential_false_verdicts);
    tcase_add_test(tc, test_detectable_power);
    tcase_add_test(tc, test_sequential_finds);
    tcase_add_test(tc, test_calibrate);
    tcase_add_test(tc, test_decide_cases);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
