#ifndef SB_CI_H
#define SB_CI_H

/*
 * Small-sample statistics for repeated runs and for compare's verdicts:
 * the median, spread and 95% confidence interval of a set of repeats, the
 * ratio of two sets with its confidence interval (Welch's t test on the
 * logarithms of the values), batch means of an autocorrelated interval
 * series, and the verdict a direction (higher or lower is better) gives.
 * Pure functions: no allocation beyond what is stated, no I/O.
 */

#include <stdbool.h>
#include <stddef.h>

/* The confidence level of every interval here. */
#define SB_CI_LEVEL 0.95

/* Summary of n values (NaN values are ignored). */
struct sb_ci_summary {
    size_t n;                 /* values used */
    double median, min, max;  /* NaN when n == 0 */
    double mean, sd;          /* sd NaN when n < 2 */
    double lo, hi;            /* 95% CI of the mean (Student t); NaN when n < 2 */
};

/* Summarizes x[0..n). Sorts a heap copy of x for the median; when memory
 * runs out the median is NaN and the rest is still set. */
void sb_ci_summarize(const double *x, size_t n, struct sb_ci_summary *s);

/* The p-quantile (0 < p < 1) of Student's t distribution with df > 0
 * degrees of freedom (df may be fractional); NaN for bad arguments. */
double sb_ci_t_quantile(double p, double df);

/* The two-sided CDF P(T <= t) of Student's t with df degrees of freedom. */
double sb_ci_t_cdf(double t, double df);

/* The ratio of sample b to sample a with its 95% interval. */
struct sb_ci_ratio {
    double ratio;             /* point estimate of b / a */
    double lo, hi;            /* 95% CI of the ratio; NaN when unknown */
    double df;                /* Welch-Satterthwaite degrees of freedom */
    size_t na, nb;            /* samples used from each side */
};

/*
 * Welch's t on log values: ratio = exp(mean(log b) - mean(log a)) (the
 * ratio of geometric means), interval exp(d +- t(0.975, df) * se) with
 * se = sqrt(var_a/na + var_b/nb) and the Welch-Satterthwaite df. Values
 * that are not positive and finite are skipped. Returns 0, or -1 when a
 * side has fewer than 2 usable values (r->ratio is then still set when
 * both sides have one, the interval NaN).
 */
int sb_ci_ratio_welch(const double *a, size_t na, const double *b, size_t nb,
                      struct sb_ci_ratio *r);

/*
 * Batch means of a series whose neighbours are correlated (per-interval
 * throughput): the series is cut into k equal batches of b consecutive
 * values (the tail that does not fill a batch is dropped), b doubling
 * from 1 while the lag-1 autocorrelation of the batch means is above 0.2
 * and at least 10 batches would remain. Writes the k means to out (room
 * for n values) and returns k (0 when n == 0). NaN values are skipped.
 */
size_t sb_ci_batch_means(const double *x, size_t n, double *out);

/* Lag-1 autocorrelation of x[0..n); 0 when n < 3 or constant. */
double sb_ci_autocorr1(const double *x, size_t n);

enum sb_ci_verdict {
    SB_CI_UNKNOWN = 0,        /* no interval */
    SB_CI_SAME,               /* interval contains 1 */
    SB_CI_BETTER,
    SB_CI_WORSE
};

/* The verdict of ratio r (b against a) for a figure where higher values
 * are better (throughput) or worse (latency, CPU). */
enum sb_ci_verdict sb_ci_judge(const struct sb_ci_ratio *r, bool higher_is_better);

/* "better", "worse", "no significant difference", "n/a". */
const char *sb_ci_verdict_name(enum sb_ci_verdict v);

#endif /* SB_CI_H */
