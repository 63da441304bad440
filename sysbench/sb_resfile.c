/*
 * Result files read back; see sb_resfile.h.
 */
#include "config.h"

#include "sb_resfile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_empty(const char *s)
{
    return strdup(s != NULL ? s : "");
}

/* A non-negative integer field, for counts and nanoseconds; 0 when the
 * field is missing or not a number. */
static uint64_t get_u64(const struct sb_jv *v)
{
    double d = sb_jv_num(v);
    return d >= 0 && d < 1.8e19 ? (uint64_t)d : 0;
}

/* A repeat number: 1 when missing or out of range (a hand-edited file
 * must not make a cast overflow). */
static unsigned get_count(const struct sb_jv *v)
{
    double d = sb_jv_num(v);
    return d >= 1 && d <= 1e6 ? (unsigned)d : 1;
}

static void read_cpu(struct sb_resfile_cpu *c, const struct sb_jv *side)
{
    c->measured = sb_jv_true(sb_jv_get(side, "measured"));
    c->user_us = c->measured ? sb_jv_num(sb_jv_get(side, "user_us_per_tx")) : NAN;
    c->system_us = c->measured ? sb_jv_num(sb_jv_get(side, "system_us_per_tx")) : NAN;
    c->total_us = c->measured ? sb_jv_num(sb_jv_get(side, "total_us_per_tx")) : NAN;
}

/* Rebuilds the histogram from its buckets, skipping malformed ones: a
 * file edited by hand must not make the charts fail, only lose those
 * buckets. */
static int read_histogram(struct sb_resfile_point *pt, const struct sb_jv *h)
{
    const struct sb_jv *b = sb_jv_get(h, "buckets");
    size_t n = sb_jv_len(b);
    uint64_t max_ns = get_u64(sb_jv_get(h, "max_ns")), prev_high = 0;

    if (n == 0)
        return 0;
    pt->hist = malloc(sizeof(*pt->hist));
    if (pt->hist == NULL)
        return -1;
    sb_hist_reset(pt->hist);
    for (size_t i = 0; i < n; i++) {
        const struct sb_jv *e = sb_jv_at(b, i);
        uint64_t low, high, count;
        if (sb_jv_len(e) != 3)
            continue;
        low = get_u64(sb_jv_at(e, 0));
        high = get_u64(sb_jv_at(e, 1));
        count = get_u64(sb_jv_at(e, 2));
        if (count == 0 || high < low)
            continue;
        /* Buckets out of increasing order are as malformed as the rest. */
        if (pt->hist->total > 0 && low <= prev_high)
            continue;
        sb_hist_add_bucket(pt->hist, low, count);
        prev_high = high;
    }
    if (pt->hist->total == 0) {
        free(pt->hist);
        pt->hist = NULL;
        return 0;
    }
    /* The exact maximum caps the top percentiles, as in the run; a file
     * without it gives its last bucket's bound. */
    pt->hist->max_ns = max_ns > 0 ? max_ns : prev_high;
    return 0;
}

