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

/* The test's context: its configuration and the shared mutexes, made by
 * configure() before the threads start, freed by finish(). */
struct threads_config {
    int64_t yields;
    int64_t nlocks;
    pthread_mutex_t *locks;
    uint64_t next_lock; /* events started so far, atomic */
};

static void threads_finish(void *cfg)
{
    struct threads_config *c = cfg;

    if (c == NULL)
        return;
    for (int64_t i = 0; c->locks != NULL && i < c->nlocks; i++)
        pthread_mutex_destroy(&c->locks[i]);
    free(c->locks);
    free(c);
}

static void *threads_configure(const struct sb_optset *opts, char *err, size_t errlen)
{
    int64_t yields = sb_optset_int(opts, "thread-yields");
    int64_t nlocks = sb_optset_int(opts, "thread-locks");
    struct threads_config *c;

    if (yields < 0) {
        sb_bi_bad_option(err, errlen, "thread-yields", sb_optset_str(opts, "thread-yields"),
                         "0 or more");
        return NULL;
    }
    if (nlocks < 1 || nlocks > 1000000) {
        sb_bi_bad_option(err, errlen, "thread-locks", sb_optset_str(opts, "thread-locks"),
                         "1 to 1000000");
        return NULL;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL || (c->locks = calloc((size_t)nlocks, sizeof(*c->locks))) == NULL) {
        free(c);
        sb_opt_fail(err, errlen, "out of memory for %lld mutexes", (long long)nlocks);
        return NULL;
    }
    c->yields = yields;
    c->nlocks = nlocks;
    for (int64_t i = 0; i < nlocks; i++)
        pthread_mutex_init(&c->locks[i], NULL);
    return c;
}

/* A thread's state is the shared context itself: the test keeps nothing
 * per thread. */
static int threads_thread_init(void **ctx, const struct sb_bi_thread *t)
{
    *ctx = t->cfg;
    return 0;
}

static int threads_event(void *ctx)
{
    struct threads_config *c = ctx;
    pthread_mutex_t *m =
        &c->locks[__atomic_fetch_add(&c->next_lock, 1, __ATOMIC_RELAXED) % (uint64_t)c->nlocks];

    for (int64_t i = 0; i < c->yields; i++) {
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
