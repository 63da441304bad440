/*
 * pgbench-style transaction logs; see sb_txlog.h.
 */
#include "sb_txlog.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "sb_clock.h"

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
    t->agg_start = -1;
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

static void text_line(struct sb_txlog_text *x, struct sb_txlog *l, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void text_line(struct sb_txlog_text *x, struct sb_txlog *l, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (x->len > sizeof(x->buf) - 512)
        text_flush(x, l);
    va_start(ap, fmt);
    n = vsnprintf(x->buf + x->len, sizeof(x->buf) - x->len, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof(x->buf) - x->len)
        x->len += (size_t)n;
}

static double us(uint64_t ns)
{
    return (double)ns / 1000.0;
}

/* The aggregate line of the interval being summed, then a fresh one. */
static void agg_emit(struct sb_txlog_thread *t, struct sb_txlog_text *x)
{
    if (t->agg_start < 0 || t->cnt == 0)
        return;
    text_line(x, t->log,
              "%lld %llu %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f 0 %llu %llu 0 0 0\n",
              (long long)t->agg_start, (unsigned long long)t->cnt, t->sum, t->sum2, t->min,
              t->max, t->lsum, t->lsum2, t->cnt ? t->lmin : 0, t->lmax,
              (unsigned long long)t->retried, (unsigned long long)t->retries);
}

static void agg_add(struct sb_txlog_thread *t, const struct sb_txlog_rec *r, int64_t epoch_s,
                    struct sb_txlog_text *x)
{
    int64_t width = (int64_t)t->log->agg_s;
    int64_t start = epoch_s - epoch_s % (width > 0 ? width : 1);
    double lat = us(r->resp_ns), lag = t->lag ? us(r->lag_ns) : 0;

    if (start != t->agg_start) {
        agg_emit(t, x);
        t->agg_start = start;
        t->cnt = t->retried = t->retries = 0;
        t->sum = t->sum2 = t->max = t->lsum = t->lsum2 = t->lmax = 0;
        t->min = t->lmin = INFINITY;
    }
    t->cnt++;
    t->sum += lat;
    t->sum2 += lat * lat;
    t->min = fmin(t->min, lat);
    t->max = fmax(t->max, lat);
    t->lsum += lag;
    t->lsum2 += lag * lag;
    t->lmin = fmin(t->lmin, lag);
    t->lmax = fmax(t->lmax, lag);
    t->retried += r->retries > 0;
    t->retries += r->retries;
}

/* Appends v in decimal and then c to p; returns the new end. */
static char *put_u(char *p, uint64_t v, char c)
{
    char tmp[24];
    int n = 0;

    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0)
        *p++ = tmp[--n];
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
            agg_add(t, r, sec, x);
            continue;
        }
        t->txno++;
        line(x, l, t, r, sec, usec);
    }
    t->n = 0;
    text_flush(x, l);
}

void sb_txlog_thread_done(struct sb_txlog_thread *t)
{
    sb_txlog_flush(t);
    if (t->log->agg_s > 0) {
        t->text.len = 0;
        agg_emit(t, &t->text);
        t->cnt = 0;
        text_flush(&t->text, t->log);
    }
}

int sb_txlog_close(struct sb_txlog *l, char *err, size_t errlen)
{
    int rc = 0;

    /* The lock stays initialised: an abandoned worker may still take it. */
    pthread_mutex_lock(&l->lock);
    if (__atomic_load_n(&l->started, __ATOMIC_ACQUIRE))
        rc = sb_safefile_commit(&l->file, err, errlen);
    else
        sb_safefile_abandon(&l->file);
    pthread_mutex_unlock(&l->lock);
    return rc;
}
