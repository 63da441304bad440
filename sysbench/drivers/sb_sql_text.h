/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_SQL_TEXT_H
#define SB_SQL_TEXT_H

/*
 * Reading SQL text the way the driver layer needs it: where the '?'
 * placeholders are, and whether a statement reads or writes.
 *
 * Pure: no globals, no allocation, no I/O; every function only reads
 * sql[0, len) (the text need not be NUL-terminated and is never kept),
 * so a caller on the per-query path pays nothing but the scan. Nothing
 * here can fail: text that is not SQL gives "no placeholder" and
 * SB_QUERY_OTHER. Unit-tested in tests/unit/check_sb_sql_text.c.
 *
 * Quoting rule: a ', " or ` opens a quoted span closed by the same
 * character; a doubled quote ('it''s') closes and reopens, so what it
 * encloses stays quoted. Comments are not recognised: a '?' in a
 * comment counts, as it did in sysbench 1.0's emulation.
 */

#include <stddef.h>

/* How a query is counted in the report. */
enum sb_query_kind { SB_QUERY_READ, SB_QUERY_WRITE, SB_QUERY_OTHER };

/* Index of the first '?' placeholder outside quotes at or after `from`
 * (which must be outside quotes), or len when there is none. The one
 * place that says what a placeholder is, for counting, for the emulation
 * and for drivers that rewrite placeholders. */
size_t sb_sql_next_placeholder(const char *sql, size_t len, size_t from);

/* Counts '?' placeholders outside quotes. */
unsigned sb_sql_count_placeholders(const char *sql, size_t len);

/* Classifies a statement by its first keyword, skipping leading white
 * space and opening parentheses, case-insensitively: SELECT is a read;
 * INSERT, UPDATE, DELETE, REPLACE are writes; anything else (BEGIN,
 * WITH, an empty text, a keyword cut short by len) is other. */
enum sb_query_kind sb_sql_classify(const char *sql, size_t len);

/*
 * The normalised form of a statement text, which names a statement in the
 * figures per statement (pure/sb_stmt_table.h): string literals ('...')
 * and numbers (outside identifiers, also 0x.. and 1.5e3) become '?', as do
 * PostgreSQL's $N placeholders; each run of white space becomes one space
 * and leading and trailing space goes. Identifiers, keywords, "..." and
 * `...` stay as they are. Writes at most cap bytes to out (no NUL) and
 * returns the full normalised length, which may exceed cap: a caller
 * keeps the first cap bytes as the name.
 */
size_t sb_sql_normalise(const char *sql, size_t len, char *out, size_t cap);

#endif /* SB_SQL_TEXT_H */
