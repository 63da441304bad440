/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_ROWGEN_H
#define SB_ROWGEN_H

/*
 * Generated rows for bulk loads (con:bulk_insert_rows in scripts): a row
 * template of columns, each the row's number, a random integer or a
 * random string, written as one row of tab-separated text (COPY's and
 * LOAD DATA's input) or as an SQL value tuple, drawing from the caller's
 * generator exactly what the Lua a script would run draws:
 *
 *   string.format("(%d, %d, '%s')", id, sysbench.rand.default(a, b),
 *                 sysbench.rand.string(fmt))
 *
 * writes the tuple sb_rowgen_sql writes for {ID, RAND(default, a, b),
 * STRING(fmt)} and leaves the generator in the same state, so a table
 * loaded either way holds the same rows for the same --rand-seed.
 *
 * Pure: no allocation, the caller owns every buffer.
 */

#include <stddef.h>
#include <stdint.h>

#include "pure/sb_rand.h"

enum sb_rowgen_kind {
    SB_ROWGEN_ID,       /* the row's number */
    SB_ROWGEN_RAND,     /* sysbench.rand.<dist>(a, b) */
    SB_ROWGEN_STRING    /* sysbench.rand.string(fmt) */
};

/* SB_ROWGEN_RAND's dist for sysbench.rand.default (--rand-type). */
#define SB_ROWGEN_DIST_DEFAULT (-1)

/* One column of the template (the layout sysbench_sql.lua declares). */
struct sb_rowgen_col {
    int32_t kind;       /* enum sb_rowgen_kind */
    int32_t dist;       /* RAND: enum sb_rand_dist or SB_ROWGEN_DIST_DEFAULT */
    uint32_t a, b;      /* RAND: the range, converted as sysbench.rand's */
    const char *fmt;    /* STRING: the template ('#' digit, '@' letter); borrowed */
    size_t fmt_len;
};

/*
 * Checks a template of n columns: known kinds and distributions, string
 * templates of printable characters without a backslash (whose
 * escaping differs between servers and formats). Returns 0 with the
 * most bytes one row takes in either format in *row_max, or -1 with a
 * one-line reason in err.
 */
int sb_rowgen_check(const struct sb_rowgen_col *cols, unsigned n, size_t *row_max, char *err,
                    size_t errlen);

/* Writes row id as one '\n'-ended line of tab-separated values to dst
 * (room for *row_max bytes); returns its length. */
size_t sb_rowgen_tsv(struct sb_rand *r, const struct sb_rowgen_col *cols, unsigned n,
                     int64_t id, char *dst);

/* Writes row id as an SQL tuple "(1, 2, 'x')" to dst (room for *row_max
 * bytes; quotes in templates doubled); returns its length. */
size_t sb_rowgen_sql(struct sb_rand *r, const struct sb_rowgen_col *cols, unsigned n,
                     int64_t id, char *dst);

#endif /* SB_ROWGEN_H */
