/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live histograms with their buckets in pooled chunks; see sb_hist_live.h.
 */
#include "pure/sb_hist_live.h"

#include <string.h>
#include <sys/mman.h>

#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

#define CHUNK_BYTES (SB_HLIVE_CHUNK * sizeof(uint64_t))

int sb_hist_pool_init(struct sb_hist_pool *p, unsigned nhists)
{
    size_t n = (size_t)(nhists ? nhists : 1) * SB_HLIVE_CHUNKS;
    void *m;

    memset(p, 0, sizeof(*p));
    if (n > UINT32_MAX - 1)
        return -1;
    /* Address space only: the kernel gives a page when a chunk on it is
     * first written. MAP_NORESERVE because the worst case (every bucket of
     * every histogram) is reserved and almost none of it is ever used.
     * Chunk 0 is never handed out (0 means "none yet"), so a chunk's
     * number times its size is its offset. */
    m = mmap(NULL, (n + 1) * CHUNK_BYTES, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    p->base = m;
    p->size = (n + 1) * CHUNK_BYTES;
    return 0;
}

void sb_hist_pool_destroy(struct sb_hist_pool *p)
{
    if (p->base != NULL)
        munmap(p->base, p->size);
    memset(p, 0, sizeof(*p));
}

size_t sb_hist_pool_used(const struct sb_hist_pool *p)
{
    return (size_t)__atomic_load_n(&p->taken, __ATOMIC_RELAXED) * CHUNK_BYTES;
}

void sb_hist_live_init(struct sb_hist_live *h, struct sb_hist_pool *pool)
{
    memset(h, 0, sizeof(*h));
    h->min_ns = UINT64_MAX;
    h->hot_c = SB_HLIVE_CHUNKS;
    h->pool = pool;
}

/* The counts of chunk number id (as stored in chunk[]). */
static uint64_t *chunk_at(const struct sb_hist_pool *p, uint32_t id)
{
    return p->base + ((size_t)id << SB_HLIVE_CHUNK_BITS);
}

void sb_hist_live_reset(struct sb_hist_live *h)
{
    for (size_t c = 0; c < SB_HLIVE_CHUNKS; c++) {
        uint64_t *cnt;
        if (h->chunk[c] == 0)
            continue;
        cnt = chunk_at(h->pool, h->chunk[c]);
        for (unsigned i = 0; i < SB_HLIVE_CHUNK; i++)
            STORE(&cnt[i], 0);
    }
    STORE(&h->total, 0);
    STORE(&h->sum_ns, 0);
    STORE(&h->min_ns, UINT64_MAX);
    STORE(&h->max_ns, 0);
    STORE(&h->clamped, 0);
}

uint64_t *sb_hist_live_count(struct sb_hist_live *h, size_t b)
{
    size_t c = b >> SB_HLIVE_CHUNK_BITS;
    uint32_t id = h->chunk[c];

    if (id == 0) {
        /* The pool holds every chunk of every histogram it was sized for,
         * and a histogram takes each of its chunks once: the count cannot
         * pass the chunks reserved. The chunk's memory is fresh (zero)
         * and nobody else's. */
        id = __atomic_add_fetch(&h->pool->taken, 1, __ATOMIC_RELAXED);
        /* Release: a reader that sees the number sees the chunk's zeros
         * before any count the owner stores into it. */
        __atomic_store_n(&h->chunk[c], id, __ATOMIC_RELEASE);
    }
    h->hot = chunk_at(h->pool, id);
    h->hot_c = c;
    return h->hot + (b & (SB_HLIVE_CHUNK - 1));
}

void sb_hist_live_accumulate(struct sb_hist *dst, const struct sb_hist_live *src)
{
    uint64_t min = LOAD(&src->min_ns), max = LOAD(&src->max_ns);

    for (size_t c = 0; c < SB_HLIVE_CHUNKS; c++) {
        uint32_t id = __atomic_load_n(&src->chunk[c], __ATOMIC_ACQUIRE);
        const uint64_t *cnt;
        if (id == 0)
            continue;
        cnt = chunk_at(src->pool, id);
        for (unsigned i = 0; i < SB_HLIVE_CHUNK; i++)
            dst->counts[c * SB_HLIVE_CHUNK + i] += LOAD(&cnt[i]);
    }
    dst->total += LOAD(&src->total);
    dst->sum_ns += LOAD(&src->sum_ns);
    dst->clamped += LOAD(&src->clamped);
    if (min < dst->min_ns)
        dst->min_ns = min;
    if (max > dst->max_ns)
        dst->max_ns = max;
}
