/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Signals and the guard that keeps the main thread responsive to
 * SIGINT/SIGTERM while Lua or a client library blocks; see sb_signal.h.
 *
 * A signal handler can only set a flag, and a thread blocked in connect()
 * or in a long statement never looks at it. So whatever may block runs in
 * a thread of its own while the main thread polls: on a stop it returns,
 * and when the blocked thread does not follow within a short grace, it is
 * abandoned and main ends the process with _exit (sb_signal_abandoned).
 */
#include "engine/sb_signal.h"

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sb_clock.h"
#include "core/sb_progress.h"
#include "core/sb_stop.h"
#include "drivers/sb_db_cancel.h"
#include "drivers/sb_driver.h"
#include "engine/sb_ffi_rand.h"
#include "lua/sb_lua_interrupt.h"

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

void sb_signal_install(void)
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

int sb_signal_caught(void)
{
    return stop_signal;
}

bool sb_signal_abandoned(void)
{
    return abandoned;
}

void sb_signal_abandon(void)
{
    abandoned = true;
}

bool sb_signal_stopped(void)
{
    return sb_stop_reason() == SB_STOP_SIGNAL;
}

bool sb_signal_wait_count(const unsigned *count, unsigned n, double grace_s)
{
    uint64_t give_up = 0;

    while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < n) {
        uint64_t now = sb_now_ns();
        if (sb_signal_stopped() && give_up == 0)
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

int sb_signal_guarded(const struct sb_driver_ops *drv, void *(*fn)(void *), void *arg)
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
    if (!sb_signal_wait_count(&g->done, 1, 0)) {
        sb_signal_abandon(); /* g and the thread live until _exit */
        pthread_detach(t);
        return 1;
    }
    pthread_join(t, NULL);
    free(g);
    return 0;
}
