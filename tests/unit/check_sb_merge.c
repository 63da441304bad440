/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the merge command (sb_merge.h): result files of the
 * instances of one scale-out run, written here from a template of a real
 * run's --json file (doc/results.md) with histograms of known samples,
 * merged by sb_merge_main and read back. The right answers: counts are the
 * sums; histogram buckets are the sums; percentiles are those of one
 * histogram holding every instance's samples (sb_hist_*); intervals are
 * aligned on absolute time; what is not one experiment is refused with
 * one FATAL line; a file without the service/lag histograms makes those
 * percentiles upper bounds, said in merged.upper_bounds.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sb_json_read.h"
#include "pure/sb_histogram.h"
#include "compare/sb_merge.h"

#define NPCT 3
static const char *const pct_keys[NPCT] = {"50", "95", "99.9"};
#define T0 1795687742.0 /* instance 0's start (Unix seconds) */

/* One instance's file, as the template's parameters. */
struct inst {
    unsigned index, count;
    int seed;
    const char *script;
    double start_unix_s;
    bool rate;            /* rate mode: service time and lag recorded */
    bool lag_hists;       /* the file holds histograms.service and .lag */
    unsigned sub_bits;    /* histogram layout */
    int jitter;           /* --tx-jitter, an option that must agree */
    double time_s;        /* final.time_s: 10, less for one cut short */
    const char *ended;    /* ended.status; NULL: no ended member */
    double first_lag;     /* its first event's start less its due time */
    double clock_offset;  /* --clock-offset, NaN: not given */
    struct sb_hist resp, service, lag;
};

static struct inst in[4];
static struct sb_hist all_resp, all_service, all_lag; /* every instance's samples */
static char dir[64];
static char report[16384], errbuf[2048];
static const char *extra_arg; /* one more argument for run_merge, or NULL */

/* Instance i's samples: i = 0, 1, 2 have 200, 300, 400 response times
 * from 1, 2, 3 ms up with tails of different lengths, so the union's p95
 * lies well below the largest of the instances' p95. */
static void samples(struct inst *x, unsigned i)
{
    unsigned n = 200 + 100 * i;

    sb_hist_reset(&x->resp);
    sb_hist_reset(&x->service);
    sb_hist_reset(&x->lag);
    for (uint64_t j = 0; j < n; j++) {
        uint64_t r = 1000000 * (i + 1) + j * j * (50 + 30 * i);
        sb_hist_record(&x->resp, r);
        sb_hist_record(&all_resp, r);
        if (!x->rate)
            continue;
        sb_hist_record(&x->service, r / 4);
        sb_hist_record(&all_service, r / 4);
        sb_hist_record(&x->lag, 500000 + j * 1000 * (3 - i));
        sb_hist_record(&all_lag, 500000 + j * 1000 * (3 - i));
    }
}

static void init_inst(unsigned i, unsigned count, bool rate)
{
    struct inst *x = &in[i];

    x->index = i;
    x->count = count;
    x->seed = 5;
    x->script = "oltp.lua";
    x->start_unix_s = T0 + (i == 1 ? 0.3 : i == 2 ? 0.98 : 0);
    x->rate = rate;
    x->lag_hists = rate;
    x->sub_bits = SB_HIST_SUB_BITS;
    x->jitter = 0;
    x->time_s = 10;
    x->ended = NULL;
    x->first_lag = 0.001 * (i + 1);
    x->clock_offset = NAN;
    samples(x, i);
}

static void write_hist(FILE *f, const char *key, const struct sb_hist *h, unsigned bits)
{
    const char *sep = "";

    fprintf(f, "\"%s\": {\"of\": \"%s\", \"unit\": \"ns\", \"sub_bucket_bits\": %u, "
               "\"limit_ns\": %" PRIu64 ", \"count\": %" PRIu64 ", \"sum_ns\": %" PRIu64
               ", \"min_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64 ", \"clamped\": 0, \"buckets\": [",
            key, key, bits, SB_HIST_MAX_NS, h->total, h->sum_ns, h->min_ns, h->max_ns);
    for (size_t k = 0; k < SB_HIST_BUCKETS; k++) {
        if (h->counts[k] == 0)
            continue;
        fprintf(f, "%s[%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", sep, sb_hist_bucket_low(k),
                sb_hist_bucket_high(k), h->counts[k]);
        sep = ", ";
    }
    fprintf(f, "]}");
}

/* final.latency_ms.NAME as a run writes it from its histogram. */
static void write_latency(FILE *f, const char *key, const struct sb_hist *h)
{
    fprintf(f, "\"%s\": {\"count\": %" PRIu64, key, h->total);
    if (h->total > 0)
        fprintf(f, ", \"min\": %.17g, \"avg\": %.17g, \"max\": %.17g", h->min_ns / 1e6,
                sb_hist_mean(h) / 1e6, h->max_ns / 1e6);
    else
        fprintf(f, ", \"min\": null, \"avg\": null, \"max\": null");
    fprintf(f, ", \"sum\": %.17g, \"percentiles\": {", h->sum_ns / 1e6);
    for (size_t k = 0; k < NPCT; k++)
        fprintf(f, "%s\"%s\": %.17g", k ? ", " : "", pct_keys[k],
                sb_hist_percentile(h, strtod(pct_keys[k], NULL)) / 1e6);
    fprintf(f, "}}");
}

/* Interval k (1..3) of instance i: 100 * (i + 1) + k events. */
static double iv_events(unsigned i, unsigned k)
{
    return 100.0 * (i + 1) + k;
}

