/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_STATS_H
#define SB_STATS_H

/*
 * A run's figures as one document: the counters, the latency histograms
 * and the error codes of a whole run, of one interval or of one type of
 * a mix, as the reporter sums them from the writers' live statistics
 * (sb_live_stats.h, which also gives the reader/writer protocol), as a
 * result file is read back, and as merge and compare combine them. Plain
 * data: whoever holds one is its only user (the functions below still
 * store counters with relaxed atomics where they did when this was also
 * the live type; they cost nothing and need no care).
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
 * first page: a document of a closed-loop run, whose service and lag
 * histograms stay empty, touches that page and the response buckets in
 * use (sb_stats_new's pages are zero-filled on demand). */
struct sb_stats {
    uint64_t c[SB_STAT_NCOUNTERS];
    unsigned ncodes;
    struct sb_error_count codes[SB_STATS_MAX_CODES];
    struct sb_hist response;  /* end - due time (== service without a rate) */
    struct sb_hist service;   /* end - actual start */
    struct sb_hist lag;       /* actual start - due time */
    /* Rate modes: the wake-up delay, actual start - due time of the starts
     * whose connection was idle at its due time (its previous transaction
     * had ended): the time the client took to get going, for the
     * self-check's late wake-ups (sb_selfcheck.h). Empty, as service and
     * lag, without a rate (no due time). */
    struct sb_dhist wake;
};

/* Empties s. */
void sb_stats_reset(struct sb_stats *s);

/* Allocates empty statistics on pages of their own, which the kernel
 * zero-fills on first touch: only the counters, the histogram headers and
 * the buckets actually used become resident, however much memory the heap
 * had freed before. A result file of 20,000 points read back with calloc
 * cost 3.4 GB, most of it calloc clearing reused heap memory. Returns NULL
 * when out of memory. The caller owns the result and frees it with
 * sb_stats_free. */
struct sb_stats *sb_stats_new(void);

/* Frees statistics from sb_stats_new; NULL is ignored. */
void sb_stats_free(struct sb_stats *s);

/* Adds delta to a counter. */
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
 * SB_STATS_MAX_CODES). */
void sb_stats_count_code(struct sb_stats *s, const struct sb_db_error *err,
                         bool reconnect);

/* dst += src (counters, histograms, codes; codes that no longer fit are
 * added to "other"). */
void sb_stats_merge(struct sb_stats *dst, const struct sb_stats *src);

/* dst = later - earlier, two snapshots of the same statistics. */
void sb_stats_diff(struct sb_stats *dst, const struct sb_stats *later,
                   const struct sb_stats *earlier);

/*
 * A table of error codes, codes[0..*ncodes), as struct sb_stats and the
 * live statistics keep it. sb_codes_find returns the entry counting code
 * and kind, added if new: when the table is nearly full, further codes go
 * to "other" (one entry per kind), so no count is lost or misattributed.
 * A new entry is filled before *ncodes is raised with a release store, so
 * a reader that loads *ncodes with acquire reads only whole entries.
 * sb_codes_count counts err under its SQLSTATE, or its error number when
 * the SQLSTATE says nothing more than "unknown". Only the table's writer
 * calls either.
 */
struct sb_error_count *sb_codes_find(struct sb_error_count *codes, unsigned *ncodes,
                                     const char *code, bool reconnect);
void sb_codes_count(struct sb_error_count *codes, unsigned *ncodes,
                    const struct sb_db_error *err, bool reconnect);

#endif /* SB_STATS_H */
