/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The merge command: checks that result files are the instances of one
 * experiment and combines them; see sb_merge.h.
 */
#include "results/sb_merge.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pure/sb_histogram.h"
#include "core/sb_safefile.h"
#include "results/sb_result_fields.h"

struct merge_in {
    const char *path;
    struct sb_jv *doc;     /* owned */
    unsigned index;        /* instance.index */
};

struct merge {
    struct merge_in *in;   /* sorted by index once checked */
    size_t n;
    struct sb_jv *out;     /* in[0].doc, edited into the result */
    bool bound[2];         /* service [0], lag [1]: some point only bounded */
    bool allow_missing;    /* --allow-missing: a partial merge */
    char err[1024];
};

/* General options that may differ between the instances of one run: the
 * instance's identity and where it writes its own files (each instance
 * names its outputs, e.g. --log=so1.log), which change nothing measured. */
static const char *const per_instance_options[] = {
    "instance", "instances", "clock-offset", "json", "csv", "plot", "hgrm", "log", "server-pid",
    "verbosity", "debug", "config-file", "help", "version", "metrics-listen", "metrics-file",
    "metrics-linger", NULL
};

static int fail(struct merge *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct merge *m, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(m->err, sizeof(m->err), fmt, ap);
    va_end(ap);
    return -1;
}

bool sb_merge_requested(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            continue;
        return strcmp(argv[i], "merge") == 0;
    }
    return false;
}

static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;

    return s ? s + 1 : path ? path : "";
}

/* ------------------------------------------------------------ checks */

static int load_one(struct merge *m, struct merge_in *in)
{
    const struct sb_jv *inst;
    double idx;
    char err[512];

    in->doc = sb_jv_parse_file(in->path, m->err, sizeof(m->err));
    if (in->doc == NULL)
        return -1;
    if (sb_jv_str(sb_jv_get(in->doc, "format")) == NULL ||
        strcmp(sb_jv_str(sb_jv_get(in->doc, "format")), "sysbench-result") != 0 ||
        sb_jv_num(sb_jv_get(in->doc, "format_version")) != 1)
        return fail(m, "cannot merge: '%s' is not a sysbench result file (format_version 1)",
                    in->path);
    if (sb_jv_get(in->doc, "merged") != NULL)
        return fail(m, "cannot merge: '%s' is already a merged result", in->path);
    inst = sb_jv_get(in->doc, "instance");
    if (inst == NULL || inst->type != SB_JV_OBJECT)
        return fail(m, "cannot merge: '%s' has no instance member (written by an older version)",
                    in->path);
    /* Every number merge reads, in range before any is used. */
    if (sb_result_fields_check(in->doc, in->path, err, sizeof(err)) != 0)
        return fail(m, "cannot merge: %s", err);
    idx = sb_jv_num(sb_jv_get(inst, "index"));
    in->index = (unsigned)idx;
    return 0;
}

static int cmp_index(const void *a, const void *b)
{
    const struct merge_in *x = a, *y = b;

    return x->index < y->index ? -1 : x->index > y->index;
}

/* N files, instances 0..N-1, each once, all of N. */
static int check_instances(struct merge *m)
{
    double count = sb_jv_num(sb_jv_path(m->in[0].doc, "instance.count"));

    qsort(m->in, m->n, sizeof(*m->in), cmp_index);
    for (size_t i = 0; i < m->n; i++) {
        double c = sb_jv_num(sb_jv_path(m->in[i].doc, "instance.count"));
        if (c != count)
            return fail(m, "cannot merge: '%s' is one of %g instances, '%s' one of %g",
                        m->in[0].path, count, m->in[i].path, c);
        if (i > 0 && m->in[i].index == m->in[i - 1].index)
            return fail(m, "cannot merge: '%s' and '%s' are both instance %u",
                        m->in[i - 1].path, m->in[i].path, m->in[i].index);
    }
    if (m->in[m->n - 1].index >= count)
        return fail(m, "cannot merge: '%s' is instance %u of %g", m->in[m->n - 1].path,
                    m->in[m->n - 1].index, count);
    for (size_t i = 0; i < (size_t)count && !m->allow_missing; i++)
        if (i >= m->n || m->in[i].index != i)
            return fail(m, "cannot merge: instance %zu of %g is missing (--allow-missing merges the others, labelled partial)",
                        i, count);
    if (m->n != (size_t)count && !m->allow_missing)
        return fail(m, "cannot merge: %zu files for %g instances", m->n, count);
    return 0;
}

static bool ignored_option(const char *name)
{
    for (size_t i = 0; per_instance_options[i] != NULL; i++)
        if (strcmp(name, per_instance_options[i]) == 0)
            return true;
    return false;
}

/* Options of set (general or script) that differ between a and b. */
static int check_options(struct merge *m, const struct merge_in *a, const struct merge_in *b,
                         const char *set)
{
    const struct sb_jv *oa = sb_jv_get(sb_jv_get(a->doc, "options"), set);
    const struct sb_jv *ob = sb_jv_get(sb_jv_get(b->doc, "options"), set);

    for (size_t i = 0; oa != NULL && i < oa->n; i++) {
        if (ignored_option(sb_jv_key(oa, i)))
            continue;
        if (!sb_merge_jv_equal(&oa->items[i], sb_jv_get(ob, sb_jv_key(oa, i))))
            return fail(m, "cannot merge: option --%s differs between '%s' and '%s'",
                        sb_jv_key(oa, i), a->path, b->path);
    }
    if (oa != NULL && ob != NULL && oa->n != ob->n)
        return fail(m, "cannot merge: '%s' and '%s' have different %s options", a->path,
                    b->path, set);
    return 0;
}

/* Whether histogram hv has this build's layout. An optional one may be
 * absent (service and lag: merge_latency then bounds that figure). */
