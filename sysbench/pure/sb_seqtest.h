/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_SEQTEST_H
#define SB_SEQTEST_H

/*
 * The statistics of an A/B comparison run in rounds (sysbench ab): each
 * round gives one ratio B/A of a figure, measured with both targets under
 * the same conditions (side by side, or one right after the other), and
 * the comparison looks at the ratios after rounds and stops as soon as
 * they decide, without raising the chance of a false verdict above alpha.
 *
 * - The estimate (sb_seq_estimate) is paired: it works on the per-round
 *   logs of B/A, so that whatever both targets of a round shared (the
 *   load of other tenants, the time of day) cancels. Rounds alternate
 *   which target goes first (starts first, or runs first), and the order
 *   is a term of the model: x = d + b * order + noise. d, the change, is
 *   the mean of the two orders' means, so a position bias (the second of
 *   two side-by-side servers running faster) cancels exactly instead of
 *   widening the interval, and b is reported as the bias measured.
 *   Degrees of freedom: rounds - 2.
 *
 * - The looks (struct sb_seq_design) are those of a group-sequential
 *   test: alpha is spent over the information fraction t (rounds so far /
 *   the most rounds the budget allows) by the Lan-DeMets
 *   O'Brien-Fleming-type function, alpha/2 on each side by
 *   2 - 2 Phi(z(1 - alpha/4) / sqrt(t)) (Lan and DeMets, Biometrika 1983),
 *   which keeps early looks strict and the final one close to a single
 *   test at alpha. Each look's boundary is
 *   found by numerical integration of the statistic's path (Armitage,
 *   McPherson and Rowe's recursion), and taken to the t statistic of the
 *   look at the same nominal level (the "significance level" approach of
 *   Jennison and Turnbull, Group Sequential Methods, 2000, ch. 19).
 *
 * - A look decides (sb_seq_decide) with one interval, at the look's
 *   nominal level: it excludes "no change" (a difference), or lies within
 *   the equivalence margin (equivalent: two one-sided tests), or neither
 *   (continue; at the final look, inconclusive). With every verdict goes
 *   the detectable change: the smallest change the comparison had an 80%
 *   chance to find at its measured variation and round count.
 *
 * Pure: no I/O, no threads; the design allocates its integration grid.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The power behind the "detectable change". */
#define SB_SEQ_POWER 0.80
/* Rounds before the first look: the model needs two per order and one
 * degree of freedom more. */
#define SB_SEQ_MIN_ROUNDS 4
/* Looks after every round up to this one, then only after a round at
 * least SB_SEQ_LOOK_GROWTH times the previous look's (so that a long
 * budget has tens of looks, not hundreds, and the integration's steps
 * stay comparable). */
#define SB_SEQ_EVERY_ROUND_UNTIL 10
#define SB_SEQ_LOOK_GROWTH 1.1

/* The standard normal distribution function and its inverse (0 < p < 1;
 * NaN otherwise). */
double sb_seq_norm_cdf(double z);
double sb_seq_norm_quantile(double p);

/* The two-sided alpha the O'Brien-Fleming-type function has spent by
 * information fraction t (0 at 0 and below, alpha at 1 and above): twice
 * the one-sided 2 - 2 Phi(z(1 - alpha/4) / sqrt(t)). */
double sb_seq_spent(double alpha, double t);

/*
 * A group-sequential design built look by look. Owns its grid: free it
 * with sb_seq_design_free. Zero-initialised fields are not valid; call
 * sb_seq_design_init.
 */
struct sb_seq_design {
    double alpha;         /* two-sided, over all looks */
    size_t nlooks;
    double last_tau;      /* spending fraction of the last look */
    double last_info;     /* information of the last look */
    bool final;           /* the look at tau = 1 was taken */
    /* The sub-density of the score S (variance info) over the paths that
     * crossed no boundary so far, at ngrid equally spaced points of
     * [-w, w]; linear in between, 0 outside. */
    double *g;
    size_t ngrid;
    double w;
};

/* Starts a design spending alpha (0 < alpha < 1). */
void sb_seq_design_init(struct sb_seq_design *d, double alpha);

/* Frees the grid; the design may be initialised again. */
void sb_seq_design_free(struct sb_seq_design *d);

