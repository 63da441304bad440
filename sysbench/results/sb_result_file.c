/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Result files read back; see sb_result_file.h.
 */
#include "config.h"

#include "results/sb_result_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_empty(const char *s)
{
    return strdup(s != NULL ? s : "");
}

/* Folds the later runs of each --repeat group into its first run: a run
 * with repeat k > 1 belongs to the nearest earlier run with repeat 1 and
 * the same threads and rate. */
static int group_repeats(struct sb_result_file *r)
{
    for (size_t i = 0; i < r->npoints; i++) {
        struct sb_point_result *p = &r->points[i];
        size_t n = 1;

        if (p->cfg.repeat != 1)
            continue;
        while (i + n < r->npoints && r->points[i + n].cfg.repeat == n + 1 &&
               r->points[i + n].cfg.threads == p->cfg.threads &&
               sb_pace_rated(r->points[i + n].cfg.mode) == sb_pace_rated(p->cfg.mode) &&
               (!sb_pace_rated(p->cfg.mode) || r->points[i + n].cfg.target_tps == p->cfg.target_tps))
            n++;
        p->reps = calloc(n, sizeof(*p->reps));
        if (p->reps == NULL)
            return -1;
        p->nreps = n;
        for (size_t k = 0; k < n; k++) {
            p->reps[k] = &r->points[i + k];
            r->points[i + k].grouped = k > 0;
        }
    }
    return 0;
}

/* Largest value accepted for a rate, a latency or a CPU figure: far above
 * anything a machine measures, far below where arithmetic loses meaning. */
#define SB_RESULT_FILE_MAX_VALUE 1e15

/* A number field at path under v: absent, null or a string is "not
 * measured" and passes; a number must be finite and within [min, max]. */
static int check_num(const struct sb_jv *v, const char *path, double min, double max,
                     const char *file, size_t pt, char *err, size_t errlen)
{
    const struct sb_jv *f = sb_jv_path(v, path);

    if (f == NULL || f->type != SB_JV_NUMBER)
        return 0;
    if (isfinite(f->number) && f->number >= min && f->number <= max)
        return 0;
    snprintf(err, errlen, "'%s': points[%zu].%s is %g, expected a number from %g to %g",
             file, pt, path, f->number, min, max);
    return -1;
}

/* Rejects absurd values (negative rates, 309-digit numbers) with one line
 * naming the file and the field, rather than printing them as results. */
static int validate_point(const struct sb_jv *p, size_t i, const char *file, char *err,
                          size_t errlen)
{
    static const char *const figures[] = {
        "tps", "qps",
        "cpu.client.user_us_per_tx", "cpu.client.system_us_per_tx",
        "cpu.client.total_us_per_tx", "cpu.server.user_us_per_tx",
        "cpu.server.system_us_per_tx", "cpu.server.total_us_per_tx",
        "cpu.machine.busy_us_per_tx",
    };
    const struct sb_jv *fin = sb_jv_get(p, "final");
    const struct sb_jv *pm = sb_jv_path(fin, "latency_ms.response.percentiles");
    const double max = SB_RESULT_FILE_MAX_VALUE;
    char path[128];

    if (check_num(p, "threads", 1, 1e7, file, i, err, errlen) != 0 ||
        check_num(p, "target_tps", 0, max, file, i, err, errlen) != 0)
        return -1;
    if (fin == NULL || fin->type != SB_JV_OBJECT)
        return 0;
    for (size_t k = 0; k < sizeof(figures) / sizeof(figures[0]); k++) {
        snprintf(path, sizeof(path), "final.%s", figures[k]);
        if (check_num(p, path, 0, max, file, i, err, errlen) != 0)
            return -1;
    }
    for (size_t k = 0; pm != NULL && pm->type == SB_JV_OBJECT && k < pm->n; k++) {
        const struct sb_jv *v = &pm->items[k];
        if (v->type == SB_JV_NUMBER && !(isfinite(v->number) && v->number >= 0 &&
                                         v->number <= max)) {
            snprintf(err, errlen, "'%s': points[%zu].final.latency_ms.response.percentiles"
                     ".%s is %g, expected a number from 0 to %g", file, i, pm->keys[k],
                     v->number, max);
            return -1;
        }
    }
    return 0;
}

