#ifndef SB_WORKER_H
#define SB_WORKER_H

/*
 * A worker is one benchmark thread and everything it owns: its Lua state,
 * random generator, pacer, database counters and statistics. Nothing
 * mutable is shared between workers except the stop flag and, in --rate
 * mode, the Poisson arrival sequence (behind its own mutex in the run).
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <lua.h>

#include "sb_lua.h"
#include "sb_cpu.h"
#include "sb_pacer.h"
#include "sb_rand.h"
#include "sb_stats.h"

struct sb_run;

struct sb_worker {
    int tid;
    struct sb_run *run;            /* borrowed, shared, read-mostly */
    pthread_t thread;
    lua_State *L;
    struct sb_rand rand;
    struct sb_pacer pacer;
    struct sb_db_counters db;      /* counted by the SQL layer */
    struct sb_lua_thread lt;       /* what this worker's Lua state sees */
    struct sb_stats stats;         /* written only by this worker */
    int epoch;                     /* run->epoch when stats were reset */
    uint64_t due_ns;               /* due time of the current event */
    uint64_t start_ns;             /* actual start of the current event */
    uint64_t end_ns;               /* when the thread finished */
    /* This thread's own CPU time at the start of the measured run (after
     * warmup) and when its event loop ended; thread_init and thread_done
     * are outside the window. */
    struct sb_cpu_times cpu_start, cpu_end;
    bool pacing;                   /* a rate mode is on */
    bool started;                  /* its thread was created */
    unsigned done;                 /* set (atomically) when it returns */
    bool failed;
    char err[1024];
};

/* Initialises w for thread tid of run (not yet started). */
void sb_worker_init(struct sb_worker *w, struct sb_run *run, int tid);

/*
 * Publishes the table FFI entry points use to find a worker by id. Called
 * by the run with no worker thread alive; read-only while they run.
 */
void sb_worker_table_set(struct sb_worker *workers, unsigned n);
struct sb_worker *sb_worker_get(int tid);

/* The thread body of a "run": Lua state, thread_init, the event loop (or
 * the script's thread_run), thread_done. */
void *sb_worker_main(void *arg);

/*
 * The per-event protocol, also reachable from Lua through FFI:
 * more_events waits until the next transaction is due (or returns false
 * when the run is over), event_start marks its actual start and
 * event_stop records its latencies and counters.
 */
bool sb_worker_more_events(struct sb_worker *w);
void sb_worker_event_start(struct sb_worker *w);
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

/* Publishes the SQL layer's counters into the statistics. */
void sb_worker_publish(struct sb_worker *w);

#endif /* SB_WORKER_H */
