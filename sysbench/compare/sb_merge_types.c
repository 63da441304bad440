/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `sysbench merge`: a point's figures per transaction type
 * (points[].types) and per statement (points[].statements) across the
 * instances of one run; see sb_merge.h. Counts are added, histograms
 * merged bucket by bucket (exact: the instances share the layout), and
 * every figure taken from a histogram computed again from the merged one
 * by the run's own rule. The merged arrays are written with the run's
 * writers into memory and parsed back into the tree, so a merged file
 * has them in exactly a run's format.
 */
#include "compare/sb_merge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_json_read.h"
#include "core/sb_json_write.h"
#include "pure/sb_histogram.h"
#include "pure/sb_stmt_table.h"
#include "results/sb_hist_json.h"
#include "results/sb_stmt_result.h"

static uint64_t u64(const struct sb_jv *v)
{
    double d = sb_jv_num(v);
    return d >= 0 && d < 1.8e19 ? (uint64_t)d : 0;
}

/* Adds the histogram object hv into h (buckets, exact sum and extremes). */
static void add_hist(struct sb_hist *h, const struct sb_jv *hv)
{
    const struct sb_jv *b = sb_jv_get(hv, "buckets");
    uint64_t mn = u64(sb_jv_get(hv, "min_ns")), mx = u64(sb_jv_get(hv, "max_ns"));
    uint64_t sum = h->sum_ns + u64(sb_jv_get(hv, "sum_ns"));
    uint64_t lo = h->total > 0 ? h->min_ns : UINT64_MAX, hi = h->total > 0 ? h->max_ns : 0;

    for (size_t k = 0; k < sb_jv_len(b); k++)
        sb_hist_add_bucket(h, u64(sb_jv_at(sb_jv_at(b, k), 0)), u64(sb_jv_at(sb_jv_at(b, k), 2)));
    h->sum_ns = sum;
    h->clamped += u64(sb_jv_get(hv, "clamped"));
    if (h->total > 0) {
        h->min_ns = u64(sb_jv_get(hv, "count")) > 0 && mn < lo ? mn : lo;
        h->max_ns = mx > hi ? mx : hi;
    }
}

/* The latency object of a type, as the run's writer has it. */
static void put_latency(struct sb_json *j, const char *key, const struct sb_hist *h,
                        const struct sb_jv *pcts)
{
    bool any = h->total > 0;

    sb_json_key(j, key);
    sb_json_begin_object(j);
    sb_json_kv_uint(j, "count", h->total);
    sb_json_kv_double(j, "min", any ? (double)h->min_ns / 1e6 : NAN);
    sb_json_kv_double(j, "avg", any ? sb_hist_mean(h) / 1e6 : NAN);
    sb_json_kv_double(j, "max", any ? (double)h->max_ns / 1e6 : NAN);
    sb_json_kv_double(j, "sum", (double)h->sum_ns / 1e6);
    sb_json_key(j, "percentiles");
    sb_json_begin_object(j);
    for (size_t k = 0; pcts != NULL && pcts->type == SB_JV_OBJECT && k < pcts->n; k++)
        sb_json_kv_double(j, sb_jv_key(pcts, k),
                          any ? (double)sb_hist_percentile(h, strtod(sb_jv_key(pcts, k), NULL)) / 1e6
                              : NAN);
    sb_json_end_object(j);
    sb_json_end_object(j);
}

/* Histograms of one type: response, service, lag. */
struct type_hists {
    struct sb_hist h[3];
};
static const char *const hist_path[3] = { "histogram", "histograms.service", "histograms.lag" };

/* Type k of the n points into j. The events of the merged point are
 * all_events (for the share). */
static void write_type(struct sb_json *j, struct sb_jv *const *pts, size_t n, size_t k,
                       struct type_hists *th, double all_events)
{
    const struct sb_jv *t0 = sb_jv_at(sb_jv_get(pts[0], "types"), k);
    uint64_t events = 0, errors = 0;
    double tps = 0;

    for (int x = 0; x < 3; x++)
        sb_hist_reset(&th->h[x]);
    for (size_t i = 0; i < n; i++) {
        const struct sb_jv *t = sb_jv_at(sb_jv_get(pts[i], "types"), k);
        events += u64(sb_jv_get(t, "events"));
        errors += u64(sb_jv_get(t, "errors"));
        tps += sb_jv_num(sb_jv_get(t, "tps"));
        for (int x = 0; x < 3; x++)
            add_hist(&th->h[x], sb_jv_path(t, hist_path[x]));
    }
    sb_json_begin_object(j);
    sb_json_kv_string(j, "name", sb_jv_str(sb_jv_get(t0, "name")));
    sb_json_kv_uint(j, "weight", u64(sb_jv_get(t0, "weight")));
    sb_json_kv_uint(j, "events", events);
    sb_json_kv_double(j, "share_pct", all_events > 0 ? 100.0 * (double)events / all_events : NAN);
    sb_json_kv_double(j, "tps", tps);
    sb_json_kv_uint(j, "errors", errors);
    sb_json_key(j, "latency_ms");
    sb_json_begin_object(j);
    put_latency(j, "response", &th->h[0],
                sb_jv_path(t0, "latency_ms.response.percentiles"));
    put_latency(j, "service", &th->h[1], sb_jv_path(t0, "latency_ms.service.percentiles"));
    sb_json_end_object(j);
    sb_hist_json_write(j, "histogram", "response", &th->h[0]);
    sb_json_key(j, "histograms");
    sb_json_begin_object(j);
    if (sb_jv_path(t0, "histograms.service") != NULL) {
        sb_hist_json_write(j, "service", "service", &th->h[1]);
        sb_hist_json_write(j, "lag", "lag", &th->h[2]);
    }
    sb_json_end_object(j);
    sb_json_end_object(j);
}

