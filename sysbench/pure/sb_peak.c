/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The --threads=auto search; see sb_peak.h. Every decision is taken again
 * from the table of counts measured so far (the best count and its
 * nearest measured neighbours), so a re-measurement that changes the best
 * simply moves the bracket.
 */
#include "pure/sb_peak.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Golden-section step: a probe this share into the wider side. */
#define GOLDEN 0.381966

void sb_peak_init(struct sb_peak *s, const struct sb_peak_params *par)
{
    memset(s, 0, sizeof(*s));
    s->par = *par;
    if (s->par.repeat == 0)
        s->par.repeat = 1;
    if (s->par.repeat > SB_PEAK_MAX_RUNS)
        s->par.repeat = SB_PEAK_MAX_RUNS;
    if (s->par.max_threads == 0)
        s->par.max_threads = 1;
}

/* The median of the non-NaN values of v[0..n); NaN when there is none. */
static double median(const double *v, unsigned n)
{
    double t[SB_PEAK_MAX_RUNS];
    unsigned m = 0;

    for (unsigned i = 0; i < n; i++)
        if (!isnan(v[i])) {
            unsigned k = m++;
            for (; k > 0 && t[k - 1] > v[i]; k--)
                t[k] = t[k - 1];
            t[k] = v[i];
        }
    if (m == 0)
        return NAN;
    return m % 2 ? t[m / 2] : (t[m / 2 - 1] + t[m / 2]) / 2;
}

static struct sb_peak_point *find(struct sb_peak *s, unsigned t)
{
    for (size_t i = 0; i < s->npts; i++)
        if (s->pts[i].threads == t)
            return &s->pts[i];
    return NULL;
}

const struct sb_peak_point *sb_peak_point_of(const struct sb_peak *s, unsigned t)
{
    return find((struct sb_peak *)s, t);
}

/* The record of count t, made (in threads order) when new; NULL when the
 * table is full. */
static struct sb_peak_point *make(struct sb_peak *s, unsigned t)
{
    struct sb_peak_point *p = find(s, t);
    size_t i = 0;

    if (p != NULL)
        return p;
    if (s->npts == SB_PEAK_MAX_POINTS)
        return NULL;
    while (i < s->npts && s->pts[i].threads < t)
        i++;
    memmove(&s->pts[i + 1], &s->pts[i], (s->npts - i) * sizeof(s->pts[0]));
    s->npts++;
    memset(&s->pts[i], 0, sizeof(s->pts[i]));
    s->pts[i].threads = t;
    return &s->pts[i];
}

void sb_peak_record(struct sb_peak *s, unsigned threads, const struct sb_peak_fig *fig)
{
    struct sb_peak_point *p = make(s, threads);

    if (s->nruns < SB_PEAK_MAX_ORDER)
        s->order[s->nruns++] = threads;
    if (threads == s->current && s->due > 0)
        s->due--;
    if (p == NULL) {
        s->end = SB_PEAK_FULL;
        return;
    }
    if (p->runs >= SB_PEAK_MAX_RUNS)
        return;
    p->tps[p->runs] = fig->tps;
    p->latency_ms[p->runs] = fig->latency_ms;
    p->rse[p->runs] = fig->rse;
    p->runs++;
    p->median_tps = median(p->tps, p->runs);
    p->median_latency_ms = median(p->latency_ms, p->runs);
    p->within_sla = p->median_tps > 0 &&
                    (!(s->par.sla_ms > 0) || p->median_latency_ms <= s->par.sla_ms);
}

/* The relative spread of one run's throughput from run to run, pooled
 * over every count measured more than once and shrunk toward
 * SB_PEAK_NOISE_PRIOR by SB_PEAK_PRIOR_WEIGHT runs' worth of weight: a
 * count measured twice gives one degree of freedom, far too few to trust
 * alone (two runs that happen to agree would claim no noise at all). */
