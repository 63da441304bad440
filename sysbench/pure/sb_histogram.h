/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_HISTOGRAM_H
#define SB_HISTOGRAM_H

/*
 * Latency histogram (pure module: no threads, no I/O).
 *
 * Values are nanoseconds. Buckets are log-linear, as in HdrHistogram: each
 * power of two is split into SB_HIST_SUB equal sub-buckets, so any value
 * from 1 us to 1 hour is recorded with a relative error of at most 1%
 * (below 1 us values are exact to within 8 ns; above SB_HIST_MAX_NS they
 * are clamped into the last bucket and counted in `clamped`).
 *
 * One writer, many readers, no locks: the owning thread records with
 * relaxed atomic stores, and any other thread may take a consistent-enough
 * snapshot at any time (each counter is read atomically; the set of counters
 * may be a few records apart, which only matters for the few transactions
 * in flight). Histograms of the same layout merge exactly by adding counts,
 * so per-thread histograms combine into one without loss.
 */

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

/* Sub-buckets per power of two: 128 gives a worst-case error of 1/128. */
#define SB_HIST_SUB_BITS 7
#define SB_HIST_SUB (1u << SB_HIST_SUB_BITS)
/* Largest value recorded without clamping: 2^42 ns, about 73 minutes. */
#define SB_HIST_MAX_BITS 42
#define SB_HIST_MAX_NS ((uint64_t)1 << SB_HIST_MAX_BITS)
/* Number of buckets needed for [0, SB_HIST_MAX_NS). */
#define SB_HIST_BUCKETS ((SB_HIST_MAX_BITS - SB_HIST_SUB_BITS + 1) * SB_HIST_SUB)

/* The summary fields come first: statistics on zero-fill-on-demand pages
 * (sb_stats_new) then touch the buckets' pages only where values fall. */
struct sb_hist {
    uint64_t total;   /* number of values recorded */
    uint64_t sum_ns;  /* sum of recorded values (exact, unclamped) */
    uint64_t min_ns;  /* UINT64_MAX when empty */
    uint64_t max_ns;  /* 0 when empty */
    uint64_t clamped; /* values above SB_HIST_MAX_NS */
    uint64_t counts[SB_HIST_BUCKETS];
};

/* Empties h. */
void sb_hist_reset(struct sb_hist *h);

/* The bucket holding ns (bucket geometry, with sb_hist_bucket_low and
 * _high below). Inline, as sb_hist_record: they run for every
 * transaction and, with --report-per-statement, every statement. */
static inline size_t sb_hist_bucket_of(uint64_t ns)
{
    unsigned e, s;

    if (ns >= SB_HIST_MAX_NS)
        return SB_HIST_BUCKETS - 1;
    /* Or-ing in bit SUB_BITS makes small values take the s = 0 path without
     * a branch, and it never changes the top bit of a larger value. */
    e = 63u - (unsigned)__builtin_clzll(ns | SB_HIST_SUB);
    s = e - SB_HIST_SUB_BITS;
    return ((size_t)s << SB_HIST_SUB_BITS) + (size_t)(ns >> s);
}

/* Records one value. Only the owning thread may call this. The relaxed
 * load and store instead of a read-modify-write: see sb_histogram.c. */
static inline void sb_hist_record(struct sb_hist *h, uint64_t ns)
{
    size_t b = sb_hist_bucket_of(ns);

    __atomic_store_n(&h->counts[b], __atomic_load_n(&h->counts[b], __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&h->total, __atomic_load_n(&h->total, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&h->sum_ns, __atomic_load_n(&h->sum_ns, __ATOMIC_RELAXED) + ns,
                     __ATOMIC_RELAXED);
    if (ns < __atomic_load_n(&h->min_ns, __ATOMIC_RELAXED))
        __atomic_store_n(&h->min_ns, ns, __ATOMIC_RELAXED);
    if (ns > __atomic_load_n(&h->max_ns, __ATOMIC_RELAXED))
        __atomic_store_n(&h->max_ns, ns, __ATOMIC_RELAXED);
    if (ns >= SB_HIST_MAX_NS)
        __atomic_store_n(&h->clamped, __atomic_load_n(&h->clamped, __ATOMIC_RELAXED) + 1,
                         __ATOMIC_RELAXED);
}

/*
 * Adds `count` values to the bucket holding `ns`: a histogram written out
 * as its non-empty buckets (result files store each bucket's bounds and
 * count) is rebuilt with the same counts, so its percentiles are computed
 * by the same rule as the run's. min, max and sum become bucket bounds;
 * a caller that stored the exact extremes sets them afterwards. Not for a
 * histogram another thread records into.
 */
void sb_hist_add_bucket(struct sb_hist *h, uint64_t ns, uint64_t count);

/* Copies src into dst reading every field atomically; safe while the owner
 * records. Only the buckets between src's extremes are read (the others
 * are empty; the rest of dst's are set to 0), so the untouched pages of a
 * live histogram stay untouched. */
void sb_hist_snapshot(struct sb_hist *dst, const struct sb_hist *src);

/* Adds src's counts into dst (dst is not shared while merging). */
void sb_hist_merge(struct sb_hist *dst, const struct sb_hist *src);

/* Adds a snapshot of src into dst, reading src atomically and only between
 * its extremes as sb_hist_snapshot does: a merge without the intermediate
 * copy, safe while src's owner records (dst is the caller's own). */
void sb_hist_accumulate(struct sb_hist *dst, const struct sb_hist *src);

/*
 * Sets dst = later - earlier for two snapshots of the same histogram, the
 * values recorded in between. min/max of the difference are those of the
 * buckets that changed (bucket bounds), since exact extremes are not kept.
 */
void sb_hist_diff(struct sb_hist *dst, const struct sb_hist *later,
                  const struct sb_hist *earlier);

/*
 * Returns the value at percentile pct (0 < pct <= 100): the upper bound of
 * the bucket holding the ceil(pct/100 * total)-th smallest value, capped at
 * max_ns. Returns 0 for an empty histogram.
 */
uint64_t sb_hist_percentile(const struct sb_hist *h, double pct);

/* Mean of the recorded values in ns, 0 when empty. */
double sb_hist_mean(const struct sb_hist *h);

/* Bucket geometry, for printing and for result files (and
 * sb_hist_bucket_of above). */
uint64_t sb_hist_bucket_low(size_t bucket);   /* smallest value in bucket */
uint64_t sb_hist_bucket_high(size_t bucket);  /* largest value in bucket */

/*
 * Prints the distribution in sysbench 1.0's style: one line per non-empty
 * bucket group, "value (ms) ------ distribution ------ count", with a bar
 * scaled to the largest count. Adjacent buckets are grouped so the output
 * stays readable (about 10 lines per decade).
 */
void sb_hist_print(const struct sb_hist *h, FILE *out);

#endif /* SB_HISTOGRAM_H */
