/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_histogram: bucket geometry and its error bound,
 * percentiles, merging, snapshot differences and the printed form.
 */

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pure/sb_dhist.h"
#include "pure/sb_histogram.h"
#include "pure/sb_lhist.h"
#include "sb_test_rng.h"

#define US 1000ULL
#define MS 1000000ULL
#define HOUR (3600ULL * 1000 * MS)

/* Histograms are ~37 KB each; the heap keeps the tests' stacks small. */
static struct sb_hist *hist_new(void)
{
    struct sb_hist *h = malloc(sizeof(*h));

    ck_assert_ptr_nonnull(h);
    sb_hist_reset(h);
    return h;
}

/* |got - want| <= 1% of want. */
static void assert_within_1pct(uint64_t got, uint64_t want)
{
    double err = fabs((double)got - (double)want) / (double)want;

    ck_assert_msg(err <= 0.01, "got %llu, want %llu (error %.4f)",
                  (unsigned long long)got, (unsigned long long)want, err);
}

START_TEST(test_geometry_small)
{
    uint64_t v;

    /* Small values are exact. */
    for (v = 0; v < 256; v++) {
        size_t b = sb_hist_bucket_of(v);

        ck_assert_uint_eq(sb_hist_bucket_low(b), v);
        ck_assert_uint_eq(sb_hist_bucket_high(b), v);
    }
    /* Below 1 us the error is at most 8 ns, as the header promises. */
    for (v = 0; v < 1000; v++) {
        size_t b = sb_hist_bucket_of(v);

        ck_assert_uint_le(sb_hist_bucket_low(b), v);
        ck_assert_uint_ge(sb_hist_bucket_high(b), v);
        ck_assert_uint_le(sb_hist_bucket_high(b) - sb_hist_bucket_low(b), 8);
    }
    ck_assert_uint_eq(sb_hist_bucket_of(0), 0);
    ck_assert_uint_eq(sb_hist_bucket_of(SB_HIST_MAX_NS - 1),
                      SB_HIST_BUCKETS - 1);
    ck_assert_uint_eq(sb_hist_bucket_of(SB_HIST_MAX_NS), SB_HIST_BUCKETS - 1);
    ck_assert_uint_eq(sb_hist_bucket_of(UINT64_MAX), SB_HIST_BUCKETS - 1);
    ck_assert_uint_eq(sb_hist_bucket_high(SB_HIST_BUCKETS - 1),
                      SB_HIST_MAX_NS - 1);
}
END_TEST

START_TEST(test_geometry_contiguous)
{
    size_t b;

    /* Buckets tile [0, SB_HIST_MAX_NS) without gaps or overlaps, and every
     * bucket maps back to itself from both of its ends. */
    ck_assert_uint_eq(sb_hist_bucket_low(0), 0);
    for (b = 0; b < SB_HIST_BUCKETS; b++) {
        uint64_t lo = sb_hist_bucket_low(b), hi = sb_hist_bucket_high(b);

        ck_assert_uint_le(lo, hi);
        ck_assert_uint_eq(sb_hist_bucket_of(lo), b);
        ck_assert_uint_eq(sb_hist_bucket_of(hi), b);
        if (b + 1 < SB_HIST_BUCKETS)
            ck_assert_uint_eq(sb_hist_bucket_low(b + 1), hi + 1);
    }
}
END_TEST

START_TEST(test_relative_error_sweep)
{
    uint64_t v;
    double worst = 0;

    /* Geometric steps of 0.1% plus the values either side of every power
     * of two, from 1 us to 1 hour. */
    for (v = US; v <= HOUR; v = v + v / 1000 + 1) {
        size_t b = sb_hist_bucket_of(v);
        uint64_t lo = sb_hist_bucket_low(b), hi = sb_hist_bucket_high(b);
        double err = (double)(hi - lo) / (double)lo;

        ck_assert_uint_le(lo, v);
        ck_assert_uint_ge(hi, v);
        ck_assert_msg(err <= 0.01, "value %llu: bucket [%llu, %llu]",
                      (unsigned long long)v, (unsigned long long)lo,
                      (unsigned long long)hi);
        if (err > worst)
            worst = err;
    }
    for (v = 1024; v <= HOUR; v <<= 1) {
        uint64_t probe[3] = { v - 1, v, v + 1 };
        int i;

        for (i = 0; i < 3; i++) {
            size_t b = sb_hist_bucket_of(probe[i]);
            uint64_t lo = sb_hist_bucket_low(b), hi = sb_hist_bucket_high(b);

            ck_assert(lo <= probe[i] && probe[i] <= hi);
            ck_assert((double)(hi - lo) / (double)lo <= 0.01);
        }
    }
    /* The bound is 1/128, and the sweep gets close to it. */
    ck_assert(worst > 0.007 && worst < 1.0 / 128 + 1e-12);
    ck_assert_uint_gt(SB_HIST_MAX_NS, HOUR);
}
END_TEST

