/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_BULK_ROWS_H
#define SB_BULK_ROWS_H

/*
 * The text of bulk inserts (con:bulk_insert_init/next in scripts): the
 * statement's head ("INSERT INTO t (a, b) VALUES") and the rows scripts
 * pass, SQL value tuples such as "(1, 'x''y', NULL)". Read here so that
 * the bulk loader (sb_db_bulk.h) can
 *
 *  - name a malformed row (an unterminated string, unbalanced
 *    parentheses, a value count other than the first row's) before it
 *    reaches the server, and
 *  - hand plain literals (integers, strings, NULL) to the server's bulk
 *    path, COPY or LOAD DATA, as tab-separated text, or bind them to a
 *    prepared INSERT (SQLite), with the same values the INSERT would have
 *    stored. Anything else (an expression, a decimal or float whose
 *    conversion depends on the column's type) is "other": the loader then
 *    keeps the INSERT text for it.
 *
 * Pure functions over caller-owned text; no allocation.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a value is. */
enum sb_bulk_kind {
    SB_BULK_NULL,      /* NULL */
    SB_BULK_INT,       /* an integer written as its own value: 0, -12 */
    SB_BULK_STR,       /* one quoted string literal '...' */
    SB_BULK_OTHER      /* anything else: kept as SQL text */
};

/* One value of a tuple: where it is in the row text (for a string, the
 * text between the quotes, escapes still in it). */
struct sb_bulk_field {
    uint32_t off, len;
    uint8_t kind;      /* enum sb_bulk_kind */
    uint8_t escaped;   /* a string holding '' or a backslash escape */
};

/* Reading position in one row text. */
struct sb_bulk_cursor {
    const char *s;
    size_t len, pos;
    /* Backslash escapes in string literals ('\'' is a quote): MySQL
     * without NO_BACKSLASH_ESCAPES, PostgreSQL with
     * standard_conforming_strings off. */
    bool backslash;
    unsigned tuples;   /* tuples read so far */
    /* After -1 from sb_bulk_next_tuple: what was wrong, and where. */
    const char *why;
    size_t at;
};

/* Starts reading text s (len bytes). */
void sb_bulk_cursor_init(struct sb_bulk_cursor *c, const char *s, size_t len, bool backslash);

/*
 * Reads the next tuple "( v1, v2, ... )" (a row text may hold several,
 * separated by commas, as one INSERT's VALUES list does). Returns 1 with
 * its value count in *nf and the first min(*nf, maxf) values in f; 0 at
 * the end of the text (after at least one tuple; an empty text is
 * malformed); -1 when the text is malformed (c->why, c->at say why and
 * where).
 */
int sb_bulk_next_tuple(struct sb_bulk_cursor *c, struct sb_bulk_field *f, unsigned maxf,
                       unsigned *nf);

/*
 * Writes value f of text s as one field of tab-separated text (PostgreSQL's
 * COPY text format and MySQL's LOAD DATA default: backslash escapes for
 * backslash, tab, newline and carriage return, \N for NULL) to dst, which
 * holds at least 2 * f->len + 2 bytes. f must not be SB_BULK_OTHER.
 * Returns the bytes written.
 */
size_t sb_bulk_tsv_value(const char *s, const struct sb_bulk_field *f, bool backslash,
                         char *dst);

/* Writes the value of string field f (quotes removed, escapes applied) to
 * dst (at least f->len bytes); returns its length. */
size_t sb_bulk_unquote(const char *s, const struct sb_bulk_field *f, bool backslash,
                       char *dst);

/* The target of an INSERT head. */
#define SB_BULK_MAX_NAME 512
struct sb_bulk_target {
    char table[SB_BULK_MAX_NAME];   /* as written: may be quoted or qualified */
    char cols[4 * SB_BULK_MAX_NAME];/* "(a, b)" as written, or "" */
    unsigned ncols;                 /* 0 without a column list */
};

/*
 * Reads an INSERT head "INSERT INTO name [(col, ...)] VALUES" (any case,
 * any spacing; names plain, qualified or quoted). Returns 0, or -1 when
 * the head is anything else (INSERT IGNORE, REPLACE, ON DUPLICATE ...,
 * SELECT): such a bulk insert keeps the INSERT text.
 */
int sb_bulk_parse_head(const char *s, size_t len, struct sb_bulk_target *t);

#endif /* SB_BULK_ROWS_H */
