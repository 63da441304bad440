/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_json: exact output in compact and pretty form, string
 * escaping (RFC 8259), number formatting, and detection of misuse.
 */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_json_write.h"

/* A writer on a memory stream; take() ends the document and returns the
 * text (owned by the caller) and the result of sb_json_finish. */
struct mem {
    FILE *f;
    char *buf;
    size_t len;
    struct sb_json j;
};

static void mem_open(struct mem *m, bool pretty)
{
    memset(m, 0, sizeof(*m));
    m->f = open_memstream(&m->buf, &m->len);
    ck_assert_ptr_nonnull(m->f);
    sb_json_init(&m->j, m->f, pretty);
}

static char *take(struct mem *m, int *rc)
{
    *rc = sb_json_finish(&m->j);
    fclose(m->f);
    return m->buf;
}

START_TEST(test_compact_nested)
{
    struct mem m;
    int rc;
    char *s;

    mem_open(&m, false);
    sb_json_begin_object(&m.j);
    sb_json_kv_string(&m.j, "a", "x");
    sb_json_key(&m.j, "b");
    sb_json_begin_array(&m.j);
    sb_json_int(&m.j, -3);
    sb_json_uint(&m.j, 18446744073709551615ULL);
    sb_json_bool(&m.j, true);
    sb_json_null(&m.j);
    sb_json_begin_object(&m.j);
    sb_json_end_object(&m.j);
    sb_json_begin_array(&m.j);
    sb_json_end_array(&m.j);
    sb_json_end_array(&m.j);
    sb_json_kv_double(&m.j, "c", 0.5);
    sb_json_end_object(&m.j);
    s = take(&m, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(s, "{\"a\":\"x\",\"b\":[-3,18446744073709551615,true,null,{},[]],\"c\":0.5}\n");
    free(s);
}
END_TEST

START_TEST(test_pretty_and_inline)
{
    struct mem m;
    int rc;
    char *s;

    mem_open(&m, true);
    sb_json_begin_object(&m.j);
    sb_json_kv_int(&m.j, "n", 1);
    sb_json_key(&m.j, "list");
    sb_json_begin_array(&m.j);
    sb_json_begin_array_inline(&m.j);
    sb_json_int(&m.j, 1);
    sb_json_int(&m.j, 2);
    sb_json_end_array(&m.j);
    sb_json_end_array(&m.j);
    sb_json_key(&m.j, "empty");
    sb_json_begin_object(&m.j);
    sb_json_end_object(&m.j);
    sb_json_end_object(&m.j);
    s = take(&m, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(s, "{\n  \"n\": 1,\n  \"list\": [\n    [1, 2]\n  ],\n  \"empty\": {}\n}\n");
    free(s);
}
END_TEST

START_TEST(test_escaping)
{
    struct mem m;
    int rc;
    char *s;
    const char in[] = "q\" b\\ /\b\f\n\r\t\x01\x1f\x7f \xc3\xa9";

    mem_open(&m, false);
    sb_json_begin_array(&m.j);
    sb_json_string(&m.j, in);
    sb_json_string(&m.j, NULL);
    sb_json_string_n(&m.j, "a\0b", 3);
    sb_json_end_array(&m.j);
    s = take(&m, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(s, "[\"q\\\" b\\\\ /\\b\\f\\n\\r\\t\\u0001\\u001f\x7f \xc3\xa9\",null,"
                        "\"a\\u0000b\"]\n");
    free(s);
}
END_TEST

START_TEST(test_numbers)
{
    char buf[40];

    ck_assert_str_eq(sb_json_format_double(0.1, buf, sizeof(buf)), "0.1");
    ck_assert_str_eq(sb_json_format_double(412.0, buf, sizeof(buf)), "412");
    ck_assert_str_eq(sb_json_format_double(-2.5e-7, buf, sizeof(buf)), "-2.5e-07");
    ck_assert_str_eq(sb_json_format_double(1e300, buf, sizeof(buf)), "1e+300");
    ck_assert_str_eq(sb_json_format_double(NAN, buf, sizeof(buf)), "null");
    ck_assert_str_eq(sb_json_format_double(INFINITY, buf, sizeof(buf)), "null");
    ck_assert_str_eq(sb_json_format_double(-INFINITY, buf, sizeof(buf)), "null");
    /* Values that need 17 digits still read back exactly. */
    ck_assert(strtod(sb_json_format_double(0.1 + 0.2, buf, sizeof(buf)), NULL) == 0.1 + 0.2);
    ck_assert(strtod(sb_json_format_double(1.0 / 3, buf, sizeof(buf)), NULL) == 1.0 / 3);
}
END_TEST

static int misuse(int which)
{
    struct mem m;
    int rc;

    mem_open(&m, false);
    switch (which) {
    case 0: /* a value in an object without a key */
        sb_json_begin_object(&m.j);
        sb_json_int(&m.j, 1);
        sb_json_end_object(&m.j);
        break;
    case 1: /* a key in an array */
        sb_json_begin_array(&m.j);
        sb_json_key(&m.j, "k");
        sb_json_int(&m.j, 1);
        sb_json_end_array(&m.j);
        break;
    case 2: /* a container left open */
        sb_json_begin_object(&m.j);
        break;
    case 3: /* the wrong closer */
        sb_json_begin_object(&m.j);
        sb_json_end_array(&m.j);
        break;
    case 4: /* a key without its value */
        sb_json_begin_object(&m.j);
        sb_json_key(&m.j, "k");
        sb_json_end_object(&m.j);
        break;
    case 5: /* two documents */
        sb_json_int(&m.j, 1);
        sb_json_int(&m.j, 2);
        break;
    case 6: /* two documents, the first one empty */
        sb_json_begin_object(&m.j);
        sb_json_end_object(&m.j);
        sb_json_begin_object(&m.j);
        sb_json_end_object(&m.j);
        break;
    default: /* nothing at all */
        break;
    }
    free(take(&m, &rc));
    return rc;
}

START_TEST(test_misuse)
{
    for (int i = 0; i <= 7; i++)
        ck_assert_msg(misuse(i) == -1, "misuse %d not detected", i);
}
END_TEST

START_TEST(test_empty_document)
{
    struct mem m;
    int rc;
    char *s;

    mem_open(&m, true);
    sb_json_begin_object(&m.j);
    sb_json_end_object(&m.j);
    s = take(&m, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(s, "{}\n");
    free(s);
}
END_TEST

START_TEST(test_too_deep)
{
    struct mem m;
    int rc;

    mem_open(&m, false);
    for (int i = 0; i < SB_JSON_MAX_DEPTH + 1; i++)
        sb_json_begin_array(&m.j);
    for (int i = 0; i < SB_JSON_MAX_DEPTH + 1; i++)
        sb_json_end_array(&m.j);
    free(take(&m, &rc));
    ck_assert_int_eq(rc, -1);
}
END_TEST

START_TEST(test_write_error)
{
    struct sb_json j;
    FILE *f = fopen("/dev/full", "w");

    if (f == NULL)
        return; /* no /dev/full here: nothing to test */
    sb_json_init(&j, f, false);
    sb_json_begin_array(&j);
    sb_json_string(&j, "x");
    sb_json_end_array(&j);
    ck_assert_int_eq(sb_json_finish(&j), -1);
    fclose(f);
}
END_TEST

static Suite *json_suite(void)
{
    Suite *s = suite_create("sb_json");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_compact_nested);
    tcase_add_test(tc, test_pretty_and_inline);
    tcase_add_test(tc, test_escaping);
    tcase_add_test(tc, test_numbers);
    tcase_add_test(tc, test_misuse);
    tcase_add_test(tc, test_empty_document);
    tcase_add_test(tc, test_too_deep);
    tcase_add_test(tc, test_write_error);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(json_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
