/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Generated rows; see sb_rowgen.h.
 */
#include "pure/sb_rowgen.h"

#include <stdio.h>
#include <string.h>

#include "pure/sb_decimal.h"

/* "-9223372036854775808": the longest integer. */
#define INT_MAX_DIGITS 20

int sb_rowgen_check(const struct sb_rowgen_col *cols, unsigned n, size_t *row_max, char *err,
                    size_t errlen)
{
    size_t max = 2;

    if (n == 0) {
        snprintf(err, errlen, "a row needs at least one column");
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        const struct sb_rowgen_col *c = &cols[i];
        if (c->kind == SB_ROWGEN_ID) {
            max += INT_MAX_DIGITS;
        } else if (c->kind == SB_ROWGEN_RAND) {
            if (c->dist != SB_ROWGEN_DIST_DEFAULT &&
                (c->dist < SB_RAND_UNIFORM || c->dist > SB_RAND_ZIPFIAN)) {
                snprintf(err, errlen, "column %u: unknown distribution %d", i + 1, c->dist);
                return -1;
            }
            max += INT_MAX_DIGITS;
        } else if (c->kind == SB_ROWGEN_STRING) {
            for (size_t k = 0; k < c->fmt_len; k++) {
                unsigned char ch = (unsigned char)c->fmt[k];
                if (ch < 0x20 || ch == 0x7f || ch == '\\') {
                    snprintf(err, errlen, "column %u: the string template has a control "
                             "character or a backslash at character %zu", i + 1, k + 1);
                    return -1;
                }
            }
            /* Every quote doubled, and the two around it. */
            max += 2 * c->fmt_len + 2;
        } else {
            snprintf(err, errlen, "column %u: unknown kind %d", i + 1, c->kind);
            return -1;
        }
        /* A separator (", ", a tab, the newline) or binary's field
         * length, which precedes at most 20 digits or the string (and
         * the NUL sb_rand_next_string puts after it). */
        max += 4;
    }
    *row_max = max;
    return 0;
}

/* A number column's value: the id, or a draw from its distribution. */
static int64_t draw_number(struct sb_rand *r, const struct sb_rowgen_col *c, int64_t id)
{
    if (c->kind == SB_ROWGEN_ID)
        return id;
    if (c->dist == SB_ROWGEN_DIST_DEFAULT)
        return sb_rand_next_wrapped_default(r, c->a, c->b);
    return sb_rand_next_wrapped(r, (enum sb_rand_dist)c->dist, c->a, c->b);
}

/* A number column written at dst in decimal; returns its length. */
static size_t put_number(struct sb_rand *r, const struct sb_rowgen_col *c, int64_t id, char *dst)
{
    return sb_decimal_i64(dst, draw_number(r, c, id));
}

size_t sb_rowgen_tsv(struct sb_rand *r, const struct sb_rowgen_col *cols, unsigned n,
                     int64_t id, char *dst)
{
    size_t at = 0;

    for (unsigned i = 0; i < n; i++) {
        const struct sb_rowgen_col *c = &cols[i];
        if (c->kind != SB_ROWGEN_STRING)
            at += put_number(r, c, id, dst + at);
        else
            at += sb_rand_next_string(r, c->fmt, c->fmt_len, dst + at, c->fmt_len + 1);
        dst[at++] = i + 1 < n ? '\t' : '\n';
    }
    return at;
}

/* Doubles the quotes of the string just written at s (len bytes, room
 * for twice as many); returns its new length. */
static size_t double_quotes(char *s, size_t len)
{
    size_t quotes = 0, to;

    for (size_t k = 0; k < len; k++)
        quotes += s[k] == '\'';
    if (quotes == 0)
        return len;
    to = len + quotes;
    for (size_t k = len; k-- > 0;) {
        s[--to] = s[k];
        if (s[k] == '\'')
            s[--to] = '\'';
    }
    return len + quotes;
}