static void write_intervals(FILE *f, const struct inst *x)
{
    fprintf(f, "\"intervals\": [");
    for (unsigned k = 1; k <= 3; k++) {
        double e = iv_events(x->index, k);
        fprintf(f, "%s{\"time_s\": %u, \"epoch_s\": %.3f, \"interval_s\": 1.004, \"threads\": 4, "
                   "\"events\": %g, \"tps\": %g, \"qps\": {\"total\": %g, \"reads\": %g, "
                   "\"writes\": %g, \"other\": 0}, \"latency_ms\": {\"50\": 1, \"95\": %u, "
                   "\"99.9\": 9}, \"errors_per_s\": 0, \"reconnects_per_s\": 0, "
                   "\"lag_ms\": {\"50\": 0, \"95\": %u, \"99.9\": 0}, \"backlog\": %u, "
                   "\"latency_p50_ms\": %u, \"latency_p99_ms\": %u, \"lag_p99_ms\": %u, "
                   "\"cpu_pct\": {\"client\": %u, \"server\": %s}}",
                k > 1 ? ", " : "", k, x->start_unix_s + k, e, e, 2 * e, e, e,
                10 * x->index + k, 3 - x->index, x->index, 1 + x->index, 8 * (x->index + 1),
                3 - x->index, x->index + 1,
                x->index == 1 ? "40" : "null");
    }
    fprintf(f, "], ");
}

/* final.cpu: instance i used i + 1 CPU seconds in threads i*2, i*2+1;
 * only instance 1 measured the server. */
static void write_cpu(FILE *f, const struct inst *x)
{
    double tx = (double)x->resp.total;
    unsigned i = x->index;

    fprintf(f, "\"cpu\": {\"elapsed_s\": 10, \"ncpus\": 2, \"transactions\": %g, "
               "\"server_processes\": \"%s\", \"client\": {\"measured\": true, \"cpu_s\": %u, "
               "\"user_us_per_tx\": %.17g, \"system_us_per_tx\": 0, \"total_us_per_tx\": %.17g, "
               "\"util_pct\": %g}, \"threads\": [{\"thread\": 0, \"user_s\": %u, \"system_s\": 0, "
               "\"events\": 1}, {\"thread\": 1, \"user_s\": %u, \"system_s\": 0, \"events\": 1}], ",
            tx, i == 1 ? "mysqld (pid 7)" : "not measured", i + 1, (i + 1) * 1e6 / tx,
            (i + 1) * 1e6 / tx, (i + 1) * 5.0, 10 * i, 10 * i + 1);
    if (i == 1)
        fprintf(f, "\"server\": {\"measured\": true, \"cpu_s\": 4, \"user_us_per_tx\": %.17g, "
                   "\"system_us_per_tx\": 0, \"total_us_per_tx\": %.17g, \"util_pct\": 20}, ",
                4e6 / tx, 4e6 / tx);
    else
        fprintf(f, "\"server\": {\"measured\": false, \"cpu_s\": null}, ");
    fprintf(f, "\"machine\": {\"measured\": true, \"util_pct\": 50}}");
}

static void write_final(FILE *f, const struct inst *x)
{
    double ev = (double)x->resp.total, tps = ev / x->time_s;
    unsigned i = x->index;

    fprintf(f, "\"final\": {\"time_s\": %.17g, \"events\": %g, \"tps\": %g, \"queries\": {\"reads\": "
               "%g, \"writes\": %g, \"other\": %g, \"total\": %g}, \"qps\": %g, \"errors\": "
               "{\"ignored\": %u, \"ignored_per_s\": %g, \"reconnects\": 0, \"reconnects_per_s\": 0, "
               "\"by_code\": [{\"code\": \"1213\", \"kind\": \"ignored\", \"count\": %u}%s]}, "
               "\"latency_ms\": {",
            x->time_s, ev, tps, 10 * ev, 4 * ev, 2 * ev, 16 * ev, 16 * tps, i + 1, (i + 1) / 10.0, i + 1,
            i == 2 ? ", {\"code\": \"1205\", \"kind\": \"ignored\", \"count\": 5}" : "");
    write_latency(f, "response", &x->resp);
    fprintf(f, ", ");
    write_latency(f, "service", &x->service);
    fprintf(f, ", ");
    write_latency(f, "lag", &x->lag);
    fprintf(f, "}, ");
    if (x->rate)
        fprintf(f, "\"rate\": {\"mode\": \"rate\", \"target_tps\": 10, \"achieved_tps\": %g, "
                   "\"achieved_pct\": %g, \"jitter_us\": null, \"late_starts\": %u, \"late_pct\": 1, "
                   "\"skipped\": 0, \"max_backlog\": %u}, ",
                tps, 10 * tps, i + 1, i + 1);
    else
        fprintf(f, "\"rate\": null, ");
    write_cpu(f, x);
    fprintf(f, "}, ");
}

/* Writes in[i] as dir/name. */
static void write_inst(unsigned i, const char *name)
{
    const struct inst *x = &in[i];
    char path[128], off[32] = "null";
    FILE *f;

    if (!isnan(x->clock_offset))
        snprintf(off, sizeof(off), "%.17g", x->clock_offset);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    ck_assert_ptr_nonnull(f = fopen(path, "w"));
    fprintf(f, "{");
    /* How it ended, as a run writes it (doc/results.md). */
    if (x->ended != NULL && strcmp(x->ended, "failed") == 0)
        fprintf(f, "\"ended\": {\"status\": \"failed\", \"signal\": null, \"error\": "
                   "\"lost connection\", \"deadline\": null, \"cancelled\": 1}, ");
    else if (x->ended != NULL && strcmp(x->ended, "interrupted") == 0)
        fprintf(f, "\"ended\": {\"status\": \"interrupted\", \"signal\": 15, \"error\": null, "
                   "\"deadline\": null, \"cancelled\": 2}, ");
    else if (x->ended != NULL)
        fprintf(f, "\"ended\": {\"status\": \"completed\", \"signal\": null, \"error\": null, "
                   "\"deadline\": \"met\", \"cancelled\": 0}, ");
    fprintf(f, "\"format\": \"sysbench-result\", \"format_version\": 1, "
               "\"started_at\": \"2026-11-26T10:09:0%uZ\", \"script\": \"/x/%s\", \"command\": \"run\", "
               "\"options\": {\"general\": {\"threads\": [\"4\"], \"time\": 10, \"rate\": %d, "
               "\"tx-jitter\": %d, \"report-interval\": 1, \"percentile\": [\"50\", \"95\", \"99.9\"], "
               "\"rand-seed\": %d, \"instance\": \"%u/%u\", \"json\": \"%s\", \"start-at\": \"%.0f\"}, "
               "\"script\": {\"tables\": 4}}, \"environment\": {\"hostname\": \"host%u\"}, "
               "\"instance\": {\"index\": %u, \"count\": %u, \"source\": \"--instance\", "
               "\"start_at\": %.0f, \"clock_offset_s\": %s}, \"percentiles\": [50, 95, 99.9], "
               "\"points\": [{\"index\": 1, \"threads\": 4, \"repeat\": 1, \"repeats\": 1, "
               "\"rate_mode\": \"%s\", \"target_tps\": %s, \"complete\": true, \"interrupted\": %s, "
               "\"start_unix_s\": %.17g, \"first_dispatch_unix_s\": %.17g, \"first_due_unix_s\": %.17g, ",
            i, x->script, x->rate ? 30 : 0, x->jitter, x->seed, i, x->count, name, T0, i, i,
            x->count, T0, off, x->rate ? "rate" : "none", x->rate ? "10" : "null",
            x->ended != NULL && strcmp(x->ended, "interrupted") == 0 ? "true" : "false",
            x->start_unix_s, x->start_unix_s + 0.002 * i + x->first_lag,
            x->start_unix_s + 0.002 * i);
    write_intervals(f, x);
    write_final(f, x);
    write_hist(f, "histogram", &x->resp, x->sub_bits);
    fprintf(f, ", \"histograms\": {");
    if (x->lag_hists) {
        write_hist(f, "service", &x->service, x->sub_bits);
        fprintf(f, ", ");
        write_hist(f, "lag", &x->lag, x->sub_bits);
    }
    fprintf(f, "}}]}\n");
    ck_assert_int_eq(fclose(f), 0);
}

