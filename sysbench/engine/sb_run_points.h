/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_RUN_POINTS_H
#define SB_RUN_POINTS_H

/*
 * The "run" command from its checks to its last output: the script must
 * have something to run; the result writer (--json, --csv), --hgrm,
 * --log-file and the metrics listener are opened before any work, so a
 * bad path stops the command first; then every point of the sweep
 * (sb_sweep.h), the sweep table and USL fit, and the outputs written and
 * closed, also after an error or a signal.
 */

#include <stddef.h>
#include <stdio.h>

#include <lua.h>

#include "config/sb_lua_env.h"
#include "pure/sb_rand.h"
#include "results/sb_result_writer.h"

/* The charts, a layer above this one (plot/): main passes them down.
 * check runs before any work (0, or -1 with one line in err); draw after
 * the JSON is written, on a completed run (0, or -1 with one line). */
struct sb_run_charts {
    int (*check)(const char *path, char *err, size_t errlen);
    int (*draw)(const struct sb_result_writer *o, const struct sb_lua_env *env,
                const char *path, FILE *out, char *err, size_t errlen);
};

/*
 * Runs the "run" command of the loaded script (or compiled-in test) in L
 * with env, drawing with main_rand; charts draws --plot (both members
 * set). Every error is reported (one FATAL line).
 * Returns 0, 1 after an error, or 128+signal when a signal ended it.
 */
int sb_run_points(lua_State *L, struct sb_lua_env *env, struct sb_rand *main_rand,
                  const struct sb_run_charts *charts);

#endif /* SB_RUN_POINTS_H */
