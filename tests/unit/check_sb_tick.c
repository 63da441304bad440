/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_tick: the TSC chosen exactly when the kernel keeps
 * time by it, and an interval in ticks equal to the same interval on
 * CLOCK_MONOTONIC (within the scale's error), whichever tick was chosen.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_tick.h"

static bool kernel_says_tsc(void)
{
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    char buf[32] = "";
    bool tsc;

    if (f == NULL)
        return false;
    tsc = fgets(buf, sizeof(buf), f) != NULL && strcmp(buf, "tsc\n") == 0;
    fclose(f);
    return tsc;
}

START_TEST(test_choice)
{
    bool want = false;

#if defined(__x86_64__)
    want = kernel_says_tsc();
#endif
    ck_assert(!sb_tick_tsc);
    sb_tick_init();
    ck_assert_int_eq(sb_tick_tsc, want);
    if (want) {
        uint64_t mult = sb_tick_mult;
        /* 100 MHz to 20 GHz, as sb_tick_init accepts. */
        ck_assert_uint_ge(mult, (UINT64_C(1) << 32) / 20);
        ck_assert_uint_le(mult, (UINT64_C(1) << 32) * 10);
        sb_tick_init(); /* once: not measured again */
        ck_assert_uint_eq(sb_tick_mult, mult);
    }
    ck_assert_uint_eq(sb_tick_ns(0), 0);
}
END_TEST

/* A tick read between two CLOCK_MONOTONIC reads, at each end of a sleep:
 * the interval in ticks lies between the inner and the outer interval
 * of the clock, however long the thread waited for a CPU in between,
 * up to the scale's error (1e-3 allowed, about 1e-5 expected). */
START_TEST(test_agrees_with_monotonic)
{
    sb_tick_init();
    for (int i = 0; i < 3; i++) {
        uint64_t a0 = sb_now_ns(), k0 = sb_tick_now(), b0 = sb_now_ns();
        uint64_t a1, k1, b1, ns;

        sb_sleep_until_ns(b0 + 20 * SB_NS_PER_MS);
        a1 = sb_now_ns();
        k1 = sb_tick_now();
        b1 = sb_now_ns();
        ck_assert_uint_ge(k1, k0);
        ns = sb_tick_ns(k1 - k0);
        ck_assert_msg(ns >= (a1 - b0) - (a1 - b0) / 1000 && ns <= (b1 - a0) + (b1 - a0) / 1000,
                      "%llu ns in ticks, the clock's %llu to %llu",
                      (unsigned long long)ns, (unsigned long long)(a1 - b0),
                      (unsigned long long)(b1 - a0));
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_tick");
    TCase *tc = tcase_create("tick");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_choice);
    tcase_add_test(tc, test_agrees_with_monotonic);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    /* Each test in its own process: sb_tick_init chooses once. */
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
