/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_json_read: every kind of value, string escapes and
 * surrogate pairs, the path helpers, strict rejection of malformed
 * documents with a line and column, the nesting limit, and a round trip
 * through the writer (sb_json).
 */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sb_json_write.h"
#include "core/sb_json_read.h"

static struct sb_jv *parse(const char *s)
{
    char err[256];
    struct sb_jv *v = sb_jv_parse(s, strlen(s), err, sizeof(err));
    ck_assert_msg(v != NULL, "parse failed: %s", err);
    return v;
}

/* Parses s expecting failure; returns the message (static). */
static const char *parse_error(const char *s)
{
    static char err[256];
    struct sb_jv *v;

    err[0] = '\0';
    v = sb_jv_parse(s, strlen(s), err, sizeof(err));
    ck_assert_msg(v == NULL, "'%s' was accepted", s);
    ck_assert_msg(err[0] != '\0', "no message for '%s'", s);
    return err;
}

START_TEST(test_values)
{
    struct sb_jv *v = parse(" {\"a\": [1, -2.5e3, 0, true, false, null, \"x\"], \"b\": {}, \"c\": []} ");

    ck_assert_int_eq(v->type, SB_JV_OBJECT);
    ck_assert_uint_eq(v->n, 3);
    ck_assert_uint_eq(sb_jv_len(sb_jv_get(v, "a")), 7);
    ck_assert(sb_jv_num(sb_jv_path(v, "a.0")) == 1);
    ck_assert(sb_jv_num(sb_jv_path(v, "a.1")) == -2500);
    ck_assert(sb_jv_num(sb_jv_path(v, "a.2")) == 0);
    ck_assert(sb_jv_true(sb_jv_path(v, "a.3")));
    ck_assert(!sb_jv_true(sb_jv_path(v, "a.4")));
    ck_assert_int_eq(sb_jv_path(v, "a.5")->type, SB_JV_NULL);
    ck_assert(isnan(sb_jv_num(sb_jv_path(v, "a.5"))));
    ck_assert_str_eq(sb_jv_str(sb_jv_path(v, "a.6")), "x");
    ck_assert_int_eq(sb_jv_get(v, "b")->type, SB_JV_OBJECT);
    ck_assert_uint_eq(sb_jv_get(v, "b")->n, 0);
    ck_assert_uint_eq(sb_jv_len(sb_jv_get(v, "c")), 0);
    /* Missing members, wrong types and indices out of range are NULL. */
    ck_assert_ptr_null(sb_jv_get(v, "zz"));
    ck_assert_ptr_null(sb_jv_path(v, "a.7"));
    ck_assert_ptr_null(sb_jv_path(v, "a.x"));
    ck_assert_ptr_null(sb_jv_path(v, "b.c.d"));
    ck_assert_ptr_null(sb_jv_get(sb_jv_get(v, "a"), "0"));
    ck_assert_ptr_null(sb_jv_str(sb_jv_path(v, "a.0")));
    sb_jv_free(v);

    v = parse("42");
    ck_assert(sb_jv_num(v) == 42);
    sb_jv_free(v);
    v = parse("\"\"");
    ck_assert_str_eq(sb_jv_str(v), "");
    sb_jv_free(v);
}
END_TEST

START_TEST(test_numbers)
{
    struct sb_jv *v = parse("[0.1, 1e-3, 1E+2, -0, 9007199254740992, 4398046511104]");

    ck_assert(sb_jv_num(sb_jv_at(v, 0)) == 0.1);
    ck_assert(sb_jv_num(sb_jv_at(v, 1)) == 0.001);
    ck_assert(sb_jv_num(sb_jv_at(v, 2)) == 100);
    ck_assert(sb_jv_num(sb_jv_at(v, 3)) == 0);
    ck_assert(sb_jv_num(sb_jv_at(v, 4)) == 9007199254740992.0);
    ck_assert(sb_jv_num(sb_jv_at(v, 5)) == 4398046511104.0);
    sb_jv_free(v);
}
END_TEST

