/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_JSON_READ_H
#define SB_JSON_READ_H

/*
 * A small JSON reader (RFC 8259): a recursive-descent parser that turns a
 * whole document into a tree of struct sb_jv nodes, for the commands that
 * read result files back (compare, the charts of a run). It is the
 * counterpart of the streaming writer in sb_json_write.h.
 *
 * The parser is strict: one value per document (surrounding white space
 * allowed), no comments, no trailing commas, no leading zeros, no control
 * characters in strings, valid \u escapes (surrogate pairs are combined
 * and written as UTF-8). Nesting deeper than SB_JV_MAX_DEPTH is refused
 * instead of exhausting the stack. Errors name the line and column.
 *
 * Numbers are kept as doubles, which holds every integer the result files
 * contain (counts and nanoseconds stay below 2^53). Object members keep
 * their order; with duplicate names sb_jv_get finds the first.
 *
 * Usage:
 *
 *   char err[256];
 *   struct sb_jv *doc = sb_jv_parse_file("r.json", err, sizeof(err));
 *   if (doc == NULL) ... err says why ...
 *   double tps = sb_jv_num(sb_jv_path(doc, "points.0.final.tps"));
 *   sb_jv_free(doc);
 */

#include <stdbool.h>
#include <stddef.h>

/* Deepest nesting of arrays and objects the parser accepts. */
#define SB_JV_MAX_DEPTH 200

/* Largest file sb_jv_parse_file reads (result files are far smaller). */
#define SB_JV_MAX_FILE (512u * 1024u * 1024u)

enum sb_jv_type {
    SB_JV_NULL,
    SB_JV_BOOL,
    SB_JV_NUMBER,
    SB_JV_STRING,
    SB_JV_ARRAY,
    SB_JV_OBJECT
};

/* One value of the tree. Every pointer is owned by the node. */
struct sb_jv {
    enum sb_jv_type type;
    bool boolean;          /* SB_JV_BOOL */
    double number;         /* SB_JV_NUMBER */
    char *string;          /* SB_JV_STRING: NUL-terminated UTF-8 */
    size_t len;            /* SB_JV_STRING: bytes, which may include NULs */
    struct sb_jv *items;   /* SB_JV_ARRAY elements or SB_JV_OBJECT values */
    char **keys;           /* SB_JV_OBJECT: member names, parallel to items */
    size_t n;              /* number of elements or members */
};

/*
 * Parses the n bytes at text as one JSON document. Returns the tree (free
 * it with sb_jv_free), or NULL with a message such as "expected ':' at
 * line 3, column 9" in err (also on out of memory).
 */
struct sb_jv *sb_jv_parse(const char *text, size_t n, char *err, size_t errlen);

/*
 * Reads and parses the file at path. Returns the tree, or NULL with one
 * line in err: the reason the file could not be read (strerror), or
 * "not JSON: " and the parser's message.
 */
struct sb_jv *sb_jv_parse_file(const char *path, char *err, size_t errlen);

/* Frees a tree returned by the parser (NULL is ignored). */
void sb_jv_free(struct sb_jv *v);

/* The value of member key of object v; NULL when v is NULL, not an object,
 * or has no such member. */
const struct sb_jv *sb_jv_get(const struct sb_jv *v, const char *key);

/* Element i of array v; NULL when v is NULL, not an array or too short. */
const struct sb_jv *sb_jv_at(const struct sb_jv *v, size_t i);

/*
 * Follows a dotted path from v: each part is a member name, or for arrays
 * a decimal index ("points.0.final.tps"). Member names containing dots
 * cannot be reached this way; use sb_jv_get. Returns NULL when any step
 * is missing.
 */
const struct sb_jv *sb_jv_path(const struct sb_jv *v, const char *path);

/* v's number, or NaN when v is NULL or not a number (null included). */
double sb_jv_num(const struct sb_jv *v);

/* v's string, or NULL when v is NULL or not a string. */
const char *sb_jv_str(const struct sb_jv *v);

/* Whether v is the boolean true. */
bool sb_jv_true(const struct sb_jv *v);

/* Elements of array v (0 when v is not an array). */
size_t sb_jv_len(const struct sb_jv *v);

#endif /* SB_JSON_READ_H */