static void slurp(FILE *f, char *buf, size_t len)
{
    size_t n;

    rewind(f);
    n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* sysbench merge dir/NAMES... [--json=dir/all.json]: the exit status;
 * stdout in report, stderr in errbuf. */
static int run_merge(const char *const *names, bool json)
{
    char paths[8][128], jarg[128];
    char *argv[12] = {"sysbench", "merge"};
    int argc = 2, rc, saved;
    FILE *out = tmpfile(), *err = tmpfile();

    ck_assert_ptr_nonnull(out);
    ck_assert_ptr_nonnull(err);
    for (size_t i = 0; names[i] != NULL; i++) {
        snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, names[i]);
        argv[argc++] = paths[i];
    }
    snprintf(jarg, sizeof(jarg), "--json=%s/all.json", dir);
    if (json)
        argv[argc++] = jarg;
    if (extra_arg != NULL)
        argv[argc++] = (char *)extra_arg;
    fflush(stderr);
    saved = dup(2);
    dup2(fileno(err), 2);
    rc = sb_merge_main(argc, argv, out);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    slurp(out, report, sizeof(report));
    slurp(err, errbuf, sizeof(errbuf));
    return rc;
}

static struct sb_jv *merged_doc(void)
{
    char path[128], err[256];
    struct sb_jv *d;

    snprintf(path, sizeof(path), "%s/all.json", dir);
    d = sb_jv_parse_file(path, err, sizeof(err));
    ck_assert_msg(d != NULL, "merged file: %s", err);
    return d;
}

/* Merges the three instances (rate mode or closed loop) written as
 * i0..i2.json; returns the merged document. */
static struct sb_jv *merge_three(bool rate, unsigned no_lag_hists)
{
    static const char *const names[] = {"i0.json", "i1.json", "i2.json", NULL};

    for (unsigned i = 0; i < 3; i++) {
        init_inst(i, 3, rate);
        if (i == no_lag_hists)
            in[i].lag_hists = false;
        write_inst(i, names[i]);
    }
    ck_assert_msg(run_merge(names, true) == 0, "merge failed: %s", errbuf);
    ck_assert_str_eq(errbuf, "");
    return merged_doc();
}

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/check_sb_merge.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    extra_arg = NULL;
    sb_hist_reset(&all_resp);
    sb_hist_reset(&all_service);
    sb_hist_reset(&all_lag);
}

