/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The numeric fields of a result file and their checks; see
 * sb_result_fields.h.
 */
#include "config.h"

#include "results/sb_result_fields.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config/sb_config.h"
#include "pure/sb_histogram.h"
#include "results/sb_point_result.h"
#include "measure/sb_stats.h"

#define V SB_RF_MAX_VALUE
#define T SB_RF_MAX_TIME_S

/* Entries: path, unit, type, merge rule, min, max, required; F for a
 * field the model computes, FM for one stored in the object's struct s at
 * member m with C type ct, FB for an upper bound after merge. */
#define F(p, u, t, mg, lo, hi, req)                                                  \
    { .path = p, .unit = u, .type = SB_RF_##t, .merge = SB_RF_##mg, .min = lo, .max = hi, \
      .required = req }
#define FM(p, u, t, mg, lo, hi, req, s, m, ct)                                      \
    { .path = p, .unit = u, .type = SB_RF_##t, .merge = SB_RF_##mg, .min = lo, .max = hi, \
      .required = req, .ctype = SB_RF_##ct, .offset = offsetof(struct s, m) }
#define FB(p, u, t, mg, lo, hi, s, m, ct)                                           \
    { .path = p, .unit = u, .type = SB_RF_##t, .merge = SB_RF_##mg, .min = lo, .max = hi, \
      .upper = true, .ctype = SB_RF_##ct, .offset = offsetof(struct s, m) }
#define IV(p, u, t, mg, lo, hi, m, ct) FM(p, u, t, mg, lo, hi, false, sb_interval, m, ct)
#define IVB(p, u, t, lo, hi, m, ct) FB(p, u, t, BOUND, lo, hi, sb_interval, m, ct)
#define END { .path = NULL }

const struct sb_result_field sb_rf_doc[] = {
    F("instance.index", "1", COUNT, OWN, 0, SB_RF_MAX_INSTANCES - 1, true),
    F("instance.count", "1", COUNT, SAME, 1, SB_RF_MAX_INSTANCES, true),
    F("instance.start_at", "s", REAL, SAME, 0, SB_RF_MAX_UNIX_S, false),
    F("instance.clock_offset_s", "s", REAL, OWN, -T, T, false),
    F("options.general.time", "s", REAL, SAME, 0, T, false),
    F("options.general.report-interval", "s", REAL, SAME, 0, T, false),
    F("ended.signal", "1", COUNT, OWN, 0, 1024, false),
    F("ended.cancelled", "1", COUNT, OWN, 0, V, false),
    END
};

const struct sb_result_field sb_rf_point[] = {
    F("index", "1", COUNT, SAME, 0, V, false),
    F("threads", "1", COUNT, SUM, 0, SB_RF_MAX_THREADS, false),
    F("repeat", "1", COUNT, SAME, 0, SB_RF_MAX_INSTANCES, false),
    F("repeats", "1", COUNT, SAME, 0, SB_RF_MAX_INSTANCES, false),
    F("target_tps", "tx/s", REAL, SUM, 0, V, false),
    F("start_unix_s", "s", REAL, MIN, 0, SB_RF_MAX_UNIX_S, true),
    F("first_dispatch_unix_s", "s", REAL, MIN, 0, SB_RF_MAX_UNIX_S, false),
    F("first_due_unix_s", "s", REAL, OWN, 0, SB_RF_MAX_UNIX_S, false),
    END
};

/* In the writer's order: the table is the object's layout. */
const struct sb_result_field sb_rf_interval[] = {
    FM("time_s", "s", REAL, OWN, 0, T, true, sb_interval, time_s, DOUBLE),
    IV("epoch_s", "s", REAL, OWN, 0, SB_RF_MAX_UNIX_S, epoch_s, DOUBLE),
    IV("interval_s", "s", REAL, OWN, SB_RF_MIN_INTERVAL_S, T, interval_s, DOUBLE),
    IV("threads", "1", COUNT, SUM, 0, SB_RF_MAX_THREADS, threads, UINT),
    IV("events", "1", COUNT, SUM, 0, V, events, U64),
    IV("tps", "tx/s", REAL, SUM, 0, V, tps, DOUBLE),
    IV("qps.total", "q/s", REAL, SUM, 0, V, qps, DOUBLE),
    IV("qps.reads", "q/s", REAL, SUM, 0, V, reads_ps, DOUBLE),
    IV("qps.writes", "q/s", REAL, SUM, 0, V, writes_ps, DOUBLE),
    IV("qps.other", "q/s", REAL, SUM, 0, V, other_ps, DOUBLE),
    IVB("latency_ms", "ms", PCTS, 0, V, latency_ms, PCT_MAP),
    IV("errors_per_s", "1/s", REAL, SUM, 0, V, errors_ps, DOUBLE),
    IV("reconnects_per_s", "1/s", REAL, SUM, 0, V, reconnects_ps, DOUBLE),
    IVB("lag_ms", "ms", PCTS, 0, V, lag_ms, PCT_MAP),
    IV("backlog", "1", COUNT, SUM, 0, V, backlog, U64),
    /* Upper bounds like latency_ms: the time-axis chart draws them. */
    IVB("latency_p50_ms", "ms", REAL, 0, V, p50_ms, DOUBLE),
    IVB("latency_p99_ms", "ms", REAL, 0, V, p99_ms, DOUBLE),
    IVB("lag_p99_ms", "ms", REAL, 0, V, lag_p99_ms, DOUBLE),
    IV("cpu_pct.client", "%", REAL, SUM, 0, V, cpu_client_pct, DOUBLE),
    IV("cpu_pct.server", "%", REAL, SERVER, 0, V, cpu_server_pct, DOUBLE),
    END
};

/*
 * The final figures, in the writer's order (the table is the object's
 * layout, strings, flags and lists included). FIN: path, unit, type,
 * merge rule, range, then where the model holds it and how the writer
 * computes it: AT (a member of struct sb_point_result), STAT (a counter
 * of its total statistics), CALC (sb_rf_value's computation), GATE (NaN
 * unless that flag), PACED (in a rate mode only).
 */
#define FIN(p, u, t, mg, lo, hi, ...) \
    { .path = p, .unit = u, .type = SB_RF_##t, .merge = SB_RF_##mg, .min = lo, .max = hi, __VA_ARGS__ }
#define AT(ct, m) .ctype = SB_RF_##ct, .offset = offsetof(struct sb_point_result, m)
#define STAT(i) .ctype = SB_RF_STAT, .offset = offsetof(struct sb_stats, c) + (i) * sizeof(uint64_t)
#define CALC(c, a) .calc = SB_RF_##c, .arg = (a)
#define GATE(m) .gated = true, .gate = offsetof(struct sb_point_result, m)
#define PACED .paced = true
#define HIST(h) offsetof(struct sb_stats, h)

/* One latency object of final.latency_ms: histogram h of the total
 * statistics; the response time's percentiles are also read back as
 * stored (pcts: FILE_PCTS, or NONE). */
#define LATENCY(n, h, pcts)                                                          \
    FIN("latency_ms." n ".count", "1", COUNT, HIST, 0, V, CALC(LAT_COUNT, HIST(h))), \
    FIN("latency_ms." n ".min", "ms", REAL, HIST, 0, V, CALC(LAT_MIN, HIST(h))),     \
    FIN("latency_ms." n ".avg", "ms", REAL, HIST, 0, V, CALC(LAT_AVG, HIST(h))),     \
    FIN("latency_ms." n ".max", "ms", REAL, HIST, 0, V, CALC(LAT_MAX, HIST(h))),     \
    FIN("latency_ms." n ".sum", "ms", REAL, HIST, 0, V, CALC(LAT_SUM, HIST(h))),     \
    FIN("latency_ms." n ".percentiles", "ms", PCTS, HIST, 0, V, .upper = true,       \
        CALC(LAT_PCT, HIST(h)), .ctype = SB_RF_##pcts)

/* One CPU side of final.cpu (struct sb_cpu_figures at member s of the
 * point's CPU report): measured, then its figures, merged by rule t (the
 * CPU time), x (user and system time per transaction), tot (their total)
 * and u (the utilisation). */
#define CPU(s, t, x, tot, u)                                                               \
    FIN("cpu." #s ".measured", "1", FLAG, OWN, 0, 1, AT(BOOL, cpu.s.measured)),            \
    FIN("cpu." #s ".cpu_s", "s", REAL, t, 0, V, AT(DOUBLE, cpu.s.cpu_s),                   \
        GATE(cpu.s.measured)),                                                             \
    FIN("cpu." #s ".user_us_per_tx", "us", REAL, x, 0, V, AT(DOUBLE, cpu.s.user_us_per_tx), \
        GATE(cpu.s.measured)),                                                             \
    FIN("cpu." #s ".system_us_per_tx", "us", REAL, x, 0, V,                                \
        AT(DOUBLE, cpu.s.system_us_per_tx), GATE(cpu.s.measured)),                         \
    FIN("cpu." #s ".total_us_per_tx", "us", REAL, tot, 0, V,                               \
        AT(DOUBLE, cpu.s.total_us_per_tx), GATE(cpu.s.measured)),                          \
    FIN("cpu." #s ".util_pct", "%", REAL, u, 0, V, AT(DOUBLE, cpu.s.util_pct),             \
        GATE(cpu.s.measured))

/* One figure of final.cpu.machine (struct sb_cpu_machine_figures). */
#define MACHINE(m, u)                                                                      \
    FIN("cpu.machine." #m, u, REAL, SERVER, 0, V, AT(DOUBLE, cpu.machine.m),               \
        GATE(cpu.machine.measured))

const struct sb_result_field sb_rf_final[] = {
    FIN("time_s", "s", REAL, OWN, 0, T, AT(DOUBLE, time_s)),
    FIN("events", "1", COUNT, SUM, 0, V, STAT(SB_STAT_EVENTS)),
    /* Read back as the file's own rate (compare reports it). */
    FIN("tps", "tx/s", REAL, SUM, 0, V, AT(DOUBLE, file_tps), CALC(PER_S, SB_STAT_EVENTS)),
    FIN("queries.reads", "1", COUNT, SUM, 0, V, STAT(SB_STAT_READS)),
    FIN("queries.writes", "1", COUNT, SUM, 0, V, STAT(SB_STAT_WRITES)),
    FIN("queries.other", "1", COUNT, SUM, 0, V, STAT(SB_STAT_OTHER)),
    FIN("queries.total", "1", COUNT, SUM, 0, V, CALC(QUERIES, 0)),
    FIN("qps", "q/s", REAL, SUM, 0, V, AT(DOUBLE, file_qps), CALC(PER_S, SB_STAT_NCOUNTERS)),
    FIN("errors.ignored", "1", COUNT, SUM, 0, V, STAT(SB_STAT_ERRORS)),
    FIN("errors.ignored_per_s", "1/s", REAL, SUM, 0, V, CALC(PER_S, SB_STAT_ERRORS)),
    FIN("errors.reconnects", "1", COUNT, SUM, 0, V, STAT(SB_STAT_RECONNECTS)),
    FIN("errors.reconnects_per_s", "1/s", REAL, SUM, 0, V, CALC(PER_S, SB_STAT_RECONNECTS)),
    /* Merged by code and kind (sb_merge_codes). */
    FIN("errors.by_code", "1", LIST, OWN, 0, 0, .ctype = SB_RF_CODES),
    LATENCY("response", response, FILE_PCTS),
    LATENCY("service", service, NONE),
    LATENCY("lag", lag, NONE),
    FIN("rate.mode", "1", TEXT, SAME, 0, 0, AT(MODE, cfg.mode), PACED),
    FIN("rate.target_tps", "tx/s", REAL, SUM, 0, V, CALC(TARGET, 0), PACED),
    FIN("rate.achieved_tps", "tx/s", REAL, SUM, 0, V, CALC(PER_S, SB_STAT_EVENTS), PACED),
    FIN("rate.achieved_pct", "%", REAL, OWN, 0, V, CALC(ACHIEVED_PCT, 0), PACED),
    /* Read back where it is measured (fixed-rate mode; sb_point_result_read_json). */
    FIN("rate.jitter_us", "us", REAL, SAME, 0, V, AT(DOUBLE, cfg.jitter_us), CALC(JITTER, 0),
        PACED),
    FIN("rate.late_starts", "1", COUNT, SUM, 0, V, STAT(SB_STAT_LATE), PACED),
    FIN("rate.late_pct", "%", REAL, OWN, 0, V, CALC(LATE_PCT, 0), PACED),
    FIN("rate.skipped", "1", COUNT, SUM, 0, V, STAT(SB_STAT_SKIPPED), PACED),
    /* The sum of the instances' maxima. */
    FIN("rate.max_backlog", "1", COUNT, SUM, 0, V, .upper = true, AT(U64, max_backlog), PACED),
    FIN("cpu.elapsed_s", "s", REAL, MAX, 0, T, AT(DOUBLE, cpu.elapsed_s)),
    FIN("cpu.ncpus", "1", COUNT, OWN, 0, SB_RF_MAX_THREADS, AT(UINT, cpu.ncpus)),
    FIN("cpu.transactions", "1", COUNT, SUM, 0, V, AT(U64, cpu.transactions)),
    FIN("cpu.server_processes", "1", TEXT, SERVER, 0, 0, AT(STR, server_label),
        .arg = sizeof(((struct sb_point_result *)NULL)->server_label)),
    /* Added over the instances (sb_merge_cpu, sb_merge_scalars). */
    CPU(client, SUM, PER_TX, PARTS, UTIL),
    /* Every instance's threads, numbered globally (sb_merge_cpu). */
    FIN("cpu.threads", "1", LIST, OWN, 0, 0, .ctype = SB_RF_THREADS),
    CPU(server, SERVER, SERVER, SERVER, SERVER),
    FIN("cpu.machine.measured", "1", FLAG, OWN, 0, 1, AT(BOOL, cpu.machine.measured)),
    MACHINE(user_us_per_tx, "us"),
    MACHINE(system_us_per_tx, "us"),
    MACHINE(busy_us_per_tx, "us"),
    MACHINE(util_pct, "%"),
    MACHINE(user_pct, "%"),
    MACHINE(system_pct, "%"),
    MACHINE(iowait_pct, "%"),
    MACHINE(steal_pct, "%"),
    MACHINE(idle_pct, "%"),
    END
};

#undef FIN
#undef AT
#undef STAT
#undef CALC
#undef GATE
#undef PACED
#undef HIST
#undef LATENCY
#undef CPU
#undef MACHINE

const struct sb_result_field sb_rf_code[] = {
    F("count", "1", COUNT, SUM, 0, V, true),
    END
};

/* The layout (sub_bucket_bits, limit_ns) is the build's; count is the
 * buckets' (merge checks that the files' counts add up to it). */
const struct sb_result_field sb_rf_hist[] = {
    F("sub_bucket_bits", "1", COUNT, SAME, 0, 64, false),
    F("limit_ns", "ns", COUNT, SAME, 0, V, false),
    FM("count", "1", COUNT, HIST, 0, V, true, sb_hist, total, U64),
    FM("sum_ns", "ns", COUNT, SUM, 0, SB_RF_MAX_SUM_NS, true, sb_hist, sum_ns, U64),
    FM("min_ns", "ns", COUNT, MIN, 0, SB_RF_MAX_SUM_NS, false, sb_hist, min_ns, U64),
    FM("max_ns", "ns", COUNT, MAX, 0, SB_RF_MAX_SUM_NS, false, sb_hist, max_ns, U64),
    FM("clamped", "1", COUNT, SUM, 0, V, true, sb_hist, clamped, U64),
    END
};

#undef F
#undef FM
#undef FB
#undef IV
#undef IVB
#undef END
#undef V
#undef T

double sb_rf_get(const void *obj, const struct sb_result_field *f)
{
    const char *at = (const char *)obj + f->offset;

    switch (f->ctype) {
    case SB_RF_DOUBLE:
        return *(const double *)at;
    case SB_RF_U64:
    case SB_RF_STAT:
        return (double)*(const uint64_t *)at;
    case SB_RF_UINT:
        return *(const unsigned *)at;
    default:
        return NAN;
    }
}

void sb_rf_read(void *obj, const struct sb_result_field *f, const struct sb_jv *v)
{
    char *at = (char *)obj + f->offset;
    double d = sb_jv_num(v);

    switch (f->ctype) {
    case SB_RF_DOUBLE:
        *(double *)at = d;
        break;
    case SB_RF_U64:
    case SB_RF_STAT:
        *(uint64_t *)at = d >= 0 && d < 1.8e19 ? (uint64_t)d : 0;
        break;
    case SB_RF_UINT:
        *(unsigned *)at = d >= 0 && d < 1e9 ? (unsigned)d : 0;
        break;
    default:
        break;
    }
}

double sb_rf_latency(const struct sb_hist *h, enum sb_rf_calc calc, double pct)
{
    bool any = h->total > 0;

    switch (calc) {
    case SB_RF_LAT_COUNT:
        return (double)h->total;
    case SB_RF_LAT_MIN:
        return any ? (double)h->min_ns / 1e6 : NAN;
    case SB_RF_LAT_AVG:
        return any ? sb_hist_mean(h) / 1e6 : NAN;
    case SB_RF_LAT_MAX:
        return any ? (double)h->max_ns / 1e6 : NAN;
    case SB_RF_LAT_SUM:
        return (double)h->sum_ns / 1e6;
    case SB_RF_LAT_PCT:
        return (double)sb_hist_percentile(h, pct) / 1e6;
    default:
        return NAN;
    }
}

static double per_s(double n, double t)
{
    return t > 0 ? n / t : 0;
}

/* Final figure f computed from point p (f->calc other than SB_RF_STORED). */
static double calc_final(const struct sb_point_result *p, const struct sb_result_field *f,
                         double pct)
{
    const struct sb_stats *t = p->total;
    double ev = (double)t->c[SB_STAT_EVENTS];

    switch (f->calc) {
    case SB_RF_PER_S:
        return per_s(f->arg < SB_STAT_NCOUNTERS ? (double)t->c[f->arg]
                                                : (double)sb_stats_queries(t), p->time_s);
    case SB_RF_QUERIES:
        return (double)sb_stats_queries(t);
    case SB_RF_TARGET:
        return p->cfg.target_tps;
    case SB_RF_ACHIEVED_PCT:
        return p->cfg.target_tps > 0 ? 100.0 * per_s(ev, p->time_s) / p->cfg.target_tps : NAN;
    case SB_RF_JITTER:
        return p->cfg.mode == SB_PACE_FIXED ? p->cfg.jitter_us : NAN;
    case SB_RF_LATE_PCT:
        return ev > 0 ? 100.0 * (double)t->c[SB_STAT_LATE] / ev : 0;
    default:
        return sb_rf_latency((const struct sb_hist *)((const char *)t + f->arg), f->calc, pct);
    }
}

double sb_rf_value(const void *obj, const struct sb_result_field *f, double pct)
{
    if (f->gated && !*(const bool *)((const char *)obj + f->gate))
        return NAN;
    if (f->calc != SB_RF_STORED)
        return calc_final(obj, f, pct);
    if (f->ctype == SB_RF_STAT)
        return sb_rf_get(((const struct sb_point_result *)obj)->total, f);
    return sb_rf_get(obj, f);
}

uint64_t sb_rf_count(const void *obj, const struct sb_result_field *f)
{
    const struct sb_point_result *p = obj;
    const char *at = (const char *)obj + f->offset;

    if (f->calc == SB_RF_QUERIES)
        return sb_stats_queries(p->total);
    if (f->calc == SB_RF_LAT_COUNT)
        return ((const struct sb_hist *)((const char *)p->total + f->arg))->total;
    switch (f->ctype) {
    case SB_RF_U64:
        return *(const uint64_t *)at;
    case SB_RF_UINT:
        return *(const unsigned *)at;
    case SB_RF_STAT:
        return *(const uint64_t *)((const char *)p->total + f->offset);
    default:
        return (uint64_t)sb_rf_value(obj, f, 0);
    }
}

const char *sb_rf_leaf(const struct sb_result_field *f)
{
    const char *dot = strrchr(f->path, '.');

    return dot != NULL ? dot + 1 : f->path;
}

size_t sb_rf_group_len(const struct sb_result_field *f)
{
    return (size_t)(sb_rf_leaf(f) - f->path);
}

struct ctx {
    const char *file;
    char *err;
    size_t errlen;
};

/* Whether number x fits field f (type and range). */
static bool fits(double x, const struct sb_result_field *f)
{
    return isfinite(x) && x >= f->min && x <= f->max && (f->type != SB_RF_COUNT || x == floor(x));
}

static int bad_value(struct ctx *c, const char *where, const char *path, const char *key,
                     double x, const struct sb_result_field *f)
{
    snprintf(c->err, c->errlen, "'%s': %s%s%s%s is %g, expected %s%g..%g", c->file, where,
             path, key ? "." : "", key ? key : "", x,
             f->type == SB_RF_COUNT ? "an integer " : "", f->min, f->max);
    return -1;
}

/* A percentile map: at most SB_MAX_PERCENTILES members, each a number in
 * f's range or null. */
static int check_pcts(struct ctx *c, const struct sb_jv *m, const char *where,
                      const struct sb_result_field *f)
{
    if (m->type != SB_JV_OBJECT)
        return 0;
    if (m->n > SB_MAX_PERCENTILES) {
        snprintf(c->err, c->errlen, "'%s': %s%s has %zu percentiles, expected at most %d",
                 c->file, where, f->path, (size_t)m->n, SB_MAX_PERCENTILES);
        return -1;
    }
    for (size_t k = 0; k < m->n; k++)
        if (m->items[k].type == SB_JV_NUMBER && !fits(m->items[k].number, f))
            return bad_value(c, where, f->path, sb_jv_key(m, k), m->items[k].number, f);
    return 0;
}

static int check_object(struct ctx *c, const struct sb_jv *o, const struct sb_result_field *t,
                        const char *where)
{
    for (; t->path != NULL; t++) {
        const struct sb_jv *v = sb_jv_path(o, t->path);
        if (!SB_RF_NUMERIC(t))
            continue;
        if (t->type == SB_RF_PCTS) {
            /* Anything but a map is no percentile and is not read. */
            if (v != NULL && check_pcts(c, v, where, t) != 0)
                return -1;
            continue;
        }
        if (v == NULL || v->type != SB_JV_NUMBER) {
            if (!t->required)
                continue;
            snprintf(c->err, c->errlen, "'%s': %s%s is %s, expected %s%g..%g", c->file, where,
                     t->path, v == NULL ? "missing" : "not a number",
                     t->type == SB_RF_COUNT ? "an integer " : "a number ", t->min, t->max);
            return -1;
        }
        if (!fits(v->number, t))
            return bad_value(c, where, t->path, NULL, v->number, t);
    }
    return 0;
}

int sb_result_fields_check_object(const struct sb_jv *o, const struct sb_result_field *t,
                                  const char *file, const char *where, char *err,
                                  size_t errlen)
{
    struct ctx c = {file, err, errlen};

    return check_object(&c, o, t, where);
}

/* A histogram object (absent or null passes): its fields, and at most
 * SB_HIST_BUCKETS buckets, each [low, high, count] of integers with low
 * within the layout. */
static int check_hist(struct ctx *c, const struct sb_jv *h, const char *where)
{
    static const struct sb_result_field low = {
        .path = "low", .unit = "ns", .type = SB_RF_COUNT, .merge = SB_RF_HIST, .min = 0,
        .max = (double)SB_HIST_MAX_NS, .required = true
    }, count = { .path = "count", .unit = "1", .type = SB_RF_COUNT, .merge = SB_RF_SUM,
                 .min = 0, .max = SB_RF_MAX_VALUE, .required = true };
    const struct sb_jv *b = sb_jv_get(h, "buckets");
    char at[96];

    if (h == NULL || h->type == SB_JV_NULL)
        return 0;
    if (check_object(c, h, sb_rf_hist, where) != 0)
        return -1;
    if (sb_jv_len(b) > SB_HIST_BUCKETS) {
        snprintf(c->err, c->errlen, "'%s': %sbuckets has %zu buckets, expected at most %d",
                 c->file, where, sb_jv_len(b), (int)SB_HIST_BUCKETS);
        return -1;
    }
    for (size_t k = 0; k < sb_jv_len(b); k++) {
        const struct sb_jv *e = sb_jv_at(b, k);
        double lo = sb_jv_num(sb_jv_at(e, 0)), n = sb_jv_num(sb_jv_at(e, 2));
        snprintf(at, sizeof(at), "%sbuckets[%zu]", where, k);
        if (sb_jv_len(e) != 3 || !fits(lo, &low) || !fits(n, &count)) {
            snprintf(c->err, c->errlen, "'%s': %s is not [low, high, count] with a low of 0..%g "
                     "and a count of 0..%g", c->file, at, low.max, count.max);
            return -1;
        }
    }
    return 0;
}

/* An array or object at path of o no longer than max. */
static int check_len(struct ctx *c, const struct sb_jv *o, const char *path, const char *where,
                     double max)
{
    const struct sb_jv *v = sb_jv_path(o, path);
    size_t n = v != NULL && (v->type == SB_JV_ARRAY || v->type == SB_JV_OBJECT) ? v->n : 0;

    if ((double)n <= max)
        return 0;
    snprintf(c->err, c->errlen, "'%s': %s%s has %zu entries, expected at most %g", c->file, where,
             path, n, max);
    return -1;
}

static int check_point(struct ctx *c, const struct sb_jv *p, size_t i)
{
    const struct sb_jv *ivs = sb_jv_get(p, "intervals");
    const struct sb_jv *fin = sb_jv_get(p, "final");
    char where[96];

    snprintf(where, sizeof(where), "points[%zu].", i);
    if (check_object(c, p, sb_rf_point, where) != 0)
        return -1;
    for (size_t k = 0; k < sb_jv_len(ivs); k++) {
        snprintf(where, sizeof(where), "points[%zu].intervals[%zu].", i, k);
        if (check_object(c, sb_jv_at(ivs, k), sb_rf_interval, where) != 0)
            return -1;
    }
    snprintf(where, sizeof(where), "points[%zu].final.", i);
    if (fin != NULL && fin->type == SB_JV_OBJECT &&
        (check_object(c, fin, sb_rf_final, where) != 0 ||
         check_len(c, fin, "errors.by_code", where, SB_STATS_MAX_CODES) != 0 ||
         check_len(c, fin, "cpu.threads", where, SB_RF_MAX_THREADS) != 0))
        return -1;
    for (size_t k = 0; k < sb_jv_len(sb_jv_path(fin, "errors.by_code")); k++) {
        snprintf(where, sizeof(where), "points[%zu].final.errors.by_code[%zu].", i, k);
        if (check_object(c, sb_jv_at(sb_jv_path(fin, "errors.by_code"), k), sb_rf_code,
                         where) != 0)
            return -1;
    }
    snprintf(where, sizeof(where), "points[%zu].histogram.", i);
    if (check_hist(c, sb_jv_get(p, "histogram"), where) != 0)
        return -1;
    snprintf(where, sizeof(where), "points[%zu].histograms.service.", i);
    if (check_hist(c, sb_jv_path(p, "histograms.service"), where) != 0)
        return -1;
    snprintf(where, sizeof(where), "points[%zu].histograms.lag.", i);
    return check_hist(c, sb_jv_path(p, "histograms.lag"), where);
}

int sb_result_fields_check(const struct sb_jv *doc, const char *file, char *err, size_t errlen)
{
    struct ctx c = {file, err, errlen};
    const struct sb_jv *pts = sb_jv_get(doc, "points");

    if (check_object(&c, doc, sb_rf_doc, "") != 0 ||
        check_len(&c, doc, "options.general", "", SB_RF_MAX_OPTIONS) != 0 ||
        check_len(&c, doc, "options.script", "", SB_RF_MAX_OPTIONS) != 0 ||
        check_len(&c, doc, "percentiles", "", SB_MAX_PERCENTILES) != 0)
        return -1;
    for (size_t i = 0; i < sb_jv_len(pts); i++)
        if (check_point(&c, sb_jv_at(pts, i), i) != 0)
            return -1;
    return 0;
}
