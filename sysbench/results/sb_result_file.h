/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_RESULT_FILE_H
#define SB_RESULT_FILE_H

/*
 * A result file read back: each point of a --json document
 * (doc/results.md) as the model the writer produced (struct sb_point_result,
 * sb_point_result.h), with the file's own facts (label, script, server
 * version) and the grid that matches points of several files for the
 * compare command and the charts, so that those modules never walk JSON
 * themselves. Figures are taken through sb_point_result.h's functions.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "config/sb_point.h"
#include "results/sb_point_result.h"

#include "core/sb_json_read.h"

/* The format_version this reader understands. */
#define SB_RESULT_FILE_FORMAT_VERSION 1

/* One result file. */
struct sb_result_file {
    char *path;                    /* owned copy of the file name */
    char *label;                   /* owned: the name shown in tables and charts */
    char *script;                  /* owned: the script's base name, "" if unknown */
    char *server_version;          /* owned, "" if unknown */
    char *allocator;               /* owned, "" if unknown */
    char *started_at;              /* owned, "" if unknown */
    char *driver;                  /* owned: the database driver, "" if none */
    /* Owned, in the file's order; --repeat runs are grouped (reps,
     * grouped in struct sb_point_result). */
    struct sb_point_result *points;
    size_t npoints;
    /* Owned, npoints: whether points[i]'s self-check was not ok (the
     * point's "selfcheck.ok" is false), for the charts' marks. */
    bool *flagged;
};

/*
 * Copies the figures out of a parsed result document. label (copied) is
 * the name to show; path is used in messages. Returns 0, or -1 with one
 * line in err when doc is not a sysbench result ("format"), has another
 * format_version, or has no points.
 */
int sb_result_file_from_json(struct sb_result_file *r, const struct sb_jv *doc, const char *path,
                        const char *label, char *err, size_t errlen);

/*
 * Reads the result file at path (sb_jv_parse_file, then
 * sb_result_file_from_json). Returns 0, or -1 with one line in err naming the
 * file: unreadable, not JSON, not a result, wrong version, no points.
 */
int sb_result_file_load(struct sb_result_file *r, const char *path, const char *label,
                   char *err, size_t errlen);

/* Frees what r owns; r itself may then be reused. */
void sb_result_file_free(struct sb_result_file *r);

/* The file name without directories and without a ".json" suffix, as a
 * newly allocated string (NULL when out of memory): the default label. */
char *sb_result_file_default_label(const char *path);

/* The identity of a sweep point across files: its thread count, its
 * target rate, and which repetition of that pair it is within its file
 * (a sweep such as --threads=2,2 has two points with the same pair). */
struct sb_result_file_key {
    unsigned threads;
    enum sb_pace_mode rate_mode;
    double target_tps;             /* NaN in closed loop */
    unsigned occurrence;           /* 0 for the first point with the pair */
};

/*
 * Points of several files matched by key: one column per distinct key,
 * sorted by threads and then target rate, and for each file the point
 * with that key or NULL when the file has none.
 */
struct sb_result_file_grid {
    struct sb_result_file_key *keys;    /* owned */
    size_t nkeys;
    size_t nres;
    const struct sb_point_result **cells; /* owned array, nres * nkeys */
    bool any_rated;                /* some point had a target rate */
    bool threads_vary, rates_vary; /* more than one distinct value */
};

/* Matches the points of the n results. Returns 0, or -1 when out of
 * memory. The grid borrows the points: free it before the results. */
int sb_result_file_grid_build(struct sb_result_file_grid *g, const struct sb_result_file *res, size_t n);

/* The complete point of result r at key k, or NULL when r has no point
 * there or that point has no final figures: every table and chart shows
 * both alike, as a gap. */
const struct sb_point_result *sb_result_file_grid_cell(const struct sb_result_file_grid *g, size_t r,
                                                  size_t k);

/* Writes the short name of key k for axis ticks and tables: the thread
 * count, the target rate when only rates vary, or "4 @ 500" when both do. */
void sb_result_file_key_name(const struct sb_result_file_grid *g, size_t k, char *buf, size_t len);

/* The name of what the keys measure, for an axis label: "threads",
 * "target rate (tx/s)" or "threads @ target rate (tx/s)". */
const char *sb_result_file_grid_axis(const struct sb_result_file_grid *g);

/* Frees what g owns. */
void sb_result_file_grid_free(struct sb_result_file_grid *g);

#endif /* SB_RESULT_FILE_H */
