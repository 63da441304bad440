/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The merge command's interval series: every instance's intervals
 * aligned by absolute time; see sb_merge_int.h.
 */
#include "compare/sb_merge_int.h"
#include "results/sb_point_result.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long slot_of(struct sb_merge_run *m, size_t i, size_t p, const struct sb_jv *iv, double t_b,
                    double len)
{
    double end = sb_jv_num(sb_jv_get(sb_merge_point(m, i, p), "start_unix_s")) +
                 sb_jv_num(sb_jv_get(iv, "time_s"));

    return lround((end - t_b) / len);
}

/* The object of interval o that holds field f: o itself, or the member
 * f's dotted group names ("qps" of "qps.total"), made when missing. */
static struct sb_jv *holder(struct sb_jv *o, const struct sb_result_field *f)
{
    char key[64];
    size_t g = sb_rf_group_len(f);
    struct sb_jv *c;

    if (g == 0)
        return o;
    snprintf(key, sizeof(key), "%.*s", (int)(g - 1), f->path);
    c = sb_merge_get(o, key);
    if (c != NULL && c->type == SB_JV_OBJECT)
        return c;
    if ((c = sb_merge_set(o, key)) != NULL)
        sb_merge_make(c, SB_JV_OBJECT);
    return c;
}

/* A percentile map with the first interval's keys, each the largest of
 * the n intervals' maps at path. */
static int pct_map(struct sb_jv *d, const char *path, struct sb_jv *const *g, size_t n)
{
    struct sb_jv *src[n];
    const struct sb_jv *first = sb_jv_path(g[0], path);

    sb_merge_make(d, SB_JV_OBJECT);
    for (size_t k = 0; first != NULL && k < first->n; k++)
        if (sb_merge_set(d, sb_jv_key(first, k)) == NULL)
            return -1;
    for (size_t i = 0; i < n; i++)
        src[i] = (struct sb_jv *)sb_jv_path(g[i], path);
    sb_merge_max_map(d, src, n);
    return 0;
}

/* The sum, or the largest (NaN when none has it), of the n intervals'
 * numbers at path. */
static double combine(struct sb_jv *const *g, size_t n, const char *path, bool largest)
{
    double r = largest ? NAN : 0;

    for (size_t i = 0; i < n; i++) {
        double x = sb_jv_num(sb_jv_path(g[i], path));
        if (!largest)
            r += x;
        else if (!isnan(x) && (isnan(r) || x > r))
            r = x;
    }
    return r;
}

/* One merged interval from the n intervals g that end at slot k of the
 * grid that starts at Unix time t_b, field by field of sb_rf_interval (so
 * in the writer's order): the grid's own time fields, sums, upper bounds
 * (the largest), and the server's share from srv, the interval of the
 * instance that measured the server. */
static int merged_interval(struct sb_jv *o, struct sb_jv *const *g, size_t n, long k,
                           double t_b, double len, const struct sb_jv *srv)
{
    struct sb_interval grid = {
        .time_s = round((double)k * len * 1000) / 1000,
        .epoch_s = round((t_b + (double)k * len) * 1000) / 1000,
        .interval_s = len,
    };

    sb_merge_make(o, SB_JV_OBJECT);
    for (const struct sb_result_field *f = sb_rf_interval; f->path != NULL; f++) {
        struct sb_jv *c = holder(o, f), *d;
        double x = NAN;
        if (c == NULL || (d = sb_merge_set(c, sb_rf_leaf(f))) == NULL)
            return -1;
        if (f->type == SB_RF_PCTS) {
            if (pct_map(d, f->path, g, n) != 0)
                return -1;
            continue;
        }
        if (f->merge == SB_RF_OWN)
            x = sb_rf_get(&grid, f);
        else if (f->merge == SB_RF_SUM || f->merge == SB_RF_BOUND)
            x = combine(g, n, f->path, f->merge == SB_RF_BOUND);
        else if (f->merge == SB_RF_SERVER)
            x = sb_jv_num(sb_jv_path(srv, f->path));
        if (sb_merge_set_num(c, sb_rf_leaf(f), x) != 0)
            return -1;
    }
    return 0;
}

/* The slot of instance i's next interval (cur[i]), or LONG_MAX when it
 * has none left. */
static long head_slot(struct sb_merge_run *m, size_t i, size_t p, const size_t *cur, double t_b,
                      double len)
{
    const struct sb_jv *ivs = sb_jv_get(sb_merge_point(m, i, p), "intervals");

    return cur[i] < sb_jv_len(ivs) ? slot_of(m, i, p, sb_jv_at(ivs, cur[i]), t_b, len)
                                   : LONG_MAX;
}

/* The interval series of all instances aligned by absolute time: an
 * interval of each instance ending at about the same instant is one
 * merged interval. The slots are visited in increasing order, each one
 * some interval ends in (the work is that of the intervals, whatever
 * their times); an interval whose slot is not after the previous one
 * (out of order, or before the start) is left out. */
int sb_merge_intervals(struct sb_merge_run *m, size_t p)
{
    double t_b = sb_merge_extreme(m, p, "start_unix_s", false), len = NAN;
    size_t s = sb_merge_server_instance(m, p), total = 0, cur[m->n];
    long last = -1;
    struct sb_jv out, **g;
    int rc = 0;

    /* The grid is --report-interval: a reporter that woke late makes an
     * interval_s a little longer than that. */
    len = sb_jv_num(sb_jv_path(m->out, "options.general.report-interval"));
    if (!(len >= SB_RF_MIN_INTERVAL_S))
        len = NAN;

    for (size_t i = 0; i < m->n; i++) {
        const struct sb_jv *ivs = sb_jv_get(sb_merge_point(m, i, p), "intervals");
        cur[i] = 0;
        total += sb_jv_len(ivs);
        if (isnan(len) && sb_jv_len(ivs) > 0)
            len = sb_jv_num(sb_jv_get(sb_jv_at(ivs, 0), "interval_s"));
    }
    if (!(len > 0) || total == 0)
        return 0;
    if ((g = calloc(total, sizeof(*g))) == NULL)
        return sb_merge_fail(m, "out of memory");
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
            struct sb_jv *ivs = sb_merge_get(sb_merge_point(m, i, p), "intervals");
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
            struct sb_jv *o = sb_merge_append(&out);
            rc = o == NULL ? -1 : merged_interval(o, g, n, k, t_b, len, srv);
        }
    }
    free(g);
    if (rc != 0) {
        sb_merge_clear(&out);
        return sb_merge_fail(m, "out of memory");
    }
    sb_merge_clear(sb_merge_get(sb_merge_point(m, 0, p), "intervals"));
    *sb_merge_get(sb_merge_point(m, 0, p), "intervals") = out;
    return 0;
}