static void teardown(void)
{
    char cmd[128];

    if (getenv("SB_KEEP") != NULL) /* keep the files to look at */
        return;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

static double num(const struct sb_jv *v, const char *path)
{
    return sb_jv_num(sb_jv_path(v, path));
}

/* The merged histogram at path of point 0 has exactly h's buckets and
 * figures, and latency_ms.NAME its percentiles by the run's rule. */
static void assert_hist(const struct sb_jv *pt, const char *path, const char *lat,
                        const struct sb_hist *h)
{
    const struct sb_jv *hv = sb_jv_path(pt, path), *b = sb_jv_get(hv, "buckets");
    const struct sb_jv *l = sb_jv_path(pt, lat), *pm = sb_jv_get(l, "percentiles");
    size_t nb = 0;

    ck_assert_double_eq(num(hv, "count"), (double)h->total);
    ck_assert_double_eq(num(hv, "sum_ns"), (double)h->sum_ns);
    ck_assert_double_eq(num(hv, "min_ns"), (double)h->min_ns);
    ck_assert_double_eq(num(hv, "max_ns"), (double)h->max_ns);
    for (size_t k = 0; k < SB_HIST_BUCKETS; k++) {
        const struct sb_jv *e = sb_jv_at(b, nb);
        if (h->counts[k] == 0)
            continue;
        ck_assert_msg(sb_jv_num(sb_jv_at(e, 0)) == (double)sb_hist_bucket_low(k) &&
                          sb_jv_num(sb_jv_at(e, 2)) == (double)h->counts[k],
                      "%s bucket %zu: [%g, _, %g], want [%" PRIu64 ", _, %" PRIu64 "]", path, nb,
                      sb_jv_num(sb_jv_at(e, 0)), sb_jv_num(sb_jv_at(e, 2)),
                      sb_hist_bucket_low(k), h->counts[k]);
        nb++;
    }
    ck_assert_uint_eq(sb_jv_len(b), nb);
    ck_assert_double_eq(num(l, "count"), (double)h->total);
    ck_assert_double_eq_tol(num(l, "max"), h->max_ns / 1e6, 1e-12);
    ck_assert_double_eq_tol(num(l, "avg"), sb_hist_mean(h) / 1e6, 1e-9);
    for (size_t k = 0; k < NPCT; k++)
        ck_assert_double_eq_tol(sb_jv_num(sb_jv_get(pm, pct_keys[k])),
                                sb_hist_percentile(h, strtod(pct_keys[k], NULL)) / 1e6, 1e-12);
}

/* The largest of the instances' p95 of h (what a bound would give). */
static double max_p95(const struct sb_hist *h0, const struct sb_hist *h1, const struct sb_hist *h2)
{
    return fmax(fmax(sb_hist_percentile(h0, 95), sb_hist_percentile(h1, 95)),
                sb_hist_percentile(h2, 95)) / 1e6;
}

START_TEST(test_counts_and_histograms)
{
    struct sb_jv *d = merge_three(true, 99);
    const struct sb_jv *pt = sb_jv_path(d, "points.0"), *f = sb_jv_get(pt, "final");
    const struct sb_jv *bc = sb_jv_path(f, "errors.by_code");
    double ev = 200 + 300 + 400;

    /* Counts are the sums; the time is the window from the first start
     * (T0) to the last end (instance 2's, T0 + 0.98 + 10), the rates the
     * counts over it. */
    ck_assert_double_eq(num(f, "events"), ev);
    ck_assert_double_eq_tol(num(f, "tps"), ev / 10.98, 1e-5);
    ck_assert_double_eq(num(f, "queries.total"), 16 * ev);
    ck_assert_double_eq(num(f, "queries.reads"), 10 * ev);
    ck_assert_double_eq_tol(num(f, "qps"), 16 * ev / 10.98, 1e-5);
    ck_assert_double_eq(num(f, "errors.ignored"), 1 + 2 + 3);
    ck_assert_double_eq_tol(num(f, "time_s"), 10.98, 1e-5);
    ck_assert_double_eq(num(f, "rate.target_tps"), 30);
    ck_assert_double_eq(num(pt, "target_tps"), 30);
    ck_assert_double_eq(num(pt, "threads"), 12);
    ck_assert_double_eq(num(f, "rate.late_starts"), 6);
    ck_assert_double_eq_tol(num(f, "rate.achieved_tps"), ev / 10.98, 1e-5);
    ck_assert_double_eq_tol(num(f, "rate.achieved_pct"), 100.0 * (ev / 10.98) / 30, 1e-5);
    ck_assert_double_eq(num(pt, "start_unix_s"), T0);
    /* Codes: equal (code, kind) added, others kept. */
    ck_assert_uint_eq(sb_jv_len(bc), 2);
    ck_assert_str_eq(sb_jv_str(sb_jv_path(bc, "0.code")), "1213");
    ck_assert_double_eq(num(bc, "0.count"), 6);
    ck_assert_str_eq(sb_jv_str(sb_jv_path(bc, "1.code")), "1205");
    ck_assert_double_eq(num(bc, "1.count"), 5);

    /* Histograms: bucket-wise sums; percentiles those of all samples. */
    assert_hist(pt, "histogram", "final.latency_ms.response", &all_resp);
    assert_hist(pt, "histograms.service", "final.latency_ms.service", &all_service);
    assert_hist(pt, "histograms.lag", "final.latency_ms.lag", &all_lag);
    /* ... which the largest of the instances' p95 is not (the data tell
     * the union from a bound). */
    ck_assert_double_lt(num(f, "latency_ms.response.percentiles.95") + 1,
                        max_p95(&in[0].resp, &in[1].resp, &in[2].resp));

    /* Client CPU summed; server from instance 1 (the one that measured
     * it), its per-transaction cost spread over all transactions. */
    ck_assert_double_eq(num(f, "cpu.client.cpu_s"), 6);
    ck_assert_double_eq_tol(num(f, "cpu.client.total_us_per_tx"), 6e6 / ev, 1e-9);
    ck_assert_double_eq_tol(num(f, "cpu.client.util_pct"), 100.0 * 6 / 60, 1e-9);
    ck_assert(sb_jv_true(sb_jv_path(f, "cpu.server.measured")));
    ck_assert_double_eq_tol(num(f, "cpu.server.total_us_per_tx"), 4e6 / ev, 1e-9);
    ck_assert_str_eq(sb_jv_str(sb_jv_path(f, "cpu.server_processes")), "mysqld (pid 7)");
    ck_assert_uint_eq(sb_jv_len(sb_jv_path(f, "cpu.threads")), 6);
    ck_assert_double_eq(num(f, "cpu.threads.5.thread"), 5);
    ck_assert_double_eq(num(f, "cpu.threads.5.user_s"), 21);

    /* Who went in; only the per-interval figures and the backlog bounded. */
    ck_assert_uint_eq(sb_jv_len(sb_jv_path(d, "merged.instances")), 3);
    ck_assert_str_eq(sb_jv_str(sb_jv_path(d, "merged.instances.2.hostname")), "host2");
    ck_assert_double_eq(num(d, "merged.instances.1.start_unix_s"), T0 + 0.3);
    ck_assert_uint_eq(sb_jv_len(sb_jv_path(d, "merged.upper_bounds")), 6);
    ck_assert_str_eq(sb_jv_str(sb_jv_path(d, "instance.source")), "merge");
    ck_assert(sb_jv_true(sb_jv_path(d, "merged.complete")));
    ck_assert(!sb_jv_true(sb_jv_path(d, "merged.partial")));
    ck_assert_uint_eq(sb_jv_len(sb_jv_path(d, "merged.cut_short")), 0);
    ck_assert_ptr_nonnull(strstr(report, "Merged result of 3 instances of '/x/oltp.lua'"));
    ck_assert_ptr_null(strstr(report, "CUT SHORT"));
    ck_assert_ptr_nonnull(strstr(report, "start lag (ms), from the merged histogram"));
    sb_jv_free(d);
}
END_TEST

START_TEST(test_closed_loop)
{
    struct sb_jv *d = merge_three(false, 99);
    const struct sb_jv *pt = sb_jv_path(d, "points.0");

    assert_hist(pt, "histogram", "final.latency_ms.response", &all_resp);
    /* Neither service time nor lag is recorded: exact zeros, no bound. */
    ck_assert_double_eq(num(pt, "final.latency_ms.service.count"), 0);
    ck_assert_double_eq(num(pt, "final.latency_ms.lag.sum"), 0);
    ck_assert_uint_eq(sb_jv_len(sb_jv_path(d, "merged.upper_bounds")), 6);
    ck_assert_ptr_null(strstr(report, "Rate (all instances)"));
    sb_jv_free(d);
}
END_TEST

START_TEST(test_intervals_aligned)
{
    /* Instances start at T0, T0+0.3 and T0+0.98, intervals end at 1, 2, 3
     * s of each: absolute ends fall nearest to slots {1: i0, i1},
     * {2: all}, {3: all}, {4: i2} (i2's 1.98 s is slot 2, not 1). */
    struct sb_jv *d = merge_three(true, 99);
    const struct sb_jv *iv = sb_jv_path(d, "points.0.intervals");
    static const double ev[4] = {101 + 201, 102 + 202 + 301, 103 + 203 + 302, 303};

    ck_assert_uint_eq(sb_jv_len(iv), 4);
    for (size_t k = 0; k < 4; k++) {
        const struct sb_jv *x = sb_jv_at(iv, k);
        ck_assert_double_eq(num(x, "time_s"), k + 1);
        ck_assert_double_eq(num(x, "epoch_s"), T0 + k + 1);
        ck_assert_double_eq(num(x, "interval_s"), 1);
        ck_assert_double_eq(num(x, "events"), ev[k]);
        ck_assert_double_eq(num(x, "tps"), ev[k]);
        ck_assert_double_eq(num(x, "qps.total"), 2 * ev[k]);
        ck_assert_double_eq(num(x, "threads"), k == 0 ? 8 : k == 3 ? 4 : 12);
    }
    /* Percentiles: the largest of the instances' (p95 of instance i's
     * interval k is 10 i + k; lag p95 3 - i). */
    ck_assert_double_eq(sb_jv_num(sb_jv_get(sb_jv_path(iv, "0.latency_ms"), "95")), 11);
    ck_assert_double_eq(sb_jv_num(sb_jv_get(sb_jv_path(iv, "1.latency_ms"), "95")), 21);
    ck_assert_double_eq(sb_jv_num(sb_jv_get(sb_jv_path(iv, "3.latency_ms"), "95")), 23);
    ck_assert_double_eq(sb_jv_num(sb_jv_get(sb_jv_path(iv, "1.lag_ms"), "95")), 3);
    ck_assert_double_eq(sb_jv_num(sb_jv_get(sb_jv_path(iv, "3.lag_ms"), "95")), 1);
    /* The chart's p50, p99 and lag p99 too (1 + i, 8 (i + 1), 3 - i). */
    ck_assert_double_eq(num(iv, "0.latency_p50_ms"), 2);
    ck_assert_double_eq(num(iv, "1.latency_p99_ms"), 24);
    ck_assert_double_eq(num(iv, "1.lag_p99_ms"), 3);
    ck_assert_double_eq(num(iv, "3.lag_p99_ms"), 1);
    /* Backlog summed (0 + 1 + 2), client CPU summed, server CPU once
     * (instance 1's), absent where instance 1 has no interval. */
    ck_assert_double_eq(num(iv, "1.backlog"), 3);
    ck_assert_double_eq(num(iv, "1.cpu_pct.client"), 6);
    ck_assert_double_eq(num(iv, "1.cpu_pct.server"), 40);
    ck_assert(isnan(num(iv, "3.cpu_pct.server")));
    sb_jv_free(d);
}
END_TEST

START_TEST(test_missing_lag_histogram_bounds)
{
    /* Instance 1's file was written without the service/lag histograms. */
    struct sb_jv *d = merge_three(true, 1);
    const struct sb_jv *pt = sb_jv_path(d, "points.0"), *ub = sb_jv_path(d, "merged.upper_bounds");
    const struct sb_jv *svc = sb_jv_path(pt, "final.latency_ms.service");
    bool has_svc = false, has_lag = false;

    for (size_t i = 0; i < sb_jv_len(ub); i++) {
        has_svc |= strcmp(sb_jv_str(sb_jv_at(ub, i)),
                          "points[].final.latency_ms.service.percentiles") == 0;
        has_lag |= strcmp(sb_jv_str(sb_jv_at(ub, i)),
                          "points[].final.latency_ms.lag.percentiles") == 0;
    }
    ck_assert(has_svc && has_lag);
    ck_assert_uint_eq(sb_jv_len(ub), 8);
    /* The response time is still exact; the service histogram is gone
     * (it would be some instances' only). */
    assert_hist(pt, "histogram", "final.latency_ms.response", &all_resp);
    ck_assert_int_eq(sb_jv_path(pt, "histograms.service")->type, SB_JV_NULL);
    /* Count, sum and extremes exact; percentiles the largest of the
     * instances' (above the true p95 of all samples). */
    ck_assert_double_eq(num(svc, "count"), (double)all_service.total);
    ck_assert_double_eq_tol(num(svc, "sum"), all_service.sum_ns / 1e6, 1e-9);
    ck_assert_double_eq_tol(num(svc, "max"), all_service.max_ns / 1e6, 1e-12);
    ck_assert_double_eq_tol(sb_jv_num(sb_jv_get(sb_jv_get(svc, "percentiles"), "95")),
                            max_p95(&in[0].service, &in[1].service, &in[2].service), 1e-12);
    ck_assert_double_gt(max_p95(&in[0].service, &in[1].service, &in[2].service),
                        sb_hist_percentile(&all_service, 95) / 1e6);
    ck_assert_ptr_nonnull(strstr(report, "percentiles at most (not every file has the lag histogram)"));
    sb_jv_free(d);
}
END_TEST

/* Merging names must fail with exit status 1 and exactly one line,
 * "FATAL: ..." containing want. */
static void assert_refused(const char *const *names, const char *want)
{
    ck_assert_int_eq(run_merge(names, true), 1);
    ck_assert_msg(strncmp(errbuf, "FATAL: ", 7) == 0 && strchr(errbuf, '\n') != NULL &&
                      strchr(errbuf, '\n')[1] == '\0',
                  "not one FATAL line: '%s'", errbuf);
    ck_assert_msg(strstr(errbuf, want) != NULL, "'%s' lacks '%s'", errbuf, want);
}

/* Instances 0..2 of 3 written as i0..i2.json (in[] holds them). */
static void write_three(void)
{
    for (unsigned i = 0; i < 3; i++) {
        char name[16];
        init_inst(i, 3, true);
        snprintf(name, sizeof(name), "i%u.json", i);
        write_inst(i, name);
    }
}

START_TEST(test_refusals)
{
    static const char *const dup[] = {"i0.json", "i1.json", "i1.json", NULL};
    static const char *const miss[] = {"i0.json", "i2.json", NULL};
    static const char *const odd[] = {"i0.json", "i1.json", "x.json", NULL};
    char path[128];

    write_three();
    assert_refused(dup, "'");
    ck_assert_ptr_nonnull(strstr(errbuf, "are both instance 1"));
    assert_refused(miss, "instance 1 of 3 is missing");

    in[2].seed = 6;
    write_inst(2, "x.json");
    assert_refused(odd, "different --rand-seed");
    in[2].seed = 5;

    in[2].script = "other.lua";
    write_inst(2, "x.json");
    assert_refused(odd, "ran other.lua");
    in[2].script = "oltp.lua";

    in[2].jitter = 5;
    write_inst(2, "x.json");
    assert_refused(odd, "option --tx-jitter differs");
    in[2].jitter = 0;

    in[2].sub_bits = SB_HIST_SUB_BITS - 1;
    write_inst(2, "x.json");
    assert_refused(odd, "the histogram of point 1 of");
    ck_assert_ptr_nonnull(strstr(errbuf, "has another layout"));
    in[2].sub_bits = SB_HIST_SUB_BITS;

    in[2].start_unix_s = T0 + 10; /* --time=10: not one run */
    write_inst(2, "x.json");
    assert_refused(odd, "more than --time=10");
    in[2].start_unix_s = T0 + 0.98;

    in[2].count = 4;
    write_inst(2, "x.json");
    assert_refused(odd, "one of 4");

    /* No refused merge wrote its output, and the template itself merges
     * (what was refused above are the changes). */
    snprintf(path, sizeof(path), "%s/all.json", dir);
    ck_assert_int_ne(access(path, F_OK), 0);
    in[2].count = 3;
    write_inst(2, "x.json");
    ck_assert_msg(run_merge(odd, false) == 0, "%s", errbuf);
}
END_TEST

/* In dir/name, the first occurrence of from becomes to. */
static void subst(const char *name, const char *from, const char *to)
{
    char path[128], *buf = malloc(1 << 20), *at;
    FILE *f;
    size_t n;

    ck_assert_ptr_nonnull(buf);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    ck_assert_ptr_nonnull(f = fopen(path, "r"));
    n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    ck_assert_msg((at = strstr(buf, from)) != NULL, "%s lacks '%s'", name, from);
    ck_assert_ptr_nonnull(f = fopen(path, "w"));
    fprintf(f, "%.*s%s%s", (int)(at - buf), buf, to, at + strlen(from));
    ck_assert_int_eq(fclose(f), 0);
    free(buf);
}

/* In dir/name, the value after the first occurrence of key (as
 * "\"sum_ns\": ") up to the next ',' or '}' becomes value. */
static void patch(const char *name, const char *key, const char *value)
{
    char path[128], *buf = malloc(1 << 20), *at, *end;
    FILE *f;
    size_t n;

    ck_assert_ptr_nonnull(buf);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    ck_assert_ptr_nonnull(f = fopen(path, "r"));
    n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    ck_assert_ptr_nonnull(at = strstr(buf, key));
    at += strlen(key);
    end = at + strcspn(at, ",}");
    ck_assert_ptr_nonnull(f = fopen(path, "w"));
    fprintf(f, "%.*s%s%s", (int)(at - buf), buf, value, end);
    ck_assert_int_eq(fclose(f), 0);
    free(buf);
}

START_TEST(test_out_of_range_refused)
{
    /* Every number is checked before it is used: one line naming the file
     * and the field (issue 30 items 1, 2). */
    static const char *const odd[] = {"i0.json", "i1.json", "x.json", NULL};
    static const struct {
        const char *key, *value, *want;
    } cases[] = {
        {"\"time_s\": ", "1e15", "x.json': points[0].intervals[0].time_s is 1e+15, expected 0..1e+09"},
        {"\"time_s\": ", "4294967296", "points[0].intervals[0].time_s is 4.29497e+09"},
        {"\"time_s\": ", "-1", "points[0].intervals[0].time_s is -1"},
        {"\"time_s\": ", "\"soon\"", "points[0].intervals[0].time_s is not a number"},
        {"\"interval_s\": ", "1e-300", "points[0].intervals[0].interval_s is 1e-300"},
        {"\"sum_ns\": ", "1e308", "points[0].histogram.sum_ns is 1e+308, expected an integer 0..1e+18"},
        {"\"count\": ", "1.5", "instance.count is 1.5, expected an integer"},
        {"\"kind\": \"ignored\", \"count\": ", "1e300",
         "points[0].final.errors.by_code[0].count is 1e+300"},
        {"\"first_dispatch_unix_s\": ", "-1e300", "points[0].first_dispatch_unix_s is -1e+300"},
        {"\"clamped\": ", "1e300", "points[0].histogram.clamped is 1e+300"},
        {"\"min_ns\": ", "-5", "points[0].histogram.min_ns is -5"},
        {"\"index\": ", "1e308", "x.json': instance.index is 1e+308"},
        {"\"index\": ", "2.5", "instance.index is 2.5, expected an integer"},
        {"\"start_unix_s\": ", "1e300", "points[0].start_unix_s is 1e+300"},
        {"\"tps\": ", "1e308", "points[0].intervals[0].tps is 1e+308"},
        {"\"95\": ", "-1", "points[0].intervals[0].latency_ms.95 is -1"},
        {"\"backlog\": ", "1e300", "points[0].intervals[0].backlog is 1e+300"},
        {"\"buckets\": [[", "-3", "points[0].histogram.buckets[0] is not [low, high, count]"},
        {"\"report-interval\": ", "1e300", "options.general.report-interval is 1e+300"},
    };

    write_three();
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        write_inst(2, "x.json");
        patch("x.json", cases[i].key, cases[i].value);
        assert_refused(odd, cases[i].want);
        ck_assert_ptr_nonnull(strstr(errbuf, "FATAL: cannot merge: "));
    }
}
END_TEST

