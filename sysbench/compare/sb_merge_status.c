/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a merged scale-out run was as a whole: its window (the earliest
 * start to the last end) and the rates over it, how it ended (the worst
 * instance), which instances were cut short or are missing, and how
 * closely the instances really started together; see sb_merge.h.
 */
#include "compare/sb_merge_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double num(const struct sb_jv *v, const char *path)
{
    return sb_jv_num(sb_jv_path(v, path));
}

/* Member key of o made an empty container of type t. */
static struct sb_jv *set_new(struct sb_jv *o, const char *key, enum sb_jv_type t)
{
    struct sb_jv *v = sb_merge_set(o, key);

    if (v != NULL) {
        sb_merge_clear(v);
        v->type = t;
    }
    return v;
}

static int set_bool(struct sb_jv *o, const char *key, bool b)
{
    struct sb_jv *v = set_new(o, key, SB_JV_BOOL);

    if (v == NULL)
        return -1;
    v->boolean = b;
    return 0;
}

/* How bad an ended.status is: completed < interrupted < failed; a file
 * without one (an older version) counts as completed. */
static int severity(const struct sb_jv *doc)
{
    const char *s = sb_jv_str(sb_jv_path(doc, "ended.status"));

    if (s == NULL || strcmp(s, "completed") == 0)
        return 0;
    return strcmp(s, "interrupted") == 0 ? 1 : 2;
}

/* Whether instance doc ran its whole point p: completed and not stopped
 * early. */
static bool ran_through(const struct sb_jv *doc, size_t p)
{
    const struct sb_jv *pt = sb_jv_at(sb_jv_get(doc, "points"), p);

    return severity(doc) == 0 && !sb_jv_true(sb_jv_get(pt, "interrupted"));
}

void sb_merge_window_of(struct sb_jv *const *pts, size_t n, struct sb_merge_window *w)
{
    w->start = w->end = w->first_dispatch = w->first_due = NAN;
    for (size_t i = 0; i < n; i++) {
        double s = num(pts[i], "start_unix_s"), e = s + num(pts[i], "final.time_s");
        double f = num(pts[i], "first_dispatch_unix_s");
        if (!isnan(s) && (isnan(w->start) || s < w->start))
            w->start = s;
        if (!isnan(e) && (isnan(w->end) || e > w->end))
            w->end = e;
        if (!isnan(f) && (isnan(w->first_dispatch) || f < w->first_dispatch)) {
            w->first_dispatch = f;
            w->first_due = num(pts[i], "first_due_unix_s");
        }
    }
}

void sb_merge_put_window(struct sb_jv *pt, const struct sb_merge_window *w)
{
    double t = w->end - w->start, ev = num(pt, "final.events");
    double target = num(pt, "final.rate.target_tps");

    if (!(t > 0))
        return;
    sb_merge_put(pt, "final.time_s", t);
    sb_merge_put(pt, "final.tps", ev / t);
    sb_merge_put(pt, "final.qps", num(pt, "final.queries.total") / t);
    sb_merge_put(pt, "final.errors.ignored_per_s", num(pt, "final.errors.ignored") / t);
    sb_merge_put(pt, "final.errors.reconnects_per_s", num(pt, "final.errors.reconnects") / t);
    if (!isnan(num(pt, "final.rate.achieved_tps")))
        sb_merge_put(pt, "final.rate.achieved_tps", ev / t);
    if (target > 0)
        sb_merge_put(pt, "final.rate.achieved_pct", 100.0 * ev / t / target);
    sb_merge_put(pt, "first_dispatch_unix_s", w->first_dispatch);
    sb_merge_put(pt, "first_due_unix_s", w->first_due);
}

int sb_merge_ended(struct sb_jv *out, struct sb_jv *const *docs, size_t n)
{
    struct sb_jv *e = sb_merge_get(out, "ended");
    const struct sb_jv *worst = docs[0];
    double cancelled = 0;
    bool cut = false;

    if (e == NULL || e->type != SB_JV_OBJECT)
        return 0;                      /* an older file: nothing to say */
    for (size_t i = 0; i < n; i++) {
        const char *d = sb_jv_str(sb_jv_path(docs[i], "ended.deadline"));
        double c = num(docs[i], "ended.cancelled");
        if (severity(docs[i]) > severity(worst))
            worst = docs[i];
        cut = cut || (d != NULL && strcmp(d, "cut") == 0);
        cancelled += isnan(c) ? 0 : c;
    }
    /* Copy what the worst one says before out (docs[0]) is written. */
    {
        const char *status = sb_jv_str(sb_jv_path(worst, "ended.status"));
        const char *err = sb_jv_str(sb_jv_path(worst, "ended.error"));
        char *s = status ? strdup(status) : NULL, *m = err ? strdup(err) : NULL;
        double sig = num(worst, "ended.signal");
        int rc = (status && !s) || (err && !m) ||
                 sb_merge_set_str(e, "status", s ? s : "completed") != 0 ||
                 sb_merge_set_num(e, "signal", sig) != 0 || sb_merge_set_str(e, "error", m) != 0 ||
                 sb_merge_set_num(e, "cancelled", cancelled) != 0;
        free(s);
        free(m);
        if (rc)
            return -1;
    }
    if (severity(worst) == 0)
        return sb_merge_set_str(e, "deadline", cut ? "cut" : "met");
    return sb_merge_set_str(e, "deadline", NULL);
}