START_TEST(test_strings)
{
    struct sb_jv *v = parse("[\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t\", \"\\u00e9\\u20ac\", "
                            "\"\\ud83d\\ude00\", \"a\\u0000b\", \"\xc3\xa9 raw\"]");

    ck_assert_str_eq(sb_jv_str(sb_jv_at(v, 0)), "q\" b\\ s/ \b\f\n\r\t");
    ck_assert_str_eq(sb_jv_str(sb_jv_at(v, 1)), "\xc3\xa9\xe2\x82\xac");
    ck_assert_str_eq(sb_jv_str(sb_jv_at(v, 2)), "\xf0\x9f\x98\x80");
    ck_assert_uint_eq(sb_jv_at(v, 3)->len, 3);
    ck_assert_int_eq(memcmp(sb_jv_at(v, 3)->string, "a\0b", 3), 0);
    ck_assert_str_eq(sb_jv_str(sb_jv_at(v, 4)), "\xc3\xa9 raw");
    sb_jv_free(v);
}
END_TEST

START_TEST(test_member_order_and_duplicates)
{
    struct sb_jv *v = parse("{\"b\": 1, \"a\": 2, \"b\": 3}");

    ck_assert_uint_eq(v->n, 3);
    ck_assert_str_eq(v->keys[0], "b");
    ck_assert_str_eq(v->keys[1], "a");
    ck_assert(sb_jv_num(sb_jv_get(v, "b")) == 1);
    sb_jv_free(v);
}
END_TEST

START_TEST(test_errors)
{
    ck_assert_ptr_nonnull(strstr(parse_error(""), "expected a value"));
    ck_assert_ptr_nonnull(strstr(parse_error("{\"a\" 1}"), "expected ':' at line 1, column 6"));
    ck_assert_ptr_nonnull(strstr(parse_error("{\n  \"a\": 1,\n}"), "line 3, column 1"));
    ck_assert_ptr_nonnull(strstr(parse_error("[1, 2,]"), "expected a value"));
    ck_assert_ptr_nonnull(strstr(parse_error("[1 2]"), "expected ',' or ']'"));
    ck_assert_ptr_nonnull(strstr(parse_error("01"), "unexpected text"));
    ck_assert_ptr_nonnull(strstr(parse_error("1."), "invalid number"));
    ck_assert_ptr_nonnull(strstr(parse_error("-"), "invalid number"));
    ck_assert_ptr_nonnull(strstr(parse_error("1e"), "invalid number"));
    ck_assert_ptr_nonnull(strstr(parse_error("tru"), "invalid literal"));
    ck_assert_ptr_nonnull(strstr(parse_error("nul"), "invalid literal"));
    ck_assert_ptr_nonnull(strstr(parse_error("\"abc"), "unterminated string"));
    ck_assert_ptr_nonnull(strstr(parse_error("\"a\tb\""), "control character"));
    ck_assert_ptr_nonnull(strstr(parse_error("\"\\x\""), "invalid escape"));
    ck_assert_ptr_nonnull(strstr(parse_error("\"\\u12g4\""), "invalid \\u escape"));
    ck_assert_ptr_nonnull(strstr(parse_error("\"\\u12\""), "escape"));
    ck_assert_ptr_nonnull(strstr(parse_error("\"\\ud83d\""), "surrogate"));
    ck_assert_ptr_nonnull(strstr(parse_error("\"\\ude00\""), "surrogate"));
    ck_assert_ptr_nonnull(strstr(parse_error("{1: 2}"), "member name"));
    ck_assert_ptr_nonnull(strstr(parse_error("[1] x"), "unexpected text"));
    ck_assert_ptr_nonnull(strstr(parse_error("/* c */ 1"), "expected a value"));
    ck_assert_ptr_nonnull(strstr(parse_error("{\"a\": [1, {\"b\": "), "end of the document"));
}
END_TEST

