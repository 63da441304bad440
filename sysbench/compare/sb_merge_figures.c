/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The merge command's final figures of a point: histograms, latencies,
 * error codes, CPU and the fields the tables give a rule; see
 * sb_merge_int.h.
 */
#include "compare/sb_merge_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* x as a uint64_t into *out; what (a field of point p) is named when x
 * is missing or beyond 2^64 (a sum of in-range values can be). */
static int to_u64(struct sb_merge_run *m, double x, size_t p, const char *what, uint64_t *out)
{
    if (!(x >= 0 && x < 18446744073709551616.0))
        return sb_merge_fail(m, "cannot merge: the %s of point %zu is %g, not a count of 0..2^64", what,
                    p + 1, x);
    *out = (uint64_t)x;
    return 0;
}

/* The union of the instances' histograms at key, bucket by bucket; the
 * other fields of struct sb_hist by their rule in sb_rf_hist (the count
 * is the buckets', checked against the files' counts). */
int sb_merge_hist(struct sb_merge_run *m, size_t p, const char *key, struct sb_hist *h)
{
    char path[96];

    sb_hist_reset(h);
    for (size_t i = 0; i < m->n; i++) {
        const struct sb_jv *b = sb_jv_get(sb_jv_path(sb_merge_point(m, i, p), key), "buckets");
        for (size_t k = 0; k < sb_jv_len(b); k++) {
            double low = sb_jv_num(sb_jv_at(sb_jv_at(b, k), 0));
            double cnt = sb_jv_num(sb_jv_at(sb_jv_at(b, k), 2));
            if (!(low >= 0) || !(cnt >= 0))
                return sb_merge_fail(m, "cannot merge: a histogram bucket of '%s' is malformed",
                                     m->in[i].path);
            sb_hist_add_bucket(h, (uint64_t)low, (uint64_t)cnt);
        }
    }
    for (const struct sb_result_field *f = sb_rf_hist; f->path != NULL; f++) {
        uint64_t *at = (uint64_t *)((char *)h + f->offset);
        double x;
        if (f->ctype != SB_RF_U64)
            continue;
        snprintf(path, sizeof(path), "%s.%s", key, f->path);
        if (f->merge == SB_RF_HIST) {
            if ((double)*at != sb_merge_sum(m, p, path))
                return sb_merge_fail(m, "cannot merge: the %s counts of point %zu do not add up",
                                     key, p + 1);
            continue;
        }
        /* An empty histogram has no extremes. */
        if (f->merge != SB_RF_SUM && h->total == 0)
            continue;
        x = f->merge == SB_RF_SUM ? sb_merge_sum(m, p, path)
                                  : sb_merge_extreme(m, p, path, f->merge == SB_RF_MAX);
        if (to_u64(m, x, p, path, at) != 0)
            return -1;
    }
    return 0;
}

/* Writes h into the histogram object hv (buckets in the form of
 * sb_hist_json.h). Returns 0, or -1 when out of memory. */
