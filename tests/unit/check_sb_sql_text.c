/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_sql_text: where the '?' placeholders are (quotes of
 * the three kinds, doubled quotes, unterminated quotes, a text that is
 * not NUL-terminated) and how a statement is counted (read, write,
 * other). No driver and no connection: the scanner is pure.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/sb_sql_text.h"

/* Every placeholder of s as found by walking sb_sql_next_placeholder,
 * stored in at[] (room for max); returns how many. */
static unsigned walk(const char *s, size_t len, size_t *at, unsigned max)
{
    unsigned n = 0;

    for (size_t i = sb_sql_next_placeholder(s, len, 0); i < len;
         i = sb_sql_next_placeholder(s, len, i + 1)) {
        ck_assert_int_eq(s[i], '?');
        if (n < max)
            at[n] = i;
        n++;
    }
    return n;
}

START_TEST(test_placeholders_outside_quotes)
{
    const char *s = "SELECT '?', \"?\", `?` FROM t WHERE a = ? AND b = 'it''s ?' AND c = ?";
    size_t len = strlen(s), first;

    ck_assert_uint_eq(sb_sql_count_placeholders(s, len), 2);
    first = sb_sql_next_placeholder(s, len, 0);
    ck_assert_int_eq(s[first], '?');
    ck_assert_str_eq(s + first - 4, "a = ? AND b = 'it''s ?' AND c = ?");
    ck_assert_uint_eq(sb_sql_next_placeholder(s, len, len - 1), len - 1);
    /* Cut before the last '?': none is left after the first. */
    ck_assert_uint_eq(sb_sql_next_placeholder(s, len - 1, first + 1), len - 1);
    ck_assert_uint_eq(sb_sql_count_placeholders("SELECT 1", 8), 0);
}
END_TEST

START_TEST(test_placeholder_positions)
{
    const char *s = "?,?,'?',?";
    size_t at[8];

    ck_assert_uint_eq(walk(s, strlen(s), at, 8), 3);
    ck_assert_uint_eq(at[0], 0);
    ck_assert_uint_eq(at[1], 2);
    ck_assert_uint_eq(at[2], 8);
    ck_assert_uint_eq(sb_sql_count_placeholders(s, strlen(s)), 3);
    /* Adjacent placeholders are two. */
    ck_assert_uint_eq(sb_sql_count_placeholders("??", 2), 2);
    /* Each kind of quote is closed only by its own kind. */
    s = "'\"?' ? `'?` ? \"`?\" ?";
    ck_assert_uint_eq(walk(s, strlen(s), at, 8), 3);
    ck_assert_uint_eq(at[0], 5);
    ck_assert_uint_eq(at[1], 12);
    ck_assert_uint_eq(at[2], 19);
}
END_TEST

START_TEST(test_unterminated_quote)
{
    /* An open quote hides every '?' after it: nothing is bound there. */
    const char *s = "SELECT ? FROM t WHERE a = 'x ? ?";
    size_t at[4];

    ck_assert_uint_eq(walk(s, strlen(s), at, 4), 1);
    ck_assert_uint_eq(at[0], 7);
    ck_assert_uint_eq(sb_sql_next_placeholder(s, strlen(s), 8), strlen(s));
}
END_TEST

START_TEST(test_empty_and_bounds)
{
    ck_assert_uint_eq(sb_sql_next_placeholder("", 0, 0), 0);
    ck_assert_uint_eq(sb_sql_count_placeholders("", 0), 0);
    /* from at or past len: len, whatever the text holds. */
    ck_assert_uint_eq(sb_sql_next_placeholder("??", 2, 2), 2);
    ck_assert_uint_eq(sb_sql_next_placeholder("??", 2, 5), 2);
}
END_TEST

START_TEST(test_not_nul_terminated)
{
    /* Only sql[0, len) is read: a buffer without a terminator, and a
     * '?' just past len that must not count. */
    char text[8] = {'S', 'E', 'L', 'E', 'C', 'T', ' ', '?'};

    ck_assert_uint_eq(sb_sql_count_placeholders(text, 8), 1);
    ck_assert_uint_eq(sb_sql_count_placeholders(text, 7), 0);
    ck_assert_uint_eq(sb_sql_next_placeholder(text, 7, 0), 7);
    ck_assert_int_eq(sb_sql_classify(text, 6), SB_QUERY_READ);
    ck_assert_int_eq(sb_sql_classify(text, 8), SB_QUERY_READ);
}
END_TEST

