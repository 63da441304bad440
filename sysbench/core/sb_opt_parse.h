/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_OPT_PARSE_H
#define SB_OPT_PARSE_H

/*
 * Option value parsers: what a value of each option type may look like.
 * Used by the option sets (sb_options.h), the config loaders and the Lua
 * layer, so a value means the same wherever it is written.
 *
 * Pure: no globals, no I/O. The parsers only read their input and write
 * *out on success; on failure they return -1 and leave *out as it was, so
 * the caller words the error (sb_opt_expected_form gives the "expected
 * ..." part).
 *
 * Types and accepted syntax (sysbench 1.0's):
 *   BOOL    on/off, true/false, yes/no, 1/0 (any case); a bare --name means on
 *   INT     a signed decimal integer
 *   SIZE    an integer with an optional K/M/G/T suffix (powers of 1024)
 *   DOUBLE  a decimal number (no inf, nan, hexadecimal or white space)
 *   STRING  any text
 *   LIST    comma-separated items (an empty value is an empty list)
 *   FILE    a path (not checked here)
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sb_opt_type {
    SB_ARG_BOOL,
    SB_ARG_INT,
    SB_ARG_SIZE,
    SB_ARG_DOUBLE,
    SB_ARG_STRING,
    SB_ARG_LIST,
    SB_ARG_FILE
};

/* Value parsers, shared with the Lua layer. Each returns 0, or -1 when s
 * is NULL, malformed or out of range (INT64 for INT and SIZE, finite
 * double for DOUBLE). */
int sb_parse_bool(const char *s, bool *out);
int sb_parse_int(const char *s, int64_t *out);
int sb_parse_size(const char *s, int64_t *out);
int sb_parse_double(const char *s, double *out);

/*
 * Splits a LIST value on commas into trimmed items: *items_out gets an
 * array of *n_out strings, all owned by the caller (free them with
 * sb_parse_list_free). An empty or blank value (and NULL) gives no array
 * and a count of 0. Returns 0, or -1 when out of memory (nothing left
 * allocated).
 */
int sb_parse_list(const char *s, char ***items_out, size_t *n_out);

/* Frees n items and their array as sb_parse_list made them; NULL is
 * allowed. */
void sb_parse_list_free(char **items, size_t n);

/* What a value of the type must look like, for error messages:
 * "an integer", "on/off" ... A static string. */
const char *sb_opt_expected_form(enum sb_opt_type type);

/* The span of s[0, len) without leading and trailing white space: its
 * start in *start (inside s) and its length in *out_len. Shared by the
 * option value and argv parsers. */
void sb_opt_trim_span(const char *s, size_t len, const char **start, size_t *out_len);

#endif /* SB_OPT_PARSE_H */
