/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_rand: determinism, ranges and the rough shape of every
 * distribution. The statistical bounds are wide enough that a correct
 * generator passes with overwhelming probability for the fixed seeds used,
 * and narrow enough that a wrong mapping fails.
 */

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pure/sb_rand.h"

static struct sb_rand_params params;

static void setup_params(void)
{
    sb_rand_params_default(&params);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return (x > y) - (x < y);
}

static const struct {
    const char *name;
    int64_t (*fn)(struct sb_rand *, int64_t, int64_t);
} dists[] = {
    { "uniform", sb_rand_next_uniform },
    { "gaussian", sb_rand_next_gaussian },
    { "special", sb_rand_next_special },
    { "pareto", sb_rand_next_pareto },
    { "zipfian", sb_rand_next_zipfian },
    { "default", sb_rand_next_default },
};
#define NDISTS ((int)(sizeof(dists) / sizeof(dists[0])))

START_TEST(test_params_and_names)
{
    enum sb_rand_dist d;

    ck_assert_int_eq(params.dist, SB_RAND_SPECIAL);
    ck_assert_int_eq(params.spec_iter, 12);
    ck_assert(params.spec_pct == 1.0);
    ck_assert(params.spec_res == 75.0);
    ck_assert(params.pareto_h == 0.2);
    ck_assert(params.zipf_exp == 0.8);

    ck_assert_int_eq(sb_rand_dist_parse("uniform", &d), 0);
    ck_assert_int_eq(d, SB_RAND_UNIFORM);
    ck_assert_int_eq(sb_rand_dist_parse("gaussian", &d), 0);
    ck_assert_int_eq(d, SB_RAND_GAUSSIAN);
    ck_assert_int_eq(sb_rand_dist_parse("special", &d), 0);
    ck_assert_int_eq(d, SB_RAND_SPECIAL);
    ck_assert_int_eq(sb_rand_dist_parse("pareto", &d), 0);
    ck_assert_int_eq(d, SB_RAND_PARETO);
    ck_assert_int_eq(sb_rand_dist_parse("zipfian", &d), 0);
    ck_assert_int_eq(d, SB_RAND_ZIPFIAN);
    ck_assert_int_eq(sb_rand_dist_parse("normal", &d), -1);
    ck_assert_int_eq(sb_rand_dist_parse("", &d), -1);
    ck_assert_str_eq(sb_rand_dist_name(SB_RAND_ZIPFIAN), "zipfian");
    ck_assert_str_eq(sb_rand_dist_name(SB_RAND_UNIFORM), "uniform");
}
END_TEST

START_TEST(test_determinism_and_streams)
{
    struct sb_rand a, b, c, d;
    int i, same_ac = 0, same_ad = 0;

    sb_rand_seed_stream(&a, 42, 3, &params);
    sb_rand_seed_stream(&b, 42, 3, &params);
    sb_rand_seed_stream(&c, 42, 4, &params);
    sb_rand_seed_stream(&d, 43, 3, &params);
    for (i = 0; i < 10000; i++) {
        uint64_t x = sb_rand_next_u64(&a);

        ck_assert_uint_eq(x, sb_rand_next_u64(&b));
        same_ac += x == sb_rand_next_u64(&c);
        same_ad += x == sb_rand_next_u64(&d);
    }
    ck_assert_int_eq(same_ac, 0);
    ck_assert_int_eq(same_ad, 0);

    /* Distributions are deterministic too, including the unique order. */
    sb_rand_seed_stream(&a, 7, 0, &params);
    sb_rand_seed_stream(&b, 7, 0, &params);
    for (i = 0; i < 1000; i++) {
        ck_assert_int_eq(sb_rand_next_default(&a, 1, 1000000),
                         sb_rand_next_default(&b, 1, 1000000));
        ck_assert_uint_eq(sb_rand_next_unique(&a), sb_rand_next_unique(&b));
    }
}
END_TEST

START_TEST(test_uniform_double)
{
    struct sb_rand r;
    double sum = 0;
    int i, n = 200000;

    sb_rand_seed_stream(&r, 1, 0, &params);
    for (i = 0; i < n; i++) {
        double u = sb_rand_next_double(&r);

        ck_assert(u >= 0.0 && u < 1.0);
        sum += u;
    }
    ck_assert_double_eq_tol(sum / n, 0.5, 0.005);
}
END_TEST

