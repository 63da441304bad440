/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_METRICS_H
#define SB_METRICS_H

/*
 * The run's figures for monitoring systems: the latest interval as the
 * Prometheus text exposition format (version 0.0.4), served live by
 * --metrics-listen (engine/sb_metrics_http.h), and every interval of the
 * invocation as OpenMetrics 1.0 text with timestamps (--metrics-file),
 * the format `promtool tsdb create-blocks-from openmetrics` imports.
 * Metric names and labels are listed in doc/results.md.
 *
 * Threads: the reporter publishes (sb_metrics_publish, once per interval,
 * in the main thread); the HTTP thread formats the latest snapshot
 * (sb_metrics_format_text). A small mutex guards the snapshot; neither
 * side is on the per-query path. Everything else is the main thread's.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/sb_config.h"
#include "pure/sb_mix.h"
#include "results/sb_point_result.h"

/* One interval as published: the interval's figures in base units and
 * the counters accumulated over the invocation (every point of a sweep:
 * a counter never goes back, so rate() works across points). */
struct sb_metrics_snap {
    double unix_s;              /* end of the interval, Unix time */
    double elapsed_s;           /* end of the interval since the point's start */
    unsigned point;             /* the point of the sweep, from 1 */
    unsigned threads;           /* the point's connections */
    unsigned threads_running;
    uint64_t transactions, reads, writes, other, errors, reconnects; /* totals */
    double tps, qps, errors_ps, reconnects_ps;
    size_t npcts;
    double pcts[SB_MAX_PERCENTILES];
    double latency_s[SB_MAX_PERCENTILES]; /* response time */
    double lag_s[SB_MAX_PERCENTILES];     /* start lag; rate modes only */
    bool rate_mode;             /* --tx-rate or --rate: lag, backlog, target */
    double target_tps;          /* this process's target; 0 without a rate */
    uint64_t backlog;
    double cpu_client, cpu_server; /* share of all CPUs, 0..1; NAN: not measured */
    bool ended;                 /* the run is over (sb_metrics_finish) */
    /* A mix: each type's figures (struct sb_metrics' type_names order),
     * counters over the invocation like the totals'. */
    struct sb_metrics_type {
        uint64_t transactions, errors;
        double tps, errors_ps;
        double latency_s[SB_MAX_PERCENTILES];
    } types[SB_MIX_MAX];
};

struct sb_metrics {
    char script[128];           /* label values */
    char instance[16];
    /* A mix (sb_metrics_set_types): the `type` label of each type's
     * samples; ntypes 0 without a mix (no per-type families then). */
    unsigned ntypes;
    char type_names[SB_MIX_MAX][64];
    pthread_mutex_t lock;       /* guards latest and have_latest */
    struct sb_metrics_snap latest;
    bool have_latest;
    /* The main thread's own: the running totals, and for --metrics-file
     * every snapshot (owned), NULL without. */
    struct sb_metrics_snap totals;
    bool keep;
    struct sb_metrics_snap *hist;
    size_t nhist, cap;
};

/* Sets up m (any contents) for a run of script (a path or a compiled-in
 * test's name: the label is its base name without ".lua") as instance
 * `instance` (--instance, from 0); keep: remember every interval for
 * sb_metrics_write_openmetrics. */
void sb_metrics_init(struct sb_metrics *m, const char *script, unsigned instance, bool keep);

/* A run of mix (NULL or empty: none): the metrics get the per-type
 * families (sysbench_mix_*, label type="NAME"). Call after
 * sb_metrics_init, before the first interval. */
void sb_metrics_set_types(struct sb_metrics *m, const struct sb_mix *mix);

/* A mix: the figures of each of its n types over the interval that the
 * next sb_metrics_publish publishes (tiv[k] for type k); their counts are
 * added to the per-type counters. Main thread only. */
void sb_metrics_publish_types(struct sb_metrics *m, const struct sb_type_interval *tiv,
                              unsigned n);

/* Frees what m holds (not m). */
void sb_metrics_free(struct sb_metrics *m);

/*
 * Publishes one interval of point `point` (from 1): iv's figures (its
 * latency_ms and lag_ms at the percentiles pcts[0..npcts-1]), the point's
 * connections, its rate mode (rate_mode) and this process's target (0:
 * none). Adds the interval's
 * counts to the totals. Main thread only. Returns 0, or -1 when the
 * interval could not be kept for the file (out of memory; the live
 * figures are still published).
 */
int sb_metrics_publish(struct sb_metrics *m, const struct sb_interval *iv, const double *pcts,
                       size_t npcts, unsigned point, unsigned threads, bool rate_mode,
                       double target_tps);

/*
 * The run is over (after its last point, before --metrics-linger): the
 * live answers say so from now on (sysbench_run_active 0), with the last
 * interval's figures, or the counters at 0 when none was published. Main
 * thread only.
 */
void sb_metrics_finish(struct sb_metrics *m);

/* Copies the latest snapshot into *out under the lock. Returns whether an
 * interval has been published yet (*out is zeroed when not). */
bool sb_metrics_latest(struct sb_metrics *m, struct sb_metrics_snap *out);

/*
 * Formats snapshot s (NULL: none published yet: the counters at 0) in the
 * Prometheus text exposition format, labelled with m's script and
 * instance, into buf (NUL-terminated). Returns the length it needed, as
 * snprintf does: when that is >= len the text was cut.
 */
size_t sb_metrics_format_text(const struct sb_metrics *m, const struct sb_metrics_snap *s,
                              char *buf, size_t len);

/*
 * Writes every kept interval (sb_metrics_init with keep) to fp as
 * OpenMetrics text: one family at a time, each sample with its interval's
 * timestamp in seconds, ending in "# EOF". Returns 0, or -1 on a write
 * error (ferror).
 */
int sb_metrics_write_openmetrics(const struct sb_metrics *m, FILE *fp);

/* Recognises our OpenMetrics file (for sb_safefile: replaced only when it
 * is one). */
bool sb_metrics_is_file(const char *head, size_t len);

#endif /* SB_METRICS_H */
