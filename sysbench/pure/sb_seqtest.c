/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The statistics of an A/B comparison in rounds; see sb_seqtest.h.
 */
#include "config.h"

#include "pure/sb_seqtest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pure/sb_ci.h"
#include "pure/sb_rand.h"

/* The grid covers the score's density to this many standard deviations
 * (the mass beyond is below 1e-16). */
#define TAIL_SD 8.5
/* Points of the grid at least (odd: Simpson's rule). */
#define GRID_MIN 401
/* ... and at most, whatever the spacing of the looks. */
#define GRID_MAX 20001
/* Grid points per standard deviation of an increment, at least. */
#define PER_STEP_SD 6.0
/* Boundaries above this are "never": the tail mass is below 1e-300. */
#define C_MAX 37.0

double sb_seq_norm_cdf(double z)
{
    return 0.5 * erfc(-z / M_SQRT2);
}

double sb_seq_norm_quantile(double p)
{
    double lo = -C_MAX - 2, hi = C_MAX + 2;

    if (!(p > 0 && p < 1))
        return NAN;
    /* Bisection on erfc, exact in both tails (1 - p never appears). */
    for (int i = 0; i < 200 && hi - lo > 1e-13 * (1 + fabs(lo)); i++) {
        double mid = (lo + hi) / 2;
        if (sb_seq_norm_cdf(mid) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

double sb_seq_spent(double alpha, double t)
{
    double q;

    if (!(t > 0))
        return 0;
    if (t >= 1)
        return alpha;
    /* Each side spends alpha/2 by 2 - 2 Phi(q / sqrt(t)), q the
     * 1 - alpha/4 quantile; written as erfc, so that early looks' tiny
     * values do not vanish in 1 - Phi. */
    q = -sb_seq_norm_quantile(alpha / 4);
    return 2 * erfc(q / sqrt(t) / M_SQRT2);
}

void sb_seq_design_init(struct sb_seq_design *d, double alpha)
{
    memset(d, 0, sizeof(*d));
    d->alpha = alpha;
}

void sb_seq_design_free(struct sb_seq_design *d)
{
    free(d->g);
    d->g = NULL;
    d->ngrid = 0;
}

static double npdf(double z)
{
    return exp(-0.5 * z * z) / sqrt(2 * M_PI);
}

/* Simpson's weight of point j of an n-point grid of spacing h. */
static double simpson(size_t j, size_t n, double h)
{
    if (j == 0 || j == n - 1)
        return h / 3;
    return (j % 2 ? 4 : 2) * h / 3;
}

static double grid_x(const struct sb_seq_design *d, size_t j)
{
    return -d->w + 2 * d->w * (double)j / (double)(d->ngrid - 1);
}

/* An odd point count for [-w, w] whose spacing is at most step. */
static size_t grid_points(double w, double step)
{
    double want = 2 * w / step + 1;
    size_t n = want > GRID_MAX ? GRID_MAX : (size_t)ceil(want);

    if (n < GRID_MIN)
        n = GRID_MIN;
    return n | 1;
}

/* The density at x, linear between grid points, 0 outside. */
static double density_at(const struct sb_seq_design *d, double x)
{
    double pos, frac;
    size_t j;

    if (d->ngrid < 2 || x < -d->w || x > d->w)
        return 0;
    pos = (x + d->w) / (2 * d->w) * (double)(d->ngrid - 1);
    j = (size_t)pos;
    if (j >= d->ngrid - 1)
        return d->g[d->ngrid - 1];
    frac = pos - (double)j;
    return d->g[j] * (1 - frac) + d->g[j + 1] * frac;
}

/* Puts the density on a grid fine enough for increments of standard
 * deviation sd, by linear interpolation. Returns 0, or -1 out of memory. */
static int refine(struct sb_seq_design *d, double sd)
{
    size_t n = grid_points(d->w, sd / PER_STEP_SD);
    struct sb_seq_design fine = *d;
    double *g;

    if (n <= d->ngrid)
        return 0;
    if ((g = malloc(n * sizeof(*g))) == NULL)
        return -1;
    fine.ngrid = n;
    for (size_t j = 0; j < n; j++)
        g[j] = density_at(d, grid_x(&fine, j));
    free(d->g);
    d->g = g;
    d->ngrid = n;
    return 0;
}

/* The probability that a path still going crosses |S| >= b at the next
 * look, the increment having standard deviation sd. */
static double crossing(const struct sb_seq_design *d, double b, double sd)
{
    double h = 2 * d->w / (double)(d->ngrid - 1), p = 0;

    for (size_t j = 0; j < d->ngrid; j++) {
        double u = grid_x(d, j);
        double q = sb_seq_norm_cdf((-b - u) / sd) + sb_seq_norm_cdf((u - b) / sd);
        p += simpson(j, d->ngrid, h) * d->g[j] * q;
    }
    return p;
}

/* The boundary (standard normal scale, at information t) whose crossing
 * probability is target. */
static double solve_boundary(const struct sb_seq_design *d, double t, double sd, double target)
{
    double lo = 0, hi = C_MAX;

    if (!(target > 1e-300))
        return C_MAX;
    for (int i = 0; i < 80 && hi - lo > 1e-10; i++) {
        double mid = (lo + hi) / 2;
        if (crossing(d, mid * sqrt(t), sd) > target)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* Replaces the density by that of the paths that do not cross |S| >= b
 * at information t, the increment having standard deviation sd (sd 0:
 * the first look, from the start). Returns 0, or -1 out of memory. */
static int advance(struct sb_seq_design *d, double t, double b, double sd)
{
    struct sb_seq_design next = *d;
    double h;

    next.w = fmin(b, TAIL_SD * sqrt(t));
    next.ngrid = grid_points(next.w, sqrt(t) / 20);
    if ((next.g = malloc(next.ngrid * sizeof(*next.g))) == NULL)
        return -1;
    h = d->ngrid > 1 ? 2 * d->w / (double)(d->ngrid - 1) : 0;
    for (size_t i = 0; i < next.ngrid; i++) {
        double s = grid_x(&next, i), v = 0;
        if (sd == 0) {
            v = npdf(s / sqrt(t)) / sqrt(t);
        } else {
            for (size_t j = 0; j < d->ngrid; j++)
                v += simpson(j, d->ngrid, h) * d->g[j] * npdf((s - grid_x(d, j)) / sd) / sd;
        }
        next.g[i] = v;
    }
    free(d->g);
    d->g = next.g;
    d->ngrid = next.ngrid;
    d->w = next.w;
    return 0;
}

double sb_seq_design_look(struct sb_seq_design *d, double info, double tau, double *nominal)
{
    double target, c, sd;

    *nominal = NAN;
    if (d->final || !(tau > d->last_tau) || !(info > d->last_info) ||
        !(d->alpha > 0 && d->alpha < 1))
        return NAN;
    if (tau >= 1)
        tau = 1;
    target = sb_seq_spent(d->alpha, tau) - sb_seq_spent(d->alpha, d->last_tau);
    if (d->nlooks == 0) {
        c = target > 1e-300 ? -sb_seq_norm_quantile(target / 2) : C_MAX;
        if (!(c < C_MAX))
            c = C_MAX;
        sd = 0;
    } else {
        sd = sqrt(info - d->last_info);
        if (refine(d, sd) != 0)
            return NAN;
        c = solve_boundary(d, info, sd, target);
    }
    if (advance(d, info, c * sqrt(info), sd) != 0)
        return NAN;
    d->nlooks++;
    d->last_tau = tau;
    d->last_info = info;
    d->final = tau >= 1;
    *nominal = erfc(c / M_SQRT2);
    return c;
}

bool sb_seq_is_look(size_t n, size_t last, size_t nmax)
{
    if (n >= nmax)
        return n == nmax || last < nmax;
    if (n < SB_SEQ_MIN_ROUNDS)
        return false;
    /* A look too close before the final one would make the last step
     * tiny; the final look takes it instead. */
    if (n > SB_SEQ_EVERY_ROUND_UNTIL &&
        (double)nmax < SB_SEQ_LOOK_GROWTH * (double)n)
        return false;
    return n <= SB_SEQ_EVERY_ROUND_UNTIL || (double)n >= SB_SEQ_LOOK_GROWTH * (double)last;
}

int sb_seq_estimate(const double *x, const bool *a_first, size_t n, struct sb_seq_est *e)
{
    double sum[2] = {0, 0}, mean[2], rss = 0, s2;
    size_t cnt[2] = {0, 0};

    memset(e, 0, sizeof(*e));
    e->d = e->se = e->df = e->bias = e->bias_se = NAN;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) {
            sum[a_first[i] ? 1 : 0] += x[i];
            cnt[a_first[i] ? 1 : 0]++;
        }
    e->n = cnt[0] + cnt[1];
    e->n_first = cnt[1];
    if (e->n > 0)
        e->d = (sum[0] + sum[1]) / (double)e->n;
    if (e->n < 3 || cnt[0] == 0 || cnt[1] == 0)
        return -1;
    mean[0] = sum[0] / (double)cnt[0];
    mean[1] = sum[1] / (double)cnt[1];
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) {
            double r = x[i] - mean[a_first[i] ? 1 : 0];
            rss += r * r;
        }
    e->df = (double)(e->n - 2);
    s2 = rss / e->df;
    /* Both orders weigh alike, however many rounds each had. */
    e->d = (mean[0] + mean[1]) / 2;
    e->bias = (mean[1] - mean[0]) / 2;
    e->se = e->bias_se = 0.5 * sqrt(s2 * (1 / (double)cnt[0] + 1 / (double)cnt[1]));
    return 0;
}

double sb_seq_detectable(const struct sb_seq_est *e, double nominal, double widen)
{
    if (!(widen >= 1))
        widen = 1;
    return widen * (1 + sb_ci_detectable(e->se, e->df, 1 - nominal, SB_SEQ_POWER)) - 1;
}

void sb_seq_decide(const struct sb_seq_est *e, double nominal, double widen, double margin,
                   bool final, struct sb_seq_decision *out)
{
    double tc;

    memset(out, 0, sizeof(*out));
    out->ratio = exp(e->d);
    out->level = 1 - nominal;
    out->lo = out->hi = out->detectable = NAN;
    out->v = final ? SB_SEQ_INCONCLUSIVE : SB_SEQ_CONTINUE;
    if (!isfinite(e->se) || !isfinite(e->df) || !(nominal > 0 && nominal < 1))
        return;
    if (!(widen >= 1))
        widen = 1;
    tc = e->se > 0 ? sb_ci_t_quantile(1 - nominal / 2, e->df) : 0;
    out->lo = exp(e->d - tc * e->se) / widen;
    out->hi = exp(e->d + tc * e->se) * widen;
    if (out->lo > 1 || out->hi < 1)
        out->v = SB_SEQ_DIFFERENT;
    else if (margin > 0 && out->lo >= 1 / (1 + margin) && out->hi <= 1 + margin)
        out->v = SB_SEQ_EQUIVALENT;
}

/* ------------------------------------------------------------ calibration */

/* The looks of a plan of nmax rounds and, for a spending total alpha,
 * each look's critical t. Returns the number of looks, 0 out of memory. */
static size_t plan_looks(size_t nmax, double alpha, size_t *round, double *crit)
{
    struct sb_seq_design d;
    size_t nl = 0, last = 0;
    double nominal;

    sb_seq_design_init(&d, alpha);
    for (size_t n = 1; n <= nmax; n++) {
        if (!sb_seq_is_look(n, last, nmax))
            continue;
        if (isnan(sb_seq_design_look(&d, (double)n, (double)n / (double)nmax, &nominal))) {
            sb_seq_design_free(&d);
            return 0;
        }
        round[nl] = last = n;
        crit[nl++] = n > 2 ? sb_ci_t_quantile(1 - nominal / 2, (double)(n - 2)) : INFINITY;
    }
    sb_seq_design_free(&d);
    return nl;
}

static double std_normal(struct sb_rand *r)
{
    double u1 = sb_rand_next_double(r), u2 = sb_rand_next_double(r);

    return sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2);
}

/* Whether one simulated comparison of normal rounds (no difference,
 * orders alternating) crosses a look's critical t. */
static bool crosses(struct sb_rand *r, const size_t *round, const double *crit, size_t nl)
{
    double sum[2] = {0, 0}, ss[2] = {0, 0};
    size_t cnt[2] = {0, 0}, n = 0;

    for (size_t k = 0; k < nl; k++) {
        double m0, m1, rss, se;
        for (; n < round[k]; n++) {
            double x = std_normal(r);
            sum[n % 2] += x;
            ss[n % 2] += x * x;
            cnt[n % 2]++;
        }
        m0 = sum[0] / (double)cnt[0];
        m1 = sum[1] / (double)cnt[1];
        rss = ss[0] - sum[0] * m0 + ss[1] - sum[1] * m1;
        se = 0.5 * sqrt(rss / (double)(n - 2) * (1 / (double)cnt[0] + 1 / (double)cnt[1]));
        if (se > 0 && fabs((m0 + m1) / 2) / se >= crit[k])
            return true;
    }
    return false;
}

/* The simulated false-verdict rate of a spending total alpha. */
static double false_rate(size_t nmax, double alpha, size_t sims, uint64_t seed, size_t *round,
                         double *crit)
{
    struct sb_rand_params params;
    struct sb_rand r;
    size_t nl = plan_looks(nmax, alpha, round, crit), hits = 0;

    if (nl == 0)
        return NAN;
    sb_rand_params_default(&params);
    sb_rand_seed_stream(&r, seed, 0, &params);
    for (size_t s = 0; s < sims; s++)
        hits += crosses(&r, round, crit, nl);
    return (double)hits / (double)sims;
}

double sb_seq_calibrate(size_t nmax, double alpha, size_t sims, uint64_t seed)
{
    size_t *round = malloc((nmax + 1) * sizeof(*round));
    double *crit = malloc((nmax + 1) * sizeof(*crit));
    double lo = alpha / 2, hi = alpha, rate;
    size_t looks = 0, last = 0;

    for (size_t n = 1; n <= nmax; n++)
        if (sb_seq_is_look(n, last, nmax)) {
            looks++;
            last = n;
        }
    if (round == NULL || crit == NULL || looks <= 1 || sims == 0) {
        free(round);
        free(crit);
        return alpha;
    }
    rate = false_rate(nmax, alpha, sims, seed, round, crit);
    /* Only ever lowered: a procedure already at or under alpha keeps it. */
    if (!(rate > alpha))
        lo = alpha;
    for (int i = 0; i < 12 && hi - lo > alpha * 0.002; i++) {
        double mid = (lo + hi) / 2;
        if (false_rate(nmax, mid, sims, seed, round, crit) > alpha)
            hi = mid;
        else
            lo = mid;
    }
    free(round);
    free(crit);
    return lo;
}