START_TEST(test_all_in_range)
{
    static const int64_t ranges[][2] = {
        { 1, 1 }, { 0, 0 }, { -5, -5 }, { 1, 2 }, { 2, 1 }, { 10, 1 },
        { -100, 100 }, { 100, -100 }, { -10, -1 }, { 0, 1 }, { 1, 10 },
        { 1, 100 }, { 1, 1000000 }, { 1, 10000000 },
        { 0, INT64_MAX }, { INT64_MIN, INT64_MAX }, { INT64_MAX, INT64_MIN },
        { INT64_MIN, INT64_MIN + 1 }, { INT64_MAX - 1, INT64_MAX },
        { INT64_MIN, 0 }, { -(INT64_C(1) << 40), INT64_C(1) << 40 },
        { 1, INT64_C(4294967296) },
    };
    double thetas[] = { 0.0, 0.5, 0.8, 0.99, 1.0, 1.5, 3.0 };
    double hs[] = { 0.2, 0.5, 0.01, 0.99, 0.0, 1.0 };
    struct sb_rand r;
    size_t ri;
    int di, i;

    sb_rand_seed_stream(&r, 99, 1, &params);
    for (ri = 0; ri < sizeof(ranges) / sizeof(ranges[0]); ri++) {
        int64_t a = ranges[ri][0], b = ranges[ri][1];
        int64_t lo = a < b ? a : b, hi = a < b ? b : a;

        for (di = 0; di < NDISTS; di++) {
            int hit_lo = 0;

            for (i = 0; i < 3000; i++) {
                int64_t v = dists[di].fn(&r, a, b);

                if (v < lo || v > hi)
                    ck_abort_msg("%s(%lld, %lld) gave %lld", dists[di].name,
                                 (long long)a, (long long)b, (long long)v);
                hit_lo |= v == lo;
            }
            if (hi == lo)
                ck_assert(hit_lo);
        }
    }

    /* Extreme tuning must not escape the range either. */
    for (i = 0; i < (int)(sizeof(thetas) / sizeof(thetas[0])); i++) {
        struct sb_rand_params p = params;
        int j;

        p.zipf_exp = thetas[i];
        sb_rand_seed_stream(&r, 5, 0, &p);
        for (ri = 0; ri < sizeof(ranges) / sizeof(ranges[0]); ri++) {
            int64_t a = ranges[ri][0], b = ranges[ri][1];
            int64_t lo = a < b ? a : b, hi = a < b ? b : a;

            for (j = 0; j < 2000; j++) {
                int64_t v = sb_rand_next_zipfian(&r, a, b);

                ck_assert_msg(v >= lo && v <= hi, "zipf theta %g out of range",
                              thetas[i]);
            }
        }
    }
    for (i = 0; i < (int)(sizeof(hs) / sizeof(hs[0])); i++) {
        struct sb_rand_params p = params;
        int j;

        p.pareto_h = hs[i];
        p.spec_pct = i * 30.0;      /* 0, 30, 60, 90, 120, 150 */
        p.spec_res = i * 25.0 - 10; /* -10 .. 115 */
        p.spec_iter = i - 1;        /* includes 0 and -1 */
        sb_rand_seed_stream(&r, 6, 0, &p);
        for (ri = 0; ri < sizeof(ranges) / sizeof(ranges[0]); ri++) {
            int64_t a = ranges[ri][0], b = ranges[ri][1];
            int64_t lo = a < b ? a : b, hi = a < b ? b : a;

            for (j = 0; j < 1000; j++) {
                int64_t v = sb_rand_next_pareto(&r, a, b);
                int64_t w = sb_rand_next_special(&r, a, b);
                int64_t g = sb_rand_next_gaussian(&r, a, b);

                ck_assert(v >= lo && v <= hi);
                ck_assert(w >= lo && w <= hi);
                ck_assert(g >= lo && g <= hi);
            }
        }
    }
}
END_TEST

