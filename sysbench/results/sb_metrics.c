/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run's figures as Prometheus text and OpenMetrics; see sb_metrics.h.
 *
 * Names follow Prometheus' conventions (prometheus.io, "Metric and label
 * naming"): a sysbench_ prefix, base units (seconds, ratios), _total on
 * counters. The per-second gauges repeat the interval lines' figures
 * exactly (an operator compares the two); the counters are the ones to
 * take rate() of.
 */
#include "results/sb_metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Where a family's samples go: a bounded buffer (the live text) or a
 * stream (the OpenMetrics file). */
struct mout {
    char *buf;
    size_t len, used;           /* used may pass len: the length needed */
    FILE *fp;
    bool om;                    /* OpenMetrics: timestamps, UNIT, # EOF */
    const struct sb_metrics *m;
    const struct sb_metrics_snap *s;
};

static void put(struct mout *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(struct mout *o, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    if (o->fp != NULL) {
        vfprintf(o->fp, fmt, ap);
    } else {
        size_t room = o->used < o->len ? o->len - o->used : 0;
        int n = vsnprintf(room ? o->buf + o->used : NULL, room, fmt, ap);
        if (n > 0)
            o->used += (size_t)n;
    }
    va_end(ap);
}

/* A label value with \, " and newline escaped (both formats' rule). */
static void put_escaped(struct mout *o, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            put(o, "\\%c", *v);
        else if (*v == '\n')
            put(o, "\\n");
        else
            put(o, "%c", *v);
    }
}

/* One sample: name, the common labels, an optional extra label
 * (key="value"), the value and, in OpenMetrics, the timestamp. A value
 * that was not measured (NAN) is left out. */
static void sample_t(struct mout *o, const char *name, const char *type, const char *lkey,
                     const char *lval, double v)
{
    if (isnan(v))
        return;
    put(o, "sysbench_%s{script=\"", name);
    put_escaped(o, o->m->script);
    put(o, "\",sysbench_instance=\"");
    put_escaped(o, o->m->instance);
    put(o, "\"");
    if (type != NULL) {
        put(o, ",type=\"");
        put_escaped(o, type);
        put(o, "\"");
    }
    if (lkey != NULL)
        put(o, ",%s=\"%s\"", lkey, lval);
    put(o, "} %.15g", v);
    if (o->om)
        put(o, " %.3f", o->s->unix_s);
    put(o, "\n");
}

static void sample(struct mout *o, const char *name, const char *lkey, const char *lval,
                   double v)
{
    sample_t(o, name, NULL, lkey, lval, v);
}

static void quantiles_t(struct mout *o, const char *name, const char *type, const double *v)
{
    const struct sb_metrics_snap *s = o->s;
    char q[32];

    for (size_t i = 0; i < s->npcts; i++) {
        snprintf(q, sizeof(q), "%.10g", s->pcts[i] / 100);
        sample_t(o, name, type, "quantile", q, v[i]);
    }
}

static void quantiles(struct mout *o, const char *name, const double *v)
{
    quantiles_t(o, name, NULL, v);
}

/* A family: its name (without _total), type, OpenMetrics unit ("" for
 * none), help, and which samples a snapshot gives it. */
enum fam_id {
    F_TX, F_QUERIES, F_ERRORS, F_RECONN, F_TPS, F_QPS, F_EPS, F_RPS, F_LATENCY, F_LAG,
    F_BACKLOG, F_TARGET, F_THREADS, F_RUNNING, F_CPU_CLIENT, F_CPU_SERVER, F_ELAPSED,
    F_POINT, F_ACTIVE,
    /* A mix only: the same figures per transaction type (label type).
     * Families of their own, not a label on the totals' families: a sum
     * over a family must not count a transaction twice, and the queries'
     * `type` label already means read/write/other. */
    F_MIX_TX, F_MIX_ERRORS, F_MIX_TPS, F_MIX_EPS, F_MIX_LATENCY, F_COUNT
};

