/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_TXLOG_H
#define SB_TXLOG_H

/*
 * --log=FILE: pgbench-style per-transaction logging, for users who
 * post-process every transaction. One line per transaction, in pgbench's
 * format:
 *
 *   client_id transaction_no time script_no time_epoch time_us [schedule_lag]
 *
 * client_id is the worker thread, transaction_no counts that thread's
 * measured transactions from 1, time is the response time in
 * microseconds (from the due time in rate modes, as pgbench's latency
 * under --rate), script_no is 0, time_epoch/time_us the Unix time the
 * transaction ended, and schedule_lag (rate modes only) the start lag in
 * microseconds.
 *
 * With --log-aggregate-interval=SECONDS, one line per interval instead
 * (all threads summed, as pgbench's log of one thread), in the aggregate
 * format of pgbench 15 (checked against pgbench 15.18 by
 * tests/drivers/server_info.sh), 15 fields:
 *
 *   interval_start num_transactions sum_latency sum_latency_2 min_latency
 *   max_latency sum_lag sum_lag_2 min_lag max_lag skipped retried retries
 *   serialization_failures deadlock_failures
 *
 * (one line in the file; microseconds; lag columns 0 in closed loop, as
 * pgbench writes them without --rate; skipped the slots --tx-late=skip
 * dropped, counted in the interval of the next transaction's end, as
 * pgbench counts those its --latency-limit skips; retries are the ignored
 * errors that restarted the transaction, retried the transactions that
 * had any; the two failure kinds are 0: a failure ends the run). Intervals start at multiples
 * of SECONDS of Unix time; the lines are in time order. The sums of the
 * intervals stay in memory (about 100 bytes an interval) and are written
 * when the log is closed, since a worker may report an old interval late.
 *
 * The file is written to a temporary name next to FILE and renamed over it
 * when the run ends (sb_safefile.h: never through a symlink, never over a
 * file that is not a transaction log). A run that ends early, by an error
 * or a signal, still publishes the lines it logged, as the report still
 * shows what ran; a run that fails before any worker started measuring
 * leaves an earlier FILE as it was.
 *
 * Cost: without --log nothing here runs (the worker tests one pointer).
 * With it, each worker appends a fixed-size record to its own buffer and
 * formats and writes the buffer under the file's lock only when it is
 * full and at the end, so workers do not contend per transaction.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/sb_safefile.h"

/* Records a worker buffers before writing them out. */
#define SB_TXLOG_BUFFER 4096

struct sb_txlog {
    struct sb_safefile file;  /* the temporary name until sb_txlog_close */
    pthread_mutex_t lock;     /* guards file */
    int64_t epoch_offset_ns;  /* Unix time minus CLOCK_MONOTONIC */
    double agg_s;             /* 0: one line per transaction */
    bool started;             /* a worker started measuring (atomic) */
    /* Aggregate mode: every interval's sums, by interval_start (guarded
     * by lock). */
    struct sb_txlog_agg *aggs;
    size_t nagg, agg_cap;
    bool agg_oom;             /* an interval was lost: said at close */
};

/* The sums of one interval. */
struct sb_txlog_agg {
    int64_t start;            /* Unix seconds */
    uint64_t cnt, retried, retries, skipped;
    double sum, sum2, min, max, lsum, lsum2, lmin, lmax;
};

struct sb_txlog_rec {
    uint64_t end_ns;          /* CLOCK_MONOTONIC */
    uint64_t resp_ns, lag_ns;
    uint32_t retries;
    uint32_t skipped;         /* slots dropped before this transaction */
};

/* Lines formatted before one locked write. */
struct sb_txlog_text {
    char buf[65536];
    size_t len;
};

/* One worker's buffer; owned by that worker. */
struct sb_txlog_thread {
    struct sb_txlog *log;     /* borrowed */
    int tid;
    bool lag;                 /* rate mode: write schedule_lag */
    uint64_t txno;            /* transactions logged so far */
    uint64_t errors_seen;     /* the worker's ignored errors at the last record */
    uint64_t skipped_seen;    /* its dropped slots (--tx-late=skip) then */
    /* Aggregate mode: the interval being summed (start -1 before the
     * first), added to the log's sums when the next one begins. */
    struct sb_txlog_agg agg;
    unsigned n;
    struct sb_txlog_rec recs[SB_TXLOG_BUFFER];
    struct sb_txlog_text text;
};

/*
 * Checks path (sb_safefile.h's rule) and opens a temporary file for the
 * log; agg_s > 0 selects aggregate lines. Returns 0, or -1 with one line
 * in err (nothing is created then).
 */
int sb_txlog_open(struct sb_txlog *l, const char *path, double agg_s, char *err,
                  size_t errlen);

/* Prepares worker tid's buffer (t is zeroed first). */
void sb_txlog_thread_init(struct sb_txlog_thread *t, struct sb_txlog *l, int tid, bool lag);

/* Writes the buffered records (per-transaction lines, or the aggregates
 * of the intervals they complete). */
void sb_txlog_flush(struct sb_txlog_thread *t);

/* The worker owning t starts its measured transactions: from now on the
 * run has a log to publish, whatever ends it. */
void sb_txlog_start(struct sb_txlog_thread *t);

/* Records one transaction; errors is the worker's ignored-error count
 * (its increase since the last record is this transaction's retries),
 * skipped its count of dropped slots (likewise). */
static inline void sb_txlog_add(struct sb_txlog_thread *t, uint64_t end_ns, uint64_t resp_ns,
                                uint64_t lag_ns, uint64_t errors, uint64_t skipped)
{
    struct sb_txlog_rec *r = &t->recs[t->n++];

    r->end_ns = end_ns;
    r->resp_ns = resp_ns;
    r->lag_ns = lag_ns;
    r->retries = (uint32_t)(errors - t->errors_seen);
    t->errors_seen = errors;
    r->skipped = (uint32_t)(skipped - t->skipped_seen);
    t->skipped_seen = skipped;
    if (t->n == SB_TXLOG_BUFFER)
        sb_txlog_flush(t);
}

/* The end of the worker: flushes, and in aggregate mode adds its last
 * (partial) interval to the log's sums, with the slots dropped since its
 * last transaction (skipped: the pacer's count of dropped slots now). */
void sb_txlog_thread_done(struct sb_txlog_thread *t, uint64_t skipped);

/*
 * Ends the log: in aggregate mode writes the intervals' lines in time
 * order; then renames it over its final name when a worker started
 * measuring, otherwise removes it and leaves the final name untouched.
 * Safe while an abandoned worker may still flush: later writes are
 * dropped. Returns 0, or -1 with one line in err (a write failed, or the
 * final name became something not to replace; the message then says
 * where the log is).
 */
int sb_txlog_close(struct sb_txlog *l, char *err, size_t errlen);

#endif /* SB_TXLOG_H */
