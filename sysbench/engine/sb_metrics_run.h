/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_METRICS_RUN_H
#define SB_METRICS_RUN_H

/*
 * --metrics-listen, --metrics-linger and --metrics-file for one "run"
 * invocation (every point of a sweep): the figures the reporter publishes
 * (results/sb_metrics.h), the HTTP listener (sb_metrics_http.h) and the
 * OpenMetrics file. main begins it before the first point and ends it
 * after the last; the reporter reaches the figures through
 * struct sb_result_writer's metrics pointer (sb_metrics_run_figures).
 */

#include <stdbool.h>
#include <stddef.h>

#include "config/sb_lua_env.h"
#include "core/sb_safefile.h"
#include "engine/sb_metrics_http.h"
#include "results/sb_metrics.h"

struct sb_metrics_run {
    struct sb_metrics m;
    struct sb_metrics_http *http;  /* NULL without --metrics-listen */
    struct sb_safefile file;       /* file.fp NULL without --metrics-file */
    bool on;                       /* either option given and begun */
};

/*
 * Reads the options from the run configuration; with neither given, mr is
 * left off (sb_metrics_run_figures returns NULL, the rest do nothing).
 * Otherwise creates the file, reads --metrics-token's file and binds the
 * listener before any work is done, so a bad path, an unreadable token
 * or a taken port is one error before the run; prints where the listener
 * is and who can reach it, and warns once when that is every address
 * without a token; env
 * gives the script's name for the labels. Returns 0, or -1 with one line
 * in err (nothing left open).
 */
int sb_metrics_run_begin(struct sb_metrics_run *mr, const struct sb_lua_env *env, char *err,
                         size_t errlen);

/* The figures to hand the reporter (struct sb_result_writer's metrics), NULL
 * when off. */
struct sb_metrics *sb_metrics_run_figures(struct sb_metrics_run *mr);

/* The run did not start: stops the listener, removes the temporary file. */
void sb_metrics_run_abandon(struct sb_metrics_run *mr);

/*
 * After the last point: keeps serving for --metrics-linger (cut short by
 * a signal, with a line saying so: the caller then ends the invocation
 * as interrupted, 128 + signal), stops the listener and writes the file (also after an error
 * or a signal, as the other result files). Returns 0, or -1 with one line
 * in err.
 */
int sb_metrics_run_end(struct sb_metrics_run *mr, char *err, size_t errlen);

#endif /* SB_METRICS_RUN_H */
