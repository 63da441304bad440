/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Script histograms with sysbench 1.0's bounded logarithmic layout; see
 * sb_lhist.h. The core's own latency histogram is sb_histogram.c.
 */
#include "pure/sb_lhist.h"

#include <math.h>
#include <stdlib.h>

struct sb_lhist *sb_lhist_new(size_t size, double range_min, double range_max)
{
    struct sb_lhist *h;

    if (size == 0)
        return NULL;
    h = malloc(sizeof(*h));
    if (h == NULL)
        return NULL;
    h->counts = calloc(size, sizeof(*h->counts));
    if (h->counts == NULL) {
        free(h);
        return NULL;
    }
    h->size = size;
    h->range_min = range_min;
    h->range_max = range_max;
    h->deduct = log(range_min);
    h->mult = (double)(size - 1) / (log(range_max) - h->deduct);
    /* A zero or non-finite scale (size 1, min == max, min <= 0) would make
     * every bucket index NaN; such histograms have one useful bucket. */
    if (!isfinite(h->mult) || !isfinite(h->deduct) || h->mult == 0.0)
        h->mult = 0.0;
    return h;
}

void sb_lhist_free(struct sb_lhist *h)
{
    if (h == NULL)
        return;
    free(h->counts);
    free(h);
}

size_t sb_lhist_bucket(const struct sb_lhist *h, double value)
{
    double x;

    if (h->mult == 0.0 || !(value > 0.0))
        return 0;
    x = floor((log(value) - h->deduct) * h->mult + 0.5);
    if (!(x > 0.0)) /* also NaN */
        return 0;
    if (x >= (double)(h->size - 1))
        return h->size - 1;
    return (size_t)x;
}

double sb_lhist_value(const struct sb_lhist *h, size_t i)
{
    if (h->mult == 0.0)
        return h->range_min;
    return exp((double)i / h->mult + h->deduct);
}

void sb_lhist_update(struct sb_lhist *h, double value)
{
    __atomic_fetch_add(&h->counts[sb_lhist_bucket(h, value)], 1, __ATOMIC_RELAXED);
}

static uint64_t count_at(const struct sb_lhist *h, size_t i)
{
    return __atomic_load_n(&h->counts[i], __ATOMIC_RELAXED);
}

void sb_lhist_print(const struct sb_lhist *h, FILE *out)
{
    static const char bar[] = "****************************************";
    uint64_t maxcnt = 0;
    size_t i;

    for (i = 0; i < h->size; i++) {
        uint64_t c = count_at(h, i);

        if (c > maxcnt)
            maxcnt = c;
    }
    if (maxcnt == 0)
        return;
    fprintf(out, "       value  ------------- distribution ------------- count\n");
    for (i = 0; i < h->size; i++) {
        uint64_t c = count_at(h, i);
        int width;

        if (c == 0)
            continue;
        width = (int)floor((double)c * 40.0 / (double)maxcnt + 0.5);
        fprintf(out, "%12.3f |%-40.*s %llu\n", sb_lhist_value(h, i), width, bar,
                (unsigned long long)c);
    }
}

double sb_lhist_percentile(const struct sb_lhist *h, double pct)
{
    uint64_t total = 0, want, seen = 0;
    size_t i;

    for (i = 0; i < h->size; i++)
        total += count_at(h, i);
    if (total == 0)
        return 0.0;
    if (!(pct > 0.0))
        pct = 0.0;
    else if (pct > 100.0)
        pct = 100.0;
    want = (uint64_t)floor((double)total * pct / 100.0 + 0.5);
    if (want == 0)
        want = 1;
    for (i = 0; i < h->size; i++) {
        seen += count_at(h, i);
        if (seen >= want)
            break;
    }
    if (i == h->size)
        i = h->size - 1;
    return sb_lhist_value(h, i);
}
