/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Statistics for repeats and verdicts; see sb_ci.h.
 *
 * The t distribution comes from the regularized incomplete beta function
 * (continued fraction, modified Lentz), its quantile from bisection on
 * the CDF: slow by numerical-library standards, but called a few dozen
 * times per report.
 */
#include "config.h"

#include "pure/sb_ci.h"

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
    s->median = s->min = s->max = s->mean = s->sd = s->lo = s->hi = s->gmean = NAN;
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

void sb_ci_summarize_log(const double *x, size_t n, struct sb_ci_summary *s)
{
    double sum = 0, ss = 0, m, h;
    size_t k = 0;

    sb_ci_summarize(x, n, s);
    s->lo = s->hi = NAN;
    if (s->n == 0 || !(s->min > 0) || !isfinite(s->max))
        return;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i])) {
            sum += log(x[i]);
            k++;
        }
    m = sum / (double)k;
    /* One value is its own geometric mean, exactly. */
    s->gmean = k == 1 ? s->min : exp(m);
    if (k < 2)
        return;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i]))
            ss += (log(x[i]) - m) * (log(x[i]) - m);
    h = sb_ci_t_quantile(0.5 + SB_CI_LEVEL / 2, (double)(k - 1)) * sqrt(ss / (double)(k - 1)) /
        sqrt((double)k);
    s->lo = exp(m - h);
    s->hi = exp(m + h);
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
    double ma, va, mb, vb, qa, qb;

    r->na = log_moments(a, na, &ma, &va);
    r->nb = log_moments(b, nb, &mb, &vb);
    r->ratio = r->lo = r->hi = r->df = r->d = r->se = r->p = NAN;
    r->level = SB_CI_LEVEL;
    if (r->na == 0 || r->nb == 0)
        return -1;
    r->d = mb - ma;
    r->ratio = exp(r->d);
    if (r->na < 2 || r->nb < 2)
        return -1;
    qa = va / (double)r->na;
    qb = vb / (double)r->nb;
    r->se = sqrt(qa + qb);
    if (r->se == 0) {
        /* Identical values on each side: an exact ratio. */
        r->df = (double)(r->na + r->nb - 2);
        r->p = r->d == 0 ? 1 : 0;
    } else {
        r->df = (qa + qb) * (qa + qb) /
                (qa * qa / (double)(r->na - 1) + qb * qb / (double)(r->nb - 1));
        r->p = 2 * (1 - sb_ci_t_cdf(fabs(r->d) / r->se, r->df));
    }
    sb_ci_ratio_at_level(r, SB_CI_LEVEL);
    return 0;
}

void sb_ci_ratio_hsu(struct sb_ci_ratio *r)
{
    if (isnan(r->se) || r->na < 2 || r->nb < 2)
        return;
    r->df = (double)((r->na < r->nb ? r->na : r->nb) - 1);
    if (r->se > 0)
        r->p = 2 * (1 - sb_ci_t_cdf(fabs(r->d) / r->se, r->df));
    sb_ci_ratio_at_level(r, r->level);
}

void sb_ci_ratio_at_level(struct sb_ci_ratio *r, double level)
{
    double t;

    if (isnan(r->se) || isnan(r->df) || !(level > 0 && level < 1))
        return;
    t = r->se > 0 ? sb_ci_t_quantile(0.5 + level / 2, r->df) : 0;
    r->level = level;
    r->lo = exp(r->d - t * r->se);
    r->hi = exp(r->d + t * r->se);
}

/* Points of the integration over the chi distribution (Simpson: odd). */
#define POWER_GRID 401

/*
 * P(T' > c) for T' noncentral t with df degrees of freedom and
 * noncentrality lambda: T' = (Z + lambda) / sqrt(V / df), V chi-square,
 * so P = E[Phi(lambda - c W / sqrt(df))] over W = sqrt(V), whose density
 * w^(df-1) e^(-w^2/2) / (2^(df/2-1) Gamma(df/2)) is smooth at 0 for any
 * df >= 1 (V itself is not, at df 1).
 */
static double noncentral_t_upper(double c, double df, double lambda)
{
    double top = sqrt(df + 12 * sqrt(2 * df) + 60), h = top / (POWER_GRID - 1), p = 0;
    double lognorm = (df / 2 - 1) * log(2.0) + lgamma(df / 2);

    for (int i = 0; i < POWER_GRID; i++) {
        double w = h * i, dens, wt = (i == 0 || i == POWER_GRID - 1) ? 1 : (i % 2 ? 4 : 2);
        if (w == 0) {
            dens = df == 1 ? exp(-lognorm) : 0;
        } else {
            dens = exp((df - 1) * log(w) - w * w / 2 - lognorm);
        }
        p += wt * dens * 0.5 * erfc(-(lambda - c * w / sqrt(df)) / M_SQRT2);
    }
    return p * h / 3;
}

double sb_ci_detectable(double se, double df, double level, double power)
{
    double c, lo = 0, hi = 1;

    if (!isfinite(se) || se < 0 || !(df > 0) || !(level > 0 && level < 1) ||
        !(power > 0 && power < 1))
        return NAN;
    /* The two-sided test's critical value; the far tail's chance of a
     * verdict in the wrong direction is left out (it is negligible at
     * any useful power). */
    c = sb_ci_t_quantile(0.5 + level / 2, df);
    while (noncentral_t_upper(c, df, hi) < power && hi < 1e6)
        hi *= 2;
    for (int i = 0; i < 60 && hi - lo > 1e-6 * hi; i++) {
        double mid = (lo + hi) / 2;
        if (noncentral_t_upper(c, df, mid) < power)
            lo = mid;
        else
            hi = mid;
    }
    return exp(hi * se) - 1;
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
