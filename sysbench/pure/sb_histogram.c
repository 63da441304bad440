/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Log-linear latency histogram.
 *
 * Bucket layout: values below 2 * SB_HIST_SUB (256 ns) have a bucket each.
 * Above that, the values [2^e, 2^(e+1)) are split into SB_HIST_SUB buckets
 * of width 2^(e - SB_HIST_SUB_BITS). With s = max(e - SB_HIST_SUB_BITS, 0)
 * the index is (s << SB_HIST_SUB_BITS) + (v >> s), which is continuous
 * across powers of two and needs only one count-leading-zeros.
 *
 * Concurrency: one thread writes, others read. Every field is accessed with
 * the __atomic builtins at relaxed order. A relaxed load followed by a
 * relaxed store, rather than __atomic_fetch_add, is deliberate: the owner is
 * the only writer, so no increment can be lost, and a read-modify-write
 * would compile to a locked instruction on x86 costing tens of cycles per
 * record. The builtins (instead of _Atomic fields) keep struct sb_hist plain
 * data that can be memset, copied and merged without atomics where no one
 * else can see it; gcc and clang both accept them on plain uint64_t and
 * they are single 64-bit moves on 64-bit targets, so a reader never sees a
 * torn counter.
 */

#include "pure/sb_histogram.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/* Output bar width, as in sysbench 1.0. */
#define SB_HIST_BAR 40
/* Fine buckets per printed line: 32 of the 128 per power of two gives four
 * lines per power of two, about 13 per decade. */
#define SB_HIST_PRINT_GROUP_BITS 5

void sb_hist_reset(struct sb_hist *h)
{
    memset(h->counts, 0, sizeof(h->counts));
    h->total = 0;
    h->sum_ns = 0;
    h->min_ns = UINT64_MAX;
    h->max_ns = 0;
    h->clamped = 0;
}

uint64_t sb_hist_bucket_low(size_t bucket)
{
    size_t g = bucket >> SB_HIST_SUB_BITS;

    if (g <= 1)
        return bucket;
    return ((uint64_t)SB_HIST_SUB + (bucket & (SB_HIST_SUB - 1))) << (g - 1);
}

uint64_t sb_hist_bucket_high(size_t bucket)
{
    size_t g = bucket >> SB_HIST_SUB_BITS;

    if (g <= 1)
        return bucket;
    return sb_hist_bucket_low(bucket) + ((uint64_t)1 << (g - 1)) - 1;
}

void sb_hist_add_bucket(struct sb_hist *h, uint64_t ns, uint64_t count)
{
    size_t b = sb_hist_bucket_of(ns);

    if (count == 0)
        return;
    h->counts[b] += count;
    h->total += count;
    h->sum_ns += count * ns;
    if (ns < h->min_ns)
        h->min_ns = ns;
    if (sb_hist_bucket_high(b) > h->max_ns)
        h->max_ns = sb_hist_bucket_high(b);
    if (ns >= SB_HIST_MAX_NS)
        h->clamped += count;
}

/*
 * The buckets a live histogram with extremes min and max may hold counts
 * in: those of its extremes and between. A reader that looks only there
 * never loads the rest: on a kernel without a shared zero page (such as
 * this project's test machines) reading an untouched page makes it
 * resident, and the reporter reading every slot's 36 KB of buckets each
 * interval had made most of every worker's 110 KB of statistics resident
 * by the end of a run. The owner stores a bucket's count before the
 * extremes that cover it, so a count missed here is one in flight, seen at
 * the next read (sb_stats.h, rule 4); the range only grows between resets.
 * Returns false when the histogram is empty (min above max).
 */
static bool live_range(uint64_t min, uint64_t max, size_t *lo, size_t *hi)
{
    if (min > max)
        return false;
    *lo = sb_hist_bucket_of(min);
    *hi = sb_hist_bucket_of(max);
    return true;
}

void sb_hist_snapshot(struct sb_hist *dst, const struct sb_hist *src)
{
    size_t lo = 1, hi = 0;

    dst->min_ns = LOAD(&src->min_ns);
    dst->max_ns = LOAD(&src->max_ns);
    live_range(dst->min_ns, dst->max_ns, &lo, &hi);
    for (size_t i = 0; i < SB_HIST_BUCKETS; i++)
        dst->counts[i] = i >= lo && i <= hi ? LOAD(&src->counts[i]) : 0;
    dst->total = LOAD(&src->total);
    dst->sum_ns = LOAD(&src->sum_ns);
    dst->clamped = LOAD(&src->clamped);
}

void sb_hist_merge(struct sb_hist *dst, const struct sb_hist *src)
{
    size_t i;

    for (i = 0; i < SB_HIST_BUCKETS; i++)
        dst->counts[i] += src->counts[i];
    dst->total += src->total;
    dst->sum_ns += src->sum_ns;
    dst->clamped += src->clamped;
    if (src->min_ns < dst->min_ns)
        dst->min_ns = src->min_ns;
    if (src->max_ns > dst->max_ns)
        dst->max_ns = src->max_ns;
}

