/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * HdrHistogram percentile-distribution text; see sb_hgrm.h.
 */
#include "results/sb_hgrm.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "results/sb_result_writer.h"
#include "core/sb_safefile.h"

/* Reporting levels per halving of the distance to 100%: HdrHistogram's
 * default for outputPercentileDistribution. */
#define HGRM_TICKS_PER_HALF 5

/* The level after `level` (percent): steps of 100 / (ticks * 2^(k+1)) with
 * k = floor(log2(100 / (100 - level))), so 0, 10, ..., 50, 55, ..., 75,
 * 77.5, ... */
static double next_level(double level)
{
    double k = floor(log2(100.0 / (100.0 - level)));
    return level + 100.0 / (HGRM_TICKS_PER_HALF * pow(2.0, k + 1));
}

static void row(FILE *out, double value, double level, uint64_t count, bool last)
{
    double p = level / 100.0;
    if (last)
        fprintf(out, "%12.3f %2.12f %10llu\n", value, p, (unsigned long long)count);
    else
        fprintf(out, "%12.3f %2.12f %10llu %14.2f\n", value, p, (unsigned long long)count,
                1.0 / (1.0 - p));
}

/* Standard deviation from the buckets' midpoints (HdrHistogram uses its
 * buckets' median-equivalent values the same way). */
static double bucket_stddev(const struct sb_hist *h)
{
    double mean = sb_hist_mean(h), ss = 0;

    if (h->total == 0)
        return 0;
    for (size_t b = 0; b < SB_HIST_BUCKETS; b++) {
        double mid, d;
        if (h->counts[b] == 0)
            continue;
        mid = ((double)sb_hist_bucket_low(b) + (double)sb_hist_bucket_high(b)) / 2;
        d = mid - mean;
        ss += d * d * (double)h->counts[b];
    }
    return sqrt(ss / (double)h->total);
}

int sb_hgrm_write(const struct sb_hist *h, double unit_ns, FILE *out)
{
    uint64_t cum = 0;
    double level = 0, last_value = 0;

    fprintf(out, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
            "1/(1-Percentile)");
    for (size_t b = 0; b < SB_HIST_BUCKETS && h->total > 0; b++) {
        uint64_t high;
        if (h->counts[b] == 0)
            continue;
        cum += h->counts[b];
        high = sb_hist_bucket_high(b);
        last_value = (double)(high < h->max_ns ? high : h->max_ns) / unit_ns;
        /* One row per level this bucket reaches; the bucket that holds the
         * last value reports its first pending level only, then 100%. */
        while (100.0 * (double)cum / (double)h->total >= level) {
            row(out, last_value, level, cum, false);
            level = next_level(level);
            if (cum == h->total)
                break;
        }
        if (cum == h->total)
            break;
    }
    if (h->total > 0)
        row(out, last_value, 100.0, h->total, true);
    fprintf(out, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", sb_hist_mean(h) / unit_ns,
            bucket_stddev(h) / unit_ns);
    fprintf(out, "#[Max     = %12.3f, Total count    = %12llu]\n",
            (double)(h->total ? h->max_ns : 0) / unit_ns, (unsigned long long)h->total);
    /* The layout in HdrHistogram's terms: SB_HIST_SUB sub-buckets per
     * power of two are half of its SubBuckets. */
    fprintf(out, "#[Buckets = %12d, SubBuckets     = %12u]\n",
            SB_HIST_MAX_BITS - SB_HIST_SUB_BITS, 2 * SB_HIST_SUB);
    return ferror(out) ? -1 : 0;
}

/* path with "-index" before its extension (the last '.' after the last '/'). */
static void point_path(char *buf, size_t len, const char *path, size_t index)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');

    if (dot == NULL || (slash != NULL && dot < slash) || dot == path ||
        (slash != NULL && dot == slash + 1))
        snprintf(buf, len, "%s-%zu", path, index);
    else
        snprintf(buf, len, "%.*s-%zu%s", (int)(dot - path), path, index, dot);
}

/* Whether name may be written, by creating and removing its temporary
 * file: the same test, and the same message, as writing it at the end. */
static int check_one(const char *name, char *err, size_t errlen)
{
    struct sb_safefile f;

    if (sb_safefile_open(&f, name, "--hgrm", sb_safefile_is_hgrm, err, errlen) != 0)
        return -1;
    sb_safefile_abandon(&f);
    return 0;
}

int sb_hgrm_check(const char *path, size_t npoints, char *err, size_t errlen)
{
    char name[4096];

    if (npoints == 1)
        return check_one(path, err, errlen);
    for (size_t i = 1; i <= (npoints ? npoints : 1); i++) {
        point_path(name, sizeof(name), path, i);
        if (check_one(name, err, errlen) != 0)
            return -1;
    }
    /* An unknown count (--find-max) may also end with a single point. */
    return npoints == 0 ? check_one(path, err, errlen) : 0;
}

/* Writes one histogram to its temporary file and renames it over name. */
static int write_one(const struct sb_hist *h, const char *name, char *err, size_t errlen)
{
    struct sb_safefile f;

    if (sb_safefile_open(&f, name, "--hgrm", sb_safefile_is_hgrm, err, errlen) != 0)
        return -1;
    /* A write error stays on the stream, for sb_safefile_commit to report. */
    sb_hgrm_write(h, 1e6, f.fp);
    return sb_safefile_commit(&f, err, errlen);
}

int sb_hgrm_write_output(const struct sb_result_writer *o, const char *path, FILE *out,
                         char *err, size_t errlen)
{
    for (size_t i = 0; i < o->npoints; i++) {
        const struct sb_point_result *p = &o->points[i];
        char name[4096];

        if (p->total == NULL)
            continue;
        if (o->npoints == 1)
            snprintf(name, sizeof(name), "%s", path);
        else
            point_path(name, sizeof(name), path, i + 1);
        if (write_one(&p->total->response, name, err, errlen) != 0)
            return -1;
        if (out != NULL)
            fprintf(out, "Response-time histogram (HdrHistogram text): %s\n", name);
    }
    return 0;
}