static double run_spread(const struct sb_peak *s)
{
    double ss = SB_PEAK_NOISE_PRIOR * SB_PEAK_NOISE_PRIOR * SB_PEAK_PRIOR_WEIGHT;
    double dof = SB_PEAK_PRIOR_WEIGHT;

    for (size_t i = 0; i < s->npts; i++) {
        const struct sb_peak_point *p = &s->pts[i];
        double mean = 0;
        unsigned n = 0;
        for (unsigned k = 0; k < p->runs; k++)
            if (isfinite(p->tps[k])) {
                mean += p->tps[k];
                n++;
            }
        if (n < 2 || !(mean > 0))
            continue;
        mean /= n;
        for (unsigned k = 0; k < p->runs; k++)
            if (isfinite(p->tps[k]))
                ss += (p->tps[k] / mean - 1) * (p->tps[k] / mean - 1);
        dof += n - 1;
    }
    return sqrt(ss / dof);
}

/* The relative uncertainty of a count's median throughput: the larger of
 * the within-run error (each run's own 1-s samples) and the run-to-run
 * spread (the pooled one, or this count's own when larger) over the
 * square root of its runs. */
static double uncertainty(const struct sb_peak *s, const struct sb_peak_point *p)
{
    double w = 0, mean = 0, var = 0, between = run_spread(s);
    unsigned nw = 0;

    if (p->runs == 0)
        return INFINITY;
    for (unsigned i = 0; i < p->runs; i++)
        if (isfinite(p->rse[i])) {
            w += p->rse[i] * p->rse[i];
            nw++;
        }
    w = nw > 0 ? sqrt(w / nw / p->runs) : 0;
    if (p->runs >= 2 && p->median_tps > 0) {
        for (unsigned i = 0; i < p->runs; i++)
            mean += p->tps[i] / p->runs;
        for (unsigned i = 0; i < p->runs; i++)
            var += (p->tps[i] - mean) * (p->tps[i] - mean) / (p->runs - 1);
        between = fmax(between, sqrt(var) / p->median_tps);
    }
    return fmax(w, between / sqrt(p->runs));
}

/* The relative difference two counts' medians must show to be told
 * apart: SB_PEAK_NOISE_Z times the combined uncertainty, never
 * below SB_PEAK_MIN_STEP. Within it the two are a tie. */
static double noise(const struct sb_peak *s, const struct sb_peak_point *a,
                    const struct sb_peak_point *b)
{
    double ua = uncertainty(s, a), ub = uncertainty(s, b);

    return fmax(SB_PEAK_MIN_STEP, SB_PEAK_NOISE_Z * sqrt(ua * ua + ub * ub));
}

/* The best count (highest median throughput within the SLA; the fewer
 * threads on a tie) and its nearest measured neighbours. */
static void bracket(struct sb_peak *s)
{
    size_t b = SIZE_MAX;

    for (size_t i = 0; i < s->npts; i++)
        if (s->pts[i].within_sla && (b == SIZE_MAX || s->pts[i].median_tps > s->pts[b].median_tps))
            b = i;
    if (b == SIZE_MAX) {
        s->best = s->lo = s->hi = 0;
        return;
    }
    s->best = s->pts[b].threads;
    s->lo = b > 0 ? s->pts[b - 1].threads : s->best;
    s->hi = b + 1 < s->npts ? s->pts[b + 1].threads : s->best;
}

static unsigned begin(struct sb_peak *s, unsigned t, unsigned runs)
{
    s->current = t;
    s->due = runs;
    return t;
}

/*
 * The doubling's verdict on its latest count: the next count, or 0 when
 * the doubling is over (stage set to refining, or the search ended).
 */
