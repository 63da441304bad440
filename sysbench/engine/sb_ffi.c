/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Entry points scripts reach through LuaJIT's FFI (exported from the binary
 * with --export-dynamic). The sb_counter_inc, sb_event_*, sb_more_events,
 * sb_rand_* and sb_histogram_* names and signatures are sysbench 1.0's,
 * which real scripts declare themselves (sysbench.lua declares them too);
 * the sb_ffi_* ones serve the built-in Lua modules. They are linked into
 * the program itself, not the core library, so the linker always keeps
 * them. No other symbol may take a 1.0 name with another signature: a
 * script calling it through 1.0's prototype would crash.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/sb_config.h"
#include "core/sb_progress.h"
#include "pure/sb_lhist.h"
#include "pure/sb_rand.h"
#include "engine/sb_ffi_rand.h"
#include "engine/sb_worker.h"

/* Exported for scripts; declared here because no header serves Lua. */
bool sb_more_events(int thread_id);
int sb_ffi_mux_next(int thread_id);
int sb_ffi_mux_woken(int thread_id);
void sb_event_start(int thread_id);
void sb_event_stop(int thread_id);
void sb_counter_inc(int thread_id, int type);
void sb_ffi_event_restarted(int thread_id);
void sb_ffi_progress_add(double n);
void sb_ffi_progress_expect(double n);
void sb_ffi_progress_phase(const char *name);

uint32_t sb_rand_default(uint32_t a, uint32_t b);
uint32_t sb_rand_uniform(uint32_t a, uint32_t b);
uint32_t sb_rand_gaussian(uint32_t a, uint32_t b);
uint32_t sb_rand_special(uint32_t a, uint32_t b);
uint32_t sb_rand_pareto(uint32_t a, uint32_t b);
uint32_t sb_rand_unique(void);
uint64_t sb_rand_uniform_uint64(void);
double sb_rand_uniform_double(void);
void sb_rand_str(const char *fmt, char *buf);

struct sb_lhist *sb_histogram_new(size_t size, double range_min, double range_max);
void sb_histogram_delete(struct sb_lhist *h);
void sb_histogram_update(struct sb_lhist *h, double value);
void sb_histogram_print(struct sb_lhist *h);

uint32_t sb_ffi_rand_wrapped(struct sb_rand *r, int dist, uint32_t a, uint32_t b);
uint32_t sb_ffi_rand_default(struct sb_rand *r, uint32_t a, uint32_t b);
uint32_t sb_ffi_rand_unique(struct sb_rand *r);
double sb_ffi_rand_double(struct sb_rand *r);
uint64_t sb_ffi_rand_u64(struct sb_rand *r);
size_t sb_ffi_rand_string(struct sb_rand *r, const char *fmt, size_t len, char *buf, size_t cap);
size_t sb_ffi_rand_varstring(struct sb_rand *r, size_t min, size_t max, char *buf, size_t cap);
double sb_ffi_hist_percentile(struct sb_lhist *h, double pct);

/* sysbench 1.0's sb_counter_type, in its order. */
enum sb_ffi_counter {
    SB_FFI_CNT_OTHER,
    SB_FFI_CNT_READ,
    SB_FFI_CNT_WRITE,
    SB_FFI_CNT_TRX,
    SB_FFI_CNT_ERROR,
    SB_FFI_CNT_RECONNECT
};

/* The multiplexed form of sb_more_events (sb_worker_mux_next). */
int sb_ffi_mux_next(int thread_id)
{
    struct sb_worker *w = sb_worker_get(thread_id);
    return w != NULL ? (int)sb_worker_mux_next(w) : SB_MUX_STOP;
}

int sb_ffi_mux_woken(int thread_id)
{
    struct sb_worker *w = sb_worker_get(thread_id);
    return w != NULL ? (int)sb_worker_mux_woken(w) : SB_MUX_STOP;
}

bool sb_more_events(int thread_id)
{
    struct sb_worker *w = sb_worker_get(thread_id);
    return w != NULL && sb_worker_more_events(w);
}

void sb_event_start(int thread_id)
{
    struct sb_worker *w = sb_worker_get(thread_id);
    if (w != NULL)
        sb_worker_event_start(w);
}

