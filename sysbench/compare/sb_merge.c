/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The merge command: checks that result files are the instances of one
 * experiment and combines them; see sb_merge.h.
 */
#include "compare/sb_merge_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/sb_safefile.h"
#include "results/sb_result_fields.h"

bool sb_merge_requested(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            continue;
        return strcmp(argv[i], "merge") == 0;
    }
    return false;
}

/* Point p of every instance merged into instance 0's: the intervals, the
 * histograms and the figures computed from them, the error codes, the
 * CPU, the fields the tables give a rule, and the window's rates. */
static int merge_point(struct sb_merge_run *m, size_t p)
{
    struct sb_hist *h = malloc(sizeof(*h));
    struct sb_jv *pt = sb_merge_point(m, 0, p), *pts[m->n];
    struct sb_merge_window win;
    int rc;

    if (h == NULL)
        return sb_merge_fail(m, "out of memory");
    for (size_t i = 0; i < m->n; i++)
        pts[i] = sb_merge_point(m, i, p);
    sb_merge_window_of(pts, m->n, &win);   /* before point 0 is edited */
    rc = sb_merge_intervals(m, p) != 0 || sb_merge_hist(m, p, "histogram", h) != 0 ? -1 : 0;
    if (rc == 0 && sb_merge_put_hist(sb_merge_get(pt, "histogram"), h) != 0)
        rc = sb_merge_fail(m, "out of memory");
    if (rc == 0)
        sb_merge_put_latency(sb_merge_at(pt, "final.latency_ms.response"), h);
    if (rc == 0 && (sb_merge_latency(m, p, "service", h) != 0 || sb_merge_latency(m, p, "lag", h) != 0))
        rc = -1;
    free(h);
    if (rc != 0)
        return -1;
    if (sb_merge_codes(m, p) != 0 || sb_merge_cpu(m, p) != 0)
        return sb_merge_fail(m, "out of memory");
    sb_merge_scalars(m, p);
    sb_merge_put_window(pt, &win);
    /* A mix's figures per type and the figures per statement
     * (sb_merge_types.c). */
    if (sb_merge_types(pts, m->n, m->err, sizeof(m->err)) != 0)
        return -1;
    return 0;
}

/* The "merged" member: which files went in (upper_bounds, after the
 * points, says what is only a bound). */
static int merged_member(struct sb_merge_run *m)
{
    struct sb_jv *mg = sb_merge_set(m->out, "merged"), *list;

    if (mg == NULL)
        return -1;
    sb_merge_make(mg, SB_JV_OBJECT);
    if ((list = sb_merge_set(mg, "instances")) == NULL)
        return -1;
    sb_merge_make(list, SB_JV_ARRAY);
    for (size_t i = 0; i < m->n; i++) {
        struct sb_jv *e = sb_merge_append(list);
        const struct sb_jv *d = m->in[i].doc;
        if (e == NULL)
            return -1;
        sb_merge_make(e, SB_JV_OBJECT);
        if (sb_merge_set_num(e, "index", m->in[i].index) != 0 ||
            sb_merge_set_str(e, "file", m->in[i].path) != 0 ||
            sb_merge_set_str(e, "hostname", sb_jv_str(sb_jv_path(d, "environment.hostname"))) != 0 ||
            sb_merge_set_str(e, "started_at", sb_jv_str(sb_jv_get(d, "started_at"))) != 0 ||
            sb_merge_set_num(e, "clock_offset_s",
                             sb_jv_num(sb_jv_path(d, "instance.clock_offset_s"))) != 0 ||
            sb_merge_set_num(e, "start_unix_s",
                             sb_jv_num(sb_jv_path(d, "points.0.start_unix_s"))) != 0)
            return -1;
    }
    return 0;
}

/* One merged.upper_bounds entry: "points[]." obj (the object's place in a
 * point, "" or "intervals[].") and the field's path. */
static int add_bound(struct sb_jv *ub, const char *obj, const struct sb_result_field *f)
{
    char name[160];
    struct sb_jv *e = sb_merge_append(ub);

    snprintf(name, sizeof(name), "points[].%s%s", obj, f->path);
    return e == NULL || sb_jv_set_string(e, name, strlen(name)) != 0 ? -1 : 0;
}

/* Whether field f of sb_rf_final is only bounded in the merged result: an
 * upper bound by its rule, or a histogram figure some file lacked the
 * histogram of. */
static bool final_bounded(const struct sb_merge_run *m, const struct sb_result_field *f)
{
    if (!f->upper)
        return false;
    if (f->merge != SB_RF_HIST)
        return true;
    for (size_t i = 0; i < m->nbounded; i++)
        if (m->bounded[i] == f)
            return true;
    return false;
}

/* merged.upper_bounds: the fields that are only an upper bound of the true
 * value (the tables' upper flag): the percentile maps first (intervals,
 * then final), then the single figures (final, then intervals). */
static int upper_bounds(struct sb_merge_run *m)
{
    struct sb_jv *ub = sb_merge_set(sb_merge_get(m->out, "merged"), "upper_bounds");
    const struct sb_result_field *f;

    if (ub == NULL)
        return -1;
    sb_merge_make(ub, SB_JV_ARRAY);
    for (int maps = 1; maps >= 0; maps--) {
        for (f = sb_rf_interval; maps && f->path != NULL; f++)
            if (f->upper && f->type == SB_RF_PCTS && add_bound(ub, "intervals[].", f) != 0)
                return -1;
        for (f = sb_rf_final; f->path != NULL; f++)
            if ((f->type == SB_RF_PCTS) == maps && final_bounded(m, f) &&
                add_bound(ub, "final.", f) != 0)
                return -1;
        for (f = sb_rf_interval; !maps && f->path != NULL; f++)
            if (f->upper && f->type != SB_RF_PCTS && add_bound(ub, "intervals[].", f) != 0)
                return -1;
    }
    return 0;
}