START_TEST(test_uniform_shape)
{
    enum { K = 16, N = 160000 };
    struct sb_rand r;
    long counts[K] = { 0 };
    double chi = 0, sum = 0, expect = (double)N / K;
    int i;
    uint64_t ored = 0;

    sb_rand_seed_stream(&r, 2024, 0, &params);
    for (i = 0; i < N; i++) {
        int64_t v = sb_rand_next_uniform(&r, 1, K);

        counts[v - 1]++;
        sum += (double)v;
    }
    for (i = 0; i < K; i++)
        chi += (counts[i] - expect) * (counts[i] - expect) / expect;
    /* 15 degrees of freedom: P(chi2 > 37.7) is about 0.001. */
    ck_assert_msg(chi < 37.7, "chi-square %f", chi);
    ck_assert_double_eq_tol(sum / N, (K + 1) / 2.0, 0.05);

    /* The full 64-bit range reaches the top and the bottom bits. */
    for (i = 0; i < 1000; i++)
        ored |= (uint64_t)sb_rand_next_uniform(&r, INT64_MIN, INT64_MAX);
    ck_assert_uint_eq(ored, UINT64_MAX);

    /* Both ends of a small range are reached. */
    {
        int lo = 0, hi = 0;

        for (i = 0; i < 1000; i++) {
            int64_t v = sb_rand_next_uniform(&r, -3, 3);

            lo |= v == -3;
            hi |= v == 3;
        }
        ck_assert(lo && hi);
    }
}
END_TEST

START_TEST(test_gaussian_shape)
{
    struct sb_rand r;
    double sum = 0, sq = 0;
    int i, n = 100000, mid = 0;

    sb_rand_seed_stream(&r, 3, 0, &params);
    for (i = 0; i < n; i++) {
        double v = (double)sb_rand_next_gaussian(&r, 1, 1000);

        sum += v;
        sq += v * v;
        mid += v > 250 && v <= 750;
    }
    ck_assert_double_eq_tol(sum / n, 500.5, 3.0);
    /* Irwin-Hall with 12 draws: sd = range / sqrt(12 * 12) = 1000 / 12. */
    ck_assert_double_eq_tol(sqrt(sq / n - (sum / n) * (sum / n)), 1000.0 / 12,
                            3.0);
    /* Far more concentrated than uniform (which would give 50%). */
    ck_assert_int_gt(mid, n * 99 / 100);
}
END_TEST

/* The special values of [1, 100000] at the default 1%: the 1000 values
 * centred on the middle, 49500..50499 (sysbench 1.0 centres them too). */
static int in_hot(int64_t v)
{
    return v >= 49500 && v <= 50499;
}

START_TEST(test_special_shape)
{
    struct sb_rand r;
    int i, n = 200000, hot = 0, low = 0;

    sb_rand_seed_stream(&r, 4, 0, &params);
    for (i = 0; i < n; i++) {
        int64_t v = sb_rand_next_special(&r, 1, 100000);

        hot += in_hot(v);
        low += v <= 1000;
    }
    /* 75% land there on purpose, plus the gaussian draws that fall in the
     * middle 1% (about 0.25 * 1000 / (8333 * sqrt(2 pi)) = 1.2%). */
    ck_assert_double_eq_tol((double)hot / n, 0.762, 0.01);
    /* Nothing special at the start of the range any more. */
    ck_assert_int_lt(low, n / 1000);

    /* With 100% resolution every draw is special, and both ends of the hot
     * region are reached; with 0 none is. */
    {
        struct sb_rand_params p = params;
        int lo = 0, hi = 0;

        p.spec_res = 100;
        sb_rand_seed_stream(&r, 4, 0, &p);
        for (i = 0; i < 20000; i++) {
            int64_t v = sb_rand_next_special(&r, 1, 100000);

            ck_assert_msg(in_hot(v), "special value %lld", (long long)v);
            lo |= v == 49500;
            hi |= v == 50499;
        }
        ck_assert(lo && hi);
        p.spec_res = 0;
        p.spec_iter = 1; /* plain uniform for the remainder */
        hot = 0;
        for (i = 0; i < 100000; i++)
            hot += in_hot(sb_rand_next_special(&r, 1, 100000));
        ck_assert_double_eq_tol((double)hot / 100000, 0.01, 0.003);
    }
}
END_TEST

