/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Universal Scalability Law fit; see sb_usl.h.
 *
 * For given sigma and kappa the model is linear in lambda, so a coarse
 * grid over (sigma, kappa) with lambda solved exactly finds the basin of
 * the least-squares minimum (the sum of squares has one basin in practice,
 * but a grid costs nothing at these sizes and cannot be fooled by a bad
 * start). Levenberg-Marquardt on all three parameters then polishes it,
 * with the bounds kept by an active set: a parameter at 0 whose gradient
 * points below 0 is held there. The minimum may lie on a face (kappa = 0
 * for a sweep that never turns down), so LM also starts from the best
 * point of each face, and the lowest sum of squares wins.
 */
#include "pure/sb_usl.h"

#include <math.h>
#include <string.h>

/* The points, the throughputs scaled to a maximum of 1 (the parameters'
 * scale then does not depend on the workload's). */
struct pts {
    const double *n;
    double x[SB_USL_MAX_POINTS];
    size_t count;
};

/* The model's shape for lambda = 1. */
static double shape(double n, double s, double k)
{
    return n / (1 + s * (n - 1) + k * n * (n - 1));
}

static double sse_of(const struct pts *p, const double th[3])
{
    double sse = 0;

    for (size_t i = 0; i < p->count; i++) {
        double r = th[0] * shape(p->n[i], th[1], th[2]) - p->x[i];
        sse += r * r;
    }
    return sse;
}

/* The best lambda for sigma and kappa (the model is linear in it), in
 * th[0]; returns the sum of squares. */
static double profile(const struct pts *p, double th[3])
{
    double xg = 0, gg = 0;

    for (size_t i = 0; i < p->count; i++) {
        double g = shape(p->n[i], th[1], th[2]);
        xg += p->x[i] * g;
        gg += g * g;
    }
    th[0] = gg > 0 && xg > 0 ? xg / gg : 0;
    return sse_of(p, th);
}

/* Solves a x = b for the m x m system (m <= 3) by Gaussian elimination
 * with partial pivoting. Returns -1 when singular. */