void sb_event_stop(int thread_id)
{
    struct sb_worker *w = sb_worker_get(thread_id);
    if (w != NULL)
        sb_worker_event_stop(w);
}

/* The built-in event loop retries an event after a RESTART_EVENT error. */
void sb_ffi_event_restarted(int thread_id)
{
    struct sb_worker *w = sb_worker_get(thread_id);
    if (w != NULL)
        w->restarts++;
}

void sb_counter_inc(int thread_id, int type)
{
    struct sb_worker *w = sb_worker_get(thread_id);
    if (w == NULL)
        return;
    switch (type) {
    case SB_FFI_CNT_OTHER: w->db.other++; break;
    case SB_FFI_CNT_READ: w->db.reads++; break;
    case SB_FFI_CNT_WRITE: w->db.writes++; break;
    case SB_FFI_CNT_ERROR: w->db.errors++; break;
    case SB_FFI_CNT_RECONNECT: w->db.reconnects++; break;
    case SB_FFI_CNT_TRX: sb_worker_count_trx(w); return;
    default: return;
    }
    sb_worker_publish(w);
}

/* ------------------------------------------------------------------------
 * The calling thread's generator
 * ------------------------------------------------------------------------ */

/* For a thread with no state bound (a script's foreign thread; the
 * binding is sb_ffi_rand.c's): seeded from --rand-seed, stream
 * SB_RAND_STREAM_FOREIGN + n for the n-th such thread to draw, never a
 * crash. */
static __thread struct sb_rand fallback_rand;
static __thread bool fallback_ready;

static struct sb_rand *thread_rand(void)
{
    struct sb_rand *cur_rand = sb_ffi_rand_current();

    if (cur_rand != NULL)
        return cur_rand;
    if (!fallback_ready) {
        static uint64_t foreign_threads;
        sb_rand_seed_stream(&fallback_rand, sb_cfg->rand_seed,
                            SB_RAND_STREAM_FOREIGN +
                                __atomic_fetch_add(&foreign_threads, 1, __ATOMIC_RELAXED),
                            &sb_cfg->rand);
        fallback_ready = true;
    }
    return &fallback_rand;
}

uint32_t sb_rand_default(uint32_t a, uint32_t b)
{
    return sb_rand_next_wrapped_default(thread_rand(), a, b);
}

uint32_t sb_rand_uniform(uint32_t a, uint32_t b)
{
    return sb_rand_next_wrapped(thread_rand(), SB_RAND_UNIFORM, a, b);
}

uint32_t sb_rand_gaussian(uint32_t a, uint32_t b)
{
    return sb_rand_next_wrapped(thread_rand(), SB_RAND_GAUSSIAN, a, b);
}

uint32_t sb_rand_special(uint32_t a, uint32_t b)
{
    return sb_rand_next_wrapped(thread_rand(), SB_RAND_SPECIAL, a, b);
}

uint32_t sb_rand_pareto(uint32_t a, uint32_t b)
{
    return sb_rand_next_wrapped(thread_rand(), SB_RAND_PARETO, a, b);
}

/*
 * unique() is one sequence for the whole process, as in 1.0: scripts use it
 * for keys that must not collide between threads. Seeded from --rand-seed
 * on first use (the configuration is final before any script runs).
 */
static struct sb_rand unique_rand;
static pthread_once_t unique_once = PTHREAD_ONCE_INIT;

static void unique_init(void)
{
    /* A stream no thread's generator uses (threads are 0.., the main
     * state 2^32). */
    sb_rand_seed_stream(&unique_rand, sb_cfg->rand_seed, 0x200000000ULL,
                        &sb_cfg->rand);
    /* Instance I of N walks its own 1/N of the same permutation, so the
     * values of all instances never collide either. */
    unique_rand.unique_index += (uint32_t)(((uint64_t)1 << 32) / sb_cfg->instance.count *
                                           sb_cfg->instance.index);
}

static uint32_t shared_unique(void)
{
    pthread_once(&unique_once, unique_init);
    return sb_rand_next_unique_shared(&unique_rand);
}

