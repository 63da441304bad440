/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_POINT_H
#define SB_POINT_H

/*
 * One point of a sweep, frozen before it runs. The general configuration
 * (sb_config.h) is read-only once parsed; what differs between the points
 * of a sweep (--threads and --tx-rate lists, --repeat, --find-max probes,
 * --threads=auto runs) is a struct sb_point_config, built here and only
 * here, and passed to the run explicitly. The run keeps its own copy, so
 * the Lua states (main and workers), the pacer, the monitor, the probe,
 * the reports and the result files all see the same values; none of them
 * reads the pacing options (--tx-rate, --rate, --tx-jitter, --tx-late,
 * --instance) from the configuration during a run.
 */

#include <stdbool.h>
#include <stddef.h>

#include "pure/sb_pacer.h"

struct sb_config;

/* What one point runs with. Build it with sb_point_build (or
 * sb_point_config_make / sb_point_first from the configuration); treat it
 * as read-only afterwards. */
struct sb_point_config {
    unsigned threads;        /* this process's worker threads */
    enum sb_pace_mode mode;
    /* The point's whole rate, all instances together (--tx-rate of the
     * point, or --rate for Poisson arrivals; with a --mix, all its types
     * together); 0 in closed loop. */
    double rate;
    /* This process's share of it: rate over the instances; 0 in closed
     * loop. */
    double target_tps;
    /* The effective --tx-jitter in microseconds, the default (10% of the
     * per-thread period, sb_pacer_jitter_us) resolved; 0 unless fixed. */
    double jitter_us;
    enum sb_late_policy late_policy; /* --tx-late */
    /* Scale-out (sb_instance.h): this is instance `instance` (from 0) of
     * `ninstances` (1 without); its threads hold the schedule slots
     * slot_base .. slot_base + threads - 1 of nslots, all instances'. */
    unsigned instance, ninstances;
    unsigned slot_base, nslots;
    /* A --find-max probe: it runs past what the threads reach on purpose,
     * so the run's "out of reach" warnings say nothing. */
    bool probe;
    unsigned repeat, nrepeat; /* run repeat of nrepeat (--repeat), 1-based */
};

/* The point's --tx-rate, all instances (what scripts see as tx_rate);
 * 0 unless the rate is fixed. */
static inline double sb_point_tx_rate(const struct sb_point_config *p)
{
    return p->mode == SB_PACE_FIXED ? p->rate : 0;
}

/* The inputs of a point, all plain values (the options as parsed). */
struct sb_point_spec {
    unsigned threads;          /* this process's threads */
    double tx_rate;            /* the point's --tx-rate, all instances; 0: none */
    double poisson_rate;       /* --rate, all instances; used without tx_rate */
    double jitter_us;          /* --tx-jitter as given; 0: the default */
    enum sb_late_policy late_policy;
    unsigned instance, ninstances; /* --instance=I/N (I from 0); 0 instances: 1 */
    bool find_max;             /* the point is a --find-max probe */
    unsigned repeat, nrepeat;  /* 0: 1 */
};

/*
 * Builds the point from spec: the mode (fixed with tx_rate > 0, else
 * Poisson with poisson_rate > 0, else closed loop), this instance's share
 * of the rate and its slot range, the resolved jitter. Pure; never fails
 * (a configuration sb_config_load accepted gives a usable point).
 */
struct sb_point_config sb_point_build(const struct sb_point_spec *spec);

/*
 * Builds the point with `threads` threads at --tx-rate tx_rate (0: the
 * configuration's --rate, or closed loop), run `repeat` of `nrepeat`, from
 * the read-only configuration cfg. Never fails.
 */
struct sb_point_config sb_point_config_make(const struct sb_config *cfg, unsigned threads,
                                            double tx_rate, unsigned repeat,
                                            unsigned nrepeat);

/* The first point of the sweep cfg describes: what commands other than
 * "run" (prepare in parallel, the script body) see. Never fails. */
struct sb_point_config sb_point_first(const struct sb_config *cfg);

#endif /* SB_POINT_H */
