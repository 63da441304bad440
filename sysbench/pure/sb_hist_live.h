/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_HIST_LIVE_H
#define SB_HIST_LIVE_H

/*
 * A latency histogram while it is being recorded (pure module: no threads,
 * no I/O): the buckets of struct sb_hist (sb_histogram.h, same geometry)
 * kept in chunks of SB_HLIVE_CHUNK buckets, each taken from a pool shared
 * by all of a run's histograms the first time a value falls in it.
 *
 * Why: a struct sb_hist holds all 4,608 buckets (36 KB) inline. A thread
 * records a few dozen distinct latencies, but they spread over several
 * powers of two, and each four of those is a page of its own: at 1,000
 * threads of `sysbench cpu` every thread's statistics kept 3-4 pages
 * resident (16 KB a thread, 30-34 MB in all against sysbench 1.0.20's 22
 * MB). Chunks of 256 bytes taken in the order they are first used pack
 * the buckets of all threads densely: about 2 to 5 chunks a thread for
 * that run (measured: 2.4 chunks per thread in 2 s, 5.2 in 10 s).
 *
 * One writer per histogram, many readers, as struct sb_hist: the owner
 * records with relaxed atomic stores; a chunk is published with a release
 * store of its number and read after an acquire load of it. A chunk is
 * never given back while the pool lives, so a reader never sees it reused.
 * Readers flatten a live histogram into a struct sb_hist
 * (sb_hist_live_accumulate), and every later step (merge, diff,
 * percentiles, result files) works on that.
 */

#include <stddef.h>
#include <stdint.h>
#include "pure/sb_histogram.h"

#define SB_HLIVE_CHUNK_BITS 5
#define SB_HLIVE_CHUNK (1u << SB_HLIVE_CHUNK_BITS)   /* buckets per chunk */
#define SB_HLIVE_CHUNKS (SB_HIST_BUCKETS / SB_HLIVE_CHUNK)

/* The chunks of a run's live histograms: one reservation of address space
 * (MAP_NORESERVE, zero-filled by the kernel on first touch), handed out in
 * order by an atomic counter. Sized for every chunk of every histogram it
 * serves, so taking one never fails; the memory actually resident is that
 * of the chunks taken. */
struct sb_hist_pool {
    uint64_t *base;     /* the reservation: chunk n's counts at n * SB_HLIVE_CHUNK */
    size_t size;        /* bytes reserved: chunk 0 (never handed out) and the rest */
    uint32_t taken;     /* chunks handed out, numbered from 1; atomic */
};

struct sb_hist_live {
    uint64_t total;     /* as struct sb_hist's */
    uint64_t sum_ns;
    uint64_t min_ns;    /* UINT64_MAX when empty */
    uint64_t max_ns;
    uint64_t clamped;
    /* The owner's alone (readers never look): the chunk of the last
     * value's group, whose counts the next value most likely goes to. */
    uint64_t *hot;      /* that chunk's counts */
    size_t hot_c;       /* its group; SB_HLIVE_CHUNKS before the first */
    struct sb_hist_pool *pool;         /* borrowed */
    /* The number of the chunk holding buckets [i * SB_HLIVE_CHUNK,
     * (i + 1) * SB_HLIVE_CHUNK) in the pool; 0 until a value falls there.
     * Chunk n's counts are pool->base[n * SB_HLIVE_CHUNK ...]. */
    uint32_t chunk[SB_HLIVE_CHUNKS];
};

/* Reserves room for nhists histograms' chunks (all of them, for each).
 * Returns 0, or -1 when the reservation fails. */
int sb_hist_pool_init(struct sb_hist_pool *p, unsigned nhists);

/* Releases the reservation; p may be all zero (never initialised). Every
 * histogram using p is dead after this. */
void sb_hist_pool_destroy(struct sb_hist_pool *p);

/* Bytes of chunks handed out so far (what the pool made resident). */
size_t sb_hist_pool_used(const struct sb_hist_pool *p);

/* Makes h, whose memory is all zero bytes or garbage, an empty histogram
 * drawing its chunks from pool. Before the owner starts. */
void sb_hist_live_init(struct sb_hist_live *h, struct sb_hist_pool *pool);

/* Empties h; the chunks it took stay its own (zeroed). Owner only, or
 * anyone before the owner starts. */
void sb_hist_live_reset(struct sb_hist_live *h);

/* The count of bucket b of h when b is not in the hot chunk: looks its
 * chunk up, taking it from the pool if it has none yet, and makes it the
 * hot one. Owner only. */
uint64_t *sb_hist_live_count(struct sb_hist_live *h, size_t b);

/* Records one value, as sb_hist_record does. Only the owning thread may
 * call this; it allocates nothing but, the first time a value falls in a
 * group of SB_HLIVE_CHUNK buckets, a chunk from the pool (an atomic add).
 * A value in the last value's chunk, the usual case, goes there without
 * a lookup: looking the chunk up on every value cost an empty event 4% of
 * its time (measured: 50.1 against 48.2 ns), its count's address then
 * waiting for a load. always_inline (gcc and clang): with its six call
 * sites in the worker, gcc otherwise makes it a function of its own. */
__attribute__((always_inline)) static inline void sb_hist_live_record(struct sb_hist_live *h,
                                                                     uint64_t ns)
{
    size_t b = sb_hist_bucket_of(ns);
    uint64_t *cnt = b >> SB_HLIVE_CHUNK_BITS == h->hot_c ? h->hot + (b & (SB_HLIVE_CHUNK - 1))
                                                         : sb_hist_live_count(h, b);

    __atomic_store_n(cnt, __atomic_load_n(cnt, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
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

/* Adds what src holds into dst (the caller's own), reading src atomically
 * and only its chunks taken: safe while src's owner records. */
void sb_hist_live_accumulate(struct sb_hist *dst, const struct sb_hist_live *src);

#endif /* SB_HIST_LIVE_H */