START_TEST(test_far_interval_bounded)
{
    /* An interval 1e8 s after the start (in range, three years) costs
     * what one interval costs: merge walks the intervals, not the time
     * between them (1e8 empty slots took minutes). The slot is kept:
     * instance 2's last interval (slot 4) moves to slot 1e8 + 4. */
    static const char *const names[] = {"i0.json", "i1.json", "i2.json", NULL};
    struct sb_jv *d;

    write_three();
    subst("i2.json", "\"time_s\": 3, ", "\"time_s\": 100000003, ");
    ck_assert_msg(run_merge(names, true) == 0, "merge failed: %s", errbuf);
    d = merged_doc();
    ck_assert_uint_eq(sb_jv_len(sb_jv_path(d, "points.0.intervals")), 4);
    for (unsigned k = 0; k < 3; k++) {
        char path[64];
        snprintf(path, sizeof(path), "points.0.intervals.%u.time_s", k);
        ck_assert_double_eq(num(d, path), k + 1);
    }
    ck_assert_double_eq(num(d, "points.0.intervals.3.time_s"), 100000004);
    ck_assert_double_eq(num(d, "points.0.intervals.3.events"), iv_events(2, 3));
    sb_jv_free(d);
}
END_TEST

START_TEST(test_file_order_and_remerge)
{
    /* Given in any order, the files are taken by instance index. */
    static const char *const names[] = {"i2.json", "i0.json", "i1.json", NULL};
    static const char *const again[] = {"all.json", NULL};
    char *merge_argv[] = {"sysbench", "--threads=2", "merge", "a.json"};
    char *run_argv[] = {"sysbench", "oltp.lua", "merge"};
    struct sb_jv *d;

    ck_assert(sb_merge_requested(4, merge_argv));
    ck_assert(!sb_merge_requested(3, run_argv));
    write_three();
    ck_assert_int_eq(run_merge(names, true), 0);
    d = merged_doc();
    ck_assert_double_eq(num(d, "merged.instances.0.index"), 0);
    ck_assert_str_eq(sb_jv_str(sb_jv_path(d, "merged.instances.0.hostname")), "host0");
    ck_assert_double_eq(num(d, "merged.instances.2.index"), 2);
    ck_assert_double_eq(num(d, "points.0.final.events"), 900);
    sb_jv_free(d);
    /* A merged file is no instance. */
    assert_refused(again, "is already a merged result");
}
END_TEST