/* The script's base name without ".lua": "oltp_read_write". */
static char *script_name(const char *script)
{
    const char *base;
    char *s;
    size_t len;

    if (script == NULL)
        return strdup("");
    base = strrchr(script, '/');
    base = base ? base + 1 : script;
    s = strdup(base);
    if (s != NULL && (len = strlen(s)) > 4 && strcmp(s + len - 4, ".lua") == 0)
        s[len - 4] = '\0';
    return s;
}

/* The driver the run used: environment.driver, else the --db-driver
 * option; "" for none (a compiled-in test). */
static char *driver_name(const struct sb_jv *doc)
{
    const char *d = sb_jv_str(sb_jv_path(doc, "environment.driver"));

    return dup_or_empty(d != NULL ? d : sb_jv_str(sb_jv_path(doc, "options.general.db-driver")));
}

/* Whether point pj's self-check says it is not ok. */
static bool point_flagged(const struct sb_jv *pj)
{
    const struct sb_jv *ok = sb_jv_path(pj, "selfcheck.ok");

    return ok != NULL && ok->type == SB_JV_BOOL && !ok->boolean;
}

int sb_result_file_from_json(struct sb_result_file *r, const struct sb_jv *doc, const char *path,
                        const char *label, char *err, size_t errlen)
{
    const char *fmt = sb_jv_str(sb_jv_get(doc, "format"));
    const struct sb_jv *ver = sb_jv_get(doc, "format_version");
    const struct sb_jv *pts = sb_jv_get(doc, "points");

    memset(r, 0, sizeof(*r));
    if (fmt == NULL || strcmp(fmt, "sysbench-result") != 0) {
        snprintf(err, errlen, "'%s' is not a sysbench result file (no \"format\": \"sysbench-result\")",
                 path);
        return -1;
    }
    if (sb_jv_num(ver) != SB_RESULT_FILE_FORMAT_VERSION) {
        char v[64];
        if (ver != NULL && ver->type == SB_JV_NUMBER)
            snprintf(v, sizeof(v), "%g", ver->number);
        else
            snprintf(v, sizeof(v), "%s", ver == NULL ? "missing" : "not a number");
        snprintf(err, errlen, "'%s' has format_version %s; this sysbench reads version %d", path,
                 v, SB_RESULT_FILE_FORMAT_VERSION);
        return -1;
    }
    if (sb_jv_len(pts) == 0) {
        snprintf(err, errlen, "'%s' has no points (the run wrote no results)", path);
        return -1;
    }
    for (size_t i = 0; i < pts->n; i++)
        if (validate_point(&pts->items[i], i, path, err, errlen) != 0)
            return -1;
    r->path = strdup(path);
    r->label = strdup(label);
    r->script = script_name(sb_jv_str(sb_jv_get(doc, "script")));
    r->server_version = dup_or_empty(sb_jv_str(sb_jv_path(doc, "environment.server_version")));
    r->allocator = dup_or_empty(sb_jv_str(sb_jv_path(doc, "tool.allocator")));
    r->started_at = dup_or_empty(sb_jv_str(sb_jv_get(doc, "started_at")));
    r->driver = driver_name(doc);
    r->points = calloc(pts->n, sizeof(*r->points));
    r->flagged = calloc(pts->n, sizeof(*r->flagged));
    if (r->path == NULL || r->label == NULL || r->script == NULL || r->server_version == NULL ||
        r->allocator == NULL || r->started_at == NULL || r->driver == NULL ||
        r->points == NULL || r->flagged == NULL)
        goto oom;
    for (size_t i = 0; i < pts->n; i++) {
        double ncpus = sb_jv_num(sb_jv_path(doc, "environment.cpu.online"));
        r->npoints++;
        r->flagged[i] = point_flagged(&pts->items[i]);
        if (sb_point_result_read_json(&r->points[i], &pts->items[i],
                                ncpus >= 1 && ncpus < 1e7 ? (unsigned)ncpus : 0) != 0)
            goto oom;
    }
    if (group_repeats(r) != 0)
        goto oom;
    return 0;
oom:
    sb_result_file_free(r);
    snprintf(err, errlen, "cannot read '%s': out of memory", path);
    return -1;
}

