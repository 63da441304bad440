/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Figures per statement in the outputs; see sb_stmt_result.h.
 */
#include "results/sb_stmt_result.h"

#include <math.h>
#include <string.h>

#include "results/sb_hist_json.h"

const char *sb_stmt_kind_name(int kind)
{
    /* The order of drivers/sb_sql_text.h's sb_query_kind. */
    static const char *const names[] = { "read", "write", "other" };
    return kind >= 0 && kind < 3 ? names[kind] : "other";
}

static int kind_of(const char *name)
{
    if (name != NULL && strcmp(name, "read") == 0)
        return 0;
    if (name != NULL && strcmp(name, "write") == 0)
        return 1;
    return 2;
}

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

void sb_stmt_result_print(const struct sb_stmt_table *t, FILE *out)
{
    if (t == NULL)
        return;
    fprintf(out, "Statements (latency in ms; rows returned, rows affected):\n");
    fprintf(out, "    %10s %8s %10s %10s %9s %9s %9s %9s  %s\n", "count", "errors", "rows",
            "affected", "avg", "p50", "p99", "max", "statement");
    for (unsigned i = 0; i < t->n; i++) {
        const struct sb_stmt_entry *e = t->e[i];
        const struct sb_hist *h = &e->hist;
        fprintf(out, "    %10llu %8llu %10llu %10llu %9.3f %9.3f %9.3f %9.3f  %.100s%s\n",
                (unsigned long long)e->count, (unsigned long long)e->errors,
                (unsigned long long)e->rows, (unsigned long long)e->affected,
                h->total > 0 ? sb_hist_mean(h) / 1e6 : 0.0,
                ms(sb_hist_percentile(h, 50)), ms(sb_hist_percentile(h, 99)),
                h->total > 0 ? ms(h->max_ns) : 0.0, e->text, e->len > 100 ? "..." : "");
        for (unsigned k = 0; k < e->nerr; k++)
            if (e->err[k].n > 0)
                fprintf(out, "    %10s %8llu  error %u (%s)\n", "",
                        (unsigned long long)e->err[k].n, e->err[k].code,
                        e->err[k].state[0] ? e->err[k].state : "-");
    }
    fprintf(out, "\n");
}

static void json_entry(struct sb_json *j, const struct sb_stmt_entry *e)
{
    const struct sb_hist *h = &e->hist;
    bool any = h->total > 0;

    sb_json_begin_object(j);
    sb_json_key(j, "text");
    sb_json_string_n(j, e->text, e->len);
    sb_json_kv_string(j, "kind", sb_stmt_kind_name(e->kind));
    sb_json_kv_uint(j, "count", e->count);
    sb_json_kv_uint(j, "errors", e->errors);
    sb_json_key(j, "errors_by_code");
    sb_json_begin_array(j);
    for (unsigned k = 0; k < e->nerr; k++) {
        if (e->err[k].n == 0)
            continue;
        sb_json_begin_object(j);
        sb_json_kv_uint(j, "code", e->err[k].code);
        sb_json_kv_string(j, "state", e->err[k].state);
        sb_json_kv_uint(j, "count", e->err[k].n);
        sb_json_end_object(j);
    }
    sb_json_end_array(j);
    sb_json_kv_uint(j, "rows", e->rows);
    sb_json_kv_uint(j, "affected_rows", e->affected);
    sb_json_key(j, "latency_ms");
    sb_json_begin_object(j);
    sb_json_kv_double(j, "avg", any ? sb_hist_mean(h) / 1e6 : NAN);
    sb_json_kv_double(j, "p50", any ? ms(sb_hist_percentile(h, 50)) : NAN);
    sb_json_kv_double(j, "p99", any ? ms(sb_hist_percentile(h, 99)) : NAN);
    sb_json_kv_double(j, "max", any ? ms(h->max_ns) : NAN);
    sb_json_end_object(j);
    sb_hist_json_write(j, "histogram", "statement", h);
    sb_json_end_object(j);
}