static int solve(double a[3][3], double b[3], size_t m, double x[3])
{
    for (size_t c = 0; c < m; c++) {
        size_t piv = c;
        for (size_t r = c + 1; r < m; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (!(fabs(a[piv][c]) > 0))
            return -1;
        if (piv != c) {
            for (size_t k = 0; k < m; k++) {
                double t = a[c][k];
                a[c][k] = a[piv][k];
                a[piv][k] = t;
            }
            double t = b[c];
            b[c] = b[piv];
            b[piv] = t;
        }
        for (size_t r = c + 1; r < m; r++) {
            double f = a[r][c] / a[c][c];
            for (size_t k = c; k < m; k++)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (size_t c = m; c-- > 0;) {
        double s = b[c];
        for (size_t k = c + 1; k < m; k++)
            s -= a[c][k] * x[k];
        x[c] = s / a[c][c];
    }
    return 0;
}

/* J^T J and J^T r at th (r = model - x). */
static void normal_eq(const struct pts *p, const double th[3], double a[3][3], double g[3])
{
    memset(a, 0, sizeof(double) * 9);
    memset(g, 0, sizeof(double) * 3);
    for (size_t i = 0; i < p->count; i++) {
        double n = p->n[i];
        double d = 1 + th[1] * (n - 1) + th[2] * n * (n - 1);
        double j[3] = {n / d, -th[0] * n * (n - 1) / (d * d), -th[0] * n * n * (n - 1) / (d * d)};
        double r = th[0] * n / d - p->x[i];
        for (int u = 0; u < 3; u++) {
            g[u] += j[u] * r;
            for (int v = 0; v < 3; v++)
                a[u][v] += j[u] * j[v];
        }
    }
}

/* One damped step over the free parameters (free: not held at 0) into
 * out, clamped to the bounds. Returns -1 when the system is singular. */
static int lm_step(const double th[3], double a[3][3], const double g[3], double mu,
                   double out[3])
{
    size_t idx[3], m = 0;
    double sa[3][3], sb[3], d[3];

    for (size_t u = 0; u < 3; u++)
        if (!(th[u] <= 0 && g[u] > 0))
            idx[m++] = u;
    if (m == 0)
        return -1;
    for (size_t r = 0; r < m; r++) {
        for (size_t c = 0; c < m; c++)
            sa[r][c] = a[idx[r]][idx[c]];
        /* Marquardt's scaling by the diagonal; a floor keeps a parameter
         * the points do not constrain from making the system singular. */
        sa[r][r] += mu * fmax(a[idx[r]][idx[r]], 1e-300);
        sb[r] = -g[idx[r]];
    }
    if (solve(sa, sb, m, d) != 0)
        return -1;
    memcpy(out, th, 3 * sizeof(double));
    for (size_t r = 0; r < m; r++)
        out[idx[r]] = fmax(0, th[idx[r]] + d[r]);
    return 0;
}

/* Levenberg-Marquardt from th (updated in place); returns its sum of
 * squares. Stops when a step no longer lowers it by a relative 1e-15 or
 * the damping grows past any use. */
static double lm(const struct pts *p, double th[3])
{
    double sse = sse_of(p, th), mu = 1e-3;

    for (int it = 0; it < 2000 && mu < 1e16; it++) {
        double a[3][3], g[3], cand[3], s;
        normal_eq(p, th, a, g);
        if (lm_step(th, a, g, mu, cand) != 0) {
            mu *= 10;
            continue;
        }
        s = sse_of(p, cand);
        if (s < sse) {
            bool done = sse - s <= 1e-15 * sse;
            memcpy(th, cand, sizeof(cand));
            sse = s;
            mu = fmax(mu / 10, 1e-15);
            if (done)
                break;
        } else {
            mu *= 10;
        }
    }
    return sse;
}

/* The grid: sigma 0 and 10^-6 .. 10^1, kappa 0 and 10^-10 .. 10^0, an
 * eighth of a decade apart. Fills the best interior point and the best
 * of each face (sigma = 0, kappa = 0). */
static void grid(const struct pts *p, double best[3][3])
{
    double bs[3] = {INFINITY, INFINITY, INFINITY};

    for (int i = -1; i <= 56; i++)
        for (int k = -1; k <= 80; k++) {
            double th[3] = {0, i < 0 ? 0 : pow(10, -6 + i / 8.0),
                            k < 0 ? 0 : pow(10, -10 + k / 8.0)};
            double s = profile(p, th);
            int which = i < 0 ? 1 : k < 0 ? 2 : 0;
            if (s < bs[which]) {
                bs[which] = s;
                memcpy(best[which], th, sizeof(th));
            }
            if (which != 0 && s < bs[0]) {
                bs[0] = s;
                memcpy(best[0], th, sizeof(th));
            }
        }
}

double sb_usl_eval(const struct sb_usl_fit *fit, double n)
{
    return fit->lambda * shape(n, fit->sigma, fit->kappa);
}

/* N* and X(N*), and where N* lies against the range measured. */
static void peak(struct sb_usl_fit *f)
{
    if (f->sigma >= 1 || (f->kappa > 0 && (1 - f->sigma) / f->kappa < 1)) {
        f->peak_threads = 1;
        f->peak_tps = sb_usl_eval(f, 1);
    } else if (f->kappa > 0) {
        f->peak_threads = sqrt((1 - f->sigma) / f->kappa);
        f->peak_tps = sb_usl_eval(f, f->peak_threads);
    } else {
        f->peak_threads = INFINITY;
        f->peak_tps = f->sigma > 0 ? f->lambda / f->sigma : INFINITY;
        f->peak = SB_USL_PEAK_NONE;
        return;
    }
    f->peak = f->peak_threads > f->max_threads   ? SB_USL_PEAK_ABOVE
              : f->peak_threads < f->min_threads ? SB_USL_PEAK_BELOW
                                                 : SB_USL_PEAK_INSIDE;
}

/* R^2 and the largest relative residual, from the unscaled points. */
static void goodness(struct sb_usl_fit *f, const double *threads, const double *tps, size_t count)
{
    double mean = 0, sst = 0, sse = 0;

    for (size_t i = 0; i < count; i++)
        mean += tps[i] / (double)count;
    f->max_rel_residual = 0;
    f->worst = 0;
    for (size_t i = 0; i < count; i++) {
        double r = tps[i] - sb_usl_eval(f, threads[i]);
        double rel = fabs(r) / tps[i];
        sse += r * r;
        sst += (tps[i] - mean) * (tps[i] - mean);
        if (rel > f->max_rel_residual) {
            f->max_rel_residual = rel;
            f->worst = i;
        }
    }
    f->worst_threads = threads[f->worst];
    f->sse = sse;
    f->r2 = sst > 0 ? 1 - sse / sst : sse == 0 ? 1 : 0;
    f->poor = f->r2 < SB_USL_POOR_R2 || f->max_rel_residual > SB_USL_POOR_RESIDUAL;
}

/* Whether the points allow a fit: valid values, enough distinct counts. */
static bool usable(const double *threads, const double *tps, size_t count)
{
    size_t distinct = 0;

    if (count < SB_USL_MIN_POINTS || count > SB_USL_MAX_POINTS)
        return false;
    for (size_t i = 0; i < count; i++) {
        bool seen = false;
        if (!(threads[i] >= 1 && isfinite(threads[i]) && tps[i] > 0 && isfinite(tps[i])))
            return false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = threads[j] == threads[i];
        distinct += !seen;
    }
    return distinct >= SB_USL_MIN_POINTS;
}

int sb_usl_fit(const double *threads, const double *tps, size_t count, struct sb_usl_fit *fit)
{
    struct pts p = {.n = threads, .count = count};
    double scale = 0, start[3][3], best[3] = {0, 0, 0}, best_sse = INFINITY;

    if (!usable(threads, tps, count))
        return -1;
    for (size_t i = 0; i < count; i++)
        scale = fmax(scale, tps[i]);
    for (size_t i = 0; i < count; i++)
        p.x[i] = tps[i] / scale;
    grid(&p, start);
    for (int c = 0; c < 3; c++) {
        double s = lm(&p, start[c]);
        if (s < best_sse) {
            best_sse = s;
            memcpy(best, start[c], sizeof(best));
        }
    }
    memset(fit, 0, sizeof(*fit));
    fit->n = count;
    fit->lambda = best[0] * scale;
    fit->sigma = best[1];
    fit->kappa = best[2];
    fit->min_threads = fit->max_threads = threads[0];
    for (size_t i = 1; i < count; i++) {
        fit->min_threads = fmin(fit->min_threads, threads[i]);
        fit->max_threads = fmax(fit->max_threads, threads[i]);
    }
    peak(fit);
    goodness(fit, threads, tps, count);
    return 0;
}
