/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_stats, the document of a run's figures: the counters,
 * the per-error-code counts and the merge and diff that the reporter
 * builds its intervals and totals from (a merge is a sum, a diff is what
 * happened in between). The live statistics the workers record into are
 * check_sb_live_stats.c's.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/sb_stats.h"
#include "sb_test_stats.h"

#define MS 1000000ULL

/* Each struct holds three histograms (about 110 KB): on pages of their
 * own. */
static struct sb_stats *new_stats(void)
{
    struct sb_stats *s = sb_stats_new();

    ck_assert_ptr_nonnull(s);
    return s;
}

/* A snapshot of a document nobody writes: a copy. */
static void copy_stats(struct sb_stats *dst, const struct sb_stats *src)
{
    memcpy(dst, src, sizeof(*dst));
}

/* One transaction as a worker records it: counters and histograms. */
static void record_event(struct sb_stats *s, uint64_t response_ns, uint64_t lag_ns)
{
    sb_stats_add(s, SB_STAT_EVENTS, 1);
    sb_stats_add(s, SB_STAT_READS, 3);
    sb_stats_add(s, SB_STAT_WRITES, 2);
    sb_hist_record(&s->response, response_ns);
    sb_hist_record(&s->service, response_ns - lag_ns);
    sb_hist_record(&s->lag, lag_ns);
}

START_TEST(test_counters_add_up)
{
    struct sb_stats *s = new_stats();

    sb_stats_add(s, SB_STAT_EVENTS, 1);
    sb_stats_add(s, SB_STAT_EVENTS, 41);
    sb_stats_add(s, SB_STAT_READS, 10);
    sb_stats_add(s, SB_STAT_WRITES, 5);
    sb_stats_add(s, SB_STAT_OTHER, 2);
    sb_stats_add(s, SB_STAT_LATE, 7);
    ck_assert_uint_eq(s->c[SB_STAT_EVENTS], 42);
    ck_assert_uint_eq(s->c[SB_STAT_LATE], 7);
    ck_assert_uint_eq(s->c[SB_STAT_ERRORS], 0);
    ck_assert_uint_eq(sb_stats_queries(s), 17);
    sb_stats_free(s);
}
END_TEST

START_TEST(test_reset_empties)
{
    struct sb_stats *s = new_stats();
    struct sb_db_error e = sb_test_db_error(1213, "40001");

    record_event(s, 5 * MS, 1 * MS);
    sb_stats_add(s, SB_STAT_ERRORS, 1);
    sb_stats_count_code(s, &e, false);
    sb_stats_reset(s);
    for (int i = 0; i < SB_STAT_NCOUNTERS; i++)
        ck_assert_uint_eq(s->c[i], 0);
    ck_assert_uint_eq(s->response.total, 0);
    ck_assert_uint_eq(s->lag.total, 0);
    ck_assert_uint_eq(s->service.min_ns, UINT64_MAX);
    /* The code stays known (readers may hold its index) with no count. */
    ck_assert_int_eq(sb_test_code_count(s, "1213", false), 0);
    /* And it counts again from zero. */
    sb_stats_count_code(s, &e, false);
    ck_assert_int_eq(sb_test_code_count(s, "1213", false), 1);
    sb_stats_free(s);
}
END_TEST

/* A new struct (zero pages with only the non-zero empty fields written)
 * records like one made empty by reset. */
START_TEST(test_new_like_reset)
{
    struct sb_stats *a = new_stats(), *b = malloc(sizeof(*b));

    ck_assert_ptr_nonnull(b);
    memset(b, 0, sizeof(*b));
    sb_stats_reset(b);
    record_event(a, 3 * MS, 0);
    record_event(b, 3 * MS, 0);
    ck_assert_uint_eq(a->response.min_ns, b->response.min_ns);
    ck_assert_uint_eq(a->lag.min_ns, 0);
    ck_assert_uint_eq(a->service.min_ns, 3 * MS);
    ck_assert_int_eq(memcmp(a, b, sizeof(*a)), 0);
    sb_stats_free(a);
    free(b);
}
END_TEST

