/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_TEXT_REPORT_H
#define SB_TEXT_REPORT_H

/*
 * Text reports in sysbench 1.0's format (doc/design.md, "Results"), so
 * existing parsers read them; new information goes in
 * trailing fields and new sections, never into the old ones.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "measure/sb_stats.h"
#include "cpu/sb_cpu.h"
#include "config/sb_point.h"
#include "pure/sb_selfcheck.h"

/* The figures of one report, as the Lua report hooks receive them
 * (counts, not rates; times in seconds). */
struct sb_text_report_stat {
    double threads_running;
    double time_interval;
    double time_total;
    double latency_pct;       /* the first --percentile, seconds */
    double events, reads, writes, other, errors, reconnects;
    double queue_length, concurrency;
    double latency_min, latency_max, latency_avg, latency_sum; /* final only */
};

/* New trailing fields of an interval line. */
struct sb_text_report_extra {
    bool sql;                 /* print tps/qps rather than eps */
    double pct;               /* which percentile latency_pct is */
    enum sb_pace_mode rate_mode; /* trailing rate fields unless SB_PACE_NONE */
    double target_tps;        /* the interval's target rate */
    double lag_pct_ms;        /* lag at the percentile, ms */
    uint64_t backlog;         /* transactions due but not started */
    /* CPU utilisation over the interval as a share of all CPUs; NAN when
     * not measured (printed "n/a"). Printed only with cpu set. */
    bool cpu;
    double cpu_client_pct;
    double cpu_server_pct;
};

/*
 * Prints an interval line:
 * "[ 2s ] thds: 8 tps: 412.00 qps: 8240.00 (r/w/o: ...) lat (ms,95%): 21.50
 *  err/s: 0.00 reconn/s: 0.00" and, in rate modes, trailing
 * "target: T lag (ms,95%): L backlog: B", then with x->cpu
 * "cpu (client/server %): C/S". x may be NULL (defaults: SQL fields shown
 * when any query was counted, 95th percentile, no trailing fields).
 */
void sb_text_report_print_line(const struct sb_text_report_stat *s,
                          const struct sb_text_report_extra *x, FILE *out);

/* "time,threads,tps,qps,reads,writes,other,latency,errors,reconnects". */
void sb_text_report_print_csv(const struct sb_text_report_stat *s, FILE *out);

/*
 * sysbench.report_default: sysbench 1.0's line, always in the tps/qps form
 * and with its "err/s 0.00" spelling; pct labels the latency percentile.
 */
void sb_text_report_print_line_v1(const struct sb_text_report_stat *s, double pct, FILE *out);

/* Which report a hook is being called for; report_json keeps one JSON
 * array per kind, as sysbench 1.0 keeps one per reporting Lua state, so
 * an array of another kind still open is closed first (on out). */
enum sb_text_report_kind {
    SB_TEXT_REPORT_INTERVAL = 1,
    SB_TEXT_REPORT_CHECKPOINT,
    SB_TEXT_REPORT_FINAL
};
void sb_text_report_set_kind(enum sb_text_report_kind kind, FILE *out);

/*
 * sysbench.report_json: one pretty-printed object, in sysbench 1.0's
 * layout, inside a "[ ... ]" array: the first object of a kind opens the
 * array, later ones are separated by commas, and sb_text_report_json_close (or
 * an object of another kind) closes it.
 */
void sb_text_report_print_json(const struct sb_text_report_stat *s, FILE *out);
void sb_text_report_json_close(FILE *out);

struct sb_point_result;

/*
 * How the text report presents a point: choices of the run's options and
 * of the report being printed, not facts of the point (sb_point_result.h). The
 * caller owns the percentile list.
 */
struct sb_text_report_opts {
    const double *percentiles;     /* the --percentile list */
    size_t npercentiles;
    bool histogram;                /* --histogram */
    bool sql;                      /* print the SQL statistics section */
    /* Seconds the counters cover when less than the point's time_s (since
     * the last --report-checkpoints report); 0 means time_s. */
    double interval_s;
    /* The rate sections go into the summary block (sb_text_report_print_summary)
     * instead of after Threads fairness. */
    bool brief;
};

/* Prints the final report of p (or a checkpoint's): SQL statistics (if
 * o->sql), General statistics, Latency (ms), optional histogram, Threads
 * fairness, then the new sections (errors by code; schedule, service time
 * and lag in p's rate mode). p must be complete (sb_point_result_complete). */
void sb_text_report_print_point(const struct sb_point_result *p, const struct sb_text_report_opts *o,
                           FILE *out);

/*
 * A mix (p->ntypes > 0): one line per transaction type, its weight, its
 * share of the events, events, per second, ignored errors and response
 * time (mean, the first three --percentile values or 95 and 99, max) in
 * ms. Nothing without a mix.
 */
void sb_text_report_print_types(const struct sb_point_result *p, const struct sb_text_report_opts *o,
                                FILE *out);

/*
 * Prints the "Summary" block that stands for our sections at the default
 * verbosity (the full ones at --verbosity=4; every figure in the JSON):
 * in a rate mode the target and achieved rate, late starts, skipped
 * slots, max backlog, service time and start lag (mean, first
 * --percentile, max); CPU microseconds per transaction and utilisation of
 * the client, the server and the machine; which server processes were
 * measured; the self-check verdict with what to do about each flag
 * (sb_selfcheck_print_brief). p must be complete, with its CPU report.
 */
void sb_text_report_print_summary(const struct sb_point_result *p, const struct sb_text_report_opts *o,
                             FILE *out);

/*
 * Prints a point of a sweep, of --repeat or of --find-max in one line
 * (the full report at --verbosity=4; every figure in the JSON):
 * "    => tps 412.00 (100.00% of 412.00), qps 8240.00, p95 21.50 ms,
 * p99 30.10 ms, lag p99 0.20 ms, CPU us/tx client 90.3 server 150.2,
 * self-check OK" (the target and lag in rate modes, qps with o->sql,
 * errors when any, CPU sides when measured). p must be complete.
 */
void sb_text_report_print_point_line(const struct sb_point_result *p, const struct sb_text_report_opts *o,
                                FILE *out);

/*
 * Prints the "CPU cost per transaction" section: CPU microseconds per
 * transaction (user, system, total) and utilisation as a share of all CPUs,
 * for the client, the server (server_label says which processes, or why
 * it was not measured) and the machine. threads (nthreads entries, may be
 * NULL) adds the worker threads' own share of the client and how evenly
 * it is spread over them.
 */
void sb_text_report_print_cpu(const struct sb_cpu_report *c, const char *server_label,
                         const struct sb_cpu_thread *threads, unsigned nthreads,
                         FILE *out);

/* Fills a stat from merged interval statistics. */
void sb_text_report_stat_from(struct sb_text_report_stat *s, const struct sb_stats *st,
                         double interval, double total, unsigned threads,
                         double pct);

#endif /* SB_TEXT_REPORT_H */