START_TEST(test_empty)
{
    struct sb_hist *h = hist_new();
    char *text = NULL;
    size_t len = 0;
    FILE *f;

    ck_assert_uint_eq(h->total, 0);
    ck_assert_uint_eq(h->min_ns, UINT64_MAX);
    ck_assert_uint_eq(h->max_ns, 0);
    ck_assert_uint_eq(sb_hist_percentile(h, 50), 0);
    ck_assert_uint_eq(sb_hist_percentile(h, 100), 0);
    ck_assert(sb_hist_mean(h) == 0.0);

    f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    sb_hist_print(h, f);
    fclose(f);
    ck_assert_str_eq(text,
        "       value  ------------- distribution ------------- count\n");
    free(text);
    free(h);
}
END_TEST

START_TEST(test_percentiles_known)
{
    struct sb_hist *h = hist_new();
    uint64_t i;

    /* 1..100000 us, shuffled order does not matter to a histogram. */
    for (i = 1; i <= 100000; i++)
        sb_hist_record(h, i * US);
    ck_assert_uint_eq(h->total, 100000);
    ck_assert_uint_eq(h->min_ns, 1 * US);
    ck_assert_uint_eq(h->max_ns, 100000 * US);
    ck_assert_double_eq_tol(sb_hist_mean(h), 50000.5 * US, 1e-6);
    assert_within_1pct(sb_hist_percentile(h, 50), 50000 * US);
    assert_within_1pct(sb_hist_percentile(h, 95), 95000 * US);
    assert_within_1pct(sb_hist_percentile(h, 99), 99000 * US);
    assert_within_1pct(sb_hist_percentile(h, 99.9), 99900 * US);
    assert_within_1pct(sb_hist_percentile(h, 0.001), 1 * US);
    /* The top percentile is capped at the true maximum. */
    ck_assert_uint_eq(sb_hist_percentile(h, 100), 100000 * US);
    /* Percentiles are upper bounds of their buckets. */
    ck_assert_uint_ge(sb_hist_percentile(h, 50), 50000 * US);
    free(h);
}
END_TEST

START_TEST(test_percentile_ranks)
{
    struct sb_hist *h = hist_new();
    int i;

    /* 100 values: 95 small, 5 large. p95 is the 95th smallest, a small one;
     * anything above it must be large. */
    for (i = 0; i < 95; i++)
        sb_hist_record(h, 100);
    for (i = 0; i < 5; i++)
        sb_hist_record(h, 10 * MS);
    ck_assert_uint_eq(sb_hist_percentile(h, 95), 100);
    ck_assert_uint_eq(sb_hist_percentile(h, 95.01), 10 * MS);
    ck_assert_uint_eq(sb_hist_percentile(h, 50), 100);
    ck_assert_uint_eq(sb_hist_percentile(h, 100), 10 * MS);

    sb_hist_reset(h);
    sb_hist_record(h, 777);
    ck_assert_uint_eq(sb_hist_percentile(h, 1), 777);
    ck_assert_uint_eq(sb_hist_percentile(h, 99), 777);
    free(h);
}
END_TEST

START_TEST(test_min_max_mean)
{
    struct sb_hist *h = hist_new();

    sb_hist_record(h, 5 * MS);
    sb_hist_record(h, 3 * MS);
    sb_hist_record(h, 10 * MS);
    sb_hist_record(h, 2 * MS);
    ck_assert_uint_eq(h->total, 4);
    ck_assert_uint_eq(h->min_ns, 2 * MS);
    ck_assert_uint_eq(h->max_ns, 10 * MS);
    ck_assert_uint_eq(h->sum_ns, 20 * MS);
    ck_assert_double_eq_tol(sb_hist_mean(h), 5.0 * MS, 1e-6);
    ck_assert_uint_eq(h->clamped, 0);

    sb_hist_reset(h);
    ck_assert_uint_eq(h->total, 0);
    ck_assert_uint_eq(h->min_ns, UINT64_MAX);
    ck_assert_uint_eq(sb_hist_percentile(h, 50), 0);
    free(h);
}
END_TEST

