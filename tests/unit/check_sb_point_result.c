/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the result model of one point: the text report printed
 * from a hand-built struct sb_point_result, the same point's final figures
 * stored by the result files and written as JSON, the JSON read back through the result-file
 * reader (sb_result_file) with the same figures, and the compare command
 * reading such a file. Beyond one point: the report's error, reconnect,
 * code and rate lines as sysbench 1.0's parsers read them; a sweep of
 * three points with intervals through JSON and through CSV; compare's
 * ratios for two sweeps whose throughput differs by known factors.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare/sb_compare.h"
#include "config/sb_config.h"
#include "core/sb_options.h"
#include "results/sb_result_writer.h"
#include "config/sb_point.h"
#include "results/sb_text_report.h"
#include "results/sb_result_file.h"
#include "results/sb_point_result.h"
#include "results/sb_result_fields.h"
#include "core/sb_json_read.h"

/* A point of 4 threads at --tx-rate 200 that ran 10 s: 1000 events,
 * 14 reads, 4 writes and 2 other queries each; response times 1..1000 ms
 * (one event each), so percentiles are known exactly. */
static struct sb_stats total;
static uint64_t thread_events[4] = {250, 250, 250, 250};
static double thread_busy[4] = {2.0, 2.0, 2.0, 2.0};
static const double pcts[] = {95, 99};

/* Builds the point and the report options of that run. p borrows the
 * static total and per-thread arrays (tests change total in place);
 * output_of hands the result files owned copies. */
static void build_point(struct sb_point_result *p, struct sb_text_report_opts *ro,
                        struct sb_point_config *pc)
{
    sb_stats_reset(&total);
    total.ncodes = 0;
    total.c[SB_STAT_EVENTS] = 1000;
    total.c[SB_STAT_READS] = 14000;
    total.c[SB_STAT_WRITES] = 4000;
    total.c[SB_STAT_OTHER] = 2000;
    total.c[SB_STAT_LATE] = 10;
    for (uint64_t ms = 1; ms <= 1000; ms++) {
        sb_hist_record(&total.response, ms * 1000000);
        sb_hist_record(&total.service, ms * 1000000);
        sb_hist_record(&total.lag, 1000);
    }
    memset(pc, 0, sizeof(*pc));
    pc->threads = 4;
    pc->mode = SB_PACE_FIXED;
    pc->rate = 200;
    pc->target_tps = 200;
    pc->jitter_us = 2000;
    pc->repeat = 1;
    pc->nrepeat = 1;
    memset(p, 0, sizeof(*p));
    p->cfg = *pc;
    p->total = &total;
    p->time_s = 10.0;
    p->thread_events = thread_events;
    p->thread_busy = thread_busy;
    p->nthread_events = pc->threads;
    p->max_backlog = 3;
    snprintf(p->server_label, sizeof(p->server_label), "not measured (test)");
    memset(ro, 0, sizeof(*ro));
    ro->percentiles = pcts;
    ro->npercentiles = 2;
    ro->sql = true;
}

static char *report_text(const struct sb_point_result *p, const struct sb_text_report_opts *ro)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);

    ck_assert_ptr_nonnull(fp);
    sb_text_report_print_point(p, ro, fp);
    fclose(fp);
    return text;
}

/* Stores the final figures of p in the current point of o, as the
 * reporter does, from an owned copy of p's borrowed total (the result
 * files take over what they are handed). */
static void end_point_of(struct sb_result_writer *o, const struct sb_point_result *p)
{
    struct sb_point_result q = *p;

    q.total = sb_stats_new();
    ck_assert_ptr_nonnull(q.total);
    *q.total = *p->total;
    q.thread_events = NULL;
    q.thread_busy = NULL;
    q.nthread_events = 0;
    ck_assert_int_eq(sb_result_writer_end_point(o, &q), 0);
    ck_assert_ptr_null(q.total);
}

/* The value after `label` on the line that holds it, as a number. */
static double field_after(const char *text, const char *label)
{
    const char *p = strstr(text, label);

    ck_assert_msg(p != NULL, "no '%s' in the report:\n%s", label, text);
    p += strlen(label);
    while (*p == ' ' || *p == '(')
        p++;
    return strtod(p, NULL);
}

