/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memory: one event reads or writes one block of --memory-block-size
 * bytes, word by word, sequentially or at random words of the block,
 * until each thread has moved its share of --memory-total-size (the
 * share is total / block / threads events, rounded down, as sysbench
 * 1.0.20 counts it: 1M of 4K blocks over 3 threads makes 255 events).
 * Options, defaults and the checks on them follow `sysbench memory help`
 * of 1.0.20 (a block size must be a power of two of at least a word).
 */
#define _GNU_SOURCE /* MAP_HUGETLB */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "builtin/sb_bi_memory.h"
#include "pure/sb_rand.h"
#include "results/sb_point_result.h"
#include "measure/sb_stats.h"

static const struct sb_opt_def memory_options[] = {
    { "memory-block-size", "size of memory block for test", "1K", SB_ARG_SIZE },
    { "memory-total-size", "total size of data to transfer", "100G", SB_ARG_SIZE },
    { "memory-scope", "memory access scope {global,local}", "global", SB_ARG_STRING },
    { "memory-hugetlb", "allocate memory from HugeTLB pool", "off", SB_ARG_BOOL },
    { "memory-oper", "type of memory operations {read, write, none}", "write", SB_ARG_STRING },
    { "memory-access-mode", "memory access mode {seq,rnd}", "seq", SB_ARG_STRING },
    { NULL, NULL, NULL, 0 }
};

enum mem_oper { MEM_OPER_READ, MEM_OPER_WRITE, MEM_OPER_NONE };

/* The test's context (configure() to finish()): its configuration, the
 * shared block of the global scope, and its mapping size when it came
 * from mmap. */
struct mem_config {
    uint64_t block, total;
    bool local, hugetlb, rnd;
    enum mem_oper oper;
    size_t *global_buf;
    size_t global_map;
};

struct mem_thread {
    const struct mem_config *cfg;
    enum mem_oper oper;    /* the configuration's, at hand in the event */
    bool rnd_mode;
    size_t *buf;
    size_t map;            /* mmap length of buf when local and hugetlb */
    size_t words, mask;
    uint64_t left;         /* events left; UINT64_MAX: no total */
    uint64_t rnd[2];       /* rnd mode: the word pickers' states, never 0 */
    volatile size_t sink;  /* what reads add up, so they are not removed */
};

/* A block: from the HugeTLB pool when asked (whole huge pages), else an
 * aligned heap block. NULL with err set. */
static size_t *alloc_block(const struct mem_config *mc, size_t *map, char *err, size_t errlen)
{
    void *p;

    *map = 0;
    if (mc->hugetlb) {
        size_t huge = 2u << 20;
        size_t len = (mc->block + huge - 1) / huge * huge;
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB,
                 -1, 0);
        if (p == MAP_FAILED) {
            snprintf(err, errlen, "cannot allocate %zu bytes from the HugeTLB pool: %s "
                     "(see /proc/sys/vm/nr_hugepages)", len, strerror(errno));
            return NULL;
        }
        *map = len;
        return p;
    }
    p = aligned_alloc(64, (size_t)mc->block);
    if (p == NULL)
        snprintf(err, errlen, "out of memory for a block of %llu bytes",
                 (unsigned long long)mc->block);
    else
        memset(p, 0, (size_t)mc->block);
    return p;
}

static void free_block(size_t *buf, size_t map)
{
    if (map > 0)
        munmap(buf, map);
    else
        free(buf);
}

static void memory_finish(void *cfg)
{
    struct mem_config *mc = cfg;

    if (mc != NULL && mc->global_buf != NULL)
        free_block(mc->global_buf, mc->global_map);
    free(mc);
}

static int pick(const struct sb_optset *opts, const char *name, const char *const *words,
                int *out, char *err, size_t errlen)
{
    const char *v = sb_optset_str(opts, name);

    for (int i = 0; words[i] != NULL; i++)
        if (v != NULL && strcmp(v, words[i]) == 0) {
            *out = i;
            return 0;
        }
    return sb_bi_bad_option(err, errlen, name, v, "one of the values in `sysbench memory help`");
}

