/*
 * Statistics for repeats and verdicts; see sb_ci.h.
 *
 * The t distribution comes from the regularized incomplete beta function
 * (continued fraction, modified Lentz), its quantile from bisection on
 * the CDF: slow by numerical-library standards, but called a few dozen
 * times per report.
 */
#include "config.h"

#include "sb_ci.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void sb_ci_summarize(const double *x, size_t n, struct sb_ci_summary *s)
{
    double *v = malloc((n ? n : 1) * sizeof(*v));
    double sum = 0, ss = 0;
    size_t m = 0;

    s->n = 0;
    s->median = s->min = s->max = s->mean = s->sd = s->lo = s->hi = NAN;
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]))
            continue;
        if (s->n == 0 || x[i] < s->min)
            s->min = x[i];
        if (s->n == 0 || x[i] > s->max)
            s->max = x[i];
        sum += x[i];
        s->n++;
        if (v != NULL)
            v[m++] = x[i];
    }
    if (s->n == 0) {
        free(v);
        return;
    }
    s->mean = sum / (double)s->n;
    if (v != NULL) {
        qsort(v, m, sizeof(*v), cmp_double);
        s->median = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
    }
    free(v);
    if (s->n < 2)
        return;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i]))
            ss += (x[i] - s->mean) * (x[i] - s->mean);
    s->sd = sqrt(ss / (double)(s->n - 1));
    {
        double h = sb_ci_t_quantile(0.5 + SB_CI_LEVEL / 2, (double)(s->n - 1)) * s->sd /
                   sqrt((double)s->n);
        s->lo = s->mean - h;
        s->hi = s->mean + h;
    }
}

/* Continued fraction of the incomplete beta function (Lentz). */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300, eps = 1e-14;
    double c = 1, d = 1 - (a + b) * x / (a + 1), h;

    if (fabs(d) < tiny)
        d = tiny;
    d = 1 / d;
    h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m, aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2)), del;
        d = 1 + aa * d;
        d = fabs(d) < tiny ? 1 / tiny : 1 / d;
        c = 1 + aa / c;
        if (fabs(c) < tiny)
            c = tiny;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + aa * d;
        d = fabs(d) < tiny ? 1 / tiny : 1 / d;
        c = 1 + aa / c;
        if (fabs(c) < tiny)
            c = tiny;
        del = d * c;
        h *= del;
        if (fabs(del - 1) < eps)
            break;
    }
    return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double inc_beta(double a, double b, double x)
{
    double front;

    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2))
        return front * beta_cf(a, b, x) / a;
    return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double sb_ci_t_cdf(double t, double df)
{
    double tail;

    if (!(df > 0) || isnan(t))
        return NAN;
    /* Near 0, df / (df + t^2) rounds to 1: use the complement's form. */
    if (t * t < df)
        tail = 0.5 * (1 - inc_beta(0.5, df / 2, t * t / (df + t * t)));
    else
        tail = 0.5 * inc_beta(df / 2, 0.5, df / (df + t * t));
    return t >= 0 ? 1 - tail : tail;
}

double sb_ci_t_quantile(double p, double df)
{
    double lo = -1e6, hi = 1e6;

    if (!(p > 0 && p < 1) || !(df > 0))
        return NAN;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * (1 + fabs(lo)); i++) {
        double mid = (lo + hi) / 2;
        if (sb_ci_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* Mean and variance of the logs of the usable values of x. */
static size_t log_moments(const double *x, size_t n, double *mean, double *var)
{
    double s = 0, ss = 0;
    size_t k = 0;

    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && x[i] > 0) {
            s += log(x[i]);
            k++;
        }
    *mean = k ? s / (double)k : NAN;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && x[i] > 0)
            ss += (log(x[i]) - *mean) * (log(x[i]) - *mean);
    *var = k > 1 ? ss / (double)(k - 1) : NAN;
    return k;
}

int sb_ci_ratio_welch(const double *a, size_t na, const double *b, size_t nb,
                      struct sb_ci_ratio *r)
{
    double ma, va, mb, vb, qa, qb, se, t;

    r->na = log_moments(a, na, &ma, &va);
    r->nb = log_moments(b, nb, &mb, &vb);
    r->ratio = r->lo = r->hi = r->df = NAN;
    if (r->na == 0 || r->nb == 0)
        return -1;
    r->ratio = exp(mb - ma);
    if (r->na < 2 || r->nb < 2)
        return -1;
    qa = va / (double)r->na;
    qb = vb / (double)r->nb;
    se = sqrt(qa + qb);
    if (se == 0) {
        /* Identical values on both sides: an exact ratio. */
        r->lo = r->hi = r->ratio;
        r->df = (double)(r->na + r->nb - 2);
        return 0;
    }
    r->df = (qa + qb) * (qa + qb) /
            (qa * qa / (double)(r->na - 1) + qb * qb / (double)(r->nb - 1));
    t = sb_ci_t_quantile(0.5 + SB_CI_LEVEL / 2, r->df);
    r->lo = exp(mb - ma - t * se);
    r->hi = exp(mb - ma + t * se);
    return 0;
}

double sb_ci_autocorr1(const double *x, size_t n)
{
    double mean = 0, num = 0, den = 0;

    if (n < 3)
        return 0;
    for (size_t i = 0; i < n; i++)
        mean += x[i];
    mean /= (double)n;
    for (size_t i = 0; i < n; i++) {
        den += (x[i] - mean) * (x[i] - mean);
        if (i + 1 < n)
            num += (x[i] - mean) * (x[i + 1] - mean);
    }
    return den > 0 ? num / den : 0;
}

/* Means of the batches of b consecutive values of x (n values, no NaN). */
static size_t batches_of(const double *x, size_t n, size_t b, double *out)
{
    size_t k = n / b;

    for (size_t i = 0; i < k; i++) {
        double s = 0;
        for (size_t j = 0; j < b; j++)
            s += x[i * b + j];
        out[i] = s / (double)b;
    }
    return k;
}

size_t sb_ci_batch_means(const double *x, size_t n, double *out)
{
    size_t m = 0, b = 1, k;

    /* out doubles as the compacted series: it has room for n values. */
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i]))
            out[m++] = x[i];
    if (m == 0)
        return 0;
    k = m;
    while (m / (2 * b) >= 10 && sb_ci_autocorr1(out, k) > 0.2) {
        /* Recompute from the compacted series: batching in place
         * would lose it, so batch from a copy. */
        double *copy = malloc(m * sizeof(*copy));
        size_t j = 0;
        if (copy == NULL)
            break;
        for (size_t i = 0; i < n; i++)
            if (!isnan(x[i]))
                copy[j++] = x[i];
        b *= 2;
        k = batches_of(copy, m, b, out);
        free(copy);
    }
    return k;
}

enum sb_ci_verdict sb_ci_judge(const struct sb_ci_ratio *r, bool higher_is_better)
{
    if (isnan(r->lo) || isnan(r->hi))
        return SB_CI_UNKNOWN;
    if (r->lo <= 1 && r->hi >= 1)
        return SB_CI_SAME;
    return (r->lo > 1) == higher_is_better ? SB_CI_BETTER : SB_CI_WORSE;
}

const char *sb_ci_verdict_name(enum sb_ci_verdict v)
{
    switch (v) {
    case SB_CI_SAME:
        return "no significant difference";
    case SB_CI_BETTER:
        return "better";
    case SB_CI_WORSE:
        return "worse";
    default:
        return "n/a";
    }
}
