/* SPDX-License-Identifier: GPL-2.0-or-later */
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

#include "config/sb_config.h"
#include "cpu/sb_cpu.h"
#include "lua/sb_lua.h"
#include "pure/sb_pacer.h"
#include "config/sb_point.h"
#include "results/sb_stats.h"
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
    /* --tx-rate over all instances: the schedule of connection
     * pace_base + tid among pace_threads at point.tx_rate (sb_instance.h). */
    unsigned pace_threads, pace_base;
    struct sb_worker *workers;
    /* Loop threads multiplexing the workers (sb_loop.h); none (0) when
     * every worker has a thread of its own. */
    struct sb_loop *loops;
    unsigned nloops;
    /* The statistics (sb_worker.h): one slot per worker thread, or one
     * per loop when connections are multiplexed; readers merge these. */
    struct sb_stats_slot *slots;
    unsigned nslots;
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

/* Runs a parallel command in env->point->threads threads, each with its own
 * state. Returns 0, 1 (error reported) or 128+signal: a signal ends it at
 * once, abandoning the threads (sb_signal_abandoned). */
int sb_run_parallel_command(const struct sb_lua_env *env, const char *name);

/* Runs command `name` of the main state L in a thread of its own, so that
 * a signal ends it at once (the thread is abandoned). Returns 0, 1 (error
 * reported) or 128+signal. L must not be used again after an abandon. */
int sb_run_main_command(lua_State *L, const struct sb_lua_env *env, const char *name);


/*
 * Finds the server's processes for CPU accounting (--server-pid, else the
 * local process listening where the driver connects) and the server's
 * version (vlen bytes into version, "" if unknown) through one probe
 * connection, which also reads the server's settings into info (zeroed
 * by the caller; the binary too when the server is found here, see
 * sb_server_info.h). Returns true when found; otherwise label says why
 * not. In a rate run the probe connection also times a few round trips:
 * when the quickest is longer than each thread's time per transaction,
 * that is warned about and *rate_warned set (else left false).
 */
struct sb_cpu_server;
struct sb_server_info;
bool sb_run_find_server(const struct sb_lua_env *env, struct sb_cpu_server *srv,
                        char *label, size_t len, char *version, size_t vlen,
                        struct sb_server_info *info, bool *rate_warned);

/*
 * Follows a server found by its endpoint across restarts, for the CPU
 * accounting. The reporter calls sb_server_watch_check every so often (a
 * signal-0 test of the first pid, once a second) and hands it its samples
 * (sb_server_watch_note: the interval reports'); once the server's
 * processes are gone the check looks for the processes listening at the
 * endpoint again and, when found, measures those from then on. The CPU
 * the old processes used up to the last sample is carried over
 * (sb_server_watch_adjust adds it to the final sample), and the time
 * between that sample and the new process being found is the gap, not
 * measured (without --report-interval, since the start of the run).
 */
struct sb_server_watch {
    struct sb_cpu_server *srv;      /* borrowed; updated in place */
    struct sb_cpu_times last;       /* the server's times at last_ns */
    bool last_ok;
    uint64_t last_ns, next_check_ns;
    int64_t carry_user_ns, carry_system_ns; /* CPU of replaced processes */
    uint64_t gap_ns;                /* time not measured */
    unsigned restarts;
};

/* Starts watching srv (NULL or without an endpoint: nothing to do) from
 * a sample taken at now_ns. */
void sb_server_watch_start(struct sb_server_watch *w, struct sb_cpu_server *srv,
                           const struct sb_cpu_sample *s, uint64_t now_ns);
/* Checks the server (at most once a second). Returns true when it found
 * a restarted server: *fresh is then a sample of the new processes, which
 * the caller uses as the start of its current interval. */
bool sb_server_watch_check(struct sb_server_watch *w, uint64_t now_ns,
                           struct sb_cpu_times *fresh, size_t *nprocs);
/* Remembers the server's times of a sample taken at now_ns. */
void sb_server_watch_note(struct sb_server_watch *w, const struct sb_cpu_sample *s,
                          uint64_t now_ns);
/* Adds the carried CPU to a final sample of the new processes, so that
 * final - first covers every process the server ran on, and appends
 * "; restarted N time(s), X s not measured" to label. */
void sb_server_watch_adjust(const struct sb_server_watch *w, struct sb_cpu_sample *final,
                            char *label, size_t len);

/* sb_run_find_server in a guarded thread (sb_signal_guarded), so that a
 * signal does not wait for a connect timeout. Returns 0 (*found set and
 * the server's settings moved into info, which the caller frees), 1 when
 * a signal came first (the thread is abandoned), -1 on failure. */
int sb_run_probe(const struct sb_lua_env *env, struct sb_cpu_server *srv, char *label,
                 size_t len, char *version, size_t vlen, struct sb_server_info *info,
                 bool *found, bool *rate_warned);

#endif /* SB_RUN_H */