int sb_merge_put_hist(struct sb_jv *hv, const struct sb_hist *h)
{
    struct sb_jv *b;
    bool any = h->total > 0;

    /* As the writer has them (sb_hist_json.c): no extremes when empty. */
    for (const struct sb_result_field *f = sb_rf_hist; f->path != NULL; f++)
        if (f->ctype == SB_RF_U64)
            sb_merge_put(hv, f->path, any || f->merge == SB_RF_SUM || f->merge == SB_RF_HIST
                                          ? sb_rf_get(h, f) : NAN);
    if ((b = sb_merge_get(hv, "buckets")) == NULL)
        return 0;
    sb_merge_make(b, SB_JV_ARRAY);
    for (size_t k = 0; k < SB_HIST_BUCKETS; k++) {
        struct sb_jv *e;
        if (h->counts[k] == 0)
            continue;
        if ((e = sb_merge_append(b)) == NULL)
            return -1;
        sb_merge_make(e, SB_JV_ARRAY);
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

/* The figures of a final latency_ms object from h, as a run computes
 * them (sb_rf_latency over sb_rf_final's latency entries), percentiles by
 * the run's own rule at the keys the object has. */
void sb_merge_put_latency(struct sb_jv *lat, const struct sb_hist *h)
{
    static const char prefix[] = "latency_ms.response.";

    for (const struct sb_result_field *f = sb_rf_final; f->path != NULL; f++) {
        struct sb_jv *pm;
        if (strncmp(f->path, prefix, sizeof(prefix) - 1) != 0)
            continue;
        if (f->type != SB_RF_PCTS) {
            sb_merge_put(lat, sb_rf_leaf(f), sb_rf_latency(h, f->calc, 0));
            continue;
        }
        pm = sb_merge_get(lat, sb_rf_leaf(f));
        for (size_t k = 0; pm != NULL && pm->type == SB_JV_OBJECT && k < pm->n; k++) {
            sb_merge_make(&pm->items[k], SB_JV_NUMBER);
            pm->items[k].number = sb_rf_latency(h, f->calc, strtod(sb_jv_key(pm, k), NULL));
        }
    }
}

/* Whether field f of sb_rf_final is one of final.latency_ms.NAME's. */
static bool of_latency(const struct sb_result_field *f, const char *name)
{
    static const char obj[] = "latency_ms.";
    size_t n = strlen(name);

    return strncmp(f->path, obj, sizeof(obj) - 1) == 0 &&
           strncmp(f->path + sizeof(obj) - 1, name, n) == 0 && f->path[sizeof(obj) - 1 + n] == '.';
}

/* Service time or lag without a histogram in every file, over the
 * fields of final.latency_ms.NAME in sb_rf_final, by the figure of a
 * histogram each one is (its calc): counts and sums added and extremes
 * taken, all exact, the mean their ratio, the percentiles the largest of
 * the instances'. */
static void merge_latency_bound(struct sb_merge_run *m, size_t p, const char *name)
{
    char path[96];
    struct sb_jv *pt = sb_merge_point(m, 0, p), *src[m->n];
    double count = NAN, total = NAN;
    const struct sb_result_field *f;

    snprintf(path, sizeof(path), "final.latency_ms.%s", name);
    if (sb_merge_at(pt, path) == NULL)
        return;
    /* The mean needs both sums, and the walk below overwrites them. */
    for (f = sb_rf_final; f->path != NULL; f++) {
        if (!of_latency(f, name) || (f->calc != SB_RF_LAT_COUNT && f->calc != SB_RF_LAT_SUM))
            continue;
        snprintf(path, sizeof(path), "final.%s", f->path);
        *(f->calc == SB_RF_LAT_COUNT ? &count : &total) = sb_merge_sum(m, p, path);
    }
    for (f = sb_rf_final; f->path != NULL; f++) {
        if (!of_latency(f, name))
            continue;
        snprintf(path, sizeof(path), "final.%s", f->path);
        switch (f->calc) {
        case SB_RF_LAT_COUNT:
            sb_merge_put(pt, path, count);
            break;
        case SB_RF_LAT_SUM:
            sb_merge_put(pt, path, total);
            break;
        case SB_RF_LAT_MIN:
        case SB_RF_LAT_MAX:
            sb_merge_put(pt, path, sb_merge_extreme(m, p, path, f->calc == SB_RF_LAT_MAX));
            break;
        case SB_RF_LAT_AVG:
            sb_merge_put(pt, path, count > 0 ? total / count : NAN);
            break;
        case SB_RF_LAT_PCT:
            for (size_t i = 0; i < m->n; i++)
                src[i] = sb_merge_at(sb_merge_point(m, i, p), path);
            sb_merge_max_map(sb_merge_at(pt, path), src, m->n);
            break;
        default:
            break;
        }
    }
}

/* Records that field f of sb_rf_final is only bounded. */
static void note_bounded(struct sb_merge_run *m, const struct sb_result_field *f)
{
    for (size_t i = 0; i < m->nbounded; i++)
        if (m->bounded[i] == f)
            return;
    if (f != NULL && m->nbounded < SB_MERGE_MAX_BOUNDED)
        m->bounded[m->nbounded++] = f;
}

/* Service time or lag (name) of point p. In a rate mode with the
 * histogram in every file: the histograms' union, written to
 * histograms.NAME, and the figures computed from it; otherwise the
 * bound above, histograms.NAME removed (it would be one instance's) and
 * the figure marked inexact. Closed loop records neither (count 0): the
 * bound is then exact. */
int sb_merge_latency(struct sb_merge_run *m, size_t p, const char *name, struct sb_hist *h)
{
    char key[64], path[96];
    struct sb_jv *pt = sb_merge_point(m, 0, p), *hs = sb_merge_get(pt, "histograms");
    const char *mode = sb_jv_str(sb_jv_get(pt, "rate_mode"));
    bool all = true;

    snprintf(key, sizeof(key), "histograms.%s", name);
    for (size_t i = 0; i < m->n; i++)
        if (sb_jv_get(sb_jv_path(sb_merge_point(m, i, p), key), "buckets") == NULL)
            all = false;
    if (!all) {
        merge_latency_bound(m, p, name);
        if (sb_merge_get(hs, name) != NULL)
            sb_merge_clear(sb_merge_get(hs, name));
        /* In a rate mode its figures with the table's upper flag (the
         * percentiles) are now only bounds. */
        for (const struct sb_result_field *f = sb_rf_final; f->path != NULL; f++)
            if (mode != NULL && strcmp(mode, "none") != 0 && f->upper && of_latency(f, name))
                note_bounded(m, f);
        return 0;
    }
    if (sb_merge_hist(m, p, key, h) != 0)
        return -1;
    if (sb_merge_put_hist(sb_merge_at(pt, key), h) != 0)
        return sb_merge_fail(m, "out of memory");
    snprintf(path, sizeof(path), "final.latency_ms.%s", name);
    sb_merge_put_latency(sb_merge_at(pt, path), h);
    return 0;
}

/* errors.by_code: counts of equal (code, kind) added. */
int sb_merge_codes(struct sb_merge_run *m, size_t p)
{
    struct sb_jv *dst = sb_merge_at(sb_merge_point(m, 0, p), "final.errors.by_code");

    for (size_t i = 1; dst != NULL && i < m->n; i++) {
        const struct sb_jv *src = sb_jv_path(sb_merge_point(m, i, p), "final.errors.by_code");
        for (size_t k = 0; k < sb_jv_len(src); k++) {
            const struct sb_jv *e = sb_jv_at(src, k);
            struct sb_jv *d = NULL;
            for (size_t j = 0; j < dst->n && d == NULL; j++)
                if (sb_merge_jv_equal(sb_jv_get(&dst->items[j], "code"), sb_jv_get(e, "code")) &&
                    sb_merge_jv_equal(sb_jv_get(&dst->items[j], "kind"), sb_jv_get(e, "kind")))
                    d = &dst->items[j];
            if (d == NULL) {
                if ((d = sb_merge_append(dst)) == NULL)
                    return -1;
                sb_merge_make(d, SB_JV_OBJECT);
                if (sb_merge_set_str(d, "code", sb_jv_str(sb_jv_get(e, "code"))) != 0 ||
                    sb_merge_set_str(d, "kind", sb_jv_str(sb_jv_get(e, "kind"))) != 0 ||
                    sb_merge_set_num(d, "count", 0) != 0)
                    return -1;
            }
            sb_merge_put(d, "count", sb_jv_num(sb_jv_get(d, "count")) + sb_jv_num(sb_jv_get(e, "count")));
        }
    }
    return 0;
}

/* The fields of table t, at prefix pre of a point ("" or "final."), that
 * merge by rule: added, or the smallest or largest of the instances'. A
 * sum is written only where instance 0 holds a number (a rate-mode field
 * is null in closed loop). */
static void merge_rules(struct sb_merge_run *m, size_t p, const struct sb_result_field *t,
                        const char *pre)
{
    struct sb_jv *pt = sb_merge_point(m, 0, p);
    char path[96];

    for (; t->path != NULL; t++) {
        snprintf(path, sizeof(path), "%s%s", pre, t->path);
        if (t->merge == SB_RF_SUM && !isnan(sb_jv_num(sb_jv_path(pt, path))))
            sb_merge_put(pt, path, sb_merge_sum(m, p, path));
        else if (t->merge == SB_RF_MIN || t->merge == SB_RF_MAX)
            sb_merge_put(pt, path, sb_merge_extreme(m, p, path, t->merge == SB_RF_MAX));
    }
}

void sb_merge_scalars(struct sb_merge_run *m, size_t p)
{
    struct sb_jv *pt = sb_merge_point(m, 0, p);
    /* Read before the rules write them into instance 0's point. */
    double events = sb_merge_sum(m, p, "final.events"), tps = sb_merge_sum(m, p, "final.tps");
    double achieved = sb_merge_sum(m, p, "final.rate.achieved_tps");
    double late = sb_merge_sum(m, p, "final.rate.late_starts");
    double longest = sb_merge_extreme(m, p, "final.time_s", true);
    double target;

    merge_rules(m, p, sb_rf_point, "");
    merge_rules(m, p, sb_rf_final, "final.");
    /* Rates add up; the time is the one they imply (sb_merge_put_window
     * then sets the window's). */
    sb_merge_put(pt, "final.time_s", tps > 0 ? events / tps : longest);
    target = sb_jv_num(sb_jv_path(pt, "final.rate.target_tps"));
    if (target > 0) {
        sb_merge_put(pt, "final.rate.achieved_pct", 100.0 * achieved / target);
        sb_merge_put(pt, "final.rate.late_pct", events > 0 ? 100.0 * late / events : 0);
    }
    for (size_t i = 0; i < m->n; i++)
        if (sb_jv_true(sb_jv_get(sb_merge_point(m, i, p), "interrupted"))) {
            sb_merge_make(sb_merge_get(pt, "interrupted"), SB_JV_BOOL);
            sb_merge_get(pt, "interrupted")->boolean = true;
        }
}

/* One side's per-transaction figures (final.cpu.SIDE's fields in
 * microseconds, sb_rf_final) rescaled from tx_from to tx_to transactions. */
static void rescale(struct sb_jv *cpu, const char *side, double tx_from, double tx_to)
{
    struct sb_jv *obj = sb_merge_get(cpu, side);
    size_t n = strlen(side);

    for (const struct sb_result_field *f = sb_rf_final; f->path != NULL && tx_to > 0; f++) {
        double x;
        if (strncmp(f->path, "cpu.", 4) != 0 || strncmp(f->path + 4, side, n) != 0 ||
            f->path[4 + n] != '.' || strcmp(f->unit, "us") != 0)
            continue;
        x = sb_jv_num(sb_jv_get(obj, sb_rf_leaf(f)));
        if (!isnan(x))
            sb_merge_put(obj, sb_rf_leaf(f), x * tx_from / tx_to);
    }
}

/* The client side of final.cpu over the instances, by the rules of its
 * fields in sb_rf_final (the CPU time, SB_RF_SUM, is added by
 * sb_merge_scalars; read here before that). */
static void merge_client(struct sb_merge_run *m, size_t p, double tx)
{
    static const char side[] = "cpu.client.";
    struct sb_jv *pt = sb_merge_point(m, 0, p);
    double used = NAN, parts = 0, cap = 0, x;
    char path[96];

    for (size_t i = 0; i < m->n; i++) {
        const struct sb_jv *c = sb_jv_path(sb_merge_point(m, i, p), "final.cpu");
        cap += sb_jv_num(sb_jv_get(c, "elapsed_s")) * sb_jv_num(sb_jv_get(c, "ncpus"));
    }
    for (const struct sb_result_field *f = sb_rf_final; f->path != NULL; f++) {
        if (strncmp(f->path, side, sizeof(side) - 1) != 0)
            continue;
        snprintf(path, sizeof(path), "final.%s", f->path);
        switch (f->merge) {
        case SB_RF_SUM:
            used = sb_merge_sum(m, p, path);
            break;
        case SB_RF_PER_TX:
            x = 0;
            for (size_t i = 0; i < m->n; i++) {
                const struct sb_jv *c = sb_jv_path(sb_merge_point(m, i, p), "final.cpu");
                x += sb_jv_num(sb_jv_path(sb_merge_point(m, i, p), path)) *
                     sb_jv_num(sb_jv_get(c, "transactions"));
            }
            parts += x;
            sb_merge_put(pt, path, tx > 0 ? x / tx : NAN);
            break;
        case SB_RF_PARTS:
            sb_merge_put(pt, path, tx > 0 ? parts / tx : NAN);
            break;
        case SB_RF_UTIL:
            sb_merge_put(pt, path, cap > 0 ? 100.0 * used / cap : NAN);
            break;
        default:
            break;
        }
    }
}

/* Client CPU summed over instances; server (and machine) once, from the
 * instance that measured the server, spread over all transactions. */
int sb_merge_cpu(struct sb_merge_run *m, size_t p)
{
    struct sb_jv *cpu = sb_merge_at(sb_merge_point(m, 0, p), "final.cpu"), *threads;
    size_t s = sb_merge_server_instance(m, p);
    const struct sb_jv *scpu = sb_jv_path(sb_merge_point(m, s, p), "final.cpu");
    double tx = sb_merge_sum(m, p, "final.cpu.transactions"), tx_s = sb_jv_num(sb_jv_get(scpu, "transactions"));

    if (cpu == NULL || cpu->type != SB_JV_OBJECT)
        return 0;
    /* transactions and elapsed_s: their rules, in sb_merge_scalars. */
    merge_client(m, p, tx);
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
    rescale(cpu, "server", tx_s, tx);
    rescale(cpu, "machine", tx_s, tx);
    /* Per-thread CPU: every instance's threads, numbered globally. */
    threads = sb_merge_get(cpu, "threads");
    for (size_t i = 1; threads != NULL && threads->type == SB_JV_ARRAY && i < m->n; i++) {
        struct sb_jv *t = sb_merge_at(sb_merge_point(m, i, p), "final.cpu.threads"), *items;
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
        sb_merge_put(&threads->items[k], "thread", (double)k);
    return 0;
}

/* Slot of an interval of instance i: its end in absolute time, counted in
 * interval lengths from the earliest start. */
