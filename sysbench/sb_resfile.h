#ifndef SB_RESFILE_H
#define SB_RESFILE_H

/*
 * A result file read back: the figures of each point of a --json document
 * (doc/results.md) that the compare command and the charts use, copied
 * out of the JSON tree into plain structs so that those modules never
 * walk JSON themselves. Unknown fields are ignored, as the schema asks of
 * readers; figures a file does not have (a server that was not measured,
 * an incomplete point) are NaN.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sb_histogram.h"
#include "sb_point.h"

#include "sb_json_read.h"

/* The format_version this reader understands. */
#define SB_RESFILE_FORMAT_VERSION 1

/* User and system CPU microseconds per transaction of one side; NaN when
 * that side was not measured. */
struct sb_resfile_cpu {
    bool measured;
    double user_us, system_us, total_us;
};

/* One point of a sweep. */
struct sb_resfile_point {
    /* What the point ran with, in the struct the run used (sb_point.h):
     * threads, mode ("rate_mode"), target_tps (0 in closed loop), jitter_us
     * (final.rate.jitter_us; 0 when absent), repeat of nrepeat ("repeat",
     * "repeats"; 1 of 1 in files without them). tx_rate and rate stay 0:
     * files hold this instance's target only. */
    struct sb_point_config cfg;
    bool complete;                 /* final figures present */
    double tps, qps;
    struct sb_resfile_cpu client, server;
    double machine_busy_us;        /* NaN when not measured */
    /* The stored response-time percentiles (ms), as the file has them. */
    double pcts[16], pct_ms[16];
    size_t npcts;
    /* The stored response-time histogram, rebuilt from its buckets so
     * that percentiles and the latency chart follow the run's own rules
     * (sb_histogram.h); max_ns is the file's exact maximum. Owned; NULL
     * when the file has no (well-formed) buckets. */
    struct sb_hist *hist;
    /* --repeat: the first run of a group (cfg.repeat 1) lists every run
     * of it (itself first) in reps; the later runs are `grouped` into it
     * and left out of the grid, so tables and charts see one point. */
    bool grouped;
    const struct sb_resfile_point **reps; /* owned array, nreps entries */
    size_t nreps;
    /* The interval series (--report-interval), owned, niv entries each:
     * throughput, client and server CPU us per transaction (NaN when not
     * measured) and the response time at each stored percentile
     * (iv_lat[i * niv_pcts + j] for iv_pcts[j]). */
    size_t niv, niv_pcts;
    double *iv_tps, *iv_cpu_client, *iv_cpu_server, *iv_lat;
    double iv_pcts[16];
};

/* A figure of a run, for sb_resfile_fig and its relatives. */
enum sb_resfile_fig {
    SB_RESFILE_TPS,
    SB_RESFILE_LATENCY,       /* response time at a percentile, ms */
    SB_RESFILE_CPU_CLIENT,    /* us per transaction */
    SB_RESFILE_CPU_SERVER,
    SB_RESFILE_CPU_MACHINE
};

/* Figure f (percentile pct for latency) of run p alone; NaN when absent. */
double sb_resfile_fig(const struct sb_resfile_point *p, enum sb_resfile_fig f, double pct);

/* Figure f of every run of p's group (p alone without repeats) into out
 * (room for max); returns how many were written. */
size_t sb_resfile_fig_runs(const struct sb_resfile_point *p, enum sb_resfile_fig f, double pct,
                           double *out, size_t max);

/* The median of sb_resfile_fig_runs: the figure tables and charts show. */
double sb_resfile_fig_median(const struct sb_resfile_point *p, enum sb_resfile_fig f,
                             double pct);

/* Figure f per interval of run p into out (room for max); 0 when the
 * file has no intervals or no such figure per interval (the machine's
 * CPU, a percentile not stored). */
size_t sb_resfile_fig_intervals(const struct sb_resfile_point *p, enum sb_resfile_fig f,
                                double pct, double *out, size_t max);

