#ifndef SB_OUTPUT_H
#define SB_OUTPUT_H

/*
 * Results of a "run" command for machines and for sweeps: the figures of
 * every point of a sweep (every interval and the final figures), written
 * as one JSON document (--json=FILE) and as a CSV interval series
 * (--csv=FILE), and the sweep summary table printed after the last point.
 * The JSON schema is documented in doc/results.md.
 *
 * Ownership: main creates one struct sb_output per invocation
 * (sb_output_open), the run feeds it point by point from the main thread
 * (sb_output_begin_point, sb_output_add_interval, sb_output_end_point),
 * and main writes and frees it (sb_output_write_json, sb_output_close).
 * Nothing here is touched by worker threads.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "sb_config.h"
#include "sb_cpu.h"
#include "sb_lua.h"
#include "sb_point.h"
#include "sb_report.h"
#include "sb_safefile.h"
#include "sb_selfcheck.h"
#include "sb_stats.h"

struct sb_txlog;

/* One interval report (--report-interval) of a point. Rates are per
 * second over the interval; latencies are at the output's percentiles. */
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

/* One point of a sweep (a single run is a sweep of one point). */
struct sb_point {
    /* What the point ran with (a copy of the run's frozen point config):
     * threads, rate mode, this process's target (0 without a rate),
     * effective jitter (--tx-rate only), repeat of nrepeat. */
    struct sb_point_config cfg;
    double start_unix_s;            /* wall clock of the measurement start; NAN until set */
    struct sb_interval *intervals;  /* owned */
    size_t nintervals, cap;
    bool interrupted;
    /* Owned; NULL until sb_output_end_point stored the final figures, so
     * it also says whether the point is complete. */
    struct sb_stats *total;
    double time_s;
    uint64_t max_backlog;
    struct sb_cpu_report cpu;
    char server_label[512];
    struct sb_cpu_thread *thread_cpu; /* owned; nthread_cpu entries */
    unsigned nthread_cpu;
    bool has_selfcheck;
    struct sb_selfcheck selfcheck;
    double *check_tps;              /* owned; ncheck_tps samples */
    size_t ncheck_tps;
    double check_sample_s;
};

struct sb_output {
    FILE *json;                     /* json_file.fp; NULL without --json */
    FILE *csv;                      /* csv_file.fp; NULL without --csv */
    struct sb_safefile json_file, csv_file; /* temporary names, renamed at close */
    bool finished;                  /* the JSON document was written */
    const char *json_path;          /* borrowed from the config */
    const char *csv_path;
    /* Percentiles reported per interval and in the final figures: the
     * --percentile list, or 95 alone when percentiles are disabled. */
    double pcts[SB_MAX_PERCENTILES];
    size_t npcts;
    struct sb_point *points;        /* owned */
    size_t npoints, cap;
    char server_version[256];       /* "" until a probe connection got one */
    char driver_name[32];           /* the driver used, "" if none */
    time_t started;                 /* wall clock, for the document */
    bool write_failed;              /* a CSV row could not be written */
    struct sb_txlog *txlog;         /* --log, borrowed from main; NULL without */
    /* How the run ended (sb_output_set_end): "completed", "interrupted"
     * or "failed"; NULL when not said (the document shows null). */
    const char *end_status;
    int end_signal;                 /* interrupted: the signal number */
    char end_error[512];            /* failed: the first error, or "" */
};

/*
 * Prepares o for this invocation: creates (truncates) the --json and --csv
 * files at once, so a bad path stops the program before the run starts,
 * and writes the CSV header. cfg is read for the file names and the
 * percentiles. Returns 0, or -1 with one line naming the file and the
 * reason in err; o is then closed already.
 */
int sb_output_open(struct sb_output *o, const struct sb_config *cfg,
                   char *err, size_t errlen);

/* Starts the next point, stamped with pc's threads, rate mode, target,
 * jitter and repeat (pc is copied from). Returns it (owned by o; valid
 * until the next begin_point or close), or NULL when out of memory. */
struct sb_point *sb_output_begin_point(struct sb_output *o, const struct sb_point_config *pc);

/* Appends an interval to the current point and writes its CSV row.
 * Returns 0, or -1 when out of memory (the interval is dropped). */
int sb_output_add_interval(struct sb_output *o, const struct sb_interval *iv);

/* Stores the final figures of the current point (the struct the text
 * report printed; copied: total, time_total, max_backlog, interrupted,
 * cpu, server_label, thread_cpu, the self-check). Returns 0, or -1 when
 * out of memory. */
int sb_output_end_point(struct sb_output *o, const struct sb_final *f);

/* Records the wall-clock time (seconds since the epoch) at which the
 * current point's measurement started. */
void sb_output_set_start(struct sb_output *o, double unix_s);

/* Records the server version string (copied) and the driver name, if no
 * version has been recorded yet. version may be NULL (ignored). */
void sb_output_set_server(struct sb_output *o, const char *driver,
                          const char *version);

/*
 * Records how the run ended, for the JSON document ("ended") and the
 * last line of the CSV file ("# ended: ..."): status "completed",
 * "interrupted" (signal > 0) or "failed" (error: the reason, copied; may
 * be NULL).
 */
void sb_output_set_end(struct sb_output *o, const char *status, int signal,
                       const char *error);

/*
 * Writes the JSON document (see doc/results.md) to the --json file, if
 * any: the tool and its build, the command line and every option of env's
 * option sets (values of secret options as null, and redacted on the
 * command line), the environment and every point. Returns 0, or -1 with
 * one line in err on a write error.
 */
int sb_output_write_json(struct sb_output *o, const struct sb_lua_env *env,
                         char *err, size_t errlen);

/* The same document written to fp (borrowed, left open), for instance a
 * memory stream the charts of --plot are drawn from; name is the file's
 * name in the error message. */
int sb_output_write_json_to(const struct sb_output *o, const struct sb_lua_env *env, FILE *fp,
                            const char *name, char *err, size_t errlen);

/*
 * Prints the sweep summary: one row per completed point with threads, the
 * target rate (when any point had one), TPS, QPS, p95 and p99 response
 * time, CPU microseconds per transaction (client, server, machine) and
 * throughput relative to the first point. Prints nothing without
 * completed points.
 */
void sb_output_print_sweep(const struct sb_output *o, FILE *out);

/* Closes the files and frees the points. After sb_output_write_json the
 * result files are renamed to their final names (sb_safefile.h: never
 * truncated before, never through a symlink, never replacing a file that
 * is not a result file); before it, the temporary files are removed and
 * the final names left alone. Returns 0, or -1 with one line in err if a
 * file could not be written, closed or renamed. */
int sb_output_close(struct sb_output *o, char *err, size_t errlen);

#endif /* SB_OUTPUT_H */
