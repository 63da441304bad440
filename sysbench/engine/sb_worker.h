/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_WORKER_H
#define SB_WORKER_H

/*
 * A worker is one benchmark thread (or one connection a loop thread
 * multiplexes, sb_loop.h) and everything it owns: its Lua state, random
 * generator, pacer, database counters and statistics (a slot of its own,
 * or its loop's, below). Nothing mutable is shared between workers except
 * the stop flag, a loop's statistics slot (one writer thread all the
 * same) and, in --rate mode, the Poisson arrival sequence (behind its own
 * mutex in the run).
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <lua.h>

#include "lua/sb_lua.h"
#include "lua/sb_lua_shared.h"
#include "cpu/sb_cpu.h"
#include "pure/sb_pacer.h"
#include "pure/sb_rand.h"
#include "pure/sb_mix.h"
#include "measure/sb_live_stats.h"

struct sb_run;
struct sb_loop;
struct sb_txlog_thread;

/* What a multiplexed connection's next event does (sb_worker_mux_next). */
enum sb_mux_next {
    SB_MUX_STOP = 0,       /* no more events */
    SB_MUX_GO = 1,         /* run it now */
    SB_MUX_WAIT = 2,       /* yield until wake_ns, then sb_worker_mux_woken */
    SB_MUX_YIELD_GO = 3    /* yield once (fairness), then run it */
};

/* A worker's error message: room for a Lua traceback's first lines. */
#define SB_WORKER_ERRLEN 1024

/*
 * Statistics and the epoch they belong to (sb_live_stats.h, rule 3): a
 * worker thread's own, or one shared by every connection a loop
 * multiplexes (sb_loop.h), which all run on the loop's thread, so a slot
 * still has one writer. The reporter merges slots, not connections: at
 * 10,000 connections per-connection histograms were 28 KB resident each.
 * The statistics themselves lie in the run's struct sb_live_set (packed
 * per writer, their buckets pooled); a slot only points at them, and its
 * epoch is written at a reset alone, so slots side by side share cache
 * lines without contention.
 */
struct sb_stats_slot {
    int epoch;                     /* run->epoch when stats were reset */
    struct sb_live_stats *stats;   /* in run->live */
    /* A mix (pure/sb_mix.h): the same figures per type, under the same
     * epoch and writer (in run->live as well; NULL beyond the mix's types
     * and without a mix). */
    struct sb_live_stats *types[SB_MIX_MAX];
    /* --report-per-statement: the figures per statement of the slot's
     * connections (pure/sb_stmt_table.h; owned, NULL when off), under the
     * same epoch and writer. */
    struct sb_stmt_table *stmts;
};