void sb_hist_accumulate(struct sb_hist *dst, const struct sb_hist *src)
{
    uint64_t min = LOAD(&src->min_ns), max = LOAD(&src->max_ns);
    size_t lo, hi;

    if (live_range(min, max, &lo, &hi))
        for (size_t i = lo; i <= hi; i++)
            dst->counts[i] += LOAD(&src->counts[i]);
    dst->total += LOAD(&src->total);
    dst->sum_ns += LOAD(&src->sum_ns);
    dst->clamped += LOAD(&src->clamped);
    if (min < dst->min_ns)
        dst->min_ns = min;
    if (max > dst->max_ns)
        dst->max_ns = max;
}

/* Counters only grow, but a snapshot taken mid-record may be a step ahead in
 * one field and behind in another; never letting a difference wrap keeps a
 * report from showing 2^64 transactions. */
static inline uint64_t sub_floor0(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

void sb_hist_diff(struct sb_hist *dst, const struct sb_hist *later,
                  const struct sb_hist *earlier)
{
    size_t i, first = SB_HIST_BUCKETS, last = 0;

    for (i = 0; i < SB_HIST_BUCKETS; i++) {
        uint64_t c = sub_floor0(later->counts[i], earlier->counts[i]);

        dst->counts[i] = c;
        if (c != 0) {
            if (first == SB_HIST_BUCKETS)
                first = i;
            last = i;
        }
    }
    dst->total = sub_floor0(later->total, earlier->total);
    dst->sum_ns = sub_floor0(later->sum_ns, earlier->sum_ns);
    dst->clamped = sub_floor0(later->clamped, earlier->clamped);
    if (first == SB_HIST_BUCKETS) {
        dst->min_ns = UINT64_MAX;
        dst->max_ns = 0;
        return;
    }
    dst->min_ns = sb_hist_bucket_low(first);
    dst->max_ns = sb_hist_bucket_high(last);
    /* The overall extremes bound the interval's too, and are tighter when
     * the interval holds the run's smallest or largest value. A clamped
     * value in the interval lies above the last bucket, and only the
     * overall maximum says where. */
    if (later->min_ns != UINT64_MAX && dst->min_ns < later->min_ns)
        dst->min_ns = later->min_ns;
    if (dst->clamped != 0 || dst->max_ns > later->max_ns)
        dst->max_ns = later->max_ns;
    if (dst->min_ns > dst->max_ns)
        dst->min_ns = dst->max_ns;
}

uint64_t sb_hist_percentile(const struct sb_hist *h, double pct)
{
    uint64_t total = 0, target, seen = 0;
    double x;
    size_t i;

    /* The counts themselves, not h->total, decide: in a snapshot the two
     * can differ by a record in flight. */
    for (i = 0; i < SB_HIST_BUCKETS; i++)
        total += h->counts[i];
    if (total == 0)
        return 0;
    if (!(pct > 0.0))
        pct = 0.0;
    if (pct > 100.0)
        pct = 100.0;
    /* pct * total / 100 keeps whole results exact (95 * 100 / 100), and the
     * small slack stops a rounding error from moving ceil() up a rank. */
    x = pct * (double)total / 100.0;
    x = ceil(x - x * 1e-12);
    if (x < 1.0)
        target = 1;
    else if (x >= (double)total)
        target = total;
    else
        target = (uint64_t)x;

    for (i = 0; i < SB_HIST_BUCKETS; i++) {
        seen += h->counts[i];
        if (seen >= target) {
            uint64_t v = sb_hist_bucket_high(i);

            return v > h->max_ns ? h->max_ns : v;
        }
    }
    return h->max_ns;
}

double sb_hist_mean(const struct sb_hist *h)
{
    if (h->total == 0)
        return 0.0;
    return (double)h->sum_ns / (double)h->total;
}

void sb_hist_print(const struct sb_hist *h, FILE *out)
{
    const size_t group = (size_t)1 << SB_HIST_PRINT_GROUP_BITS;
    uint64_t max_group = 0;
    char bar[SB_HIST_BAR + 1];
    size_t g, i;

    fprintf(out, "       value  ------------- distribution ------------- count\n");

    /* Two passes: the bars are scaled to the largest line, which is only
     * known once every group has been summed. */
    for (g = 0; g < SB_HIST_BUCKETS; g += group) {
        uint64_t c = 0;

        for (i = g; i < g + group; i++)
            c += h->counts[i];
        if (c > max_group)
            max_group = c;
    }
    if (max_group == 0)
        return;

    for (g = 0; g < SB_HIST_BUCKETS; g += group) {
        uint64_t c = 0;
        size_t width;

        for (i = g; i < g + group; i++)
            c += h->counts[i];
        if (c == 0)
            continue;
        width = (size_t)((double)c * SB_HIST_BAR / (double)max_group);
        memset(bar, '*', width);
        bar[width] = '\0';
        /* Each line is labelled with the largest value it holds, so it
         * reads as "this many took at most this long". */
        fprintf(out, "%12.3f |%-40s %llu\n",
                (double)sb_hist_bucket_high(g + group - 1) / 1e6, bar,
                (unsigned long long)c);
    }
}