/* One result file. */
struct sb_resfile {
    char *path;                    /* owned copy of the file name */
    char *label;                   /* owned: the name shown in tables and charts */
    char *script;                  /* owned: the script's base name, "" if unknown */
    char *server_version;          /* owned, "" if unknown */
    char *allocator;               /* owned, "" if unknown */
    char *started_at;              /* owned, "" if unknown */
    struct sb_resfile_point *points; /* owned, in the file's order */
    size_t npoints;
};

/*
 * Copies the figures out of a parsed result document. label (copied) is
 * the name to show; path is used in messages. Returns 0, or -1 with one
 * line in err when doc is not a sysbench result ("format"), has another
 * format_version, or has no points.
 */
int sb_resfile_from_json(struct sb_resfile *r, const struct sb_jv *doc, const char *path,
                        const char *label, char *err, size_t errlen);

/*
 * Reads the result file at path (sb_jv_parse_file, then
 * sb_resfile_from_json). Returns 0, or -1 with one line in err naming the
 * file: unreadable, not JSON, not a result, wrong version, no points.
 */
int sb_resfile_load(struct sb_resfile *r, const char *path, const char *label,
                   char *err, size_t errlen);

/* Frees what r owns; r itself may then be reused. */
void sb_resfile_free(struct sb_resfile *r);

/*
 * The pct-th percentile of the point's response time in milliseconds,
 * computed from the histogram the way the run computes it (the upper
 * bound of the bucket holding the ceil(pct% of count)-th value, at most
 * the maximum), so that the figures agree with the text report. Falls
 * back to the stored percentile map without a histogram; NaN when
 * neither has it.
 */
double sb_resfile_percentile_ms(const struct sb_resfile_point *p, double pct);

/* The file name without directories and without a ".json" suffix, as a
 * newly allocated string (NULL when out of memory): the default label. */
char *sb_resfile_default_label(const char *path);

/* The identity of a sweep point across files: its thread count, its
 * target rate, and which repetition of that pair it is within its file
 * (a sweep such as --threads=2,2 has two points with the same pair). */
struct sb_resfile_key {
    unsigned threads;
    enum sb_pace_mode rate_mode;
    double target_tps;             /* NaN in closed loop */
    unsigned occurrence;           /* 0 for the first point with the pair */
};

/*
 * Points of several files matched by key: one column per distinct key,
 * sorted by threads and then target rate, and for each file the point
 * with that key or NULL when the file has none.
 */
struct sb_resfile_grid {
    struct sb_resfile_key *keys;    /* owned */
    size_t nkeys;
    size_t nres;
    const struct sb_resfile_point **cells; /* owned array, nres * nkeys */
    bool any_rated;                /* some point had a target rate */
    bool threads_vary, rates_vary; /* more than one distinct value */
};

/* Matches the points of the n results. Returns 0, or -1 when out of
 * memory. The grid borrows the points: free it before the results. */
int sb_resfile_grid_build(struct sb_resfile_grid *g, const struct sb_resfile *res, size_t n);

/* The complete point of result r at key k, or NULL when r has no point
 * there or that point has no final figures: every table and chart shows
 * both alike, as a gap. */
const struct sb_resfile_point *sb_resfile_grid_cell(const struct sb_resfile_grid *g, size_t r,
                                                  size_t k);

/* Writes the short name of key k for axis ticks and tables: the thread
 * count, the target rate when only rates vary, or "4 @ 500" when both do. */
void sb_resfile_key_name(const struct sb_resfile_grid *g, size_t k, char *buf, size_t len);

/* The name of what the keys measure, for an axis label: "threads",
 * "target rate (tx/s)" or "threads @ target rate (tx/s)". */
const char *sb_resfile_grid_axis(const struct sb_resfile_grid *g);

/* Frees what g owns. */
void sb_resfile_grid_free(struct sb_resfile_grid *g);

#endif /* SB_RESFILE_H */