/* sysbench 1.0's 32-bit rule: a + k modulo 2^32, k in [0, b - a + 1). */
START_TEST(test_wrapped)
{
    static const enum sb_rand_dist ds[] = {
        SB_RAND_UNIFORM, SB_RAND_GAUSSIAN, SB_RAND_PARETO, SB_RAND_ZIPFIAN
    };
    struct sb_rand r;
    unsigned d;
    int i;

    sb_rand_seed_stream(&r, 11, 0, &params);
    for (d = 0; d < sizeof(ds) / sizeof(ds[0]); d++) {
        int seen[7] = { 0 };

        for (i = 0; i < 20000; i++) {
            /* -1 as uint32: the range is 4294967295, 0, 1, ..., 5. */
            uint32_t v = sb_rand_next_wrapped(&r, ds[d], UINT32_MAX, 5);

            ck_assert_msg(v == UINT32_MAX || v <= 5, "dist %u gave %u", d, v);
            seen[v == UINT32_MAX ? 0 : v + 1] = 1;
        }
        if (ds[d] == SB_RAND_UNIFORM)
            for (i = 0; i < 7; i++)
                ck_assert(seen[i]);
        /* The whole 32-bit space (b - a + 1 == 0) gives a, as in 1.0. */
        ck_assert_uint_eq(sb_rand_next_wrapped(&r, ds[d], 0, UINT32_MAX), 0);
        ck_assert_uint_eq(sb_rand_next_wrapped(&r, ds[d], 7, 6), 7);
        ck_assert_uint_eq(sb_rand_next_wrapped(&r, ds[d], 3, 3), 3);
    }
    /* a > b counts up from a through 2^32: 2, 3 and 4 are never reached
     * from (5, 1), and values above 5 are. */
    {
        int big = 0;

        for (i = 0; i < 10000; i++) {
            uint32_t v = sb_rand_next_wrapped(&r, SB_RAND_UNIFORM, 5, 1);

            ck_assert(v >= 5 || v <= 1);
            big |= v > 1000;
        }
        ck_assert(big);
    }
    /* special counts b - a values from a: (5, 1) spans 2^32 - 4 values
     * and its hot 1% sits around 5 + (2^32 - 4) / 2, modulo 2^32. */
    {
        const double t = 4294967292.0, mid = 5.0 + t / 2;
        int hot = 0;

        for (i = 0; i < 20000; i++) {
            double v = sb_rand_next_wrapped(&r, SB_RAND_SPECIAL, 5, 1);

            hot += fabs(v - mid) <= t / 200 + 1;
        }
        ck_assert_double_eq_tol((double)hot / 20000, 0.762, 0.02);
        for (i = 0; i < 1000; i++) {
            uint32_t v = sb_rand_next_wrapped(&r, SB_RAND_SPECIAL, UINT32_MAX, 5);

            ck_assert(v == UINT32_MAX || v <= 5);
        }
    }
    /* default follows params.dist. */
    {
        struct sb_rand_params p = params;
        struct sb_rand r1, r2;

        p.dist = SB_RAND_PARETO;
        sb_rand_seed_stream(&r1, 12, 0, &p);
        sb_rand_seed_stream(&r2, 12, 0, &p);
        for (i = 0; i < 100; i++)
            ck_assert_uint_eq(sb_rand_next_wrapped_default(&r1, 10, 1000),
                              sb_rand_next_wrapped(&r2, SB_RAND_PARETO, 10, 1000));
    }
}
END_TEST

START_TEST(test_pareto_shape)
{
    struct sb_rand r;
    int i, n = 100000, low = 0;

    sb_rand_seed_stream(&r, 5, 0, &params);
    for (i = 0; i < n; i++)
        low += sb_rand_next_pareto(&r, 1, 1000000) <= 200000;
    /* P(u^7.21 < 0.2) = 0.2^(1/7.21) = 0.80: h = 0.2 means 80/20. */
    ck_assert_double_eq_tol((double)low / n, 0.80, 0.01);
}
END_TEST

