/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compare's statements section; see sb_compare_stmt.h.
 */
#include "compare/sb_compare_stmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/sb_verdict.h"
#include "pure/sb_stmt_table.h"

/* Runs of a point used at most (as sb_verdict's tables). */
#define MAX_RUNS 1024

/* The figures judged per statement. */
/* The median rather than the mean: a run on a loaded machine has its
 * threads descheduled now and then, which moves a mean of microseconds
 * far more than it moves the median. */
enum fig { FIG_P50, FIG_P99, NFIG };
static const char *const fig_name[NFIG] = { "p50", "p99" };

/* One verdict of the section: statement text, key and file. */
struct judged {
    const char *text;        /* borrowed from the first file's point */
    size_t k, r;
    enum fig f;
    struct sb_verdict v;
};

static const struct sb_stmt_entry *find(const struct sb_stmt_table *t, const char *text, size_t len)
{
    if (t == NULL)
        return NULL;
    for (unsigned i = 0; i < t->n; i++)
        if (t->e[i]->len == len && memcmp(t->e[i]->text, text, len) == 0)
            return t->e[i];
    return NULL;
}

/* Figure f of the statement in one run (ms); NaN when the run lacks it. */
static double fig_of(const struct sb_point_result *p, const struct sb_stmt_entry *ref, enum fig f)
{
    const struct sb_stmt_entry *e = find(p->stmts, ref->text, ref->len);

    if (e == NULL || e->hist.total == 0)
        return NAN;
    return (double)sb_hist_percentile(&e->hist, f == FIG_P50 ? 50 : 99) / 1e6;
}

/* The figure of every run of point p (itself when not repeated). */
static size_t runs_of(const struct sb_point_result *p, const struct sb_stmt_entry *ref, enum fig f,
                      double *out)
{
    size_t n = 0;

    if (p->nreps == 0) {
        out[n++] = fig_of(p, ref, f);
        return n;
    }
    for (size_t i = 0; i < p->nreps && n < MAX_RUNS; i++)
        out[n++] = fig_of(p->reps[i], ref, f);
    return n;
}

static bool any_statements(const struct sb_result_file_grid *g)
{
    for (size_t r = 0; r < g->nres; r++)
        for (size_t k = 0; k < g->nkeys; k++) {
            const struct sb_point_result *p = sb_result_file_grid_cell(g, r, k);
            if (p != NULL && p->stmts != NULL && p->stmts->n > 0)
                return true;
        }
    return false;
}

/* Judges every statement of the first file's points against each other
 * file's; returns the verdicts (owned) and their number in *n. */
static struct judged *judge_all(const struct sb_result_file_grid *g, size_t *n)
{
    double a[MAX_RUNS], b[MAX_RUNS];
    struct judged *j = NULL;
    size_t cap = 0;

    *n = 0;
    for (size_t k = 0; k < g->nkeys; k++) {
        const struct sb_point_result *pa = sb_result_file_grid_cell(g, 0, k);
        if (pa == NULL || pa->stmts == NULL)
            continue;
        for (size_t r = 1; r < g->nres; r++) {
            const struct sb_point_result *pb = sb_result_file_grid_cell(g, r, k);
            if (pb == NULL || pb->stmts == NULL)
                continue;
            for (unsigned i = 0; i < pa->stmts->n; i++)
                for (int f = 0; f < NFIG; f++) {
                    const struct sb_stmt_entry *e = pa->stmts->e[i];
                    size_t na, nb;
                    if (*n == cap) {
                        struct judged *nj = realloc(j, (cap = cap * 2 + 16) * sizeof(*j));
                        if (nj == NULL) {
                            free(j);
                            *n = 0;
                            return NULL;
                        }
                        j = nj;
                    }
                    na = runs_of(pa, e, (enum fig)f, a);
                    nb = runs_of(pb, e, (enum fig)f, b);
                    memset(&j[*n], 0, sizeof(j[*n]));
                    j[*n].text = e->text;
                    j[*n].k = k;
                    j[*n].r = r;
                    j[*n].f = (enum fig)f;
                    sb_verdict_from_runs(a, na, b, nb, true, false, &j[*n].v);
                    (*n)++;
                }
        }
    }
    return j;
}

/* The family for the control: the verdicts of one file against the
 * first sit side by side (r is the outer order per key, not overall), so
 * they are gathered per file first. */
static size_t control(struct judged *j, size_t n, size_t nres)
{
    size_t judged = 0;
    struct sb_verdict *v = malloc((n + 1) * sizeof(*v));

    if (v == NULL)
        return 0;
    for (size_t r = 1; r < nres; r++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (j[i].r == r)
                v[m++] = j[i].v;
        judged += sb_verdict_family(v, m);
        m = 0;
        for (size_t i = 0; i < n; i++)
            if (j[i].r == r)
                j[i].v = v[m++];
    }
    free(v);
    return judged;
}

static void print_change(FILE *out, const struct sb_result_file *res,
                         const struct sb_result_file_grid *g, const struct judged *x)
{
    char key[64];
    const struct sb_verdict *v = &x->v;

    sb_result_file_key_name(g, x->k, key, sizeof(key));
    fprintf(out, "  %s: %.200s %s %+.0f%% [%+.0f%%, %+.0f%%], %s (%s: %.3f ms, %s: %.3f ms; threads %s)\n",
            res[x->r].label, x->text, fig_name[x->f], 100 * (v->r.ratio - 1), 100 * (v->r.lo - 1),
            100 * (v->r.hi - 1), sb_ci_verdict_name(v->v), res[0].label, v->a, res[x->r].label, v->b,
            key);
}

void sb_compare_stmt_print(FILE *out, const struct sb_result_file *res, size_t n,
                           const struct sb_result_file_grid *g)
{
    struct judged *j;
    size_t nj, judged, changed = 0;

    (void)n;
    if (!any_statements(g))
        return;
    j = judge_all(g, &nj);
    if (nj == 0) {
        free(j);
        fprintf(out, "Statements: no statement of '%s' is in the other files.\n\n", res[0].label);
        return;
    }
    judged = control(j, nj, g->nres);
    fprintf(out, "Statements whose latency changed (median and 99th percentile per statement, "
            "ratio to '%s' with its interval):\n", res[0].label);
    for (size_t i = 0; i < nj; i++)
        if (j[i].v.v == SB_CI_BETTER || j[i].v.v == SB_CI_WORSE) {
            print_change(out, res, g, &j[i]);
            changed++;
        }
    if (judged == 0)
        fprintf(out, "  no verdicts: they need two or more runs of a point in both files "
                "(--repeat=3 or more)\n");
    else if (changed == 0)
        fprintf(out, "  none: no significant difference in any of the %zu figures judged\n", judged);
    else
        fprintf(out, "  (%zu of %zu figures judged; the intervals hold together at 95%%)\n",
                changed, judged);
    fputc('\n', out);
    free(j);
}