static unsigned doubling_step(struct sb_peak *s, unsigned *runs)
{
    size_t k = s->ndbl - 1;
    const struct sb_peak_point *p = find(s, s->dbl[k]), *bb = NULL;
    bool best;

    if (k == 0 && (p == NULL || !(p->median_tps > 0))) {
        s->end = SB_PEAK_NOTHING;
        return 0;
    }
    if (k == 0 && !p->within_sla) {
        s->end = SB_PEAK_NO_SLA;
        return 0;
    }
    for (size_t j = 0; j < k; j++) {
        const struct sb_peak_point *q = find(s, s->dbl[j]);
        if (q != NULL && q->within_sla && (bb == NULL || q->median_tps > bb->median_tps))
            bb = q;
    }
    best = p != NULL && p->within_sla && (bb == NULL || p->median_tps > bb->median_tps);
    s->noise = bb != NULL && p != NULL ? noise(s, p, bb) : SB_PEAK_MIN_STEP;
    s->grew[k] = best && (bb == NULL || p->median_tps > bb->median_tps * (1 + s->noise));
    /* Grew, or is the best within the noise: the next doubling is
     * measured too, so that the best has an upper neighbour and the fall
     * is seen (a slow rise is no plateau: a run that spiked at a low
     * count would end the search there). */
    if (p != NULL && p->within_sla && p->threads < s->par.max_threads &&
        k + 1 < sizeof(s->dbl) / sizeof(s->dbl[0]) &&
        (s->grew[k] || best)) {
        unsigned t = p->threads * 2 < s->par.max_threads ? p->threads * 2 : s->par.max_threads;
        s->dbl[++s->ndbl - 1] = t;
        return t;
    }
    /* A turn within the noise of the best is measured again before it
     * ends the doubling (its neighbour's confirmation, taken early). */
    if (p != NULL && bb != NULL && p->within_sla && p->runs < SB_PEAK_CONFIRM_NEIGHBOUR &&
        p->median_tps >= bb->median_tps * (1 - s->noise)) {
        *runs = 1;
        return p->threads;
    }
    if (best && !s->grew[k] && p->threads < s->par.max_threads)
        s->plateau_top = p->threads;
    s->stage = SB_PEAK_REFINING;
    return 0;
}

/* Whether neighbour p of the best b is a close call: its median within
 * the noise of the best's. */
static bool close_to_best(const struct sb_peak *s, const struct sb_peak_point *p,
                          const struct sb_peak_point *b)
{
    return p->within_sla && p->median_tps >= b->median_tps * (1 - noise(s, p, b));
}

/* Whether the bracket is flat: at most SB_PEAK_FLAT_RATIO wide and every
 * neighbour within the noise of the best. On a curve of the USL's shape
 * the peak then lies at most about 2% above the best measured (for sigma
 * 0 and ends 1.5x apart, 2c / (1 + c^2) with c = 1 / sqrt(1.5)), less
 * than the noise, so narrower probes could not be told apart. */
static bool flat(const struct sb_peak *s)
{
    const struct sb_peak_point *b = find((struct sb_peak *)s, s->best);
    const struct sb_peak_point *lo = find((struct sb_peak *)s, s->lo);
    const struct sb_peak_point *hi = find((struct sb_peak *)s, s->hi);

    return b != NULL && lo != NULL && hi != NULL && s->hi <= SB_PEAK_FLAT_RATIO * s->lo &&
           (lo == b || close_to_best(s, lo, b)) && (hi == b || close_to_best(s, hi, b));
}

/* A refining probe inside the bracket, or 0 when it is narrow. */
static unsigned refine_step(struct sb_peak *s)
{
    unsigned b = s->best, below = b - s->lo, above = s->hi - b;
    double tol = fmax(1, SB_PEAK_BRACKET * b);
    long t;

    /* A re-measurement made the highest count the best: look above it. */
    if (s->hi == b && b < s->par.max_threads && b != s->plateau_top)
        return b * 2 < s->par.max_threads ? b * 2 : s->par.max_threads;
    if (below <= tol && above <= tol)
        return 0;
    if (flat(s)) {
        s->flat = true;
        return 0;
    }
    if (above >= below) {
        t = b + lround(GOLDEN * above);
        t = t < (long)b + 1 ? (long)b + 1 : t > (long)s->hi - 1 ? (long)s->hi - 1 : t;
    } else {
        t = b - lround(GOLDEN * below);
        t = t < (long)s->lo + 1 ? (long)s->lo + 1 : t > (long)b - 1 ? (long)b - 1 : t;
    }
    return (unsigned)t;
}

