/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_SWEEP_H
#define SB_SWEEP_H

/*
 * The points of one "run" command: the --threads and --tx-rate lists (a
 * sweep), each point --repeat times with --cooldown between them, or the
 * --find-max search; each point is one sb_run_benchmark with its own
 * frozen point configuration (sb_point.h). Results go to the caller's
 * result writer point by point; main opens and closes that writer and
 * draws the charts.
 */

#include <stdbool.h>
#include <stddef.h>

#include <lua.h>

#include "config/sb_lua_env.h"
#include "pure/sb_findmax.h"
#include "pure/sb_peak.h"
#include "pure/sb_rand.h"
#include "results/sb_result_writer.h"

/* One run command's points, and where they stand: what each point's run
 * needs, also the --find-max callback's context. The caller fills the
 * first fields (L to fm) and zeroes or sets the rest as main.c does. */
struct sb_sweep {
    lua_State *L;
    struct sb_lua_env *env;
    struct sb_rand *main_rand;
    struct sb_result_writer *out;
    unsigned threads;              /* the thread count of the points run next */
    bool started;                  /* a point ran before: cool down first */
    size_t group;                  /* --find-max: the first run of the current rate */
    bool again;                    /* --find-max: this run repeats the previous rate */
    struct sb_findmax_result *fm;  /* --find-max: the search, read by the JSON writer */
    size_t point_no, npoints;      /* the sweep's point being run (from 1), its points */
    unsigned runs_done;            /* runs finished, and their wall time: time left */
    double runs_s;
    struct sb_peak *peak;          /* --threads=auto: the search, read by the JSON writer */
    double run_max_s;              /* the longest run so far (--budget); 0 before any */
};

/*
 * Runs every point (or the --find-max search at the first thread count,
 * or the --threads=auto search).
 * Returns 0, 1 after a fatal error (reported), or 128+signal when a signal
 * ended it; the points that ran are in c->out either way.
 */
int sb_sweep_run(struct sb_sweep *c);

#endif /* SB_SWEEP_H */