START_TEST(test_classify)
{
    ck_assert_int_eq(sb_sql_classify("SELECT 1", 8), SB_QUERY_READ);
    ck_assert_int_eq(sb_sql_classify("  (select 1)", 12), SB_QUERY_READ);
    ck_assert_int_eq(sb_sql_classify("\t\n((SeLeCt c FROM t))", 21), SB_QUERY_READ);
    ck_assert_int_eq(sb_sql_classify("insert into t", 13), SB_QUERY_WRITE);
    ck_assert_int_eq(sb_sql_classify("Update t", 8), SB_QUERY_WRITE);
    ck_assert_int_eq(sb_sql_classify("\nDELETE FROM t", 14), SB_QUERY_WRITE);
    ck_assert_int_eq(sb_sql_classify("REPLACE INTO t", 14), SB_QUERY_WRITE);
    ck_assert_int_eq(sb_sql_classify("BEGIN", 5), SB_QUERY_OTHER);
    ck_assert_int_eq(sb_sql_classify("COMMIT", 6), SB_QUERY_OTHER);
    ck_assert_int_eq(sb_sql_classify("WITH x AS (SELECT 1) SELECT * FROM x", 36),
                     SB_QUERY_OTHER);
    ck_assert_int_eq(sb_sql_classify("SELECTED", 8), SB_QUERY_OTHER);
    ck_assert_int_eq(sb_sql_classify("", 0), SB_QUERY_OTHER);
    ck_assert_int_eq(sb_sql_classify("   ((", 5), SB_QUERY_OTHER);
    /* Only len bytes count: "SELECT" cut to "SELE" is not a read. */
    ck_assert_int_eq(sb_sql_classify("SELECT", 4), SB_QUERY_OTHER);
    /* The keyword ends at the first non-letter. */
    ck_assert_int_eq(sb_sql_classify("SELECT*FROM t", 13), SB_QUERY_READ);
    ck_assert_int_eq(sb_sql_classify("-- c\nSELECT 1", 13), SB_QUERY_OTHER);
}
END_TEST

/* The normalised form of s, as a string. */
static const char *norm(const char *s)
{
    static char buf[256];
    size_t n = sb_sql_normalise(s, strlen(s), buf, sizeof(buf) - 1);

    buf[n < sizeof(buf) - 1 ? n : sizeof(buf) - 1] = '\0';
    return buf;
}

START_TEST(test_normalise)
{
    ck_assert_str_eq(norm("SELECT c FROM sbtest1 WHERE id=42"), "SELECT c FROM sbtest1 WHERE id=?");
    ck_assert_str_eq(norm("  SELECT\t c  FROM t \n"), "SELECT c FROM t");
    ck_assert_str_eq(norm("UPDATE t SET k=k+1 WHERE id=?"), "UPDATE t SET k=k+? WHERE id=?");
    ck_assert_str_eq(norm("INSERT INTO t VALUES ('it''s', -1.5e3, 0x1F, .5)"),
                     "INSERT INTO t VALUES (?, -?, ?, ?)");
    /* Digits inside identifiers and quoted identifiers stay. */
    ck_assert_str_eq(norm("SELECT \"col 1\", `t2`.x3 FROM sbtest12"),
                     "SELECT \"col 1\", `t2`.x3 FROM sbtest12");
    ck_assert_str_eq(norm("SELECT $1, $23 FROM t"), "SELECT ?, ? FROM t");
    ck_assert_str_eq(norm("SELECT 'unterminated"), "SELECT ?");
    ck_assert_str_eq(norm(""), "");
    /* The full length comes back even when only cap bytes fit. */
    {
        char b[4];
        ck_assert_uint_eq(sb_sql_normalise("SELECT 1", 8, b, sizeof(b)), 8);
        ck_assert(memcmp(b, "SELE", 4) == 0);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_sql_text");
    TCase *tc = tcase_create("scan");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_placeholders_outside_quotes);
    tcase_add_test(tc, test_placeholder_positions);
    tcase_add_test(tc, test_unterminated_quote);
    tcase_add_test(tc, test_empty_and_bounds);
    tcase_add_test(tc, test_not_nul_terminated);
    tcase_add_test(tc, test_classify);
    tcase_add_test(tc, test_normalise);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