/* SQLSTATE when it says more than HY000 and there is no error number,
 * else the number; ignored errors and reconnects are counted apart. */
START_TEST(test_count_code_naming)
{
    struct sb_stats *s = new_stats();
    struct sb_db_error deadlock = sb_test_db_error(1213, "40001"), serial = sb_test_db_error(0, "40001"),
                       unknown = sb_test_db_error(0, "HY000"), gone = sb_test_db_error(2013, "");

    sb_stats_count_code(s, &deadlock, false);
    sb_stats_count_code(s, &deadlock, false);
    sb_stats_count_code(s, &serial, false);
    sb_stats_count_code(s, &unknown, false);
    sb_stats_count_code(s, &gone, true);
    sb_stats_count_code(s, &gone, false);
    ck_assert_uint_eq(s->ncodes, 5);
    ck_assert_int_eq(sb_test_code_count(s, "1213", false), 2);
    ck_assert_int_eq(sb_test_code_count(s, "40001", false), 1);
    ck_assert_int_eq(sb_test_code_count(s, "0", false), 1);
    ck_assert_int_eq(sb_test_code_count(s, "2013", true), 1);
    ck_assert_int_eq(sb_test_code_count(s, "2013", false), 1);
    ck_assert_int_eq(sb_test_code_count(s, "40001", true), -1);
    sb_stats_free(s);
}
END_TEST

/* Past the table's size, new codes are counted under "other" (one entry
 * per kind), never under another code, and no count is lost. */
START_TEST(test_count_code_overflow)
{
    struct sb_stats *s = new_stats();
    uint64_t sum = 0;
    long long named = 0;

    for (unsigned code = 1; code <= 40; code++) {
        struct sb_db_error e = sb_test_db_error(code, "");
        for (unsigned k = 0; k < code; k++)
            sb_stats_count_code(s, &e, false);
    }
    for (unsigned code = 100; code < 103; code++) {
        struct sb_db_error e = sb_test_db_error(code, "");
        sb_stats_count_code(s, &e, true);
    }
    ck_assert_uint_le(s->ncodes, SB_STATS_MAX_CODES);
    for (unsigned i = 0; i < s->ncodes; i++)
        sum += s->codes[i].count;
    ck_assert_uint_eq(sum, 40 * 41 / 2 + 3);
    /* Every code that has an entry of its own has its exact count. */
    for (unsigned code = 1; code <= 40; code++) {
        char name[16];
        long long n;
        snprintf(name, sizeof(name), "%u", code);
        n = sb_test_code_count(s, name, false);
        ck_assert(n == -1 || n == (long long)code);
        named += n > 0 ? n : 0;
    }
    ck_assert_int_gt(sb_test_code_count(s, "other", false), 0);
    ck_assert_int_eq(sb_test_code_count(s, "other", false), 40 * 41 / 2 - named);
    /* The reconnects, arriving when the table is full, still have their
     * own "other". */
    ck_assert_int_eq(sb_test_code_count(s, "other", true), 3);
    sb_stats_free(s);
}
END_TEST

/* Merging the workers' statistics gives their sum: counters, histograms
 * (count, sum, extremes, percentiles) and codes, matched by code and kind. */