static bool same_layout(const struct sb_jv *hv, bool optional)
{
    return (optional && (hv == NULL || hv->type == SB_JV_NULL)) ||
           (sb_jv_num(sb_jv_get(hv, "sub_bucket_bits")) == SB_HIST_SUB_BITS &&
            sb_jv_num(sb_jv_get(hv, "limit_ns")) == (double)SB_HIST_MAX_NS);
}

static int check_points(struct merge *m, const struct merge_in *a, const struct merge_in *b)
{
    const struct sb_jv *pa = sb_jv_get(a->doc, "points"), *pb = sb_jv_get(b->doc, "points");

    if (sb_jv_len(pa) != sb_jv_len(pb) || sb_jv_len(pa) == 0)
        return fail(m, "cannot merge: '%s' and '%s' have different sweeps", a->path, b->path);
    for (size_t i = 0; i < sb_jv_len(pa); i++) {
        const struct sb_jv *x = sb_jv_at(pa, i), *y = sb_jv_at(pb, i);
        if (!sb_merge_jv_equal(sb_jv_get(x, "threads"), sb_jv_get(y, "threads")) ||
            !sb_merge_jv_equal(sb_jv_get(x, "rate_mode"), sb_jv_get(y, "rate_mode")))
            return fail(m, "cannot merge: point %zu differs between '%s' and '%s'", i + 1,
                        a->path, b->path);
        if (!sb_jv_true(sb_jv_get(y, "complete")) || !sb_jv_true(sb_jv_get(x, "complete")))
            return fail(m, "cannot merge: point %zu of '%s' is not complete", i + 1,
                        sb_jv_true(sb_jv_get(x, "complete")) ? b->path : a->path);
        if (isnan(sb_jv_num(sb_jv_get(y, "start_unix_s"))))
            return fail(m, "cannot merge: point %zu of '%s' has no start_unix_s", i + 1, b->path);
        if (!same_layout(sb_jv_get(y, "histogram"), false) ||
            !same_layout(sb_jv_path(y, "histograms.service"), true) ||
            !same_layout(sb_jv_path(y, "histograms.lag"), true))
            return fail(m, "cannot merge: the histogram of point %zu of '%s' has another layout",
                        i + 1, b->path);
    }
    return 0;
}

/* The instances ran at the same time: their starts are less than --time
 * apart (a run without --time is not checked). */
static int check_overlap(struct merge *m)
{
    double lim = sb_jv_num(sb_jv_path(m->in[0].doc, "options.general.time"));
    double lo = NAN, hi = NAN;

    for (size_t i = 0; i < m->n; i++) {
        double t = sb_jv_num(sb_jv_path(m->in[i].doc, "points.0.start_unix_s"));
        if (isnan(lo) || t < lo)
            lo = t;
        if (isnan(hi) || t > hi)
            hi = t;
    }
    if (lim > 0 && hi - lo >= lim)
        return fail(m, "cannot merge: the instances started %.1f s apart, more than --time=%g: not one run",
                    hi - lo, lim);
    return 0;
}

/* Everything that makes the files one experiment. */
static int check_same(struct merge *m)
{
    const struct merge_in *a = &m->in[0];

    for (size_t i = 0; i < m->n; i++) {
        const struct merge_in *b = &m->in[i];
        if (strcmp(base_name(sb_jv_str(sb_jv_get(a->doc, "script"))),
                   base_name(sb_jv_str(sb_jv_get(b->doc, "script")))) != 0)
            return fail(m, "cannot merge: '%s' ran %s, '%s' ran %s", a->path,
                        base_name(sb_jv_str(sb_jv_get(a->doc, "script"))), b->path,
                        base_name(sb_jv_str(sb_jv_get(b->doc, "script"))));
        if (!sb_merge_jv_equal(sb_jv_get(a->doc, "command"), sb_jv_get(b->doc, "command")))
            return fail(m, "cannot merge: '%s' and '%s' ran different commands", a->path, b->path);
        if (!sb_merge_jv_equal(sb_jv_path(a->doc, "options.general.rand-seed"),
                      sb_jv_path(b->doc, "options.general.rand-seed")))
            return fail(m, "cannot merge: '%s' and '%s' have different --rand-seed", a->path,
                        b->path);
        if (!sb_merge_jv_equal(sb_jv_path(a->doc, "instance.start_at"),
                      sb_jv_path(b->doc, "instance.start_at")))
            return fail(m, "cannot merge: '%s' and '%s' have different --start-at", a->path,
                        b->path);
        if (check_options(m, a, b, "general") != 0 || check_options(m, a, b, "script") != 0 ||
            check_points(m, a, b) != 0)
            return -1;
        if (!sb_merge_jv_equal(sb_jv_get(a->doc, "percentiles"), sb_jv_get(b->doc, "percentiles")))
            return fail(m, "cannot merge: '%s' and '%s' report different percentiles", a->path,
                        b->path);
    }
    return check_overlap(m);
}

/* ------------------------------------------------------------ merging */

/* Point p of instance i. */
static struct sb_jv *point_of(struct merge *m, size_t i, size_t p)
{
    return (struct sb_jv *)sb_jv_at(sb_jv_get(m->in[i].doc, "points"), p);
}

/* A writable node at a dotted path (no dots in the names). */
static struct sb_jv *at(struct sb_jv *v, const char *path)
{
    return (struct sb_jv *)sb_jv_path(v, path);
}

static void put(struct sb_jv *v, const char *path, double x)
{
    struct sb_jv *n = at(v, path);

    if (n == NULL)
        return;
    sb_merge_clear(n);
    if (!isnan(x)) {
        n->type = SB_JV_NUMBER;
        n->number = x;
    }
}

