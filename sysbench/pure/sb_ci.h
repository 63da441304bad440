/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_CI_H
#define SB_CI_H

/*
 * Small-sample statistics for repeated runs and for compare's verdicts:
 * the median, spread and 95% confidence interval of a set of repeats (of
 * the mean, or of the geometric mean for figures that are ratios to zero:
 * rates, times, CPU per transaction), the ratio of two sets with its
 * confidence interval and p-value (Welch's t test on the logarithms of the
 * values), and the verdict a direction (higher or lower is better) gives.
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
    double gmean;             /* geometric mean (sb_ci_summarize_log); else NaN */
};

/* Summarizes x[0..n). Sorts a heap copy of x for the median; when memory
 * runs out the median is NaN and the rest is still set. */
void sb_ci_summarize(const double *x, size_t n, struct sb_ci_summary *s);

/*
 * As sb_ci_summarize, but for a positive figure: gmean is the geometric
 * mean and [lo, hi] the 95% CI of it, exp(m +- t(0.975, n-1) s / sqrt(n))
 * with m and s the mean and standard deviation of the logs. The interval
 * is positive and a ratio's (a run twice as fast weighs as one half as
 * fast), where the mean's interval of two or three spread runs goes below
 * zero. When some value is not positive, gmean, lo and hi are NaN.
 */
void sb_ci_summarize_log(const double *x, size_t n, struct sb_ci_summary *s);

/* The p-quantile (0 < p < 1) of Student's t distribution with df > 0
 * degrees of freedom (df may be fractional); NaN for bad arguments. */
double sb_ci_t_quantile(double p, double df);

/* The two-sided CDF P(T <= t) of Student's t with df degrees of freedom. */
double sb_ci_t_cdf(double t, double df);

/* The ratio of sample b to sample a with its interval. */
struct sb_ci_ratio {
    double ratio;             /* point estimate of b / a */
    double lo, hi;            /* CI of the ratio at `level`; NaN when unknown */
    double level;             /* the interval's confidence level */
    double df;                /* Welch-Satterthwaite degrees of freedom */
    double d, se;             /* difference of the log means, its standard error */
    double p;                 /* two-sided p-value of "ratio = 1"; NaN when unknown */
    size_t na, nb;            /* samples used from each side */
};

/*
 * Welch's t on log values: ratio = exp(mean(log b) - mean(log a)) (the
 * ratio of geometric means), interval exp(d +- t(0.975, df) * se) with
 * se = sqrt(var_a/na + var_b/nb) and the Welch-Satterthwaite df, and the
 * p-value 2 P(T > |d| / se). Values that are not positive and finite are
 * skipped. Returns 0, or -1 when a side has fewer than 2 usable values
 * (r->ratio is then still set when both sides have one, the interval and
 * p NaN).
 */
int sb_ci_ratio_welch(const double *a, size_t na, const double *b, size_t nb,
                      struct sb_ci_ratio *r);

/*
 * Makes r conservative for few runs: df becomes min(na, nb) - 1 (Hsu's
 * choice, valid whatever the ratio of the two variances) instead of the
 * Welch-Satterthwaite estimate, which is itself computed from the sample
 * variances and too optimistic at 2 to 5 runs; p and the interval (at its
 * level) follow. Leaves r alone when it has no interval.
 */
void sb_ci_ratio_hsu(struct sb_ci_ratio *r);

/*
 * Sets r's interval to confidence level (0 < level < 1) from its d, se
 * and df, e.g. 1 - 0.05 / m for one of m intervals that must hold
 * together (Bonferroni). Leaves r alone when it has no interval.
 */
void sb_ci_ratio_at_level(struct sb_ci_ratio *r, double level);

/*
 * The smallest change a comparison with standard error se (of a log
 * ratio, df degrees of freedom) finds with probability power (e.g. 0.8)
 * by a two-sided t test whose interval is at confidence level `level`,
 * as a fraction (0.05 = 5%): exp(lambda se) - 1 with lambda the
 * noncentrality at which the noncentral t exceeds the critical value
 * with that probability (computed exactly, by integration, rather than
 * by the t(level) + t(power) rule, which overstates power at few
 * degrees of freedom). NaN for a se or df that is not usable.
 */
double sb_ci_detectable(double se, double df, double level, double power);

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
