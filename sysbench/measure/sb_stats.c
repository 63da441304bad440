/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-thread statistics; see sb_stats.h.
 */
#include "measure/sb_stats.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void sb_stats_reset(struct sb_stats *s)
{
    for (int i = 0; i < SB_STAT_NCOUNTERS; i++)
        __atomic_store_n(&s->c[i], 0, __ATOMIC_RELAXED);
    sb_hist_reset(&s->response);
    sb_hist_reset(&s->service);
    sb_hist_reset(&s->lag);
    sb_dhist_reset(&s->wake);
    for (unsigned i = 0; i < SB_STATS_MAX_CODES; i++)
        __atomic_store_n(&s->codes[i].count, 0, __ATOMIC_RELAXED);
}

/* The size of an sb_stats mapping: whole pages. */
static size_t mapped_size(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);

    return (sizeof(struct sb_stats) + page - 1) / page * page;
}

/* Makes s, which is all zero bytes, empty like sb_stats_reset, writing
 * only the fields that are not zero when empty: the histogram counts stay
 * untouched pages until used. */
static void init_zeroed(struct sb_stats *s)
{
    s->response.min_ns = UINT64_MAX;
    s->service.min_ns = UINT64_MAX;
    s->lag.min_ns = UINT64_MAX;
}

struct sb_stats *sb_stats_new(void)
{
    void *m = mmap(NULL, mapped_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (m == MAP_FAILED)
        return NULL;
    init_zeroed(m);
    return m;
}

void sb_stats_free(struct sb_stats *s)
{
    if (s != NULL)
        munmap(s, mapped_size());
}

/* The entry of code and kind in n used entries, or NULL. */
static struct sb_error_count *lookup(struct sb_error_count *codes, unsigned n,
                                     const char *code, bool reconnect)
{
    for (unsigned i = 0; i < n; i++)
        if (codes[i].reconnect == reconnect && strcmp(codes[i].code, code) == 0)
            return &codes[i];
    return NULL;
}

/*
 * The last two entries are kept for "other", one per kind, so that a code
 * arriving when the table is full is counted there rather than under
 * another code or not at all. The release store of *ncodes is for the
 * owner's readers; on the private copies of merge and diff it is merely
 * harmless.
 */
struct sb_error_count *sb_codes_find(struct sb_error_count *codes, unsigned *ncodes,
                                     const char *code, bool reconnect)
{
    unsigned n = __atomic_load_n(ncodes, __ATOMIC_ACQUIRE);
    struct sb_error_count *e = lookup(codes, n, code, reconnect);

    if (e != NULL)
        return e;
    if (n >= SB_STATS_MAX_CODES - 2) {
        code = "other";
        e = lookup(codes, n, code, reconnect);
        if (e != NULL)
            return e;
    }
    e = &codes[n];
    snprintf(e->code, sizeof(e->code), "%s", code);
    e->reconnect = reconnect;
    e->count = 0;
    /* Publish the filled entry before readers can see it counted. */
    __atomic_store_n(ncodes, n + 1, __ATOMIC_RELEASE);
    return e;
}

void sb_codes_count(struct sb_error_count *codes, unsigned *ncodes,
                    const struct sb_db_error *err, bool reconnect)
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
    e = sb_codes_find(codes, ncodes, code, reconnect);
    __atomic_store_n(&e->count, __atomic_load_n(&e->count, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
}

void sb_stats_count_code(struct sb_stats *s, const struct sb_db_error *err,
                         bool reconnect)
{
    sb_codes_count(s->codes, &s->ncodes, err, reconnect);
}

static void add_code(struct sb_stats *dst, const struct sb_error_count *e,
                     int64_t sign)
{
    struct sb_error_count *d = sb_codes_find(dst->codes, &dst->ncodes, e->code, e->reconnect);

    d->count += (uint64_t)sign * e->count;
}

void sb_stats_merge(struct sb_stats *dst, const struct sb_stats *src)
{
    for (int i = 0; i < SB_STAT_NCOUNTERS; i++)
        dst->c[i] += src->c[i];
    sb_hist_merge(&dst->response, &src->response);
    sb_hist_merge(&dst->service, &src->service);
    sb_hist_merge(&dst->lag, &src->lag);
    sb_dhist_merge(&dst->wake, &src->wake);
    for (unsigned i = 0; i < src->ncodes; i++)
        add_code(dst, &src->codes[i], 1);
}

void sb_stats_diff(struct sb_stats *dst, const struct sb_stats *later,
                   const struct sb_stats *earlier)
{
    for (int i = 0; i < SB_STAT_NCOUNTERS; i++)
        dst->c[i] = later->c[i] - earlier->c[i];
    sb_hist_diff(&dst->response, &later->response, &earlier->response);
    sb_hist_diff(&dst->service, &later->service, &earlier->service);
    sb_hist_diff(&dst->lag, &later->lag, &earlier->lag);
    sb_dhist_diff(&dst->wake, &later->wake, &earlier->wake);
    dst->ncodes = 0;
    for (unsigned i = 0; i < later->ncodes; i++)
        add_code(dst, &later->codes[i], 1);
    for (unsigned i = 0; i < earlier->ncodes; i++)
        add_code(dst, &earlier->codes[i], -1);
}
