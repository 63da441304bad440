/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_USL_H
#define SB_USL_H

/*
 * The Universal Scalability Law (Neil J. Gunther, "Guerrilla Capacity
 * Planning", 2007) fitted to a thread sweep: throughput at N threads
 *
 *     X(N) = lambda * N / (1 + sigma * (N - 1) + kappa * N * (N - 1))
 *
 * with lambda the throughput of one thread without contention, sigma the
 * contention (the serialised share of the work) and kappa the coherency
 * cost (the crosstalk that makes throughput fall past a peak). The fit is
 * ordinary nonlinear least squares on the throughputs, unweighted, with
 * lambda, sigma and kappa constrained to be >= 0 (the R and Go "usl"
 * packages fit the same model; scipy's curve_fit with bounds solves the
 * same problem and is the test's independent check). The peak is at
 * N* = sqrt((1 - sigma) / kappa).
 *
 * Pure: no I/O, no allocation; the caller owns every array.
 */

#include <stdbool.h>
#include <stddef.h>

/* Fewest distinct thread counts a fit is made from (three parameters,
 * and one point to spare so that R^2 means something). */
#define SB_USL_MIN_POINTS 4
/* Most points one fit takes. */
#define SB_USL_MAX_POINTS 256

/* Below this R^2, or above this largest relative residual, a fit is poor:
 * the points do not follow the model closely enough for its peak to be
 * trusted. */
#define SB_USL_POOR_R2 0.9
#define SB_USL_POOR_RESIDUAL 0.15

/* Where the predicted peak lies against the thread counts measured. */
enum sb_usl_peak {
    SB_USL_PEAK_INSIDE,    /* within [min, max] of the threads measured */
    SB_USL_PEAK_ABOVE,     /* beyond the largest count measured: extrapolated */
    SB_USL_PEAK_BELOW,     /* below the smallest (sigma >= 1: one thread is best) */
    SB_USL_PEAK_NONE       /* kappa = 0: no peak, throughput levels off (or grows linearly) */
};

struct sb_usl_fit {
    size_t n;                  /* points fitted */
    double lambda, sigma, kappa;
    /* N* and X(N*). Without a peak (kappa 0): peak_threads is +inf and
     * peak_tps the limit lambda / sigma (+inf when sigma is 0 too). With
     * sigma >= 1 the best is one thread: peak_threads 1, peak_tps X(1). */
    double peak_threads, peak_tps;
    enum sb_usl_peak peak;
    double r2;                 /* 1 - SSE / total sum of squares */
    double max_rel_residual;   /* max |X_i - X(N_i)| / X_i */
    size_t worst;              /* index of that point */
    double worst_threads;      /* and its thread count */
    double sse;                /* the sum of squared residuals */
    double min_threads, max_threads; /* the range measured */
    bool poor;                 /* r2 or the largest residual past the limits above */
};

/*
 * Fits the model to the count points (threads[i], tps[i]): threads >= 1,
 * tps >= 0 and finite, at least SB_USL_MIN_POINTS distinct thread counts,
 * at most SB_USL_MAX_POINTS points. Fills fit and returns 0; returns -1
 * (fit untouched) when the points do not allow a fit.
 */
int sb_usl_fit(const double *threads, const double *tps, size_t count, struct sb_usl_fit *fit);

/* The fitted throughput at n threads. */
double sb_usl_eval(const struct sb_usl_fit *fit, double n);

#endif /* SB_USL_H */
