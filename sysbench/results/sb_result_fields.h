/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_RESULT_FIELDS_H
#define SB_RESULT_FIELDS_H

/*
 * The numeric fields of a result file (doc/results.md) as one table per
 * object: name (a dotted path inside the object), unit, type, where the
 * value lives in the model (the C type and offset in the object's struct,
 * when the object has one), how `sysbench merge` combines the instances'
 * values, and the range a file may hold. The final figures' table is the
 * whole object's layout (strings, flags and lists too) and also says how
 * the writer computes a figure the model does not store (calc). The
 * writer, the reader, merge and the range checks walk these tables, so a
 * field is added by one entry, and merge cannot disagree with the writer
 * about its name or its rule. A value outside its range is refused with
 * one line naming the file and the field, before any of it is used: a
 * hand-edited or crafted file must not make merge loop for years, cast
 * 1e308 to an integer or print nonsense as a result.
 *
 * The ranges are far above anything a machine measures and far below
 * where arithmetic loses meaning; a missing field or null means "not
 * measured" and passes, except where a field is required (a merge cannot
 * align or add up without it).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
    SB_RF_PCTS,     /* a percentile map {"95": ms, ...}, at most
                       SB_MAX_PERCENTILES members, each a REAL */
    /* Not numbers: members of the object's layout that the writer and
     * the reader walk in table order; the range checks and merge's
     * rules pass them by. */
    SB_RF_FLAG,     /* true or false */
    SB_RF_TEXT,     /* a string */
    SB_RF_LIST      /* an array of objects (ctype says which) */
};

/* Whether field f holds a number or a percentile map (the fields the
 * range checks and merge's rules deal with). */
#define SB_RF_NUMERIC(f) ((f)->type <= SB_RF_PCTS)

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
    SB_RF_SAME,     /* equal in every instance (checked, or kept) */
    /* The client's CPU figures (sb_merge_cpu), over all instances: */
    SB_RF_PER_TX,   /* per transaction of final.cpu.transactions: the
                       instances' values weighted by their transactions */
    SB_RF_PARTS,    /* the sum of the SB_RF_PER_TX figures before it in
                       its object (a total of user and system time) */
    SB_RF_UTIL      /* % of the instances' summed capacity (cpu.elapsed_s
                       x cpu.ncpus) that the SB_RF_SUM figure before it
                       in its object (CPU seconds) used */
};

/* Where a field lives in the object's struct (struct sb_interval for
 * sb_rf_interval, struct sb_hist for sb_rf_hist, struct sb_point_result
 * for sb_rf_final). The reader reads a field into its place; the writer
 * writes it from there unless the field has a calc. */
enum sb_rf_ctype {
    SB_RF_NONE,     /* nowhere: computed only (calc), or a constant of
                       the build */
    SB_RF_DOUBLE,   /* a double; NaN is "not measured", written null */
    SB_RF_U64,      /* a uint64_t */
    SB_RF_UINT,     /* an unsigned */
    SB_RF_PCT_MAP,  /* double[SB_MAX_PERCENTILES] at the point's
                       percentiles (type SB_RF_PCTS) */
    /* sb_rf_final only: */
    SB_RF_STAT,     /* a uint64_t at offset in the point's total
                       statistics (*p->total, struct sb_stats) */
    SB_RF_BOOL,     /* a bool */
    SB_RF_STR,      /* a char array of arg bytes (escaped when read) */
    SB_RF_MODE,     /* an enum sb_pace_mode, written by its name; not
                       read back (the point's rate_mode says it) */
    SB_RF_FILE_PCTS,/* read back only: the map as the file has it, into
                       the point's file_pcts and file_pct_ms */
    SB_RF_CODES,    /* the error codes of *p->total (type SB_RF_LIST) */
    SB_RF_THREADS   /* the point's per-thread CPU (type SB_RF_LIST) */
};

/* How the writer computes a final figure from the point (struct
 * sb_point_result) rather than take it from its place; see sb_rf_value. */
enum sb_rf_calc {
    SB_RF_STORED,       /* the value at its place (ctype, offset) */
    SB_RF_PER_S,        /* counter arg of *p->total per second of the
                           point's time (SB_STAT_NCOUNTERS: all queries) */
    SB_RF_QUERIES,      /* reads + writes + other */
    SB_RF_LAT_COUNT,    /* of the histogram at offset arg in struct
                           sb_stats: its count, */
    SB_RF_LAT_MIN,      /* its minimum in ms (NaN when empty), */
    SB_RF_LAT_AVG,      /* its mean in ms (NaN when empty), */
    SB_RF_LAT_MAX,      /* its maximum in ms (NaN when empty), */
    SB_RF_LAT_SUM,      /* its sum in ms, */
    SB_RF_LAT_PCT,      /* its percentile in ms (a map's member) */
    SB_RF_TARGET,       /* the point's target rate */
    SB_RF_ACHIEVED_PCT, /* achieved rate in % of the target (NaN without) */
    SB_RF_JITTER,       /* the jitter, in fixed-rate mode only (else NaN) */
    SB_RF_LATE_PCT      /* late starts in % of events (0 without events) */
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
    enum sb_rf_calc calc;      /* the writer's value (SB_RF_STORED: its place) */
    size_t arg;                /* calc's counter index or histogram offset;
                                  SB_RF_STR's array size */
    /* Only measured when the bool at offset gate of the object is true
     * (gated): NaN otherwise, written and read so. */
    bool gated;
    size_t gate;
    /* Only in a rate mode: in closed loop the object holding it is null
     * (final.rate). */
    bool paced;
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

/* Field f of the model object obj (f->ctype DOUBLE, U64 or UINT; STAT
 * with obj the statistics) as a double; NaN for any other field. */
double sb_rf_get(const void *obj, const struct sb_result_field *f);

/* Sets field f of obj (the statistics for a STAT field) from the file's
 * value v (NULL when absent) as the reader does: a double is NaN when absent or not a number; a count is 0
 * then, and also when out of its C type's range (a hand-edited file must
 * not make a cast overflow). Nothing for other fields. */
void sb_rf_read(void *obj, const struct sb_result_field *f, const struct sb_jv *v);

struct sb_hist;

/* Figure calc (one of SB_RF_LAT_*) of histogram h, at percentile pct for
 * SB_RF_LAT_PCT, as a run writes it and merge recomputes it. */
double sb_rf_latency(const struct sb_hist *h, enum sb_rf_calc calc, double pct);

/* The value the writer writes for numeric field f of obj (the object the
 * table describes; a struct sb_point_result with complete final figures
 * for sb_rf_final): its calc, at percentile pct for a map's member, or
 * the value at its place; NaN when gated off or not measured. */
double sb_rf_value(const void *obj, const struct sb_result_field *f, double pct);

/* sb_rf_value of a count field (type SB_RF_COUNT) as the exact integer. */
uint64_t sb_rf_count(const void *obj, const struct sb_result_field *f);

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