static const struct fam {
    const char *name, *type, *unit, *help;
} fams[F_COUNT] = {
    [F_TX] = {"transactions", "counter", "", "Transactions (events) completed"},
    [F_QUERIES] = {"queries", "counter", "", "Queries run, by type (read, write, other)"},
    [F_ERRORS] = {"errors", "counter", "", "Ignored errors (each restarts a transaction)"},
    [F_RECONN] = {"reconnects", "counter", "", "Reconnections after a lost connection"},
    [F_TPS] = {"transactions_per_second", "gauge", "",
               "Transactions per second over the last interval (the interval line's tps)"},
    [F_QPS] = {"queries_per_second", "gauge", "", "Queries per second over the last interval"},
    [F_EPS] = {"errors_per_second", "gauge", "", "Ignored errors per second over the last interval"},
    [F_RPS] = {"reconnects_per_second", "gauge", "",
               "Reconnections per second over the last interval"},
    [F_LATENCY] = {"latency_seconds", "summary", "seconds",
                   "Response time percentiles over the last interval (from the due time in rate modes)"},
    [F_LAG] = {"lag_seconds", "summary", "seconds",
               "Start lag percentiles (start minus due time) over the last interval; rate modes"},
    [F_BACKLOG] = {"backlog_transactions", "gauge", "",
                   "Transactions due but not started at the end of the interval; rate modes"},
    [F_TARGET] = {"target_transactions_per_second", "gauge", "",
                  "This process's target rate (--tx-rate or --rate); rate modes"},
    [F_THREADS] = {"threads", "gauge", "", "Connections (--threads) of the current point"},
    [F_RUNNING] = {"threads_running", "gauge", "", "Connections still running"},
    [F_CPU_CLIENT] = {"client_cpu_ratio", "gauge", "ratio",
                      "CPU used by this client over the last interval, share of all CPUs"},
    [F_CPU_SERVER] = {"server_cpu_ratio", "gauge", "ratio",
                      "CPU used by the database server over the last interval, share of all CPUs"},
    [F_ELAPSED] = {"elapsed_seconds", "gauge", "seconds",
                   "Time from the point's start to the end of the last interval"},
    [F_POINT] = {"point", "gauge", "", "The point of a --threads/--tx-rate sweep, from 1"},
    /* As Prometheus' own "up": a scrape during --metrics-linger tells a
     * finished run from a stalled one; after the linger the target goes
     * down. */
    [F_ACTIVE] = {"run_active", "gauge", "",
                  "1 while the run goes on, 0 once it has ended (the last interval's figures "
                  "stay until the listener closes)"},
    [F_MIX_TX] = {"mix_transactions", "counter", "",
                  "Transactions completed per transaction type of the mix (label type)"},
    [F_MIX_ERRORS] = {"mix_errors", "counter", "", "Ignored errors per transaction type"},
    [F_MIX_TPS] = {"mix_transactions_per_second", "gauge", "",
                   "Transactions per second per transaction type over the last interval"},
    [F_MIX_EPS] = {"mix_errors_per_second", "gauge", "",
                   "Ignored errors per second per transaction type over the last interval"},
    [F_MIX_LATENCY] = {"mix_latency_seconds", "summary", "seconds",
                       "Response time percentiles per transaction type over the last interval"},
};

/* The per-type families: a sample per type of the mix. */
static void emit_types(struct mout *o, enum fam_id f, const char *n, const char *total)
{
    for (unsigned k = 0; k < o->m->ntypes; k++) {
        const struct sb_metrics_type *t = &o->s->types[k];
        const char *name = o->m->type_names[k];

        switch (f) {
        case F_MIX_TX: sample_t(o, total, name, NULL, NULL, (double)t->transactions); break;
        case F_MIX_ERRORS: sample_t(o, total, name, NULL, NULL, (double)t->errors); break;
        case F_MIX_TPS: sample_t(o, n, name, NULL, NULL, t->tps); break;
        case F_MIX_EPS: sample_t(o, n, name, NULL, NULL, t->errors_ps); break;
        case F_MIX_LATENCY: quantiles_t(o, n, name, t->latency_s); break;
        default: break;
        }
    }
}

