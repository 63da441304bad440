/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The merge command's tree editing and JSON writing; see sb_merge.h.
 * The text report is sb_merge_report.c.
 */
#include "compare/sb_merge_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
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
    if (sb_jv_get(o, key) != NULL)
        return sb_merge_get(o, key);
    return sb_jv_add_member(o, key);
}

void sb_merge_clear(struct sb_jv *v)
{
    sb_jv_clear(v);
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
        sb_json_string_n(j, v->string, sb_jv_str_len(v));
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
            sb_json_key(j, sb_jv_key(v, i));
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
        return sb_jv_str_len(a) == sb_jv_str_len(b) &&
               memcmp(a->string, b->string, sb_jv_str_len(a)) == 0;
    case SB_JV_ARRAY:
    case SB_JV_OBJECT:
        if (a->n != b->n)
            return false;
        for (size_t i = 0; i < a->n; i++)
            if ((a->type == SB_JV_OBJECT && strcmp(sb_jv_key(a, i), sb_jv_key(b, i)) != 0) ||
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
    return sb_jv_set_string(v, s, strlen(s));
}

/* ------------------------------------------------- the inputs' points */

int sb_merge_fail(struct sb_merge_run *m, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(m->err, sizeof(m->err), fmt, ap);
    va_end(ap);
    return -1;
}

/* Point p of instance i. */
struct sb_jv *sb_merge_point(struct sb_merge_run *m, size_t i, size_t p)
{
    return (struct sb_jv *)sb_jv_at(sb_jv_get(m->in[i].doc, "points"), p);
}

/* A writable node at a dotted path (no dots in the names). */
struct sb_jv *sb_merge_at(struct sb_jv *v, const char *path)
{
    return (struct sb_jv *)sb_jv_path(v, path);
}

void sb_merge_put(struct sb_jv *v, const char *path, double x)
{
    struct sb_jv *n = sb_merge_at(v, path);

    if (n == NULL)
        return;
    sb_merge_clear(n);
    if (!isnan(x)) {
        n->type = SB_JV_NUMBER;
        n->number = x;
    }
}

double sb_merge_sum(struct sb_merge_run *m, size_t p, const char *path)
{
    double s = 0;

    for (size_t i = 0; i < m->n; i++)
        s += sb_jv_num(sb_jv_path(sb_merge_point(m, i, p), path));
    return s;
}

double sb_merge_extreme(struct sb_merge_run *m, size_t p, const char *path, bool largest)
{
    double r = NAN;

    for (size_t i = 0; i < m->n; i++) {
        double x = sb_jv_num(sb_jv_path(sb_merge_point(m, i, p), path));
        if (!isnan(x) && (isnan(r) || (largest ? x > r : x < r)))
            r = x;
    }
    return r;
}

/* Each member of the percentile map at path becomes the largest of the
 * instances' values (maps keyed "99.9" cannot be reached by path). */
void sb_merge_max_map(struct sb_jv *dst, struct sb_jv *const *src, size_t n)
{
    for (size_t k = 0; dst != NULL && dst->type == SB_JV_OBJECT && k < dst->n; k++) {
        double r = NAN;
        for (size_t i = 0; i < n; i++) {
            double x = sb_jv_num(sb_jv_get(src[i], sb_jv_key(dst, k)));
            if (!isnan(x) && (isnan(r) || x > r))
                r = x;
        }
        sb_merge_clear(&dst->items[k]);
        if (!isnan(r)) {
            dst->items[k].type = SB_JV_NUMBER;
            dst->items[k].number = r;
        }
    }
}

/* The instance whose measurement of the server is used (lowest index
 * that measured it; 0 when none did). */
size_t sb_merge_server_instance(struct sb_merge_run *m, size_t p)
{
    for (size_t i = 0; i < m->n; i++)
        if (sb_jv_true(sb_jv_path(sb_merge_point(m, i, p), "final.cpu.server.measured")))
            return i;
    return 0;
}

/* A new element at the end of array a (null), or NULL when out of memory.
 * Moves a's other elements. */
struct sb_jv *sb_merge_append(struct sb_jv *a)
{
    struct sb_jv *items = realloc(a->items, (a->n + 1) * sizeof(*items));

    if (items == NULL)
        return NULL;
    a->items = items;
    memset(&items[a->n], 0, sizeof(*items));
    return &items[a->n++];
}

void sb_merge_make(struct sb_jv *v, enum sb_jv_type t)
{
    sb_merge_clear(v);
    v->type = t;
}