static double sum(struct merge *m, size_t p, const char *path)
{
    double s = 0;

    for (size_t i = 0; i < m->n; i++)
        s += sb_jv_num(sb_jv_path(point_of(m, i, p), path));
    return s;
}

static double extreme(struct merge *m, size_t p, const char *path, bool largest)
{
    double r = NAN;

    for (size_t i = 0; i < m->n; i++) {
        double x = sb_jv_num(sb_jv_path(point_of(m, i, p), path));
        if (!isnan(x) && (isnan(r) || (largest ? x > r : x < r)))
            r = x;
    }
    return r;
}

/* Each member of the percentile map at path becomes the largest of the
 * instances' values (maps keyed "99.9" cannot be reached by path). */
static void max_map(struct sb_jv *dst, struct sb_jv *const *src, size_t n)
{
    for (size_t k = 0; dst != NULL && dst->type == SB_JV_OBJECT && k < dst->n; k++) {
        double r = NAN;
        for (size_t i = 0; i < n; i++) {
            double x = sb_jv_num(sb_jv_get(src[i], sb_jv_key(dst, k)));
            if (!isnan(x) && (isnan(r) || x > r))
                r = x;
        }
        sb_merge_clear(&dst->items[k]);
        if (!isnan(r)) {
            dst->items[k].type = SB_JV_NUMBER;
            dst->items[k].number = r;
        }
    }
}

/* The instance whose measurement of the server is used (lowest index
 * that measured it; 0 when none did). */
static size_t server_instance(struct merge *m, size_t p)
{
    for (size_t i = 0; i < m->n; i++)
        if (sb_jv_true(sb_jv_path(point_of(m, i, p), "final.cpu.server.measured")))
            return i;
    return 0;
}

/* A new element at the end of array a (null), or NULL when out of memory.
 * Moves a's other elements. */
static struct sb_jv *append(struct sb_jv *a)
{
    struct sb_jv *items = realloc(a->items, (a->n + 1) * sizeof(*items));

    if (items == NULL)
        return NULL;
    a->items = items;
    memset(&items[a->n], 0, sizeof(*items));
    return &items[a->n++];
}

static void make(struct sb_jv *v, enum sb_jv_type t)
{
    sb_merge_clear(v);
    v->type = t;
}

/* x as a uint64_t into *out; what (a field of point p) is named when x
 * is missing or beyond 2^64 (a sum of in-range values can be). */
static int to_u64(struct merge *m, double x, size_t p, const char *what, uint64_t *out)
{
    if (!(x >= 0 && x < 18446744073709551616.0))
        return fail(m, "cannot merge: the %s of point %zu is %g, not a count of 0..2^64", what,
                    p + 1, x);
    *out = (uint64_t)x;
    return 0;
}

/* The union of the instances' histograms at key (a dotted path of a
 * point: "histogram", "histograms.service"), bucket by bucket, with the
 * exact sums and extremes. */
static int merge_hist(struct merge *m, size_t p, const char *key, struct sb_hist *h)
{
    char path[96];
    double want = 0;

    sb_hist_reset(h);
    for (size_t i = 0; i < m->n; i++) {
        const struct sb_jv *hv = sb_jv_path(point_of(m, i, p), key);
        const struct sb_jv *b = sb_jv_get(hv, "buckets");
        for (size_t k = 0; k < sb_jv_len(b); k++) {
            double low = sb_jv_num(sb_jv_at(sb_jv_at(b, k), 0));
            double cnt = sb_jv_num(sb_jv_at(sb_jv_at(b, k), 2));
            if (!(low >= 0) || !(cnt >= 0))
                return fail(m, "cannot merge: a histogram bucket of '%s' is malformed",
                            m->in[i].path);
            sb_hist_add_bucket(h, (uint64_t)low, (uint64_t)cnt);
        }
        want += sb_jv_num(sb_jv_get(hv, "count"));
    }
    if ((double)h->total != want)
        return fail(m, "cannot merge: the %s counts of point %zu do not add up", key, p + 1);
    snprintf(path, sizeof(path), "%s.sum_ns", key);
    if (to_u64(m, sum(m, p, path), p, path, &h->sum_ns) != 0)
        return -1;
    snprintf(path, sizeof(path), "%s.clamped", key);
    if (to_u64(m, sum(m, p, path), p, path, &h->clamped) != 0)
        return -1;
    if (h->total > 0) {
        snprintf(path, sizeof(path), "%s.min_ns", key);
        if (to_u64(m, extreme(m, p, path, false), p, path, &h->min_ns) != 0)
            return -1;
        snprintf(path, sizeof(path), "%s.max_ns", key);
        if (to_u64(m, extreme(m, p, path, true), p, path, &h->max_ns) != 0)
            return -1;
    }
    return 0;
}

/* Writes h into the histogram object hv (buckets in the form of
 * sb_hist_json.h). Returns 0, or -1 when out of memory. */
static int put_hist(struct sb_jv *hv, const struct sb_hist *h)
{
    struct sb_jv *b;
    bool any = h->total > 0;

    put(hv, "count", (double)h->total);
    put(hv, "sum_ns", (double)h->sum_ns);
    put(hv, "min_ns", any ? (double)h->min_ns : NAN);
    put(hv, "max_ns", any ? (double)h->max_ns : NAN);
    put(hv, "clamped", (double)h->clamped);
    if ((b = sb_merge_get(hv, "buckets")) == NULL)
        return 0;
    make(b, SB_JV_ARRAY);
    for (size_t k = 0; k < SB_HIST_BUCKETS; k++) {
        struct sb_jv *e;
        if (h->counts[k] == 0)
            continue;
        if ((e = append(b)) == NULL)
            return -1;
        make(e, SB_JV_ARRAY);
        e->items = calloc(3, sizeof(*e->items));
        if (e->items == NULL)
            return -1;
        e->n = 3;
        e->items[0].type = e->items[1].type = e->items[2].type = SB_JV_NUMBER;
        e->items[0].number = (double)sb_hist_bucket_low(k);
        e->items[1].number = (double)sb_hist_bucket_high(k);
        e->items[2].number = (double)h->counts[k];
    }
    return 0;
}