static void emit(struct mout *o, enum fam_id f)
{
    const struct sb_metrics_snap *s = o->s;
    const char *n = fams[f].name;
    char total[64];

    snprintf(total, sizeof(total), "%s_total", n);
    switch (f) {
    case F_TX: sample(o, total, NULL, NULL, (double)s->transactions); break;
    case F_QUERIES:
        sample(o, total, "type", "read", (double)s->reads);
        sample(o, total, "type", "write", (double)s->writes);
        sample(o, total, "type", "other", (double)s->other);
        break;
    case F_ERRORS: sample(o, total, NULL, NULL, (double)s->errors); break;
    case F_RECONN: sample(o, total, NULL, NULL, (double)s->reconnects); break;
    case F_TPS: sample(o, n, NULL, NULL, s->tps); break;
    case F_QPS: sample(o, n, NULL, NULL, s->qps); break;
    case F_EPS: sample(o, n, NULL, NULL, s->errors_ps); break;
    case F_RPS: sample(o, n, NULL, NULL, s->reconnects_ps); break;
    case F_LATENCY: quantiles(o, n, s->latency_s); break;
    case F_LAG: if (s->rate_mode) quantiles(o, n, s->lag_s); break;
    case F_BACKLOG: if (s->rate_mode) sample(o, n, NULL, NULL, (double)s->backlog); break;
    case F_TARGET: if (s->rate_mode) sample(o, n, NULL, NULL, s->target_tps); break;
    case F_THREADS: sample(o, n, NULL, NULL, s->threads); break;
    case F_RUNNING: sample(o, n, NULL, NULL, s->threads_running); break;
    case F_CPU_CLIENT: sample(o, n, NULL, NULL, s->cpu_client); break;
    case F_CPU_SERVER: sample(o, n, NULL, NULL, s->cpu_server); break;
    case F_ELAPSED: sample(o, n, NULL, NULL, s->elapsed_s); break;
    case F_POINT: sample(o, n, NULL, NULL, s->point); break;
    case F_ACTIVE: sample(o, n, NULL, NULL, s->ended ? 0 : 1); break;
    case F_MIX_TX: case F_MIX_ERRORS: case F_MIX_TPS: case F_MIX_EPS: case F_MIX_LATENCY:
        emit_types(o, f, n, total);
        break;
    case F_COUNT: break;
    }
}

/* The family's metadata lines. The text format names a counter's TYPE by
 * its sample name (with _total), OpenMetrics by the family's. */
static void header(struct mout *o, enum fam_id f)
{
    const struct fam *d = &fams[f];
    const char *sfx = !o->om && strcmp(d->type, "counter") == 0 ? "_total" : "";

    if (f >= F_MIX_TX && o->m->ntypes == 0)
        return;

    put(o, "# HELP sysbench_%s%s %s.\n", d->name, sfx, d->help);
    put(o, "# TYPE sysbench_%s%s %s\n", d->name, sfx, d->type);
    if (o->om && *d->unit)
        put(o, "# UNIT sysbench_%s %s\n", d->name, d->unit);
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b != NULL ? b + 1 : path;
}

void sb_metrics_init(struct sb_metrics *m, const char *script, unsigned instance, bool keep)
{
    const char *b = base_name(script != NULL ? script : "");
    size_t n = strlen(b);

    memset(m, 0, sizeof(*m));
    if (n > 4 && strcmp(b + n - 4, ".lua") == 0)
        n -= 4;
    if (n >= sizeof(m->script))
        n = sizeof(m->script) - 1;
    memcpy(m->script, b, n);
    m->script[n] = '\0';
    snprintf(m->instance, sizeof(m->instance), "%u", instance);
    pthread_mutex_init(&m->lock, NULL);
    m->keep = keep;
}

void sb_metrics_set_types(struct sb_metrics *m, const struct sb_mix *mix)
{
    m->ntypes = 0;
    for (unsigned k = 0; mix != NULL && k < mix->n && k < SB_MIX_MAX; k++) {
        snprintf(m->type_names[k], sizeof(m->type_names[k]), "%s", mix->t[k].name);
        m->ntypes = k + 1;
    }
}

void sb_metrics_publish_types(struct sb_metrics *m, const struct sb_type_interval *tiv,
                              unsigned n)
{
    for (unsigned k = 0; k < n && k < m->ntypes; k++) {
        struct sb_metrics_type *t = &m->totals.types[k];

        t->transactions += tiv[k].events;
        t->errors += tiv[k].errors;
        t->tps = tiv[k].tps;
        t->errors_ps = tiv[k].errors_ps;
        for (size_t i = 0; i < SB_MAX_PERCENTILES; i++)
            t->latency_s[i] = tiv[k].latency_ms[i] / 1e3;
    }
}

void sb_metrics_free(struct sb_metrics *m)
{
    pthread_mutex_destroy(&m->lock);
    free(m->hist);
    m->hist = NULL;
    m->nhist = m->cap = 0;
}

/* count per second over t seconds, back to a whole count. */
static uint64_t count_of(double per_s, double t)
{
    double c = round(per_s * t);
    return c > 0 ? (uint64_t)c : 0;
}

/* Keeps s for the file, growing the array. Returns 0, or -1. */
static int keep(struct sb_metrics *m, const struct sb_metrics_snap *s)
{
    if (m->nhist == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        struct sb_metrics_snap *h = realloc(m->hist, cap * sizeof(*h));
        if (h == NULL)
            return -1;
        m->hist = h;
        m->cap = cap;
    }
    m->hist[m->nhist++] = *s;
    return 0;
}

