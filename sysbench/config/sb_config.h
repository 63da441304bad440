/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_CONFIG_H
#define SB_CONFIG_H

/*
 * The run configuration: the general options parsed into typed fields.
 * Built once by main (sb_config_load) and read-only once threads start;
 * it is the core of the configuration, one of the three kinds of global
 * state (with the stop flag and the driver registry). The rest of the
 * configuration (the drivers' options and error policy, the log level,
 * SB_COMPAT) lives beside the code that uses it; doc/design.md lists it
 * all.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/sb_options.h"
#include "pure/sb_rand.h"
#include "pure/sb_pacer.h"
#include "config/sb_instance.h"

#define SB_MAX_PERCENTILES 16
#define SB_MAX_SWEEP 64

#define SB_MAX_CHECKPOINTS 64

struct sb_config {
    /* --threads may be a list (a sweep); the point being run is a
     * struct sb_point_config (sb_point.h), never a field here. */
    unsigned thread_list[SB_MAX_SWEEP];
    size_t nthread_list;
    double time_limit;        /* seconds, 0 = none */
    uint64_t events_limit;    /* 0 = none */
    double warmup_time;       /* seconds */
    double report_interval;   /* seconds, 0 = no interval reports */
    /* --report-checkpoints: seconds after the start, ascending. */
    double checkpoints[SB_MAX_CHECKPOINTS];
    size_t ncheckpoints;
    double percentiles[SB_MAX_PERCENTILES]; /* the first one is "the" one */
    size_t npercentiles;      /* 0 when --percentile=0 */
    bool histogram;
    bool per_statement;       /* --report-per-statement */
    int verbosity;

    struct sb_rand_params rand;
    uint64_t rand_seed;       /* the effective seed (time-based if 0) */
    bool rand_seed_given;
    /* --instance, --instances, --start-at, --clock-offset (sb_instance.h) */
    struct sb_instance instance;

    /* Steady-rate mode (--tx-rate) and Poisson mode (--rate). */
    double tx_rate_list[SB_MAX_SWEEP]; /* --tx-rate, one value or a sweep */
    size_t ntx_rate_list;
    double tx_jitter_us;
    enum sb_late_policy late_policy;
    double tx_spin_us;        /* busy-wait the last microseconds */
    double poisson_rate;    /* --rate: Poisson arrivals */

    size_t thread_stack_size; /* 0 = the system default */
    /* --client-threads: loop threads multiplexing the connections
     * (sb_loop.h); 0: a thread per connection; -1: automatic. */
    int client_threads;
    double forced_shutdown;   /* seconds after --time, 0 = off */
    double deadline_grace;    /* seconds after --time before cancelling */
    double sweep_cooldown;    /* seconds between sweep points */
    unsigned repeat;          /* runs of every point (--repeat), >= 1 */
    double repeat_cooldown;   /* seconds between the repeats of a point */
    bool find_max;            /* --find-max */
    double sla_pct, sla_ms;   /* --sla percentile and limit; 0 without */
    /* --threads=auto[:MAX]: search the thread count of the highest
     * throughput (thread_list then holds 1 alone); MAX, and --budget in
     * seconds (0: none). */
    bool threads_auto;
    unsigned threads_auto_max;
    double budget_s;

    const char *json_file;    /* borrowed from the option set */
    const char *csv_file;
    const char *plot_file;
    const char *hgrm_file;    /* --hgrm, NULL when not given */
    const char *log_file;     /* --log, NULL when not given */
    double log_agg_s;         /* --log-aggregate-interval, 0: per transaction */
    const char *metrics_listen; /* --metrics-listen HOST:PORT, NULL when not given */
    const char *metrics_file;   /* --metrics-file, NULL when not given */
    double metrics_linger;      /* --metrics-linger, seconds */
    const char *metrics_token;  /* --metrics-token FILE, NULL when not given */
    const char *server_pids;
};

/* The general options, {NULL}-ended, in the order --help prints them. */
extern const struct sb_opt_def sb_general_options[];

/* The configuration of this process: filled once by sb_config_load and
 * read-only everywhere else. Per-point values (threads, target rate,
 * repeat) are not here: see struct sb_point_config (sb_point.h). */
extern const struct sb_config *const sb_cfg;

/* Adds the general options and the legacy aliases (--num-threads,
 * --max-time, --max-requests) to `set`. Returns 0 or -1 with err. */
int sb_config_declare(struct sb_optset *set, char *err, size_t errlen);

/*
 * Fills the configuration (sb_cfg) from the parsed general options and checks ranges
 * (threads >= 1, time >= 0, percentiles in (0, 100], a valid --rand-type,
 * --tx-jitter within the period, ...). allow_no_limit lets --time=0 with
 * --events=0 through, for a test that ends by itself (the memory and
 * mutex compiled-in tests). Main thread, before any other thread starts.
 * Returns 0, or -1 with one line naming the option in err.
 */
int sb_config_load(const struct sb_optset *set, bool allow_no_limit, char *err, size_t errlen);

#endif /* SB_CONFIG_H */