/*
 * Takes the next look, with information info (the rounds so far: the
 * statistic's variance grows with it) and spending fraction tau (the
 * share of the planned rounds done; tau >= 1 is the final look, which
 * spends all that is left, also when the budget ends before the plan).
 * Both must be above the previous look's. Returns the boundary c on the
 * standard normal scale (a two-sided test rejects at |Z| >= c) and sets
 * *nominal to its two-sided nominal level, 2 (1 - Phi(c)). Returns NaN
 * without taking a look for values not above the previous ones, a look
 * after the final one, or when memory runs out.
 */
double sb_seq_design_look(struct sb_seq_design *d, double info, double tau, double *nominal);

/*
 * The alpha to give sb_seq_design_init so that the whole procedure (the
 * looks of sb_seq_is_look for a plan of nmax rounds, each look's t
 * statistic with n - 2 degrees of freedom held against its nominal
 * level) calls a difference with probability alpha when the rounds are
 * normal and nothing differs. Holding t statistics against boundaries
 * computed for known variance overshoots alpha a little (5.4% to 6% for
 * 5% at 5 to 30 rounds), so the spending total is lowered until a
 * simulation of the procedure (`sims` comparisons from `seed`, the same
 * draws for every candidate, so the search is monotone and the result
 * repeatable) gives alpha. A plan with one look needs no correction.
 * Returns the corrected alpha, or alpha itself when memory runs out.
 */
double sb_seq_calibrate(size_t nmax, double alpha, size_t sims, uint64_t seed);

/*
 * Whether a comparison that allows at most nmax rounds looks after round
 * n (from 1), the previous look having been after round last (0: none):
 * from SB_SEQ_MIN_ROUNDS on, after each round up to
 * SB_SEQ_EVERY_ROUND_UNTIL, then once a round reaches SB_SEQ_LOOK_GROWTH
 * times last, and after round nmax.
 */
bool sb_seq_is_look(size_t n, size_t last, size_t nmax);

/* The paired estimate of the log ratio over rounds. */
struct sb_seq_est {
    size_t n;             /* rounds used */
    size_t n_first;       /* ... in which A went first */
    double d;             /* estimated log(B/A), position bias removed */
    double se;            /* its standard error */
    double df;            /* degrees of freedom of se: n - 2 */
    double bias;          /* log-ratio shift when A goes first: half the
                             difference of the two orders' means */
    double bias_se;
};

/*
 * Estimates from x[i] = log(B/A) of round i and a_first[i], whether A
 * went first in it; rounds with a non-finite x are skipped. Returns 0, or
 * -1 (e->n still set) when fewer than 3 rounds are usable or one order
 * has none.
 */
int sb_seq_estimate(const double *x, const bool *a_first, size_t n, struct sb_seq_est *e);

/* What a look decides. */
enum sb_seq_verdict {
    SB_SEQ_CONTINUE = 0,  /* not yet: more rounds may decide */
    SB_SEQ_DIFFERENT,     /* the interval excludes no change */
    SB_SEQ_EQUIVALENT,    /* the interval lies within the margin */
    SB_SEQ_INCONCLUSIVE   /* the final look, and neither */
};

struct sb_seq_decision {
    enum sb_seq_verdict v;
    double level;         /* of the interval: 1 - nominal */
    double ratio;         /* exp(d) */
    double lo, hi;        /* the interval of the ratio */
    double detectable;    /* NaN: sb_seq_detectable computes it, which
                             costs an integration */
};

/*
 * Decides at a look of nominal level `nominal` (from
 * sb_seq_design_look): the interval exp(d -+ t(1 - nominal/2, df) se),
 * widened by the factor `widen` (>= 1) on each side for figures whose
 * values are only known to that resolution (histogram buckets; 1 for
 * none), against no change and against the margin (a fraction: ratio
 * within [1/(1+margin), 1+margin]; 0 or NaN: no equivalence verdict).
 * final says no more rounds will come (CONTINUE becomes INCONCLUSIVE).
 * An estimate without an interval (se NaN) gives CONTINUE, or
 * INCONCLUSIVE when final, with NaN bounds.
 */
void sb_seq_decide(const struct sb_seq_est *e, double nominal, double widen, double margin,
                   bool final, struct sb_seq_decision *out);

/*
 * The smallest change (a fraction: 0.034 = 3.4%) a look of nominal level
 * `nominal` on estimate e finds with probability SB_SEQ_POWER, the
 * interval widened by `widen` as sb_seq_decide widens it; NaN when e has
 * no interval.
 */
double sb_seq_detectable(const struct sb_seq_est *e, double nominal, double widen);

#endif /* SB_SEQTEST_H */