/* Whether every point has the same types (names, in order). */
static bool same_types(struct sb_jv *const *pts, size_t n)
{
    const struct sb_jv *a = sb_jv_get(pts[0], "types");

    for (size_t i = 1; i < n; i++) {
        const struct sb_jv *b = sb_jv_get(pts[i], "types");
        if (sb_jv_len(a) != sb_jv_len(b))
            return false;
        for (size_t k = 0; k < sb_jv_len(a); k++) {
            const char *x = sb_jv_str(sb_jv_get(sb_jv_at(a, k), "name"));
            const char *y = sb_jv_str(sb_jv_get(sb_jv_at(b, k), "name"));
            if (x == NULL || y == NULL || strcmp(x, y) != 0)
                return false;
        }
    }
    return true;
}

/* Replaces member key of pt by the value of the one-member document the
 * writer left in buf. Returns 0, or -1 (err set). */
static int swap_in(struct sb_jv *pt, const char *key, const char *buf, size_t len, char *err,
                   size_t errlen)
{
    struct sb_jv *doc = sb_jv_parse(buf, len, err, errlen);
    struct sb_jv *dst = sb_merge_get(pt, key);

    if (doc == NULL)
        return -1;
    if (dst != NULL && doc->type == SB_JV_OBJECT && doc->n == 1) {
        sb_merge_clear(dst);
        *dst = doc->items[0];
        memset(&doc->items[0], 0, sizeof(doc->items[0]));
    }
    sb_jv_free(doc);
    return 0;
}

/* The merged statements of the n points into j ("statements": [...]). */
static int write_statements(struct sb_json *j, struct sb_jv *const *pts, size_t n)
{
    struct sb_stmt_table *all = sb_stmt_table_new();
    int rc = 0;

    if (all == NULL)
        return -1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct sb_stmt_table *t;
        if (sb_stmt_result_read(sb_jv_get(pts[i], "statements"), &t) != 0)
            rc = -1;
        else if (t != NULL && sb_stmt_table_merge(all, t) != 0)
            rc = -1;
        sb_stmt_table_free(t);
    }
    if (rc == 0) {
        sb_stmt_table_sort(all);
        sb_stmt_result_json(j, all);
    }
    sb_stmt_table_free(all);
    return rc;
}

/* Writes what part (0 types, 1 statements) into memory and swaps it in. */
static int merge_part(struct sb_jv *const *pts, size_t n, int part, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct sb_json j;
    struct type_hists *th = NULL;
    int rc = 0;

    if (f == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sb_json_init(&j, f, false);
    sb_json_begin_object(&j);
    if (part == 1) {
        rc = write_statements(&j, pts, n);
    } else if ((th = malloc(sizeof(*th))) == NULL) {
        rc = -1;
    } else {
        double all = 0;
        for (size_t i = 0; i < n; i++)
            all += sb_jv_num(sb_jv_path(pts[i], "final.events"));
        sb_json_key(&j, "types");
        sb_json_begin_array(&j);
        for (size_t k = 0; k < sb_jv_len(sb_jv_get(pts[0], "types")); k++)
            write_type(&j, pts, n, k, th, all);
        sb_json_end_array(&j);
    }
    sb_json_end_object(&j);
    free(th);
    if (sb_json_finish(&j) != 0)
        rc = -1;
    fclose(f);
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    else
        rc = swap_in(pts[0], part == 1 ? "statements" : "types", buf, len, err, errlen);
    free(buf);
    return rc;
}

int sb_merge_types(struct sb_jv *const *pts, size_t n, char *err, size_t errlen)
{
    struct sb_jv *types = sb_merge_get(pts[0], "types");

    if (types != NULL && types->type == SB_JV_ARRAY) {
        if (!same_types(pts, n)) {
            snprintf(err, errlen, "cannot merge: the instances ran different transaction types");
            return -1;
        }
        if (merge_part(pts, n, 0, err, errlen) != 0)
            return -1;
    }
    if (sb_merge_get(pts[0], "statements") != NULL && merge_part(pts, n, 1, err, errlen) != 0)
        return -1;
    return 0;
}
