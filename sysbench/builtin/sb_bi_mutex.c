/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mutex: each thread runs one event: --mutex-locks times, an empty loop
 * of --mutex-loops iterations, then a lock, an increment of a shared
 * counter and an unlock of a random one of --mutex-num mutexes, as
 * sysbench 1.0's mutex test does (`sysbench mutex help`; the loop runs
 * before every lock: 1.0.20's run time grows with locks x loops).
 */
#include <pthread.h>
#include <stdlib.h>

#include "builtin/sb_bi_mutex.h"
#include "pure/sb_rand.h"

static const struct sb_opt_def mutex_options[] = {
    { "mutex-num", "total size of mutex array", "4096", SB_ARG_INT },
    { "mutex-locks", "number of mutex locks to do per thread", "50000", SB_ARG_INT },
    { "mutex-loops", "number of empty loops to do outside mutex lock", "10000", SB_ARG_INT },
    { NULL, NULL, NULL, 0 }
};

/* Each mutex on a cache line of its own: neighbours would otherwise
 * contend where the test means them not to. */
struct padded_mutex {
    pthread_mutex_t m;
    uint64_t counter;
} __attribute__((aligned(64)));

/* Configuration and the shared mutexes (configure() to finish()). */
static int64_t nmutex, nlocks, nloops;
static struct padded_mutex *mutexes;

struct mutex_thread {
    struct sb_rand *rand;
    bool done;
};

static void mutex_finish(void)
{
    for (int64_t i = 0; mutexes != NULL && i < nmutex; i++)
        pthread_mutex_destroy(&mutexes[i].m);
    free(mutexes);
    mutexes = NULL;
}

static int mutex_configure(const struct sb_optset *opts, char *err, size_t errlen)
{
    nmutex = sb_optset_int(opts, "mutex-num");
    nlocks = sb_optset_int(opts, "mutex-locks");
    nloops = sb_optset_int(opts, "mutex-loops");
    if (nmutex < 1 || nmutex > 100000000)
        return sb_bi_bad_option(err, errlen, "mutex-num", sb_optset_str(opts, "mutex-num"),
                                "1 to 100000000");
    if (nlocks < 0)
        return sb_bi_bad_option(err, errlen, "mutex-locks", sb_optset_str(opts, "mutex-locks"),
                                "0 or more");
    if (nloops < 0)
        return sb_bi_bad_option(err, errlen, "mutex-loops", sb_optset_str(opts, "mutex-loops"),
                                "0 or more");
    mutex_finish();
    mutexes = aligned_alloc(64, (size_t)nmutex * sizeof(*mutexes));
    if (mutexes == NULL)
        return sb_opt_fail(err, errlen, "out of memory for %lld mutexes", (long long)nmutex);
    for (int64_t i = 0; i < nmutex; i++) {
        pthread_mutex_init(&mutexes[i].m, NULL);
        mutexes[i].counter = 0;
    }
    return 0;
}

static int mutex_thread_init(void **ctx, const struct sb_bi_thread *t)
{
    struct mutex_thread *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return SB_BI_ERROR;
    c->rand = t->rand;
    *ctx = c;
    return 0;
}

static int mutex_event(void *ctx)
{
    struct mutex_thread *c = ctx;

    /* One event per thread. */
    if (c->done)
        return SB_BI_DONE;
    c->done = true;
    for (int64_t i = 0; i < nlocks; i++) {
        struct padded_mutex *m;

        /* The empty loop the test asks for, its counter in a register
         * (about a cycle an iteration, as 1.0.20's measures: 1e8 loops
         * in 0.06 s); the empty asm keeps the compiler from removing it. */
        for (int64_t k = 0; k < nloops; k++)
            __asm__ volatile("");
        m = &mutexes[sb_rand_next_u64(c->rand) % (uint64_t)nmutex];
        pthread_mutex_lock(&m->m);
        m->counter++;
        pthread_mutex_unlock(&m->m);
    }
    return SB_BI_OK;
}

static int mutex_thread_done(void *ctx)
{
    free(ctx);
    return 0;
}

const struct sb_builtin sb_bi_mutex = {
    .name = "mutex",
    .description = "Mutex performance test",
    .options = mutex_options,
    .ends_itself = true,
    .configure = mutex_configure,
    .thread_init = mutex_thread_init,
    .event = mutex_event,
    .thread_done = mutex_thread_done,
    .finish = mutex_finish,
};