static int merge_all(struct sb_merge_run *m)
{
    struct sb_jv *inst, *docs[m->n];
    unsigned index[m->n];

    m->out = m->in[0].doc;
    for (size_t i = 0; i < m->n; i++) {
        docs[i] = m->in[i].doc;
        index[i] = m->in[i].index;
    }
    /* These read every instance's own fields: first. */
    if (merged_member(m) != 0 ||
        sb_merge_status(sb_merge_get(m->out, "merged"), docs, index, m->n,
                        (unsigned)sb_jv_num(sb_jv_path(m->out, "instance.count"))) != 0 ||
        sb_merge_ended(m->out, docs, m->n) != 0)
        return sb_merge_fail(m, "out of memory");
    for (size_t p = 0; p < sb_jv_len(sb_jv_get(m->out, "points")); p++)
        if (merge_point(m, p) != 0)
            return -1;
    if (upper_bounds(m) != 0)
        return sb_merge_fail(m, "out of memory");
    inst = sb_merge_get(m->out, "instance");
    sb_merge_put(inst, "index", NAN);
    if (sb_merge_set_str(inst, "source", "merge") != 0)
        return sb_merge_fail(m, "out of memory");
    return 0;
}

static const char merge_usage[] =
    "Usage: sysbench merge A.json B.json ... [--json=ALL.json] [--allow-missing]\n"
    "\n"
    "Merges the result files of the N instances of one scale-out run\n"
    "(--instance=I/N) into one result: counts summed, response, service-time\n"
    "and lag histograms merged bucket by bucket, intervals aligned by absolute time,\n"
    "client CPU summed, server CPU taken once. Files that are not one\n"
    "experiment (another script, options, seed or start) are refused.\n"
    "Rates are over the window from the common start to the last end, and an\n"
    "instance cut short (interrupted or failed) is named; the exit status is\n"
    "then 3, as for a partial merge. See doc/scale-out.md.\n"
    "\n"
    "  --json=FILE      also write the merged result as a JSON document\n"
    "  --allow-missing  merge the instances present when some left no file;\n"
    "                   the result is labelled partial, the missing named\n"
    "  --help, -h       this text\n";

/* Reads merge's arguments. Returns 0, 1 for --help, or -1 with err set. */
static int parse_args(int argc, char **argv, const char ***files, size_t *n,
                      const char **json, bool *allow_missing, char *err, size_t errlen)
{
    bool seen = false;

    *files = calloc((size_t)argc, sizeof(**files));
    *n = 0;
    *json = NULL;
    if (*files == NULL)
        return snprintf(err, errlen, "out of memory"), -1;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--json=", 7) == 0 && argv[i][7] != '\0') {
            *json = argv[i] + 7;
        } else if (strcmp(argv[i], "--allow-missing") == 0) {
            *allow_missing = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            return 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            snprintf(err, errlen, "merge: unknown option '%s' (usage: sysbench merge A.json B.json ... [--json=ALL.json])",
                     argv[i]);
            return -1;
        } else if (!seen && strcmp(argv[i], "merge") == 0) {
            seen = true;
        } else {
            (*files)[(*n)++] = argv[i];
        }
    }
    if (*n < 1) {
        snprintf(err, errlen, "usage: sysbench merge A.json B.json ... [--json=ALL.json]");
        return -1;
    }
    return 0;
}

static int write_out(struct sb_merge_run *m, const char *json)
{
    struct sb_safefile sf;
    char err[1024];

    if (sb_safefile_open(&sf, json, "--json", sb_safefile_is_result_json, err,
                         sizeof(err)) != 0)
        return sb_merge_fail(m, "%s", err);
    if (sb_merge_write_json(m->out, sf.fp) != 0) {
        sb_safefile_abandon(&sf);
        return sb_merge_fail(m, "cannot write '%s'", json);
    }
    if (sb_safefile_commit(&sf, err, sizeof(err)) != 0)
        return sb_merge_fail(m, "%s", err);
    return 0;
}

int sb_merge_main(int argc, char **argv, FILE *out)
{
    struct sb_merge_run m;
    const char **files, *json;
    int rc = 1;

    memset(&m, 0, sizeof(m));
    switch (parse_args(argc, argv, &files, &m.n, &json, &m.allow_missing, m.err, sizeof(m.err))) {
    case 0:
        break;
    case 1:
        fputs(merge_usage, out);
        free(files);
        return 0;
    default:
        goto done;
    }
    m.in = calloc(m.n, sizeof(*m.in));
    if (m.in == NULL) {
        sb_merge_fail(&m, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < m.n; i++) {
        m.in[i].path = files[i];
        if (sb_merge_load(&m, &m.in[i]) != 0)
            goto done;
    }
    if (sb_merge_check(&m) != 0 || merge_all(&m) != 0)
        goto done;
    sb_merge_print_report(m.out, out);
    if (json != NULL && write_out(&m, json) != 0)
        goto done;
    rc = sb_merge_complete(m.out) ? 0 : 3;
done:
    if (rc == 1)
        fprintf(stderr, "FATAL: %s\n", m.err);
    for (size_t i = 0; m.in != NULL && i < m.n; i++)
        sb_jv_free(m.in[i].doc);
    free(m.in);
    free(files);
    return rc;
}

