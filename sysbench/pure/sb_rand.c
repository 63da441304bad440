/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-thread pseudo-random numbers: xoshiro256** plus the distributions of
 * sysbench 1.0. Nothing here allocates, locks or touches global state, so a
 * worker can call it on every query without any shared cost.
 */

#include "pure/sb_rand.h"

#include <math.h>
#include <string.h>

/* The largest prime below 2^32; it is congruent to 3 mod 4, which is what
 * makes the quadratic-residue map below a permutation of [0, p). */
#define SB_UNIQUE_PRIME 4294967291u

/* Exact terms summed by the zeta function before the tail is replaced by an
 * integral: with 64 the relative error stays below 1e-6 for any n, and a
 * recomputation (when a caller switches ranges) costs under a microsecond. */
#define SB_ZETA_EXACT_TERMS 64

/* Marks an empty zipfian cache; no valid (clamped) exponent is negative. */
#define SB_ZIPF_NO_CACHE (-1.0)

void sb_rand_params_default(struct sb_rand_params *p)
{
    p->dist = SB_RAND_SPECIAL;
    p->spec_iter = 12;
    p->spec_pct = 1.0;
    p->spec_res = 75.0;
    p->pareto_h = 0.2;
    p->zipf_exp = 0.8;
}

static const char *const sb_rand_dist_names[] = {
    [SB_RAND_UNIFORM] = "uniform",
    [SB_RAND_GAUSSIAN] = "gaussian",
    [SB_RAND_SPECIAL] = "special",
    [SB_RAND_PARETO] = "pareto",
    [SB_RAND_ZIPFIAN] = "zipfian",
};

int sb_rand_dist_parse(const char *name, enum sb_rand_dist *out)
{
    size_t i;

    if (name == NULL)
        return -1;
    for (i = 0; i < sizeof(sb_rand_dist_names) / sizeof(sb_rand_dist_names[0]);
         i++) {
        if (strcmp(name, sb_rand_dist_names[i]) == 0) {
            *out = (enum sb_rand_dist)i;
            return 0;
        }
    }
    return -1;
}

const char *sb_rand_dist_name(enum sb_rand_dist d)
{
    if ((unsigned)d < sizeof(sb_rand_dist_names) / sizeof(sb_rand_dist_names[0]))
        return sb_rand_dist_names[d];
    return "unknown";
}

/* ------------------------------------------------------------------------
 * Generator core
 * ------------------------------------------------------------------------ */

static inline uint64_t rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* splitmix64 spreads a few bits of seed over the whole 256-bit state; using
 * it is the seeding the xoshiro authors recommend, since nearby seeds would
 * otherwise give visibly correlated first outputs. */
