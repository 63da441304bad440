/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_stmt_table: an entry per text, made once; errors by
 * code with the catch-all; the reset keeping entries; merges that add up
 * exactly (counts, rows, errors, histograms) and the overflow entry past
 * SB_STMT_MAX texts.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pure/sb_stmt_table.h"

static struct sb_stmt_entry *get(struct sb_stmt_table *t, const char *s)
{
    return sb_stmt_table_get(t, s, strlen(s), sb_stmt_hash(SB_STMT_HASH0, s, strlen(s)), 0);
}

START_TEST(test_entry_once)
{
    struct sb_stmt_table *t = sb_stmt_table_new();
    struct sb_stmt_entry *a = get(t, "SELECT ?"), *b = get(t, "SELECT ? FROM t");

    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_ne(a, b);
    ck_assert_ptr_eq(get(t, "SELECT ?"), a);
    ck_assert_uint_eq(sb_stmt_table_size(t), 2);
    sb_stmt_record_ok(a, 1000, 3, 0);
    sb_stmt_record_ok(a, 3000, 1, 2);
    sb_stmt_record_error(a, 500, 1213, "40001");
    ck_assert_uint_eq(a->count, 2);
    ck_assert_uint_eq(a->rows, 4);
    ck_assert_uint_eq(a->affected, 2);
    ck_assert_uint_eq(a->errors, 1);
    ck_assert_uint_eq(a->hist.total, 3);
    ck_assert_uint_eq(a->hist.sum_ns, 4500);
    sb_stmt_table_reset(t);
    ck_assert_ptr_eq(get(t, "SELECT ?"), a);
    ck_assert_uint_eq(a->count + a->errors + a->rows + a->affected + a->hist.total + a->err[0].n, 0);
    sb_stmt_table_free(t);
}
END_TEST

START_TEST(test_error_codes)
{
    struct sb_stmt_table *t = sb_stmt_table_new();
    struct sb_stmt_entry *e = get(t, "UPDATE t SET k=?");

    for (unsigned c = 1; c <= SB_STMT_ERR_MAX + 3; c++)
        sb_stmt_record_error(e, 10, c, "HY000");
    sb_stmt_record_error(e, 10, 1, "HY000");
    ck_assert_uint_eq(e->errors, SB_STMT_ERR_MAX + 4);
    ck_assert_uint_eq(e->nerr, SB_STMT_ERR_MAX);
    ck_assert_uint_eq(e->err[0].n, 2);
    ck_assert_str_eq(e->err[SB_STMT_ERR_MAX - 1].state, "other");
    sb_stmt_table_free(t);
}
END_TEST

START_TEST(test_merge_exact)
{
    struct sb_stmt_table *x = sb_stmt_table_new(), *y = sb_stmt_table_new();
    struct sb_stmt_table *all = sb_stmt_table_new();
    uint64_t n = 0;

    for (int i = 0; i < 1000; i++) {
        sb_stmt_record_ok(get(x, "A"), 1000 + (uint64_t)i * 37, 1, 1);
        sb_stmt_record_ok(get(y, i % 2 ? "A" : "B"), 5000 + (uint64_t)i * 11, 2, 0);
    }
    sb_stmt_record_error(get(y, "B"), 7, 1062, "23000");
    ck_assert_int_eq(sb_stmt_table_merge(all, x), 0);
    ck_assert_int_eq(sb_stmt_table_merge(all, y), 0);
    ck_assert_uint_eq(all->n, 2);
    ck_assert_uint_eq(get(all, "A")->count, 1500);
    ck_assert_uint_eq(get(all, "A")->rows, 1000 + 1000);
    ck_assert_uint_eq(get(all, "A")->affected, 1000);
    ck_assert_uint_eq(get(all, "A")->hist.sum_ns, get(x, "A")->hist.sum_ns + get(y, "A")->hist.sum_ns);
    ck_assert_uint_eq(get(all, "A")->hist.max_ns, get(x, "A")->hist.max_ns);
    ck_assert_uint_eq(get(all, "A")->hist.min_ns, 1000);
    ck_assert_uint_eq(get(all, "B")->errors, 1);
    ck_assert_uint_eq(get(all, "B")->err[0].code, 1062);
    for (size_t b = 0; b < SB_HIST_BUCKETS; b++)
        n += get(all, "A")->hist.counts[b];
    ck_assert_uint_eq(n, 1500);
    sb_stmt_table_sort(all);
    /* The larger total latency first: A's 1,500 (about 25 ms) over B's
     * 500 (about 5 ms). */
    ck_assert_str_eq(all->e[0]->text, "A");
    ck_assert_str_eq(all->e[1]->text, "B");
    sb_stmt_table_free(x);
    sb_stmt_table_free(y);
    sb_stmt_table_free(all);
}
END_TEST

START_TEST(test_overflow)
{
    struct sb_stmt_table *t = sb_stmt_table_new();
    char s[32];
    struct sb_stmt_entry *o;

    for (int i = 0; i < SB_STMT_MAX; i++) {
        snprintf(s, sizeof(s), "SELECT %d", i);
        ck_assert_ptr_nonnull(get(t, s));
    }
    o = get(t, "one too many");
    ck_assert_ptr_nonnull(o);
    ck_assert_str_eq(o->text, SB_STMT_OTHER);
    ck_assert_ptr_eq(get(t, "another"), o);
    ck_assert_ptr_eq(get(t, "SELECT 3"), t->e[3]);
    ck_assert_uint_eq(sb_stmt_table_size(t), SB_STMT_MAX + 1);
    sb_stmt_table_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_stmt_table");
    TCase *tc = tcase_create("table");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_entry_once);
    tcase_add_test(tc, test_error_codes);
    tcase_add_test(tc, test_merge_exact);
    tcase_add_test(tc, test_overflow);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