/* Checks the options and fills mc with them: 0, or -1 with one line in
 * err. */
static int memory_options_check(const struct sb_optset *opts, struct mem_config *mc, char *err,
                                size_t errlen)
{
    static const char *const scopes[] = { "global", "local", NULL };
    static const char *const opers[] = { "read", "write", "none", NULL };
    static const char *const modes[] = { "seq", "rnd", NULL };
    int64_t block = sb_optset_int(opts, "memory-block-size");
    int64_t total = sb_optset_int(opts, "memory-total-size");
    int scope, oper, mode;

    if (block < (int64_t)sizeof(size_t) || (block & (block - 1)) != 0 || block > (1LL << 40))
        return sb_bi_bad_option(err, errlen, "memory-block-size",
                                sb_optset_str(opts, "memory-block-size"),
                                "a power of two from 8 bytes to 1T");
    if (total < 0)
        return sb_bi_bad_option(err, errlen, "memory-total-size",
                                sb_optset_str(opts, "memory-total-size"), "0 (no limit) or more");
    if (pick(opts, "memory-scope", scopes, &scope, err, errlen) != 0 ||
        pick(opts, "memory-oper", opers, &oper, err, errlen) != 0 ||
        pick(opts, "memory-access-mode", modes, &mode, err, errlen) != 0)
        return -1;
    mc->block = (uint64_t)block;
    mc->total = (uint64_t)total;
    mc->local = scope == 1;
    mc->oper = oper == 0 ? MEM_OPER_READ : oper == 1 ? MEM_OPER_WRITE : MEM_OPER_NONE;
    mc->rnd = mode == 1;
    mc->hugetlb = sb_optset_bool(opts, "memory-hugetlb");
    return 0;
}

