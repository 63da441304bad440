/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_POINT_RESULT_H
#define SB_POINT_RESULT_H

/*
 * The result of one point: the one model of a point's figures, from the
 * worker statistics to the report, the JSON and CSV files, compare and
 * the charts. The writer (sb_result_writer.c) builds a struct sb_point_result while
 * the point runs; the reader (sb_result_file.c) builds the same struct from
 * a result file (doc/results.md). Figures derived from it (throughput,
 * percentiles, CPU per transaction, the interval series) are computed
 * by the functions below rather than stored, so the writer's tables and
 * the reader's comparisons give them by the same rules.
 *
 * The reporter (sb_monitor.c) builds the final figures of a point (and
 * of each --report-checkpoints report) as a struct sb_point_result too: the text
 * report prints it (sb_text_report_print_point) and the writer takes its final
 * figures over (sb_point_result_move_final), so what is printed and what is
 * stored are the same values.
 *
 * Ownership: a point owns its intervals, its total statistics, its
 * per-thread events, busy time and CPU figures, its self-check samples
 * and its repeat list, and sb_point_result_free releases them. Whoever holds
 * the array of points (struct sb_result_writer, struct sb_result_file) owns the
 * points themselves.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/sb_config.h"
#include "cpu/sb_cpu.h"
#include "config/sb_point.h"
#include "pure/sb_selfcheck.h"
#include "measure/sb_stats.h"

/* One interval report (--report-interval) of a point. Rates are per
 * second over the interval; latencies are at the point's percentiles
 * (struct sb_point_result's pcts). */
struct sb_interval {
    double time_s;             /* end of the interval, seconds since the
                                  start of measurement */
    double epoch_s;            /* the same instant, Unix time (wall clock) */
    double interval_s;         /* its length */
    unsigned threads;          /* threads still running */
    uint64_t events;
    double tps, qps, reads_ps, writes_ps, other_ps;
    double errors_ps, reconnects_ps;
    double latency_ms[SB_MAX_PERCENTILES]; /* response time */
    double lag_ms[SB_MAX_PERCENTILES];     /* start lag */
    uint64_t backlog;          /* transactions due but not started */
    /* Fixed percentiles for the time axis, whatever --percentile says. */
    double p50_ms, p99_ms;     /* response time */
    double lag_p99_ms;
    double cpu_client_pct;     /* share of all CPUs; NAN if not measured */
    double cpu_server_pct;     /* NAN if not measured */
};

/* One transaction type of a mix over one interval report: what the CSV's
 * per-type columns and the metrics' type-labelled families show. NAN
 * for a figure not measured. */
struct sb_type_interval {
    uint64_t events, errors;   /* in the interval */
    double tps, errors_ps;
    double latency_ms[SB_MAX_PERCENTILES]; /* at the point's percentiles */
};

/* One point of a sweep (a single run is a sweep of one point). */
/* One transaction type of a mix (pure/sb_mix.h) in a point. */
struct sb_point_type {
    char name[64];                  /* the script as given in the mix */
    unsigned weight;
    struct sb_stats *stats;         /* owned (sb_stats_new) */
};

struct sb_point_result {
    /* What the point ran with (a copy of the run's frozen point config):
     * threads, rate mode, this process's target (0 without a rate),
     * effective jitter (--tx-rate only), repeat of nrepeat. */
    struct sb_point_config cfg;
    /* The percentiles the intervals' latency_ms and lag_ms are at: the
     * --percentile list (95 alone without one); a file read back gives
     * the keys of its first interval. */
    double pcts[SB_MAX_PERCENTILES];
    size_t npcts;
    /* CPUs online on the machine, which turn an interval's CPU share
     * into microseconds per transaction; 0 when unknown. */
    unsigned ncpus;
    double start_unix_s;            /* wall clock of the measurement start; NAN until set */
    /* Wall clock of the actual start of the first measured event (the
     * earliest over connections); NAN until set, or when none ran. */
    double first_dispatch_unix_s;
    double first_due_unix_s;        /* that event's due time; NAN likewise */
    struct sb_interval *intervals;  /* owned */
    size_t nintervals, cap;
    bool interrupted;
    /* Owned; NULL until the final figures were stored, so it also says
     * whether the point is complete. Read back from a file, it holds the
     * counters, the error codes and the histograms the file stored (a
     * histogram the file lacks is empty). */
    struct sb_stats *total;
    double time_s;
    uint64_t max_backlog;
    struct sb_cpu_report cpu;
    char server_label[512];
    /* Each worker thread's events and seconds inside events (owned;
     * nthread_events entries each), which the text report's "Threads
     * fairness" section prints. The result files do not store them, so a
     * point read back has none. */
    uint64_t *thread_events;
    double *thread_busy;
    unsigned nthread_events;
    struct sb_cpu_thread *thread_cpu; /* owned; nthread_cpu entries */
    /* A mix: each type's figures over the whole measured run (owned;
     * ntypes entries, NULL without a mix). Their events and errors add up
     * to total's. A point read back from a file has none. */
    struct sb_point_type *types;
    unsigned ntypes;
    /* --report-per-statement: the figures per statement over the whole
     * measured run (owned, pure/sb_stmt_table.h; NULL when not kept). A
     * point read back from a file has them when the file has. */
    struct sb_stmt_table *stmts;
    unsigned nthread_cpu;
    bool has_selfcheck;
    struct sb_selfcheck selfcheck;
    double *check_tps;              /* owned; ncheck_tps samples */
    size_t ncheck_tps;
    double check_sample_s;
    /* Read back only (the writer computes them from total): the final
     * throughput and query rate as the file stored them (a merged or
     * hand-written file may carry the rates without consistent counters,
     * and compare reports the file's own figures), and the final
     * response-time percentiles as stored, which stand in for the
     * histogram when the file has no buckets and say what --percentile
     * list the run had. read_back says the point came from a file. */
    bool read_back;
    double file_tps, file_qps;
    double file_pcts[SB_MAX_PERCENTILES], file_pct_ms[SB_MAX_PERCENTILES];
    size_t nfile_pcts;
    /* --repeat, read back: the first run of a group (cfg.repeat 1) lists
     * every run of it (itself first) in reps; the later runs are
     * `grouped` into it and left out of tables and charts, so those see
     * one point. The writer groups its runs by index (sb_repeat.h) and
     * leaves these empty. */
    bool grouped;
    const struct sb_point_result **reps;   /* owned array of borrowed points */
    size_t nreps;
};