START_TEST(text_report_from_point)
{
    struct sb_point_result p;
    struct sb_text_report_opts ro;
    struct sb_point_config pc;
    char *t;

    build_point(&p, &ro, &pc);
    t = report_text(&p, &ro);
    /* sysbench 1.0's sections and figures. */
    ck_assert_ptr_nonnull(strstr(t, "SQL statistics:"));
    ck_assert_double_eq_tol(field_after(t, "read:"), 14000, 1e-9);
    ck_assert_double_eq_tol(field_after(t, "write:"), 4000, 1e-9);
    ck_assert_double_eq_tol(field_after(t, "transactions:"), 1000, 1e-9);
    ck_assert_ptr_nonnull(strstr(t, "(100.00 per sec.)"));
    ck_assert_ptr_nonnull(strstr(t, "(2000.00 per sec.)"));
    ck_assert_double_eq_tol(field_after(t, "total number of events:"), 1000, 1e-9);
    ck_assert_double_eq_tol(field_after(t, "min:"), 1.0, 1e-9);
    ck_assert_double_eq_tol(field_after(t, "max:"), 1000.0, 1e-9);
    ck_assert_double_eq_tol(field_after(t, "events (avg/stddev):"), 250, 1e-9);
    /* The rate section follows the mode of the one enum. */
    ck_assert_ptr_nonnull(strstr(t, "Rate (--tx-rate, fixed schedule per thread):"));
    ck_assert_double_eq_tol(field_after(t, "target:"), 200, 1e-9);
    ck_assert_double_eq_tol(field_after(t, "jitter:"), 2000, 1e-9);
    ck_assert_double_eq_tol(field_after(t, "max backlog:"), 3, 1e-9);
    ck_assert_double_eq_tol(field_after(t, "late starts:"), 10, 1e-9);
    free(t);

    /* Poisson: no jitter line; closed loop: no rate section at all. */
    p.cfg.mode = SB_PACE_POISSON;
    t = report_text(&p, &ro);
    ck_assert_ptr_nonnull(strstr(t, "Rate (--rate, Poisson arrivals):"));
    ck_assert_ptr_null(strstr(t, "jitter:"));
    free(t);
    p.cfg.mode = SB_PACE_NONE;
    t = report_text(&p, &ro);
    ck_assert_ptr_null(strstr(t, "Rate ("));
    ck_assert_ptr_null(strstr(t, "max backlog:"));
    free(t);
}
END_TEST

/* The output of one point from the result p: begin_point with pc, then
 * end_point with p, as the run does. */
static void output_of(struct sb_result_writer *o, const struct sb_point_result *p,
                      const struct sb_point_config *pc)
{
    struct sb_config cfg;
    char err[256];

    memset(&cfg, 0, sizeof(cfg));
    cfg.npercentiles = 2;
    cfg.percentiles[0] = 95;
    cfg.percentiles[1] = 99;
    ck_assert_int_eq(sb_result_writer_open(o, &cfg, err, sizeof(err)), 0);
    ck_assert_ptr_nonnull(sb_result_writer_begin_point(o, pc));
    end_point_of(o, p);
    sb_result_writer_set_end(o, "completed", 0, NULL);
}

/* The JSON document of o, as --json writes it. */
static char *json_of(const struct sb_result_writer *o)
{
    struct sb_optset general;
    struct sb_lua_env env;
    char *text = NULL, err[256];
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    static char *argv[] = {"sysbench", "check.lua", "run", NULL};

    ck_assert_ptr_nonnull(fp);
    sb_optset_init(&general, "General options");
    memset(&env, 0, sizeof(env));
    env.general = &general;
    env.argc = 3;
    env.argv = argv;
    env.script_path = "check.lua";
    env.command = "run";
    ck_assert_int_eq(sb_result_writer_write_json_to(o, &env, fp, "memory", err, sizeof(err)), 0);
    fclose(fp);
    sb_optset_free(&general);
    return text;
}

static void load_back(struct sb_result_file *r, const char *json)
{
    char err[256];
    struct sb_jv *doc = sb_jv_parse(json, strlen(json), err, sizeof(err));

    ck_assert_msg(doc != NULL, "%s", err);
    ck_assert_msg(sb_result_file_from_json(r, doc, "memory", "a", err, sizeof(err)) == 0, "%s", err);
    sb_jv_free(doc);
}

START_TEST(json_round_trip)
{
    struct sb_point_result f;
    struct sb_text_report_opts ro;
    struct sb_point_config pc;
    struct sb_result_writer o;
    struct sb_result_file r;
    const struct sb_point_result *p;
    char *json, err[256];

    build_point(&f, &ro, &pc);
    pc.repeat = 2;
    pc.nrepeat = 3;
    output_of(&o, &f, &pc);
    json = json_of(&o);
    load_back(&r, json);
    ck_assert_uint_eq(r.npoints, 1);
    p = &r.points[0];
    /* The point config comes back as the run had it. */
    ck_assert_uint_eq(p->cfg.threads, pc.threads);
    ck_assert_int_eq(p->cfg.mode, SB_PACE_FIXED);
    ck_assert_double_eq_tol(p->cfg.target_tps, pc.target_tps, 1e-9);
    ck_assert_double_eq_tol(p->cfg.jitter_us, pc.jitter_us, 1e-9);
    ck_assert_uint_eq(p->cfg.repeat, 2);
    ck_assert_uint_eq(p->cfg.nrepeat, 3);
    ck_assert(sb_point_result_complete(p));
    ck_assert_double_eq_tol(sb_point_result_tps(p), 100, 1e-9);
    ck_assert_double_eq_tol(sb_point_result_qps(p), 2000, 1e-9);
    /* The percentiles read back agree with the run's own rule: the same
     * histogram gives the same figure the report printed. */
    ck_assert_double_eq_tol(sb_point_result_pct_ms(p, 95),
                            (double)sb_hist_percentile(&total.response, 95) / 1e6, 1e-9);
    ck_assert_double_eq_tol(sb_point_result_pct_ms(p, 99),
                            (double)sb_hist_percentile(&total.response, 99) / 1e6, 1e-9);
    /* The counters and the histogram come back as the run had them. */
    ck_assert_uint_eq(p->total->c[SB_STAT_EVENTS], total.c[SB_STAT_EVENTS]);
    ck_assert_uint_eq(sb_stats_queries(p->total), sb_stats_queries(&total));
    ck_assert_uint_eq(p->total->response.total, total.response.total);
    /* Nothing measured on the CPU side: NaN, not zero. */
    ck_assert(!p->cpu.server.measured);
    ck_assert(isnan(sb_point_result_cpu_us(p, SB_POINT_RESULT_SERVER)));
    sb_result_file_free(&r);
    free(json);
    ck_assert_int_eq(sb_result_writer_close(&o, err, sizeof(err)), 0);

    /* Poisson and closed loop keep their modes through the file. */
    pc.mode = f.cfg.mode = SB_PACE_POISSON;
    output_of(&o, &f, &pc);
    json = json_of(&o);
    load_back(&r, json);
    ck_assert_int_eq(r.points[0].cfg.mode, SB_PACE_POISSON);
    ck_assert_double_eq_tol(r.points[0].cfg.target_tps, 200, 1e-9);
    ck_assert_double_eq_tol(r.points[0].cfg.jitter_us, 0, 1e-9);
    sb_result_file_free(&r);
    free(json);
    sb_result_writer_close(&o, err, sizeof(err));
    pc.mode = f.cfg.mode = SB_PACE_NONE;
    output_of(&o, &f, &pc);
    json = json_of(&o);
    load_back(&r, json);
    ck_assert_int_eq(r.points[0].cfg.mode, SB_PACE_NONE);
    ck_assert_double_eq_tol(r.points[0].cfg.target_tps, 0, 1e-9);
    sb_result_file_free(&r);
    free(json);
    sb_result_writer_close(&o, err, sizeof(err));
}
END_TEST

