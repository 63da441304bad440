/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The --find-max search; see sb_findmax.h.
 */
#include "config.h"

#include "pure/sb_findmax.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_json_write.h"

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

/* Runs a rate has when a close call, or an end of the final bracket, is
 * measured again. */
#define CLOSE_RUNS 3
#define CONFIRM_RUNS 3
/* The bracket the bisection narrows to. */
#define BRACKET 0.02
/* Why a search step stopped, besides a run's own (positive) status. */
#define STOP_BUDGET (-1)   /* SB_FINDMAX_MAX_PROBES probes made */

struct search {
    sb_findmax_run_fn run;
    void *ctx;
    const struct sb_findmax_params *par;
    unsigned repeat;
    struct sb_findmax_result *res;
    FILE *out;
    double last_rate;         /* the rate of the previous run; -1 before any */
    double spent_s;           /* time the timed runs took */
    unsigned timed;
    double lo, hi;            /* the bracket, for the time left */
};

/* The median of the non-NaN values of v[0..n); NaN when there is none. */
static double median(const double *v, unsigned n)
{
    double t[SB_FINDMAX_MAX_RUNS];
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

static bool verdict(const struct search *s, const struct sb_findmax_rate *r)
{
    return r->achieved >= 0.995 * r->target && r->latency <= s->par->ms;
}

/* Whether a verdict is close enough to a limit to be measured again. */
static bool close_call(const struct search *s, const struct sb_findmax_rate *r)
{
    double a = r->achieved / r->target;
    /* A rate that holds gives 99.9-100% in --tx-rate mode (exact slot
     * counts); just below or above the 99.5% limit is the doubtful band. */
    return (a >= 0.985 && a < 0.998) || fabs(r->latency / s->par->ms - 1) < 0.1;
}

/* The record of target rate r (0: the closed loop), made when new; NULL
 * when the table is full. Kept sorted by target. */
static struct sb_findmax_rate *rate_of(struct search *s, double r)
{
    struct sb_findmax_result *res = s->res;
    size_t i = 0;

    if (r <= 0)
        return &res->closed;
    while (i < res->nrates && res->rates[i].target < r)
        i++;
    if (i < res->nrates && res->rates[i].target == r)
        return &res->rates[i];
    if (res->nrates == SB_FINDMAX_MAX_PROBES)
        return NULL;
    memmove(&res->rates[i + 1], &res->rates[i], (res->nrates - i) * sizeof(res->rates[0]));
    res->nrates++;
    memset(&res->rates[i], 0, sizeof(res->rates[i]));
    res->rates[i].target = r;
    return &res->rates[i];
}

/* Seconds one run takes: measured once some run was timed. */
static double run_seconds(const struct search *s)
{
    return s->timed > 0 ? s->spent_s / s->timed : s->par->run_s;
}

/* Writes a duration as "45 s" or "3 min 5 s". */
static void fmt_secs(char *buf, size_t len, double secs)
{
    long t = lround(secs);

    if (t < 60)
        snprintf(buf, len, "%ld s", t);
    else
        snprintf(buf, len, "%ld min %ld s", t / 60, t % 60);
}

/* The progress line of a terminal, rewritten in place until the probe's
 * own line replaces it. The time left counts the bisection steps the
 * bracket still needs, at `repeat` runs each. */
static void progress(const struct search *s, double r, unsigned run, unsigned nruns)
{
    double steps = 1, secs;
    char what[64], left[64] = "";

    if (!s->par->progress)
        return;
    if (s->lo > 0 && s->hi > s->lo && (s->hi - s->lo) / s->lo > BRACKET)
        steps += ceil(log2((s->hi - s->lo) / (s->lo * BRACKET)));
    else if (s->lo <= 0)
        steps += 6;
    secs = (steps * s->repeat + (nruns - run)) * run_seconds(s);
    if (secs > 0)
        fmt_secs(left, sizeof(left), secs);
    if (r > 0)
        snprintf(what, sizeof(what), "%.2f tx/s", r);
    else
        snprintf(what, sizeof(what), "closed loop");
    fprintf(s->out, "\r\033[K--find-max: probe %u of at most %u: %s, run %u of %u%s%s%s",
            s->res->probes + 1, s->res->max_probes, what, run, nruns,
            *left ? ", about " : "", left, *left ? " left" : "");
    fflush(s->out);
}

/* The line of a probe; note says why it was made when not plainly. */
static void print_probe(const struct search *s, const struct sb_findmax_rate *r,
                        const char *note)
{
    if (s->par->progress)
        fputs("\r\033[K", s->out);
    fprintf(s->out, "%2u/%-2u ", s->res->probes, s->res->max_probes);
    if (r->target > 0)
        fprintf(s->out, "%12.2f %12.2f %8.2f%% %11.3f %4u %5s", r->target, r->achieved,
                100 * r->achieved / r->target, r->latency, r->runs, r->holds ? "yes" : "no");
    else
        fprintf(s->out, "%12s %12.2f %9s %11.3f %4u %5s", "closed loop", r->achieved, "-",
                r->latency, r->runs, "-");
    fprintf(s->out, "%s%s\n", *note ? "  " : "", note);
    fflush(s->out);
}

/* Runs rate r n more times (at most SB_FINDMAX_MAX_RUNS in all). */
static int add_runs(struct search *s, struct sb_findmax_rate *r, unsigned n)
{
    unsigned total = r->runs + n;

    if (total > SB_FINDMAX_MAX_RUNS)
        total = SB_FINDMAX_MAX_RUNS;
    for (unsigned k = r->runs; k < total; k++) {
        struct sb_findmax_fig fig = {NAN, NAN};
        double t0 = s->par->now_s ? s->par->now_s() : 0;
        int rc;

        progress(s, r->target, k + 1, total);
        rc = s->run(s->ctx, r->target, s->last_rate == r->target, &fig);
        s->last_rate = r->target;
        s->res->runs++;
        if (s->par->now_s) {
            s->spent_s += s->par->now_s() - t0;
            s->timed++;
        }
        if (rc != 0)
            return rc;
        r->tps[k] = fig.tps;
        r->latency_ms[k] = fig.latency_ms;
        r->runs = k + 1;
    }
    r->achieved = median(r->tps, r->runs);
    r->latency = median(r->latency_ms, r->runs);
    r->holds = r->target > 0 && verdict(s, r);
    return 0;
}

/*
 * One probe: measures target t (0: closed loop) `n` more times, and a
 * close call up to CLOSE_RUNS runs, then prints its line. *holds is the
 * verdict. Returns 0, the run's status, or STOP_BUDGET.
 */
static int probe(struct search *s, double t, unsigned n, const char *why, bool *holds)
{
    struct sb_findmax_rate *r;
    bool before;
    char note[128];
    int rc;

    *holds = false;
    if (s->res->probes >= s->res->max_probes || (r = rate_of(s, t)) == NULL) {
        s->res->out_of_probes = true;
        return STOP_BUDGET;
    }
    before = r->holds;
    if ((rc = add_runs(s, r, n)) != 0)
        return rc;
    snprintf(note, sizeof(note), "%s", why);
    if (t > 0 && r->runs < CLOSE_RUNS && close_call(s, r)) {
        if ((rc = add_runs(s, r, CLOSE_RUNS - r->runs)) != 0)
            return rc;
        snprintf(note, sizeof(note), "%s%sclose to a limit: %u runs", why, *why ? "; " : "",
                 r->runs);
    }
    if (*why && before != r->holds) {
        size_t used = strlen(note);
        snprintf(note + used, sizeof(note) - used, " (was %s)", before ? "yes" : "no");
    }
    s->res->probes++;
    print_probe(s, r, note);
    *holds = r->holds;
    return 0;
}

/* The lowest rate missed, or NULL. */
static const struct sb_findmax_rate *lowest_fail(const struct sb_findmax_result *res)
{
    for (size_t i = 0; i < res->nrates; i++)
        if (!res->rates[i].holds)
            return &res->rates[i];
    return NULL;
}

/* Sets the bracket: lo the highest rate held below every miss (0: none),
 * hi the lowest miss (0: none). */
static void bracket(struct search *s)
{
    const struct sb_findmax_rate *f = lowest_fail(s->res);

    s->lo = s->hi = 0;
    for (size_t i = 0; i < s->res->nrates; i++) {
        const struct sb_findmax_rate *r = &s->res->rates[i];
        if (f != NULL && r->target >= f->target)
            break;
        if (r->holds)
            s->lo = r->target;
    }
    s->hi = f != NULL ? f->target : 0;
}

/* Whether the bracket [lo, hi] needs no more bisection. */
static bool narrow_enough(const struct search *s)
{
    return s->hi <= 0 || (s->lo > 0 && (s->hi - s->lo) / s->lo <= BRACKET) ||
           s->hi - s->lo <= 0.5 || (s->lo <= 0 && s->hi < 1);
}

/* Bisects the bracket [lo, hi] (lo 0: none held yet) down to BRACKET. */
static int bisect(struct search *s)
{
    bracket(s);
    while (!narrow_enough(s)) {
        double mid = s->lo > 0 ? (s->lo + s->hi) / 2 : s->hi / 2;
        bool ok;
        int rc = probe(s, mid, s->repeat, "", &ok);

        if (rc != 0)
            return rc;
        bracket(s);
    }
    return 0;
}

/* The rate record with target t, or NULL. */
static struct sb_findmax_rate *find_rate(struct sb_findmax_result *res, double t)
{
    for (size_t i = 0; i < res->nrates; i++)
        if (res->rates[i].target == t)
            return &res->rates[i];
    return NULL;
}

/*
 * Measures the two ends of the bracket, the highest rate held below every
 * miss and the lowest miss, to CONFIRM_RUNS runs each: a single run's
 * spurious miss (a stall) or pass would otherwise decide the answer.
 * Sets *changed when it measured something. Returns 0, the run's status or
 * STOP_BUDGET.
 */
static int confirm(struct search *s, bool *changed)
{
    double ends[2] = {s->lo, s->hi};

    *changed = false;
    for (int i = 0; i < 2; i++) {
        struct sb_findmax_rate *r = ends[i] > 0 ? find_rate(s->res, ends[i]) : NULL;
        bool ok;
        int rc;
        if (r == NULL || r->runs >= CONFIRM_RUNS)
            continue;
        r->remeasured = true;
        rc = probe(s, r->target, CONFIRM_RUNS - r->runs,
                   i == 0 ? "re-measured: highest rate held" : "re-measured: lowest rate missed",
                   &ok);
        *changed = true;
        /* A verdict that turned moves the bracket: search again. */
        if (rc != 0 || ok != (i == 0))
            return rc;
    }
    return 0;
}

/* The curve by target after the search, then the answer and its bracket. */
static void print_curve(const struct search *s)
{
    const struct sb_findmax_result *res = s->res;

    fprintf(s->out, "\nFind-max curve (SLA: p%g <= %g ms; held = achieved >= 99.5%% of the "
            "target and the SLA met; medians of the runs):\n", res->pct, res->ms);
    fprintf(s->out, "%12s %12s %9s %12s %5s %6s\n", "target tps", "achieved", "achieved%",
            "latency ms", "runs", "held");
    for (size_t i = 0; i < res->nrates; i++) {
        const struct sb_findmax_rate *p = &res->rates[i];
        fprintf(s->out, "%12.2f %12.2f %8.2f%% %12.3f %5u %6s%s\n", p->target, p->achieved,
                100 * p->achieved / p->target, p->latency, p->runs, p->holds ? "yes" : "no",
                p->remeasured ? "  (re-measured)" : "");
    }
    fprintf(s->out, "\nClosed-loop capacity: %.2f tx/s\n", res->capacity_tps);
    if (res->max_rate > 0 && res->fail_rate > 0)
        fprintf(s->out, "Highest rate held: %.2f tx/s (capacity between %.2f and %.2f tx/s, "
                "+%.1f%%; achieved %.2f tx/s, p%g %.3f ms)\n", res->max_rate, res->max_rate,
                res->fail_rate, 100 * (res->fail_rate / res->max_rate - 1), res->max_achieved_tps,
                res->pct, res->max_latency_ms);
    else if (res->max_rate > 0)
        fprintf(s->out, "Highest rate held: %.2f tx/s (capacity at least that: no rate tried "
                "was missed; achieved %.2f tx/s, p%g %.3f ms)\n", res->max_rate,
                res->max_achieved_tps, res->pct, res->max_latency_ms);
    else
        fprintf(s->out, "Highest rate held: none (even %.2f tx/s missed the SLA)\n",
                res->nrates ? res->rates[0].target : 0.0);
    fflush(s->out);
}

/* The warnings an answer needs: a conflict left, or a bracket left wide. */
static void print_warnings(const struct search *s)
{
    const struct sb_findmax_result *res = s->res;
    const struct sb_findmax_rate *f = lowest_fail(res);

    if (!res->monotone && f != NULL)
        for (size_t i = res->nrates; i-- > 0;)
            if (res->rates[i].holds && res->rates[i].target > f->target) {
                fprintf(s->out, "WARNING: find-max: %.2f tx/s held (%u run%s) but %.2f tx/s "
                        "was missed (%u runs): the verdicts are not monotone in the rate (a "
                        "noisy server, or --time too short); the rate found is the highest held "
                        "below every miss\n", res->rates[i].target, res->rates[i].runs,
                        res->rates[i].runs == 1 ? "" : "s", f->target, f->runs);
                break;
            }
    if (res->out_of_probes && res->max_rate > 0 && res->fail_rate > 0)
        fprintf(s->out, "WARNING: find-max: stopped after %u probes with the capacity between "
                "%.2f and %.2f tx/s\n", res->probes, res->max_rate, res->fail_rate);
    fprintf(s->out, "\n");
    fflush(s->out);
}

/* The answer: the highest rate held below every miss, and that miss. */
static void answer(struct search *s)
{
    struct sb_findmax_result *res = s->res;

    bracket(s);
    /* The bracket is the highest rate held below the lowest miss, so a
     * rate held above a miss can only come from a verdict that turned on
     * re-measurement: said, not hidden. */
    for (size_t i = 0; i < res->nrates; i++)
        if (res->rates[i].holds && s->hi > 0 && res->rates[i].target > s->hi)
            res->monotone = false;
    res->max_rate = s->lo;
    res->fail_rate = s->hi;
    for (size_t i = 0; i < res->nrates; i++)
        if (res->rates[i].target == s->lo) {
            res->max_achieved_tps = res->rates[i].achieved;
            res->max_latency_ms = res->rates[i].latency;
        }
}

/* From the closed-loop capacity: 1.05 times it, then 1.5 times more while
 * the rate holds (at most 4 tries); 0.8 times it when nothing held. */
static int expand(struct search *s)
{
    double cap = s->res->capacity_tps, t = cap * 1.05;
    bool ok = false;
    int rc = 0;

    s->hi = t;
    for (int i = 0; i < 4 && rc == 0; i++, t *= 1.5) {
        rc = probe(s, t, s->repeat, "", &ok);
        if (rc != 0 || !ok)
            break;
        s->lo = t;
        s->hi = t * 1.5;
    }
    if (rc == 0 && s->lo <= 0)
        rc = probe(s, cap * 0.8, s->repeat, "", &ok);
    return rc;
}

/* Bisects, and confirms the ends of the bracket, until it is narrow and
 * both ends have CONFIRM_RUNS runs. */
static int narrow(struct search *s)
{
    bool changed = true;
    int rc = 0;

    while (rc == 0 && changed && lowest_fail(s->res) != NULL) {
        rc = bisect(s);
        if (rc == 0)
            rc = confirm(s, &changed);
        bracket(s);
    }
    return rc;
}

int sb_findmax_search(sb_findmax_run_fn run, void *ctx, const struct sb_findmax_params *par,
                      struct sb_findmax_result *res, FILE *out)
{
    struct search s = {.run = run, .ctx = ctx, .par = par,
                       .repeat = par->repeat ? par->repeat : 1, .res = res, .out = out,
                       .last_rate = -1};
    bool ok;
    int rc;

    memset(res, 0, sizeof(*res));
    res->pct = par->pct;
    res->ms = par->ms;
    res->max_probes = SB_FINDMAX_MAX_PROBES;
    res->monotone = true;
    fprintf(out, "--find-max: SLA p%g <= %g ms; a rate is held when at least 99.5%% of it is "
            "achieved and the SLA is met; at most %u probes\n", par->pct, par->ms,
            res->max_probes);
    {
        char lat[32];
        /* The latency column is named after the SLA percentile. */
        snprintf(lat, sizeof(lat), "p%g ms", par->pct);
        fprintf(out, "%-5s %12s %12s %9s %11s %4s %5s\n", "probe", "target tx/s", "achieved",
                "achieved%", lat, "runs", "held");
    }
    rc = probe(&s, 0, s.repeat, "", &ok);
    if (rc != 0)
        return rc > 0 ? rc : 0;
    res->capacity_tps = res->closed.achieved;
    if (!(res->capacity_tps > 0)) {
        fprintf(out, "--find-max: no transactions in closed loop, nothing to search\n");
        res->complete = true;
        return 0;
    }
    rc = expand(&s);
    if (rc == 0)
        rc = narrow(&s);
    if (rc > 0) {
        if (par->progress)
            fputs("\r\033[K", out);
        return rc;
    }
    res->complete = true;
    answer(&s);
    print_curve(&s);
    print_warnings(&s);
    return 0;
}

/* One rate's runs and verdict. */
static void json_rate(struct sb_json *j, const struct sb_findmax_rate *r)
{
    sb_json_begin_object(j);
    if (r->target > 0)
        sb_json_kv_double(j, "target_tps", r->target);
    else
        sb_json_kv_null(j, "target_tps");
    sb_json_kv_uint(j, "runs", r->runs);
    sb_json_key(j, "achieved_tps");
    sb_json_begin_array_inline(j);
    for (unsigned i = 0; i < r->runs; i++)
        sb_json_double(j, r->tps[i]);
    sb_json_end_array(j);
    sb_json_key(j, "latency_ms");
    sb_json_begin_array_inline(j);
    for (unsigned i = 0; i < r->runs; i++)
        sb_json_double(j, r->latency_ms[i]);
    sb_json_end_array(j);
    sb_json_kv_double(j, "median_achieved_tps", r->achieved);
    sb_json_kv_double(j, "median_latency_ms", r->latency);
    if (r->target > 0)
        sb_json_kv_bool(j, "held", r->holds);
    else
        sb_json_kv_null(j, "held");
    sb_json_kv_bool(j, "remeasured", r->remeasured);
    sb_json_end_object(j);
}

void sb_findmax_json(struct sb_json *j, const struct sb_findmax_result *res)
{
    sb_json_key(j, "find_max");
    sb_json_begin_object(j);
    sb_json_key(j, "sla");
    sb_json_begin_object(j);
    sb_json_kv_double(j, "percentile", res->pct);
    sb_json_kv_double(j, "limit_ms", res->ms);
    sb_json_end_object(j);
    sb_json_kv_bool(j, "complete", res->complete);
    sb_json_kv_double(j, "closed_loop_tps", res->capacity_tps);
    if (res->max_rate > 0)
        sb_json_kv_double(j, "rate_held", res->max_rate);
    else
        sb_json_kv_null(j, "rate_held");
    if (res->fail_rate > 0)
        sb_json_kv_double(j, "lowest_rate_missed", res->fail_rate);
    else
        sb_json_kv_null(j, "lowest_rate_missed");
    sb_json_kv_double(j, "achieved_tps", res->max_rate > 0 ? res->max_achieved_tps : NAN);
    sb_json_kv_double(j, "latency_ms", res->max_rate > 0 ? res->max_latency_ms : NAN);
    sb_json_kv_bool(j, "monotone", res->monotone);
    sb_json_kv_bool(j, "out_of_probes", res->out_of_probes);
    sb_json_kv_uint(j, "probes", res->probes);
    sb_json_kv_uint(j, "runs", res->runs);
    sb_json_key(j, "closed_loop");
    json_rate(j, &res->closed);
    sb_json_key(j, "rates");
    sb_json_begin_array(j);
    for (size_t i = 0; i < res->nrates; i++)
        json_rate(j, &res->rates[i]);
    sb_json_end_array(j);
    sb_json_end_object(j);
}
