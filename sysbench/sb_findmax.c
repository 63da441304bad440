/*
 * The --find-max search; see sb_findmax.h.
 */
#include "config.h"

#include "sb_findmax.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sb_ci.h"
#include "sb_histogram.h"
#include "sb_output.h"
#include "sb_repeat.h"

int sb_findmax_parse_sla(const char *text, bool required, double *pct, double *ms,
                         char *err, size_t errlen)
{
    char *end;
    double p, v, unit;

    *pct = *ms = 0;
    if (text == NULL || *text == '\0') {
        if (!required)
            return 0;
        snprintf(err, errlen, "--find-max needs --sla=pP:LIMIT, e.g. --sla=p99:20ms");
        return -1;
    }
    if (!required) {
        snprintf(err, errlen, "--sla applies only with --find-max");
        return -1;
    }
    if (text[0] != 'p' && text[0] != 'P')
        goto bad;
    p = strtod(text + 1, &end);
    if (end == text + 1 || *end != ':' || !(p > 0 && p <= 100))
        goto bad;
    text = end + 1;
    v = strtod(text, &end);
    if (end == text || !(v > 0) || !isfinite(v))
        goto bad;
    if (strcmp(end, "us") == 0)
        unit = 1e-3;
    else if (strcmp(end, "ms") == 0)
        unit = 1;
    else if (strcmp(end, "s") == 0)
        unit = 1e3;
    else
        goto bad;
    *pct = p;
    *ms = v * unit;
    return 0;
bad:
    snprintf(err, errlen, "invalid value for --sla: expected pP:LIMIT with P in (0,100] and "
             "LIMIT a positive number ending in us, ms or s, e.g. p99:20ms");
    return -1;
}

/* Largest number of probes (rates) the search makes. */
#define MAX_PROBES 24

/* One rate tried. */
struct probe {
    double target, achieved, latency_ms;
    unsigned runs;
    bool holds;
};

struct search {
    struct sb_output *o;
    sb_findmax_run_fn run;
    void *ctx;
    double pct, ms;
    unsigned repeat;
    struct probe probes[MAX_PROBES];
    size_t n;
    FILE *out;
};

/* NaN rather than the model's 0 for a point that measured no time. */
static double point_tps(const struct sb_point *p)
{
    return p->time_s > 0 ? sb_result_tps(p) : NAN;
}

/* Median throughput and SLA latency of the points [first, o->npoints). */
static void medians(const struct search *s, size_t first, double *tps, double *lat)
{
    double t[256], l[256];
    size_t n = 0;
    struct sb_ci_summary sum;

    for (size_t i = first; i < s->o->npoints && n < 256; i++, n++) {
        t[n] = point_tps(&s->o->points[i]);
        l[n] = sb_result_pct_ms(&s->o->points[i], s->pct);
    }
    sb_ci_summarize(t, n, &sum);
    *tps = sum.median;
    sb_ci_summarize(l, n, &sum);
    *lat = sum.median;
}

static bool verdict(const struct search *s, double target, double tps, double lat)
{
    return tps >= 0.995 * target && lat <= s->ms;
}

/* Whether a verdict is close enough to a limit to be measured again. */
static bool close_call(const struct search *s, double target, double tps, double lat)
{
    /* A rate that holds gives 99.9-100% in --tx-rate mode (exact slot
     * counts); just below or above the 99.5% limit is the doubtful band. */
    return (tps / target >= 0.985 && tps / target < 0.998) || fabs(lat / s->ms - 1) < 0.1;
}

/* Measures rate r (again when the verdict is close) and records it. */
static int probe(struct search *s, double r, bool *holds)
{
    size_t first = s->o->npoints;
    struct probe *p;
    int rc;

    fprintf(s->out, "\n--find-max: trying %.2f tx/s\n", r);
    fflush(s->out);
    rc = s->run(s->ctx, r, s->repeat);
    if (rc != 0)
        return rc;
    p = &s->probes[s->n++];
    p->target = r;
    p->runs = s->repeat;
    medians(s, first, &p->achieved, &p->latency_ms);
    if (close_call(s, r, p->achieved, p->latency_ms) && p->runs < 3) {
        fprintf(s->out, "\n--find-max: close to a limit, measuring %.2f tx/s %u more time%s\n", r,
                3 - p->runs, 3 - p->runs == 1 ? "" : "s");
        /* One run at a time: the summary below covers all three. */
        for (unsigned k = p->runs; k < 3; k++)
            if ((rc = s->run(s->ctx, r, 1)) != 0)
                return rc;
        p->runs = 3;
        /* One group of three runs in the files, not a run and a pair. */
        for (size_t i = first; i < s->o->npoints; i++) {
            s->o->points[i].cfg.repeat = (unsigned)(i - first + 1);
            s->o->points[i].cfg.nrepeat = (unsigned)(s->o->npoints - first);
        }
        sb_repeat_print_group(s->o, first, s->out);
        medians(s, first, &p->achieved, &p->latency_ms);
    }
    p->holds = *holds = verdict(s, r, p->achieved, p->latency_ms);
    return 0;
}