/*
 * Moves the final figures of src (the reporter's point) into dst (the
 * writer's point, which holds the config and the intervals): total,
 * time_s, max_backlog, interrupted, cpu, server_label, the per-thread
 * figures and the self-check. dst takes over what src owned of them
 * (freeing any final figures it had) and src no longer owns them; the
 * other fields of both are left alone. Cannot fail.
 */
void sb_point_result_move_final(struct sb_point_result *dst, struct sb_point_result *src);

struct sb_jv;

/*
 * Fills p from one element of a result file's "points" array (pj, a
 * parsed tree borrowed for the call): the config, the intervals, and when
 * the point is complete the counters, error codes and histograms (rebuilt
 * from their buckets, skipping malformed ones), the CPU report and the
 * stored percentiles. The self-check and repeat grouping are not read
 * (the resfile groups runs itself). ncpus is the file's online CPU count
 * (0 unknown). Fields the file lacks are NaN or empty. Returns 0, or -1
 * when out of memory; p then owns what was read so far (sb_point_result_free).
 */
int sb_point_result_read_json(struct sb_point_result *p, const struct sb_jv *pj, unsigned ncpus);

/* Frees what p owns and empties those fields; p itself is the caller's. */
void sb_point_result_free(struct sb_point_result *p);

/* Whether p has final figures. */
bool sb_point_result_complete(const struct sb_point_result *p);

/* Transactions per second over the point; NaN when incomplete, 0 when it
 * measured no time (as the result file writes it). A point read back
 * gives the rate its file stored (NaN when absent). */
double sb_point_result_tps(const struct sb_point_result *p);

/* Queries of every kind per second; NaN and 0 as sb_point_result_tps. */
double sb_point_result_qps(const struct sb_point_result *p);

/*
 * The pct-th percentile of the point's response time in milliseconds,
 * from the histogram by the run's own rule (sb_hist_percentile: the upper
 * bound of the bucket holding the ceil(pct% of count)-th value, at most
 * the maximum), so files and text reports agree. Without a histogram
 * (an empty one, or a file without buckets) it falls back to the stored
 * percentile map; NaN when neither has it or p is incomplete.
 */
double sb_point_result_pct_ms(const struct sb_point_result *p, double pct);

/* Which side's CPU figures. */
enum sb_point_result_side {
    SB_POINT_RESULT_CLIENT,
    SB_POINT_RESULT_SERVER,
    SB_POINT_RESULT_MACHINE
};

/* CPU microseconds per transaction of a side over the point (the
 * machine's busy time for SB_POINT_RESULT_MACHINE); NaN when not measured. */
double sb_point_result_cpu_us(const struct sb_point_result *p, enum sb_point_result_side side);

/* CPU microseconds per transaction of the client or the server over
 * interval i, from its share of all CPUs and its throughput; NaN when
 * not measured, without transactions or without p->ncpus. */
double sb_point_result_iv_cpu_us(const struct sb_point_result *p, size_t i, enum sb_point_result_side side);

/* A figure of a run, for sb_point_result_fig and its relatives. */
enum sb_point_result_fig {
    SB_POINT_RESULT_TPS,
    SB_POINT_RESULT_LATENCY,       /* response time at a percentile, ms */
    SB_POINT_RESULT_CPU_CLIENT,    /* us per transaction */
    SB_POINT_RESULT_CPU_SERVER,
    SB_POINT_RESULT_CPU_MACHINE
};

/* Figure f (percentile pct for latency) of run p alone; NaN when absent
 * or p is incomplete. */
double sb_point_result_fig(const struct sb_point_result *p, enum sb_point_result_fig f, double pct);

/* Figure f of every run of p's group (p alone without repeats) into out
 * (room for max); returns how many were written. */
size_t sb_point_result_fig_runs(const struct sb_point_result *p, enum sb_point_result_fig f, double pct,
                          double *out, size_t max);

/* The median of sb_point_result_fig_runs, ignoring NaN: the figure tables and
 * charts show. NaN when no run has it. */
double sb_point_result_fig_median(const struct sb_point_result *p, enum sb_point_result_fig f, double pct);

/* Figure f per interval of run p into out (room for max); 0 when p has
 * no intervals or no such figure per interval (the machine's CPU, a
 * percentile the intervals do not have). */
size_t sb_point_result_fig_intervals(const struct sb_point_result *p, enum sb_point_result_fig f, double pct,
                               double *out, size_t max);

#endif /* SB_POINT_RESULT_H */