/* Whether dotted path (of final's members) is listed by sb_rf_final, or
 * lies inside a listed map or list (a percentile key, a list's item). */
static bool listed(const char *path)
{
    for (const struct sb_result_field *f = sb_rf_final; f->path != NULL; f++) {
        size_t n = strlen(f->path);
        if (strncmp(path, f->path, n) == 0 && (path[n] == '\0' || path[n] == '.'))
            return true;
    }
    return false;
}

/* Every member of final object v at prefix pre is listed by the table;
 * returns how many leaves were seen. */
static size_t all_listed(const struct sb_jv *v, const char *pre)
{
    size_t n = 0;
    char path[160];

    for (size_t k = 0; k < v->n; k++) {
        snprintf(path, sizeof(path), "%s%s", pre, sb_jv_key(v, k));
        if (v->items[k].type == SB_JV_OBJECT && !listed(path)) {
            strcat(path, ".");
            n += all_listed(&v->items[k], path);
            continue;
        }
        ck_assert_msg(listed(path), "final.%s is written but not in sb_rf_final", path);
        n++;
    }
    return n;
}

/* The final figures' table is their one spelling: the writer writes
 * every field it lists, as sb_rf_value computes it, and nothing else;
 * the reader puts each back where the table says the model holds it. */
START_TEST(final_fields_one_table)
{
    struct sb_point_result f;
    struct sb_text_report_opts ro;
    struct sb_point_config pc;
    struct sb_result_writer o;
    struct sb_result_file r;
    struct sb_jv *doc;
    const struct sb_jv *fin;
    char *json, err[256];
    size_t fields = 0;

    build_point(&f, &ro, &pc);
    total.c[SB_STAT_ERRORS] = 7;
    total.c[SB_STAT_RECONNECTS] = 2;
    total.c[SB_STAT_SKIPPED] = 4;
    total.ncodes = 1;
    snprintf(total.codes[0].code, sizeof(total.codes[0].code), "1213");
    total.codes[0].count = 7;
    f.cpu = (struct sb_cpu_report){ .elapsed_s = 10.5, .ncpus = 3, .transactions = 999,
        .client = { true, 1.25, 11, 12, 23, 4.5 },
        .machine = { true, 21, 22, 43, 50, 30, 20, 1, 2, 47 } };
    f.thread_cpu = calloc(2, sizeof(*f.thread_cpu));
    ck_assert_ptr_nonnull(f.thread_cpu);
    f.thread_cpu[1] = (struct sb_cpu_thread){ .user_s = 0.5, .system_s = 0.25, .events = 9 };
    f.nthread_cpu = 2;
    output_of(&o, &f, &pc);
    json = json_of(&o);
    doc = sb_jv_parse(json, strlen(json), err, sizeof(err));
    ck_assert_msg(doc != NULL, "%s", err);
    fin = sb_jv_path(doc, "points.0.final");
    ck_assert_uint_gt(all_listed(fin, ""), 60);
    load_back(&r, json);
    for (const struct sb_result_field *t = sb_rf_final; t->path != NULL; t++) {
        const struct sb_jv *v = sb_jv_path(fin, t->path);
        const struct sb_point_result *b = &r.points[0];
        double x;
        ck_assert_msg(v != NULL, "final.%s is listed but not written", t->path);
        if (t->type != SB_RF_COUNT && t->type != SB_RF_REAL)
            continue;
        /* As the table computes it from the writer's point. */
        x = sb_rf_value(&o.points[0], t, 0);
        ck_assert_msg(isnan(x) ? v->type == SB_JV_NULL : sb_jv_num(v) == x,
                      "final.%s: written %g, the table gives %g", t->path, sb_jv_num(v), x);
        fields++;
        /* Read back where the model holds it. */
        if (t->ctype == SB_RF_STAT)
            x = sb_rf_get(b->total, t);
        else if (t->ctype == SB_RF_DOUBLE || t->ctype == SB_RF_U64 || t->ctype == SB_RF_UINT)
            x = sb_rf_get(b, t);
        else
            continue;
        ck_assert_msg(isnan(x) ? v->type == SB_JV_NULL : sb_jv_num(v) == x,
                      "final.%s: read back %g, the file has %g", t->path, x, sb_jv_num(v));
    }
    ck_assert_uint_gt(fields, 50);
    /* The figures chosen above came through, not only agreeing zeros. */
    ck_assert_uint_eq(r.points[0].total->c[SB_STAT_SKIPPED], 4);
    ck_assert_double_eq(r.points[0].cpu.machine.idle_pct, 47);
    ck_assert(isnan(r.points[0].cpu.server.util_pct));
    ck_assert_uint_eq(r.points[0].nthread_cpu, 2);
    ck_assert_uint_eq(r.points[0].thread_cpu[1].events, 9);
    ck_assert_str_eq(r.points[0].total->codes[0].code, "1213");
    ck_assert_str_eq(r.points[0].server_label, "not measured (test)");
    ck_assert_double_eq(r.points[0].file_pct_ms[1],
                        (double)sb_hist_percentile(&total.response, 99) / 1e6);
    sb_result_file_free(&r);
    sb_jv_free(doc);
    free(json);
    ck_assert_int_eq(sb_result_writer_close(&o, err, sizeof(err)), 0);
    total.ncodes = 0;
}
END_TEST

