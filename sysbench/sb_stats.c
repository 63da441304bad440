/*
 * Per-thread statistics; see sb_stats.h.
 */
#include "sb_stats.h"

#include <stdio.h>
#include <string.h>

void sb_stats_reset(struct sb_stats *s)
{
    for (int i = 0; i < SB_STAT_NCOUNTERS; i++)
        __atomic_store_n(&s->c[i], 0, __ATOMIC_RELAXED);
    sb_hist_reset(&s->response);
    sb_hist_reset(&s->service);
    sb_hist_reset(&s->lag);
    for (unsigned i = 0; i < SB_STATS_MAX_CODES; i++)
        __atomic_store_n(&s->codes[i].count, 0, __ATOMIC_RELAXED);
}

void sb_stats_init_zeroed(struct sb_stats *s)
{
    s->response.min_ns = UINT64_MAX;
    s->service.min_ns = UINT64_MAX;
    s->lag.min_ns = UINT64_MAX;
}

static struct sb_error_count *find_code(struct sb_stats *s, const char *code,
                                        bool reconnect)
{
    unsigned n = __atomic_load_n(&s->ncodes, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++)
        if (s->codes[i].reconnect == reconnect && strcmp(s->codes[i].code, code) == 0)
            return &s->codes[i];
    if (n < SB_STATS_MAX_CODES) {
        struct sb_error_count *e = &s->codes[n];
        snprintf(e->code, sizeof(e->code), "%s", code);
        e->reconnect = reconnect;
        e->count = 0;
        /* Publish the filled entry before readers can see it counted. */
        __atomic_store_n(&s->ncodes, n + 1, __ATOMIC_RELEASE);
        return e;
    }
    return NULL;
}

void sb_stats_count_code(struct sb_stats *s, const struct sb_db_error *err,
                         bool reconnect)
{
    char code[16];
    struct sb_error_count *e;

    /* SQLSTATE when the driver gives one that says more than "unknown",
     * else the driver's error number. */
    if (err->sql_state[0] && strcmp(err->sql_state, "HY000") != 0 &&
        err->sql_errno == 0)
        snprintf(code, sizeof(code), "%s", err->sql_state);
    else
        snprintf(code, sizeof(code), "%u", err->sql_errno);
    e = find_code(s, code, reconnect);
    if (e == NULL)
        e = find_code(s, "other", reconnect);
    if (e == NULL)
        e = &s->codes[SB_STATS_MAX_CODES - 1];
    __atomic_store_n(&e->count, __atomic_load_n(&e->count, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
}

void sb_stats_snapshot(struct sb_stats *dst, const struct sb_stats *src)
{
    unsigned n;

    for (int i = 0; i < SB_STAT_NCOUNTERS; i++)
        dst->c[i] = __atomic_load_n(&src->c[i], __ATOMIC_RELAXED);
    sb_hist_snapshot(&dst->response, &src->response);
    sb_hist_snapshot(&dst->service, &src->service);
    sb_hist_snapshot(&dst->lag, &src->lag);
    n = __atomic_load_n(&src->ncodes, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++) {
        memcpy(dst->codes[i].code, src->codes[i].code, sizeof(dst->codes[i].code));
        dst->codes[i].reconnect = src->codes[i].reconnect;
        dst->codes[i].count = __atomic_load_n(&src->codes[i].count, __ATOMIC_RELAXED);
    }
    dst->ncodes = n;
}

static void add_code(struct sb_stats *dst, const struct sb_error_count *e,
                     int64_t sign)
{
    struct sb_error_count *d = NULL;
    for (unsigned i = 0; i < dst->ncodes; i++)
        if (dst->codes[i].reconnect == e->reconnect &&
            strcmp(dst->codes[i].code, e->code) == 0)
            d = &dst->codes[i];
    if (d == NULL) {
        if (dst->ncodes == SB_STATS_MAX_CODES)
            return;
        d = &dst->codes[dst->ncodes++];
        memcpy(d->code, e->code, sizeof(d->code));
        d->reconnect = e->reconnect;
        d->count = 0;
    }
    d->count += (uint64_t)sign * e->count;
}

void sb_stats_merge(struct sb_stats *dst, const struct sb_stats *src)
{
    for (int i = 0; i < SB_STAT_NCOUNTERS; i++)
        dst->c[i] += src->c[i];
    sb_hist_merge(&dst->response, &src->response);
    sb_hist_merge(&dst->service, &src->service);
    sb_hist_merge(&dst->lag, &src->lag);
    for (unsigned i = 0; i < src->ncodes; i++)
        add_code(dst, &src->codes[i], 1);
}

void sb_stats_accumulate(struct sb_stats *dst, const struct sb_stats *src)
{
    unsigned n;

    for (int i = 0; i < SB_STAT_NCOUNTERS; i++)
        dst->c[i] += __atomic_load_n(&src->c[i], __ATOMIC_RELAXED);
    sb_hist_accumulate(&dst->response, &src->response);
    sb_hist_accumulate(&dst->service, &src->service);
    sb_hist_accumulate(&dst->lag, &src->lag);
    n = __atomic_load_n(&src->ncodes, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++) {
        struct sb_error_count e;
        memcpy(e.code, src->codes[i].code, sizeof(e.code));
        e.reconnect = src->codes[i].reconnect;
        e.count = __atomic_load_n(&src->codes[i].count, __ATOMIC_RELAXED);
        add_code(dst, &e, 1);
    }
}

void sb_stats_diff(struct sb_stats *dst, const struct sb_stats *later,
                   const struct sb_stats *earlier)
{
    for (int i = 0; i < SB_STAT_NCOUNTERS; i++)
        dst->c[i] = later->c[i] - earlier->c[i];
    sb_hist_diff(&dst->response, &later->response, &earlier->response);
    sb_hist_diff(&dst->service, &later->service, &earlier->service);
    sb_hist_diff(&dst->lag, &later->lag, &earlier->lag);
    dst->ncodes = 0;
    for (unsigned i = 0; i < later->ncodes; i++)
        add_code(dst, &later->codes[i], 1);
    for (unsigned i = 0; i < earlier->ncodes; i++)
        add_code(dst, &earlier->codes[i], -1);
}
