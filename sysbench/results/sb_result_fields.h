/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_RESULT_FIELDS_H
#define SB_RESULT_FIELDS_H

/*
 * The numeric fields of a result file (doc/results.md) as one table per
 * object: name (a dotted path inside the object), unit, type, where the
 * value lives in the model (the C type and offset in the object's struct,
 * when the object has one), how `sysbench merge` combines the instances'
 * values, and the range a file may hold. The writer, the reader, merge
 * and the range checks walk these tables, so a field of an interval or a
 * histogram is added by one entry, and merge cannot disagree with the
 * writer about its name or its rule. A value outside its range is refused with one line naming
 * the file and the field, before any of it is used: a hand-edited or
 * crafted file must not make merge loop for years, cast 1e308 to an
 * integer or print nonsense as a result.
 *
 * The ranges are far above anything a machine measures and far below
 * where arithmetic loses meaning; a missing field or null means "not
 * measured" and passes, except where a field is required (a merge cannot
 * align or add up without it).
 */

#include <stdbool.h>
#include <stddef.h>

#include "core/sb_json_read.h"

/* Largest rate, latency (ms), count or CPU figure a file may hold, as
 * compare has it (sb_result_file.c). */
#define SB_RF_MAX_VALUE 1e15
/* Largest sum of nanoseconds (31 years of latency in one histogram). */
#define SB_RF_MAX_SUM_NS 1e18
/* Largest duration in seconds (about 31 years). */
#define SB_RF_MAX_TIME_S 1e9
/* Largest Unix time in seconds (the year 5138). */
#define SB_RF_MAX_UNIX_S 1e11
/* Shortest interval merge aligns on (a microsecond): with the limits
 * above every interval's slot fits a long. */
#define SB_RF_MIN_INTERVAL_S 1e-6
/* Most instances of one scale-out run. */
#define SB_RF_MAX_INSTANCES 1e6
/* Most options of one set (general, script) a file may hold: the tool
 * writes about 150. */
#define SB_RF_MAX_OPTIONS 4096
/* Most per-thread CPU entries of a point (--threads is far below). */
#define SB_RF_MAX_THREADS 1e7

enum sb_rf_type {
    SB_RF_COUNT,    /* a non-negative integer (counts, nanoseconds) */
    SB_RF_REAL,     /* any number in the range */
    SB_RF_PCTS      /* a percentile map {"95": ms, ...}, at most
                       SB_MAX_PERCENTILES members, each a REAL */
};

/* How merge combines the instances' values of a field. */
enum sb_rf_merge {
    SB_RF_SUM,      /* added */
    SB_RF_MAX,      /* the largest, exact (a maximum of maxima) */
    SB_RF_MIN,      /* the smallest, exact */
    SB_RF_BOUND,    /* the largest of the instances': only an upper bound
                       of the true value (merged.upper_bounds says so) */
    SB_RF_HIST,     /* computed from the merged histogram */
    SB_RF_SERVER,   /* taken once, from the instance that measured the
                       server */
    SB_RF_OWN,      /* set by merge from the others (the time grid, rates
                       over the window, identities) */
    SB_RF_SAME      /* equal in every instance (checked, or kept) */
};

/* Where a field lives in the object's struct (struct sb_interval for
 * sb_rf_interval, struct sb_hist for sb_rf_hist). */
enum sb_rf_ctype {
    SB_RF_NONE,     /* nowhere: computed (the final figures come from the
                       counters) or a constant of the build */
    SB_RF_DOUBLE,   /* a double; NaN is "not measured", written null */
    SB_RF_U64,      /* a uint64_t */
    SB_RF_UINT,     /* an unsigned */
    SB_RF_PCT_MAP   /* double[SB_MAX_PERCENTILES] at the point's
                       percentiles (type SB_RF_PCTS) */
};

struct sb_result_field {
    const char *path;          /* dotted, inside the object */
    const char *unit;          /* "s", "ms", "ns", "tx/s", "%", "1" */
    enum sb_rf_type type;
    enum sb_rf_merge merge;
    double min, max;
    bool required;             /* a merge needs it: missing is an error */
    /* The merged value may be above the true one (a largest of the
     * instances' values, or a sum of their maxima): merge lists it in
     * merged.upper_bounds. A SB_RF_HIST field is listed only when some
     * file lacked its histogram. */
    bool upper;
    enum sb_rf_ctype ctype;
    size_t offset;             /* of the value in the object's struct */
};

/* The tables, each ended by an entry with path NULL. */
extern const struct sb_result_field sb_rf_doc[];       /* the document */
extern const struct sb_result_field sb_rf_point[];     /* points[i] */
extern const struct sb_result_field sb_rf_interval[];  /* points[i].intervals[k] */
extern const struct sb_result_field sb_rf_final[];     /* points[i].final */
extern const struct sb_result_field sb_rf_code[];      /* points[i].final.errors
                                                          .by_code[k] */
extern const struct sb_result_field sb_rf_hist[];      /* points[i].histogram,
                                                          .histograms.service, .lag */

/* The entry of table t at path, or NULL. */
const struct sb_result_field *sb_rf_find(const struct sb_result_field *t, const char *path);

/* Field f of the model object obj (f->ctype DOUBLE, U64 or UINT) as a
 * double; NaN for any other field. */
double sb_rf_get(const void *obj, const struct sb_result_field *f);

/* Sets field f of obj from the file's value v (NULL when absent) as the
 * reader does: a double is NaN when absent or not a number; a count is 0
 * then, and also when out of its C type's range (a hand-edited file must
 * not make a cast overflow). Nothing for other fields. */
void sb_rf_read(void *obj, const struct sb_result_field *f, const struct sb_jv *v);

/* The object path's last member name ("total" of "qps.total"). */
const char *sb_rf_leaf(const struct sb_result_field *f);

/* Length of the group prefix of f's path ("qps." of "qps.total": 4; 0 for
 * a top-level member): consecutive fields with the same prefix are one
 * nested object, written in table order. */
size_t sb_rf_group_len(const struct sb_result_field *f);

/*
 * Checks every field of the tables in document doc, read from file, and
 * the sizes a merge walks (percentile maps, error codes, options,
 * per-thread CPU entries, histogram buckets). Returns 0, or -1 with one
 * line in err such as "'bad.json': points[0].intervals[0].time_s is
 * 1e+15, expected 0..1e+09".
 */
int sb_result_fields_check(const struct sb_jv *doc, const char *file, char *err, size_t errlen);

/*
 * Checks the fields of table t in object o (where = its place, as
 * "points[0].final" or "" for the document). Returns 0, or -1 with one
 * line in err. For callers that read one object at a time.
 */
int sb_result_fields_check_object(const struct sb_jv *o, const struct sb_result_field *t,
                                  const char *file, const char *where, char *err,
                                  size_t errlen);

#endif /* SB_RESULT_FIELDS_H */
