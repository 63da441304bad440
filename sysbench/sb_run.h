#ifndef SB_RUN_H
#define SB_RUN_H

/*
 * One benchmark run (the "run" command for one point of a sweep), and the
 * threads of parallel commands. The main thread starts the workers, then
 * acts as the reporter: it prints interval reports, ends warmup, enforces
 * --time, and after the workers finish merges their statistics and prints
 * the final report.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <lua.h>

#include "sb_config.h"
#include "sb_lua.h"
#include "sb_pacer.h"
#include "sb_stats.h"

enum sb_pace_mode {
    SB_PACE_NONE,      /* closed loop, as fast as possible */
    SB_PACE_FIXED,     /* --tx-rate */
    SB_PACE_POISSON    /* --rate */
};

struct sb_worker;

struct sb_run {
    const struct sb_config *cfg;
    const struct sb_lua_env *env;
    unsigned nthreads;
    enum sb_pace_mode mode;
    double rate;                   /* target transactions per second */
    double jitter_us;              /* effective --tx-jitter */
    struct sb_worker *workers;
    uint64_t t0_ns;                /* schedule start, set before "go" */
    /* Rate modes: the measured window, set before "go". A slot belongs to
     * it when its nominal time is in [start, end); end 0: no --time. */
    uint64_t window_start_ns, window_end_ns;
    int epoch;                     /* bumped when warmup ends */
    uint64_t claimed;              /* events handed out (--events) */
    unsigned finished;             /* workers that have returned */
    pthread_barrier_t ready, go;
    pthread_mutex_t arrivals_lock; /* guards arrivals */
    struct sb_arrivals arrivals;
};

struct sb_output;

/*
 * Runs the "run" command once with cfg->threads threads: init() in the
 * main state L, the workers, interval reports, the final report (or the
 * report_cumulative hook), done(). Returns 0, 1 on a fatal error (already
 * reported), or 128+signal when interrupted (the report of what ran is
 * still printed). out, if not NULL, receives the point: its intervals,
 * final figures, CPU report and the server version (sb_output.h); it is
 * borrowed and used by the calling (main) thread only.
 */
int sb_run_benchmark(lua_State *L, const struct sb_lua_env *env,
                     struct sb_output *out);

/* Runs a parallel command in env->threads threads, each with its own
 * state. Returns 0 or 1 (error reported). */
int sb_run_parallel_command(const struct sb_lua_env *env, const char *name);

/* Installs SIGINT/SIGTERM handlers that request a stop. */
void sb_run_install_signals(void);
/* The signal that stopped the run, 0 if none. */
int sb_run_signal(void);

#endif /* SB_RUN_H */
