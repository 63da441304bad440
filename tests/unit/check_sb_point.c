/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the point builder (config/sb_point.c): plain option
 * values in, the frozen point's fields out: the mode, the rate and this
 * instance's share of it, the slot range, the jitter default resolved
 * once, the late policy; and the adapters from a parsed configuration.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/sb_config.h"
#include "config/sb_point.h"
#include "pure/sb_pacer.h"

START_TEST(test_closed_loop)
{
    const struct sb_point_spec s = {.threads = 8};
    struct sb_point_config p = sb_point_build(&s);

    ck_assert_int_eq(p.mode, SB_PACE_NONE);
    ck_assert(p.rate == 0 && p.target_tps == 0 && p.jitter_us == 0);
    ck_assert(sb_point_tx_rate(&p) == 0);
    ck_assert_uint_eq(p.threads, 8);
    /* Unset counts mean one: one instance, run 1 of 1. */
    ck_assert_uint_eq(p.ninstances, 1);
    ck_assert_uint_eq(p.instance, 0);
    ck_assert_uint_eq(p.slot_base, 0);
    ck_assert_uint_eq(p.nslots, 8);
    ck_assert_uint_eq(p.repeat, 1);
    ck_assert_uint_eq(p.nrepeat, 1);
    ck_assert(!p.probe);
}
END_TEST

START_TEST(test_fixed_default_jitter)
{
    const struct sb_point_spec s = {.threads = 4, .tx_rate = 1000, .repeat = 2,
                                    .nrepeat = 3, .late_policy = SB_LATE_SKIP};
    struct sb_point_config p = sb_point_build(&s);
    struct sb_pacer pacer;

    ck_assert_int_eq(p.mode, SB_PACE_FIXED);
    ck_assert(p.rate == 1000 && p.target_tps == 1000);
    ck_assert(sb_point_tx_rate(&p) == 1000);
    /* 10% of the per-thread period 4 / 1000 s = 4 ms. */
    ck_assert_double_eq_tol(p.jitter_us, 400, 1e-9);
    ck_assert_int_eq(p.late_policy, SB_LATE_SKIP);
    ck_assert_uint_eq(p.repeat, 2);
    ck_assert_uint_eq(p.nrepeat, 3);
    /* The pacer takes the resolved width as it is. */
    sb_pacer_init(&pacer, p.rate, p.nslots, p.slot_base, p.jitter_us, p.late_policy, 0);
    ck_assert_uint_eq(pacer.period_ns, 4000000);
    ck_assert_uint_eq(pacer.jitter_ns, 400000);
    ck_assert_int_eq(pacer.late_policy, SB_LATE_SKIP);
}
END_TEST

START_TEST(test_fixed_given_jitter)
{
    const struct sb_point_spec s = {.threads = 4, .tx_rate = 1000, .jitter_us = 250};
    struct sb_point_config p = sb_point_build(&s);

    ck_assert_double_eq_tol(p.jitter_us, 250, 1e-12);
}
END_TEST

/* --instance=I/3 at 600 tx/s over 2 threads each: every instance holds a
 * third of the rate and two of the six slots, the slots of the three
 * tile 0..5, and the default jitter is that of six connections. */
START_TEST(test_instance_split)
{
    unsigned seen[6] = {0};
    double sum = 0;

    for (unsigned i = 0; i < 3; i++) {
        const struct sb_point_spec s = {.threads = 2, .tx_rate = 600, .instance = i,
                                        .ninstances = 3};
        struct sb_point_config p = sb_point_build(&s);

        ck_assert_int_eq(p.mode, SB_PACE_FIXED);
        ck_assert(p.rate == 600);
        ck_assert_double_eq_tol(p.target_tps, 200, 1e-9);
        ck_assert_uint_eq(p.instance, i);
        ck_assert_uint_eq(p.ninstances, 3);
        ck_assert_uint_eq(p.slot_base, 2 * i);
        ck_assert_uint_eq(p.nslots, 6);
        /* 10% of 6 / 600 s = 1 ms, not 10% of 2 / 600 s. */
        ck_assert_double_eq_tol(p.jitter_us, 1000, 1e-9);
        for (unsigned k = 0; k < p.threads; k++)
            seen[p.slot_base + k]++;
        sum += p.target_tps;
    }
    for (unsigned k = 0; k < 6; k++)
        ck_assert_uint_eq(seen[k], 1);
    ck_assert_double_eq_tol(sum, 600, 1e-9);
}
END_TEST

