/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The merge command's tree editing and JSON writing; see sb_merge.h.
 * The text report is sb_merge_report.c.
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
