/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A mix's figures per type for each interval; see sb_type_watch.h.
 */
#include "engine/sb_type_watch.h"

#include <string.h>

#include "engine/sb_worker.h"
#include "pure/sb_histogram.h"

void sb_type_watch_free(struct sb_type_watch *t)
{
    for (unsigned k = 0; k < SB_MIX_MAX; k++) {
        sb_stats_free(t->prev[k]);
        t->prev[k] = NULL;
    }
    sb_stats_free(t->cur);
    sb_stats_free(t->delta);
    t->cur = t->delta = NULL;
    t->n = 0;
}

int sb_type_watch_init(struct sb_type_watch *t, unsigned n)
{
    memset(t, 0, sizeof(*t));
    t->prev_epoch = -1;
    if (n == 0)
        return 0;
    t->cur = sb_stats_new();
    t->delta = sb_stats_new();
    if (t->cur == NULL || t->delta == NULL)
        goto oom;
    for (unsigned k = 0; k < n && k < SB_MIX_MAX; k++)
        if ((t->prev[k] = sb_stats_new()) == NULL)
            goto oom;
    t->n = n < SB_MIX_MAX ? n : SB_MIX_MAX;
    return 0;
oom:
    sb_type_watch_free(t);
    return -1;
}

static void clear(struct sb_stats *s)
{
    sb_stats_reset(s);
    s->ncodes = 0;
}

static void figures(const struct sb_stats *d, double interval_s, const double *pcts,
                    size_t npcts, struct sb_type_interval *o)
{
    o->events = d->c[SB_STAT_EVENTS];
    o->errors = d->c[SB_STAT_ERRORS];
    o->tps = interval_s > 0 ? (double)o->events / interval_s : 0;
    o->errors_ps = interval_s > 0 ? (double)o->errors / interval_s : 0;
    for (size_t i = 0; i < npcts && i < SB_MAX_PERCENTILES; i++)
        o->latency_ms[i] = (double)sb_hist_percentile(&d->response, pcts[i]) / 1e6;
}

void sb_type_watch_collect(struct sb_type_watch *t, const struct sb_run *run, double interval_s,
                           const double *pcts, size_t npcts, struct sb_type_interval *out)
{
    int epoch = __atomic_load_n(&run->epoch, __ATOMIC_ACQUIRE);

    if (t->n == 0)
        return;
    if (t->prev_epoch != epoch) {
        /* Warmup ended (the workers reset): count from empty again. */
        for (unsigned k = 0; k < t->n; k++)
            clear(t->prev[k]);
        t->prev_epoch = epoch;
    }
    for (unsigned k = 0; k < t->n; k++) {
        clear(t->cur);
        for (unsigned i = 0; i < run->nslots; i++)
            if (__atomic_load_n(&run->slots[i].epoch, __ATOMIC_ACQUIRE) == epoch &&
                run->slots[i].types[k] != NULL)
                sb_live_accumulate(t->cur, run->slots[i].types[k]);
        sb_stats_diff(t->delta, t->cur, t->prev[k]);
        figures(t->delta, interval_s, pcts, npcts, &out[k]);
        /* cur becomes this type's previous total: swap, not a 110 KB copy. */
        struct sb_stats *was = t->prev[k];
        t->prev[k] = t->cur;
        t->cur = was;
    }
}