static void *memory_configure(const struct sb_optset *opts, char *err, size_t errlen)
{
    struct mem_config *mc = calloc(1, sizeof(*mc));

    if (mc == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (memory_options_check(opts, mc, err, errlen) != 0 ||
        (!mc->local && (mc->global_buf = alloc_block(mc, &mc->global_map, err, errlen)) == NULL)) {
        free(mc);
        return NULL;
    }
    return mc;
}

static void memory_header(const void *cfg, FILE *out)
{
    static const char *const opers[] = { "read", "write", "none" };
    const struct mem_config *mc = cfg;

    fprintf(out, "Running memory speed test with the following options:\n");
    fprintf(out, "  block size: %lluKiB\n", (unsigned long long)(mc->block / 1024));
    fprintf(out, "  total size: %lluMiB\n", (unsigned long long)(mc->total / (1024 * 1024)));
    fprintf(out, "  operation: %s\n", opers[mc->oper]);
    fprintf(out, "  scope: %s\n\n", mc->local ? "local" : "global");
}

static int memory_thread_init(void **ctx, const struct sb_bi_thread *t)
{
    const struct mem_config *mc = t->cfg;
    struct mem_thread *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return SB_BI_ERROR;
    *ctx = c;
    c->cfg = mc;
    c->oper = mc->oper;
    c->rnd_mode = mc->rnd;
    /* Seeded from the worker's stream, so --rand-seed repeats it. */
    c->rnd[0] = sb_rand_next_u64(t->rand) | 1;
    c->rnd[1] = sb_rand_next_u64(t->rand) | 1;
    c->words = (size_t)(mc->block / sizeof(size_t));
    c->mask = c->words - 1;
    c->left = mc->total == 0 ? UINT64_MAX : mc->total / mc->block / t->nthreads;
    c->buf = mc->local ? alloc_block(mc, &c->map, t->err, t->errlen) : mc->global_buf;
    return c->buf != NULL ? 0 : SB_BI_ERROR;
}

/* The word picker of rnd mode: xorshift64* (Vigna), kept in a register
 * over a block; a call into the worker's generator per word would cost
 * more than the access it chooses. One draw a word, as 1.0.20 makes one
 * sb_rand_uniform_double() a word; two independent streams take the even
 * and the odd words, so that the CPU overlaps their draws instead of
 * waiting for each on the one before (perf: the serial chain of shifts
 * was most of the event's time). */
static inline uint64_t next_word(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545F4914F6CDD1DULL;
}

/* Word by word, as 1.0.20 moves a block. The accesses are relaxed
 * atomics (plain moves on x86-64 and arm64): in the global scope the
 * threads share the block, and a race the test means to have must not be
 * undefined behaviour. */
static void touch_block(struct mem_thread *c)
{
    size_t *buf = c->buf, n = c->words, sum = 0, m = c->mask;
    uint64_t x = c->rnd[0], y = c->rnd[1];

    if (c->oper == MEM_OPER_NONE)
        return;
    if (!c->rnd_mode) {
        if (c->oper == MEM_OPER_WRITE)
            for (size_t i = 0; i < n; i++)
                __atomic_store_n(&buf[i], i, __ATOMIC_RELAXED);
        else
            for (size_t i = 0; i < n; i++)
                sum += __atomic_load_n(&buf[i], __ATOMIC_RELAXED);
    } else {
        /* n is a power of two: odd only when 1 (an 8-byte block), whose
         * one word is every pick. */
        if (n == 1) {
            if (c->oper == MEM_OPER_WRITE)
                __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
            else
                sum = __atomic_load_n(&buf[0], __ATOMIC_RELAXED);
        } else if (c->oper == MEM_OPER_WRITE) {
            for (size_t i = 0; i < n; i += 2) {
                __atomic_store_n(&buf[next_word(&x) >> 16 & m], i, __ATOMIC_RELAXED);
                __atomic_store_n(&buf[next_word(&y) >> 16 & m], i + 1, __ATOMIC_RELAXED);
            }
        } else {
            for (size_t i = 0; i < n; i += 2) {
                sum += __atomic_load_n(&buf[next_word(&x) >> 16 & m], __ATOMIC_RELAXED);
                sum += __atomic_load_n(&buf[next_word(&y) >> 16 & m], __ATOMIC_RELAXED);
            }
        }
        c->rnd[0] = x;
        c->rnd[1] = y;
    }
    c->sink = sum;
}

static int memory_event(void *ctx)
{
    struct mem_thread *c = ctx;

    if (c->left == 0)
        return SB_BI_DONE;
    if (c->left != UINT64_MAX)
        c->left--;
    touch_block(c);
    return SB_BI_OK;
}

static int memory_thread_done(void *ctx)
{
    struct mem_thread *c = ctx;

    if (c != NULL && c->cfg->local && c->buf != NULL)
        free_block(c->buf, c->map);
    free(c);
    return 0;
}

static void memory_report(const void *cfg, const struct sb_point_result *p, FILE *out)
{
    const struct mem_config *mc = cfg;
    double secs = p->time_s > 0 ? p->time_s : 1;
    uint64_t ev = p->total->c[SB_STAT_EVENTS];
    double mib = (double)ev * (double)mc->block / (1024.0 * 1024.0);

    fprintf(out, "Total operations: %llu (%8.2f per second)\n\n", (unsigned long long)ev,
            (double)ev / secs);
    if (mc->oper != MEM_OPER_NONE)
        fprintf(out, "%4.2f MiB transferred (%4.2f MiB/sec)\n\n", mib, mib / secs);
}

const struct sb_builtin sb_bi_memory = {
    .name = "memory",
    .description = "Memory functions speed test",
    .options = memory_options,
    .ends_itself = true,
    .configure = memory_configure,
    .print_header = memory_header,
    .thread_init = memory_thread_init,
    .event = memory_event,
    .thread_done = memory_thread_done,
    .report = memory_report,
    .finish = memory_finish,
};