START_TEST(test_poisson_split)
{
    const struct sb_point_spec s = {.threads = 3, .poisson_rate = 300, .jitter_us = 50,
                                    .instance = 1, .ninstances = 2};
    struct sb_point_config p = sb_point_build(&s);

    ck_assert_int_eq(p.mode, SB_PACE_POISSON);
    ck_assert(p.rate == 300);
    ck_assert_double_eq_tol(p.target_tps, 150, 1e-12);
    /* No jitter and no --tx-rate for the scripts under Poisson arrivals. */
    ck_assert(p.jitter_us == 0);
    ck_assert(sb_point_tx_rate(&p) == 0);
    ck_assert_uint_eq(p.slot_base, 3);
    ck_assert_uint_eq(p.nslots, 6);
}
END_TEST

/* The point's own --tx-rate wins over --rate (sb_config_load refuses the
 * two together; a --tx-rate sweep point is fixed whatever else is set). */
START_TEST(test_fixed_over_poisson)
{
    const struct sb_point_spec s = {.threads = 1, .tx_rate = 10, .poisson_rate = 99,
                                    .find_max = true};
    struct sb_point_config p = sb_point_build(&s);

    ck_assert_int_eq(p.mode, SB_PACE_FIXED);
    ck_assert(p.rate == 10);
    ck_assert(p.probe);
}
END_TEST

/* The adapters read the parsed configuration into the same spec. */
START_TEST(test_from_config)
{
    static struct sb_config c; /* large: not on the stack */
    struct sb_point_config p;

    memset(&c, 0, sizeof(c));
    c.thread_list[0] = 4;
    c.thread_list[1] = 8;
    c.nthread_list = 2;
    c.tx_rate_list[0] = 50;
    c.tx_rate_list[1] = 100;
    c.ntx_rate_list = 2;
    c.tx_jitter_us = 0;
    c.late_policy = SB_LATE_SKIP;
    c.instance.index = 1;
    c.instance.count = 2;

    p = sb_point_first(&c);
    ck_assert_uint_eq(p.threads, 4);
    ck_assert_int_eq(p.mode, SB_PACE_FIXED);
    ck_assert(p.rate == 50);
    ck_assert_double_eq_tol(p.target_tps, 25, 1e-12);
    ck_assert_double_eq_tol(p.jitter_us, 0.1 * 8 / 50 * 1e6, 1e-6);
    ck_assert_int_eq(p.late_policy, SB_LATE_SKIP);
    ck_assert_uint_eq(p.slot_base, 4);

    p = sb_point_config_make(&c, 8, 100, 2, 3);
    ck_assert_uint_eq(p.threads, 8);
    ck_assert(p.rate == 100);
    ck_assert_uint_eq(p.slot_base, 8);
    ck_assert_uint_eq(p.nslots, 16);
    ck_assert_uint_eq(p.repeat, 2);
    ck_assert_uint_eq(p.nrepeat, 3);

    /* No --tx-rate list: the configuration's --rate, else closed loop. */
    c.ntx_rate_list = 0;
    c.poisson_rate = 40;
    p = sb_point_first(&c);
    ck_assert_int_eq(p.mode, SB_PACE_POISSON);
    ck_assert_double_eq_tol(p.target_tps, 20, 1e-12);
    c.poisson_rate = 0;
    p = sb_point_first(&c);
    ck_assert_int_eq(p.mode, SB_PACE_NONE);
}
END_TEST

static Suite *point_suite(void)
{
    Suite *s = suite_create("sb_point");
    TCase *tc = tcase_create("build");

    tcase_add_test(tc, test_closed_loop);
    tcase_add_test(tc, test_fixed_default_jitter);
    tcase_add_test(tc, test_fixed_given_jitter);
    tcase_add_test(tc, test_instance_split);
    tcase_add_test(tc, test_poisson_split);
    tcase_add_test(tc, test_fixed_over_poisson);
    tcase_add_test(tc, test_from_config);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(point_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
