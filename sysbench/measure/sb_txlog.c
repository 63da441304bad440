/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pgbench-style transaction logs; see sb_txlog.h.
 */
#include "measure/sb_txlog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/sb_clock.h"
#include "pure/sb_decimal.h"

int sb_txlog_open(struct sb_txlog *l, const char *path, double agg_s, char *err,
                  size_t errlen)
{
    struct timespec rt;

    memset(l, 0, sizeof(*l));
    if (sb_safefile_open_marked(&l->file, path, "--log", sb_safefile_is_txlog, "txlog", err,
                                errlen) != 0)
        return -1;
    pthread_mutex_init(&l->lock, NULL);
    l->agg_s = agg_s;
    clock_gettime(CLOCK_REALTIME, &rt);
    l->epoch_offset_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec - (int64_t)sb_now_ns();
    return 0;
}

void sb_txlog_thread_init(struct sb_txlog_thread *t, struct sb_txlog *l, int tid, bool lag)
{
    memset(t, 0, sizeof(*t));
    t->log = l;
    t->tid = tid;
    t->lag = lag;
    t->agg.start = -1;
}

void sb_txlog_start(struct sb_txlog_thread *t)
{
    __atomic_store_n(&t->log->started, true, __ATOMIC_RELEASE);
}

/* A short write leaves the stream's error flag set, which
 * sb_safefile_commit reports. Once the log is closed (a worker abandoned
 * at the end of the run may still flush), lines are dropped. */
static void write_out(struct sb_txlog *l, const char *buf, size_t len)
{
    pthread_mutex_lock(&l->lock);
    if (len > 0 && l->file.fp != NULL)
        fwrite(buf, 1, len, l->file.fp);
    pthread_mutex_unlock(&l->lock);
}

static void text_flush(struct sb_txlog_text *x, struct sb_txlog *l)
{
    write_out(l, x->buf, x->len);
    x->len = 0;
}

static double us(uint64_t ns)
{
    return (double)ns / 1000.0;
}

/* Doubles the room for intervals (under the lock). Returns 0, or -1 when
 * out of memory. */
static int grow_aggs(struct sb_txlog *l)
{
    size_t cap = l->agg_cap ? l->agg_cap * 2 : 256;
    struct sb_txlog_agg *na = realloc(l->aggs, cap * sizeof(*na));

    if (na == NULL)
        return -1;
    l->aggs = na;
    l->agg_cap = cap;
    return 0;
}

/* Adds a into the log's interval with the same start (under the lock),
 * keeping the intervals sorted: workers finish intervals in about time
 * order, so the place is searched from the end. */
static void agg_publish(struct sb_txlog *l, const struct sb_txlog_agg *a)
{
    size_t i;

    if (a->start < 0 || a->cnt == 0)
        return;
    pthread_mutex_lock(&l->lock);
    if (l->file.fp == NULL) { /* closed: an abandoned worker's late interval */
        pthread_mutex_unlock(&l->lock);
        return;
    }
    i = l->nagg;
    while (i > 0 && l->aggs[i - 1].start > a->start)
        i--;
    if (i > 0 && l->aggs[i - 1].start == a->start) {
        struct sb_txlog_agg *d = &l->aggs[i - 1];
        d->cnt += a->cnt;
        d->retried += a->retried;
        d->retries += a->retries;
        d->skipped += a->skipped;
        d->sum += a->sum;
        d->sum2 += a->sum2;
        d->min = fmin(d->min, a->min);
        d->max = fmax(d->max, a->max);
        d->lsum += a->lsum;
        d->lsum2 += a->lsum2;
        d->lmin = fmin(d->lmin, a->lmin);
        d->lmax = fmax(d->lmax, a->lmax);
    } else if (l->nagg == l->agg_cap && grow_aggs(l) != 0) {
        l->agg_oom = true;
    } else {
        memmove(&l->aggs[i + 1], &l->aggs[i], (l->nagg - i) * sizeof(*l->aggs));
        l->aggs[i] = *a;
        l->nagg++;
    }
    pthread_mutex_unlock(&l->lock);
}

static void agg_add(struct sb_txlog_thread *t, const struct sb_txlog_rec *r, int64_t epoch_s)
{
    struct sb_txlog_agg *a = &t->agg;
    int64_t width = (int64_t)t->log->agg_s;
    int64_t start = epoch_s - epoch_s % (width > 0 ? width : 1);
    double lat = us(r->resp_ns), lag = t->lag ? us(r->lag_ns) : 0;

    if (start != a->start) {
        agg_publish(t->log, a);
        memset(a, 0, sizeof(*a));
        a->start = start;
        a->min = a->lmin = INFINITY;
    }
    a->cnt++;
    a->sum += lat;
    a->sum2 += lat * lat;
    a->min = fmin(a->min, lat);
    a->max = fmax(a->max, lat);
    a->lsum += lag;
    a->lsum2 += lag * lag;
    a->lmin = fmin(a->lmin, lag);
    a->lmax = fmax(a->lmax, lag);
    a->retried += r->retries > 0;
    a->retries += r->retries;
    a->skipped += r->skipped;
}

