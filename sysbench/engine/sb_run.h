/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_RUN_H
#define SB_RUN_H

/*
 * One benchmark run (the "run" command for one point of a sweep). The
 * script's own commands are in sb_command.h, the server probe before a
 * run in sb_probe.h. The main thread starts the workers, then
 * acts as the reporter: it prints interval reports, ends warmup, enforces
 * --time, and after the workers finish merges their statistics and prints
 * the final report.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <lua.h>

#include "config/sb_config.h"
#include "cpu/sb_cpu.h"
#include "lua/sb_lua.h"
#include "pure/sb_pacer.h"
#include "config/sb_point.h"
#include "measure/sb_stats.h"
#include "engine/sb_signal.h"

struct sb_worker;

/* The same after the statements were cancelled at the deadline. */
#define SB_RUN_CANCEL_GRACE_S 5.0

struct sb_run {
    const struct sb_config *cfg;   /* the read-only general configuration */
    /* This run's point (a copy, frozen before the run starts), and the
     * caller's env with .point set to it: every Lua state of the run,
     * the reports and the result files read the point from here. Both
     * live as long as the run (also when a thread is abandoned). */
    struct sb_point_config point;
    struct sb_lua_env point_env;
    const struct sb_lua_env *env;  /* &point_env */
    struct sb_worker *workers;
    char *worker_errs;             /* owned: each worker's err */
    /* Loop threads multiplexing the workers (sb_loop.h); none (0) when
     * every worker has a thread of its own. */
    struct sb_loop *loops;
    unsigned nloops;
    /* The statistics (sb_worker.h): one slot per worker thread, or one
     * per loop when connections are multiplexed; readers merge these. */
    struct sb_stats_slot *slots;
    unsigned nslots;
    struct sb_live_set *live;      /* owned: what the slots point at */
    uint64_t t0_ns;                /* schedule start, set before "go" */
    /* Rate modes: the measured window, set before "go". A slot belongs to
     * it when its nominal time is in [start, end); end 0: no --time. */
    uint64_t window_start_ns, window_end_ns;
    /* How long after the window's end a slot of it that jitter moved
     * past the end may still start: half the jitter, but at most 10% of
     * the window, so that --time holds at tiny rates. */
    uint64_t late_grace_ns;
    int epoch;                     /* bumped when warmup ends */
    uint64_t claimed;              /* events handed out (--events) */
    unsigned finished;             /* workers that have returned */
    unsigned ready;                /* workers past thread_init */
    int go;                        /* set once the schedule is set */
    pthread_mutex_t go_lock;       /* with go_cond, guards go */
    pthread_cond_t go_cond;
    /* Statements were cancelled --deadline-grace after --time (not by a
     * signal). Main thread only. */
    bool cut_at_deadline;
    pthread_mutex_t arrivals_lock; /* guards arrivals */
    struct sb_arrivals arrivals;
};

struct sb_result_writer;

/*
 * Runs the "run" command once for `point` (copied: threads, target rate,
 * repeat; sb_point.h), first showing the point to the main state L
 * (sysbench.opt.threads, tx_rate; env->point is ignored): init() in L, the workers, interval reports, the final report (or the
 * report_cumulative hook), done(). Returns 0, 1 on a fatal error (already
 * reported), or 128+signal when interrupted (the report of what ran is
 * still printed). out, if not NULL, receives the point: its intervals,
 * final figures, CPU report and the server version (sb_result_writer.h); it is
 * borrowed and used by the calling (main) thread only.
 */
int sb_run_benchmark(lua_State *L, const struct sb_lua_env *env,
                     const struct sb_point_config *point, struct sb_result_writer *out);


#endif /* SB_RUN_H */