/* merged.cut_short: one entry per instance that did not run point 0
 * through, with when it stopped (from the common start). */
static int cut_short(struct sb_jv *mg, struct sb_jv *const *docs, const unsigned *index,
                     size_t n, double t0, double t_end)
{
    struct sb_jv *list = set_new(mg, "cut_short", SB_JV_ARRAY);

    if (list == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct sb_jv *pt = sb_jv_path(docs[i], "points.0");
        double end = num(pt, "start_unix_s") + num(pt, "final.time_s");
        struct sb_jv *e;
        if (ran_through(docs[i], 0))
            continue;
        if ((e = sb_merge_append(list)) == NULL)
            return -1;
        e->type = SB_JV_OBJECT;
        if (sb_merge_set_num(e, "index", index[i]) != 0 ||
            sb_merge_set_str(e, "hostname", sb_jv_str(sb_jv_path(docs[i], "environment.hostname"))) != 0 ||
            sb_merge_set_str(e, "status", severity(docs[i]) == 0 ? "interrupted"
                                          : sb_jv_str(sb_jv_path(docs[i], "ended.status"))) != 0 ||
            sb_merge_set_num(e, "signal", num(docs[i], "ended.signal")) != 0 ||
            sb_merge_set_str(e, "error", sb_jv_str(sb_jv_path(docs[i], "ended.error"))) != 0 ||
            sb_merge_set_num(e, "end_unix_s", end) != 0 ||
            sb_merge_set_num(e, "at_s", end - t0) != 0 ||
            sb_merge_set_num(e, "window_s", t_end - t0) != 0)
            return -1;
    }
    return 0;
}

/* merged.start_spread, and each merged.instances entry's measured start.
 * An instance's effective start, on the reference clock of the
 * orchestrator that measured the offsets, is its schedule origin
 * (start_unix_s, this host's clock) less its clock offset plus how late
 * its first event began (first dispatch less that event's due time); the
 * schedule's phases, which make the instances' first slots differ by
 * design, are thereby left out. */
static int start_spread(struct sb_jv *mg, struct sb_jv *const *docs, size_t n)
{
    struct sb_jv *ins = sb_merge_get(mg, "instances"), *s;
    double lo = NAN, hi = NAN, late = NAN;
    bool offsets = true;

    for (size_t i = 0; i < n; i++) {
        const struct sb_jv *pt = sb_jv_path(docs[i], "points.0");
        double off = num(docs[i], "instance.clock_offset_s");
        double lag = num(pt, "first_dispatch_unix_s") - num(pt, "first_due_unix_s");
        double eff = num(pt, "start_unix_s") - (isnan(off) ? 0 : off) + (lag > 0 ? lag : 0);
        struct sb_jv *e = ins != NULL && i < ins->n ? &ins->items[i] : NULL;
        offsets = offsets && !isnan(off);
        if (e != NULL &&
            (sb_merge_set_num(e, "first_dispatch_unix_s", num(pt, "first_dispatch_unix_s")) != 0 ||
             sb_merge_set_num(e, "first_lag_s", lag) != 0 ||
             sb_merge_set_num(e, "effective_start_unix_s", isnan(lag) ? NAN : eff) != 0))
            return -1;
        if (isnan(lag))
            continue;
        lo = isnan(lo) || eff < lo ? eff : lo;
        hi = isnan(hi) || eff > hi ? eff : hi;
        late = isnan(late) || lag > late ? lag : late;
    }
    if ((s = set_new(mg, "start_spread", SB_JV_OBJECT)) == NULL)
        return -1;
    return sb_merge_set_num(s, "spread_s", hi - lo) != 0 ||
                   sb_merge_set_num(s, "max_first_lag_s", late) != 0 ||
                   set_bool(s, "clock_corrected", offsets) != 0
               ? -1
               : 0;
}

