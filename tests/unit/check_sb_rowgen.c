/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_rowgen (the rows of con:bulk_insert_rows): the SQL
 * tuples are the text string.format would make of the same draws, in the
 * same order, leaving the generator where those calls leave it; the
 * tab-separated rows are what the bulk loader makes of those tuples; the
 * binary COPY rows are hand-built byte strings and carry the values the
 * text rows do; the template checks and the row size bound.
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

/* Rows in binary: the bytes PostgreSQL's format defines, built by hand. */
START_TEST(test_bin_bytes)
{
    static const struct sb_rowgen_col cols[] = {
        { SB_ROWGEN_ID, 0, 0, 0, NULL, 0 },
        { SB_ROWGEN_RAND, SB_RAND_UNIFORM, 300, 300, NULL, 0 },
        { SB_ROWGEN_STRING, 0, 0, 0, "ab", 2 },
        { SB_ROWGEN_ID, 0, 0, 0, NULL, 0 },
    };
    static const uint8_t bin[] = { SB_ROWGEN_BIN_INT8, SB_ROWGEN_BIN_INT2,
                                   SB_ROWGEN_BIN_BYTES, SB_ROWGEN_BIN_BYTES };
    static const uint8_t bin4[] = { SB_ROWGEN_BIN_INT4, SB_ROWGEN_BIN_INT4,
                                    SB_ROWGEN_BIN_BYTES, SB_ROWGEN_BIN_INT4 };
    static const char want[] =
        "\x00\x04"
        "\x00\x00\x00\x08" "\x00\x00\x00\x01\x02\x03\x04\x05"
        "\x00\x00\x00\x02" "\x01\x2c"
        "\x00\x00\x00\x02" "ab"
        "\x00\x00\x00\x0a" "4328719365";
    static const char want4[] =
        "\x00\x04"
        "\x00\x00\x00\x04" "\xff\xff\xff\xfe"
        "\x00\x00\x00\x04" "\x00\x00\x01\x2c"
        "\x00\x00\x00\x02" "ab"
        "\x00\x00\x00\x04" "\xff\xff\xff\xfe";
    struct sb_rand r;
    char row[128];
    size_t max, n;

    ck_assert_int_eq(sb_rowgen_check(cols, 4, &max, row, sizeof(row)), 0);
    seed(&r, 1);
    memset(row, 0x55, sizeof(row));
    n = sb_rowgen_bin(&r, cols, 4, bin, 0x0102030405LL, row);
    ck_assert_uint_eq(n, sizeof(want) - 1);
    ck_assert_int_eq(memcmp(row, want, n), 0);
    ck_assert_uint_le(n, max);
    n = sb_rowgen_bin(&r, cols, 4, bin4, -2, row);
    ck_assert_uint_eq(n, sizeof(want4) - 1);
    ck_assert_int_eq(memcmp(row, want4, n), 0);
}
END_TEST

static uint64_t get_be(const unsigned char *p, unsigned width)
{
    uint64_t v = 0;

    for (unsigned k = 0; k < width; k++)
        v = v << 8 | p[k];
    return v;
}

/* oltp_common's rows in binary (int4 id and k, char c and pad) carry the
 * values of the text rows, drawn in the same order. */