/* The aggregate lines, in time order (under the lock). pgbench 15's
 * fields; see sb_txlog.h. */
static void agg_write(struct sb_txlog *l)
{
    for (size_t i = 0; i < l->nagg && l->file.fp != NULL; i++) {
        const struct sb_txlog_agg *a = &l->aggs[i];
        fprintf(l->file.fp,
                "%lld %llu %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %llu %llu %llu 0 0\n",
                (long long)a->start, (unsigned long long)a->cnt, a->sum, a->sum2, a->min,
                a->max, a->lsum, a->lsum2, a->lmin, a->lmax, (unsigned long long)a->skipped,
                (unsigned long long)a->retried, (unsigned long long)a->retries);
    }
}

/* Appends v in decimal and then c to p; returns the new end. */
static char *put_u(char *p, uint64_t v, char c)
{
    p += sb_decimal_u64(p, v);
    *p++ = c;
    return p;
}

/* One per-transaction line. Hand-formatted: a log of an empty event
 * writes millions of lines a second, and printf's parsing was most of
 * its cost. */
static void line(struct sb_txlog_text *x, struct sb_txlog *l, const struct sb_txlog_thread *t,
                 const struct sb_txlog_rec *r, int64_t sec, int64_t usec)
{
    char *p;

    if (x->len > sizeof(x->buf) - 160)
        text_flush(x, l);
    p = x->buf + x->len;
    p = put_u(p, (uint64_t)t->tid, ' ');
    p = put_u(p, t->txno, ' ');
    p = put_u(p, (r->resp_ns + 500) / 1000, ' ');
    p = put_u(p, 0, ' ');
    p = put_u(p, (uint64_t)sec, ' ');
    if (t->lag) {
        p = put_u(p, (uint64_t)usec, ' ');
        p = put_u(p, (r->lag_ns + 500) / 1000, '\n');
    } else {
        p = put_u(p, (uint64_t)usec, '\n');
    }
    x->len = (size_t)(p - x->buf);
}

void sb_txlog_flush(struct sb_txlog_thread *t)
{
    struct sb_txlog *l = t->log;
    struct sb_txlog_text *x = &t->text;

    x->len = 0;
    for (unsigned i = 0; i < t->n; i++) {
        const struct sb_txlog_rec *r = &t->recs[i];
        int64_t epoch_ns = (int64_t)r->end_ns + l->epoch_offset_ns;
        int64_t sec = epoch_ns / 1000000000, usec = (epoch_ns % 1000000000) / 1000;

        if (l->agg_s > 0) {
            agg_add(t, r, sec);
            continue;
        }
        t->txno++;
        line(x, l, t, r, sec, usec);
    }
    t->n = 0;
    text_flush(x, l);
}

void sb_txlog_thread_done(struct sb_txlog_thread *t, uint64_t skipped)
{
    sb_txlog_flush(t);
    if (t->log->agg_s > 0) {
        /* Slots dropped after the thread's last transaction (the run
         * ended before it took another) have no record to ride on: they
         * belong to its last interval, as the report counts them. */
        t->agg.skipped += skipped - t->skipped_seen;
        t->skipped_seen = skipped;
        agg_publish(t->log, &t->agg);
        t->agg.cnt = 0;
    }
}

int sb_txlog_close(struct sb_txlog *l, char *err, size_t errlen)
{
    int rc = 0;

    /* The lock stays initialised: an abandoned worker may still take it. */
    pthread_mutex_lock(&l->lock);
    if (__atomic_load_n(&l->started, __ATOMIC_ACQUIRE)) {
        agg_write(l);
        rc = sb_safefile_commit(&l->file, err, errlen);
        if (rc == 0 && l->agg_oom) {
            snprintf(err, errlen, "out of memory: intervals are missing from the --log file");
            rc = -1;
        }
    } else {
        sb_safefile_abandon(&l->file);
    }
    /* Later intervals (an abandoned worker) are dropped, not kept. */
    free(l->aggs);
    l->aggs = NULL;
    l->nagg = l->agg_cap = 0;
    pthread_mutex_unlock(&l->lock);
    return rc;
}