/* The interval series of a point; ncpus turns CPU shares into us/tx. */
static int read_intervals(struct sb_resfile_point *pt, const struct sb_jv *ivs, double ncpus)
{
    size_t n = sb_jv_len(ivs);
    const struct sb_jv *lm = sb_jv_path(ivs, "0.latency_ms");

    if (n == 0)
        return 0;
    for (size_t i = 0; lm != NULL && lm->type == SB_JV_OBJECT && i < lm->n && pt->niv_pcts < 16;
         i++) {
        char *end;
        double pct = strtod(lm->keys[i], &end);
        if (*end == '\0' && end != lm->keys[i])
            pt->iv_pcts[pt->niv_pcts++] = pct;
    }
    pt->iv_tps = calloc(n, sizeof(double));
    pt->iv_cpu_client = calloc(n, sizeof(double));
    pt->iv_cpu_server = calloc(n, sizeof(double));
    pt->iv_lat = calloc(n * (pt->niv_pcts ? pt->niv_pcts : 1), sizeof(double));
    if (pt->iv_tps == NULL || pt->iv_cpu_client == NULL || pt->iv_cpu_server == NULL ||
        pt->iv_lat == NULL)
        return -1;
    pt->niv = n;
    for (size_t i = 0; i < n; i++) {
        const struct sb_jv *iv = sb_jv_at(ivs, i);
        const struct sb_jv *l = sb_jv_get(iv, "latency_ms");
        double tps = sb_jv_num(sb_jv_get(iv, "tps"));
        pt->iv_tps[i] = tps;
        pt->iv_cpu_client[i] = tps > 0 ? sb_jv_num(sb_jv_path(iv, "cpu_pct.client")) * ncpus *
                                             1e4 / tps : NAN;
        pt->iv_cpu_server[i] = tps > 0 ? sb_jv_num(sb_jv_path(iv, "cpu_pct.server")) * ncpus *
                                             1e4 / tps : NAN;
        for (size_t j = 0; j < pt->niv_pcts; j++) {
            char key[32];
            snprintf(key, sizeof(key), "%g", pt->iv_pcts[j]);
            pt->iv_lat[i * pt->niv_pcts + j] = sb_jv_num(sb_jv_get(l, key));
        }
    }
    return 0;
}

static int read_point(struct sb_resfile_point *pt, const struct sb_jv *p, double ncpus)
{
    const struct sb_jv *fin = sb_jv_get(p, "final");
    const struct sb_jv *pm;
    const char *mode = sb_jv_str(sb_jv_get(p, "rate_mode"));
    double th = sb_jv_num(sb_jv_get(p, "threads"));

    memset(pt, 0, sizeof(*pt));
    pt->cfg.threads = th >= 0 && th < 1e9 ? (unsigned)th : 0;
    /* An unknown mode name from a newer writer is still a rate mode. */
    if (!sb_pace_mode_parse(mode, &pt->cfg.mode) && mode != NULL)
        pt->cfg.mode = SB_PACE_FIXED;
    pt->cfg.target_tps = sb_pace_rated(pt->cfg.mode) ? sb_jv_num(sb_jv_get(p, "target_tps")) : 0;
    pt->complete = sb_jv_true(sb_jv_get(p, "complete")) && fin != NULL &&
                   fin->type == SB_JV_OBJECT;
    pt->tps = pt->qps = pt->machine_busy_us = NAN;
    pt->cfg.repeat = get_count(sb_jv_get(p, "repeat"));
    pt->cfg.nrepeat = get_count(sb_jv_get(p, "repeats"));
    pt->client.user_us = pt->client.system_us = pt->client.total_us = NAN;
    pt->server = pt->client;
    if (!pt->complete)
        return 0;
    if (pt->cfg.mode == SB_PACE_FIXED && isfinite(sb_jv_num(sb_jv_path(fin, "rate.jitter_us"))))
        pt->cfg.jitter_us = sb_jv_num(sb_jv_path(fin, "rate.jitter_us"));
    pt->tps = sb_jv_num(sb_jv_get(fin, "tps"));
    pt->qps = sb_jv_num(sb_jv_get(fin, "qps"));
    read_cpu(&pt->client, sb_jv_path(fin, "cpu.client"));
    read_cpu(&pt->server, sb_jv_path(fin, "cpu.server"));
    if (sb_jv_true(sb_jv_path(fin, "cpu.machine.measured")))
        pt->machine_busy_us = sb_jv_num(sb_jv_path(fin, "cpu.machine.busy_us_per_tx"));
    pm = sb_jv_path(fin, "latency_ms.response.percentiles");
    if (pm != NULL && pm->type == SB_JV_OBJECT) {
        for (size_t i = 0; i < pm->n && pt->npcts < sizeof(pt->pcts) / sizeof(pt->pcts[0]); i++) {
            char *end;
            double pct = strtod(pm->keys[i], &end);
            if (*end != '\0' || end == pm->keys[i])
                continue;
            pt->pcts[pt->npcts] = pct;
            pt->pct_ms[pt->npcts++] = sb_jv_num(&pm->items[i]);
        }
    }
    if (read_intervals(pt, sb_jv_get(p, "intervals"), ncpus) != 0)
        return -1;
    return read_histogram(pt, sb_jv_get(p, "histogram"));
}

