/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * threads: one event takes one of --thread-locks mutexes --thread-yields
 * times, yielding the CPU while it holds it: the scheduler's cost under
 * contention, as sysbench 1.0's threads test measures it (`sysbench
 * threads help`). The mutex is picked as 1.0.20 picks it
 * (src/tests/threads/sb_threads.c): the run's events in turn, a shared
 * counter modulo --thread-locks, so two threads sometimes hold the same
 * one, as there.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "builtin/sb_bi_threads.h"

static const struct sb_opt_def threads_options[] = {
    { "thread-yields", "number of yields to do per request", "1000", SB_ARG_INT },
    { "thread-locks", "number of locks per thread", "8", SB_ARG_INT },
    { NULL, NULL, NULL, 0 }
};

/* Configuration and the shared mutexes: made by configure() before the
 * threads start, freed by finish(). */
static int64_t yields;
static int64_t nlocks;
static pthread_mutex_t *locks;
static uint64_t next_lock; /* events started so far, atomic */

static void threads_finish(void)
{
    for (int64_t i = 0; locks != NULL && i < nlocks; i++)
        pthread_mutex_destroy(&locks[i]);
    free(locks);
    locks = NULL;
}

static int threads_configure(const struct sb_optset *opts, char *err, size_t errlen)
{
    yields = sb_optset_int(opts, "thread-yields");
    nlocks = sb_optset_int(opts, "thread-locks");
    if (yields < 0)
        return sb_bi_bad_option(err, errlen, "thread-yields",
                                sb_optset_str(opts, "thread-yields"), "0 or more");
    if (nlocks < 1 || nlocks > 1000000)
        return sb_bi_bad_option(err, errlen, "thread-locks", sb_optset_str(opts, "thread-locks"),
                                "1 to 1000000");
    threads_finish();
    locks = calloc((size_t)nlocks, sizeof(*locks));
    if (locks == NULL)
        return sb_opt_fail(err, errlen, "out of memory for %lld mutexes", (long long)nlocks);
    for (int64_t i = 0; i < nlocks; i++)
        pthread_mutex_init(&locks[i], NULL);
    next_lock = 0;
    return 0;
}

static int threads_thread_init(void **ctx, const struct sb_bi_thread *t)
{
    (void)t;
    *ctx = NULL;
    return 0;
}

static int threads_event(void *ctx)
{
    pthread_mutex_t *m =
        &locks[__atomic_fetch_add(&next_lock, 1, __ATOMIC_RELAXED) % (uint64_t)nlocks];

    (void)ctx;
    for (int64_t i = 0; i < yields; i++) {
        pthread_mutex_lock(m);
        sched_yield();
        pthread_mutex_unlock(m);
    }
    return SB_BI_OK;
}

static int threads_thread_done(void *ctx)
{
    (void)ctx;
    return 0;
}

const struct sb_builtin sb_bi_threads = {
    .name = "threads",
    .description = "Threads subsystem performance test",
    .options = threads_options,
    .configure = threads_configure,
    .thread_init = threads_thread_init,
    .event = threads_event,
    .thread_done = threads_thread_done,
    .finish = threads_finish,
};
