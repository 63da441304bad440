/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_hgrm_write: HdrHistogram's percentile-distribution
 * text for histograms whose content is known exactly.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/sb_hgrm.h"

static struct sb_hist h;

/* Writes h as .hgrm text into a fresh string (caller frees). */
static char *render(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(sb_hgrm_write(&h, 1e6, f), 0);
    fclose(f);
    return text;
}

struct row {
    double value, pct, inv;
    unsigned long long count;
    int fields;
};

/* Parses the rows between the header and the footer. */
static int rows(const char *text, struct row *out, int max)
{
    const char *p = strchr(text, '\n');
    int n = 0;

    ck_assert_ptr_nonnull(p);
    p++;
    ck_assert(*p == '\n'); /* a blank line after the header */
    p++;
    while (*p && *p != '#' && n < max) {
        struct row *r = &out[n++];
        r->fields = sscanf(p, "%lf %lf %llu %lf", &r->value, &r->pct, &r->count, &r->inv);
        p = strchr(p, '\n');
        ck_assert_ptr_nonnull(p);
        p++;
    }
    return n;
}

START_TEST(test_header_and_footer)
{
    char *t;

    sb_hist_reset(&h);
    sb_hist_record(&h, 2000000);   /* 2 ms */
    sb_hist_record(&h, 4000000);   /* 4 ms */
    t = render();
    ck_assert(strncmp(t, "       Value     Percentile TotalCount 1/(1-Percentile)\n\n", 57) == 0);
    ck_assert_ptr_nonnull(strstr(t, "#[Mean    =        3.000, StdDeviation   = "));
    ck_assert_ptr_nonnull(strstr(t, "#[Max     =        4.000, Total count    =            2]\n"));
    ck_assert_ptr_nonnull(strstr(t, "#[Buckets =           35, SubBuckets     =          256]\n"));
    free(t);
}
END_TEST

/* Three values: HdrHistogram reports levels 0, 10, ..., 50, 55, ..., then
 * the first pending level at the last value and 100%. */
START_TEST(test_levels)
{
    struct row r[64];
    char *t;
    int n;
    static const double want[] = {0, 10, 20, 30, 40, 50, 55, 60, 65, 70, 100};

    sb_hist_reset(&h);
    sb_hist_record(&h, 25000000);
    sb_hist_record(&h, 50000000);
    sb_hist_record(&h, 75000000);
    t = render();
    n = rows(t, r, 64);
    ck_assert_int_eq(n, 11);
    for (int i = 0; i < n; i++)
        ck_assert_double_eq_tol(r[i].pct * 100, want[i], 1e-9);
    ck_assert_uint_eq(r[0].count, 1);
    ck_assert_uint_eq(r[4].count, 2);   /* 40% needs the second value */
    ck_assert_uint_eq(r[9].count, 3);
    ck_assert_int_eq(r[10].fields, 3);  /* 100%: no 1/(1-p) column */
    ck_assert_uint_eq(r[10].count, 3);
    ck_assert_double_eq_tol(r[10].value, 75, 1e-9); /* capped at the max */
    for (int i = 0; i < n - 1; i++) {
        ck_assert_int_eq(r[i].fields, 4);
        ck_assert_double_eq_tol(r[i].inv, 1 / (1 - r[i].pct), 0.006);
    }
    free(t);
}
END_TEST

/* Many values: rows are monotonic and end at the total count. */
START_TEST(test_monotonic)
{
    struct row r[512];
    char *t;
    int n;

    sb_hist_reset(&h);
    for (unsigned i = 1; i <= 100000; i++)
        sb_hist_record(&h, 1000ULL * (i % 997 + 1) * (i % 13 + 1));
    t = render();
    n = rows(t, r, 512);
    ck_assert_int_gt(n, 50);
    for (int i = 1; i < n; i++) {
        ck_assert(r[i].value >= r[i - 1].value);
        ck_assert(r[i].pct > r[i - 1].pct);
        ck_assert(r[i].count >= r[i - 1].count);
    }
    ck_assert_uint_eq(r[n - 1].count, 100000);
    ck_assert_double_eq_tol(r[n - 1].pct, 1, 1e-12);
    /* The median row agrees with the histogram's own percentile rule. */
    for (int i = 0; i < n; i++)
        if (fabs(r[i].pct - 0.5) < 1e-12)
            ck_assert_double_eq_tol(r[i].value, (double)sb_hist_percentile(&h, 50) / 1e6, 0.0006);
    free(t);
}
END_TEST

START_TEST(test_empty)
{
    struct row r[4];
    char *t;

    sb_hist_reset(&h);
    t = render();
    ck_assert_int_eq(rows(t, r, 4), 0);
    ck_assert_ptr_nonnull(strstr(t, "Total count    =            0]"));
    free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_hgrm");
    TCase *tc = tcase_create("hgrm");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_header_and_footer);
    tcase_add_test(tc, test_levels);
    tcase_add_test(tc, test_monotonic);
    tcase_add_test(tc, test_empty);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