uint32_t sb_rand_unique(void)
{
    return shared_unique();
}

uint64_t sb_rand_uniform_uint64(void)
{
    return sb_rand_next_u64(thread_rand());
}

double sb_rand_uniform_double(void)
{
    return sb_rand_next_double(thread_rand());
}

/* 1.0's contract: writes exactly strlen(fmt) bytes and no terminating NUL
 * (its callers size buf to #fmt). */
void sb_rand_str(const char *fmt, char *buf)
{
    struct sb_rand *r = thread_rand();
    size_t i;

    for (i = 0; fmt[i] != '\0'; i++) {
        if (fmt[i] == '#')
            buf[i] = (char)('0' + sb_rand_next_uniform(r, 0, 9));
        else if (fmt[i] == '@')
            buf[i] = (char)('a' + sb_rand_next_uniform(r, 0, 25));
        else
            buf[i] = fmt[i];
    }
}

/* ------------------------------------------------------------------------
 * sysbench.rand's own entry points (explicit generator, no TLS lookup;
 * NULL from a state shared by connections, sb_lua_shared.h: the thread's
 * bound generator, the one of the connection that runs)
 * ------------------------------------------------------------------------ */

#define SB_FFI_RAND(r) ((r) != NULL ? (r) : thread_rand())

uint32_t sb_ffi_rand_wrapped(struct sb_rand *r, int dist, uint32_t a, uint32_t b)
{
    return sb_rand_next_wrapped(SB_FFI_RAND(r), (enum sb_rand_dist)dist, a, b);
}

uint32_t sb_ffi_rand_default(struct sb_rand *r, uint32_t a, uint32_t b)
{
    return sb_rand_next_wrapped_default(SB_FFI_RAND(r), a, b);
}

/* r is unused: unique() is process-wide (see shared_unique). */
uint32_t sb_ffi_rand_unique(struct sb_rand *r)
{
    (void)r;
    return shared_unique();
}

double sb_ffi_rand_double(struct sb_rand *r)
{
    return sb_rand_next_double(SB_FFI_RAND(r));
}

uint64_t sb_ffi_rand_u64(struct sb_rand *r)
{
    return sb_rand_next_u64(SB_FFI_RAND(r));
}

size_t sb_ffi_rand_string(struct sb_rand *r, const char *fmt, size_t len, char *buf, size_t cap)
{
    return sb_rand_next_string(SB_FFI_RAND(r), fmt, len, buf, cap);
}

size_t sb_ffi_rand_varstring(struct sb_rand *r, size_t min, size_t max, char *buf, size_t cap)
{
    return sb_rand_next_varstring(SB_FFI_RAND(r), min, max, buf, cap);
}

/* ------------------------------------------------------------------------
 * Histograms (1.0's sb_histogram_t is opaque to scripts)
 * ------------------------------------------------------------------------ */

struct sb_lhist *sb_histogram_new(size_t size, double range_min, double range_max)
{
    return sb_lhist_new(size, range_min, range_max);
}

void sb_histogram_delete(struct sb_lhist *h)
{
    sb_lhist_free(h);
}

void sb_histogram_update(struct sb_lhist *h, double value)
{
    if (h != NULL)
        sb_lhist_update(h, value);
}

/* Flushed so the output keeps its place among the script's own prints. */
void sb_histogram_print(struct sb_lhist *h)
{
    if (h == NULL)
        return;
    sb_lhist_print(h, stdout);
    fflush(stdout);
}

double sb_ffi_hist_percentile(struct sb_lhist *h, double pct)
{
    return h != NULL ? sb_lhist_percentile(h, pct) : 0.0;
}

/* sysbench.progress and the bulk inserts (sb_progress.h): a Lua number
 * converts to double without a cast in the script; negative and NaN
 * counts are ignored. */
void sb_ffi_progress_add(double n)
{
    if (n > 0)
        sb_progress_add((uint64_t)n);
}

void sb_ffi_progress_expect(double n)
{
    if (n > 0)
        sb_progress_expect((uint64_t)n);
}

void sb_ffi_progress_phase(const char *name)
{
    sb_progress_phase(name);
}
