/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_MONITOR_H
#define SB_MONITOR_H

/*
 * The reporter of one benchmark run (sb_run.h): the main thread's side of
 * a run while the workers work. It reads the workers' statistics, prints
 * the interval reports (or calls the report_intermediate hook), the
 * --report-checkpoints reports and the final report (or the
 * report_cumulative hook), keeps the run's time (warmup, --time), follows
 * the server's CPU and hands every figure to the result files. The
 * formatting of the reports themselves is sb_text_report.h's.
 *
 * Everything here runs in the main thread only.
 */

#include <stdbool.h>
#include <stdint.h>
#include <lua.h>

#include "cpu/sb_cpu.h"
#include "engine/sb_probe.h"
#include "engine/sb_run.h"
#include "engine/sb_sampler.h"
#include "engine/sb_type_watch.h"
#include "measure/sb_stats.h"

struct sb_result_writer;

/* Everything the reporter keeps between intervals. sb_run.c sets up the
 * CPU accounting (cpu_srv, cpu_prev, srv_watch) and reads the times and
 * flags; the rest is the reporter's own. */
struct sb_monitor {
    struct sb_run *run;
    lua_State *L;
    /* Intervals are differences of totals over the workers: the total
     * at the last report (of statistics epoch prev_epoch), the total now
     * (scratch), and the interval. Nothing is kept per worker, so the
     * reporter's memory and its work per interval do not grow by a copy
     * of every worker's histograms (110 KB each). */
    struct sb_stats prev, cur, delta;
    int prev_epoch;
    uint64_t start_ns, last_ns;
    uint64_t max_backlog;
    bool sql;                  /* any query seen: tps/qps format */
    bool hook;                 /* the script replaces interval reports */
    struct sb_result_writer *out;     /* result collector, or NULL */
    struct sb_cpu_server *cpu_srv; /* NULL: server not measured */
    struct sb_cpu_sample cpu_prev; /* taken at the start of the interval */
    struct sb_server_watch srv_watch; /* follows a restarted server */
    /* --report-checkpoints: the total at the last checkpoint (of epoch
     * ckpt_epoch), each worker's events and time in events then (NULL
     * without checkpoints), and when that was. */
    struct sb_stats ckpt;
    uint64_t *ckpt_ev;
    double *ckpt_busy;
    int ckpt_epoch;
    uint64_t ckpt_ns;
    size_t next_ckpt;          /* index into cfg->checkpoints */
    /* A report hook raised an error: the run stops with one error line;
     * cumulative_failed (a checkpoint's report_cumulative failed) makes
     * the final report the built-in one rather than the same error again. */
    bool hook_failed;
    bool cumulative_failed;
    struct sb_sampler sampler; /* 1 s throughput samples for the self-check */
    bool rate_checked;         /* the first second was held against the rate */
    double epoch0_s;           /* Unix time at start_ns */
    struct sb_type_watch types; /* a mix: each type's interval figures */
};

/* Times the main loop works with, all in ns. */
struct sb_run_clock {
    uint64_t start;       /* when the workers were released */
    uint64_t warm_end;    /* end of warmup, 0 when over or none */
    uint64_t next_report; /* next interval report, 0 for none */
    uint64_t deadline;    /* --time, 0 for none */
};

/* What the final report needs besides the reporter. All borrowed. */
struct sb_final_in {
    uint64_t end;                 /* when the last worker finished */
    uint64_t deadline;            /* 0 for none */
    /* Statements cancelled (sb_db_cancel.h), and whether at the deadline
     * (else by a signal). */
    uint64_t cancelled;
    bool cut_at_deadline;
    struct sb_cpu_sample *cpu_before, *cpu_after;
    const char *cpu_label, *server_version;
    /* The server's settings and binary: moved into the result files when
     * the script used the driver. */
    struct sb_server_info *server_info;
};

/*
 * Sets up r (zeroed by the caller) for run, whose nthreads and cfg are
 * set: the per-worker snapshots, the self-check sampler, and whether the
 * script of the main state L has a report_intermediate hook. run, L and
 * out (NULL: no result files) are borrowed. Returns 0, or -1 when out of
 * memory (r is then partly built: sb_monitor_free it).
 */
int sb_monitor_init(struct sb_monitor *r, struct sb_run *run, lua_State *L,
                     struct sb_result_writer *out);

/* Frees what sb_monitor_init allocated (not r itself); r may be zeroed
 * or partly built. */
void sb_monitor_free(struct sb_monitor *r);

/*
 * Sets the measurement origin to start_ns: the intervals, checkpoints and
 * self-check samples count from it, and the result files' absolute times
 * are taken from the wall clock now.
 */
void sb_monitor_start(struct sb_monitor *r, uint64_t start_ns);

/* Takes the CPU sample the measured window starts from (into *cpu_before,
 * which must outlive the run's final report) and starts following the
 * server from it. */
void sb_monitor_begin_cpu(struct sb_monitor *r, struct sb_cpu_sample *cpu_before);

/*
 * The main loop of a run: reports intervals and checkpoints, ends warmup
 * (the workers' statistics start again and *cpu_before is taken again),
 * and requests the stop at c->deadline, until the workers finish or a
 * stop is requested. c is updated as its times pass.
 */
void sb_monitor_loop(struct sb_monitor *r, struct sb_run_clock *c,
                      struct sb_cpu_sample *cpu_before);

/*
 * After the workers are joined: the interval whose tick falls on the
 * deadline, which sb_monitor_loop leaves for now, so that the events of
 * the window still finishing at the deadline count in an interval as they
 * do in the total. Nothing when the run did not reach its deadline (a
 * signal, an error, --events) or its ticks do not meet the deadline.
 */
void sb_monitor_last_interval(struct sb_monitor *r, const struct sb_run_clock *c);

/*
 * The final report of what ran: every worker's own statistics, merged
 * (also those of a worker that failed or was left running), printed or
 * handed to the report_cumulative hook of L, and handed to the result
 * files. Returns 0, or -1 when the hook failed or memory ran out (the
 * error is reported).
 */
int sb_monitor_final(struct sb_monitor *r, lua_State *L, const struct sb_final_in *in);

#endif /* SB_MONITOR_H */