size_t sb_rowgen_sql(struct sb_rand *r, const struct sb_rowgen_col *cols, unsigned n,
                     int64_t id, char *dst)
{
    size_t at = 0;

    dst[at++] = '(';
    for (unsigned i = 0; i < n; i++) {
        const struct sb_rowgen_col *c = &cols[i];
        if (i > 0) {
            dst[at++] = ',';
            dst[at++] = ' ';
        }
        if (c->kind != SB_ROWGEN_STRING) {
            at += put_number(r, c, id, dst + at);
        } else {
            size_t len;
            dst[at++] = '\'';
            len = sb_rand_next_string(r, c->fmt, c->fmt_len, dst + at, c->fmt_len + 1);
            at += double_quotes(dst + at, len);
            dst[at++] = '\'';
        }
    }
    dst[at++] = ')';
    return at;
}

/* ------------------------------------------------------------ binary */

/* The values a number column can give: [*lo, *hi]. */
static void number_range(const struct sb_rowgen_col *c, int64_t first, int64_t last,
                         int64_t *lo, int64_t *hi)
{
    if (c->kind == SB_ROWGEN_ID) {
        *lo = first;
        *hi = last;
    } else if (c->a <= c->b) {
        *lo = c->a;
        *hi = c->b;
    } else {
        /* A range that wraps through 2^32 - 1 to 0 (sb_rand.h). */
        *lo = 0;
        *hi = UINT32_MAX;
    }
}

static int ascii(const char *s, size_t len)
{
    for (size_t k = 0; k < len; k++)
        if ((unsigned char)s[k] >= 0x80)
            return 0;
    return 1;
}

int sb_rowgen_bin_fits(const struct sb_rowgen_col *cols, unsigned n, const uint8_t *bin,
                       int64_t first, int64_t last)
{
    for (unsigned i = 0; i < n; i++) {
        const struct sb_rowgen_col *c = &cols[i];
        int64_t lo, hi, max;

        if (c->kind == SB_ROWGEN_STRING) {
            /* ASCII is the same bytes in every server encoding, and
             * unchanged by any client encoding's conversion. */
            if (bin[i] != SB_ROWGEN_BIN_BYTES || !ascii(c->fmt, c->fmt_len))
                return 0;
            continue;
        }
        if (bin[i] == SB_ROWGEN_BIN_BYTES || bin[i] == SB_ROWGEN_BIN_INT8)
            continue;
        if (bin[i] == SB_ROWGEN_BIN_INT4)
            max = INT32_MAX;
        else if (bin[i] == SB_ROWGEN_BIN_INT2)
            max = INT16_MAX;
        else
            return 0;
        number_range(c, first, last, &lo, &hi);
        if (lo < -max - 1 || hi > max)
            return 0;
    }
    return 1;
}

static void put_be(char *dst, uint64_t v, unsigned width)
{
    for (unsigned k = width; k-- > 0;) {
        dst[k] = (char)(v & 0xff);
        v >>= 8;
    }
}

size_t sb_rowgen_bin(struct sb_rand *r, const struct sb_rowgen_col *cols, unsigned n,
                     const uint8_t *bin, int64_t id, char *dst)
{
    size_t at = 2, len;

    put_be(dst, n, 2);
    for (unsigned i = 0; i < n; i++) {
        const struct sb_rowgen_col *c = &cols[i];
        /* The field's bytes after its length. */
        char *v = dst + at + 4;

        if (c->kind == SB_ROWGEN_STRING) {
            len = sb_rand_next_string(r, c->fmt, c->fmt_len, v, c->fmt_len + 1);
        } else if (bin[i] == SB_ROWGEN_BIN_BYTES) {
            len = put_number(r, c, id, v);
        } else {
            len = bin[i];
            put_be(v, (uint64_t)draw_number(r, c, id), bin[i]);
        }
        put_be(dst + at, len, 4);
        at += 4 + len;
    }
    return at;
}