struct sb_worker {
    int tid;
    struct sb_run *run;            /* borrowed, shared, read-mostly */
    pthread_t thread;
    lua_State *L;
    struct sb_rand rand;
    /* The pacer's jitter draws: a stream of their own, so that how many
     * slots a late thread skips does not shift the script's values. */
    struct sb_rand pace_rand;
    struct sb_pacer pacer;
    struct sb_db_counters db;      /* counted by the SQL layer */
    struct sb_lua_thread lt;       /* what this worker's Lua state sees */
    /* slot's contents, epoch, events and busy_ns are read by the
     * reporter while this worker runs: written only by the thread running
     * this worker and only with atomic stores, under the protocol
     * described in sb_live_stats.h. Every other field is private until the
     * thread is joined. */
    struct sb_stats_slot *slot;    /* borrowed from the run */
    struct sb_live_stats *stats;   /* slot->stats, one load less per event */
    int epoch;                     /* run->epoch when this worker reset */
    /* This connection's own events and time inside events (service time
     * in rate modes, response time otherwise) since its reset, for the
     * report's per-connection fairness. */
    uint64_t events, busy_ns;
    /* A multiplexed worker's SQL counters already added to its shared
     * slot (sb_worker_publish adds what is new). */
    uint64_t pub_reads, pub_writes, pub_other, pub_errors, pub_reconnects;
    uint64_t due_ns;               /* due time of the current event */
    uint64_t start_ns;             /* actual start of the current event */
    /* Actual start of this worker's first measured event; 0 until one
     * ended. Private until the thread is joined. */
    uint64_t first_ns, first_due_ns;  /* ... and its due time */
    /* End of this worker's last measured event; 0 until one ended.
     * Atomic: a forced shutdown reports while the thread still runs. */
    uint64_t last_end_ns;
    uint64_t end_ns;               /* when the thread finished */
    /* This thread's own CPU time at the start of the measured run (after
     * warmup) and when its event loop ended; thread_init and thread_done
     * are outside the window. */
    struct sb_cpu_times cpu_start, cpu_end;
    /* Its run-queue wait (runnable, not running) at the same two points,
     * for the self-check; UINT64_MAX when the kernel does not say. */
    uint64_t rq_wait_start, rq_wait_end;
    bool pacing;                   /* a rate mode is on */
    /* Rate modes: the statistics belong to the measured window (its first
     * slot was taken); slots taken so far (--tx-rate, published for the
     * other threads' backlog count); the largest backlog over all threads
     * this worker saw when it started a late slot in the window. */
    bool measured;
    uint64_t taken;
    uint64_t max_backlog;
    /* Rate modes: when this connection's previous transaction ended, the
     * current start's client delay (start - max(due, prev_end_ns)), and
     * the delay above which a start counts as SB_STAT_CLIENT_LATE
     * (SB_SELFCHECK_LAG_SHARE of the connection's period); woke: the
     * connection was idle at the due time (its previous transaction had
     * ended), so the delay is a wake-up's (sb_stats.h wake). Private. */
    uint64_t prev_end_ns;
    uint64_t client_delay_ns;
    uint64_t client_late_ns;
    bool woke;
    /* --log: this worker's buffer (owned, NULL without --log), and the
     * same pointer once its transactions are measured (NULL before): the
     * event path tests only the latter. */
    struct sb_txlog_thread *txlog_buf;
    struct sb_txlog_thread *txlog;
    /* Multiplexed connections (sb_loop.h): the loop thread that runs this
     * worker (NULL: a thread of its own), its coroutine, the timed wait
     * it yielded for, and the wall time its coroutine ran in the measured
     * window (its share of the loop thread's CPU time). Private to the
     * loop's thread. */
    struct sb_loop *loop;
    /* sb_loop_measure, set with loop by the loop (sb_loop_init): the
     * worker calls down it, so it needs no knowledge of the loop. */
    void (*loop_measure)(struct sb_loop *loop);
    lua_State *co;
    /* Its globals in the Lua state its loop's connections share
     * (sb_lua_shared.h; conn.sh NULL: L is a state of its own). */
    struct sb_lua_conn conn;
    uint64_t wake_ns, wake_nominal;
    bool wake_then_stop;
    bool timer_wait;
    bool fd_wait;
    uint64_t run_ns;
    uint64_t resumes, resumes_seen;
    /* Events the built-in loop completed (warmup included) and retried
     * after a RESTART_EVENT error: a run with restarts and no completed
     * event measured nothing (sb_run.c). */
    uint64_t completed;
    uint64_t restarts;
    /* A mix: the type of the current event (sb_worker_mix_next), and
     * w->db.errors when its type's statistics last got its errors. */
    unsigned mix_type;
    uint64_t mix_errors_seen;
    /* A compiled-in test's state for this thread (sb_builtin.h). */
    void *bctx;
    bool started;                  /* its thread was created */
    unsigned done;                 /* set (atomically) when it returns */
    bool failed;
    char *err;                     /* SB_WORKER_ERRLEN bytes, run->worker_errs */
};

/*
 * Rate modes, called by the run with no worker thread alive once t0 and the
 * window are known: initialises every worker's schedule (so that any thread
 * may read any schedule) and whether its statistics start measured.
 */
void sb_worker_start_pacing(struct sb_run *run);

/*
 * --tx-rate: slots due (nominal time at or before now, and before the end
 * of the window) and not yet taken, summed over all workers. Lock-free;
 * any thread may call it once sb_worker_start_pacing has run.
 */
uint64_t sb_worker_backlog(struct sb_run *run, uint64_t now);

/* Initialises w for thread tid of run (not yet started); w->slot is set
 * by the run before it starts. w must be all zero bytes (calloc). */