/* Whether neighbour p of the best b is still a tie after its
 * SB_PEAK_CONFIRM_NEIGHBOUR runs: within the noise of the best, yet more
 * than SB_PEAK_MIN_STEP below it, so one more run of each may tell them
 * apart (a gap below SB_PEAK_MIN_STEP is not worth it). */
static bool still_tied(const struct sb_peak *s, const struct sb_peak_point *p,
                       const struct sb_peak_point *b)
{
    return p->runs >= SB_PEAK_CONFIRM_NEIGHBOUR && close_to_best(s, p, b) &&
           p->median_tps < b->median_tps * (1 - SB_PEAK_MIN_STEP);
}

/* The runs a bracket count needs at the end: a neighbour that is a close
 * call SB_PEAK_CONFIRM_NEIGHBOUR, one more while it stays tied, one
 * clearly below the best none more; the best SB_PEAK_CONFIRM_BEST when a
 * neighbour is close or its own runs disagree by more than
 * SB_PEAK_MIN_STEP, else one run less, and one more while a neighbour
 * stays tied. */
static unsigned target_runs(const struct sb_peak *s, const struct sb_peak_point *p,
                            const struct sb_peak_point *b, bool any_close, bool any_tied)
{
    unsigned t;

    if (p != b) {
        t = !close_to_best(s, p, b) ? 1
            : still_tied(s, p, b)   ? SB_PEAK_CONFIRM_NEIGHBOUR + 1
                                    : SB_PEAK_CONFIRM_NEIGHBOUR;
    } else {
        double lo = INFINITY, hi = 0;
        for (unsigned i = 0; i < p->runs; i++) {
            lo = fmin(lo, p->tps[i]);
            hi = fmax(hi, p->tps[i]);
        }
        t = any_close || hi - lo > SB_PEAK_MIN_STEP * p->median_tps
                ? SB_PEAK_CONFIRM_BEST : SB_PEAK_CONFIRM_BEST - 1;
        t += any_tied;
    }
    return s->par.repeat > t ? s->par.repeat : t;
}

/* The bracket count still short of its runs (the best first), with the
 * runs it needs in *runs; 0 when all have them. */
static unsigned confirm_step(struct sb_peak *s, unsigned *runs)
{
    const struct sb_peak_point *c[3] = {find(s, s->best), find(s, s->lo), find(s, s->hi)};
    bool any_close = false, any_tied = false;

    if (c[0] == NULL)
        return 0;
    for (int i = 1; i < 3; i++)
        if (c[i] != NULL && c[i] != c[0] && close_to_best(s, c[i], c[0])) {
            any_close = true;
            any_tied = any_tied || still_tied(s, c[i], c[0]);
        }
    for (int i = 0; i < 3; i++) {
        unsigned want;
        if (c[i] == NULL || (i > 0 && c[i] == c[0]))
            continue;
        want = target_runs(s, c[i], c[0], any_close, any_tied);
        if (c[i]->runs < want) {
            *runs = 1;
            return c[i]->threads;
        }
    }
    return 0;
}

/* The next count after the doubling. */
static unsigned after_doubling(struct sb_peak *s, unsigned *runs)
{
    unsigned t;

    bracket(s);
    if (s->best == 0) {
        s->end = SB_PEAK_NO_SLA;
        return 0;
    }
    *runs = s->par.repeat;
    s->flat = false;
    if ((t = refine_step(s)) != 0) {
        s->stage = SB_PEAK_REFINING;
        return t;
    }
    s->stage = SB_PEAK_CONFIRMING;
    if ((t = confirm_step(s, runs)) != 0)
        return t;
    s->end = s->flat ? SB_PEAK_FLAT : SB_PEAK_NARROW;
    return 0;
}

