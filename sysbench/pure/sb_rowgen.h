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
 * A third form is PostgreSQL's binary COPY row (sb_rowgen_bin), for
 * target columns whose types are known: it spares the server parsing
 * text, and stores what the text would have.
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
 * most bytes one row takes in any of the three formats in *row_max (the
 * writers may also put a NUL after the row, within that bound), or -1
 * with a one-line reason in err.
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

/*
 * PostgreSQL's binary COPY: how a column's values are written, from the
 * target column's type. An integer type takes the value in its width,
 * big-endian (int2, int4, int8); a character type (text, varchar,
 * bpchar) takes the bytes the text format would carry.
 */
enum sb_rowgen_bin {
    SB_ROWGEN_BIN_BYTES = 0,
    SB_ROWGEN_BIN_INT2 = 2,
    SB_ROWGEN_BIN_INT4 = 4,
    SB_ROWGEN_BIN_INT8 = 8
};

/*
 * Whether rows first..last of the template (checked) can go in binary
 * to columns written as bin[0..n-1] says (enum sb_rowgen_bin). A string
 * needs a character column and an ASCII template; a number (the id, a
 * draw) a character column (its decimal digits) or an integer type
 * that holds every value the column can give: ids first..last, a draw's
 * whole range. Returns 1, or 0 when not: then the text format, whose
 * input functions judge the values (an out-of-range value fails there
 * as it always did, instead of being cut to the width).
 */
int sb_rowgen_bin_fits(const struct sb_rowgen_col *cols, unsigned n, const uint8_t *bin,
                       int64_t first, int64_t last);

/* Writes row id as one row of binary COPY to dst (room for *row_max
 * bytes): the field count (int16), then per field its length (int32)
 * and bytes, in network order. Returns its length. */
size_t sb_rowgen_bin(struct sb_rand *r, const struct sb_rowgen_col *cols, unsigned n,
                     const uint8_t *bin, int64_t id, char *dst);

#endif /* SB_ROWGEN_H */