/* Instance 1 of 3 stopped by SIGTERM 4 s into its run (it started at
 * T0 + 0.3): the merge says so, in the text, the file and the status. */
START_TEST(test_cut_short)
{
    static const char *const names[] = {"i0.json", "i1.json", "i2.json", NULL};
    struct sb_jv *d;
    const struct sb_jv *f, *cut;
    double ev = 200 + 300 + 400;

    for (unsigned i = 0; i < 3; i++) {
        char name[16];
        init_inst(i, 3, true);
        in[i].ended = "completed";
        if (i == 1) {
            in[i].ended = "interrupted";
            in[i].time_s = 4;
        }
        snprintf(name, sizeof(name), "i%u.json", i);
        write_inst(i, name);
    }
    ck_assert_int_eq(run_merge(names, true), 3);
    ck_assert_str_eq(errbuf, "");
    d = merged_doc();
    f = sb_jv_path(d, "points.0.final");
    /* The worst instance's end; the deadline is not "met". */
    ck_assert_str_eq(sb_jv_str(sb_jv_path(d, "ended.status")), "interrupted");
    ck_assert_double_eq(num(d, "ended.signal"), 15);
    ck_assert_int_eq(sb_jv_path(d, "ended.deadline")->type, SB_JV_NULL);
    ck_assert_double_eq(num(d, "ended.cancelled"), 2);
    ck_assert(sb_jv_true(sb_jv_path(d, "points.0.interrupted")));
    /* The window still ends with the last instance: the rate falls. */
    ck_assert_double_eq_tol(num(f, "time_s"), 10.98, 1e-5);
    ck_assert_double_eq_tol(num(f, "tps"), ev / 10.98, 1e-5);
    ck_assert_double_eq_tol(num(f, "rate.achieved_pct"), 100.0 * ev / 10.98 / 30, 1e-5);
    /* Named, with when. */
    cut = sb_jv_path(d, "merged.cut_short");
    ck_assert_uint_eq(sb_jv_len(cut), 1);
    ck_assert_double_eq(num(cut, "0.index"), 1);
    ck_assert_str_eq(sb_jv_str(sb_jv_path(cut, "0.status")), "interrupted");
    ck_assert_double_eq_tol(num(cut, "0.at_s"), 4.3, 1e-5);
    ck_assert_double_eq_tol(num(cut, "0.window_s"), 10.98, 1e-5);
    ck_assert(!sb_jv_true(sb_jv_path(d, "merged.complete")));
    ck_assert_msg(strstr(report, "CUT SHORT: instance 1 (host host1) interrupted by signal 15 at "
                                 "4.30 s of the 10.98 s window") != NULL, "%s", report);
    ck_assert_ptr_nonnull(strstr(report, "NOT A COMPLETE RUN: the worst instance ended interrupted"));
    sb_jv_free(d);

    /* A failed instance is worse than an interrupted one. */
    in[2].ended = "failed";
    in[2].time_s = 2;
    write_inst(2, "i2.json");
    ck_assert_int_eq(run_merge(names, true), 3);
    d = merged_doc();
    ck_assert_str_eq(sb_jv_str(sb_jv_path(d, "ended.status")), "failed");
    ck_assert_str_eq(sb_jv_str(sb_jv_path(d, "ended.error")), "lost connection");
    ck_assert_double_eq(num(d, "ended.cancelled"), 3);
    ck_assert_uint_eq(sb_jv_len(sb_jv_path(d, "merged.cut_short")), 2);
    /* Instance 0 ends last now (T0 + 10): the window shrinks with it. */
    ck_assert_double_eq_tol(num(d, "points.0.final.time_s"), 10, 1e-5);
    ck_assert_ptr_nonnull(strstr(report, "instance 2 (host host2) failed (lost connection) at 2.98 s"));
    sb_jv_free(d);
}
END_TEST

