/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_LIVE_STATS_H
#define SB_LIVE_STATS_H

/*
 * The statistics a run records into while it runs. Each struct
 * sb_live_stats has one writer thread: a worker thread's own, or a loop
 * thread's, shared by every connection the loop multiplexes (they all run
 * on its thread, one at a time; the engine keeps them in a struct
 * sb_stats_slot, sb_worker.h). The reporter and the main thread read them
 * concurrently with atomic loads and add them into a struct sb_stats
 * (sb_stats.h, the document every later step uses) with
 * sb_live_accumulate. Nothing here takes a lock, and the hot path does no
 * read-modify-write atomics but a histogram's first value in a new chunk,
 * so threads never contend on a shared cache line.
 *
 * Reader/writer protocol (the writer thread writes, the reporter reads):
 *  1. Every field a reader may load while the owner runs is written with an
 *     atomic store and read with an atomic load: counters c[], every
 *     histogram field and chunk count, codes' counts, the slot's epoch,
 *     and each worker's epoch, events, busy time and due_ns.
 *     There is no plain write to any of them once the writer thread starts.
 *  2. A code's name and kind are written once, before the codes' n is
 *     raised with a release store; a histogram chunk is zero before its
 *     number is stored with release (sb_hist_live.h). Readers load both
 *     with acquire and only read what they publish, which is immutable
 *     from then on (but for the counts).
 *  3. Resets (end of warmup) are fenced by the epoch: only the reporter
 *     raises run->epoch; a worker seeing a new run->epoch resets its
 *     statistics (a shared slot once, by the first of its connections to
 *     see it, between two of that connection's events) and then stores
 *     the slot's epoch with release; each worker stores its own epoch
 *     with release after resetting its own counters. A connection whose
 *     epoch differs from its slot's records nothing into it. The reporter
 *     loads the epochs with acquire and skips a slot (or a worker's own
 *     counters) until it equals run->epoch, so it never diffs a snapshot
 *     against one taken before the reset.
 *  4. A snapshot is per-field consistent, not a single instant: counters
 *     and histograms may be a few events apart, which only moves those
 *     in-flight events to the next interval. A seqlock would give one
 *     instant, but a writer recording every few microseconds would keep a
 *     reader that copies its histograms retrying.
 *  5. After pthread_join the main thread may read everything plainly.
 *
 * Memory: a run's live statistics come in one struct sb_live_set, laid
 * out so that what every writer touches on every event (its counters and
 * the response histogram's summary and chunk table, 768 bytes) lies
 * packed, one 64-byte-aligned block per writer, while what only some runs
 * touch lies apart on zero-filled pages: the error codes, the service,
 * lag and wake-up histograms of the rate modes, and the histograms'
 * buckets, in chunks pooled for the whole set (sb_hist_live.h). A writer
 * of `sysbench cpu` at 1,000 threads thus keeps about 1.5 KB resident
 * here instead of the 16 KB of a struct sb_stats of its own.
 */

#include <stdbool.h>
#include <stdint.h>
#include "measure/sb_stats.h"
#include "pure/sb_dhist.h"
#include "pure/sb_hist_live.h"

/* The figures only the rate modes record (sb_stats.h's service, lag and
 * wake). */
struct sb_live_rate {
    struct sb_hist_live service;
    struct sb_hist_live lag;
    struct sb_dhist wake;
};

struct sb_live_codes {
    unsigned n;                                  /* entries in use */
    struct sb_error_count e[SB_STATS_MAX_CODES];
};

struct sb_live_stats {
    _Alignas(64) uint64_t c[SB_STAT_NCOUNTERS];  /* enum sb_counter */
    struct sb_live_rate *rate;    /* in the set; NULL without a rate */
    struct sb_live_codes *codes;  /* in the set */
    struct sb_hist_live response;
};

struct sb_live_set;

/* n empty live statistics; with_rate gives each the rate modes' figures.
 * Returns NULL when out of memory. The caller owns the set and frees it
 * with sb_live_set_free (after every writer stopped). */
struct sb_live_set *sb_live_set_new(unsigned n, bool with_rate);

/* Statistics i (< n) of set, owned by the set. */
struct sb_live_stats *sb_live_set_at(struct sb_live_set *set, unsigned i);

/* Bytes of histogram chunks the set's writers have taken. */
size_t sb_live_set_chunk_bytes(const struct sb_live_set *set);

/* Frees set; NULL is ignored. */
void sb_live_set_free(struct sb_live_set *set);

/* Adds delta to a counter; owner only (a relaxed load and store, as
 * sb_stats_add: one writer, and a locked add per query would cost more
 * than the rest of the bookkeeping). */
static inline void sb_live_add(struct sb_live_stats *s, enum sb_counter c, uint64_t delta)
{
    __atomic_store_n(&s->c[c], __atomic_load_n(&s->c[c], __ATOMIC_RELAXED) + delta,
                     __ATOMIC_RELAXED);
}

/* Counts an ignored error or a reconnect under its code, as
 * sb_stats_count_code; owner only. */
void sb_live_count_code(struct sb_live_stats *s, const struct sb_db_error *err,
                        bool reconnect);

/* Empties s (its histograms keep their chunks). Owner only, or anyone
 * before the owner starts. */
void sb_live_reset(struct sb_live_stats *s);

/* dst += what src holds, read atomically: safe while src's owner writes.
 * dst is the caller's own. */
void sb_live_accumulate(struct sb_stats *dst, const struct sb_live_stats *src);

#endif /* SB_LIVE_STATS_H */