START_TEST(test_clamping)
{
    struct sb_hist *h = hist_new();
    uint64_t big = SB_HIST_MAX_NS * 3;

    sb_hist_record(h, 1 * MS);
    sb_hist_record(h, big);
    sb_hist_record(h, UINT64_MAX / 4);
    ck_assert_uint_eq(h->total, 3);
    ck_assert_uint_eq(h->clamped, 2);
    ck_assert_uint_eq(h->counts[SB_HIST_BUCKETS - 1], 2);
    ck_assert_uint_eq(h->max_ns, UINT64_MAX / 4);
    /* The sum stays exact: the mean is not clamped. */
    ck_assert_uint_eq(h->sum_ns, 1 * MS + big + UINT64_MAX / 4);
    /* A percentile landing in the clamped bucket reports the bucket's top. */
    ck_assert_uint_eq(sb_hist_percentile(h, 100), SB_HIST_MAX_NS - 1);
    assert_within_1pct(sb_hist_percentile(h, 30), 1 * MS);
    /* The largest unclamped value is not counted as clamped. */
    sb_hist_record(h, SB_HIST_MAX_NS - 1);
    ck_assert_uint_eq(h->clamped, 2);
    free(h);
}
END_TEST

START_TEST(test_merge_equals_single)
{
    struct sb_hist *a = hist_new(), *b = hist_new(), *all = hist_new();
    uint64_t x = SB_TEST_RNG_SEED;
    int i;

    for (i = 0; i < 200000; i++) {
        uint64_t v;

        /* Log-spread over 1 ns .. ~2^45 ns (some clamped). */
        sb_test_xorshift64(&x);
        v = x >> (19 + x % 45);
        sb_hist_record(i % 3 ? a : b, v);
        sb_hist_record(all, v);
    }
    sb_hist_merge(a, b);
    ck_assert_int_eq(memcmp(a->counts, all->counts, sizeof(a->counts)), 0);
    ck_assert_uint_eq(a->total, all->total);
    ck_assert_uint_eq(a->sum_ns, all->sum_ns);
    ck_assert_uint_eq(a->min_ns, all->min_ns);
    ck_assert_uint_eq(a->max_ns, all->max_ns);
    ck_assert_uint_eq(a->clamped, all->clamped);
    ck_assert_uint_gt(all->clamped, 0);
    ck_assert_uint_eq(sb_hist_percentile(a, 99), sb_hist_percentile(all, 99));

    /* Merging an empty histogram changes nothing, including min. */
    sb_hist_reset(b);
    sb_hist_merge(a, b);
    ck_assert_uint_eq(a->min_ns, all->min_ns);
    ck_assert_uint_eq(a->total, all->total);
    free(a);
    free(b);
    free(all);
}
END_TEST

