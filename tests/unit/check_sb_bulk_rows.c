/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_bulk_rows (reading bulk insert text) and sb_ledger
 * (a command's items): tuples and their values, what is malformed and
 * where, the tab-separated text COPY and LOAD DATA read (escapes of both
 * SQL dialects), INSERT heads, and the ledger's states, waits and summary.
 */
#include <check.h>
#include <pthread.h>
#include <string.h>

#include "core/sb_ledger.h"
#include "drivers/sb_bulk_rows.h"

/* Reads every tuple of s; returns the tuples, or -1 (c->why set). */
static int read_all(struct sb_bulk_cursor *c, const char *s, bool backslash,
                    struct sb_bulk_field *f, unsigned *nf)
{
    int n = 0, rc;

    sb_bulk_cursor_init(c, s, strlen(s), backslash);
    while ((rc = sb_bulk_next_tuple(c, f, 16, nf)) == 1)
        n++;
    return rc < 0 ? -1 : n;
}

START_TEST(test_tuple_values)
{
    const char *s = " ( 12 , -3, 'a''b' ,NULL, 'x', 007, 1.5, NOW(), 'a' 'b', -0 ) ";
    struct sb_bulk_cursor c;
    struct sb_bulk_field f[16];
    unsigned nf;

    ck_assert_int_eq(read_all(&c, s, false, f, &nf), 1);
    ck_assert_uint_eq(nf, 10);
    ck_assert_int_eq(f[0].kind, SB_BULK_INT);
    ck_assert_int_eq(strncmp(s + f[0].off, "12", f[0].len), 0);
    ck_assert_int_eq(f[1].kind, SB_BULK_INT);
    ck_assert_int_eq(f[2].kind, SB_BULK_STR);
    ck_assert(f[2].escaped);
    ck_assert_int_eq(f[3].kind, SB_BULK_NULL);
    ck_assert_int_eq(f[4].kind, SB_BULK_STR);
    ck_assert(!f[4].escaped);
    /* Values whose stored form depends on the column's type, and
     * expressions: kept as SQL. */
    ck_assert_int_eq(f[5].kind, SB_BULK_OTHER);
    ck_assert_int_eq(f[6].kind, SB_BULK_OTHER);
    ck_assert_int_eq(f[7].kind, SB_BULK_OTHER);
    ck_assert_int_eq(f[8].kind, SB_BULK_OTHER);
    ck_assert_int_eq(f[9].kind, SB_BULK_OTHER);
}
END_TEST

START_TEST(test_several_tuples)
{
    struct sb_bulk_cursor c;
    struct sb_bulk_field f[16];
    unsigned nf;

    ck_assert_int_eq(read_all(&c, "(1, 'a'),(2, 'b') , (3,'c')", false, f, &nf), 3);
    ck_assert_uint_eq(nf, 2);
    ck_assert_int_eq(read_all(&c, "()", false, f, &nf), 1);
    ck_assert_uint_eq(nf, 0);
    /* Parentheses and commas inside values and strings. */
    ck_assert_int_eq(read_all(&c, "(f(1, 2), 'a,b)', \"q)\")", false, f, &nf), 1);
    ck_assert_uint_eq(nf, 3);
}
END_TEST

/* s is malformed at offset at. */
static void expect_bad(const char *s, bool backslash, size_t at, const char *why_part)
{
    struct sb_bulk_cursor c;
    struct sb_bulk_field f[16];
    unsigned nf;

    ck_assert_msg(read_all(&c, s, backslash, f, &nf) == -1, "'%s' read as well formed", s);
    ck_assert_msg(strstr(c.why, why_part) != NULL, "'%s': %s", s, c.why);
    ck_assert_msg(c.at == at, "'%s': at %zu, expected %zu", s, c.at, at);
}

START_TEST(test_malformed)
{
    expect_bad("", false, 0, "empty");
    expect_bad("1, 2", false, 0, "start with '('");
    expect_bad("(1, 'ab)", false, 4, "does not end");
    expect_bad("(1, f(2)", false, 4, "no closing");
    expect_bad("(1, f(2, 3", false, 4, "not closed");
    expect_bad("(1,, 2)", false, 3, "empty");
    expect_bad("(1, 2) x", false, 7, "follows");
    expect_bad("(1, 2),", false, 7, "empty");
    /* MySQL's backslash escapes: 'a\' does not end there. */
    expect_bad("(1, 'a\\')", true, 4, "does not end");
}
END_TEST

/* Where quoted values end (found with memchr): a backslash after the
 * closing quote, a doubled quote just before it, backticks that take no
 * backslash escape, a long value and one that does not end. */
START_TEST(test_quoted_ends)
{
    struct sb_bulk_cursor c;
    struct sb_bulk_field f[16];
    char longrow[600];
    unsigned nf;

    ck_assert_int_eq(read_all(&c, "('ab', 'c\\'d')", true, f, &nf), 1);
    ck_assert_uint_eq(nf, 2);
    ck_assert(!f[0].escaped);
    ck_assert_uint_eq(f[0].len, 2);
    ck_assert(f[1].escaped);
    ck_assert_uint_eq(f[1].len, 4);
    ck_assert_int_eq(read_all(&c, "('x''', 'y')", false, f, &nf), 1);
    ck_assert_uint_eq(nf, 2);
    ck_assert(f[0].escaped);
    ck_assert_uint_eq(f[0].len, 3);
    ck_assert_int_eq(read_all(&c, "(`a\\`, 1)", true, f, &nf), 1);
    ck_assert_uint_eq(nf, 2);
    ck_assert_int_eq(f[0].kind, SB_BULK_OTHER);
    /* Standard strings: a backslash before the quote is a character. */
    ck_assert_int_eq(read_all(&c, "('a\\', 2)", false, f, &nf), 1);
    ck_assert_uint_eq(nf, 2);
    ck_assert_uint_eq(f[0].len, 2);
    memset(longrow, '7', sizeof(longrow));
    memcpy(longrow, "(1, '", 5);
    memcpy(longrow + sizeof(longrow) - 3, "')", 3);
    ck_assert_int_eq(read_all(&c, longrow, false, f, &nf), 1);
    ck_assert_uint_eq(f[1].len, sizeof(longrow) - 8);
    longrow[sizeof(longrow) - 3] = '7';
    expect_bad(longrow, false, 4, "does not end");
    expect_bad("(1, 'ab\\')", true, 4, "does not end");
}
END_TEST

/* The tab-separated form of the values of s's first tuple. */
static void expect_tsv(const char *s, bool backslash, const char *want)
{
    struct sb_bulk_cursor c;
    struct sb_bulk_field f[16];
    char out[256];
    size_t n = 0;
    unsigned nf;

    ck_assert_int_eq(read_all(&c, s, backslash, f, &nf), 1);
    for (unsigned i = 0; i < nf; i++) {
        n += sb_bulk_tsv_value(s, &f[i], backslash, out + n);
        out[n++] = i + 1 < nf ? '\t' : '\n';
    }
    out[n] = '\0';
    ck_assert_str_eq(out, want);
}

START_TEST(test_tsv)
{
    expect_tsv("(1, 'plain', NULL)", false, "1\tplain\t\\N\n");
    expect_tsv("('it''s', 'tab\there')", false, "it's\ttab\\there\n");
    /* Standard strings keep backslashes, which the text form escapes. */
    expect_tsv("('a\\b', 'c\\\\')", false, "a\\\\b\tc\\\\\\\\\n");
    /* MySQL's escapes mean characters; \% and \_ keep their backslash. */
    expect_tsv("('a\\'b', 'n\\nl', 'p\\%', 'x\\qy', '\\\\')", true,
               "a'b\tn\\nl\tp\\\\%\txqy\t\\\\\n");
    expect_tsv("('nul\\0')", true, "nul\\0\n");
    expect_tsv("('new\nline', 'cr\r')", false, "new\\nline\tcr\\r\n");
}
END_TEST

START_TEST(test_unquote)
{
    const char *s = "('it''s', 'a\\'b', 'plain')";
    struct sb_bulk_cursor c;
    struct sb_bulk_field f[16];
    char out[64];
    unsigned nf;

    ck_assert_int_eq(read_all(&c, s, true, f, &nf), 1);
    out[sb_bulk_unquote(s, &f[0], true, out)] = '\0';
    ck_assert_str_eq(out, "it's");
    out[sb_bulk_unquote(s, &f[1], true, out)] = '\0';
    ck_assert_str_eq(out, "a'b");
    out[sb_bulk_unquote(s, &f[2], true, out)] = '\0';
    ck_assert_str_eq(out, "plain");
}
END_TEST

START_TEST(test_head)
{
    struct sb_bulk_target t;
    const char *h = "insert  into `db`.`sbtest1` ( id,k , `c` ) values ";

    ck_assert_int_eq(sb_bulk_parse_head(h, strlen(h), &t), 0);
    ck_assert_str_eq(t.table, "`db`.`sbtest1`");
    ck_assert_str_eq(t.cols, "( id,k , `c` )");
    ck_assert_uint_eq(t.ncols, 3);
    h = "INSERT INTO sbtest1 VALUES";
    ck_assert_int_eq(sb_bulk_parse_head(h, strlen(h), &t), 0);
    ck_assert_str_eq(t.table, "sbtest1");
    ck_assert_str_eq(t.cols, "");
    ck_assert_uint_eq(t.ncols, 0);
    /* Anything else keeps its INSERT text. */
    h = "INSERT IGNORE INTO t VALUES";
    ck_assert_int_eq(sb_bulk_parse_head(h, strlen(h), &t), -1);
    h = "REPLACE INTO t VALUES";
    ck_assert_int_eq(sb_bulk_parse_head(h, strlen(h), &t), -1);
    h = "INSERT INTO t VALUES (1)";
    ck_assert_int_eq(sb_bulk_parse_head(h, strlen(h), &t), -1);
    h = "INSERT INTO t SELECT";
    ck_assert_int_eq(sb_bulk_parse_head(h, strlen(h), &t), -1);
}
END_TEST

/* ------------------------------------------------------------ the ledger */

static void *complete_after_wait(void *arg)
{
    int *item = arg;

    if (!sb_ledger_wait(*item, SB_LEDGER_CREATED))
        return NULL;
    sb_ledger_set(*item, SB_LEDGER_COMPLETE);
    return NULL;
}

START_TEST(test_ledger)
{
    char line[512];
    pthread_t t;
    int a, b, c;

    sb_ledger_begin();
    ck_assert(!sb_ledger_summary(line, sizeof(line)));
    a = sb_ledger_item("sbtest1", 2, "tables");
    b = sb_ledger_item("sbtest2", 1, "tables");
    c = sb_ledger_item("sbtest3", 1, "tables");
    ck_assert_int_eq(sb_ledger_item("sbtest1", 2, "tables"), a);
    ck_assert_uint_eq(sb_ledger_part_done(a), 1);
    ck_assert_uint_eq(sb_ledger_part_done(a), 2);   /* loaded */
    sb_ledger_set(a, SB_LEDGER_COMPLETE);
    sb_ledger_set(a, SB_LEDGER_CREATED);             /* never lowered */
    ck_assert_int_eq(pthread_create(&t, NULL, complete_after_wait, &b), 0);
    sb_ledger_set(b, SB_LEDGER_CREATED);
    pthread_join(t, NULL);
    sb_ledger_set(c, SB_LEDGER_LOADING);
    ck_assert(sb_ledger_summary(line, sizeof(line)));
    ck_assert_str_eq(line, "2 of 3 tables are complete (sbtest1, sbtest2); "
                           "not complete: sbtest3 (partly loaded)");
    sb_ledger_set(c, SB_LEDGER_COMPLETE);
    ck_assert(!sb_ledger_summary(line, sizeof(line)));
    /* A failed thread ends the waits. */
    sb_ledger_begin();
    a = sb_ledger_item("sbtest9", 1, NULL);
    sb_ledger_fail();
    ck_assert(!sb_ledger_wait(a, SB_LEDGER_CREATED));
    ck_assert(sb_ledger_summary(line, sizeof(line)));
    ck_assert_str_eq(line, "0 of 1 items are complete; not complete: sbtest9 (not created)");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_bulk_rows");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_tuple_values);
    tcase_add_test(tc, test_several_tuples);
    tcase_add_test(tc, test_quoted_ends);
    tcase_add_test(tc, test_malformed);
    tcase_add_test(tc, test_tsv);
    tcase_add_test(tc, test_unquote);
    tcase_add_test(tc, test_head);
    tcase_add_test(tc, test_ledger);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