static int cmp_probe(const void *a, const void *b)
{
    double x = ((const struct probe *)a)->target, y = ((const struct probe *)b)->target;
    return x < y ? -1 : x > y;
}

static void print_curve(struct search *s, const struct sb_findmax_result *res)
{
    qsort(s->probes, s->n, sizeof(s->probes[0]), cmp_probe);
    fprintf(s->out, "\nFind-max curve (SLA: p%g <= %g ms; held = achieved >= 99.5%% of the "
            "target and the SLA met; medians of the runs):\n", s->pct, s->ms);
    fprintf(s->out, "%12s %12s %9s %12s %5s %6s\n", "target tps", "achieved", "achieved%",
            "latency ms", "runs", "held");
    for (size_t i = 0; i < s->n; i++) {
        const struct probe *p = &s->probes[i];
        fprintf(s->out, "%12.2f %12.2f %8.2f%% %12.3f %5u %6s\n", p->target, p->achieved,
                100 * p->achieved / p->target, p->latency_ms, p->runs, p->holds ? "yes" : "no");
    }
    fprintf(s->out, "\nClosed-loop capacity: %.2f tx/s\n", res->capacity_tps);
    if (res->max_rate > 0)
        fprintf(s->out, "Highest rate held: %.2f tx/s (achieved %.2f tx/s, p%g %.3f ms)\n\n",
                res->max_rate, res->max_achieved_tps, s->pct, res->max_latency_ms);
    else
        fprintf(s->out, "Highest rate held: none (even %.2f tx/s missed the SLA)\n\n",
                s->n ? s->probes[0].target : 0.0);
    fflush(s->out);
}

/* Bisects between lo (held, or 0) and hi (missed) down to 2%. */
static int bisect(struct search *s, double lo, double hi)
{
    while (s->n < MAX_PROBES - 1 && (lo <= 0 || (hi - lo) / lo > 0.02) && hi - lo > 0.5) {
        double mid = lo > 0 ? (lo + hi) / 2 : hi / 2;
        bool ok;
        int rc = probe(s, mid, &ok);
        if (rc != 0)
            return rc;
        if (ok)
            lo = mid;
        else
            hi = mid;
        if (lo <= 0 && hi < 1)
            break;
    }
    return 0;
}

int sb_findmax_search(struct sb_output *o, sb_findmax_run_fn run, void *ctx, double pct,
                      double ms, unsigned repeat, struct sb_findmax_result *res, FILE *out)
{
    struct search s = {.o = o, .run = run, .ctx = ctx, .pct = pct, .ms = ms,
                       .repeat = repeat ? repeat : 1, .out = out};
    size_t first = o->npoints;
    double cap, lat, lo = 0, hi;
    bool ok;
    int rc;

    memset(res, 0, sizeof(*res));
    fprintf(out, "--find-max: measuring the closed-loop capacity first\n");
    rc = run(ctx, 0, s.repeat);
    if (rc != 0)
        return rc;
    medians(&s, first, &cap, &lat);
    res->capacity_tps = cap;
    if (!(cap > 0)) {
        fprintf(out, "--find-max: no transactions in closed loop, nothing to search\n");
        return 0;
    }
    /* Open-loop capacity is close to the closed loop's: start just
     * above it and expand while the rate still holds. */
    hi = cap * 1.05;
    while ((rc = probe(&s, hi, &ok)) == 0 && ok && s.n < 4) {
        lo = hi;
        hi *= 1.5;
    }
    if (rc != 0)
        return rc;
    if (lo <= 0) {
        rc = probe(&s, cap * 0.8, &ok);
        if (rc != 0)
            return rc;
        if (ok)
            lo = cap * 0.8;
        else
            hi = cap * 0.8;
    }
    rc = bisect(&s, lo, hi);
    if (rc != 0)
        return rc;
    res->probes = s.n;
    for (size_t i = 0; i < s.n; i++)
        if (s.probes[i].holds && s.probes[i].target > res->max_rate) {
            res->max_rate = s.probes[i].target;
            res->max_achieved_tps = s.probes[i].achieved;
            res->max_latency_ms = s.probes[i].latency_ms;
        }
    print_curve(&s, res);
    return 0;
}