START_TEST(test_snapshot_and_diff)
{
    struct sb_hist *h = hist_new(), *s1 = hist_new(), *s2 = hist_new();
    struct sb_hist *d = hist_new();
    int i;

    for (i = 0; i < 1000; i++)
        sb_hist_record(h, 100 * US);
    sb_hist_snapshot(s1, h);
    ck_assert_int_eq(memcmp(s1, h, sizeof(*h)), 0);

    for (i = 0; i < 10; i++)
        sb_hist_record(h, 5 * MS);
    for (i = 0; i < 30; i++)
        sb_hist_record(h, 2 * MS);
    sb_hist_snapshot(s2, h);
    sb_hist_diff(d, s2, s1);

    ck_assert_uint_eq(d->total, 40);
    ck_assert_uint_eq(d->sum_ns, 10 * 5 * MS + 30 * 2 * MS);
    ck_assert_uint_eq(d->counts[sb_hist_bucket_of(5 * MS)], 10);
    ck_assert_uint_eq(d->counts[sb_hist_bucket_of(2 * MS)], 30);
    ck_assert_uint_eq(d->counts[sb_hist_bucket_of(100 * US)], 0);
    /* The interval's extremes come from the buckets that changed. */
    ck_assert_uint_le(d->min_ns, 2 * MS);
    ck_assert_uint_ge(d->min_ns, sb_hist_bucket_low(sb_hist_bucket_of(2 * MS)));
    ck_assert_uint_ge(d->max_ns, 5 * MS);
    ck_assert_uint_le(d->max_ns, sb_hist_bucket_high(sb_hist_bucket_of(5 * MS)));
    assert_within_1pct(sb_hist_percentile(d, 50), 2 * MS);
    assert_within_1pct(sb_hist_percentile(d, 90), 5 * MS);
    ck_assert_double_eq_tol(sb_hist_mean(d), (50.0 + 60.0) / 40 * MS, 1e-6);

    /* No change in between: an empty difference. */
    sb_hist_diff(d, s2, s2);
    ck_assert_uint_eq(d->total, 0);
    ck_assert_uint_eq(d->min_ns, UINT64_MAX);
    ck_assert_uint_eq(d->max_ns, 0);
    ck_assert_uint_eq(sb_hist_percentile(d, 99), 0);
    free(h);
    free(s1);
    free(s2);
    free(d);
}
END_TEST

START_TEST(test_print)
{
    struct sb_hist *h = hist_new();
    char *text = NULL, *line, *save = NULL;
    size_t len = 0;
    uint64_t v, total = 0;
    int lines = 0, max_stars = 0;
    FILE *f;

    /* Every value from 1 us to 10 s in 0.01% steps: a wide, dense spread. */
    for (v = US; v <= 10000 * MS; v += v / 10000 + 1)
        sb_hist_record(h, v);

    f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    sb_hist_print(h, f);
    fclose(f);

    line = strtok_r(text, "\n", &save);
    ck_assert_ptr_nonnull(line);
    ck_assert_str_eq(line,
        "       value  ------------- distribution ------------- count");
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        double ms;
        unsigned long long count;
        int stars = 0;
        const char *p;

        lines++;
        ck_assert_uint_eq(strlen(line) > 55, 1);
        ck_assert_int_eq(line[12], ' ');
        ck_assert_int_eq(line[13], '|');
        ck_assert_int_eq(sscanf(line, "%lf |", &ms), 1);
        ck_assert(ms > 0.0009 && ms < 12000.0);
        for (p = line + 14; *p == '*'; p++)
            stars++;
        ck_assert_int_le(stars, 40);
        if (stars > max_stars)
            max_stars = stars;
        ck_assert_int_eq(sscanf(line + 54, "%llu", &count), 1);
        ck_assert_uint_gt(count, 0);
        total += count;
    }
    /* Seven decades at no more than 20 lines each, and at least a few per
     * decade so the shape is visible. */
    ck_assert_int_le(lines, 7 * 20);
    ck_assert_int_ge(lines, 7 * 5);
    ck_assert_int_eq(max_stars, 40);
    ck_assert_uint_eq(total, h->total);
    free(text);
    free(h);
}
END_TEST

/* ------------------------------------------------------------------------
 * sb_lhist: sysbench 1.0's bounded script histograms
 * ------------------------------------------------------------------------ */

