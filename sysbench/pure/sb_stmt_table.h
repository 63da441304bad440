/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_STMT_TABLE_H
#define SB_STMT_TABLE_H

/*
 * Figures per statement (issue 31, pgbench's -r): one entry per distinct
 * normalised statement text (literals replaced by '?', see
 * drivers/sb_sql_text.h), each with its executions, errors by code, rows
 * returned and a latency histogram (pure/sb_histogram.h, so entries of
 * the same text merge exactly across threads and result files).
 *
 * One table per client thread, written only by that thread: an entry is
 * found by text once (when a statement is prepared, or the first time an
 * unprepared text is seen) and the writer keeps the pointer, so recording
 * an execution is a few relaxed stores and a histogram record, with no
 * allocation and no lookup. Other threads may read a table at any time:
 * entries are never moved or freed while the table lives, the entry array
 * has a fixed capacity and n is published with release order after the
 * entry is complete. Pure: no threads, no I/O.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pure/sb_histogram.h"

/* Distinct texts kept per table; later ones share the overflow entry
 * (text SB_STMT_OTHER), so a run over 16,000 tables (a text per table)
 * keeps its memory bounded. */
#define SB_STMT_MAX 256
#define SB_STMT_OTHER "(other statements)"
/* Distinct error codes kept per entry; later codes count under code 0
 * with state "other". */
#define SB_STMT_ERR_MAX 6

struct sb_stmt_err {
    unsigned code;         /* the driver's error number */
    char state[6];         /* SQLSTATE, "" when none */
    uint64_t n;
};

struct sb_stmt_entry {
    char *text;            /* normalised text, NUL-ended (owned) */
    size_t len;
    uint64_t hash;         /* sb_stmt_hash of text */
    int kind;              /* the caller's classification (sb_query_kind) */
    uint64_t count;        /* executions completed without error */
    uint64_t errors;       /* executions that failed (all codes) */
    uint64_t rows;         /* rows returned by the successful ones */
    uint64_t affected;     /* rows changed by them (INSERT/UPDATE/DELETE) */
    unsigned nerr;
    struct sb_stmt_err err[SB_STMT_ERR_MAX];
    /* Latency of every execution, failed or not (ns): hist.total is
     * count + errors. Last, so that the pages of untouched buckets of
     * this zero-filled mapping stay untouched. */
    struct sb_hist hist;
};

struct sb_stmt_table {
    unsigned n;            /* entries in use (atomic: release/acquire) */
    bool full;             /* the overflow entry is the last one */
    struct sb_stmt_entry *e[SB_STMT_MAX + 1];
    /* The writer's index of e by hash (open addressing, never more than
     * half full): an unprepared text is found per execution by its hash
     * and length, without comparing texts. */
    struct sb_stmt_entry *byhash[2 * SB_STMT_MAX];
};

/* FNV-1a over len bytes, folded into h (start with SB_STMT_HASH0). */
#define SB_STMT_HASH0 UINT64_C(1469598103934665603)
uint64_t sb_stmt_hash(uint64_t h, const char *s, size_t len);

/* A new empty table, or NULL out of memory. Free with sb_stmt_table_free. */
struct sb_stmt_table *sb_stmt_table_new(void);
void sb_stmt_table_free(struct sb_stmt_table *t);

/*
 * The entry of the normalised text (len bytes, hash from sb_stmt_hash),
 * made on first sight with kind. Texts are told apart by their 64-bit
 * hash and length (equal ones are taken as the same text). Only the
 * table's writer calls it. Beyond
 * SB_STMT_MAX texts: the overflow entry. Returns NULL only when out of
 * memory (the caller then records nothing).
 */
struct sb_stmt_entry *sb_stmt_table_get(struct sb_stmt_table *t, const char *text, size_t len,
                                        uint64_t hash, int kind);

/* Records one execution that took ns: ok with rows returned and rows
 * affected (changed), or failed with the error code and SQLSTATE (state
 * may be NULL). Writer only. The first is inline: it runs for every
 * statement (relaxed stores, as sb_hist_record's). */
static inline void sb_stmt_record_ok(struct sb_stmt_entry *e, uint64_t ns, uint64_t rows,
                                     uint64_t affected)
{
    sb_hist_record(&e->hist, ns);
    __atomic_store_n(&e->count, __atomic_load_n(&e->count, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&e->rows, __atomic_load_n(&e->rows, __ATOMIC_RELAXED) + rows,
                     __ATOMIC_RELAXED);
    if (affected > 0)
        __atomic_store_n(&e->affected, __atomic_load_n(&e->affected, __ATOMIC_RELAXED) + affected,
                         __ATOMIC_RELAXED);
}

void sb_stmt_record_error(struct sb_stmt_entry *e, uint64_t ns, unsigned code, const char *state);

/* Empties every entry's figures, keeping the entries (the writer, at the
 * end of the warm-up: pointers held by statements stay valid). */
void sb_stmt_table_reset(struct sb_stmt_table *t);

/*
 * Adds src's figures into dst, entry by entry matched by text (new texts
 * appended; the overflow entry of either side goes to dst's). Reads src
 * atomically, so its writer may go on (the few executions in flight may
 * be missed); dst is the caller's own. Returns 0, or -1 out of memory.
 */
int sb_stmt_table_merge(struct sb_stmt_table *dst, const struct sb_stmt_table *src);

/* Adds one error count to e (a merge's form of record_error, no latency). */
void sb_stmt_add_errors(struct sb_stmt_entry *e, unsigned code, const char *state, uint64_t n);

/* Number of entries a reader may look at (acquire). */
unsigned sb_stmt_table_size(const struct sb_stmt_table *t);

/* Order for reports: by total latency (sum), largest first, then text. */
void sb_stmt_table_sort(struct sb_stmt_table *t);

#endif /* SB_STMT_TABLE_H */
