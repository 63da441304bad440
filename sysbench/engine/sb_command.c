/*
 * Signals, commands and the guard that keeps the main thread responsive to
 * SIGINT/SIGTERM while Lua or a client library blocks; see sb_run.h.
 *
 * A signal handler can only set a flag, and a thread blocked in connect()
 * or in a long statement never looks at it. So whatever may block runs in
 * a thread of its own while the main thread polls: on a stop it returns,
 * and when the blocked thread does not follow within a short grace, it is
 * abandoned and main ends the process with _exit (sb_run_abandoned).
 */
#include "engine/sb_run.h"

#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sb_clock.h"
#include "drivers/sb_db_cancel.h"
#include "lua/sb_lua_interrupt.h"
#include "core/sb_log.h"
#include "core/sb_progress.h"
#include "core/sb_stop.h"
#include "engine/sb_ffi_rand.h"

static volatile sig_atomic_t stop_signal;
static sem_t signal_sem; /* posted by the handler, for the watcher */
static bool abandoned;

/* The first signal asks for a stop (the run cancels its statements,
 * interrupts Lua, reports and writes its result files); a second one,
 * for a user who will not wait for that, ends the process at once. One
 * that follows the first within SECOND_SIGNAL_NS is the same request
 * delivered twice (timeout(1) signals its child, then its whole process
 * group) and is ignored. */
#define SECOND_SIGNAL_NS (300 * SB_NS_PER_MS)

static void on_signal(int sig)
{
    static const char msg[] = "sysbench: second signal: exiting at once\n";
    static uint64_t first_ns;
    uint64_t now = sb_now_ns(); /* clock_gettime: async-signal-safe */

    if (stop_signal != 0) {
        if (now - first_ns < SECOND_SIGNAL_NS)
            return;
        ssize_t w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
        (void)w;
        _exit(128 + sig);
    }
    first_ns = now;
    stop_signal = sig;
    sb_request_stop(SB_STOP_SIGNAL);
    sem_post(&signal_sem);
}

/*
 * What a handler cannot do, done by a thread of its own once woken: the
 * statements in flight cancelled (a blocking client call does not look
 * at the stop flag) and every Lua state hooked (nor does a Lua loop).
 */
static void *watch_signals(void *arg)
{
    (void)arg;
    while (sem_wait(&signal_sem) != 0)
        ;
    sb_lua_interrupt_all();
    sb_db_cancel_all();
    return NULL;
}

void sb_run_install_signals(void)
{
    struct sigaction sa;
    pthread_t t;

    sem_init(&signal_sem, 0, 0);
    /* Without the watcher a signal still stops the run (the flag), only
     * Lua loops and statements wait for the abandon. */
    if (pthread_create(&t, NULL, watch_signals, NULL) == 0)
        pthread_detach(t);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A closed terminal ends the run as SIGTERM does: report, result
     * files, no temporary left. */
    sigaction(SIGHUP, &sa, NULL);
    /* A closed stdout (sysbench ... | head) is not a reason to stop
     * measuring: writes to it fail with EPIPE and the result files are
     * still written. */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

int sb_run_signal(void)
{
    return stop_signal;
}

bool sb_run_abandoned(void)
{
    return abandoned;
}

void sb_run_abandon(void)
{
    abandoned = true;
}

/* True when a signal asked to stop. */
static bool signalled(void)
{
    return sb_stop_reason() == SB_STOP_SIGNAL;
}

bool sb_run_wait_count(const unsigned *count, unsigned n, double grace_s)
{
    uint64_t give_up = 0;

    while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < n) {
        uint64_t now = sb_now_ns();
        if (signalled() && give_up == 0)
            give_up = now + (uint64_t)(grace_s * 1e9);
        if (give_up != 0 && now >= give_up)
            return false;
        sb_progress_tick(); /* the open task's line, if one is due */
        sb_sleep_until_ns(now + 10 * SB_NS_PER_MS);
    }
    return true;
}

struct guarded {
    void *(*fn)(void *);
    void *arg;
    const struct sb_driver_ops *drv;
    struct sb_rand *rand;   /* the caller's sb_rand_* generator */
    unsigned done;
};

static void *guarded_main(void *p)
{
    struct guarded *g = p;

    /* Client libraries keep per-thread state (mysql_thread_init). */
    if (g->drv != NULL && g->drv->thread_init != NULL)
        g->drv->thread_init();
    /* The state runs here as if in the caller's thread. */
    sb_ffi_rand_bind(g->rand);
    g->fn(g->arg);
    if (g->drv != NULL && g->drv->thread_done != NULL)
        g->drv->thread_done();
    __atomic_store_n(&g->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

int sb_run_guarded(const struct sb_driver_ops *drv, void *(*fn)(void *), void *arg)
{
    struct guarded *g = calloc(1, sizeof(*g));
    pthread_t t;

    if (g == NULL)
        return -1;
    g->fn = fn;
    g->arg = arg;
    g->drv = drv;
    g->rand = sb_ffi_rand_current();
    if (pthread_create(&t, NULL, guarded_main, g) != 0) {
        free(g);
        return -1;
    }
    /* Lua cannot notice a signal by itself: no grace. */
    if (!sb_run_wait_count(&g->done, 1, 0)) {
        sb_run_abandon(); /* g and the thread live until _exit */
        pthread_detach(t);
        return 1;
    }
    pthread_join(t, NULL);
    free(g);
    return 0;
}

/* ------------------------------------------------------------ commands */

/* A script command's progress (sb_progress.h): rows its bulk inserts and
 * sysbench.progress count, on standard error while it runs, then one
 * "Prepare done in ..." line. SB_COMPAT=1.0 prints neither. */
static void command_progress_begin(const char *name)
{
    if (!sb_compat10())
        sb_progress_begin(name, "rows", 0);
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
    rc = sb_run_guarded(env->driver, main_cmd_run, c);
    command_progress_end(rc == 0 ? c->rc : 1);
    if (rc == 1)
        return 128 + sb_run_signal(); /* c stays with the abandoned thread */
    if (rc < 0) {
        sb_fatal("cannot create a thread for command '%s'", name);
        rc = 1;
    } else if (c->rc != 0 && signalled() && sb_lua_is_interrupt(c->err)) {
        rc = 128 + sb_run_signal();
    } else if (c->rc != 0) {
        sb_fatal("%s", c->err);
        rc = 1;
    } else if (signalled()) {
        rc = 128 + sb_run_signal();
    }
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
    if (L == NULL || sb_lua_run_command(L, c->name, c->tid, c->err, sizeof(c->err)) != 0)
        c->failed = true;
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
    if (!sb_run_wait_count(finished, started, 0)) {
        command_progress_end(1);
        sb_run_abandon(); /* t and finished stay with the threads */
        return 128 + sb_run_signal();
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(t[i].thread, NULL);
    /* The summary only after a command that did all its work; the error
     * after the progress line is erased. */
    for (unsigned i = 0; i < started && failed == NULL; i++)
        if (t[i].failed)
            failed = t[i].err;
    command_progress_end(rc != 0 || failed != NULL || signalled());
    if (failed != NULL && rc == 0) {
        sb_fatal("%s", failed);
        rc = 1;
    }
    free(t);
    free(finished);
    if (rc == 0 && signalled())
        rc = 128 + sb_run_signal();
    return rc;
}
