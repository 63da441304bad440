/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Figures per statement; see sb_stmt_table.h.
 *
 * Each entry is its own anonymous mapping: zero-filled on demand, so the
 * 36 KiB of an entry's histogram cost only the pages its latencies fall
 * in, as sb_stats_new's do (calloc would write every page of a block this
 * size). The writer's stores are relaxed atomics, as sb_histogram's: one
 * writer, so a load and a store cannot lose a count.
 */
#include "pure/sb_stmt_table.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define BUMP(p, v) STORE((p), LOAD(p) + (v))

uint64_t sb_stmt_hash(uint64_t h, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= UINT64_C(1099511628211);
    }
    return h;
}

static struct sb_stmt_entry *entry_new(const char *text, size_t len, uint64_t hash, int kind)
{
    struct sb_stmt_entry *e = mmap(NULL, sizeof(*e), PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (e == MAP_FAILED)
        return NULL;
    e->text = malloc(len + 1);
    if (e->text == NULL) {
        munmap(e, sizeof(*e));
        return NULL;
    }
    memcpy(e->text, text, len);
    e->text[len] = '\0';
    e->len = len;
    e->hash = hash;
    e->kind = kind;
    e->hist.min_ns = UINT64_MAX;
    return e;
}

static void entry_free(struct sb_stmt_entry *e)
{
    if (e != NULL) {
        free(e->text);
        munmap(e, sizeof(*e));
    }
}

struct sb_stmt_table *sb_stmt_table_new(void)
{
    return calloc(1, sizeof(struct sb_stmt_table));
}

void sb_stmt_table_free(struct sb_stmt_table *t)
{
    if (t == NULL)
        return;
    for (unsigned i = 0; i < t->n; i++)
        entry_free(t->e[i]);
    free(t);
}

unsigned sb_stmt_table_size(const struct sb_stmt_table *t)
{
    return __atomic_load_n(&t->n, __ATOMIC_ACQUIRE);
}

#define NBY (2 * SB_STMT_MAX)

/* The index slot of hash: its entry, or the empty slot where it goes. */
static struct sb_stmt_entry **slot_of(struct sb_stmt_table *t, size_t len, uint64_t hash)
{
    size_t i = (size_t)(hash ^ (hash >> 32)) & (NBY - 1);

    while (t->byhash[i] != NULL && (t->byhash[i]->hash != hash || t->byhash[i]->len != len))
        i = (i + 1) & (NBY - 1);
    return &t->byhash[i];
}

static struct sb_stmt_entry *append(struct sb_stmt_table *t, struct sb_stmt_entry *e)
{
    t->e[t->n] = e;
    __atomic_store_n(&t->n, t->n + 1, __ATOMIC_RELEASE);
    return e;
}

struct sb_stmt_entry *sb_stmt_table_get(struct sb_stmt_table *t, const char *text, size_t len,
                                        uint64_t hash, int kind)
{
    struct sb_stmt_entry **slot = slot_of(t, len, hash);
    struct sb_stmt_entry *e = *slot;

    if (e != NULL)
        return e;
    if (t->full)
        return t->e[t->n - 1];
    if (t->n == SB_STMT_MAX) {
        size_t olen = strlen(SB_STMT_OTHER);
        e = entry_new(SB_STMT_OTHER, olen, sb_stmt_hash(SB_STMT_HASH0, SB_STMT_OTHER, olen), kind);
        if (e == NULL)
            return NULL;
        t->full = true;
        return append(t, e);
    }
    e = entry_new(text, len, hash, kind);
    if (e == NULL)
        return NULL;
    *slot = e;
    return append(t, e);
}

void sb_stmt_add_errors(struct sb_stmt_entry *e, unsigned code, const char *state, uint64_t n)
{
    unsigned i, ne = LOAD(&e->nerr);

    if (state == NULL)
        state = "";
    BUMP(&e->errors, n);
    for (i = 0; i < ne; i++)
        if (e->err[i].code == code && strncmp(e->err[i].state, state, 5) == 0)
            break;
    if (i == ne) {
        if (ne == SB_STMT_ERR_MAX) {
            /* The last slot is the catch-all "other" from here on. */
            i = ne - 1;
            e->err[i].code = 0;
            memcpy(e->err[i].state, "other", 6);
        } else {
            e->err[i].code = code;
            strncpy(e->err[i].state, state, 5);
            e->err[i].state[5] = '\0';
            __atomic_store_n(&e->nerr, ne + 1, __ATOMIC_RELEASE);
        }
    }
    BUMP(&e->err[i].n, n);
}

void sb_stmt_record_error(struct sb_stmt_entry *e, uint64_t ns, unsigned code, const char *state)
{
    sb_hist_record(&e->hist, ns);
    sb_stmt_add_errors(e, code, state, 1);
}

/* Empties h touching only the buckets between its extremes (the others
 * are empty), so a reset keeps untouched pages untouched. */
static void hist_clear(struct sb_hist *h)
{
    if (LOAD(&h->total) > 0) {
        size_t lo = sb_hist_bucket_of(LOAD(&h->min_ns));
        size_t hi = sb_hist_bucket_of(LOAD(&h->max_ns));
        for (size_t b = lo; b <= hi && b < SB_HIST_BUCKETS; b++)
            STORE(&h->counts[b], 0);
        STORE(&h->counts[SB_HIST_BUCKETS - 1], 0);
    }
    STORE(&h->total, 0);
    STORE(&h->sum_ns, 0);
    STORE(&h->min_ns, UINT64_MAX);
    STORE(&h->max_ns, 0);
    STORE(&h->clamped, 0);
}

void sb_stmt_table_reset(struct sb_stmt_table *t)
{
    for (unsigned i = 0; i < t->n; i++) {
        struct sb_stmt_entry *e = t->e[i];
        hist_clear(&e->hist);
        STORE(&e->count, 0);
        STORE(&e->errors, 0);
        STORE(&e->rows, 0);
        STORE(&e->affected, 0);
        for (unsigned k = 0; k < SB_STMT_ERR_MAX; k++)
            STORE(&e->err[k].n, 0);
    }
}

int sb_stmt_table_merge(struct sb_stmt_table *dst, const struct sb_stmt_table *src)
{
    unsigned n = sb_stmt_table_size(src);

    for (unsigned i = 0; i < n; i++) {
        const struct sb_stmt_entry *s = src->e[i];
        struct sb_stmt_entry *d;
        unsigned ne = __atomic_load_n(&s->nerr, __ATOMIC_ACQUIRE);

        d = sb_stmt_table_get(dst, s->text, s->len, s->hash, s->kind);
        if (d == NULL)
            return -1;
        sb_hist_accumulate(&d->hist, &s->hist);
        d->count += LOAD(&s->count);
        d->rows += LOAD(&s->rows);
        d->affected += LOAD(&s->affected);
        for (unsigned k = 0; k < ne; k++) {
            uint64_t c = LOAD(&s->err[k].n);
            if (c > 0)
                sb_stmt_add_errors(d, s->err[k].code, s->err[k].state, c);
        }
    }
    return 0;
}

static int by_total(const void *a, const void *b)
{
    const struct sb_stmt_entry *x = *(struct sb_stmt_entry *const *)a;
    const struct sb_stmt_entry *y = *(struct sb_stmt_entry *const *)b;

    if (x->hist.sum_ns != y->hist.sum_ns)
        return x->hist.sum_ns > y->hist.sum_ns ? -1 : 1;
    return strcmp(x->text, y->text);
}

void sb_stmt_table_sort(struct sb_stmt_table *t)
{
    qsort(t->e, t->n, sizeof(t->e[0]), by_total);
}