START_TEST(test_lhist_geometry)
{
    struct sb_lhist *h = sb_lhist_new(10, 1, 100);
    double step = log(100.0) / 9; /* log distance between bucket values */
    double v;

    ck_assert_ptr_nonnull(h);
    ck_assert_double_eq_tol(sb_lhist_value(h, 0), 1.0, 1e-9);
    ck_assert_double_eq_tol(sb_lhist_value(h, 9), 100.0, 1e-9);
    ck_assert_double_eq_tol(sb_lhist_value(h, 2), exp(2 * step), 1e-9);
    /* Each value goes to the bucket nearest on the log scale. */
    for (v = 1.0; v <= 100.0; v *= 1.01) {
        size_t i = sb_lhist_bucket(h, v);

        ck_assert_uint_lt(i, 10);
        ck_assert_msg(fabs(log(sb_lhist_value(h, i)) - log(v)) <= step / 2 + 1e-9,
                      "%f went to bucket %zu", v, i);
    }
    /* Outside [min, max]: clamped to the first and last bucket. */
    ck_assert_uint_eq(sb_lhist_bucket(h, 0.5), 0);
    ck_assert_uint_eq(sb_lhist_bucket(h, 0.0), 0);
    ck_assert_uint_eq(sb_lhist_bucket(h, -3.0), 0);
    ck_assert_uint_eq(sb_lhist_bucket(h, NAN), 0);
    ck_assert_uint_eq(sb_lhist_bucket(h, 1000.0), 9);
    ck_assert_uint_eq(sb_lhist_bucket(h, INFINITY), 9);
    sb_lhist_free(h);

    /* min > max runs the buckets downwards, as in 1.0. */
    h = sb_lhist_new(5, 10, 1);
    ck_assert_uint_eq(sb_lhist_bucket(h, 10), 0);
    ck_assert_uint_eq(sb_lhist_bucket(h, 1), 4);
    ck_assert_uint_eq(sb_lhist_bucket(h, 0.1), 4);
    ck_assert_double_eq_tol(sb_lhist_value(h, 4), 1.0, 1e-9);
    sb_lhist_free(h);

    /* Degenerate layouts keep everything in bucket 0, shown as min. */
    h = sb_lhist_new(1, 1, 100);
    ck_assert_uint_eq(sb_lhist_bucket(h, 50), 0);
    ck_assert_double_eq(sb_lhist_value(h, 0), 1.0);
    sb_lhist_free(h);
    h = sb_lhist_new(8, 0, 10);
    ck_assert_uint_eq(sb_lhist_bucket(h, 5), 0);
    ck_assert_double_eq(sb_lhist_value(h, 0), 0.0);
    sb_lhist_free(h);
    ck_assert_ptr_null(sb_lhist_new(0, 1, 10));
}
END_TEST

static char *lhist_printed(const struct sb_lhist *h)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    ck_assert_ptr_nonnull(f);
    sb_lhist_print(h, f);
    fclose(f);
    return buf;
}

START_TEST(test_lhist_print_and_percentile)
{
    struct sb_lhist *h = sb_lhist_new(10, 1, 100);
    char *out = lhist_printed(h);
    char want[256];
    int i;

    ck_assert_str_eq(out, ""); /* empty: nothing at all */
    free(out);
    ck_assert_double_eq(sb_lhist_percentile(h, 50), 0.0);

    for (i = 0; i < 40; i++)
        sb_lhist_update(h, 1.0);
    for (i = 0; i < 20; i++)
        sb_lhist_update(h, 100.0);
    sb_lhist_update(h, 3.0);
    out = lhist_printed(h);
    /* Bars scale to the fullest bucket: 40, 20 and round(40 / 40) = 1. */
    snprintf(want, sizeof(want),
             "       value  ------------- distribution ------------- count\n"
             "%12.3f |%-40s %d\n%12.3f |%-40s %d\n%12.3f |%-40s %d\n",
             1.0, "****************************************", 40,
             sb_lhist_value(h, 2), "*", 1,
             100.0, "********************", 20);
    ck_assert_str_eq(out, want);
    free(out);

    /* 61 values: the 50th and 65th percentiles are the 31st and 40th
     * value (bucket 0), the 67th the 41st (the single 3.0). */
    ck_assert_double_eq_tol(sb_lhist_percentile(h, 50), 1.0, 1e-9);
    ck_assert_double_eq_tol(sb_lhist_percentile(h, 65), 1.0, 1e-9);
    ck_assert_double_eq_tol(sb_lhist_percentile(h, 67), sb_lhist_value(h, 2), 1e-9);
    ck_assert_double_eq_tol(sb_lhist_percentile(h, 99), 100.0, 1e-9);
    ck_assert_double_eq_tol(sb_lhist_percentile(h, 100), 100.0, 1e-9);
    sb_lhist_free(h);
}
END_TEST

/* The compact delay histogram: contiguous buckets, each at most 1/8 of
 * its lower bound wide, so a percentile (a bucket's upper bound) is at
 * most 12.5% above the true value. */
