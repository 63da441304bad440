/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_JSON_WRITE_H
#define SB_JSON_WRITE_H

/*
 * A streaming JSON writer (RFC 8259) that writes straight to a FILE: no
 * document tree and no allocation, so writing a result file costs nothing
 * but the stdio buffer. The writer keeps only the nesting state (which
 * containers are open and whether a member has been written in each), so
 * it inserts the commas, colons and indentation itself.
 *
 * Usage:
 *
 *   struct sb_json j;
 *   sb_json_init(&j, fp, true);
 *   sb_json_begin_object(&j);
 *   sb_json_key(&j, "tps");
 *   sb_json_double(&j, 412.5);
 *   sb_json_end_object(&j);
 *   if (sb_json_finish(&j) != 0) ... write error ...
 *
 * Inside an object every value must be preceded by sb_json_key (the
 * sb_json_kv_* helpers do both). Misuse (a value without a key in an
 * object, unbalanced ends, nesting deeper than SB_JSON_MAX_DEPTH) is a
 * programming error: it is recorded and makes sb_json_finish fail rather
 * than write an invalid document silently.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Deepest nesting of objects and arrays the writer tracks. */
#define SB_JSON_MAX_DEPTH 32

enum sb_json_container {
    SB_JSON_IN_OBJECT,
    SB_JSON_IN_ARRAY
};

struct sb_json {
    FILE *out;                 /* borrowed */
    bool pretty;               /* newlines and two-space indentation */
    int depth;                 /* open containers */
    enum sb_json_container kind[SB_JSON_MAX_DEPTH];
    bool has_members[SB_JSON_MAX_DEPTH];
    /* Containers opened "inline" print on one line even when pretty;
     * inline_from is the depth of the outermost inline one (or -1). */
    int inline_from;
    bool top_written;          /* the document's one top-level value */
    bool after_key;            /* a key was written; its value is due */
    bool misuse;               /* a call broke the grammar */
};

/* Starts a document on out (borrowed; the caller opens and closes it).
 * With pretty, members go on their own indented lines. */
void sb_json_init(struct sb_json *j, FILE *out, bool pretty);

/*
 * Ends the document: writes the final newline and flushes out. Returns 0,
 * or -1 if a container is still open, the calls broke the JSON grammar, or
 * the stream reported a write error (errno is then that of the stream).
 */
int sb_json_finish(struct sb_json *j);

/* Opens and closes containers. The _inline variants keep the container
 * and everything in it on one line (for short arrays such as histogram
 * buckets) even in pretty mode. */
void sb_json_begin_object(struct sb_json *j);
void sb_json_begin_array(struct sb_json *j);
void sb_json_begin_array_inline(struct sb_json *j);
void sb_json_end_object(struct sb_json *j);
void sb_json_end_array(struct sb_json *j);

/* Writes an object member's name; the next call writes its value. */
void sb_json_key(struct sb_json *j, const char *key);

/* Scalar values. Strings are escaped per RFC 8259 (quote, backslash and
 * control characters; other bytes, including UTF-8, pass unchanged).
 * sb_json_string(j, NULL) writes null. Doubles are written in the shortest
 * form that reads back to the same value; NaN and infinities, which JSON
 * cannot represent, are written as null. */
void sb_json_string(struct sb_json *j, const char *s);
void sb_json_string_n(struct sb_json *j, const char *s, size_t len);
void sb_json_int(struct sb_json *j, int64_t v);
void sb_json_uint(struct sb_json *j, uint64_t v);
void sb_json_double(struct sb_json *j, double v);
void sb_json_bool(struct sb_json *j, bool v);
void sb_json_null(struct sb_json *j);

/* Key and value in one call. */
void sb_json_kv_string(struct sb_json *j, const char *key, const char *s);
void sb_json_kv_int(struct sb_json *j, const char *key, int64_t v);
void sb_json_kv_uint(struct sb_json *j, const char *key, uint64_t v);
void sb_json_kv_double(struct sb_json *j, const char *key, double v);
void sb_json_kv_bool(struct sb_json *j, const char *key, bool v);
void sb_json_kv_null(struct sb_json *j, const char *key);

/*
 * Formats v into buf (capacity len, at least 32) the way sb_json_double
 * writes it: the shortest of %.15g, %.16g, %.17g that reads back exactly,
 * "null" for NaN and infinities. Returns buf.
 */
char *sb_json_format_double(double v, char *buf, size_t len);

#endif /* SB_JSON_WRITE_H */
