/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The metrics of one invocation; see sb_metrics_run.h.
 */
#include "engine/sb_metrics_run.h"

#include <stdio.h>
#include <string.h>

#include "builtin/sb_builtin.h"
#include "config/sb_config.h"
#include "core/sb_clock.h"
#include "core/sb_log.h"
#include "core/sb_secret_file.h"
#include "core/sb_stop.h"
#include "engine/sb_signal.h"

/* Binds the listener (with --metrics-token's token) and says where, once;
 * a wildcard without a token is one warning. Returns 0, or -1 with err. */
static int start_listener(struct sb_metrics_run *mr, char *err, size_t errlen)
{
    char *token = NULL;
    const struct sb_metrics_http *h;

    if (sb_cfg->metrics_token != NULL &&
        (token = sb_secret_file_read(sb_cfg->metrics_token, "metrics-token", true, err,
                                     errlen)) == NULL)
        return -1;
    mr->http = sb_metrics_http_start(sb_cfg->metrics_listen, token, &mr->m, err, errlen);
    sb_secret_free(token);
    if (mr->http == NULL)
        return -1;
    h = mr->http;
    if (sb_cfg->verbosity >= SB_LOG_NOTICE)
        printf("Metrics for Prometheus: http://%s/metrics (--metrics-listen=%s: %s%s)\n",
               sb_metrics_http_address(h), sb_cfg->metrics_listen, sb_metrics_http_scope(h),
               sb_cfg->metrics_token != NULL ? ", bearer token required" : "");
    if (sb_metrics_http_wildcard(h) && sb_cfg->metrics_token == NULL)
        sb_warn("--metrics-listen=%s serves the metrics to %s without authentication: "
                "anyone who reaches this host can read them; bind 127.0.0.1 or give "
                "--metrics-token=FILE", sb_cfg->metrics_listen, sb_metrics_http_scope(h));
    return 0;
}

int sb_metrics_run_begin(struct sb_metrics_run *mr, const struct sb_lua_env *env, char *err,
                         size_t errlen)
{
    const char *script = env->script_path != NULL ? env->script_path
                         : env->builtin != NULL   ? env->builtin->name
                                                  : "stdin";

    memset(mr, 0, sizeof(*mr));
    if (sb_cfg->metrics_listen == NULL && sb_cfg->metrics_file == NULL)
        return 0;
    sb_metrics_init(&mr->m, script, sb_cfg->instance.index, sb_cfg->metrics_file != NULL);
    sb_metrics_set_types(&mr->m, env->mix);
    if (sb_cfg->metrics_file != NULL &&
        sb_safefile_open(&mr->file, sb_cfg->metrics_file, "--metrics-file", sb_metrics_is_file,
                         err, errlen) != 0) {
        sb_metrics_free(&mr->m);
        return -1;
    }
    if (sb_cfg->metrics_listen != NULL && start_listener(mr, err, errlen) != 0) {
        sb_safefile_abandon(&mr->file);
        sb_metrics_free(&mr->m);
        return -1;
    }
    mr->on = true;
    return 0;
}

struct sb_metrics *sb_metrics_run_figures(struct sb_metrics_run *mr)
{
    return mr->on ? &mr->m : NULL;
}

void sb_metrics_run_abandon(struct sb_metrics_run *mr)
{
    if (!mr->on)
        return;
    sb_metrics_http_stop(mr->http);
    sb_safefile_abandon(&mr->file);
    sb_metrics_free(&mr->m);
    mr->on = false;
}

/* A scraper's last look at the final interval; a signal cuts it short
 * (and the invocation then ends as interrupted, as in any other phase). */
static void linger(void)
{
    uint64_t until = sb_now_ns() + (uint64_t)(sb_cfg->metrics_linger * 1e9);

    if (sb_signal_caught() != 0) /* the run was interrupted: no linger */
        return;
    while (sb_now_ns() < until && sb_signal_caught() == 0) {
        uint64_t step = sb_now_ns() + 100 * SB_NS_PER_MS;
        sb_sleep_until_ns(step < until ? step : until);
    }
    if (sb_signal_caught() != 0)
        printf("\nInterrupted by signal %d during --metrics-linger.\n", sb_signal_caught());
}

int sb_metrics_run_end(struct sb_metrics_run *mr, char *err, size_t errlen)
{
    int rc = 0;

    if (!mr->on)
        return 0;
    sb_metrics_finish(&mr->m);
    if (mr->http != NULL && sb_cfg->metrics_linger > 0)
        linger();
    sb_metrics_http_stop(mr->http);
    if (mr->file.fp != NULL) {
        if (sb_metrics_write_openmetrics(&mr->m, mr->file.fp) != 0) {
            snprintf(err, errlen, "--metrics-file=%s: write error: %s", sb_cfg->metrics_file,
                     strerror(sb_safefile_errno(&mr->file)));
            sb_safefile_abandon(&mr->file);
            rc = -1;
        } else {
            rc = sb_safefile_commit(&mr->file, err, errlen);
        }
    }
    sb_metrics_free(&mr->m);
    mr->on = false;
    return rc;
}