START_TEST(test_zipfian_shape)
{
    struct sb_rand r;
    struct sb_rand_params p = params;
    int i, n = 200000, ones = 0, low = 0;
    double zeta = 0, zeta10 = 0;

    sb_rand_seed_stream(&r, 6, 0, &params);
    for (i = 1; i <= 1000; i++) {
        zeta += pow(i, -0.8);
        if (i == 10)
            zeta10 = zeta;
    }
    for (i = 0; i < n; i++) {
        int64_t v = sb_rand_next_zipfian(&r, 1, 1000);

        ones += v == 1;
        low += v <= 10;
    }
    /* P(1) = 1 / zeta(1000, 0.8). */
    ck_assert_double_eq_tol((double)ones / n, 1.0 / zeta, 0.01);
    /* Gray et al.'s method is exact for the first two values and close
     * beyond them: P(v <= 10) = zeta(10) / zeta(1000) = 0.230. */
    ck_assert_double_eq_tol((double)low / n, zeta10 / zeta, 0.02);

    /* A large range still skews to the small values: P(v <= 1000) is
     * zeta(1000) / zeta(1e8), about 0.08 (uniform would give 1e-5); the
     * tail of zeta(1e8) is its integral, accurate to far better than 1%. */
    low = 0;
    for (i = 0; i < n; i++)
        low += sb_rand_next_zipfian(&r, 1, 100000000) <= 1000;
    ck_assert_double_eq_tol((double)low / n,
                            zeta / (zeta + (pow(1e8 + 0.5, 0.2) -
                                            pow(1000.5, 0.2)) / 0.2),
                            0.01);

    /* theta >= 1 (rejection-inversion): P(1) = 1 / H(1000, 1.2). */
    p.zipf_exp = 1.2;
    zeta = 0;
    for (i = 1; i <= 1000; i++)
        zeta += pow(i, -1.2);
    sb_rand_seed_stream(&r, 6, 0, &p);
    ones = 0;
    for (i = 0; i < n; i++)
        ones += sb_rand_next_zipfian(&r, 1, 1000) == 1;
    ck_assert_double_eq_tol((double)ones / n, 1.0 / zeta, 0.01);

    /* Switching ranges refreshes the cached constants. */
    sb_rand_seed_stream(&r, 6, 0, &params);
    for (i = 0; i < 1000; i++) {
        ck_assert_int_le(sb_rand_next_zipfian(&r, 1, 3), 3);
        ck_assert_int_le(sb_rand_next_zipfian(&r, 1, 1000000), 1000000);
    }
}
END_TEST

START_TEST(test_unique)
{
    enum { N = 1000000 };
    uint32_t *v = malloc(N * sizeof(*v));
    struct sb_rand r, r2;
    int i, same = 0;
    uint64_t sum = 0;

    ck_assert_ptr_nonnull(v);
    sb_rand_seed_stream(&r, 11, 0, &params);
    sb_rand_seed_stream(&r2, 12, 0, &params);
    for (i = 0; i < N; i++) {
        v[i] = sb_rand_next_unique(&r);
        same += v[i] == sb_rand_next_unique(&r2);
        sum += v[i];
    }
    ck_assert_int_lt(same, 5);
    /* The shared variant walks the same sequence. */
    sb_rand_seed_stream(&r2, 11, 0, &params);
    for (i = 0; i < 1000; i++)
        ck_assert_uint_eq(sb_rand_next_unique_shared(&r2), v[i]);
    /* Spread over the 32-bit space, not clustered. */
    ck_assert_double_eq_tol((double)sum / N / 4294967296.0, 0.5, 0.01);
    qsort(v, N, sizeof(*v), cmp_u32);
    for (i = 1; i < N; i++)
        if (v[i] == v[i - 1])
            ck_abort_msg("duplicate unique value %u", v[i]);

    /* Indexes that reach the values at and above the prime still produce
     * distinct outputs around the wrap of the index. */
    r.unique_index = 4294967291u - 100;
    for (i = 0; i < 300; i++)
        v[i] = sb_rand_next_unique(&r);
    qsort(v, 300, sizeof(*v), cmp_u32);
    for (i = 1; i < 300; i++)
        ck_assert_uint_ne(v[i], v[i - 1]);
    free(v);
}
END_TEST