static uint64_t splitmix64_next(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void sb_rand_seed_stream(struct sb_rand *r, uint64_t seed, uint64_t stream,
                  const struct sb_rand_params *params)
{
    uint64_t mix = stream;
    uint64_t x;
    int i;

    /* The stream goes through its own mixing round before it meets the seed,
     * so (seed, stream) and (seed + 1, stream - 1) do not collide the way a
     * plain sum would. */
    x = seed ^ splitmix64_next(&mix);
    for (i = 0; i < 4; i++)
        r->s[i] = splitmix64_next(&x);
    /* xoshiro must never be all zero; splitmix64 practically cannot produce
     * that, but a fixed fallback costs nothing and makes it certain. */
    if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
        r->s[0] = 0x9e3779b97f4a7c15ULL;

    r->params = params;

    {
        uint64_t u = sb_rand_next_u64(r);

        /* Both the starting point and the offset depend on the seed, so two
         * seeds give different orders, not merely shifted ones. */
        r->unique_index = (uint32_t)u;
        r->unique_offset = (uint32_t)(u >> 32);
    }

    r->zipf_n = 0;
    r->zipf_theta = SB_ZIPF_NO_CACHE;
    r->zipf_zetan = r->zipf_alpha = r->zipf_eta = r->zipf_zeta2 = 0.0;
}

uint64_t sb_rand_next_u64(struct sb_rand *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

double sb_rand_next_double(struct sb_rand *r)
{
    /* The top 53 bits fill a double's mantissa exactly, so every result is
     * a multiple of 2^-53 strictly below 1. */
    return (double)(sb_rand_next_u64(r) >> 11) * 0x1.0p-53;
}

/*
 * A uniform integer in [0, span] (span may be UINT64_MAX). Lemire's
 * multiply-and-reject avoids both the modulo bias of "x % n" and a division
 * on the common path.
 */
static uint64_t rand_upto(struct sb_rand *r, uint64_t span)
{
    uint64_t n, x, lo;
    unsigned __int128 m;

    if (span == UINT64_MAX)
        return sb_rand_next_u64(r);
    n = span + 1;
    x = sb_rand_next_u64(r);
    m = (unsigned __int128)x * n;
    lo = (uint64_t)m;
    if (lo < n) {
        uint64_t threshold = (0 - n) % n;

        while (lo < threshold) {
            x = sb_rand_next_u64(r);
            m = (unsigned __int128)x * n;
            lo = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

/*
 * Maps a fraction f in [0, 1] onto an offset in [0, span]. The explicit
 * clamps matter: rounding can push f * (span + 1) to span + 1, and a double
 * at or above 2^64 must not be converted to uint64_t at all.
 */
static uint64_t scale_fraction(double f, uint64_t span)
{
    double x;

    if (!(f > 0.0))
        return 0;
    x = f * ((double)span + 1.0);
    if (x >= 18446744073709551616.0)
        return span;
    if ((uint64_t)x > span)
        return span;
    return (uint64_t)x;
}

/* Normalises [a, b] to a base and a span; unsigned arithmetic makes the
 * span exact even for INT64_MIN..INT64_MAX. */
static inline uint64_t range_of(int64_t *a, int64_t *b)
{
    if (*a > *b) {
        int64_t t = *a;

        *a = *b;
        *b = t;
    }
    return (uint64_t)*b - (uint64_t)*a;
}

/* Adds an offset in [0, span] to a in unsigned arithmetic, where the wrap is
 * well defined; the result is back inside [a, b]. */
static inline int64_t offset_from(int64_t a, uint64_t off)
{
    return (int64_t)((uint64_t)a + off);
}

int64_t sb_rand_next_uniform(struct sb_rand *r, int64_t a, int64_t b)
{
    uint64_t span = range_of(&a, &b);

    return offset_from(a, rand_upto(r, span));
}

/* ------------------------------------------------------------------------
 * Gaussian and special
 * ------------------------------------------------------------------------ */

static int spec_iter_of(const struct sb_rand *r)
{
    int n = r->params ? r->params->spec_iter : 12;

    return n < 1 ? 1 : n;
}

/* Irwin-Hall: the mean of several uniform draws approaches a normal
 * distribution centred on the middle of the range, which is what sysbench
 * calls "gaussian". Averaging fractions rather than integers keeps the sum
 * from overflowing on 64-bit ranges. */
static uint64_t gaussian_offset(struct sb_rand *r, uint64_t span)
{
    int iter = spec_iter_of(r);
    double sum = 0.0;
    int i;

    for (i = 0; i < iter; i++)
        sum += sb_rand_next_double(r);
    return scale_fraction(sum / iter, span);
}

int64_t sb_rand_next_gaussian(struct sb_rand *r, int64_t a, int64_t b)
{
    uint64_t span = range_of(&a, &b);

    if (span == 0)
        return a;
    return offset_from(a, gaussian_offset(r, span));
}

/*
 * The special values are spec_pct% of the range (at least one value) centred
 * on its middle, as in sysbench 1.0, so they sit where gaussian draws also
 * gather; each is equally likely.
 */
static uint64_t special_hot_offset(struct sb_rand *r, uint64_t span, double pct)
{
    double width, lo;
    uint64_t nspan, first;

    if (!(pct > 0.0))
        pct = 0.0;
    else if (pct > 100.0)
        pct = 100.0;
    width = (double)span * pct / 100.0;
    lo = (double)span / 2.0 - width / 2.0;
    first = lo > 0.0 ? (uint64_t)lo : 0;
    if (first > span)
        first = span;
    /* (double)span may round up to 2^64, which must not be converted. */
    nspan = width >= 18446744073709551616.0 ? span : (uint64_t)width;
    if (nspan > span - first)
        nspan = span - first;
    return first + rand_upto(r, nspan);
}

int64_t sb_rand_next_special(struct sb_rand *r, int64_t a, int64_t b)
{
    uint64_t span = range_of(&a, &b);
    double pct = r->params ? r->params->spec_pct : 1.0;
    double res = r->params ? r->params->spec_res : 75.0;

    if (span == 0)
        return a;
    if (sb_rand_next_double(r) * 100.0 < res)
        return offset_from(a, special_hot_offset(r, span, pct));
    return offset_from(a, gaussian_offset(r, span));
}

/* ------------------------------------------------------------------------
 * Pareto
 * ------------------------------------------------------------------------ */

int64_t sb_rand_next_pareto(struct sb_rand *r, int64_t a, int64_t b)
{
    uint64_t span = range_of(&a, &b);
    double h = r->params ? r->params->pareto_h : 0.2;
    double power;

    if (span == 0)
        return a;
    /* h outside (0, 1) has no meaning for the formula (log of a
     * non-positive number); clamping keeps the output a valid, if extreme,
     * distribution instead of NaN. */
    if (!(h >= 1e-6))
        h = 1e-6;
    else if (h > 1.0 - 1e-6)
        h = 1.0 - 1e-6;
    power = log(h) / log(1.0 - h);
    return offset_from(a, scale_fraction(pow(sb_rand_next_double(r), power),
                                         span));
}

/* ------------------------------------------------------------------------
 * Zipfian
 *
 * For theta < 1 this is the method of Gray et al., "Quickly generating
 * billion-record synthetic databases" (SIGMOD 1994): one uniform draw and
 * one pow() per value, given zeta(n, theta) computed once per range. That
 * method divides by 1 - theta, so for theta >= 1 the Hormann-Derflinger
 * rejection-inversion method is used instead (its expected number of
 * iterations is close to 1). The two methods cache different constants in
 * the same fields; the comments at each use say which.
 * ------------------------------------------------------------------------ */

/*
 * zeta(n, theta) = sum_{i=1..n} i^-theta. Summing n terms would make huge
 * ranges impossible, so after SB_ZETA_EXACT_TERMS the remainder is the
 * integral of x^-theta over [K + 1/2, n + 1/2] (the midpoint rule, whose
 * error there is about theta/24 * K^(-theta-1)).
 */
static double zeta(double n, double theta)
{
    double sum = 0.0;
    double k = n < SB_ZETA_EXACT_TERMS ? n : SB_ZETA_EXACT_TERMS;
    double i;

    for (i = 1.0; i <= k; i += 1.0)
        sum += pow(i, -theta);
    if (n > k) {
        double e = 1.0 - theta;

        sum += (pow(n + 0.5, e) - pow(k + 0.5, e)) / e;
    }
    return sum;
}

/* expm1(x)/x and log1p(x)/x, which tend to 1 at x = 0; the series forms
 * avoid 0/0 when theta is exactly 1. */
static double expm1_over_x(double x)
{
    return fabs(x) > 1e-8 ? expm1(x) / x : 1.0 + x * 0.5;
}

static double log1p_over_x(double x)
{
    return fabs(x) > 1e-8 ? log1p(x) / x : 1.0 - x * 0.5;
}

/* H(x) = integral from 1 to x of t^-theta dt, written so theta = 1 works. */
static double ri_H(double x, double theta)
{
    double lx = log(x);

    return lx * expm1_over_x((1.0 - theta) * lx);
}

/* The inverse of ri_H. */
static double ri_Hinv(double y, double theta)
{
    double t = y * (1.0 - theta);

    /* Rounding can push t just below -1, where log1p is undefined. */
    if (t < -1.0 + 1e-15)
        t = -1.0 + 1e-15;
    return exp(log1p_over_x(t) * y);
}

static double ri_h(double x, double theta)
{
    return exp(-theta * log(x));
}

static void zipf_prepare(struct sb_rand *r, uint64_t span, double theta)
{
    double n = (double)span + 1.0;

    r->zipf_n = span;
    r->zipf_theta = theta;
    if (theta < 1.0) {
        r->zipf_zetan = zeta(n, theta);
        r->zipf_zeta2 = 1.0 + pow(0.5, theta);
        r->zipf_alpha = 1.0 / (1.0 - theta);
        /* For n <= 2 every draw is resolved by the two explicit cases in
         * sb_rand_next_zipfian, and the general formula would be 0/0. */
        if (span >= 2)
            r->zipf_eta = (1.0 - pow(2.0 / n, 1.0 - theta)) /
                          (1.0 - r->zipf_zeta2 / r->zipf_zetan);
        else
            r->zipf_eta = 0.0;
    } else {
        /* Rejection-inversion: zetan holds H(n + 1/2), zeta2 holds
         * H(3/2) - h(1), and eta holds the acceptance shortcut s. */
        r->zipf_zetan = ri_H(n + 0.5, theta);
        r->zipf_zeta2 = ri_H(1.5, theta) - 1.0;
        r->zipf_eta = 2.0 - ri_Hinv(ri_H(2.5, theta) - ri_h(2.0, theta), theta);
        r->zipf_alpha = 0.0;
    }
}

int64_t sb_rand_next_zipfian(struct sb_rand *r, int64_t a, int64_t b)
{
    uint64_t span = range_of(&a, &b);
    double theta = r->params ? r->params->zipf_exp : 0.8;
    double n, u;

    if (span == 0)
        return a;
    /* A negative exponent would favour large values, which no sysbench
     * option intends; zero is plain uniform. */
    if (!(theta > 0.0))
        theta = 0.0;
    if (r->zipf_n != span || r->zipf_theta != theta)
        zipf_prepare(r, span, theta);
    n = (double)span + 1.0;

    if (theta < 1.0) {
        double uz;

        u = sb_rand_next_double(r);
        uz = u * r->zipf_zetan;
        if (uz < 1.0)
            return a;
        if (uz < r->zipf_zeta2)
            return offset_from(a, 1);
        return offset_from(a, scale_fraction(
            pow(r->zipf_eta * u - r->zipf_eta + 1.0, r->zipf_alpha), span));
    }

    for (;;) {
        double x, k;

        u = r->zipf_zetan +
            sb_rand_next_double(r) * (r->zipf_zeta2 - r->zipf_zetan);
        x = ri_Hinv(u, theta);
        k = floor(x + 0.5);
        if (k < 1.0)
            k = 1.0;
        else if (k > n)
            k = n;
        if (k - x <= r->zipf_eta ||
            u >= ri_H(k + 0.5, theta) - ri_h(k, theta)) {
            /* k is in [1, n]; converting n itself could round past span. */
            uint64_t off = k >= n ? span : (uint64_t)k - 1;

            return offset_from(a, off > span ? span : off);
        }
    }
}

int64_t sb_rand_next_default(struct sb_rand *r, int64_t a, int64_t b)
{
    switch (r->params ? r->params->dist : SB_RAND_SPECIAL) {
    case SB_RAND_UNIFORM:
        return sb_rand_next_uniform(r, a, b);
    case SB_RAND_GAUSSIAN:
        return sb_rand_next_gaussian(r, a, b);
    case SB_RAND_PARETO:
        return sb_rand_next_pareto(r, a, b);
    case SB_RAND_ZIPFIAN:
        return sb_rand_next_zipfian(r, a, b);
    case SB_RAND_SPECIAL:
    default:
        return sb_rand_next_special(r, a, b);
    }
}

/*
 * sysbench 1.0's 32-bit rule: the range is the n = b - a + 1 values counted
 * upwards from a modulo 2^32 (so a > b wraps through 2^32 - 1 to 0); n = 0,
 * the whole 32-bit space, gives a, as in 1.0. special counts b - a values
 * from a (offsets 0 to b - a), as 1.0 does.
 */
uint32_t sb_rand_next_wrapped(struct sb_rand *r, enum sb_rand_dist d,
                              uint32_t a, uint32_t b)
{
    uint32_t n = b - a + 1;

    if (d == SB_RAND_SPECIAL)
        return a + (uint32_t)sb_rand_next_special(r, 0, (int64_t)(b - a));
    if (n == 0)
        return a;
    switch (d) {
    case SB_RAND_GAUSSIAN:
        return a + (uint32_t)sb_rand_next_gaussian(r, 0, (int64_t)n - 1);
    case SB_RAND_PARETO:
        return a + (uint32_t)sb_rand_next_pareto(r, 0, (int64_t)n - 1);
    case SB_RAND_ZIPFIAN:
        return a + (uint32_t)sb_rand_next_zipfian(r, 0, (int64_t)n - 1);
    case SB_RAND_UNIFORM:
    default:
        return a + (uint32_t)sb_rand_next_uniform(r, 0, (int64_t)n - 1);
    }
}

uint32_t sb_rand_next_wrapped_default(struct sb_rand *r, uint32_t a, uint32_t b)
{
    return sb_rand_next_wrapped(r, r->params ? r->params->dist : SB_RAND_SPECIAL,
                                a, b);
}

/* ------------------------------------------------------------------------
 * unique()
 * ------------------------------------------------------------------------ */

/*
 * x -> x^2 mod p for x <= p/2 and p - x^2 mod p above: for a prime p = 3
 * (mod 4) the two halves hit the residues and the non-residues exactly once
 * each, so this is a permutation of [0, p). The five 32-bit values at or
 * above p are left as they are, which keeps the map a permutation of all
 * 2^32 values.
 */
static uint32_t qr_permute(uint32_t x)
{
    uint32_t q;

    if (x >= SB_UNIQUE_PRIME)
        return x;
    q = (uint32_t)((uint64_t)x * x % SB_UNIQUE_PRIME);
    return x <= SB_UNIQUE_PRIME / 2 ? q : SB_UNIQUE_PRIME - q;
}

static uint32_t unique_at(const struct sb_rand *r, uint32_t i)
{
    /* A seed-dependent xor between the two rounds breaks up the arithmetic
     * structure a single quadratic map leaves in consecutive outputs. */
    uint32_t mask = r->unique_offset * 0x9e3779b9u + 0x5bf03635u;

    /* Every step (permute, add mod 2^32, xor, permute) is a bijection of the
     * 32-bit values, so 2^32 consecutive indexes give 2^32 distinct values. */
    return qr_permute((qr_permute(i) + r->unique_offset) ^ mask);
}

uint32_t sb_rand_next_unique(struct sb_rand *r)
{
    return unique_at(r, r->unique_index++);
}

uint32_t sb_rand_next_unique_shared(struct sb_rand *r)
{
    return unique_at(r, __atomic_fetch_add(&r->unique_index, 1, __ATOMIC_RELAXED));
}

/* ------------------------------------------------------------------------
 * Strings
 * ------------------------------------------------------------------------ */

/*
 * Hands out small random numbers several at a time from one 64-bit draw:
 * the draw is read as a fraction and its base-n digits are taken one by one
 * with a multiply. Eight digits of up to base 36 use about 41 bits, leaving
 * enough below them that the bias is under 1e-5.
 */
struct digit_pool {
    uint64_t frac;
    unsigned left;
};

static unsigned pool_digit(struct sb_rand *r, struct digit_pool *p, unsigned n)
{
    unsigned __int128 m;

    if (p->left == 0) {
        p->frac = sb_rand_next_u64(r);
        p->left = 8;
    }
    p->left--;
    m = (unsigned __int128)p->frac * n;
    p->frac = (uint64_t)m;
    return (unsigned)(m >> 64);
}

size_t sb_rand_next_string(struct sb_rand *r, const char *fmt, size_t fmt_len,
                      char *buf, size_t cap)
{
    struct digit_pool pool = { 0, 0 };
    size_t len, i;

    if (cap == 0)
        return 0;
    len = fmt_len < cap - 1 ? fmt_len : cap - 1;
    for (i = 0; i < len; i++) {
        char c = fmt[i];

        if (c == '#')
            c = (char)('0' + pool_digit(r, &pool, 10));
        else if (c == '@')
            c = (char)('a' + pool_digit(r, &pool, 26));
        buf[i] = c;
    }
    buf[len] = '\0';
    return len;
}

size_t sb_rand_next_varstring(struct sb_rand *r, size_t min, size_t max,
                         char *buf, size_t cap)
{
    static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    struct digit_pool pool = { 0, 0 };
    size_t len, i;

    if (cap == 0)
        return 0;
    if (min > max) {
        size_t t = min;

        min = max;
        max = t;
    }
    len = min + (size_t)rand_upto(r, (uint64_t)(max - min));
    /* The caller promises cap > max; truncating keeps a broken promise from
     * becoming a buffer overflow. */
    if (len > cap - 1)
        len = cap - 1;
    for (i = 0; i < len; i++)
        buf[i] = alphabet[pool_digit(r, &pool, 36)];
    buf[len] = '\0';
    return len;
}
