/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_STATS_H
#define SB_STATS_H

/*
 * Per-thread statistics. Each struct sb_stats has one writer thread: a
 * worker thread's own, or a loop thread's, shared by every connection the
 * loop multiplexes (they all run on its thread, one at a time; the engine
 * keeps them in a struct sb_stats_slot, sb_worker.h). The reporter and
 * the main thread read it concurrently with relaxed atomic loads
 * (sb_stats_snapshot) and merge snapshots themselves.
 * Nothing here takes a lock, and the hot path does no read-modify-write
 * atomics, so threads never contend on a shared cache line.
 *
 * Reader/writer protocol (the writer thread writes, the reporter reads):
 *  1. Every field a reader may load while the owner runs is written with an
 *     atomic store and read with an atomic load: counters c[], every
 *     histogram field, codes[].count, the slot's epoch, and each worker's
 *     epoch, events, busy time and due_ns.
 *     There is no plain write to any of them once the writer thread starts.
 *  2. codes[i].code/.reconnect are written once, before ncodes is raised
 *     with a release store; readers load ncodes with acquire and only read
 *     entries below it, which are immutable from then on.
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
 *     instant, but a snapshot copies ~110 KB of histograms and a writer
 *     recording every few microseconds would keep the reader retrying.
 *  5. After pthread_join the main thread may read everything plainly.
 */

#include <stdbool.h>
#include <stdint.h>
#include "pure/sb_dhist.h"
#include "pure/sb_histogram.h"
#include "drivers/sb_driver.h"

/* Distinct error codes remembered per thread for the report: up to 14
 * codes, then "other" (one entry for ignored errors, one for reconnects)
 * for every further code, so no count is lost or misattributed. */
#define SB_STATS_MAX_CODES 16

struct sb_error_count {
    char code[16];        /* "1213", "40P01", ...; "other" for overflow */
    bool reconnect;       /* a lost connection rather than an ignored error */
    uint64_t count;
};

enum sb_counter {
    SB_STAT_EVENTS,       /* transactions finished */
    SB_STAT_READS,
    SB_STAT_WRITES,
    SB_STAT_OTHER,
    SB_STAT_ERRORS,       /* ignored errors (events restarted) */
    SB_STAT_RECONNECTS,
    SB_STAT_LATE,         /* starts after their due time */
    SB_STAT_SKIPPED,      /* slots dropped by --tx-late=skip */
    /* Rate modes, for the self-check's client-bound verdict: the client's
     * own delay of each start, start - max(due time, end of the previous
     * transaction on the connection) (the part of the lag the connection
     * was free to avoid), summed in ns; and the starts it delayed by more
     * than the worker's threshold (sb_worker.h client_late_ns). Counters,
     * not a histogram: they merge and diff like the others and cost the
     * per-transaction path two stores. */
    SB_STAT_CLIENT_DELAY_NS,
    SB_STAT_CLIENT_LATE,
    SB_STAT_NCOUNTERS
};

/* The counters, codes and the response histogram's summary share the
 * first page, so statistics that record only the response time (below)
 * touch that page and the response buckets in use, nothing else. */
struct sb_stats {
    uint64_t c[SB_STAT_NCOUNTERS];
    /* Without a rate the service time is the response time and the lag
     * is 0 (sb_worker.h): a worker's statistics then record only
     * `response`. Set before the owner starts, never changed after:
     * reset, snapshot, merge and accumulate then leave service and lag
     * alone (empty in every copy), so their 74 KB are never touched. */
    bool response_only;
    unsigned ncodes;
    struct sb_error_count codes[SB_STATS_MAX_CODES];
    struct sb_hist response;  /* end - due time (== service without a rate) */
    struct sb_hist service;   /* end - actual start */
    struct sb_hist lag;       /* actual start - due time */
    /* Rate modes: the wake-up delay, actual start - due time of the starts
     * whose connection was idle at its due time (its previous transaction
     * had ended): the time the client took to get going, for the
     * self-check's late wake-ups (sb_selfcheck.h). Left alone, as service
     * and lag, when response_only (no rate, no due time). */
    struct sb_dhist wake;
};

/* Empties s (keeping response_only). Only the owner (or anyone before the
 * owner starts). */
void sb_stats_reset(struct sb_stats *s);

/* Allocates empty statistics on pages of their own, which the kernel
 * zero-fills on first touch: only the counters, the histogram headers and
 * the buckets actually used become resident (about 20 KB instead of
 * 110 KB), however much memory the heap had freed before. A result file
 * of 20,000 points read back with calloc cost 3.4 GB, most of it calloc
 * clearing reused heap memory. Returns NULL when out of memory. The
 * caller owns the result and frees it with sb_stats_free. */
struct sb_stats *sb_stats_new(void);

/* Frees statistics from sb_stats_new; NULL is ignored. */
void sb_stats_free(struct sb_stats *s);

/* Makes s, which is all zero bytes (calloc) but for response_only, empty
 * like sb_stats_reset, writing only the fields that are not zero when
 * empty (and not those of service and lag when response_only): the
 * histogram counts stay untouched pages until used. */
void sb_stats_init_zeroed(struct sb_stats *s);

/* Adds delta to a counter; owner only. A relaxed load and store, not an
 * atomic add: only one thread writes, and a locked instruction per query
 * would cost more than the rest of the bookkeeping. */
static inline void sb_stats_add(struct sb_stats *s, enum sb_counter c, uint64_t delta)
{
    __atomic_store_n(&s->c[c], __atomic_load_n(&s->c[c], __ATOMIC_RELAXED) + delta,
                     __ATOMIC_RELAXED);
}

/* Queries of every kind (reads, writes, other) in s. */
static inline uint64_t sb_stats_queries(const struct sb_stats *s)
{
    return s->c[SB_STAT_READS] + s->c[SB_STAT_WRITES] + s->c[SB_STAT_OTHER];
}

/* Counts an ignored error or a reconnect under its code (or "other", see
 * SB_STATS_MAX_CODES); owner only. */
void sb_stats_count_code(struct sb_stats *s, const struct sb_db_error *err,
                         bool reconnect);

/* Copies src into dst with atomic loads; safe while the owner writes. */
void sb_stats_snapshot(struct sb_stats *dst, const struct sb_stats *src);

/* dst += src (counters, histograms, codes; codes that no longer fit are
 * added to "other"). */
void sb_stats_merge(struct sb_stats *dst, const struct sb_stats *src);

/* dst += a snapshot of src, read with atomic loads as sb_stats_snapshot
 * does; safe while src's owner writes. The reporter sums the workers this
 * way into one total instead of copying each worker's 110 KB first. */
void sb_stats_accumulate(struct sb_stats *dst, const struct sb_stats *src);

/* dst = later - earlier, two snapshots of the same statistics. */
void sb_stats_diff(struct sb_stats *dst, const struct sb_stats *later,
                   const struct sb_stats *earlier);

#endif /* SB_STATS_H */