/* The figures of a final latency_ms object from h, percentiles by the
 * run's own rule (sb_hist_percentile), as a run computes them. */
static void put_latency(struct sb_jv *lat, const struct sb_hist *h)
{
    struct sb_jv *pm;
    bool any = h->total > 0;

    put(lat, "count", (double)h->total);
    put(lat, "min", any ? (double)h->min_ns / 1e6 : NAN);
    put(lat, "avg", any ? sb_hist_mean(h) / 1e6 : NAN);
    put(lat, "max", any ? (double)h->max_ns / 1e6 : NAN);
    put(lat, "sum", (double)h->sum_ns / 1e6);
    pm = sb_merge_get(lat, "percentiles");
    for (size_t k = 0; pm != NULL && pm->type == SB_JV_OBJECT && k < pm->n; k++) {
        make(&pm->items[k], SB_JV_NUMBER);
        pm->items[k].number = (double)sb_hist_percentile(h, strtod(sb_jv_key(pm, k), NULL)) / 1e6;
    }
}

/* Service time or lag without a histogram in every file: counts, sums and
 * extremes are exact and the percentiles the largest of the instances'. */
static void merge_latency_bound(struct merge *m, size_t p, const char *name)
{
    char path[96];
    struct sb_jv *src[m->n], *dst;
    double count, total;

    snprintf(path, sizeof(path), "final.latency_ms.%s", name);
    dst = at(point_of(m, 0, p), path);
    if (dst == NULL)
        return;
    for (size_t i = 0; i < m->n; i++)
        src[i] = sb_merge_get(at(point_of(m, i, p), path), "percentiles");
    snprintf(path, sizeof(path), "final.latency_ms.%s.count", name);
    count = sum(m, p, path);
    snprintf(path, sizeof(path), "final.latency_ms.%s.sum", name);
    total = sum(m, p, path);
    snprintf(path, sizeof(path), "final.latency_ms.%s.min", name);
    put(dst, "min", extreme(m, p, path, false));
    snprintf(path, sizeof(path), "final.latency_ms.%s.max", name);
    put(dst, "max", extreme(m, p, path, true));
    put(dst, "count", count);
    put(dst, "sum", total);
    put(dst, "avg", count > 0 ? total / count : NAN);
    max_map(sb_merge_get(dst, "percentiles"), src, m->n);
}

/* Service time or lag (name) of point p. In a rate mode with the
 * histogram in every file: the histograms' union, written to
 * histograms.NAME, and the figures computed from it; otherwise the
 * bound above, histograms.NAME removed (it would be one instance's) and
 * the figure marked inexact. Closed loop records neither (count 0): the
 * bound is then exact. */
static int merge_latency(struct merge *m, size_t p, const char *name, struct sb_hist *h)
{
    char key[64], path[96];
    struct sb_jv *pt = point_of(m, 0, p), *hs = sb_merge_get(pt, "histograms");
    bool all = true;

    snprintf(key, sizeof(key), "histograms.%s", name);
    for (size_t i = 0; i < m->n; i++)
        if (sb_jv_get(sb_jv_path(point_of(m, i, p), key), "buckets") == NULL)
            all = false;
    if (!all) {
        merge_latency_bound(m, p, name);
        if (sb_merge_get(hs, name) != NULL)
            sb_merge_clear(sb_merge_get(hs, name));
        if (sb_jv_str(sb_jv_get(pt, "rate_mode")) != NULL &&
            strcmp(sb_jv_str(sb_jv_get(pt, "rate_mode")), "none") != 0)
            m->bound[strcmp(name, "lag") == 0] = true;
        return 0;
    }
    if (merge_hist(m, p, key, h) != 0)
        return -1;
    if (put_hist(at(pt, key), h) != 0)
        return fail(m, "out of memory");
    snprintf(path, sizeof(path), "final.latency_ms.%s", name);
    put_latency(at(pt, path), h);
    return 0;
}

/* errors.by_code: counts of equal (code, kind) added. */
static int merge_codes(struct merge *m, size_t p)
{
    struct sb_jv *dst = at(point_of(m, 0, p), "final.errors.by_code");

    for (size_t i = 1; dst != NULL && i < m->n; i++) {
        const struct sb_jv *src = sb_jv_path(point_of(m, i, p), "final.errors.by_code");
        for (size_t k = 0; k < sb_jv_len(src); k++) {
            const struct sb_jv *e = sb_jv_at(src, k);
            struct sb_jv *d = NULL;
            for (size_t j = 0; j < dst->n && d == NULL; j++)
                if (sb_merge_jv_equal(sb_jv_get(&dst->items[j], "code"), sb_jv_get(e, "code")) &&
                    sb_merge_jv_equal(sb_jv_get(&dst->items[j], "kind"), sb_jv_get(e, "kind")))
                    d = &dst->items[j];
            if (d == NULL) {
                if ((d = append(dst)) == NULL)
                    return -1;
                make(d, SB_JV_OBJECT);
                if (sb_merge_set_str(d, "code", sb_jv_str(sb_jv_get(e, "code"))) != 0 ||
                    sb_merge_set_str(d, "kind", sb_jv_str(sb_jv_get(e, "kind"))) != 0 ||
                    sb_merge_set_num(d, "count", 0) != 0)
                    return -1;
            }
            put(d, "count", sb_jv_num(sb_jv_get(d, "count")) + sb_jv_num(sb_jv_get(e, "count")));
        }
    }
    return 0;
}

