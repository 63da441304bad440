/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The merge command's checks: the files are result files, in range, and
 * the instances of one experiment; see sb_merge.h and sb_merge_int.h.
 */
#include "compare/sb_merge_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* General options that may differ between the instances of one run: the
 * instance's identity and where it writes its own files (each instance
 * names its outputs, e.g. --log=so1.log), which change nothing measured. */
static const char *const per_instance_options[] = {
    "instance", "instances", "clock-offset", "json", "csv", "plot", "hgrm", "log", "server-pid",
    "verbosity", "debug", "config-file", "help", "version", "metrics-listen", "metrics-file",
    "metrics-linger", NULL
};

static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;

    return s ? s + 1 : path ? path : "";
}


int sb_merge_load(struct sb_merge_run *m, struct sb_merge_in *in)
{
    const struct sb_jv *inst;
    double idx;
    char err[512];

    in->doc = sb_jv_parse_file(in->path, m->err, sizeof(m->err));
    if (in->doc == NULL)
        return -1;
    if (sb_jv_str(sb_jv_get(in->doc, "format")) == NULL ||
        strcmp(sb_jv_str(sb_jv_get(in->doc, "format")), "sysbench-result") != 0 ||
        sb_jv_num(sb_jv_get(in->doc, "format_version")) != 1)
        return sb_merge_fail(m, "cannot merge: '%s' is not a sysbench result file (format_version 1)",
                    in->path);
    if (sb_jv_get(in->doc, "merged") != NULL)
        return sb_merge_fail(m, "cannot merge: '%s' is already a merged result", in->path);
    inst = sb_jv_get(in->doc, "instance");
    if (inst == NULL || inst->type != SB_JV_OBJECT)
        return sb_merge_fail(m, "cannot merge: '%s' has no instance member (written by an older version)",
                    in->path);
    /* Every number merge reads, in range before any is used. */
    if (sb_result_fields_check(in->doc, in->path, err, sizeof(err)) != 0)
        return sb_merge_fail(m, "cannot merge: %s", err);
    idx = sb_jv_num(sb_jv_get(inst, "index"));
    in->index = (unsigned)idx;
    return 0;
}

static int cmp_index(const void *a, const void *b)
{
    const struct sb_merge_in *x = a, *y = b;

    return x->index < y->index ? -1 : x->index > y->index;
}

/* N files, instances 0..N-1, each once, all of N. */
static int check_instances(struct sb_merge_run *m)
{
    double count = sb_jv_num(sb_jv_path(m->in[0].doc, "instance.count"));

    qsort(m->in, m->n, sizeof(*m->in), cmp_index);
    for (size_t i = 0; i < m->n; i++) {
        double c = sb_jv_num(sb_jv_path(m->in[i].doc, "instance.count"));
        if (c != count)
            return sb_merge_fail(m, "cannot merge: '%s' is one of %g instances, '%s' one of %g",
                        m->in[0].path, count, m->in[i].path, c);
        if (i > 0 && m->in[i].index == m->in[i - 1].index)
            return sb_merge_fail(m, "cannot merge: '%s' and '%s' are both instance %u",
                        m->in[i - 1].path, m->in[i].path, m->in[i].index);
    }
    if (m->in[m->n - 1].index >= count)
        return sb_merge_fail(m, "cannot merge: '%s' is instance %u of %g", m->in[m->n - 1].path,
                    m->in[m->n - 1].index, count);
    for (size_t i = 0; i < (size_t)count && !m->allow_missing; i++)
        if (i >= m->n || m->in[i].index != i)
            return sb_merge_fail(m, "cannot merge: instance %zu of %g is missing (--allow-missing merges the others, labelled partial)",
                        i, count);
    if (m->n != (size_t)count && !m->allow_missing)
        return sb_merge_fail(m, "cannot merge: %zu files for %g instances", m->n, count);
    return 0;
}

static bool ignored_option(const char *name)
{
    for (size_t i = 0; per_instance_options[i] != NULL; i++)
        if (strcmp(name, per_instance_options[i]) == 0)
            return true;
    return false;
}

/* Options of set (general or script) that differ between a and b. */
static int check_options(struct sb_merge_run *m, const struct sb_merge_in *a, const struct sb_merge_in *b,
                         const char *set)
{
    const struct sb_jv *oa = sb_jv_get(sb_jv_get(a->doc, "options"), set);
    const struct sb_jv *ob = sb_jv_get(sb_jv_get(b->doc, "options"), set);

    for (size_t i = 0; oa != NULL && i < oa->n; i++) {
        if (ignored_option(sb_jv_key(oa, i)))
            continue;
        if (!sb_merge_jv_equal(&oa->items[i], sb_jv_get(ob, sb_jv_key(oa, i))))
            return sb_merge_fail(m, "cannot merge: option --%s differs between '%s' and '%s'",
                        sb_jv_key(oa, i), a->path, b->path);
    }
    if (oa != NULL && ob != NULL && oa->n != ob->n)
        return sb_merge_fail(m, "cannot merge: '%s' and '%s' have different %s options", a->path,
                    b->path, set);
    return 0;
}

/* Whether histogram hv has this build's layout. An optional one may be
 * absent (service and lag: merge_latency then bounds that figure). */
