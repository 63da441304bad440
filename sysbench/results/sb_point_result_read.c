/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A point of a result file read back into the model (struct sb_point_result);
 * see sb_point_result.h. Unknown fields are ignored, as the schema asks of
 * readers; figures a file does not have are NaN (or empty histograms),
 * never an error, so a hand-edited file loses only what it broke.
 */
#include "config.h"

#include "results/sb_point_result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pure/sb_histogram.h"
#include "core/sb_json_read.h"
#include "results/sb_result_fields.h"
#include "results/sb_stmt_result.h"

/* A non-negative integer field, for counts and nanoseconds; 0 when the
 * field is missing or not a number. */
static uint64_t get_u64(const struct sb_jv *v)
{
    double d = sb_jv_num(v);
    return d >= 0 && d < 1.8e19 ? (uint64_t)d : 0;
}

/* A repeat number: 1 when missing or out of range (a hand-edited file
 * must not make a cast overflow). */
static unsigned get_count(const struct sb_jv *v)
{
    double d = sb_jv_num(v);
    return d >= 1 && d <= 1e6 ? (unsigned)d : 1;
}

/* A percentile key ("95", "99.9"); false when the key is not a number. */
static bool pct_key(const char *key, double *pct)
{
    char *end;

    *pct = strtod(key, &end);
    return *end == '\0' && end != key;
}

/* final.cpu.threads: the worker threads' CPU. */
static int read_threads(struct sb_point_result *p, const struct sb_jv *th)
{
    size_t n = sb_jv_len(th);

    if (n == 0 || n > 1e7)
        return 0;
    p->thread_cpu = calloc(n, sizeof(*p->thread_cpu));
    if (p->thread_cpu == NULL)
        return -1;
    p->nthread_cpu = (unsigned)n;
    for (size_t i = 0; i < n; i++) {
        const struct sb_jv *t = sb_jv_at(th, i);
        p->thread_cpu[i].user_s = sb_jv_num(sb_jv_get(t, "user_s"));
        p->thread_cpu[i].system_s = sb_jv_num(sb_jv_get(t, "system_s"));
        p->thread_cpu[i].events = get_u64(sb_jv_get(t, "events"));
    }
    return 0;
}

/* Rebuilds histogram h (empty) from its buckets, skipping malformed ones:
 * a file edited by hand must not make the charts fail, only lose those
 * buckets. h stays empty when no bucket is usable. */
static void read_histogram(struct sb_hist *h, const struct sb_jv *hj)
{
    const struct sb_jv *b = sb_jv_get(hj, "buckets");
    size_t n = sb_jv_len(b);
    uint64_t max_ns = get_u64(sb_jv_get(hj, "max_ns")), prev_high = 0;

    for (size_t i = 0; i < n; i++) {
        const struct sb_jv *e = sb_jv_at(b, i);
        uint64_t low, high, count;
        if (sb_jv_len(e) != 3)
            continue;
        low = get_u64(sb_jv_at(e, 0));
        high = get_u64(sb_jv_at(e, 1));
        count = get_u64(sb_jv_at(e, 2));
        if (count == 0 || high < low)
            continue;
        /* Buckets out of increasing order are as malformed as the rest. */
        if (h->total > 0 && low <= prev_high)
            continue;
        sb_hist_add_bucket(h, low, count);
        prev_high = high;
    }
    /* The exact maximum caps the top percentiles, as in the run; a file
     * without it gives its last bucket's bound. */
    if (h->total > 0)
        h->max_ns = max_ns > 0 ? max_ns : prev_high;
}

/* The error codes of final.errors.by_code, as many as the stats keep. */
static void read_codes(struct sb_stats *t, const struct sb_jv *codes)
{
    for (size_t i = 0; i < sb_jv_len(codes) && t->ncodes < SB_STATS_MAX_CODES; i++) {
        const struct sb_jv *c = sb_jv_at(codes, i);
        const struct sb_jv *code = sb_jv_get(c, "code");
        const char *kind = sb_jv_str(sb_jv_get(c, "kind"));
        struct sb_error_count *e = &t->codes[t->ncodes];
        if (sb_jv_str(code) == NULL)
            continue;
        sb_jv_escape(e->code, sizeof(e->code), code->string, sb_jv_str_len(code));
        e->reconnect = kind != NULL && strcmp(kind, "reconnect") == 0;
        e->count = get_u64(sb_jv_get(c, "count"));
        t->ncodes++;
    }
}

/* The final response-time percentiles as the file stored them. */
static void read_file_pcts(struct sb_point_result *p, const struct sb_jv *pm)
{
    for (size_t i = 0; pm != NULL && pm->type == SB_JV_OBJECT && i < pm->n &&
                       p->nfile_pcts < SB_MAX_PERCENTILES; i++) {
        double pct;
        if (!pct_key(sb_jv_key(pm, i), &pct))
            continue;
        p->file_pcts[p->nfile_pcts] = pct;
        p->file_pct_ms[p->nfile_pcts++] = sb_jv_num(&pm->items[i]);
    }
}

/* Final figure f of point p from the file's value v, into the place
 * sb_rf_final gives it (p->total holds the counters). */