static void merge_counts(struct merge *m, size_t p)
{
    static const char *const summed[] = {
        "final.events", "final.queries.reads", "final.queries.writes", "final.queries.other",
        "final.queries.total", "final.tps", "final.qps", "final.errors.ignored",
        "final.errors.reconnects", "final.errors.ignored_per_s", "final.errors.reconnects_per_s",
        "final.rate.target_tps", "final.rate.achieved_tps", "final.rate.late_starts",
        "final.rate.skipped", "final.rate.max_backlog", "target_tps", "threads", NULL
    };
    struct sb_jv *pt = point_of(m, 0, p);
    double v[32];
    size_t k;

    for (k = 0; summed[k] != NULL; k++)
        v[k] = sum(m, p, summed[k]);
    for (k = 0; summed[k] != NULL; k++)
        if (sb_jv_num(sb_jv_path(pt, summed[k])) == sb_jv_num(sb_jv_path(pt, summed[k])))
            put(pt, summed[k], v[k]);
    /* Rates add up; the time is the one they imply. */
    put(pt, "final.time_s", v[5] > 0 ? v[0] / v[5] : extreme(m, p, "final.time_s", true));
    put(pt, "start_unix_s", extreme(m, p, "start_unix_s", false));
    if (at(pt, "final.rate.target_tps") != NULL &&
        sb_jv_num(sb_jv_path(pt, "final.rate.target_tps")) > 0) {
        put(pt, "final.rate.achieved_pct",
            100.0 * v[12] / sb_jv_num(sb_jv_path(pt, "final.rate.target_tps")));
        put(pt, "final.rate.late_pct", v[0] > 0 ? 100.0 * v[13] / v[0] : 0);
    }
    for (size_t i = 0; i < m->n; i++)
        if (sb_jv_true(sb_jv_get(point_of(m, i, p), "interrupted"))) {
            make(sb_merge_get(pt, "interrupted"), SB_JV_BOOL);
            sb_merge_get(pt, "interrupted")->boolean = true;
        }
}

/* One side's per-transaction figures rescaled from tx_from to tx_to
 * transactions. */
static void rescale(struct sb_jv *side, double tx_from, double tx_to)
{
    static const char *const per_tx[] = {"user_us_per_tx", "system_us_per_tx",
                                         "total_us_per_tx", "busy_us_per_tx", NULL};

    for (size_t k = 0; per_tx[k] != NULL && tx_to > 0; k++) {
        double x = sb_jv_num(sb_jv_get(side, per_tx[k]));
        if (!isnan(x))
            put(side, per_tx[k], x * tx_from / tx_to);
    }
}

/* Client CPU summed over instances; server (and machine) once, from the
 * instance that measured the server, spread over all transactions. */
static int merge_cpu(struct merge *m, size_t p)
{
    struct sb_jv *cpu = at(point_of(m, 0, p), "final.cpu"), *threads;
    size_t s = server_instance(m, p);
    const struct sb_jv *scpu = sb_jv_path(point_of(m, s, p), "final.cpu");
    double tx = sum(m, p, "final.cpu.transactions"), tx_s = sb_jv_num(sb_jv_get(scpu, "transactions"));
    double user = 0, sys = 0, cap = 0, csum = sum(m, p, "final.cpu.client.cpu_s");

    if (cpu == NULL || cpu->type != SB_JV_OBJECT)
        return 0;
    for (size_t i = 0; i < m->n; i++) {
        const struct sb_jv *c = sb_jv_path(point_of(m, i, p), "final.cpu");
        double t = sb_jv_num(sb_jv_get(c, "transactions"));
        user += sb_jv_num(sb_jv_path(c, "client.user_us_per_tx")) * t;
        sys += sb_jv_num(sb_jv_path(c, "client.system_us_per_tx")) * t;
        cap += sb_jv_num(sb_jv_get(c, "elapsed_s")) * sb_jv_num(sb_jv_get(c, "ncpus"));
    }
    put(cpu, "transactions", tx);
    put(cpu, "elapsed_s", extreme(m, p, "final.cpu.elapsed_s", true));
    put(cpu, "client.cpu_s", csum);
    put(cpu, "client.user_us_per_tx", tx > 0 ? user / tx : NAN);
    put(cpu, "client.system_us_per_tx", tx > 0 ? sys / tx : NAN);
    put(cpu, "client.total_us_per_tx", tx > 0 ? (user + sys) / tx : NAN);
    put(cpu, "client.util_pct", cap > 0 ? 100.0 * csum / cap : NAN);
    if (s != 0) {
        /* Take the measuring instance's server and machine objects. */
        const char *sides[] = {"server", "machine", "server_processes"};
        for (size_t k = 0; k < 3; k++) {
            struct sb_jv *d = sb_merge_get(cpu, sides[k]);
            struct sb_jv *src = sb_merge_get((struct sb_jv *)scpu, sides[k]);
            if (d == NULL || src == NULL)
                continue;
            sb_merge_clear(d);
            *d = *src;                 /* moved: the source is not used again */
            memset(src, 0, sizeof(*src));
            src->type = SB_JV_NULL;
        }
    }
    rescale(sb_merge_get(cpu, "server"), tx_s, tx);
    rescale(sb_merge_get(cpu, "machine"), tx_s, tx);
    /* Per-thread CPU: every instance's threads, numbered globally. */
    threads = sb_merge_get(cpu, "threads");
    for (size_t i = 1; threads != NULL && threads->type == SB_JV_ARRAY && i < m->n; i++) {
        struct sb_jv *t = at(point_of(m, i, p), "final.cpu.threads"), *items;
        if (t == NULL || t->type != SB_JV_ARRAY || t->n == 0)
            continue;
        /* One allocation per instance: appending one by one would copy
         * the array once per thread. */
        items = realloc(threads->items, (threads->n + t->n) * sizeof(*items));
        if (items == NULL)
            return -1;
        threads->items = items;
        memcpy(&items[threads->n], t->items, t->n * sizeof(*items));   /* moved */
        threads->n += t->n;
        free(t->items);
        t->items = NULL;
        t->n = 0;
    }
    /* Instance I's threads follow I-1's: the index is the global one. */
    for (size_t k = 0; threads != NULL && threads->type == SB_JV_ARRAY && k < threads->n; k++)
        put(&threads->items[k], "thread", (double)k);
    return 0;
}