static bool same_layout(const struct sb_jv *hv, bool optional)
{
    return (optional && (hv == NULL || hv->type == SB_JV_NULL)) ||
           (sb_jv_num(sb_jv_get(hv, "sub_bucket_bits")) == SB_HIST_SUB_BITS &&
            sb_jv_num(sb_jv_get(hv, "limit_ns")) == (double)SB_HIST_MAX_NS);
}

static int check_points(struct sb_merge_run *m, const struct sb_merge_in *a, const struct sb_merge_in *b)
{
    const struct sb_jv *pa = sb_jv_get(a->doc, "points"), *pb = sb_jv_get(b->doc, "points");

    if (sb_jv_len(pa) != sb_jv_len(pb) || sb_jv_len(pa) == 0)
        return sb_merge_fail(m, "cannot merge: '%s' and '%s' have different sweeps", a->path, b->path);
    for (size_t i = 0; i < sb_jv_len(pa); i++) {
        const struct sb_jv *x = sb_jv_at(pa, i), *y = sb_jv_at(pb, i);
        if (!sb_merge_jv_equal(sb_jv_get(x, "threads"), sb_jv_get(y, "threads")) ||
            !sb_merge_jv_equal(sb_jv_get(x, "rate_mode"), sb_jv_get(y, "rate_mode")))
            return sb_merge_fail(m, "cannot merge: point %zu differs between '%s' and '%s'", i + 1,
                        a->path, b->path);
        if (!sb_jv_true(sb_jv_get(y, "complete")) || !sb_jv_true(sb_jv_get(x, "complete")))
            return sb_merge_fail(m, "cannot merge: point %zu of '%s' is not complete", i + 1,
                        sb_jv_true(sb_jv_get(x, "complete")) ? b->path : a->path);
        if (isnan(sb_jv_num(sb_jv_get(y, "start_unix_s"))))
            return sb_merge_fail(m, "cannot merge: point %zu of '%s' has no start_unix_s", i + 1, b->path);
        if (!same_layout(sb_jv_get(y, "histogram"), false) ||
            !same_layout(sb_jv_path(y, "histograms.service"), true) ||
            !same_layout(sb_jv_path(y, "histograms.lag"), true))
            return sb_merge_fail(m, "cannot merge: the histogram of point %zu of '%s' has another layout",
                        i + 1, b->path);
    }
    return 0;
}

/* The instances ran at the same time: their starts are less than --time
 * apart (a run without --time is not checked). */
static int check_overlap(struct sb_merge_run *m)
{
    double lim = sb_jv_num(sb_jv_path(m->in[0].doc, "options.general.time"));
    double lo = NAN, hi = NAN;

    for (size_t i = 0; i < m->n; i++) {
        double t = sb_jv_num(sb_jv_path(m->in[i].doc, "points.0.start_unix_s"));
        if (isnan(lo) || t < lo)
            lo = t;
        if (isnan(hi) || t > hi)
            hi = t;
    }
    if (lim > 0 && hi - lo >= lim)
        return sb_merge_fail(m, "cannot merge: the instances started %.1f s apart, more than --time=%g: not one run",
                    hi - lo, lim);
    return 0;
}

/* Everything that makes the files one experiment. */
static int check_same(struct sb_merge_run *m)
{
    const struct sb_merge_in *a = &m->in[0];

    for (size_t i = 0; i < m->n; i++) {
        const struct sb_merge_in *b = &m->in[i];
        if (strcmp(base_name(sb_jv_str(sb_jv_get(a->doc, "script"))),
                   base_name(sb_jv_str(sb_jv_get(b->doc, "script")))) != 0)
            return sb_merge_fail(m, "cannot merge: '%s' ran %s, '%s' ran %s", a->path,
                        base_name(sb_jv_str(sb_jv_get(a->doc, "script"))), b->path,
                        base_name(sb_jv_str(sb_jv_get(b->doc, "script"))));
        if (!sb_merge_jv_equal(sb_jv_get(a->doc, "command"), sb_jv_get(b->doc, "command")))
            return sb_merge_fail(m, "cannot merge: '%s' and '%s' ran different commands", a->path, b->path);
        if (!sb_merge_jv_equal(sb_jv_path(a->doc, "options.general.rand-seed"),
                      sb_jv_path(b->doc, "options.general.rand-seed")))
            return sb_merge_fail(m, "cannot merge: '%s' and '%s' have different --rand-seed", a->path,
                        b->path);
        if (!sb_merge_jv_equal(sb_jv_path(a->doc, "instance.start_at"),
                      sb_jv_path(b->doc, "instance.start_at")))
            return sb_merge_fail(m, "cannot merge: '%s' and '%s' have different --start-at", a->path,
                        b->path);
        if (check_options(m, a, b, "general") != 0 || check_options(m, a, b, "script") != 0 ||
            check_points(m, a, b) != 0)
            return -1;
        if (!sb_merge_jv_equal(sb_jv_get(a->doc, "percentiles"), sb_jv_get(b->doc, "percentiles")))
            return sb_merge_fail(m, "cannot merge: '%s' and '%s' report different percentiles", a->path,
                        b->path);
    }
    return check_overlap(m);
}

int sb_merge_check(struct sb_merge_run *m)
{
    return check_instances(m) != 0 || check_same(m) != 0 ? -1 : 0;
}