/* Instance 1 of 3 left no file: refused, unless --allow-missing, which
 * merges the other two labelled partial. */
START_TEST(test_partial)
{
    static const char *const two[] = {"i0.json", "i2.json", NULL};
    static const char *const all[] = {"i0.json", "i1.json", "i2.json", NULL};
    struct sb_jv *d;
    const struct sb_jv *f;

    write_three();
    assert_refused(two, "instance 1 of 3 is missing (--allow-missing merges the others");
    extra_arg = "--allow-missing";
    ck_assert_int_eq(run_merge(two, true), 3);
    ck_assert_str_eq(errbuf, "");
    d = merged_doc();
    f = sb_jv_path(d, "points.0.final");
    ck_assert(sb_jv_true(sb_jv_path(d, "merged.partial")));
    ck_assert(!sb_jv_true(sb_jv_path(d, "merged.complete")));
    ck_assert_uint_eq(sb_jv_len(sb_jv_path(d, "merged.missing")), 1);
    ck_assert_double_eq(num(d, "merged.missing.0"), 1);
    ck_assert_double_eq(num(d, "merged.count"), 3);
    ck_assert_uint_eq(sb_jv_len(sb_jv_path(d, "merged.instances")), 2);
    /* The present instances' figures and target, over their window. */
    ck_assert_double_eq(num(f, "events"), 200 + 400);
    ck_assert_double_eq(num(f, "rate.target_tps"), 20);
    ck_assert_double_eq_tol(num(f, "tps"), 600 / 10.98, 1e-5);
    ck_assert_ptr_nonnull(strstr(report, "Merged result of 2 of 3 instances"));
    ck_assert_ptr_nonnull(strstr(report, "PARTIAL (--allow-missing): instance 1 of 3 left no result"));
    ck_assert_ptr_nonnull(strstr(report, "target 20.00 tps (the instances present)"));
    sb_jv_free(d);
    /* Nothing missing: an ordinary merge, status 0. */
    ck_assert_int_eq(run_merge(all, true), 0);
    d = merged_doc();
    ck_assert(!sb_jv_true(sb_jv_path(d, "merged.partial")));
    ck_assert(sb_jv_true(sb_jv_path(d, "merged.complete")));
    sb_jv_free(d);
}
END_TEST