int sb_metrics_publish(struct sb_metrics *m, const struct sb_interval *iv, const double *pcts,
                       size_t npcts, unsigned point, unsigned threads, bool rate_mode,
                       double target_tps)
{
    struct sb_metrics_snap *t = &m->totals;
    double dt = iv->interval_s;

    t->transactions += iv->events;
    t->reads += count_of(iv->reads_ps, dt);
    t->writes += count_of(iv->writes_ps, dt);
    t->other += count_of(iv->other_ps, dt);
    t->errors += count_of(iv->errors_ps, dt);
    t->reconnects += count_of(iv->reconnects_ps, dt);
    t->unix_s = iv->epoch_s;
    t->elapsed_s = iv->time_s;
    t->point = point;
    t->threads = threads;
    t->threads_running = iv->threads;
    t->tps = iv->tps;
    t->qps = iv->qps;
    t->errors_ps = iv->errors_ps;
    t->reconnects_ps = iv->reconnects_ps;
    t->npcts = npcts < SB_MAX_PERCENTILES ? npcts : SB_MAX_PERCENTILES;
    for (size_t i = 0; i < t->npcts; i++) {
        t->pcts[i] = pcts[i];
        t->latency_s[i] = iv->latency_ms[i] / 1e3;
        t->lag_s[i] = iv->lag_ms[i] / 1e3;
    }
    t->rate_mode = rate_mode;
    t->target_tps = target_tps;
    t->backlog = iv->backlog;
    t->cpu_client = iv->cpu_client_pct / 100;
    t->cpu_server = iv->cpu_server_pct / 100;
    pthread_mutex_lock(&m->lock);
    m->latest = *t;
    m->have_latest = true;
    pthread_mutex_unlock(&m->lock);
    return m->keep ? keep(m, t) : 0;
}

void sb_metrics_finish(struct sb_metrics *m)
{
    pthread_mutex_lock(&m->lock);
    if (!m->have_latest) {
        /* Nothing published: the counters at 0, nothing else measured. */
        memset(&m->latest, 0, sizeof(m->latest));
        m->latest.cpu_client = m->latest.cpu_server = NAN;
        m->latest.elapsed_s = m->latest.tps = m->latest.qps = NAN;
        m->latest.errors_ps = m->latest.reconnects_ps = NAN;
        m->have_latest = true;
    }
    m->latest.ended = true;
    pthread_mutex_unlock(&m->lock);
}

bool sb_metrics_latest(struct sb_metrics *m, struct sb_metrics_snap *out)
{
    bool have;

    pthread_mutex_lock(&m->lock);
    have = m->have_latest;
    if (have)
        *out = m->latest;
    pthread_mutex_unlock(&m->lock);
    if (!have)
        memset(out, 0, sizeof(*out));
    return have;
}

size_t sb_metrics_format_text(const struct sb_metrics *m, const struct sb_metrics_snap *s,
                              char *buf, size_t len)
{
    struct sb_metrics_snap zero;
    struct mout o = {.buf = buf, .len = len, .m = m, .s = s};

    if (len > 0)
        buf[0] = '\0';
    if (s == NULL) {
        /* Before the first interval: the counters only, at 0. */
        memset(&zero, 0, sizeof(zero));
        o.s = &zero;
        for (enum fam_id f = F_TX; f <= F_RECONN; f++) {
            header(&o, f);
            emit(&o, f);
        }
        header(&o, F_ACTIVE);
        emit(&o, F_ACTIVE);
        return o.used;
    }
    for (enum fam_id f = 0; f < F_COUNT; f++) {
        header(&o, f);
        emit(&o, f);
    }
    return o.used;
}

int sb_metrics_write_openmetrics(const struct sb_metrics *m, FILE *fp)
{
    struct mout o = {.fp = fp, .om = true, .m = m};

    for (enum fam_id f = 0; f < F_COUNT; f++) {
        header(&o, f);
        for (size_t i = 0; i < m->nhist; i++) {
            o.s = &m->hist[i];
            emit(&o, f);
        }
    }
    fputs("# EOF\n", fp);
    return ferror(fp) ? -1 : 0;
}

bool sb_metrics_is_file(const char *head, size_t len)
{
    static const char first[] = "# HELP sysbench_transactions ";
    return len >= sizeof(first) - 1 && memcmp(head, first, sizeof(first) - 1) == 0;
}