START_TEST(test_merge_is_the_sum)
{
    struct sb_stats *w[3], *total = new_stats(), *all = new_stats();
    struct sb_db_error deadlock = sb_test_db_error(1213, ""), gone = sb_test_db_error(2013, "");

    for (int i = 0; i < 3; i++) {
        w[i] = new_stats();
        for (int k = 0; k <= i; k++) {
            /* The same events into `all`, as one thread would record them. */
            record_event(w[i], (uint64_t)(i + 1) * 10 * MS, (uint64_t)i * MS);
            record_event(all, (uint64_t)(i + 1) * 10 * MS, (uint64_t)i * MS);
        }
        sb_stats_count_code(w[i], &deadlock, false);
        sb_stats_count_code(all, &deadlock, false);
    }
    sb_stats_count_code(w[2], &gone, true);
    sb_stats_count_code(all, &gone, true);
    sb_stats_add(w[1], SB_STAT_SKIPPED, 4);
    sb_stats_add(all, SB_STAT_SKIPPED, 4);

    for (int i = 0; i < 3; i++)
        sb_stats_merge(total, w[i]);
    ck_assert_uint_eq(total->c[SB_STAT_EVENTS], 6);
    ck_assert_uint_eq(total->c[SB_STAT_READS], 18);
    ck_assert_uint_eq(total->c[SB_STAT_SKIPPED], 4);
    ck_assert_uint_eq(total->response.total, 6);
    ck_assert_uint_eq(total->response.sum_ns, (10 + 2 * 20 + 3 * 30) * MS);
    ck_assert_uint_eq(total->response.min_ns, 10 * MS);
    ck_assert_uint_eq(total->response.max_ns, 30 * MS);
    ck_assert_uint_eq(total->lag.sum_ns, (2 * 1 + 3 * 2) * MS);
    ck_assert_int_eq(sb_test_code_count(total, "1213", false), 3);
    ck_assert_int_eq(sb_test_code_count(total, "2013", true), 1);
    ck_assert_uint_eq(total->ncodes, 2);
    for (int i = 0; i < SB_STAT_NCOUNTERS; i++)
        ck_assert_uint_eq(total->c[i], all->c[i]);
    ck_assert_int_eq(memcmp(&total->response, &all->response, sizeof(all->response)), 0);
    ck_assert_int_eq(memcmp(&total->service, &all->service, sizeof(all->service)), 0);
    ck_assert_int_eq(memcmp(&total->lag, &all->lag, sizeof(all->lag)), 0);
    ck_assert_uint_eq(sb_hist_percentile(&total->response, 50),
                      sb_hist_percentile(&all->response, 50));
    for (int i = 0; i < 3; i++)
        sb_stats_free(w[i]);
    sb_stats_free(total);
    sb_stats_free(all);
}
END_TEST

/* Workers that each saw different codes: the merge keeps every count,
 * folding what does not fit into "other". */
START_TEST(test_merge_many_codes)
{
    struct sb_stats *w[4], *total = new_stats();
    uint64_t sum = 0;

    for (unsigned i = 0; i < 4; i++) {
        w[i] = new_stats();
        for (unsigned k = 0; k < 10; k++) {
            struct sb_db_error e = sb_test_db_error(1000 + i * 10 + k, "");
            sb_stats_count_code(w[i], &e, false);
        }
        sb_stats_merge(total, w[i]);
        sb_stats_free(w[i]);
    }
    ck_assert_uint_le(total->ncodes, SB_STATS_MAX_CODES);
    for (unsigned i = 0; i < total->ncodes; i++)
        sum += total->codes[i].count;
    ck_assert_uint_eq(sum, 40);
    ck_assert_int_gt(sb_test_code_count(total, "other", false), 0);
    ck_assert_int_eq(sb_test_code_count(total, "1000", false), 1);
    sb_stats_free(total);
}
END_TEST

/* The diff of two snapshots is what happened between them, including a
 * code first seen in between. */