/* Folds the later runs of each --repeat group into its first run: a run
 * with repeat k > 1 belongs to the nearest earlier run with repeat 1 and
 * the same threads and rate. */
static int group_repeats(struct sb_resfile *r)
{
    for (size_t i = 0; i < r->npoints; i++) {
        struct sb_resfile_point *p = &r->points[i];
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
#define SB_RESFILE_MAX_VALUE 1e15

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
    const double max = SB_RESFILE_MAX_VALUE;
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

int sb_resfile_from_json(struct sb_resfile *r, const struct sb_jv *doc, const char *path,
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
    if (sb_jv_num(ver) != SB_RESFILE_FORMAT_VERSION) {
        char v[64];
        if (ver != NULL && ver->type == SB_JV_NUMBER)
            snprintf(v, sizeof(v), "%g", ver->number);
        else
            snprintf(v, sizeof(v), "%s", ver == NULL ? "missing" : "not a number");
        snprintf(err, errlen, "'%s' has format_version %s; this sysbench reads version %d", path,
                 v, SB_RESFILE_FORMAT_VERSION);
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
    r->points = calloc(pts->n, sizeof(*r->points));
    if (r->path == NULL || r->label == NULL || r->script == NULL || r->server_version == NULL ||
        r->allocator == NULL || r->started_at == NULL || r->points == NULL)
        goto oom;
    for (size_t i = 0; i < pts->n; i++) {
        double ncpus = sb_jv_num(sb_jv_path(doc, "environment.cpu.online"));
        r->npoints++;
        if (read_point(&r->points[i], &pts->items[i], ncpus > 0 ? ncpus : NAN) != 0)
            goto oom;
    }
    if (group_repeats(r) != 0)
        goto oom;
    return 0;
oom:
    sb_resfile_free(r);
    snprintf(err, errlen, "cannot read '%s': out of memory", path);
    return -1;
}

int sb_resfile_load(struct sb_resfile *r, const char *path, const char *label,
                   char *err, size_t errlen)
{
    struct sb_jv *doc = sb_jv_parse_file(path, err, errlen);
    int rc;

    memset(r, 0, sizeof(*r));
    if (doc == NULL)
        return -1;
    rc = sb_resfile_from_json(r, doc, path, label, err, errlen);
    sb_jv_free(doc);
    return rc;
}

void sb_resfile_free(struct sb_resfile *r)
{
    for (size_t i = 0; i < r->npoints; i++) {
        free(r->points[i].hist);
        free(r->points[i].reps);
        free(r->points[i].iv_tps);
        free(r->points[i].iv_cpu_client);
        free(r->points[i].iv_cpu_server);
        free(r->points[i].iv_lat);
    }
    free(r->points);
    free(r->path);
    free(r->label);
    free(r->script);
    free(r->server_version);
    free(r->allocator);
    free(r->started_at);
    memset(r, 0, sizeof(*r));
}

double sb_resfile_percentile_ms(const struct sb_resfile_point *p, double pct)
{
    /* Without buckets, only a percentile the run stored is known. */
    if (p->hist == NULL) {
        for (size_t i = 0; i < p->npcts; i++)
            if (fabs(p->pcts[i] - pct) < 1e-9)
                return p->pct_ms[i];
        return NAN;
    }
    return (double)sb_hist_percentile(p->hist, pct) / 1e6;
}

char *sb_resfile_default_label(const char *path)
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
    const struct sb_resfile_point *p;
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

static bool same_pair(const struct sb_resfile_point *a, const struct sb_resfile_point *b)
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

int sb_resfile_grid_build(struct sb_resfile_grid *g, const struct sb_resfile *res, size_t n)
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
        sb_resfile_grid_free(g);
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
            struct sb_resfile_key *key = &g->keys[g->nkeys++];
            key->threads = e[k].p->cfg.threads;
            key->rate_mode = e[k].p->cfg.mode;
            key->target_tps = sb_pace_rated(e[k].p->cfg.mode) ? e[k].p->cfg.target_tps : NAN;
            key->occurrence = e[k].occ;
        }
    }
    g->cells = calloc(n * g->nkeys + 1, sizeof(*g->cells));
    if (g->cells == NULL) {
        free(e);
        sb_resfile_grid_free(g);
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

const struct sb_resfile_point *sb_resfile_grid_cell(const struct sb_resfile_grid *g, size_t r,
                                                  size_t k)
{
    const struct sb_resfile_point *p =
        r < g->nres && k < g->nkeys ? g->cells[r * g->nkeys + k] : NULL;

    return p != NULL && p->complete ? p : NULL;
}

static void rate_name(char *buf, size_t len, const struct sb_resfile_key *k)
{
    if (sb_pace_rated(k->rate_mode))
        snprintf(buf, len, "%g", k->target_tps);
    else
        snprintf(buf, len, "max");
}

void sb_resfile_key_name(const struct sb_resfile_grid *g, size_t k, char *buf, size_t len)
{
    const struct sb_resfile_key *key = &g->keys[k];
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

const char *sb_resfile_grid_axis(const struct sb_resfile_grid *g)
{
    if (g->rates_vary && !g->threads_vary)
        return "target rate (tx/s)";
    if (g->rates_vary)
        return "threads @ target rate (tx/s)";
    return "threads";
}

void sb_resfile_grid_free(struct sb_resfile_grid *g)
{
    free(g->keys);
    free(g->cells);
    memset(g, 0, sizeof(*g));
}

double sb_resfile_fig(const struct sb_resfile_point *p, enum sb_resfile_fig f, double pct)
{
    if (!p->complete)
        return NAN;
    switch (f) {
    case SB_RESFILE_TPS:
        return p->tps;
    case SB_RESFILE_LATENCY:
        return sb_resfile_percentile_ms(p, pct);
    case SB_RESFILE_CPU_CLIENT:
        return p->client.total_us;
    case SB_RESFILE_CPU_SERVER:
        return p->server.total_us;
    case SB_RESFILE_CPU_MACHINE:
        return p->machine_busy_us;
    }
    return NAN;
}

size_t sb_resfile_fig_runs(const struct sb_resfile_point *p, enum sb_resfile_fig f, double pct,
                           double *out, size_t max)
{
    size_t n = 0;

    if (p->nreps == 0) {
        if (max > 0)
            out[n++] = sb_resfile_fig(p, f, pct);
        return n;
    }
    for (size_t i = 0; i < p->nreps && n < max; i++)
        out[n++] = sb_resfile_fig(p->reps[i], f, pct);
    return n;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double sb_resfile_fig_median(const struct sb_resfile_point *p, enum sb_resfile_fig f,
                             double pct)
{
    double v[1024];
    size_t n = sb_resfile_fig_runs(p, f, pct, v, 1024), m = 0;

    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            v[m++] = v[i];
    if (m == 0)
        return NAN;
    qsort(v, m, sizeof(v[0]), cmp_dbl);
    return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

size_t sb_resfile_fig_intervals(const struct sb_resfile_point *p, enum sb_resfile_fig f,
                                double pct, double *out, size_t max)
{
    size_t n = p->niv < max ? p->niv : max;

    for (size_t i = 0; i < n; i++) {
        switch (f) {
        case SB_RESFILE_TPS:
            out[i] = p->iv_tps[i];
            break;
        case SB_RESFILE_CPU_CLIENT:
            out[i] = p->iv_cpu_client[i];
            break;
        case SB_RESFILE_CPU_SERVER:
            out[i] = p->iv_cpu_server[i];
            break;
        case SB_RESFILE_LATENCY: {
            size_t j = 0;
            while (j < p->niv_pcts && fabs(p->iv_pcts[j] - pct) > 1e-9)
                j++;
            if (j == p->niv_pcts)
                return 0;
            out[i] = p->iv_lat[i * p->niv_pcts + j];
            break;
        }
        default:
            return 0;
        }
    }
    return n;
}