static int read_final_field(struct sb_point_result *p, const struct sb_result_field *f,
                            const struct sb_jv *v)
{
    char *at = (char *)p + f->offset;

    switch (f->ctype) {
    case SB_RF_DOUBLE:
    case SB_RF_U64:
    case SB_RF_UINT:
        sb_rf_read(p, f, v);
        if (f->gated && !*(const bool *)((const char *)p + f->gate))
            *(double *)at = NAN;
        break;
    case SB_RF_STAT:
        sb_rf_read(p->total, f, v);
        break;
    case SB_RF_BOOL:
        *(bool *)at = sb_jv_true(v);
        break;
    case SB_RF_STR:
        /* Printed by compare: the file's control bytes escaped. */
        sb_jv_escape(at, f->arg, sb_jv_str(v) ? v->string : "", sb_jv_str_len(v));
        break;
    case SB_RF_FILE_PCTS:
        read_file_pcts(p, v);
        break;
    case SB_RF_CODES:
        read_codes(p->total, v);
        break;
    case SB_RF_THREADS:
        return read_threads(p, v);
    default:
        break;    /* computed from the others, or said elsewhere */
    }
    return 0;
}

/* The final figures of a complete point, as sb_rf_final lays them out,
 * then the histograms. */
static int read_final(struct sb_point_result *p, const struct sb_jv *pj, const struct sb_jv *fin)
{
    if ((p->total = sb_stats_new()) == NULL)
        return -1;
    for (const struct sb_result_field *f = sb_rf_final; f->path != NULL; f++)
        if (read_final_field(p, f, sb_jv_path(fin, f->path)) != 0)
            return -1;
    /* The jitter is measured in fixed-rate mode only. */
    if (p->cfg.mode != SB_PACE_FIXED || !isfinite(p->cfg.jitter_us))
        p->cfg.jitter_us = 0;
    read_histogram(&p->total->response, sb_jv_get(pj, "histogram"));
    read_histogram(&p->total->service, sb_jv_path(pj, "histograms.service"));
    read_histogram(&p->total->lag, sb_jv_path(pj, "histograms.lag"));
    return 0;
}

/* A percentile map of an interval ("latency_ms", "lag_ms") at p->pcts. */
static void read_iv_map(const struct sb_point_result *p, const struct sb_jv *m, double *ms)
{
    for (size_t j = 0; j < p->npcts; j++) {
        char key[32];
        snprintf(key, sizeof(key), "%g", p->pcts[j]);
        ms[j] = sb_jv_num(sb_jv_get(m, key));
    }
}

/* An interval: the fields sb_rf_interval places in struct sb_interval. */
static void read_interval(const struct sb_point_result *p, struct sb_interval *iv,
                          const struct sb_jv *ij)
{
    for (const struct sb_result_field *f = sb_rf_interval; f->path != NULL; f++) {
        const struct sb_jv *v = sb_jv_path(ij, f->path);
        if (f->ctype == SB_RF_PCT_MAP)
            read_iv_map(p, v, (double *)((char *)iv + f->offset));
        else
            sb_rf_read(iv, f, v);
    }
}

/* The interval series; the percentiles are the first interval's keys. */
static int read_intervals(struct sb_point_result *p, const struct sb_jv *ivs)
{
    size_t n = sb_jv_len(ivs);
    const struct sb_jv *lm = sb_jv_path(ivs, "0.latency_ms");

    if (n == 0)
        return 0;
    for (size_t i = 0; lm != NULL && lm->type == SB_JV_OBJECT && i < lm->n &&
                       p->npcts < SB_MAX_PERCENTILES; i++)
        if (pct_key(sb_jv_key(lm, i), &p->pcts[p->npcts]))
            p->npcts++;
    p->intervals = calloc(n, sizeof(*p->intervals));
    if (p->intervals == NULL)
        return -1;
    p->nintervals = p->cap = n;
    for (size_t i = 0; i < n; i++)
        read_interval(p, &p->intervals[i], sb_jv_at(ivs, i));
    return 0;
}

/* What the point ran with: threads, rate mode and target, repeat. */
static void read_config(struct sb_point_result *p, const struct sb_jv *pj)
{
    const char *mode = sb_jv_str(sb_jv_get(pj, "rate_mode"));
    double th = sb_jv_num(sb_jv_get(pj, "threads"));

    p->cfg.threads = th >= 0 && th < 1e9 ? (unsigned)th : 0;
    /* An unknown mode name from a newer writer is still a rate mode. */
    if (!sb_pace_mode_parse(mode, &p->cfg.mode) && mode != NULL)
        p->cfg.mode = SB_PACE_FIXED;
    p->cfg.target_tps = sb_pace_rated(p->cfg.mode) ? sb_jv_num(sb_jv_get(pj, "target_tps")) : 0;
    p->cfg.repeat = get_count(sb_jv_get(pj, "repeat"));
    p->cfg.nrepeat = get_count(sb_jv_get(pj, "repeats"));
}

int sb_point_result_read_json(struct sb_point_result *p, const struct sb_jv *pj, unsigned ncpus)
{
    const struct sb_jv *fin = sb_jv_get(pj, "final");

    memset(p, 0, sizeof(*p));
    read_config(p, pj);
    p->read_back = true;
    p->ncpus = ncpus;
    p->interrupted = sb_jv_true(sb_jv_get(pj, "interrupted"));
    p->start_unix_s = sb_jv_num(sb_jv_get(pj, "start_unix_s"));
    if (read_intervals(p, sb_jv_get(pj, "intervals")) != 0)
        return -1;
    if (!sb_jv_true(sb_jv_get(pj, "complete")) || fin == NULL || fin->type != SB_JV_OBJECT)
        return 0;
    if (read_final(p, pj, fin) != 0)
        return -1;
    return sb_stmt_result_read(sb_jv_get(pj, "statements"), &p->stmts);
}
