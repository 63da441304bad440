/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_RESULT_WRITER_H
#define SB_RESULT_WRITER_H

/*
 * Results of a "run" command for machines and for sweeps: the figures of
 * every point of a sweep (every interval and the final figures), written
 * as one JSON document (--json=FILE) and as a CSV interval series
 * (--csv=FILE), and the sweep summary table printed after the last point.
 * The JSON schema is documented in doc/results.md.
 *
 * Ownership: main creates one struct sb_result_writer per invocation
 * (sb_result_writer_open), the run feeds it point by point from the main thread
 * (sb_result_writer_begin_point, sb_result_writer_add_interval, sb_result_writer_end_point),
 * and main writes and frees it (sb_result_writer_write_json, sb_result_writer_close).
 * Nothing here is touched by worker threads.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "config/sb_config.h"
#include "cpu/sb_cpu.h"
#include "config/sb_lua_env.h"
#include "config/sb_point.h"
#include "results/sb_text_report.h"
#include "results/sb_point_result.h"
#include "core/sb_safefile.h"
#include "pure/sb_mix.h"
#include "pure/sb_selfcheck.h"
#include "results/sb_server_info.h"
#include "measure/sb_stats.h"

struct sb_findmax_result;
struct sb_peak;

struct sb_txlog;
struct sb_metrics;

struct sb_result_writer {
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
    struct sb_point_result *points;        /* owned */
    size_t npoints, cap;
    char server_version[256];       /* "" until a probe connection got one */
    char driver_name[32];           /* the driver used, "" if none */
    struct sb_server_info server_info; /* the first point's; owned */
    time_t started;                 /* wall clock, for the document */
    bool write_failed;              /* a CSV row could not be written */
    struct sb_txlog *txlog;         /* --log, borrowed from main; NULL without */
    /* --metrics-listen, --metrics-file: the reporter publishes every
     * interval there; borrowed from main, NULL without. */
    struct sb_metrics *metrics;
    /* How the run ended (sb_result_writer_set_end): "completed", "interrupted"
     * or "failed"; NULL when not said (the document shows null). */
    const char *end_status;
    int end_signal;                 /* interrupted: the signal number */
    char end_error[512];            /* failed: the first error, or "" */
    /* --find-max: the search's record, borrowed; NULL without. */
    const struct sb_findmax_result *find_max;
    /* --threads=auto: the search, borrowed; NULL without. */
    const struct sb_peak *threads_auto;
    /* Statements cancelled over all points (sb_result_writer_note_cancelled),
     * and whether some point's were cut at its deadline. */
    uint64_t cancelled;
    bool deadline_cut;
    /* Sweeps and --repeat at the default verbosity: a point's text report
     * is one line (sb_text_report_print_point_line) after the caller's header
     * line, and the run header is printed once; set by main. */
    bool brief;
    /* brief: the header line of the point about to run ("point 2 of 4:
     * threads=8"), set by main, printed by the run after the options. */
    char point_title[160];
    /* A mix (sb_result_writer_open_mix): its types' names, in the mix's
     * order, and their figures over the interval about to be added (the
     * reporter fills type_iv before sb_result_writer_add_interval; the
     * CSV gives each type its columns). ntypes 0 without a mix. */
    unsigned ntypes;
    char type_names[SB_MIX_MAX][64];
    struct sb_type_interval type_iv[SB_MIX_MAX];
};

/*
 * Prepares o for this invocation: creates (truncates) the --json and --csv
 * files at once, so a bad path stops the program before the run starts,
 * and writes the CSV header. cfg is read for the file names and the
 * percentiles. Returns 0, or -1 with one line naming the file and the
 * reason in err; o is then closed already.
 */
int sb_result_writer_open(struct sb_result_writer *o, const struct sb_config *cfg,
                   char *err, size_t errlen);

/* As sb_result_writer_open, for a run of mix (NULL or an empty mix: none):
 * the CSV gets three columns per type after the common ones,
 * tps[NAME], latency_pP_ms[NAME] and errors_ps[NAME] (P the first
 * percentile), filled from type_iv. */