unsigned sb_peak_next(struct sb_peak *s, double elapsed_s, double run_s)
{
    unsigned t = 0, runs;

    if (s->end != SB_PEAK_GOING)
        goto over;
    if (s->nruns == 0 && s->due == 0) {
        s->dbl[0] = 1;
        s->ndbl = 1;
        return begin(s, 1, s->par.repeat);
    }
    if (s->due > 0) {
        t = s->current;
        runs = s->due;
    } else {
        runs = s->par.repeat;
        bracket(s);
        if (s->stage == SB_PEAK_DOUBLING)
            t = doubling_step(s, &runs);
        if (t == 0 && s->end == SB_PEAK_GOING)
            t = after_doubling(s, &runs);
        if (t == 0)
            goto over;
    }
    if (s->par.budget_s > 0 && elapsed_s + run_s > s->par.budget_s) {
        s->end = SB_PEAK_BUDGET;
        goto over;
    }
    return begin(s, t, runs);
over:
    bracket(s);
    s->stage = SB_PEAK_DONE;
    s->due = 0;
    return 0;
}

/* Golden-section steps that narrow a side of width w to tol. */
static unsigned steps(double w, double tol)
{
    return w > tol ? (unsigned)ceil(log(w / tol) / log(1 / (1 - GOLDEN))) : 0;
}

unsigned sb_peak_runs_left(const struct sb_peak *s)
{
    unsigned n = 0, top = s->npts ? s->pts[s->npts - 1].threads : 1;
    unsigned c[3] = {s->best, s->lo, s->hi};
    double tol = fmax(1, SB_PEAK_BRACKET * s->best);

    if (s->end != SB_PEAK_GOING || s->stage == SB_PEAK_DONE)
        return 0;
    if (s->stage == SB_PEAK_DOUBLING) {
        /* Two more doublings at most before the turn is seen, then a
         * bracket of a doubling on each side to narrow. */
        unsigned more = top * 2 <= s->par.max_threads ? 2 : top < s->par.max_threads ? 1 : 0;
        double b = top * (more ? 2.0 : 1.0);
        return s->due + (more + 2 * steps(b / 2, fmax(1, SB_PEAK_BRACKET * b))) * s->par.repeat +
               (SB_PEAK_CONFIRM_BEST - 1) + 2 * (SB_PEAK_CONFIRM_NEIGHBOUR - 1);
    }
    if (s->stage == SB_PEAK_REFINING)
        n = s->due + (steps(s->best - s->lo, tol) + steps(s->hi - s->best, tol)) * s->par.repeat;
    /* The confirmation's runs, at most (the current count's among them). */
    for (int i = 0; i < 3; i++) {
        const struct sb_peak_point *p = sb_peak_point_of(s, c[i]);
        unsigned want = i == 0 ? SB_PEAK_CONFIRM_BEST : SB_PEAK_CONFIRM_NEIGHBOUR;
        if ((i > 0 && c[i] == s->best) || p == NULL)
            continue;
        want = s->par.repeat > want ? s->par.repeat : want;
        if (p->runs < want)
            n += want - p->runs;
    }
    return n;
}

double sb_peak_rse(const double *samples, size_t n)
{
    double mean = 0, var = 0;

    if (n < 3)
        return NAN;
    for (size_t i = 0; i < n; i++)
        mean += samples[i] / (double)n;
    if (!(mean > 0))
        return NAN;
    for (size_t i = 0; i < n; i++)
        var += (samples[i] - mean) * (samples[i] - mean) / (double)(n - 1);
    return sqrt(var / (double)n) / mean;
}
