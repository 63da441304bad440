/*
 * Entry points scripts reach through LuaJIT's FFI (exported from the binary
 * with --export-dynamic). The names and signatures of the first four are
 * sysbench 1.0's, which real scripts declare themselves; the sb_ffi_*
 * ones serve the built-in Lua modules. They are linked into the program
 * itself, not the core library, so the linker always keeps them.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sb_histogram.h"
#include "sb_rand.h"
#include "sb_worker.h"

/* sysbench 1.0's sb_counter_type, in its order. */
enum sb_ffi_counter {
    SB_FFI_CNT_OTHER,
    SB_FFI_CNT_READ,
    SB_FFI_CNT_WRITE,
    SB_FFI_CNT_TRX,
    SB_FFI_CNT_ERROR,
    SB_FFI_CNT_RECONNECT
};

/* Exported for scripts; declared here because no header serves Lua. */
bool sb_more_events(int thread_id);
void sb_event_start(int thread_id);
void sb_event_stop(int thread_id);
void sb_counter_inc(int thread_id, int type);
double sb_ffi_rand_uniform(struct sb_rand *r, double a, double b);
double sb_ffi_rand_gaussian(struct sb_rand *r, double a, double b);
double sb_ffi_rand_special(struct sb_rand *r, double a, double b);
double sb_ffi_rand_pareto(struct sb_rand *r, double a, double b);
double sb_ffi_rand_zipfian(struct sb_rand *r, double a, double b);
double sb_ffi_rand_default(struct sb_rand *r, double a, double b);
double sb_ffi_rand_unique(struct sb_rand *r);
double sb_ffi_rand_double(struct sb_rand *r);
uint64_t sb_ffi_rand_u64(struct sb_rand *r);
size_t sb_ffi_rand_string(struct sb_rand *r, const char *fmt, size_t len, char *buf, size_t cap);
size_t sb_ffi_rand_varstring(struct sb_rand *r, size_t min, size_t max, char *buf, size_t cap);
struct sb_hist *sb_ffi_hist_new(void);
void sb_ffi_hist_free(struct sb_hist *h);
void sb_ffi_hist_update(struct sb_hist *h, double ms);
void sb_ffi_hist_print(struct sb_hist *h);
double sb_ffi_hist_percentile(struct sb_hist *h, double pct);

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

/* Lua numbers are doubles: integers pass exactly up to 2^53. */
double sb_ffi_rand_uniform(struct sb_rand *r, double a, double b)
{
    return (double)sb_rand_next_uniform(r, (int64_t)a, (int64_t)b);
}

double sb_ffi_rand_gaussian(struct sb_rand *r, double a, double b)
{
    return (double)sb_rand_next_gaussian(r, (int64_t)a, (int64_t)b);
}

double sb_ffi_rand_special(struct sb_rand *r, double a, double b)
{
    return (double)sb_rand_next_special(r, (int64_t)a, (int64_t)b);
}

double sb_ffi_rand_pareto(struct sb_rand *r, double a, double b)
{
    return (double)sb_rand_next_pareto(r, (int64_t)a, (int64_t)b);
}

double sb_ffi_rand_zipfian(struct sb_rand *r, double a, double b)
{
    return (double)sb_rand_next_zipfian(r, (int64_t)a, (int64_t)b);
}

double sb_ffi_rand_default(struct sb_rand *r, double a, double b)
{
    return (double)sb_rand_next_default(r, (int64_t)a, (int64_t)b);
}

double sb_ffi_rand_unique(struct sb_rand *r)
{
    return (double)sb_rand_next_unique(r);
}

double sb_ffi_rand_double(struct sb_rand *r)
{
    return sb_rand_next_double(r);
}

uint64_t sb_ffi_rand_u64(struct sb_rand *r)
{
    return sb_rand_next_u64(r);
}

size_t sb_ffi_rand_string(struct sb_rand *r, const char *fmt, size_t len, char *buf, size_t cap)
{
    return sb_rand_next_string(r, fmt, len, buf, cap);
}

size_t sb_ffi_rand_varstring(struct sb_rand *r, size_t min, size_t max, char *buf, size_t cap)
{
    return sb_rand_next_varstring(r, min, max, buf, cap);
}

struct sb_hist *sb_ffi_hist_new(void)
{
    struct sb_hist *h = malloc(sizeof(*h));
    if (h != NULL)
        sb_hist_reset(h);
    return h;
}

void sb_ffi_hist_free(struct sb_hist *h)
{
    free(h);
}

void sb_ffi_hist_update(struct sb_hist *h, double ms)
{
    sb_hist_record(h, ms > 0 ? (uint64_t)(ms * 1e6) : 0);
}

void sb_ffi_hist_print(struct sb_hist *h)
{
    sb_hist_print(h, stdout);
    fflush(stdout);
}

double sb_ffi_hist_percentile(struct sb_hist *h, double pct)
{
    return (double)sb_hist_percentile(h, pct) / 1e6;
}