START_TEST(test_bin_is_the_text_rows)
{
    static const uint8_t bin[] = { SB_ROWGEN_BIN_INT4, SB_ROWGEN_BIN_INT4,
                                   SB_ROWGEN_BIN_BYTES, SB_ROWGEN_BIN_BYTES };
    struct sb_rand a, b;
    char row[512], tsv[512], text[512];
    size_t max;

    ck_assert_int_eq(sb_rowgen_check(oltp, 4, &max, row, sizeof(row)), 0);
    ck_assert_int_eq(sb_rowgen_bin_fits(oltp, 4, bin, 1, 10000000), 1);
    seed(&a, 5);
    seed(&b, 5);
    for (int64_t id = 1; id <= 2000; id++) {
        const unsigned char *p = (const unsigned char *)row + 2;
        size_t n = sb_rowgen_bin(&a, oltp, 4, bin, id, row), nt = sb_rowgen_tsv(&b, oltp, 4, id, tsv);
        size_t at = 0;

        ck_assert_uint_le(n, max);
        ck_assert_uint_eq(get_be((const unsigned char *)row, 2), 4);
        for (unsigned i = 0; i < 4; i++) {
            size_t len = (size_t)get_be(p, 4);
            p += 4;
            if (i < 2)
                at += (size_t)sprintf(text + at, "%u", (unsigned)get_be(p, len));
            else
                at += (size_t)sprintf(text + at, "%.*s", (int)len, (const char *)p);
            text[at++] = i < 3 ? '\t' : '\n';
            p += len;
        }
        ck_assert_uint_eq((size_t)(p - (const unsigned char *)row), n);
        ck_assert_uint_eq(at, nt);
        ck_assert_int_eq(memcmp(text, tsv, nt), 0);
    }
    ck_assert_uint_eq(sb_rand_next_u64(&a), sb_rand_next_u64(&b));
}
END_TEST

/* What binary takes: values that fit the width, ASCII strings into
 * character columns; anything else is left to the text format. */
START_TEST(test_bin_fits)
{
    struct sb_rowgen_col c[2] = {
        { SB_ROWGEN_ID, 0, 0, 0, NULL, 0 },
        { SB_ROWGEN_RAND, SB_ROWGEN_DIST_DEFAULT, 1, 32767, NULL, 0 },
    };
    uint8_t bin[2] = { SB_ROWGEN_BIN_INT4, SB_ROWGEN_BIN_INT2 };

    ck_assert_int_eq(sb_rowgen_bin_fits(c, 2, bin, INT32_MIN, INT32_MAX), 1);
    ck_assert_int_eq(sb_rowgen_bin_fits(c, 2, bin, 1, (int64_t)INT32_MAX + 1), 0);
    ck_assert_int_eq(sb_rowgen_bin_fits(c, 2, bin, (int64_t)INT32_MIN - 1, 1), 0);
    c[1].b = 32768;
    ck_assert_int_eq(sb_rowgen_bin_fits(c, 2, bin, 1, 2), 0);
    bin[1] = SB_ROWGEN_BIN_INT4;
    ck_assert_int_eq(sb_rowgen_bin_fits(c, 2, bin, 1, 2), 1);
    /* A range that wraps can give 2^32 - 1. */
    c[1].a = 5;
    c[1].b = 4;
    ck_assert_int_eq(sb_rowgen_bin_fits(c, 2, bin, 1, 2), 0);
    bin[1] = SB_ROWGEN_BIN_INT8;
    ck_assert_int_eq(sb_rowgen_bin_fits(c, 2, bin, 1, 2), 1);
    bin[1] = SB_ROWGEN_BIN_BYTES;
    ck_assert_int_eq(sb_rowgen_bin_fits(c, 2, bin, 1, 2), 1);
    bin[1] = 3;
    ck_assert_int_eq(sb_rowgen_bin_fits(c, 2, bin, 1, 2), 0);
    /* Strings: character columns only, ASCII only. */
    c[1].kind = SB_ROWGEN_STRING;
    c[1].fmt = "##-@@";
    c[1].fmt_len = 5;
    bin[1] = SB_ROWGEN_BIN_BYTES;
    ck_assert_int_eq(sb_rowgen_bin_fits(c, 2, bin, 1, 2), 1);
    bin[1] = SB_ROWGEN_BIN_INT8;
    ck_assert_int_eq(sb_rowgen_bin_fits(c, 2, bin, 1, 2), 0);
    bin[1] = SB_ROWGEN_BIN_BYTES;
    c[1].fmt = "caf\xc3\xa9";
    ck_assert_int_eq(sb_rowgen_bin_fits(c, 2, bin, 1, 2), 0);
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
    tcase_add_test(tc, test_bin_bytes);
    tcase_add_test(tc, test_bin_is_the_text_rows);
    tcase_add_test(tc, test_bin_fits);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