/* Slot of an interval of instance i: its end in absolute time, counted in
 * interval lengths from the earliest start. */
static long slot_of(struct merge *m, size_t i, size_t p, const struct sb_jv *iv, double t_b,
                    double len)
{
    double end = sb_jv_num(sb_jv_get(point_of(m, i, p), "start_unix_s")) +
                 sb_jv_num(sb_jv_get(iv, "time_s"));

    return lround((end - t_b) / len);
}

/* A percentile map with src's keys, each the largest of g's maps. */
static int pct_map(struct sb_jv *o, const char *key, struct sb_jv *const *g, size_t n)
{
    struct sb_jv *src[n], *d = sb_merge_set(o, key);
    const struct sb_jv *first = sb_jv_get(g[0], key);

    if (d == NULL)
        return -1;
    make(d, SB_JV_OBJECT);
    for (size_t k = 0; first != NULL && k < first->n; k++)
        if (sb_merge_set(d, sb_jv_key(first, k)) == NULL)
            return -1;
    for (size_t i = 0; i < n; i++)
        src[i] = sb_merge_get(g[i], key);
    max_map(d, src, n);
    return 0;
}

static double gsum(struct sb_jv *const *g, size_t n, const char *path)
{
    double s = 0;

    for (size_t i = 0; i < n; i++)
        s += sb_jv_num(sb_jv_path(g[i], path));
    return s;
}

/* The largest of the n intervals' number at key (NaN when none has it). */
static double gmax(struct sb_jv *const *g, size_t n, const char *key)
{
    double r = NAN;

    for (size_t i = 0; i < n; i++) {
        double x = sb_jv_num(sb_jv_get(g[i], key));
        if (!isnan(x) && (isnan(r) || x > r))
            r = x;
    }
    return r;
}

/* One merged interval from the n intervals g that end at slot k of the
 * grid that starts at Unix time t_b. */
static int merged_interval(struct sb_jv *o, struct sb_jv *const *g, size_t n, long k,
                           double t_b, double len, const struct sb_jv *srv)
{
    static const char *const summed[] = {"threads", "events", "tps", "errors_per_s",
                                         "reconnects_per_s", "backlog", NULL};
    /* Upper bounds like latency_ms: the time-axis chart draws them. */
    static const char *const maxed[] = {"latency_p50_ms", "latency_p99_ms", "lag_p99_ms", NULL};
    static const char *const qps[] = {"total", "reads", "writes", "other", NULL};
    char path[32];
    struct sb_jv *q, *c;

    make(o, SB_JV_OBJECT);
    if (sb_merge_set_num(o, "time_s", round((double)k * len * 1000) / 1000) != 0 ||
        sb_merge_set_num(o, "epoch_s", round((t_b + (double)k * len) * 1000) / 1000) != 0 ||
        sb_merge_set_num(o, "interval_s", len) != 0)
        return -1;
    for (size_t i = 0; summed[i] != NULL; i++)
        if (sb_merge_set_num(o, summed[i], gsum(g, n, summed[i])) != 0)
            return -1;
    for (size_t i = 0; maxed[i] != NULL; i++)
        if (sb_merge_set_num(o, maxed[i], gmax(g, n, maxed[i])) != 0)
            return -1;
    if ((q = sb_merge_set(o, "qps")) == NULL)
        return -1;
    make(q, SB_JV_OBJECT);
    for (size_t i = 0; qps[i] != NULL; i++) {
        snprintf(path, sizeof(path), "qps.%s", qps[i]);
        if (sb_merge_set_num(q, qps[i], gsum(g, n, path)) != 0)
            return -1;
    }
    if (pct_map(o, "latency_ms", g, n) != 0 || pct_map(o, "lag_ms", g, n) != 0 ||
        (c = sb_merge_set(o, "cpu_pct")) == NULL)
        return -1;
    make(c, SB_JV_OBJECT);
    return sb_merge_set_num(c, "client", gsum(g, n, "cpu_pct.client")) != 0 ||
                   sb_merge_set_num(c, "server",
                                    sb_jv_num(sb_jv_path(srv, "cpu_pct.server"))) != 0
               ? -1
               : 0;
}

/* The slot of instance i's next interval (cur[i]), or LONG_MAX when it
 * has none left. */
static long head_slot(struct merge *m, size_t i, size_t p, const size_t *cur, double t_b,
                      double len)
{
    const struct sb_jv *ivs = sb_jv_get(point_of(m, i, p), "intervals");

    return cur[i] < sb_jv_len(ivs) ? slot_of(m, i, p, sb_jv_at(ivs, cur[i]), t_b, len)
                                   : LONG_MAX;
}

/* The interval series of all instances aligned by absolute time: an
 * interval of each instance ending at about the same instant is one
 * merged interval. The slots are visited in increasing order, each one
 * some interval ends in (the work is that of the intervals, whatever
 * their times); an interval whose slot is not after the previous one
 * (out of order, or before the start) is left out. */
