/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_rowgen (the rows of con:bulk_insert_rows): the SQL
 * tuples are the text string.format would make of the same draws, in the
 * same order, leaving the generator where those calls leave it; the
 * tab-separated rows are what the bulk loader makes of those tuples; the
 * template checks and the row size bound.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "drivers/sb_bulk_rows.h"
#include "pure/sb_rowgen.h"

#define C_FMT "###########-###########-###########-###########-###########-" \
              "###########-###########-###########-###########-###########"
#define PAD_FMT "###########-###########-###########-###########-###########"

static struct sb_rand_params params;

static void seed(struct sb_rand *r, uint64_t s)
{
    sb_rand_params_default(&params);
    sb_rand_seed_stream(r, s, 1, &params);
}

/* oltp_common's row template: id, k, c, pad. */
static const struct sb_rowgen_col oltp[] = {
    { SB_ROWGEN_ID, 0, 0, 0, NULL, 0 },
    { SB_ROWGEN_RAND, SB_ROWGEN_DIST_DEFAULT, 1, 100000, NULL, 0 },
    { SB_ROWGEN_STRING, 0, 0, 0, C_FMT, sizeof(C_FMT) - 1 },
    { SB_ROWGEN_STRING, 0, 0, 0, PAD_FMT, sizeof(PAD_FMT) - 1 },
};

START_TEST(test_sql_is_the_scripts_text)
{
    struct sb_rand a, b;
    char row[512], want[512], c[128], pad[64];
    size_t max;

    ck_assert_int_eq(sb_rowgen_check(oltp, 4, &max, row, sizeof(row)), 0);
    seed(&a, 11);
    seed(&b, 11);
    for (int64_t id = 1; id <= 2000; id++) {
        size_t n = sb_rowgen_sql(&a, oltp, 4, id, row);
        /* The calls load_rows made, in its order. */
        uint32_t k = sb_rand_next_wrapped_default(&b, 1, 100000);
        sb_rand_next_string(&b, C_FMT, sizeof(C_FMT) - 1, c, sizeof(c));
        sb_rand_next_string(&b, PAD_FMT, sizeof(PAD_FMT) - 1, pad, sizeof(pad));
        snprintf(want, sizeof(want), "(%lld, %u, '%s', '%s')", (long long)id, k, c, pad);
        ck_assert_uint_le(n, max);
        ck_assert_uint_eq(n, strlen(want));
        ck_assert_int_eq(memcmp(row, want, n), 0);
    }
    ck_assert_uint_eq(sb_rand_next_u64(&a), sb_rand_next_u64(&b));
}
END_TEST

/* The bulk loader's tab-separated text of SQL tuple s. */
static size_t tsv_of(const char *s, size_t len, char *dst)
{
    struct sb_bulk_cursor c;
    struct sb_bulk_field f[16];
    unsigned nf;
    size_t at = 0;

    sb_bulk_cursor_init(&c, s, len, false);
    ck_assert_int_eq(sb_bulk_next_tuple(&c, f, 16, &nf), 1);
    for (unsigned i = 0; i < nf; i++) {
        at += sb_bulk_tsv_value(s, &f[i], false, dst + at);
        dst[at++] = i + 1 < nf ? '\t' : '\n';
    }
    return at;
}

START_TEST(test_tsv_is_the_loaders_text)
{
    static const struct sb_rowgen_col cols[] = {
        { SB_ROWGEN_RAND, SB_RAND_UNIFORM, 5, 1, NULL, 0 },   /* wraps through 2^32 */
        { SB_ROWGEN_STRING, 0, 0, 0, "it's @@-##''", 12 },
        { SB_ROWGEN_ID, 0, 0, 0, NULL, 0 },
        { SB_ROWGEN_STRING, 0, 0, 0, "", 0 },
        { SB_ROWGEN_RAND, SB_RAND_ZIPFIAN, 1, 1000, NULL, 0 },
    };
    struct sb_rand a, b;
    char sql[256], tsv[256], want[512];
    size_t max;

    ck_assert_int_eq(sb_rowgen_check(cols, 5, &max, sql, sizeof(sql)), 0);
    seed(&a, 5);
    seed(&b, 5);
    for (int64_t id = -1000; id <= 1000; id++) {
        size_t ns = sb_rowgen_sql(&a, cols, 5, id, sql);
        size_t nt = sb_rowgen_tsv(&b, cols, 5, id, tsv);
        size_t nw = tsv_of(sql, ns, want);
        ck_assert_uint_le(ns, max);
        ck_assert_uint_le(nt, max);
        ck_assert_uint_eq(nt, nw);
        ck_assert_int_eq(memcmp(tsv, want, nt), 0);
    }
    ck_assert_int_eq(memcmp(sql, "(", 1), 0);
    ck_assert_ptr_nonnull(strstr(sql, ", 'it''s "));
}
END_TEST

START_TEST(test_bound_and_extremes)
{
    static const struct sb_rowgen_col cols[] = {
        { SB_ROWGEN_ID, 0, 0, 0, NULL, 0 },
        { SB_ROWGEN_STRING, 0, 0, 0, "''''", 4 },
        { SB_ROWGEN_RAND, SB_ROWGEN_DIST_DEFAULT, 0, 0xffffffffu, NULL, 0 },
    };
    struct sb_rand r;
    char row[128];
    size_t max, n;

    ck_assert_int_eq(sb_rowgen_check(cols, 3, &max, row, sizeof(row)), 0);
    seed(&r, 1);
    n = sb_rowgen_sql(&r, cols, 3, INT64_MIN, row);
    ck_assert_uint_le(n, max);
    ck_assert_int_eq(strncmp(row, "(-9223372036854775808, '''''''''', ", 35), 0);
    n = sb_rowgen_tsv(&r, cols, 3, INT64_MAX, row);
    ck_assert_uint_le(n, max);
    ck_assert_int_eq(strncmp(row, "9223372036854775807\t''''\t", 25), 0);
    ck_assert_int_eq(row[n - 1], '\n');
}
END_TEST

START_TEST(test_refused_templates)
{
    struct sb_rowgen_col c = { SB_ROWGEN_STRING, 0, 0, 0, "ab\\c", 4 };
    char err[160];
    size_t max;

    ck_assert_int_eq(sb_rowgen_check(&c, 1, &max, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "column 1: the string template has a control character or a "
                     "backslash at character 3");
    c.fmt = "a\tb";
    c.fmt_len = 3;
    ck_assert_int_eq(sb_rowgen_check(&c, 1, &max, err, sizeof(err)), -1);
    c.kind = SB_ROWGEN_RAND;
    c.dist = 9;
    ck_assert_int_eq(sb_rowgen_check(&c, 1, &max, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "column 1: unknown distribution 9");
    c.kind = 7;
    ck_assert_int_eq(sb_rowgen_check(&c, 1, &max, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "column 1: unknown kind 7");
    ck_assert_int_eq(sb_rowgen_check(&c, 0, &max, err, sizeof(err)), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_rowgen");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_sql_is_the_scripts_text);
    tcase_add_test(tc, test_tsv_is_the_loaders_text);
    tcase_add_test(tc, test_bound_and_extremes);
    tcase_add_test(tc, test_refused_templates);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