int sb_merge_status(struct sb_jv *mg, struct sb_jv *const *docs, const unsigned *index, size_t n,
                    unsigned count)
{
    struct sb_jv *pts[n], *miss;
    struct sb_merge_window w;
    bool whole = n == count;

    for (size_t i = 0; i < n; i++)
        pts[i] = (struct sb_jv *)sb_jv_path(docs[i], "points.0");
    sb_merge_window_of(pts, n, &w);
    if ((miss = set_new(mg, "missing", SB_JV_ARRAY)) == NULL)
        return -1;
    for (unsigned k = 0, j = 0; k < count; k++) {
        struct sb_jv *e;
        if (j < n && index[j] == k) {
            j++;
            continue;
        }
        if ((e = sb_merge_append(miss)) == NULL)
            return -1;
        e->type = SB_JV_NUMBER;
        e->number = k;
    }
    if (cut_short(mg, docs, index, n, w.start, w.end) != 0 || start_spread(mg, docs, n) != 0)
        return -1;
    for (size_t i = 0; i < n && whole; i++)
        whole = ran_through(docs[i], 0);
    if (sb_merge_set_num(mg, "count", count) != 0 || set_bool(mg, "partial", n < count) != 0 ||
        set_bool(mg, "complete", whole) != 0)
        return -1;
    return 0;
}

bool sb_merge_complete(const struct sb_jv *doc)
{
    return sb_jv_true(sb_jv_path(doc, "merged.complete"));
}

/* ------------------------------------------------------------ report */

static void utc(double t, char *buf, size_t len)
{
    time_t s = (time_t)floor(t);
    struct tm tm;

    if (isnan(t) || gmtime_r(&s, &tm) == NULL) {
        snprintf(buf, len, "?");
        return;
    }
    snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)((t - floor(t)) * 100));
}

static void print_missing(const struct sb_jv *mg, FILE *out)
{
    const struct sb_jv *miss = sb_jv_get(mg, "missing");

    if (sb_jv_len(miss) == 0)
        return;
    fprintf(out, "PARTIAL (--allow-missing): instance%s", sb_jv_len(miss) > 1 ? "s" : "");
    for (size_t i = 0; i < sb_jv_len(miss); i++)
        fprintf(out, "%s %g", i ? "," : "", sb_jv_num(sb_jv_at(miss, i)));
    fprintf(out, " of %g left no result: the figures below are the other instances' only,\n"
                 "    against their share of the target; the server also ran the missing ones' load\n",
            num(mg, "count"));
}

static void print_cut(const struct sb_jv *mg, FILE *out)
{
    const struct sb_jv *cut = sb_jv_get(mg, "cut_short");

    for (size_t i = 0; i < sb_jv_len(cut); i++) {
        const struct sb_jv *e = sb_jv_at(cut, i);
        const char *host = sb_jv_str(sb_jv_get(e, "hostname"));
        const char *st = sb_jv_str(sb_jv_get(e, "status"));
        const char *err = sb_jv_str(sb_jv_get(e, "error"));
        char when[40];

        utc(num(e, "end_unix_s"), when, sizeof(when));
        fprintf(out, "CUT SHORT: instance %g (host %s) %s", num(e, "index"), host ? host : "?",
                st ? st : "stopped");
        if (!isnan(num(e, "signal")))
            fprintf(out, " by signal %g", num(e, "signal"));
        if (err != NULL)
            fprintf(out, " (%s)", err);
        fprintf(out, " at %.2f s of the %.2f s window (%s): its load stops there,\n"
                     "    the rates below are over the whole window\n",
                num(e, "at_s"), num(e, "window_s"), when);
    }
}

void sb_merge_print_status(const struct sb_jv *doc, FILE *out)
{
    const struct sb_jv *mg = sb_jv_get(doc, "merged"), *sp = sb_jv_get(mg, "start_spread");

    print_missing(mg, out);
    print_cut(mg, out);
    if (!isnan(num(sp, "spread_s")))
        fprintf(out, "Start: the instances' schedules began within %.2f ms of each other%s;\n"
                     "    the latest first event started %.2f ms after its due time\n",
                1e3 * num(sp, "spread_s"),
                sb_jv_true(sb_jv_get(sp, "clock_corrected"))
                    ? " (corrected by the measured clock offsets)"
                    : " (on the hosts' own clocks: no --clock-offset given)",
                1e3 * num(sp, "max_first_lag_s"));
    if (!sb_merge_complete(doc)) {
        const char *st = sb_jv_str(sb_jv_path(doc, "ended.status"));
        bool partial = sb_jv_true(sb_jv_get(mg, "partial"));
        bool cut = st != NULL && strcmp(st, "completed") != 0;
        fprintf(out, "NOT A COMPLETE RUN: %s%s%s%s\n", partial ? "partial" : "",
                partial && cut ? "; " : "", cut ? "the worst instance ended " : "", cut ? st : "");
    }
}
