/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_MERGE_INT_H
#define SB_MERGE_INT_H

/*
 * What the files of the merge command share and nothing else uses: the
 * inputs being merged and the helpers that read them and edit the merged
 * tree (sb_merge_print.c), the checks that the inputs are one experiment
 * (sb_merge_check.c), the interval series (sb_merge_intervals.c) and the
 * figures of a point (sb_merge_figures.c). The merge rules themselves are
 * the field tables' (results/sb_result_fields.h).
 *
 * Ownership: struct sb_merge_run owns its inputs' parsed documents; the
 * merged document is the first input's, edited in place.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sb_json_read.h"
#include "pure/sb_histogram.h"
#include "compare/sb_merge.h"
#include "results/sb_result_fields.h"

/* One input file. */
struct sb_merge_in {
    const char *path;
    struct sb_jv *doc;     /* owned */
    unsigned index;        /* instance.index */
};

/* Most fields merge may find only bounded (service and lag percentiles). */
#define SB_MERGE_MAX_BOUNDED 4

struct sb_merge_run {
    struct sb_merge_in *in;  /* sorted by index once checked */
    size_t n;
    struct sb_jv *out;       /* in[0].doc, edited into the result */
    /* The SB_RF_HIST fields of sb_rf_final some point could only bound
     * (a file lacked their histogram): listed in merged.upper_bounds. */
    const struct sb_result_field *bounded[SB_MERGE_MAX_BOUNDED];
    size_t nbounded;
    bool allow_missing;      /* --allow-missing: a partial merge */
    char err[1024];
};

/* ---- sb_merge_print.c: reading the inputs, editing the merged tree */

/* Sets m->err from the format; returns -1. */
int sb_merge_fail(struct sb_merge_run *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Point p of instance i (NULL when it has none). */
struct sb_jv *sb_merge_point(struct sb_merge_run *m, size_t i, size_t p);
/* A writable node at a dotted path of v (NULL when missing). */
struct sb_jv *sb_merge_at(struct sb_jv *v, const char *path);
/* Sets the existing node at path of v to x (null when NaN); nothing when
 * the path is missing. */
void sb_merge_put(struct sb_jv *v, const char *path, double x);
/* The sum over the instances of the number at path of point p (NaN when
 * some instance lacks it). */
double sb_merge_sum(struct sb_merge_run *m, size_t p, const char *path);
/* The largest (or smallest) of the instances' numbers at path of point p,
 * ignoring those without one; NaN when none has it. */
double sb_merge_extreme(struct sb_merge_run *m, size_t p, const char *path, bool largest);
/* Each member of percentile map dst becomes the largest of the n maps
 * src's values at its key (null when none has it). */
void sb_merge_max_map(struct sb_jv *dst, struct sb_jv *const *src, size_t n);
/* The instance whose measurement of the server is used for point p
 * (lowest index that measured it; 0 when none did). */
size_t sb_merge_server_instance(struct sb_merge_run *m, size_t p);
/* A new null element at the end of array a, or NULL when out of memory.
 * Moves a's other elements. */
struct sb_jv *sb_merge_append(struct sb_jv *a);
/* Empties v (freeing what it owned) and makes it of type t. */
void sb_merge_make(struct sb_jv *v, enum sb_jv_type t);

/* ---- sb_merge_check.c: one experiment */

/* Reads and range-checks in->path into in->doc. Returns 0, or -1 with
 * m->err set. */
int sb_merge_load(struct sb_merge_run *m, struct sb_merge_in *in);
/* Sorts the inputs by instance and checks they are the instances of one
 * experiment (sb_merge.h). Returns 0, or -1 with m->err set. */
int sb_merge_check(struct sb_merge_run *m);

/* ---- sb_merge_intervals.c */

/* Replaces point p's interval series in m->out by all instances' aligned
 * by absolute time. Returns 0, or -1 with m->err set. */
int sb_merge_intervals(struct sb_merge_run *m, size_t p);

/* ---- sb_merge_figures.c: the final figures of a point */

/* The union of the instances' histograms at key (a dotted path of a
 * point: "histogram", "histograms.service") into h, with the exact sums
 * and extremes. Returns 0, or -1 with m->err set. */
int sb_merge_hist(struct sb_merge_run *m, size_t p, const char *key, struct sb_hist *h);
/* Writes h into the histogram object hv. Returns 0, or -1 when out of
 * memory. */
int sb_merge_put_hist(struct sb_jv *hv, const struct sb_hist *h);
/* The figures of a final latency_ms object from h, as a run computes
 * them. */
void sb_merge_put_latency(struct sb_jv *lat, const struct sb_hist *h);
/* Service time or lag (name) of point p: from the histograms' union when
 * every file has it, else bounded (and recorded in m->bounded). h is
 * scratch. Returns 0, or -1 with m->err set. */
int sb_merge_latency(struct sb_merge_run *m, size_t p, const char *name, struct sb_hist *h);
/* errors.by_code of point p: counts of equal (code, kind) added. Returns
 * 0, or -1 when out of memory. */
int sb_merge_codes(struct sb_merge_run *m, size_t p);
/* final.cpu of point p: the client's figures by their rules in
 * sb_rf_final (SB_RF_PER_TX, SB_RF_PARTS, SB_RF_UTIL), the server's once.
 * Returns 0, or -1 when out of memory. */
int sb_merge_cpu(struct sb_merge_run *m, size_t p);
/* The fields of point p that merge by a rule of the tables (sb_rf_point
 * and sb_rf_final: SB_RF_SUM, SB_RF_MIN, SB_RF_MAX), and the figures
 * derived from them (the time, achieved and late percentages). After
 * sb_merge_cpu, which reads the instances' own transaction counts and
 * client CPU times. */
void sb_merge_scalars(struct sb_merge_run *m, size_t p);

#endif /* SB_MERGE_INT_H */