static int merge_intervals(struct merge *m, size_t p)
{
    double t_b = extreme(m, p, "start_unix_s", false), len = NAN;
    size_t s = server_instance(m, p), total = 0, cur[m->n];
    long last = -1;
    struct sb_jv out, **g;
    int rc = 0;

    /* The grid is --report-interval: a reporter that woke late makes an
     * interval_s a little longer than that. */
    len = sb_jv_num(sb_jv_path(m->out, "options.general.report-interval"));
    if (!(len >= SB_RF_MIN_INTERVAL_S))
        len = NAN;

    for (size_t i = 0; i < m->n; i++) {
        const struct sb_jv *ivs = sb_jv_get(point_of(m, i, p), "intervals");
        cur[i] = 0;
        total += sb_jv_len(ivs);
        if (isnan(len) && sb_jv_len(ivs) > 0)
            len = sb_jv_num(sb_jv_get(sb_jv_at(ivs, 0), "interval_s"));
    }
    if (!(len > 0) || total == 0)
        return 0;
    if ((g = calloc(total, sizeof(*g))) == NULL)
        return fail(m, "out of memory");
    memset(&out, 0, sizeof(out));
    out.type = SB_JV_ARRAY;
    while (rc == 0) {
        size_t n = 0;
        long k = LONG_MAX;
        const struct sb_jv *srv = NULL;
        for (size_t i = 0; i < m->n; i++) {
            long sl;
            /* Skipped: what is not after the slot already merged. */
            while ((sl = head_slot(m, i, p, cur, t_b, len)) <= last)
                cur[i]++;
            if (sl < k)
                k = sl;
        }
        if (k == LONG_MAX)
            break;
        for (size_t i = 0; i < m->n; i++) {
            struct sb_jv *ivs = sb_merge_get(point_of(m, i, p), "intervals");
            long sl;
            while ((sl = head_slot(m, i, p, cur, t_b, len)) <= k) {
                if (sl == k) {
                    g[n++] = &ivs->items[cur[i]];
                    if (i == s)
                        srv = &ivs->items[cur[i]];
                }
                cur[i]++;
            }
        }
        last = k;
        {
            struct sb_jv *o = append(&out);
            rc = o == NULL ? -1 : merged_interval(o, g, n, k, t_b, len, srv);
        }
    }
    free(g);
    if (rc != 0) {
        sb_merge_clear(&out);
        return fail(m, "out of memory");
    }
    sb_merge_clear(sb_merge_get(point_of(m, 0, p), "intervals"));
    *sb_merge_get(point_of(m, 0, p), "intervals") = out;
    return 0;
}

static int merge_point(struct merge *m, size_t p)
{
    struct sb_hist *h = malloc(sizeof(*h));
    struct sb_jv *pt = point_of(m, 0, p), *pts[m->n];
    struct sb_merge_window win;
    int rc;

    if (h == NULL)
        return fail(m, "out of memory");
    for (size_t i = 0; i < m->n; i++)
        pts[i] = point_of(m, i, p);
    sb_merge_window_of(pts, m->n, &win);   /* before point 0 is edited */
    rc = merge_intervals(m, p) != 0 || merge_hist(m, p, "histogram", h) != 0 ? -1 : 0;
    if (rc == 0 && put_hist(sb_merge_get(pt, "histogram"), h) != 0)
        rc = fail(m, "out of memory");
    if (rc == 0)
        put_latency(at(pt, "final.latency_ms.response"), h);
    if (rc == 0 && (merge_latency(m, p, "service", h) != 0 || merge_latency(m, p, "lag", h) != 0))
        rc = -1;
    free(h);
    if (rc != 0)
        return -1;
    if (merge_codes(m, p) != 0 || merge_cpu(m, p) != 0)
        return fail(m, "out of memory");
    merge_counts(m, p);
    sb_merge_put_window(pt, &win);
    /* A mix's figures per type and the figures per statement
     * (sb_merge_types.c). */
    if (sb_merge_types(pts, m->n, m->err, sizeof(m->err)) != 0)
        return -1;
    return 0;
}

/* The "merged" member: which files went in (upper_bounds, after the
 * points, says what is only a bound). */
static int merged_member(struct merge *m)
{
    struct sb_jv *mg = sb_merge_set(m->out, "merged"), *list;

    if (mg == NULL)
        return -1;
    make(mg, SB_JV_OBJECT);
    if ((list = sb_merge_set(mg, "instances")) == NULL)
        return -1;
    make(list, SB_JV_ARRAY);
    for (size_t i = 0; i < m->n; i++) {
        struct sb_jv *e = append(list);
        const struct sb_jv *d = m->in[i].doc;
        if (e == NULL)
            return -1;
        make(e, SB_JV_OBJECT);
        if (sb_merge_set_num(e, "index", m->in[i].index) != 0 ||
            sb_merge_set_str(e, "file", m->in[i].path) != 0 ||
            sb_merge_set_str(e, "hostname", sb_jv_str(sb_jv_path(d, "environment.hostname"))) != 0 ||
            sb_merge_set_str(e, "started_at", sb_jv_str(sb_jv_get(d, "started_at"))) != 0 ||
            sb_merge_set_num(e, "clock_offset_s",
                             sb_jv_num(sb_jv_path(d, "instance.clock_offset_s"))) != 0 ||
            sb_merge_set_num(e, "start_unix_s",
                             sb_jv_num(sb_jv_path(d, "points.0.start_unix_s"))) != 0)
            return -1;
    }
    return 0;
}

/* merged.upper_bounds: the fields that are the largest of the instances'
 * values, not exact. Service-time and lag percentiles are exact when every
 * file holds their histograms (m->bound, set by merge_latency). */
