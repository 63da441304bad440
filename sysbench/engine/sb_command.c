/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The script's own commands (sysbench.cmdline.commands and global
 * functions), each in a guarded thread (sb_signal.h) so that a signal
 * ends it at once; see sb_command.h.
 */
#include "engine/sb_command.h"

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/sb_config.h"
#include "config/sb_point.h"
#include "core/sb_clock.h"
#include "core/sb_ledger.h"
#include "drivers/sb_db_cancel.h"
#include "lua/sb_lua.h"
#include "core/sb_log.h"
#include "core/sb_progress.h"
#include "core/sb_stop.h"
#include "engine/sb_ffi_rand.h"
#include "engine/sb_signal.h"

/* ------------------------------------------------------------ commands */

/* A script command's progress (sb_progress.h): rows its bulk inserts and
 * sysbench.progress count, on standard error while it runs, then one
 * "Prepare done in ..." line. SB_COMPAT=1.0 prints neither. */
static void command_progress_begin(const char *name)
{
    sb_ledger_begin();
    if (!sb_compat10())
        sb_progress_begin(name, "rows", 0);
}

/* After a command that did not finish (an error, a signal): what it left
 * incomplete, from the ledger (sb_ledger.h), as one warning line. */
static void command_report_incomplete(const char *name)
{
    char line[2048];

    if (sb_ledger_summary(line, sizeof(line)))
        sb_log(SB_LOG_WARNING, "%s did not finish: %s; run 'cleanup' before another %s",
               name, line, name);
}

static void command_progress_end(int rc)
{
    sb_progress_end(rc == 0 && sb_cfg->verbosity >= SB_LOG_NOTICE ? stdout : NULL);
}

struct main_cmd {
    lua_State *L;
    const char *name;
    char err[1024];
    int rc;
};

static void *main_cmd_run(void *p)
{
    struct main_cmd *c = p;
    c->rc = sb_lua_run_command(c->L, c->name, -1, c->err, sizeof(c->err));
    if (c->rc != 0)
        sb_ledger_fail();
    sb_progress_thread_end();
    return NULL;
}

int sb_run_main_command(lua_State *L, const struct sb_lua_env *env, const char *name)
{
    struct main_cmd *c = calloc(1, sizeof(*c));
    int rc;

    if (c == NULL) {
        sb_fatal("out of memory");
        return 1;
    }
    c->L = L;
    c->name = name;
    command_progress_begin(name);
    rc = sb_signal_guarded(env->driver, main_cmd_run, c);
    command_progress_end(rc == 0 ? c->rc : 1);
    if (rc == 1) {
        command_report_incomplete(name);
        return 128 + sb_signal_caught(); /* c stays with the abandoned thread */
    }
    if (rc < 0) {
        sb_fatal("cannot create a thread for command '%s'", name);
        rc = 1;
    } else if (c->rc != 0 && sb_signal_stopped()) {
        /* Failed on the signal before it was seen here (a statement it
         * cancelled, Lua it interrupted; sb_signal_wait_count looks every
         * 10 ms): the command was interrupted, not in error. */
        rc = 128 + sb_signal_caught();
    } else if (c->rc != 0 && sb_compat10()) {
        sb_fatal("`%s' function failed: %s", name, c->err); /* 1.0.20's wording */
        rc = 1;
    } else if (c->rc != 0) {
        sb_fatal("%s", c->err);
        rc = 1;
    } else if (sb_signal_stopped()) {
        rc = 128 + sb_signal_caught();
    }
    if (rc != 0)
        command_report_incomplete(name);
    free(c);
    return rc;
}

struct cmd_thread {
    const struct sb_lua_env *env;
    const char *name;
    int tid;
    unsigned *finished;
    struct sb_rand rand;
    struct sb_db_counters counters;
    struct sb_lua_thread lt;
    pthread_t thread;
    char err[1024];
    bool failed;
};

static void *command_main(void *arg)
{
    struct cmd_thread *c = arg;
    const struct sb_driver_ops *drv = c->env->driver;
    lua_State *L;

    if (drv != NULL && drv->thread_init != NULL)
        drv->thread_init();
    L = sb_lua_new_state(c->env, &c->lt, true, c->err, sizeof(c->err));
    if (L == NULL || sb_lua_run_command(L, c->name, c->tid, c->err, sizeof(c->err)) != 0) {
        c->failed = true;
        sb_ledger_fail();   /* threads waiting for this one's items stop */
    }
    sb_progress_thread_end();
    sb_lua_close(L);
    if (drv != NULL && drv->thread_done != NULL)
        drv->thread_done();
    __atomic_fetch_add(c->finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

int sb_run_parallel_command(const struct sb_lua_env *env, const char *name)
{
    unsigned n = env->point->threads, started = 0;
    struct cmd_thread *t = calloc(n, sizeof(*t));
    unsigned *finished = calloc(1, sizeof(*finished));
    const char *failed = NULL;
    int rc = 0;

    if (t == NULL || finished == NULL) {
        free(t);
        free(finished);
        sb_fatal("out of memory");
        return 1;
    }
    /* 1.0's line, printed only when the command has several threads. */
    if (sb_compat10() && n > 1 && sb_cfg->verbosity >= SB_LOG_NOTICE)
        printf("Initializing worker threads...\n\n");
    command_progress_begin(name);
    for (unsigned i = 0; i < n; i++) {
        t[i].env = env;
        t[i].name = name;
        t[i].tid = (int)i;
        t[i].finished = finished;
        sb_rand_seed_stream(&t[i].rand, sb_cfg->rand_seed,
                            sb_instance_gtid(&sb_cfg->instance, n, i), &sb_cfg->rand);
        t[i].lt.tid = (int)i;
        t[i].lt.rand = &t[i].rand;
        t[i].lt.counters = &t[i].counters;
        if (pthread_create(&t[i].thread, NULL, command_main, &t[i]) != 0) {
            sb_fatal("cannot create thread %u", i);
            sb_request_stop(SB_STOP_ERROR);
            rc = 1;
            break;
        }
        started++;
    }
    /* A signal ends the command at once: the threads cannot notice it
     * inside a statement or a connect, and nothing is left to report. */
    if (!sb_signal_wait_count(finished, started, 0)) {
        command_progress_end(1);
        command_report_incomplete(name);
        sb_signal_abandon(); /* t and finished stay with the threads */
        /* Detached, a thread that ends before the process is not left
         * unjoined (TSan's "thread leak"); one still inside a statement
         * goes with _exit. */
        for (unsigned i = 0; i < started; i++)
            pthread_detach(t[i].thread);
        return 128 + sb_signal_caught();
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(t[i].thread, NULL);
    /* The summary only after a command that did all its work; the error
     * after the progress line is erased. */
    for (unsigned i = 0; i < started && failed == NULL; i++)
        if (t[i].failed)
            failed = t[i].err;
    /* Threads that failed on the signal before it was seen here (a
     * statement it cancelled, Lua it interrupted; sb_signal_wait_count
     * looks every 10 ms) were interrupted, not in error: exit 128 + the
     * signal below, with what is complete. */
    if (sb_signal_stopped())
        failed = NULL;
    command_progress_end(rc != 0 || failed != NULL || sb_signal_stopped());
    if (failed != NULL && rc == 0) {
        sb_fatal("%s", failed);
        rc = 1;
    }
    free(t);
    free(finished);
    if (rc == 0 && sb_signal_stopped())
        rc = 128 + sb_signal_caught();
    if (rc != 0)
        command_report_incomplete(name);
    return rc;
}