int sb_result_file_load(struct sb_result_file *r, const char *path, const char *label,
                   char *err, size_t errlen)
{
    struct sb_jv *doc = sb_jv_parse_file(path, err, errlen);
    int rc;

    memset(r, 0, sizeof(*r));
    if (doc == NULL)
        return -1;
    rc = sb_result_file_from_json(r, doc, path, label, err, errlen);
    sb_jv_free(doc);
    return rc;
}

void sb_result_file_free(struct sb_result_file *r)
{
    for (size_t i = 0; i < r->npoints; i++)
        sb_point_result_free(&r->points[i]);
    free(r->points);
    free(r->path);
    free(r->label);
    free(r->script);
    free(r->server_version);
    free(r->allocator);
    free(r->started_at);
    free(r->driver);
    free(r->flagged);
    memset(r, 0, sizeof(*r));
}

char *sb_result_file_default_label(const char *path)
{
    const char *base = strrchr(path, '/');
    char *s;
    size_t len;

    base = base && base[1] ? base + 1 : path;
    s = strdup(base);
    if (s != NULL && (len = strlen(s)) > 5 && strcmp(s + len - 5, ".json") == 0)
        s[len - 5] = '\0';
    return s;
}

static bool same_rate(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* One point of one result while the grid is built. */
struct grid_ent {
    const struct sb_point_result *p;
    size_t r, i;        /* result and index of the point in it */
    size_t group;       /* pair (threads, rate) number, in key order */
    unsigned occ;       /* earlier points of result r in the same group */
};

static int cmp_double(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return a < b ? -1 : a > b;
}

static int cmp_size(size_t a, size_t b)
{
    return a < b ? -1 : a > b;
}

/* By pair (threads, closed loop before rates, rate), then result, index. */
static int ent_by_pair(const void *pa, const void *pb)
{
    const struct grid_ent *a = pa, *b = pb;
    int c;

    if (a->p->cfg.threads != b->p->cfg.threads)
        return a->p->cfg.threads < b->p->cfg.threads ? -1 : 1;
    if (sb_pace_rated(a->p->cfg.mode) != sb_pace_rated(b->p->cfg.mode))
        return sb_pace_rated(a->p->cfg.mode) ? 1 : -1;
    if (sb_pace_rated(a->p->cfg.mode) && (c = cmp_double(a->p->cfg.target_tps, b->p->cfg.target_tps)) != 0)
        return c;
    return (c = cmp_size(a->r, b->r)) != 0 ? c : cmp_size(a->i, b->i);
}

static int ent_by_group(const void *pa, const void *pb)
{
    const struct grid_ent *a = pa, *b = pb;
    int c;

    if ((c = cmp_size(a->group, b->group)) != 0)
        return c;
    return (c = cmp_size(a->r, b->r)) != 0 ? c : cmp_size(a->i, b->i);
}

static int ent_by_key(const void *pa, const void *pb)
{
    const struct grid_ent *a = pa, *b = pb;
    int c;

    if ((c = cmp_size(a->group, b->group)) != 0)
        return c;
    if (a->occ != b->occ)
        return a->occ < b->occ ? -1 : 1;
    return cmp_size(a->r, b->r);
}

static bool same_pair(const struct sb_point_result *a, const struct sb_point_result *b)
{
    return a->cfg.threads == b->cfg.threads &&
           sb_pace_rated(a->cfg.mode) == sb_pace_rated(b->cfg.mode) &&
           (!sb_pace_rated(a->cfg.mode) || same_rate(a->cfg.target_tps, b->cfg.target_tps));
}

/* Numbers the pairs and counts repetitions within each result, by sorting
 * (n log n: a linear scan per point made 100,000 points take minutes). */
static void group_entries(struct grid_ent *e, size_t total)
{
    size_t group = 0;

    qsort(e, total, sizeof(*e), ent_by_pair);
    for (size_t k = 0; k < total; k++) {
        if (k > 0 && !same_pair(e[k - 1].p, e[k].p))
            group++;
        e[k].group = group;
    }
    /* Rates equal within rounding may have interleaved results. */
    qsort(e, total, sizeof(*e), ent_by_group);
    for (size_t k = 0; k < total; k++)
        e[k].occ = k > 0 && e[k - 1].group == e[k].group && e[k - 1].r == e[k].r
                       ? e[k - 1].occ + 1 : 0;
    qsort(e, total, sizeof(*e), ent_by_key);
}

int sb_result_file_grid_build(struct sb_result_file_grid *g, const struct sb_result_file *res, size_t n)
{
    size_t total = 0, k = 0;
    struct grid_ent *e;

    memset(g, 0, sizeof(*g));
    g->nres = n;
    for (size_t r = 0; r < n; r++)
        total += res[r].npoints;
    g->keys = calloc(total ? total : 1, sizeof(*g->keys));
    e = calloc(total ? total : 1, sizeof(*e));
    if (g->keys == NULL || e == NULL) {
        free(e);
        sb_result_file_grid_free(g);
        return -1;
    }
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < res[r].npoints; i++) {
            if (res[r].points[i].grouped)
                continue; /* a later repeat: shown through its first run */
            e[k].p = &res[r].points[i];
            e[k].r = r;
            e[k].i = i;
            k++;
        }
    total = k;
    group_entries(e, total);
    for (k = 0; k < total; k++) {
        if (k == 0 || e[k].group != e[k - 1].group || e[k].occ != e[k - 1].occ) {
            struct sb_result_file_key *key = &g->keys[g->nkeys++];
            key->threads = e[k].p->cfg.threads;
            key->rate_mode = e[k].p->cfg.mode;
            key->target_tps = sb_pace_rated(e[k].p->cfg.mode) ? e[k].p->cfg.target_tps : NAN;
            key->occurrence = e[k].occ;
        }
    }
    g->cells = calloc(n * g->nkeys + 1, sizeof(*g->cells));
    if (g->cells == NULL) {
        free(e);
        sb_result_file_grid_free(g);
        return -1;
    }
    for (size_t key = 0, k2 = 0; k2 < total; k2++) {
        if (k2 > 0 && (e[k2].group != e[k2 - 1].group || e[k2].occ != e[k2 - 1].occ))
            key++;
        g->cells[e[k2].r * g->nkeys + key] = e[k2].p;
    }
    free(e);
    for (size_t j = 0; j < g->nkeys; j++) {
        if (sb_pace_rated(g->keys[j].rate_mode))
            g->any_rated = true;
        if (g->keys[j].threads != g->keys[0].threads)
            g->threads_vary = true;
        if (sb_pace_rated(g->keys[j].rate_mode) != sb_pace_rated(g->keys[0].rate_mode) ||
            !same_rate(g->keys[j].target_tps, g->keys[0].target_tps))
            g->rates_vary = true;
    }
    return 0;
}