static int upper_bounds(struct merge *m)
{
    static const char *const bounds[] = {
        "points[].intervals[].latency_ms", "points[].intervals[].lag_ms",
        "points[].final.latency_ms.service.percentiles",
        "points[].final.latency_ms.lag.percentiles", "points[].final.rate.max_backlog",
        "points[].intervals[].latency_p50_ms", "points[].intervals[].latency_p99_ms",
        "points[].intervals[].lag_p99_ms", NULL
    };
    struct sb_jv *ub = sb_merge_set(sb_merge_get(m->out, "merged"), "upper_bounds");

    if (ub == NULL)
        return -1;
    make(ub, SB_JV_ARRAY);
    for (size_t i = 0; bounds[i] != NULL; i++) {
        struct sb_jv *e;
        if ((i == 2 && !m->bound[0]) || (i == 3 && !m->bound[1]))
            continue;
        if ((e = append(ub)) == NULL)
            return -1;
        if (sb_jv_set_string(e, bounds[i], strlen(bounds[i])) != 0)
            return -1;
    }
    return 0;
}

static int merge_all(struct merge *m)
{
    struct sb_jv *inst, *docs[m->n];
    unsigned index[m->n];

    m->out = m->in[0].doc;
    for (size_t i = 0; i < m->n; i++) {
        docs[i] = m->in[i].doc;
        index[i] = m->in[i].index;
    }
    /* These read every instance's own fields: first. */
    if (merged_member(m) != 0 ||
        sb_merge_status(sb_merge_get(m->out, "merged"), docs, index, m->n,
                        (unsigned)sb_jv_num(sb_jv_path(m->out, "instance.count"))) != 0 ||
        sb_merge_ended(m->out, docs, m->n) != 0)
        return fail(m, "out of memory");
    for (size_t p = 0; p < sb_jv_len(sb_jv_get(m->out, "points")); p++)
        if (merge_point(m, p) != 0)
            return -1;
    if (upper_bounds(m) != 0)
        return fail(m, "out of memory");
    inst = sb_merge_get(m->out, "instance");
    put(inst, "index", NAN);
    if (sb_merge_set_str(inst, "source", "merge") != 0)
        return fail(m, "out of memory");
    return 0;
}

static const char merge_usage[] =
    "Usage: sysbench merge A.json B.json ... [--json=ALL.json] [--allow-missing]\n"
    "\n"
    "Merges the result files of the N instances of one scale-out run\n"
    "(--instance=I/N) into one result: counts summed, response, service-time\n"
    "and lag histograms merged bucket by bucket, intervals aligned by absolute time,\n"
    "client CPU summed, server CPU taken once. Files that are not one\n"
    "experiment (another script, options, seed or start) are refused.\n"
    "Rates are over the window from the common start to the last end, and an\n"
    "instance cut short (interrupted or failed) is named; the exit status is\n"
    "then 3, as for a partial merge. See doc/scale-out.md.\n"
    "\n"
    "  --json=FILE      also write the merged result as a JSON document\n"
    "  --allow-missing  merge the instances present when some left no file;\n"
    "                   the result is labelled partial, the missing named\n"
    "  --help, -h       this text\n";

/* Reads merge's arguments. Returns 0, 1 for --help, or -1 with err set. */
static int parse_args(int argc, char **argv, const char ***files, size_t *n,
                      const char **json, bool *allow_missing, char *err, size_t errlen)
{
    bool seen = false;

    *files = calloc((size_t)argc, sizeof(**files));
    *n = 0;
    *json = NULL;
    if (*files == NULL)
        return snprintf(err, errlen, "out of memory"), -1;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--json=", 7) == 0 && argv[i][7] != '\0') {
            *json = argv[i] + 7;
        } else if (strcmp(argv[i], "--allow-missing") == 0) {
            *allow_missing = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            return 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            snprintf(err, errlen, "merge: unknown option '%s' (usage: sysbench merge A.json B.json ... [--json=ALL.json])",
                     argv[i]);
            return -1;
        } else if (!seen && strcmp(argv[i], "merge") == 0) {
            seen = true;
        } else {
            (*files)[(*n)++] = argv[i];
        }
    }
    if (*n < 1) {
        snprintf(err, errlen, "usage: sysbench merge A.json B.json ... [--json=ALL.json]");
        return -1;
    }
    return 0;
}

static int write_out(struct merge *m, const char *json)
{
    struct sb_safefile sf;
    char err[1024];

    if (sb_safefile_open(&sf, json, "--json", sb_safefile_is_result_json, err,
                         sizeof(err)) != 0)
        return fail(m, "%s", err);
    if (sb_merge_write_json(m->out, sf.fp) != 0) {
        sb_safefile_abandon(&sf);
        return fail(m, "cannot write '%s'", json);
    }
    if (sb_safefile_commit(&sf, err, sizeof(err)) != 0)
        return fail(m, "%s", err);
    return 0;
}

int sb_merge_main(int argc, char **argv, FILE *out)
{
    struct merge m;
    const char **files, *json;
    int rc = 1;

    memset(&m, 0, sizeof(m));
    switch (parse_args(argc, argv, &files, &m.n, &json, &m.allow_missing, m.err, sizeof(m.err))) {
    case 0:
        break;
    case 1:
        fputs(merge_usage, out);
        free(files);
        return 0;
    default:
        goto done;
    }
    m.in = calloc(m.n, sizeof(*m.in));
    if (m.in == NULL) {
        fail(&m, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < m.n; i++) {
        m.in[i].path = files[i];
        if (load_one(&m, &m.in[i]) != 0)
            goto done;
    }
    if (check_instances(&m) != 0 || check_same(&m) != 0 || merge_all(&m) != 0)
        goto done;
    sb_merge_print_report(m.out, out);
    if (json != NULL && write_out(&m, json) != 0)
        goto done;
    rc = sb_merge_complete(m.out) ? 0 : 3;
done:
    if (rc == 1)
        fprintf(stderr, "FATAL: %s\n", m.err);
    for (size_t i = 0; m.in != NULL && i < m.n; i++)
        sb_jv_free(m.in[i].doc);
    free(m.in);
    free(files);
    return rc;
}