int sb_result_writer_open_mix(struct sb_result_writer *o, const struct sb_config *cfg,
                              const struct sb_mix *mix, char *err, size_t errlen);

/* Starts the next point, stamped with pc's threads, rate mode, target,
 * jitter and repeat (pc is copied from), o's percentiles and the number
 * of CPUs online. Returns it (owned by o; valid
 * until the next begin_point or close), or NULL when out of memory. */
struct sb_point_result *sb_result_writer_begin_point(struct sb_result_writer *o, const struct sb_point_config *pc);

/* Appends an interval to the current point and writes its CSV row.
 * Returns 0, or -1 when out of memory (the interval is dropped). */
int sb_result_writer_add_interval(struct sb_result_writer *o, const struct sb_interval *iv);

/* Stores the final figures of the current point: moves them from p, the
 * point the text report printed (sb_point_result_move_final), so o owns them and
 * p no longer does. Returns 0, or -1 when there is no current point (a
 * begin_point that ran out of memory; p then keeps them). */
int sb_result_writer_end_point(struct sb_result_writer *o, struct sb_point_result *p);

/* Records the wall-clock time (seconds since the epoch) at which the
 * current point's measurement started. */
void sb_result_writer_set_start(struct sb_result_writer *o, double unix_s);

/* Records the wall-clock times (seconds since the epoch) at which the
 * current point's first measured event actually started and was due. */
void sb_result_writer_set_first_dispatch(struct sb_result_writer *o, double unix_s,
                                         double due_unix_s);

/* Records the server version string (copied) and the driver name, if no
 * version has been recorded yet. version may be NULL (ignored). */
void sb_result_writer_set_server(struct sb_result_writer *o, const char *driver,
                          const char *version);

/* Takes over the server's settings and binary from si (left empty), if
 * none have been recorded yet: the first point's stand for the run. When
 * a later point's differ, a warning names the first difference. */
void sb_result_writer_set_server_info(struct sb_result_writer *o, struct sb_server_info *si);

/* Adds n statements cancelled in a point, at its deadline (true) or by a
 * signal, to what "ended" says. */
void sb_result_writer_note_cancelled(struct sb_result_writer *o, uint64_t n, bool at_deadline);

/*
 * Records how the run ended, for the JSON document ("ended") and the
 * last row of the CSV file (its "ended" column): status "completed",
 * "interrupted" (signal > 0) or "failed" (error: the reason, copied; may
 * be NULL).
 */
void sb_result_writer_set_end(struct sb_result_writer *o, const char *status, int signal,
                       const char *error);

/*
 * Writes the JSON document (see doc/results.md) to the --json file, if
 * any: the tool and its build, the command line and every option of env's
 * option sets (values of secret options as null, and redacted on the
 * command line), the environment and every point. Returns 0, or -1 with
 * one line in err on a write error.
 */
int sb_result_writer_write_json(struct sb_result_writer *o, const struct sb_lua_env *env,
                         char *err, size_t errlen);

/* The same document written to fp (borrowed, left open), for instance a
 * memory stream the charts of --plot are drawn from; name is the file's
 * name in the error message. */
int sb_result_writer_write_json_to(const struct sb_result_writer *o, const struct sb_lua_env *env, FILE *fp,
                            const char *name, char *err, size_t errlen);

/*
 * Prints the sweep summary: one row per completed point with threads, the
 * target rate (when any point had one), TPS, QPS, p95 and p99 response
 * time, CPU microseconds per transaction (client, server, machine) and
 * throughput relative to the first point. Prints nothing without
 * completed points.
 */
void sb_result_writer_print_sweep(const struct sb_result_writer *o, FILE *out);

/* Closes the files and frees the points. After sb_result_writer_write_json the
 * result files are renamed to their final names (sb_safefile.h: never
 * truncated before, never through a symlink, never replacing a file that
 * is not a result file); before it, the temporary files are removed and
 * the final names left alone. Returns 0, or -1 with one line in err if a
 * file could not be written, closed or renamed. */
int sb_result_writer_close(struct sb_result_writer *o, char *err, size_t errlen);

#endif /* SB_RESULT_WRITER_H */
