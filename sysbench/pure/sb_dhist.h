/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_DHIST_H
#define SB_DHIST_H

/*
 * A compact histogram of short delays (pure module: no threads, no I/O),
 * for the self-check's wake-up delay: how long after a connection's due
 * time its worker, idle until then, started the transaction. Per-thread
 * statistics keep one beside their latency histograms, so it is small
 * (about 1.6 KB against their 36 KB each): log-linear buckets with
 * SB_DHIST_SUB per power of two from 1 us to about 17 s, so a percentile
 * is a bucket's upper bound, at most 1/SB_DHIST_SUB (12.5%) above the
 * true value. Values under 1 us share the first bucket; values above the
 * last bucket are counted in it.
 *
 * One writer, many readers, as struct sb_hist (sb_histogram.h): the owner
 * records with relaxed atomic stores; others snapshot with atomic loads.
 */

#include <stdint.h>

#define SB_DHIST_SUB_BITS 3
#define SB_DHIST_SUB (1u << SB_DHIST_SUB_BITS)
/* Powers of two 2^10 ns (1.02 us) to 2^34 ns (17.2 s). */
#define SB_DHIST_MIN_BITS 10
#define SB_DHIST_MAX_BITS 34
#define SB_DHIST_BUCKETS (1 + (SB_DHIST_MAX_BITS - SB_DHIST_MIN_BITS) * SB_DHIST_SUB)

struct sb_dhist {
    uint64_t total;                     /* values recorded */
    uint64_t counts[SB_DHIST_BUCKETS];
};

/* Empties h. */
void sb_dhist_reset(struct sb_dhist *h);

/* Records one value (ns). Only the owning thread may call this. */
void sb_dhist_record(struct sb_dhist *h, uint64_t ns);

/* The bucket a value falls in, in [0, SB_DHIST_BUCKETS). */
unsigned sb_dhist_bucket(uint64_t ns);

/* The upper bound (ns, exclusive) of bucket i; the last bucket's is its
 * nominal bound, though it also holds every larger value. */
uint64_t sb_dhist_upper(unsigned i);

/* The pct-th percentile (0 < pct <= 100) as the upper bound of the bucket
 * that holds it, nearest rank; 0 when nothing was recorded. */
uint64_t sb_dhist_percentile(const struct sb_dhist *h, double pct);

/* Values recorded in buckets whose lower bound is at least ns: a lower
 * bound on the number of values above ns. */
uint64_t sb_dhist_count_from(const struct sb_dhist *h, uint64_t ns);

/* Copies src into dst with atomic loads; safe while the owner records. */
void sb_dhist_snapshot(struct sb_dhist *dst, const struct sb_dhist *src);

/* dst += src; dst is the caller's own. */
void sb_dhist_merge(struct sb_dhist *dst, const struct sb_dhist *src);

/* dst += a snapshot of src (atomic loads); safe while src's owner records. */
void sb_dhist_accumulate(struct sb_dhist *dst, const struct sb_dhist *src);

/* dst = later - earlier, two snapshots of the same histogram. */
void sb_dhist_diff(struct sb_dhist *dst, const struct sb_dhist *later,
                   const struct sb_dhist *earlier);

#endif /* SB_DHIST_H */