START_TEST(test_string)
{
    struct sb_rand r;
    char buf[64];
    const char *fmt = "###-@@@ x#@";
    size_t n, i;
    int digits[10] = { 0 }, letters[26] = { 0 }, k;

    sb_rand_seed_stream(&r, 8, 0, &params);
    n = sb_rand_next_string(&r, fmt, strlen(fmt), buf, sizeof(buf));
    ck_assert_uint_eq(n, strlen(fmt));
    ck_assert_uint_eq(strlen(buf), n);
    for (i = 0; i < n; i++) {
        if (fmt[i] == '#')
            ck_assert(buf[i] >= '0' && buf[i] <= '9');
        else if (fmt[i] == '@')
            ck_assert(buf[i] >= 'a' && buf[i] <= 'z');
        else
            ck_assert_int_eq(buf[i], fmt[i]);
    }

    /* Truncation to cap - 1 characters. */
    n = sb_rand_next_string(&r, fmt, strlen(fmt), buf, 5);
    ck_assert_uint_eq(n, 4);
    ck_assert_uint_eq(strlen(buf), 4);
    ck_assert_int_eq(buf[3], '-');
    n = sb_rand_next_string(&r, fmt, strlen(fmt), buf, 1);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(buf[0], '\0');
    buf[0] = 'z';
    ck_assert_uint_eq(sb_rand_next_string(&r, fmt, strlen(fmt), buf, 0), 0);
    ck_assert_int_eq(buf[0], 'z');
    /* fmt_len, not a NUL, bounds the template. */
    n = sb_rand_next_string(&r, "##########", 3, buf, sizeof(buf));
    ck_assert_uint_eq(n, 3);

    /* Every digit and letter appears, roughly evenly. */
    for (k = 0; k < 20000; k++) {
        sb_rand_next_string(&r, "#@", 2, buf, sizeof(buf));
        digits[buf[0] - '0']++;
        letters[buf[1] - 'a']++;
    }
    for (k = 0; k < 10; k++)
        ck_assert_int_gt(digits[k], 2000 * 8 / 10);
    for (k = 0; k < 26; k++)
        ck_assert_int_gt(letters[k], 20000 / 26 * 7 / 10);
}
END_TEST

START_TEST(test_varstring)
{
    struct sb_rand r;
    char buf[64];
    int seen_len[11] = { 0 }, seen_char[36] = { 0 }, k;

    sb_rand_seed_stream(&r, 9, 0, &params);
    for (k = 0; k < 20000; k++) {
        size_t n = sb_rand_next_varstring(&r, 5, 10, buf, sizeof(buf)), i;

        ck_assert_uint_ge(n, 5);
        ck_assert_uint_le(n, 10);
        ck_assert_uint_eq(strlen(buf), n);
        seen_len[n]++;
        for (i = 0; i < n; i++) {
            char c = buf[i];

            ck_assert((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'));
            seen_char[c <= '9' ? c - '0' : 10 + c - 'a']++;
        }
    }
    for (k = 5; k <= 10; k++)
        ck_assert_int_gt(seen_len[k], 20000 / 6 * 8 / 10);
    for (k = 0; k < 36; k++)
        ck_assert_int_gt(seen_char[k], 0);

    ck_assert_uint_eq(sb_rand_next_varstring(&r, 7, 7, buf, sizeof(buf)), 7);
    ck_assert_uint_eq(sb_rand_next_varstring(&r, 0, 0, buf, sizeof(buf)), 0);
    ck_assert_int_eq(buf[0], '\0');
    /* A too-small buffer truncates instead of overflowing. */
    memset(buf, 'X', sizeof(buf));
    ck_assert_uint_eq(sb_rand_next_varstring(&r, 20, 20, buf, 8), 7);
    ck_assert_int_eq(buf[7], '\0');
    ck_assert_int_eq(buf[8], 'X');
}
END_TEST

static Suite *rand_suite(void)
{
    Suite *s = suite_create("sb_rand");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup_params, NULL);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_params_and_names);
    tcase_add_test(tc, test_determinism_and_streams);
    tcase_add_test(tc, test_uniform_double);
    tcase_add_test(tc, test_all_in_range);
    tcase_add_test(tc, test_uniform_shape);
    tcase_add_test(tc, test_gaussian_shape);
    tcase_add_test(tc, test_special_shape);
    tcase_add_test(tc, test_wrapped);
    tcase_add_test(tc, test_pareto_shape);
    tcase_add_test(tc, test_zipfian_shape);
    tcase_add_test(tc, test_unique);
    tcase_add_test(tc, test_string);
    tcase_add_test(tc, test_varstring);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rand_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