START_TEST(test_depth_limit)
{
    size_t n = SB_JV_MAX_DEPTH + 1;
    char *s = malloc(2 * n + 1);
    struct sb_jv *v;
    char err[256];

    /* At the limit: accepted. */
    memset(s, '[', SB_JV_MAX_DEPTH);
    memset(s + SB_JV_MAX_DEPTH, ']', SB_JV_MAX_DEPTH);
    v = sb_jv_parse(s, 2 * SB_JV_MAX_DEPTH, err, sizeof(err));
    ck_assert_ptr_nonnull(v);
    sb_jv_free(v);
    /* One deeper: refused, without recursing further. */
    memset(s, '[', n);
    memset(s + n, ']', n);
    v = sb_jv_parse(s, 2 * n, err, sizeof(err));
    ck_assert_ptr_null(v);
    ck_assert_ptr_nonnull(strstr(err, "nesting too deep"));
    free(s);
}
END_TEST

START_TEST(test_truncated_documents)
{
    /* Every prefix of a valid document is either rejected cleanly or (for
     * the whole) accepted; none may crash. */
    const char *doc = "{\"a\": [1.5, \"x\\u00e9\", {\"b\": null}], \"c\": true}";
    size_t len = strlen(doc);
    char err[256];

    for (size_t i = 0; i < len; i++) {
        struct sb_jv *v = sb_jv_parse(doc, i, err, sizeof(err));
        ck_assert_msg(v == NULL, "prefix of %zu bytes accepted", i);
    }
    sb_jv_free(parse(doc));
}
END_TEST

START_TEST(test_round_trip_with_writer)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct sb_json j;
    struct sb_jv *v;

    sb_json_init(&j, f, true);
    sb_json_begin_object(&j);
    sb_json_kv_string(&j, "s", "tab\t quote\" \xc3\xa9");
    sb_json_kv_double(&j, "d", 0.1 + 0.2);
    sb_json_kv_double(&j, "nan", NAN);
    sb_json_kv_uint(&j, "u", 4398046511104ULL);
    sb_json_key(&j, "b");
    sb_json_begin_array_inline(&j);
    sb_json_uint(&j, 1);
    sb_json_uint(&j, 2);
    sb_json_end_array(&j);
    sb_json_end_object(&j);
    ck_assert_int_eq(sb_json_finish(&j), 0);
    fclose(f);
    v = parse(buf);
    ck_assert_str_eq(sb_jv_str(sb_jv_get(v, "s")), "tab\t quote\" \xc3\xa9");
    ck_assert(sb_jv_num(sb_jv_get(v, "d")) == 0.1 + 0.2);
    ck_assert_int_eq(sb_jv_get(v, "nan")->type, SB_JV_NULL);
    ck_assert(sb_jv_num(sb_jv_get(v, "u")) == 4398046511104.0);
    ck_assert(sb_jv_num(sb_jv_path(v, "b.1")) == 2);
    sb_jv_free(v);
    free(buf);
}
END_TEST

START_TEST(test_parse_file)
{
    char err[256];
    char path[] = "/tmp/check_sb_json_read.XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    struct sb_jv *v;

    fputs("{\"x\": [1]}\n", f);
    fclose(f);
    v = sb_jv_parse_file(path, err, sizeof(err));
    ck_assert_ptr_nonnull(v);
    ck_assert(sb_jv_num(sb_jv_path(v, "x.0")) == 1);
    sb_jv_free(v);
    f = fopen(path, "w");
    fputs("not json", f);
    fclose(f);
    ck_assert_ptr_null(sb_jv_parse_file(path, err, sizeof(err)));
    ck_assert_ptr_nonnull(strstr(err, "is not JSON"));
    unlink(path);
    ck_assert_ptr_null(sb_jv_parse_file(path, err, sizeof(err)));
    ck_assert_ptr_nonnull(strstr(err, "No such file"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_json_read");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_values);
    tcase_add_test(tc, test_numbers);
    tcase_add_test(tc, test_strings);
    tcase_add_test(tc, test_member_order_and_duplicates);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_depth_limit);
    tcase_add_test(tc, test_truncated_documents);
    tcase_add_test(tc, test_round_trip_with_writer);
    tcase_add_test(tc, test_parse_file);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