const struct sb_point_result *sb_result_file_grid_cell(const struct sb_result_file_grid *g, size_t r,
                                                  size_t k)
{
    const struct sb_point_result *p =
        r < g->nres && k < g->nkeys ? g->cells[r * g->nkeys + k] : NULL;

    return p != NULL && sb_point_result_complete(p) ? p : NULL;
}

static void rate_name(char *buf, size_t len, const struct sb_result_file_key *k)
{
    if (sb_pace_rated(k->rate_mode))
        snprintf(buf, len, "%g", k->target_tps);
    else
        snprintf(buf, len, "max");
}

void sb_result_file_key_name(const struct sb_result_file_grid *g, size_t k, char *buf, size_t len)
{
    const struct sb_result_file_key *key = &g->keys[k];
    char rate[64];

    rate_name(rate, sizeof(rate), key);
    if (g->rates_vary && !g->threads_vary)
        snprintf(buf, len, "%s", rate);
    else if (g->rates_vary)
        snprintf(buf, len, "%u @ %s", key->threads, rate);
    else
        snprintf(buf, len, "%u", key->threads);
    if (key->occurrence > 0) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, " (#%u)", key->occurrence + 1);
    }
}

const char *sb_result_file_grid_axis(const struct sb_result_file_grid *g)
{
    if (g->rates_vary && !g->threads_vary)
        return "target rate (tx/s)";
    if (g->rates_vary)
        return "threads @ target rate (tx/s)";
    return "threads";
}

void sb_result_file_grid_free(struct sb_result_file_grid *g)
{
    free(g->keys);
    free(g->cells);
    memset(g, 0, sizeof(*g));
}