void sb_worker_init(struct sb_worker *w, struct sb_run *run, int tid);

/*
 * The table FFI entry points use to find a worker by id: set by the run
 * (sb_worker_table_set) with no worker thread alive, read-only while they
 * run; nobody else writes it. Visible so that sb_worker_get inlines: an
 * event looks its worker up three times (start, stop, more events), and
 * as a call the lookup was 30 of an empty event's 260 instructions.
 */
struct sb_worker_table {
    struct sb_worker *w;
    unsigned n;
};
extern struct sb_worker_table sb_worker_table_pub;

void sb_worker_table_set(struct sb_worker *workers, unsigned n);

/* Worker tid of the running point, or NULL when there is none. */
static inline struct sb_worker *sb_worker_get(int tid)
{
    /* Negative ids become large unsigned ones: one comparison. */
    return (unsigned)tid < sb_worker_table_pub.n ? &sb_worker_table_pub.w[tid] : NULL;
}

/* The thread body of a "run": Lua state, thread_init, the event loop (or
 * the script's thread_run), thread_done. */
void *sb_worker_main(void *arg);

/*
 * The steps of a worker's life, for sb_worker_main and for the loops that
 * multiplex connections (sb_loop.c), on the thread that runs it:
 * sb_worker_open creates its Lua state and runs thread_init (false, with
 * the worker failed, on an error) and counts it ready; sb_worker_wait_go
 * waits for the run's start (false: end without running);
 * sb_worker_begin marks the start of its measurement; sb_worker_close
 * runs thread_done, closes the Lua state and counts it finished.
 * sb_worker_fail marks it failed (w->err says why) and stops the run.
 */
bool sb_worker_open(struct sb_worker *w);
bool sb_worker_wait_go(struct sb_run *run);
void sb_worker_begin(struct sb_worker *w);
void sb_worker_close(struct sb_worker *w, bool ok);
void sb_worker_fail(struct sb_worker *w);

/*
 * The per-event protocol, also reachable from Lua through FFI:
 * more_events waits until the next transaction is due (or returns false
 * when the run is over), event_start marks its actual start and
 * event_stop records its latencies and counters.
 */
bool sb_worker_more_events(struct sb_worker *w);
void sb_worker_event_start(struct sb_worker *w);

/* A mix: draws the type of w's next event from the mix's weights with
 * w's generator and remembers it for event_stop; returns it (0 without a
 * mix). sb_worker_mix_errors gives the type the ignored errors counted
 * since (the built-in loop calls it at each restart). */
unsigned sb_worker_mix_next(struct sb_worker *w);
void sb_worker_mix_errors(struct sb_worker *w);

/*
 * The same protocol for a connection multiplexed by a loop (sb_loop.h),
 * whose waits must yield instead of sleeping: sb_worker_mux_next takes
 * the next event and says whether to run it, stop or wait; after a wait
 * (w->wake_ns, or earlier when the run stops) sb_worker_mux_woken says
 * whether the event runs (SB_MUX_GO), the worker stops (SB_MUX_STOP) or
 * waits on (SB_MUX_WAIT). Loop thread only.
 */
enum sb_mux_next sb_worker_mux_next(struct sb_worker *w);
enum sb_mux_next sb_worker_mux_woken(struct sb_worker *w);

/* Warmup ended while w was measured by its loop: its loop's CPU from now
 * on counts (sb_loop.c). */
void sb_worker_measure_cpu(struct sb_worker *w);
void sb_worker_event_stop(struct sb_worker *w);

/*
 * Counts one transaction without an event (sb_counter_inc(tid, SB_CNT_TRX)
 * from a script, as sysbench 1.0 counts it): it adds to the transaction
 * count and rate, not to the latency histograms. Owner thread only.
 */
void sb_worker_count_trx(struct sb_worker *w);

/* Whether the run is stopping (time limit, signal, fatal error); for the
 * built-in event loop's retries, through FFI. An event limit reached does
 * not count: the events other threads already claimed still finish. */
bool sb_ffi_stop_requested(void);

/* Publishes the SQL layer's counters into the worker's slot (a shared
 * slot gets what is new since the last call). */
void sb_worker_publish(struct sb_worker *w);

#endif /* SB_WORKER_H */