START_TEST(pace_mode_names)
{
    enum sb_pace_mode m;

    for (int i = SB_PACE_NONE; i <= SB_PACE_POISSON; i++) {
        ck_assert(sb_pace_mode_parse(sb_pace_mode_name((enum sb_pace_mode)i), &m));
        ck_assert_int_eq(m, i);
    }
    ck_assert_str_eq(sb_pace_mode_name(SB_PACE_FIXED), "tx-rate");
    ck_assert(!sb_pace_mode_parse("bogus", &m));
    ck_assert_int_eq(m, SB_PACE_NONE);
    ck_assert(!sb_pace_mode_parse(NULL, &m));
}
END_TEST

/* Writes text to a fresh temporary file named into name. */
static const char *temp_file(const char *text, char *name, size_t len)
{
    FILE *fp;
    int fd;

    snprintf(name, len, "/tmp/check_sb_result_XXXXXX");
    fd = mkstemp(name);
    ck_assert_int_ge(fd, 0);
    fp = fdopen(fd, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
    return name;
}

/* Runs compare on argv, returning what it printed (caller frees). */
static char *compare_output(int argc, char **argv, int *rc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);

    ck_assert_ptr_nonnull(fp);
    *rc = sb_compare_main(argc, argv, fp);
    fclose(fp);
    return text;
}

START_TEST(compare_reads_the_file)
{
    struct sb_point_result f;
    struct sb_text_report_opts ro;
    struct sb_point_config pc;
    struct sb_result_writer o;
    struct sb_result_file r;
    char a[64], b[64], err[256], *json, *out;
    int rc;

    build_point(&f, &ro, &pc);
    output_of(&o, &f, &pc);
    json = json_of(&o);
    sb_result_writer_close(&o, err, sizeof(err));
    temp_file(json, a, sizeof(a));
    free(json);
    /* The second file: the same point at twice the events. */
    total.c[SB_STAT_EVENTS] = 2000;
    thread_events[0] = 1250;
    output_of(&o, &f, &pc);
    json = json_of(&o);
    sb_result_writer_close(&o, err, sizeof(err));
    temp_file(json, b, sizeof(b));
    free(json);
    thread_events[0] = 250;

    /* The reader compare uses, from the file. */
    ck_assert_msg(sb_result_file_load(&r, a, "one", err, sizeof(err)) == 0, "%s", err);
    ck_assert_uint_eq(r.npoints, 1);
    ck_assert_double_eq_tol(sb_point_result_tps(&r.points[0]), 100, 1e-9);
    ck_assert_int_eq(r.points[0].cfg.mode, SB_PACE_FIXED);
    sb_result_file_free(&r);
    {
        char *argv[] = {"sysbench", "compare", a, b, "--labels=one,two", NULL};
        out = compare_output(5, argv, &rc);
    }
    ck_assert_int_eq(rc, 0);
    /* Both labels, both throughputs and the ratio of the second file. */
    ck_assert_msg(strstr(out, "one") && strstr(out, "two"), "%s", out);
    ck_assert_msg(strstr(out, "100.00") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "200.00") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "2.00x") != NULL, "%s", out);
    free(out);
    /* A file that is not a result: one FATAL line, status 1. */
    unlink(b);
    temp_file("{\"format\": \"other\"}", b, sizeof(b));
    {
        char *argv[] = {"sysbench", "compare", a, b, NULL};
        out = compare_output(4, argv, &rc);
    }
    ck_assert_int_eq(rc, 1);
    free(out);
    unlink(a);
    unlink(b);
}
END_TEST

