/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Compact delay histogram; see sb_dhist.h.
 */
#include "pure/sb_dhist.h"

#include <string.h>

void sb_dhist_reset(struct sb_dhist *h)
{
    memset(h, 0, sizeof(*h));
}

unsigned sb_dhist_bucket(uint64_t ns)
{
    unsigned e;

    if (ns < ((uint64_t)1 << SB_DHIST_MIN_BITS))
        return 0;
    if (ns >= ((uint64_t)1 << SB_DHIST_MAX_BITS))
        return SB_DHIST_BUCKETS - 1;
    e = 63u - (unsigned)__builtin_clzll(ns);
    return 1 + (e - SB_DHIST_MIN_BITS) * SB_DHIST_SUB +
           (unsigned)((ns >> (e - SB_DHIST_SUB_BITS)) & (SB_DHIST_SUB - 1));
}

/* The lower bound (ns) of bucket i. */
static uint64_t lower(unsigned i)
{
    unsigned e, sub;

    if (i == 0)
        return 0;
    e = SB_DHIST_MIN_BITS + (i - 1) / SB_DHIST_SUB;
    sub = (i - 1) % SB_DHIST_SUB;
    return (uint64_t)(SB_DHIST_SUB + sub) << (e - SB_DHIST_SUB_BITS);
}

uint64_t sb_dhist_upper(unsigned i)
{
    return i + 1 < SB_DHIST_BUCKETS ? lower(i + 1) : (uint64_t)1 << SB_DHIST_MAX_BITS;
}

void sb_dhist_record(struct sb_dhist *h, uint64_t ns)
{
    unsigned i = sb_dhist_bucket(ns);

    __atomic_store_n(&h->counts[i], __atomic_load_n(&h->counts[i], __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&h->total, __atomic_load_n(&h->total, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
}

uint64_t sb_dhist_percentile(const struct sb_dhist *h, double pct)
{
    uint64_t rank, seen = 0;

    if (h->total == 0)
        return 0;
    /* Nearest rank: the smallest value with at least pct% at or below it. */
    rank = (uint64_t)((double)h->total * pct / 100.0 + 0.999999);
    if (rank < 1)
        rank = 1;
    if (rank > h->total)
        rank = h->total;
    for (unsigned i = 0; i < SB_DHIST_BUCKETS; i++) {
        seen += h->counts[i];
        if (seen >= rank)
            return sb_dhist_upper(i);
    }
    return sb_dhist_upper(SB_DHIST_BUCKETS - 1);
}

uint64_t sb_dhist_count_from(const struct sb_dhist *h, uint64_t ns)
{
    uint64_t n = 0;

    for (unsigned i = 0; i < SB_DHIST_BUCKETS; i++)
        if (lower(i) >= ns)
            n += h->counts[i];
    return n;
}

void sb_dhist_snapshot(struct sb_dhist *dst, const struct sb_dhist *src)
{
    dst->total = __atomic_load_n(&src->total, __ATOMIC_RELAXED);
    for (unsigned i = 0; i < SB_DHIST_BUCKETS; i++)
        dst->counts[i] = __atomic_load_n(&src->counts[i], __ATOMIC_RELAXED);
}

void sb_dhist_merge(struct sb_dhist *dst, const struct sb_dhist *src)
{
    dst->total += src->total;
    for (unsigned i = 0; i < SB_DHIST_BUCKETS; i++)
        dst->counts[i] += src->counts[i];
}

void sb_dhist_accumulate(struct sb_dhist *dst, const struct sb_dhist *src)
{
    dst->total += __atomic_load_n(&src->total, __ATOMIC_RELAXED);
    for (unsigned i = 0; i < SB_DHIST_BUCKETS; i++)
        dst->counts[i] += __atomic_load_n(&src->counts[i], __ATOMIC_RELAXED);
}

void sb_dhist_diff(struct sb_dhist *dst, const struct sb_dhist *later,
                   const struct sb_dhist *earlier)
{
    /* Snapshots are per-field consistent only (sb_stats.h): a count read
     * a record apart must not wrap below zero. */
    dst->total = later->total > earlier->total ? later->total - earlier->total : 0;
    for (unsigned i = 0; i < SB_DHIST_BUCKETS; i++)
        dst->counts[i] = later->counts[i] > earlier->counts[i]
                         ? later->counts[i] - earlier->counts[i] : 0;
}