void sb_stmt_result_json(struct sb_json *j, const struct sb_stmt_table *t)
{
    if (t == NULL)
        return;
    sb_json_key(j, "statements");
    sb_json_begin_array(j);
    for (unsigned i = 0; i < t->n; i++)
        json_entry(j, t->e[i]);
    sb_json_end_array(j);
}

static uint64_t get_u64(const struct sb_jv *v)
{
    double d = sb_jv_num(v);
    return d >= 0 && d < 1.8e19 ? (uint64_t)d : 0;
}

/* Rebuilds e's histogram from its buckets (as the points' are read:
 * malformed or out-of-order buckets skipped), with the exact sum and
 * extremes the file kept. */
static void read_hist(struct sb_hist *h, const struct sb_jv *hj)
{
    const struct sb_jv *b = sb_jv_get(hj, "buckets");
    uint64_t prev_high = 0;

    for (size_t i = 0; i < sb_jv_len(b); i++) {
        const struct sb_jv *x = sb_jv_at(b, i);
        uint64_t low = get_u64(sb_jv_at(x, 0)), high = get_u64(sb_jv_at(x, 1));
        uint64_t count = get_u64(sb_jv_at(x, 2));
        if (sb_jv_len(x) != 3 || count == 0 || high < low || (h->total > 0 && low <= prev_high))
            continue;
        sb_hist_add_bucket(h, low, count);
        prev_high = high;
    }
    if (h->total > 0) {
        uint64_t mn = get_u64(sb_jv_get(hj, "min_ns")), mx = get_u64(sb_jv_get(hj, "max_ns"));
        if (get_u64(sb_jv_get(hj, "count")) == h->total)
            h->sum_ns = get_u64(sb_jv_get(hj, "sum_ns"));
        if (mn > 0)
            h->min_ns = mn;
        if (mx > 0)
            h->max_ns = mx;
    }
}

static int read_entry(struct sb_stmt_table *t, const struct sb_jv *x)
{
    const struct sb_jv *text = sb_jv_get(x, "text");
    const struct sb_jv *codes = sb_jv_get(x, "errors_by_code");
    struct sb_stmt_entry *e;
    size_t len;

    if (sb_jv_str(text) == NULL)
        return 0;
    len = sb_jv_str_len(text);
    e = sb_stmt_table_get(t, sb_jv_str(text), len, sb_stmt_hash(SB_STMT_HASH0, sb_jv_str(text), len),
                          kind_of(sb_jv_str(sb_jv_get(x, "kind"))));
    if (e == NULL)
        return -1;
    e->count += get_u64(sb_jv_get(x, "count"));
    e->rows += get_u64(sb_jv_get(x, "rows"));
    e->affected += get_u64(sb_jv_get(x, "affected_rows"));
    for (size_t k = 0; k < sb_jv_len(codes); k++) {
        const struct sb_jv *c = sb_jv_at(codes, k);
        const char *state = sb_jv_str(sb_jv_get(c, "state"));
        sb_stmt_add_errors(e, (unsigned)get_u64(sb_jv_get(c, "code")), state,
                           get_u64(sb_jv_get(c, "count")));
    }
    if (e->hist.total == 0)
        read_hist(&e->hist, sb_jv_get(x, "histogram"));
    return 0;
}

int sb_stmt_result_read(const struct sb_jv *arr, struct sb_stmt_table **out)
{
    struct sb_stmt_table *t;

    *out = NULL;
    if (arr == NULL || arr->type != SB_JV_ARRAY)
        return 0;
    t = sb_stmt_table_new();
    if (t == NULL)
        return -1;
    for (size_t i = 0; i < sb_jv_len(arr); i++)
        if (read_entry(t, sb_jv_at(arr, i)) != 0) {
            sb_stmt_table_free(t);
            return -1;
        }
    *out = t;
    return 0;
}