/* The line of text that starts with prefix, copied into buf. */
static const char *line_of(const char *text, const char *prefix, char *buf, size_t len)
{
    const char *p = text;

    while (p != NULL && *p) {
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            size_t n = strcspn(p, "\n");
            snprintf(buf, len, "%.*s", (int)n, p);
            return buf;
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    ck_abort_msg("no line starting with '%s' in:\n%s", prefix, text);
    return NULL;
}

/* Errors, reconnects and their codes; a checkpoint's rates over its own
 * span; the lines byte for byte where sysbench 1.0's parsers read them. */
START_TEST(text_report_errors_and_rates)
{
    struct sb_point_result f;
    struct sb_text_report_opts ro;
    struct sb_point_config pc;
    struct sb_db_error deadlock, gone;
    char line[256], *t;

    build_point(&f, &ro, &pc);
    memset(&deadlock, 0, sizeof(deadlock));
    deadlock.sql_errno = 1213;
    memset(&gone, 0, sizeof(gone));
    gone.sql_errno = 2013;
    total.c[SB_STAT_ERRORS] = 40;
    total.c[SB_STAT_RECONNECTS] = 2;
    total.c[SB_STAT_SKIPPED] = 5;
    for (int i = 0; i < 40; i++)
        sb_stats_count_code(&total, &deadlock, false);
    for (int i = 0; i < 2; i++)
        sb_stats_count_code(&total, &gone, true);
    t = report_text(&f, &ro);
    /* sysbench 1.0's columns: the value at column 41, the latency figures
     * right-aligned at column 53. */
    ck_assert_str_eq(line_of(t, "    transactions:", line, sizeof(line)),
                     "    transactions:                        1000   (100.00 per sec.)");
    ck_assert_str_eq(line_of(t, "    queries:", line, sizeof(line)),
                     "    queries:                             20000  (2000.00 per sec.)");
    ck_assert_str_eq(line_of(t, "    ignored errors:", line, sizeof(line)),
                     "    ignored errors:                      40     (4.00 per sec.)");
    ck_assert_str_eq(line_of(t, "    reconnects:", line, sizeof(line)),
                     "    reconnects:                          2      (0.20 per sec.)");
    ck_assert_str_eq(line_of(t, "    total time:", line, sizeof(line)),
                     "    total time:                          10.0000s");
    ck_assert_str_eq(line_of(t, "         min:", line, sizeof(line)),
                     "         min:                                    1.00");
    ck_assert_str_eq(line_of(t, "         sum:", line, sizeof(line)),
                     "         sum:                               500500.00");
    /* Percentiles by the histogram's rule, as the JSON has them. */
    ck_assert_double_eq_tol(field_after(t, "95th percentile:"),
                            round((double)sb_hist_percentile(&total.response, 95) / 1e4) / 100,
                            1e-9);
    /* The codes, each under its kind; 4% errors is no warning. */
    ck_assert_ptr_nonnull(strstr(t, "Errors by code:\n"));
    ck_assert_str_eq(line_of(t, "    ignored 1213:", line, sizeof(line)),
                     "    ignored 1213:                        40     (4.00 per sec.)");
    ck_assert_str_eq(line_of(t, "    reconnect after 2013:", line, sizeof(line)),
                     "    reconnect after 2013:                2      (0.20 per sec.)");
    ck_assert_ptr_null(strstr(t, "WARNING:"));
    /* The rate section against the target of 200. */
    ck_assert_ptr_nonnull(strstr(t, "    achieved:                            "
                                    "100.00 per sec. (50.00% of target)\n"));
    ck_assert_ptr_nonnull(strstr(t, "    late starts:                         10     (1.00%)\n"));
    ck_assert_ptr_nonnull(strstr(t, "    skipped:                             5\n"));
    free(t);

    /* A checkpoint covering the last 5 s: rates over those 5 s, the
     * total time still the run's. */
    ro.interval_s = 5;
    t = report_text(&f, &ro);
    ck_assert_ptr_nonnull(strstr(t, "(200.00 per sec.)"));
    ck_assert_ptr_nonnull(strstr(t, "    ignored errors:                      40     (8.00 per sec.)"));
    ck_assert_double_eq_tol(field_after(t, "total time:"), 10, 1e-9);
    free(t);

    /* Errors above 5% of the transactions: the warning, with its figures. */
    ro.interval_s = 0;
    total.c[SB_STAT_ERRORS] = 200;
    t = report_text(&f, &ro);
    ck_assert_ptr_nonnull(strstr(t, "WARNING: 200 ignored errors for 1000 transactions (20.0%"));
    free(t);
    /* Without SQL: no SQL section, the general one unchanged. */
    ro.sql = false;
    t = report_text(&f, &ro);
    ck_assert_ptr_null(strstr(t, "SQL statistics:"));
    ck_assert_double_eq_tol(field_after(t, "total number of events:"), 1000, 1e-9);
    free(t);
}
END_TEST

/* Interval k (from 1) of a point of `threads` threads: figures that
 * identify both, so a mix-up between points or intervals shows. */
static struct sb_interval interval_of(unsigned threads, unsigned k)
{
    struct sb_interval iv;

    memset(&iv, 0, sizeof(iv));
    iv.time_s = k;
    iv.epoch_s = 1.7e9 + k;
    iv.interval_s = 1;
    iv.threads = threads;
    iv.events = 100 * threads + k;
    iv.tps = (double)iv.events;
    iv.qps = 20 * iv.tps;
    iv.reads_ps = 14 * iv.tps;
    iv.writes_ps = 4 * iv.tps;
    iv.other_ps = 2 * iv.tps;
    iv.latency_ms[0] = 10.0 * threads + k;       /* p95 */
    iv.latency_ms[1] = 20.0 * threads + k;       /* p99 */
    iv.errors_ps = k;
    iv.reconnects_ps = 0.5 * k;
    iv.backlog = k;
    iv.p50_ms = 5.0 * threads;
    iv.p99_ms = iv.latency_ms[1];
    iv.cpu_client_pct = 25.0 + k;
    iv.cpu_server_pct = NAN;
    return iv;
}

/* A sweep of three closed-loop points (1, 2, 4 threads) of 3 intervals
 * each; the final figures are build_point's with the events scaled by
 * the thread count (and by scale[i] when scale is not NULL). With csv
 * set, the output also writes the CSV. */
static void sweep_output(struct sb_result_writer *o, const char *csv, const double *scale)
{
    static const unsigned threads[] = {1, 2, 4};
    struct sb_config cfg;
    struct sb_point_result f;
    struct sb_text_report_opts ro;
    struct sb_point_config pc;
    char err[256];

    memset(&cfg, 0, sizeof(cfg));
    cfg.npercentiles = 2;
    cfg.percentiles[0] = 95;
    cfg.percentiles[1] = 99;
    cfg.csv_file = csv;
    ck_assert_msg(sb_result_writer_open(o, &cfg, err, sizeof(err)) == 0, "%s", err);
    for (size_t i = 0; i < 3; i++) {
        build_point(&f, &ro, &pc);
        pc.mode = f.cfg.mode = SB_PACE_NONE;
        pc.rate = pc.target_tps = f.cfg.target_tps = 0;
        pc.threads = f.cfg.threads = threads[i];
        total.c[SB_STAT_EVENTS] = (uint64_t)(1000 * threads[i] * (scale ? scale[i] : 1));
        ck_assert_ptr_nonnull(sb_result_writer_begin_point(o, &pc));
        for (unsigned k = 1; k <= 3; k++) {
            struct sb_interval iv = interval_of(threads[i], k);
            ck_assert_int_eq(sb_result_writer_add_interval(o, &iv), 0);
        }
        end_point_of(o, &f);
    }
    sb_result_writer_set_end(o, "completed", 0, NULL);
}

START_TEST(json_sweep_round_trip)
{
    struct sb_result_writer o;
    struct sb_result_file r;
    struct sb_jv *doc;
    char *json, err[256];

    sweep_output(&o, NULL, NULL);
    json = json_of(&o);
    load_back(&r, json);
    ck_assert_uint_eq(r.npoints, 3);
    for (size_t i = 0; i < 3; i++) {
        const struct sb_point_result *p = &r.points[i];
        unsigned th = 1u << i;
        double v[8];

        ck_assert_uint_eq(p->cfg.threads, th);
        ck_assert_int_eq(p->cfg.mode, SB_PACE_NONE);
        ck_assert(sb_point_result_complete(p));
        ck_assert_double_eq_tol(sb_point_result_tps(p), 100.0 * th, 1e-9);
        ck_assert_uint_eq(p->nintervals, 3);
        ck_assert_uint_eq(sb_point_result_fig_intervals(p, SB_POINT_RESULT_TPS, 0, v, 8), 3);
        for (unsigned k = 1; k <= 3; k++)
            ck_assert_double_eq_tol(v[k - 1], 100.0 * th + k, 1e-9);
        ck_assert_uint_eq(sb_point_result_fig_intervals(p, SB_POINT_RESULT_LATENCY, 99, v, 8), 3);
        for (unsigned k = 1; k <= 3; k++)
            ck_assert_double_eq_tol(v[k - 1], 20.0 * th + k, 1e-9);
        ck_assert_uint_eq(sb_point_result_fig_intervals(p, SB_POINT_RESULT_LATENCY, 95, v, 8), 3);
        ck_assert_double_eq_tol(v[2], 10.0 * th + 3, 1e-9);
        /* No server measured: NaN per interval, not 0. */
        ck_assert_uint_eq(sb_point_result_fig_intervals(p, SB_POINT_RESULT_CPU_SERVER, 0, v, 8), 3);
        ck_assert(isnan(v[0]));
        /* The reader fills the writer's own interval struct. */
        ck_assert_double_eq_tol(p->intervals[2].time_s, 3, 1e-9);
        ck_assert_uint_eq(p->intervals[2].events, 100 * th + 3);
        ck_assert_double_eq_tol(p->intervals[2].reads_ps, 14 * (100.0 * th + 3), 1e-9);
        ck_assert_uint_eq(p->intervals[2].backlog, 3);
        ck_assert(isnan(p->intervals[2].cpu_server_pct));
    }
    sb_result_file_free(&r);

    /* The interval fields the reader does not copy, from the document. */
    doc = sb_jv_parse(json, strlen(json), err, sizeof(err));
    ck_assert_msg(doc != NULL, "%s", err);
    ck_assert_uint_eq(sb_jv_len(sb_jv_path(doc, "points")), 3);
    for (size_t i = 0; i < 3; i++) {
        const struct sb_jv *ivs = sb_jv_get(sb_jv_at(sb_jv_get(doc, "points"), i), "intervals");
        unsigned th = 1u << i;

        ck_assert_uint_eq(sb_jv_len(ivs), 3);
        for (unsigned k = 1; k <= 3; k++) {
            const struct sb_jv *iv = sb_jv_at(ivs, k - 1);
            ck_assert_double_eq_tol(sb_jv_num(sb_jv_get(iv, "time_s")), k, 1e-9);
            ck_assert_double_eq_tol(sb_jv_num(sb_jv_get(iv, "epoch_s")), 1.7e9 + k, 1e-6);
            ck_assert_double_eq_tol(sb_jv_num(sb_jv_get(iv, "events")), 100.0 * th + k, 1e-9);
            ck_assert_double_eq_tol(sb_jv_num(sb_jv_path(iv, "qps.reads")),
                                    14 * (100.0 * th + k), 1e-9);
            ck_assert_double_eq_tol(sb_jv_num(sb_jv_get(iv, "errors_per_s")), k, 1e-9);
            ck_assert_double_eq_tol(sb_jv_num(sb_jv_get(iv, "reconnects_per_s")), 0.5 * k, 1e-9);
            ck_assert_double_eq_tol(sb_jv_num(sb_jv_get(iv, "backlog")), k, 1e-9);
            ck_assert_double_eq_tol(sb_jv_num(sb_jv_get(iv, "latency_p50_ms")), 5.0 * th, 1e-9);
            ck_assert_double_eq_tol(sb_jv_num(sb_jv_path(iv, "cpu_pct.client")), 25.0 + k, 1e-9);
            ck_assert_int_eq(sb_jv_path(iv, "cpu_pct.server")->type, SB_JV_NULL);
        }
        ck_assert_double_eq_tol(sb_jv_num(sb_jv_path(sb_jv_at(sb_jv_get(doc, "points"), i),
                                                     "final.events")), 1000.0 * th, 1e-9);
    }
    ck_assert_str_eq(sb_jv_str(sb_jv_path(doc, "ended.status")), "completed");
    sb_jv_free(doc);
    free(json);
    ck_assert_int_eq(sb_result_writer_close(&o, err, sizeof(err)), 0);
}
END_TEST

/* Splits a CSV line (no quoting: our rows have none) at its commas, in
 * place; returns the number of fields. */
static int split_csv(char *line, char **fields, int max)
{
    int n = 0;

    line[strcspn(line, "\n")] = '\0';
    for (char *p = line; n < max; p++) {
        fields[n++] = p;
        p = strchr(p, ',');
        if (p == NULL)
            break;
        *p = '\0';
    }
    return n;
}

/* The CSV of the same sweep, read back row by row: one row per interval,
 * the point's index and threads, the figures at two decimals, an empty
 * field for what was not measured or does not exist (a closed loop's
 * lag and backlog), then the row saying how the run ended. */
START_TEST(csv_sweep_read_back)
{
    struct sb_result_writer o;
    struct sb_lua_env env;
    char dir[] = "/tmp/check_sb_result_csv_XXXXXX", path[128], line[512], err[256];
    FILE *fp;
    int rows = 0;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/r.csv", dir);
    sweep_output(&o, path, NULL);
    memset(&env, 0, sizeof(env));
    /* No --json: this writes the CSV's last line only. */
    ck_assert_int_eq(sb_result_writer_write_json(&o, &env, err, sizeof(err)), 0);
    ck_assert_msg(sb_result_writer_close(&o, err, sizeof(err)) == 0, "%s", err);

    fp = fopen(path, "r");
    ck_assert_ptr_nonnull(fp);
    ck_assert_ptr_nonnull(fgets(line, sizeof(line), fp));
    ck_assert_str_eq(line, "point,threads,target_tps,time_s,tps,qps,reads_ps,writes_ps,other_ps,"
                           "latency_p95_ms,errors_ps,reconnects_ps,lag_p95_ms,backlog,"
                           "cpu_client_pct,cpu_server_pct,epoch_s,ended,deadline,cancelled\n");
    while (fgets(line, sizeof(line), fp) != NULL && line[0] != ',') {
        char *f[24];
        unsigned point = (unsigned)rows / 3 + 1, k = (unsigned)rows % 3 + 1;
        double th = (double)(1u << (point - 1)), tps = 100.0 * th + k;

        ck_assert_int_eq(split_csv(line, f, 24), 20);
        ck_assert_int_eq(atoi(f[0]), (int)point);
        ck_assert_double_eq_tol(atof(f[1]), th, 1e-9);
        ck_assert_str_eq(f[2], "");                 /* no target: closed loop */
        ck_assert_double_eq_tol(atof(f[3]), k, 1e-9);
        ck_assert_double_eq_tol(atof(f[4]), tps, 1e-9);
        ck_assert_double_eq_tol(atof(f[5]), 20 * tps, 1e-9);
        ck_assert_double_eq_tol(atof(f[6]), 14 * tps, 1e-9);
        ck_assert_double_eq_tol(atof(f[8]), 2 * tps, 1e-9);
        ck_assert_double_eq_tol(atof(f[9]), 10.0 * th + k, 1e-9);   /* p95 */
        ck_assert_double_eq_tol(atof(f[10]), k, 1e-9);
        ck_assert_str_eq(f[11], k == 1 ? "0.50" : k == 2 ? "1.00" : "1.50");
        ck_assert_str_eq(f[12], "");                /* closed loop: no lag */
        ck_assert_str_eq(f[13], "");                /* nor backlog */
        ck_assert_double_eq_tol(atof(f[14]), 25.0 + k, 1e-9);
        ck_assert_str_eq(f[15], "");                /* server not measured */
        ck_assert_double_eq_tol(atof(f[16]), 1.7e9 + k, 1e-6);
        ck_assert_str_eq(f[17], "");                /* ended: only on the last row */
        ck_assert_str_eq(f[19], "");
        rows++;
    }
    ck_assert_int_eq(rows, 9);
    ck_assert_str_eq(line, ",,,,,,,,,,,,,,,,,completed,met,0\n");
    ck_assert_ptr_null(fgets(line, sizeof(line), fp));
    fclose(fp);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* Compare of two sweeps whose throughput differs by known ratios per
 * point: each row shows its own ratio, the first file's is 1.00x. */
START_TEST(compare_sweep_ratios)
{
    static const double scale[] = {1.5, 0.75, 1.0};
    struct sb_result_writer o;
    char a[64], b[64], err[256], *json, *out;
    const char *p;
    int rc;

    sweep_output(&o, NULL, NULL);
    json = json_of(&o);
    sb_result_writer_close(&o, err, sizeof(err));
    temp_file(json, a, sizeof(a));
    free(json);
    sweep_output(&o, NULL, scale);
    json = json_of(&o);
    sb_result_writer_close(&o, err, sizeof(err));
    temp_file(json, b, sizeof(b));
    free(json);
    {
        char *argv[] = {"sysbench", "compare", a, b, "--labels=base,new", NULL};
        out = compare_output(5, argv, &rc);
    }
    ck_assert_int_eq(rc, 0);
    /* The throughput table: threads, both figures and the ratio, in the
     * sweep's order. */
    p = strstr(out, "Throughput (transactions per second");
    ck_assert_msg(p != NULL, "%s", out);
    p = strstr(p, "new/base\n");
    ck_assert_msg(p != NULL, "%s", out);
    p += strlen("new/base\n");
    for (int i = 0; i < 3; i++) {
        unsigned th;
        double base, other, ratio;

        ck_assert_msg(sscanf(p, "%u %lf %lf %lfx", &th, &base, &other, &ratio) == 4, "%s", p);
        ck_assert_uint_eq(th, 1u << i);
        ck_assert_double_eq_tol(base, 100.0 * th, 1e-9);
        ck_assert_double_eq_tol(other, 100.0 * th * scale[i], 1e-9);
        ck_assert_double_eq_tol(ratio, scale[i], 1e-9);
        p = strchr(p, '\n') + 1;
    }
    /* The latencies did not change: 1.00x in every row of their tables. */
    p = strstr(out, "Response time, 95th percentile");
    ck_assert_msg(p != NULL, "%s", out);
    p = strchr(strstr(p, "new/base\n"), '\n') + 1;
    for (int i = 0; i < 3; i++) {
        const char *eol = strchr(p, '\n');
        ck_assert_msg(eol - p > 5 && strncmp(eol - 5, "1.00x", 5) == 0, "%.*s", (int)(eol - p), p);
        p = eol + 1;
    }
    free(out);
    unlink(a);
    unlink(b);
}
END_TEST

/* "Threads fairness" covers every connection: 10,000 multiplexed
 * connections are 10,000 entries (a copy on the stack once stopped at
 * 4,096, leaving out the connections past it). */
START_TEST(fairness_every_connection)
{
    enum { N = 10000, HEAD = 4096 };
    static uint64_t ev[N];
    static double busy[N];
    struct sb_point_result p;
    struct sb_text_report_opts ro;
    struct sb_point_config pc;
    double avg = (HEAD * 1.0 + (N - HEAD) * 3.0) / N;
    double sd = sqrt((HEAD * (1 - avg) * (1 - avg) + (N - HEAD) * (3 - avg) * (3 - avg)) / N);
    char *t, *line, want[96];

    for (unsigned i = 0; i < N; i++) {
        ev[i] = i < HEAD ? 1 : 3;
        busy[i] = i < HEAD ? 0.5 : 1.5;
    }
    build_point(&p, &ro, &pc);
    p.thread_events = ev;
    p.thread_busy = busy;
    p.nthread_events = N;
    t = report_text(&p, &ro);
    line = strstr(t, "events (avg/stddev):");
    ck_assert_ptr_nonnull(line);
    snprintf(want, sizeof(want), "%.4f/%3.2f\n", avg, sd);
    ck_assert_msg(strncmp(line + strlen("events (avg/stddev):") +
                              strspn(line + strlen("events (avg/stddev):"), " "),
                          want, strlen(want)) == 0,
                  "want %s in:\n%s", want, t);
    ck_assert_double_eq_tol(field_after(t, "execution time (avg/stddev):"),
                            (HEAD * 0.5 + (N - HEAD) * 1.5) / N, 1e-4);
    free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_result");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, text_report_from_point);
    tcase_add_test(tc, fairness_every_connection);
    tcase_add_test(tc, json_round_trip);
    tcase_add_test(tc, final_fields_one_table);
    tcase_add_test(tc, pace_mode_names);
    tcase_add_test(tc, compare_reads_the_file);
    tcase_add_test(tc, text_report_errors_and_rates);
    tcase_add_test(tc, json_sweep_round_trip);
    tcase_add_test(tc, csv_sweep_read_back);
    tcase_add_test(tc, compare_sweep_ratios);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
