/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live per-writer statistics; see sb_live_stats.h.
 */
#include "measure/sb_live_stats.h"

#include <stdlib.h>
#include <string.h>

struct sb_live_set {
    unsigned n;
    struct sb_live_stats *stats;   /* n, packed, 64-byte aligned */
    struct sb_live_codes *codes;   /* n, calloc'd: zero pages until an error */
    struct sb_live_rate *rate;     /* n, or NULL without a rate */
    struct sb_hist_pool pool;      /* every histogram's chunks */
};

struct sb_live_set *sb_live_set_new(unsigned n, bool with_rate)
{
    struct sb_live_set *set = calloc(1, sizeof(*set));
    size_t m = n ? n : 1;

    if (set == NULL)
        return NULL;
    set->n = n;
    /* calloc for the codes and the rate modes' histograms: large blocks
     * come from fresh zero pages, and a closed-loop run never touches
     * them. The packed blocks are all written here, as every writer
     * writes its own on every event anyway. */
    set->stats = aligned_alloc(64, m * sizeof(*set->stats));
    set->codes = calloc(m, sizeof(*set->codes));
    set->rate = with_rate ? calloc(m, sizeof(*set->rate)) : NULL;
    if (set->stats == NULL || set->codes == NULL || (with_rate && set->rate == NULL) ||
        sb_hist_pool_init(&set->pool, n * (with_rate ? 3u : 1u)) != 0) {
        sb_live_set_free(set);
        return NULL;
    }
    for (unsigned i = 0; i < n; i++) {
        struct sb_live_stats *s = &set->stats[i];
        memset(s, 0, sizeof(*s));
        s->codes = &set->codes[i];
        sb_hist_live_init(&s->response, &set->pool);
        if (with_rate) {
            s->rate = &set->rate[i];
            sb_hist_live_init(&s->rate->service, &set->pool);
            sb_hist_live_init(&s->rate->lag, &set->pool);
        }
    }
    return set;
}

struct sb_live_stats *sb_live_set_at(struct sb_live_set *set, unsigned i)
{
    return &set->stats[i];
}

size_t sb_live_set_chunk_bytes(const struct sb_live_set *set)
{
    return sb_hist_pool_used(&set->pool);
}

void sb_live_set_free(struct sb_live_set *set)
{
    if (set == NULL)
        return;
    sb_hist_pool_destroy(&set->pool);
    free(set->stats);
    free(set->codes);
    free(set->rate);
    free(set);
}

void sb_live_count_code(struct sb_live_stats *s, const struct sb_db_error *err,
                        bool reconnect)
{
    sb_codes_count(s->codes->e, &s->codes->n, err, reconnect);
}

void sb_live_reset(struct sb_live_stats *s)
{
    for (int i = 0; i < SB_STAT_NCOUNTERS; i++)
        __atomic_store_n(&s->c[i], 0, __ATOMIC_RELAXED);
    sb_hist_live_reset(&s->response);
    if (s->rate != NULL) {
        sb_hist_live_reset(&s->rate->service);
        sb_hist_live_reset(&s->rate->lag);
        sb_dhist_reset(&s->rate->wake);
    }
    /* Only the codes in use: the rest stay untouched zero pages. */
    for (unsigned i = 0; i < s->codes->n; i++)
        __atomic_store_n(&s->codes->e[i].count, 0, __ATOMIC_RELAXED);
}

void sb_live_accumulate(struct sb_stats *dst, const struct sb_live_stats *src)
{
    unsigned n;

    for (int i = 0; i < SB_STAT_NCOUNTERS; i++)
        dst->c[i] += __atomic_load_n(&src->c[i], __ATOMIC_RELAXED);
    sb_hist_live_accumulate(&dst->response, &src->response);
    if (src->rate != NULL) {
        sb_hist_live_accumulate(&dst->service, &src->rate->service);
        sb_hist_live_accumulate(&dst->lag, &src->rate->lag);
        sb_dhist_accumulate(&dst->wake, &src->rate->wake);
    }
    n = __atomic_load_n(&src->codes->n, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++) {
        const struct sb_error_count *e = &src->codes->e[i];
        struct sb_error_count *d = sb_codes_find(dst->codes, &dst->ncodes, e->code,
                                                 e->reconnect);
        d->count += __atomic_load_n(&e->count, __ATOMIC_RELAXED);
    }
}