/* The spread of the instances' measured starts: each one's schedule
 * origin less its clock offset plus how late its first event began. */
START_TEST(test_start_spread)
{
    static const char *const names[] = {"i0.json", "i1.json", "i2.json", NULL};
    struct sb_jv *d;

    /* Without offsets, on the hosts' own clocks: the origins differ by
     * up to 0.98 s, the first lags are 1, 2 and 3 ms. */
    write_three();
    ck_assert_int_eq(run_merge(names, true), 0);
    d = merged_doc();
    ck_assert_double_eq_tol(num(d, "merged.start_spread.spread_s"), 0.98 + 0.003 - 0.001, 1e-5);
    ck_assert_double_eq_tol(num(d, "merged.start_spread.max_first_lag_s"), 0.003, 1e-5);
    ck_assert(!sb_jv_true(sb_jv_path(d, "merged.start_spread.clock_corrected")));
    ck_assert_double_eq_tol(num(d, "merged.instances.1.first_lag_s"), 0.002, 1e-5);
    /* The merged point's first dispatch is the earliest instance's. */
    ck_assert_double_eq_tol(num(d, "points.0.first_dispatch_unix_s"), T0 + 0.001, 1e-6);
    sb_jv_free(d);
    /* Instances 1 and 2 have clocks 0.3 and 0.98 s ahead: corrected,
     * they started together, apart from the first lags. */
    in[1].clock_offset = 0.3;
    in[2].clock_offset = 0.98;
    in[0].clock_offset = 0;
    for (unsigned i = 0; i < 3; i++)
        write_inst(i, names[i]);
    ck_assert_int_eq(run_merge(names, true), 0);
    d = merged_doc();
    ck_assert_double_eq_tol(num(d, "merged.start_spread.spread_s"), 0.002, 1e-6);
    ck_assert(sb_jv_true(sb_jv_path(d, "merged.start_spread.clock_corrected")));
    ck_assert_msg(strstr(report, "began within 2.00 ms of each other (corrected by the measured "
                                 "clock offsets)") != NULL, "%s", report);
    sb_jv_free(d);
}
END_TEST

static Suite *merge_suite(void)
{
    Suite *s = suite_create("sb_merge");
    TCase *tc = tcase_create("merge");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_counts_and_histograms);
    tcase_add_test(tc, test_closed_loop);
    tcase_add_test(tc, test_intervals_aligned);
    tcase_add_test(tc, test_missing_lag_histogram_bounds);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_file_order_and_remerge);
    tcase_add_test(tc, test_cut_short);
    tcase_add_test(tc, test_partial);
    tcase_add_test(tc, test_start_spread);
    tcase_add_test(tc, test_out_of_range_refused);
    tcase_add_test(tc, test_far_interval_bounded);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(merge_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
