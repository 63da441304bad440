/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "run" command: its checks, its outputs opened before any work and
 * closed after the points; see sb_run_points.h.
 */
#include "config.h"

#include "engine/sb_run_points.h"

#include <stdbool.h>
#include <stdio.h>

#include "config/sb_config.h"
#include "core/sb_log.h"
#include "engine/sb_metrics_run.h"
#include "engine/sb_signal.h"
#include "engine/sb_sweep.h"
#include "lua/sb_lua.h"
#include "pure/sb_findmax.h"
#include "pure/sb_peak.h"
#include "results/sb_hgrm.h"
#include "measure/sb_txlog.h"
#include "results/sb_usl_report.h"

static int fail(const char *msg)
{
    sb_fatal("%s", msg);
    return 1;
}

/* Whether the script has something to run; 0, or 1 after saying why. */
static int check_script(lua_State *L, const struct sb_lua_env *env)
{
    char err[1024];

    if (env->builtin != NULL || sb_lua_has_function(L, "event") ||
        sb_lua_has_script_thread_run(L))
        return 0;
    if (sb_compat10()) {
        snprintf(err, sizeof(err), "cannot find the event() function in %s",
                 env->script_path ? env->script_path : "-");
        return fail(err);
    }
    return fail("the script defines neither event() nor thread_run(): nothing to run");
}

/* --hgrm, the metrics listener and --log-file, opened once the writer is:
 * 0, or -1 with one line in err and nothing left open but the writer. */
static int open_side_outputs(struct sb_result_writer *out, struct sb_metrics_run *mr,
                             const struct sb_lua_env *env, size_t nr, char *err,
                             size_t errlen)
{
    if (sb_cfg->hgrm_file != NULL &&
        sb_hgrm_check(sb_cfg->hgrm_file,
                      sb_cfg->find_max || sb_cfg->threads_auto
                          ? 0 : sb_cfg->nthread_list * nr * sb_cfg->repeat, err,
                      errlen) != 0)
        return -1;
    if (sb_metrics_run_begin(mr, env, err, errlen) != 0)
        return -1;
    if (sb_cfg->log_file != NULL) {
        static struct sb_txlog txlog; /* lives as long as threads may use it */
        if (sb_txlog_open(&txlog, sb_cfg->log_file, sb_cfg->log_agg_s, err, errlen) != 0) {
            sb_metrics_run_abandon(mr);
            return -1;
        }
        out->txlog = &txlog;
    }
    out->metrics = sb_metrics_run_figures(mr);
    return 0;
}

/* Every output, opened before any work is done, so that a bad --json,
 * --csv, --plot, --hgrm or --log-file path stops us first. Returns 0, or
 * 1 after reporting the error, with nothing left open. */
static int open_outputs(struct sb_result_writer *out, struct sb_metrics_run *mr,
                        const struct sb_lua_env *env, const struct sb_run_charts *charts,
                        bool sweep, size_t nr)
{
    char err[1024], ignored[256];

    if (sb_result_writer_open_mix(out, sb_cfg, env->mix, err, sizeof(err)) != 0)
        return fail(err);
    /* Sweeps and repeats: a line per point (full reports at --verbosity=4). */
    out->brief = !sb_compat10() && sb_cfg->verbosity == SB_LOG_NOTICE &&
                 (sweep || sb_cfg->repeat > 1) && !sb_cfg->find_max;
    if ((sb_cfg->plot_file != NULL && charts->check(sb_cfg->plot_file, err, sizeof(err)) != 0) ||
        open_side_outputs(out, mr, env, nr, err, sizeof(err)) != 0) {
        sb_result_writer_close(out, ignored, sizeof(ignored));
        return fail(err);
    }
    return 0;
}

/* rc, or 1 when it was 0 and err says what failed (reported). */
static int failed(int rc, const char *err)
{
    sb_fatal("%s", err);
    return rc ? rc : 1;
}

/* The end of the command: its status, the JSON, --log-file, --hgrm and
 * --plot, published even after an error or a signal as the report is.
 * Returns rc, or 1 when an output failed. */
static int close_outputs(struct sb_result_writer *out, const struct sb_lua_env *env,
                         const struct sb_run_charts *charts, int rc)
{
    char err[1024];

    if (rc == 0)
        sb_result_writer_set_end(out, "completed", 0, NULL);
    else if (rc > 128)
        sb_result_writer_set_end(out, "interrupted", rc - 128, NULL);
    else
        sb_result_writer_set_end(out, "failed", 0, sb_log_first_fatal());
    if (sb_result_writer_write_json(out, env, err, sizeof(err)) != 0)
        rc = failed(rc, err);
    if (out->txlog != NULL && sb_txlog_close(out->txlog, err, sizeof(err)) != 0)
        rc = failed(rc, err);
    if (sb_cfg->hgrm_file != NULL && rc != 1 &&
        sb_hgrm_write_output(out, sb_cfg->hgrm_file, stdout, err, sizeof(err)) != 0)
        rc = failed(rc, err);
    if (sb_cfg->plot_file != NULL && rc == 0 &&
        charts->draw(out, env, sb_cfg->plot_file, stdout, err, sizeof(err)) != 0)
        rc = failed(1, err);
    if (sb_result_writer_close(out, err, sizeof(err)) != 0)
        rc = failed(rc, err);
    return rc;
}

int sb_run_points(lua_State *L, struct sb_lua_env *env, struct sb_rand *main_rand,
                  const struct sb_run_charts *charts)
{
    struct sb_result_writer out;
    char err[1024];
    size_t nr = sb_cfg->ntx_rate_list > 0 ? sb_cfg->ntx_rate_list : 1;
    /* --find-max prints its own curve instead of the sweep table. */
    bool sweep = (sb_cfg->nthread_list > 1 || nr > 1) && !sb_cfg->find_max;
    struct sb_findmax_result fm;
    struct sb_peak peak; /* 17 KB, on the main thread's stack */
    struct sb_sweep ctx = {L, env, main_rand, &out, sb_cfg->thread_list[0], false, 0, false,
                            &fm, 1, 1, 0, 0, &peak, 0};
    struct sb_metrics_run mr;
    int rc;

    if (check_script(L, env) != 0 || open_outputs(&out, &mr, env, charts, sweep, nr) != 0)
        return 1;
    rc = sb_sweep_run(&ctx);
    if (sb_metrics_run_end(&mr, err, sizeof(err)) != 0)
        rc = failed(rc, err);
    /* A signal after the last point (during --metrics-linger) ends the
     * invocation as interrupted too: 128 + signal in any phase. */
    if (rc == 0 && sb_signal_caught() != 0)
        rc = 128 + sb_signal_caught();
    if (sweep && rc != 1) {
        struct sb_usl_fit fit;
        sb_result_writer_print_sweep(&out, stdout);
        if (sb_usl_report_fit(&out, &fit))
            sb_usl_report_print(&fit, stdout);
    }
    return close_outputs(&out, env, charts, rc);
}