START_TEST(test_diff_of_snapshots)
{
    struct sb_stats *s = new_stats(), *a = new_stats(), *b = new_stats(), *d = new_stats();
    struct sb_db_error old = sb_test_db_error(1213, ""), fresh = sb_test_db_error(1205, "");

    record_event(s, 4 * MS, 0);
    record_event(s, 4 * MS, 0);
    sb_stats_count_code(s, &old, false);
    copy_stats(a, s);
    record_event(s, 50 * MS, 5 * MS);
    sb_stats_add(s, SB_STAT_ERRORS, 2);
    sb_stats_count_code(s, &old, false);
    sb_stats_count_code(s, &fresh, false);
    copy_stats(b, s);

    sb_stats_diff(d, b, a);
    ck_assert_uint_eq(d->c[SB_STAT_EVENTS], 1);
    ck_assert_uint_eq(d->c[SB_STAT_READS], 3);
    ck_assert_uint_eq(d->c[SB_STAT_ERRORS], 2);
    ck_assert_uint_eq(d->response.total, 1);
    ck_assert_uint_eq(d->response.sum_ns, 50 * MS);
    /* Extremes of a difference are its bucket's bounds. */
    ck_assert_uint_le(d->response.min_ns, 50 * MS);
    ck_assert_uint_ge(d->response.max_ns, 50 * MS);
    ck_assert_uint_gt(d->response.min_ns, 49 * MS);
    ck_assert_uint_eq(sb_hist_percentile(&d->response, 99) / MS, 50);
    ck_assert_int_eq(sb_test_code_count(d, "1213", false), 1);
    ck_assert_int_eq(sb_test_code_count(d, "1205", false), 1);

    /* Nothing happened: an empty difference. */
    sb_stats_diff(d, b, b);
    for (int i = 0; i < SB_STAT_NCOUNTERS; i++)
        ck_assert_uint_eq(d->c[i], 0);
    ck_assert_uint_eq(d->response.total, 0);
    for (unsigned i = 0; i < d->ncodes; i++)
        ck_assert_uint_eq(d->codes[i].count, 0);
    sb_stats_free(s);
    sb_stats_free(a);
    sb_stats_free(b);
    sb_stats_free(d);
}
END_TEST

/* The reporter's interval sum: the diffs of consecutive snapshots, merged,
 * equal the diff of the first and the last. */
START_TEST(test_diffs_merge_to_the_whole)
{
    struct sb_stats *s = new_stats(), *snap[4], *sum = new_stats(), *d = new_stats(),
                    *whole = new_stats();
    struct sb_db_error e = sb_test_db_error(1213, "");

    for (int i = 0; i < 4; i++) {
        snap[i] = new_stats();
        copy_stats(snap[i], s);
        for (int k = 0; k < 5 * (i + 1); k++)
            record_event(s, (uint64_t)(k + 1) * MS, 0);
        sb_stats_count_code(s, &e, false);
    }
    for (int i = 1; i < 4; i++) {
        sb_stats_diff(d, snap[i], snap[i - 1]);
        sb_stats_merge(sum, d);
    }
    sb_stats_diff(whole, snap[3], snap[0]);
    ck_assert_uint_eq(sum->c[SB_STAT_EVENTS], 5 + 10 + 15);
    ck_assert_uint_eq(sum->c[SB_STAT_EVENTS], whole->c[SB_STAT_EVENTS]);
    ck_assert_uint_eq(sum->response.total, whole->response.total);
    ck_assert_uint_eq(sum->response.sum_ns, whole->response.sum_ns);
    ck_assert_int_eq(memcmp(sum->response.counts, whole->response.counts,
                            sizeof(sum->response.counts)), 0);
    ck_assert_int_eq(sb_test_code_count(sum, "1213", false), 3);
    ck_assert_int_eq(sb_test_code_count(whole, "1213", false), 3);
    for (int i = 0; i < 4; i++)
        sb_stats_free(snap[i]);
    sb_stats_free(s);
    sb_stats_free(sum);
    sb_stats_free(d);
    sb_stats_free(whole);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_stats");
    TCase *tc = tcase_create("stats");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_counters_add_up);
    tcase_add_test(tc, test_reset_empties);
    tcase_add_test(tc, test_new_like_reset);
    tcase_add_test(tc, test_count_code_naming);
    tcase_add_test(tc, test_count_code_overflow);
    tcase_add_test(tc, test_merge_is_the_sum);
    tcase_add_test(tc, test_merge_many_codes);
    tcase_add_test(tc, test_diff_of_snapshots);
    tcase_add_test(tc, test_diffs_merge_to_the_whole);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