START_TEST(test_dhist_geometry)
{
    uint64_t prev_upper = 0;

    ck_assert_uint_eq(sb_dhist_bucket(0), 0);
    ck_assert_uint_eq(sb_dhist_bucket(1023), 0);
    ck_assert_uint_eq(sb_dhist_bucket(1024), 1);
    ck_assert_uint_eq(sb_dhist_upper(0), 1024);
    ck_assert_uint_eq(sb_dhist_bucket(UINT64_MAX), SB_DHIST_BUCKETS - 1);
    for (unsigned i = 0; i < SB_DHIST_BUCKETS; i++) {
        uint64_t up = sb_dhist_upper(i);
        ck_assert_uint_gt(up, prev_upper);
        /* The bucket's own bounds map back to it. */
        ck_assert_uint_eq(sb_dhist_bucket(prev_upper), i);
        ck_assert_uint_eq(sb_dhist_bucket(up - 1), i);
        if (i > 0)
            ck_assert(up - prev_upper <= prev_upper / SB_DHIST_SUB);
        prev_upper = up;
    }
    /* Every value from 1 us to 17 s is reported at most 12.5% high. */
    for (uint64_t v = 1024; v < ((uint64_t)1 << SB_DHIST_MAX_BITS); v = v * 21 / 20 + 1) {
        uint64_t up = sb_dhist_upper(sb_dhist_bucket(v));
        ck_assert(up > v && (double)up <= 1.125 * (double)v + 1);
    }
}
END_TEST

START_TEST(test_dhist_percentiles)
{
    struct sb_dhist h, g, d;

    sb_dhist_reset(&h);
    ck_assert_uint_eq(sb_dhist_percentile(&h, 99), 0);
    /* 990 wake-ups of 50 us, 10 of 3 ms: p99 is the 990th (50 us), p99.9
     * among the slow ones. */
    for (int i = 0; i < 990; i++)
        sb_dhist_record(&h, 50000);
    for (int i = 0; i < 10; i++)
        sb_dhist_record(&h, 3000000);
    ck_assert_uint_eq(h.total, 1000);
    ck_assert_uint_eq(sb_dhist_percentile(&h, 99), sb_dhist_upper(sb_dhist_bucket(50000)));
    ck_assert_uint_eq(sb_dhist_percentile(&h, 99.9), sb_dhist_upper(sb_dhist_bucket(3000000)));
    ck_assert_uint_eq(sb_dhist_percentile(&h, 100), sb_dhist_upper(sb_dhist_bucket(3000000)));
    /* Counted from a bucket's lower bound: the slow ones, or all. */
    ck_assert_uint_eq(sb_dhist_count_from(&h, 1000000), 10);
    ck_assert_uint_eq(sb_dhist_count_from(&h, 40000), 1000);
    /* Merge, snapshot and diff add and subtract exactly. */
    sb_dhist_snapshot(&g, &h);
    for (int i = 0; i < 20; i++)
        sb_dhist_record(&h, 3000000);
    sb_dhist_diff(&d, &h, &g);
    ck_assert_uint_eq(d.total, 20);
    ck_assert_uint_eq(sb_dhist_count_from(&d, 1000000), 20);
    sb_dhist_merge(&d, &g);
    ck_assert_uint_eq(d.total, h.total);
    ck_assert_uint_eq(memcmp(d.counts, h.counts, sizeof(d.counts)), 0);
    /* 30 of 1020 above 1 ms: the p99 is now a slow one. */
    ck_assert_uint_eq(sb_dhist_percentile(&h, 99), sb_dhist_upper(sb_dhist_bucket(3000000)));
    sb_dhist_reset(&g);
    sb_dhist_accumulate(&g, &h);
    ck_assert_uint_eq(memcmp(&g, &h, sizeof(g)), 0);
}
END_TEST

static Suite *hist_suite(void)
{
    Suite *s = suite_create("sb_histogram");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_geometry_small);
    tcase_add_test(tc, test_geometry_contiguous);
    tcase_add_test(tc, test_relative_error_sweep);
    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_percentiles_known);
    tcase_add_test(tc, test_percentile_ranks);
    tcase_add_test(tc, test_min_max_mean);
    tcase_add_test(tc, test_clamping);
    tcase_add_test(tc, test_merge_equals_single);
    tcase_add_test(tc, test_snapshot_and_diff);
    tcase_add_test(tc, test_print);
    tcase_add_test(tc, test_lhist_geometry);
    tcase_add_test(tc, test_lhist_print_and_percentile);
    tcase_add_test(tc, test_dhist_geometry);
    tcase_add_test(tc, test_dhist_percentiles);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(hist_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
