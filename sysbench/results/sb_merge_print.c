/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The merge command's tree editing, JSON writing and text report; see
 * sb_merge.h.
 */
#include "results/sb_merge.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_json_write.h"

struct sb_jv *sb_merge_get(struct sb_jv *o, const char *key)
{
    return (struct sb_jv *)sb_jv_get(o, key);
}

struct sb_jv *sb_merge_set(struct sb_jv *o, const char *key)
{
    struct sb_jv *items;
    char **keys, *k;

    if (o == NULL || o->type != SB_JV_OBJECT)
        return NULL;
    if (sb_jv_get(o, key) != NULL)
        return sb_merge_get(o, key);
    items = realloc(o->items, (o->n + 1) * sizeof(*items));
    if (items == NULL)
        return NULL;
    o->items = items;
    keys = realloc(o->keys, (o->n + 1) * sizeof(*keys));
    if (keys == NULL)
        return NULL;
    o->keys = keys;
    k = strdup(key);
    if (k == NULL)
        return NULL;
    memset(&o->items[o->n], 0, sizeof(*items));
    o->items[o->n].type = SB_JV_NULL;
    o->keys[o->n] = k;
    return &o->items[o->n++];
}

void sb_merge_clear(struct sb_jv *v)
{
    for (size_t i = 0; i < v->n; i++) {
        sb_merge_clear(&v->items[i]);
        if (v->keys != NULL)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    memset(v, 0, sizeof(*v));
    v->type = SB_JV_NULL;
}

int sb_merge_set_num(struct sb_jv *o, const char *key, double x)
{
    struct sb_jv *v = sb_merge_set(o, key);

    if (v == NULL)
        return -1;
    sb_merge_clear(v);
    if (!isnan(x)) {
        v->type = SB_JV_NUMBER;
        v->number = x;
    }
    return 0;
}

/* Integers as integers (the files hold counts and nanoseconds), other
 * numbers in their shortest exact form. */
static void write_num(struct sb_json *j, double x)
{
    if (x == floor(x) && fabs(x) < 9007199254740992.0)
        sb_json_int(j, (int64_t)x);
    else
        sb_json_double(j, x);
}

static void write_value(struct sb_json *j, const struct sb_jv *v)
{
    switch (v->type) {
    case SB_JV_NULL:
        sb_json_null(j);
        break;
    case SB_JV_BOOL:
        sb_json_bool(j, v->boolean);
        break;
    case SB_JV_NUMBER:
        write_num(j, v->number);
        break;
    case SB_JV_STRING:
        sb_json_string_n(j, v->string, v->len);
        break;
    case SB_JV_ARRAY: {
        /* Short arrays of numbers (histogram buckets, percentile lists)
         * on one line, as the run writes them. */
        bool flat = v->n <= 8;
        for (size_t i = 0; i < v->n && flat; i++)
            flat = v->items[i].type == SB_JV_NUMBER;
        if (flat)
            sb_json_begin_array_inline(j);
        else
            sb_json_begin_array(j);
        for (size_t i = 0; i < v->n; i++)
            write_value(j, &v->items[i]);
        sb_json_end_array(j);
        break;
    }
    case SB_JV_OBJECT:
        sb_json_begin_object(j);
        for (size_t i = 0; i < v->n; i++) {
            sb_json_key(j, v->keys[i]);
            write_value(j, &v->items[i]);
        }
        sb_json_end_object(j);
        break;
    }
}

int sb_merge_write_json(const struct sb_jv *v, FILE *fp)
{
    struct sb_json j;

    sb_json_init(&j, fp, true);
    write_value(&j, v);
    return sb_json_finish(&j);
}

bool sb_merge_jv_equal(const struct sb_jv *a, const struct sb_jv *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    if (a->type != b->type)
        return false;
    switch (a->type) {
    case SB_JV_NULL:
        return true;
    case SB_JV_BOOL:
        return a->boolean == b->boolean;
    case SB_JV_NUMBER:
        return a->number == b->number;
    case SB_JV_STRING:
        return a->len == b->len && memcmp(a->string, b->string, a->len) == 0;
    case SB_JV_ARRAY:
    case SB_JV_OBJECT:
        if (a->n != b->n)
            return false;
        for (size_t i = 0; i < a->n; i++)
            if ((a->keys != NULL && strcmp(a->keys[i], b->keys[i]) != 0) ||
                !sb_merge_jv_equal(&a->items[i], &b->items[i]))
                return false;
        return true;
    }
    return false;
}

int sb_merge_set_str(struct sb_jv *o, const char *key, const char *s)
{
    struct sb_jv *v = sb_merge_set(o, key);

    if (v == NULL)
        return -1;
    sb_merge_clear(v);
    if (s == NULL)
        return 0;
    v->string = strdup(s);
    if (v->string == NULL)
        return -1;
    v->type = SB_JV_STRING;
    v->len = strlen(s);
    return 0;
}

/* ------------------------------------------------------------ report */

static double num(const struct sb_jv *v, const char *path)
{
    return sb_jv_num(sb_jv_path(v, path));
}

static void print_latency(const struct sb_jv *lat, const struct sb_jv *pcts, FILE *out,
                          const char *note)
{
    char key[32];

    fprintf(out, "    min:                                 %10.2f\n", num(lat, "min"));
    fprintf(out, "    avg:                                 %10.2f\n", num(lat, "avg"));
    fprintf(out, "    max:                                 %10.2f\n", num(lat, "max"));
    for (size_t i = 0; i < sb_jv_len(pcts); i++) {
        double p = sb_jv_num(sb_jv_at(pcts, i));
        char label[64];
        snprintf(key, sizeof(key), "%g", p);
        snprintf(label, sizeof(label), "%sth percentile%s:", key, note);
        fprintf(out, "    %-37s%10.2f\n", label,
                sb_jv_num(sb_jv_get(sb_jv_get(lat, "percentiles"), key)));
    }
    fprintf(out, "    sum:                                 %10.2f\n", num(lat, "sum"));
}

static void print_cpu_side(const char *name, const struct sb_jv *c, FILE *out)
{
    if (!sb_jv_true(sb_jv_get(c, "measured"))) {
        fprintf(out, "    %-8s not measured\n", name);
        return;
    }
    fprintf(out, "    %-8s %10.1f us/tx (user %.1f, system %.1f), %.2f%% of the CPUs\n", name,
            num(c, "total_us_per_tx"), num(c, "user_us_per_tx"), num(c, "system_us_per_tx"),
            num(c, "util_pct"));
}

/* Whether merged.upper_bounds lists field (it is not exact). */
static bool is_bound(const struct sb_jv *doc, const char *field)
{
    const struct sb_jv *ub = sb_jv_path(doc, "merged.upper_bounds");

    for (size_t i = 0; i < sb_jv_len(ub); i++)
        if (sb_jv_str(sb_jv_at(ub, i)) != NULL && strcmp(sb_jv_str(sb_jv_at(ub, i)), field) == 0)
            return true;
    return false;
}

static void print_point(const struct sb_jv *doc, const struct sb_jv *p, FILE *out)
{
    const struct sb_jv *f = sb_jv_get(p, "final"), *rate = sb_jv_get(f, "rate");
    const struct sb_jv *pcts = sb_jv_get(doc, "percentiles");
    const char *who = sb_jv_true(sb_jv_path(doc, "merged.partial")) ? "the instances present"
                                                                    : "all instances";

    fprintf(out, "\nPoint %g: %g connections", num(p, "index"), num(p, "threads"));
    if (!isnan(num(p, "target_tps")))
        fprintf(out, ", target %.2f tps (%s)", num(p, "target_tps"), who);
    fprintf(out, "\nSQL statistics:\n    queries performed:\n");
    fprintf(out, "        read:                            %g\n", num(f, "queries.reads"));
    fprintf(out, "        write:                           %g\n", num(f, "queries.writes"));
    fprintf(out, "        other:                           %g\n", num(f, "queries.other"));
    fprintf(out, "        total:                           %g\n", num(f, "queries.total"));
    fprintf(out, "    transactions:                        %-8g (%.2f per sec.)\n",
            num(f, "events"), num(f, "tps"));
    fprintf(out, "    queries:                             %-8g (%.2f per sec.)\n",
            num(f, "queries.total"), num(f, "qps"));
    fprintf(out, "    ignored errors:                      %-8g (%.2f per sec.)\n",
            num(f, "errors.ignored"), num(f, "errors.ignored_per_s"));
    fprintf(out, "    reconnects:                          %-8g (%.2f per sec.)\n",
            num(f, "errors.reconnects"), num(f, "errors.reconnects_per_s"));
    fprintf(out, "\nGeneral statistics:\n");
    fprintf(out, "    total time:                          %.4fs (first start to last end)\n",
            num(f, "time_s"));
    fprintf(out, "    total number of events:              %g\n", num(f, "events"));
    fprintf(out, "\nLatency (ms), from the merged histogram:\n");
    print_latency(sb_jv_path(f, "latency_ms.response"), pcts, out, "");
    if (rate != NULL && rate->type == SB_JV_OBJECT) {
        fprintf(out, "\nRate (%s):\n", who);
        fprintf(out, "    target:                              %.2f tx/s\n",
                num(rate, "target_tps"));
        fprintf(out, "    achieved:                            %.2f tx/s (%.3f%%)\n",
                num(rate, "achieved_tps"), num(rate, "achieved_pct"));
        fprintf(out, "    late starts:                         %g (%.2f%%)\n",
                num(rate, "late_starts"), num(rate, "late_pct"));
        fprintf(out, "    skipped:                             %g\n", num(rate, "skipped"));
        fprintf(out, "    start lag (ms), %s:\n",
                is_bound(doc, "points[].final.latency_ms.lag.percentiles")
                    ? "percentiles at most (not every file has the lag histogram)"
                    : "from the merged histogram");
        print_latency(sb_jv_path(f, "latency_ms.lag"), pcts, out, "");
    }
    fprintf(out, "\nCPU cost per transaction (client summed over instances, server once):\n");
    print_cpu_side("client:", sb_jv_path(f, "cpu.client"), out);
    print_cpu_side("server:", sb_jv_path(f, "cpu.server"), out);
    fprintf(out, "    server processes: %s\n",
            sb_jv_str(sb_jv_path(f, "cpu.server_processes")) ? sb_jv_str(sb_jv_path(f, "cpu.server_processes")) : "?");
}

void sb_merge_print_report(const struct sb_jv *doc, FILE *out)
{
    const struct sb_jv *ins = sb_jv_path(doc, "merged.instances");
    const struct sb_jv *points = sb_jv_get(doc, "points");

    if (sb_jv_len(ins) != (size_t)num(doc, "instance.count"))
        fprintf(out, "Merged result of %zu of %g", sb_jv_len(ins), num(doc, "instance.count"));
    else
        fprintf(out, "Merged result of %zu", sb_jv_len(ins));
    fprintf(out, " instances of '%s':\n",
            sb_jv_str(sb_jv_get(doc, "script")) ? sb_jv_str(sb_jv_get(doc, "script")) : "?");
    for (size_t i = 0; i < sb_jv_len(ins); i++) {
        const struct sb_jv *e = sb_jv_at(ins, i);
        const char *host = sb_jv_str(sb_jv_get(e, "hostname"));
        double off = num(e, "clock_offset_s");

        fprintf(out, "    instance %g: %s, host %s", num(e, "index"),
                sb_jv_str(sb_jv_get(e, "file")), host ? host : "?");
        if (!isnan(off))
            fprintf(out, ", clock offset %g s", off);
        fprintf(out, "\n");
    }
    sb_merge_print_status(doc, out);
    for (size_t i = 0; i < sb_jv_len(points); i++)
        print_point(doc, sb_jv_at(points, i), out);
}
