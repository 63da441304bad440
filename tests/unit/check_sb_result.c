/*
 * Unit tests for the result model of one point: the text report printed
 * from a hand-built struct sb_final, the same struct stored by the result
 * files and written as JSON, the JSON read back through the result-file
 * reader (sb_resfile) with the same figures, and the compare command
 * reading such a file.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sb_compare.h"
#include "sb_config.h"
#include "sb_options.h"
#include "sb_output.h"
#include "sb_point.h"
#include "sb_report.h"
#include "sb_resfile.h"

/* A point of 4 threads at --tx-rate 200 that ran 10 s: 1000 events,
 * 14 reads, 4 writes and 2 other queries each; response times 1..1000 ms
 * (one event each), so percentiles are known exactly. */
static struct sb_stats total;
static uint64_t thread_events[4] = {250, 250, 250, 250};
static double thread_busy[4] = {2.0, 2.0, 2.0, 2.0};
static const double pcts[] = {95, 99};

static void build_final(struct sb_final *f, struct sb_point_config *pc)
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
    pc->tx_rate = 200;
    pc->target_tps = 200;
    pc->jitter_us = 2000;
    pc->repeat = 1;
    pc->nrepeat = 1;
    memset(f, 0, sizeof(*f));
    f->total = &total;
    f->time_total = 10.0;
    f->threads = pc->threads;
    f->thread_events = thread_events;
    f->thread_busy = thread_busy;
    f->percentiles = pcts;
    f->npercentiles = 2;
    f->sql = true;
    f->rate_mode = pc->mode;
    f->target_tps = pc->target_tps;
    f->jitter_us = pc->jitter_us;
    f->max_backlog = 3;
    f->server_label = "not measured (test)";
}

static char *report_text(const struct sb_final *f)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);

    ck_assert_ptr_nonnull(fp);
    sb_report_print_final(f, fp);
    fclose(fp);
    return text;
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

START_TEST(text_report_from_final)
{
    struct sb_final f;
    struct sb_point_config pc;
    char *t;

    build_final(&f, &pc);
    t = report_text(&f);
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
    f.rate_mode = SB_PACE_POISSON;
    t = report_text(&f);
    ck_assert_ptr_nonnull(strstr(t, "Rate (--rate, Poisson arrivals):"));
    ck_assert_ptr_null(strstr(t, "jitter:"));
    free(t);
    f.rate_mode = SB_PACE_NONE;
    t = report_text(&f);
    ck_assert_ptr_null(strstr(t, "Rate ("));
    ck_assert_ptr_null(strstr(t, "max backlog:"));
    free(t);
}
END_TEST

/* The output of one point from the result f: begin_point with pc, then
 * end_point with f, as the run does. */
static void output_of(struct sb_output *o, const struct sb_final *f,
                      const struct sb_point_config *pc)
{
    struct sb_config cfg;
    char err[256];

    memset(&cfg, 0, sizeof(cfg));
    cfg.npercentiles = 2;
    cfg.percentiles[0] = 95;
    cfg.percentiles[1] = 99;
    ck_assert_int_eq(sb_output_open(o, &cfg, err, sizeof(err)), 0);
    ck_assert_ptr_nonnull(sb_output_begin_point(o, pc));
    ck_assert_int_eq(sb_output_end_point(o, f), 0);
    sb_output_set_end(o, "completed", 0, NULL);
}

/* The JSON document of o, as --json writes it. */
static char *json_of(const struct sb_output *o)
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
    ck_assert_int_eq(sb_output_write_json_to(o, &env, fp, "memory", err, sizeof(err)), 0);
    fclose(fp);
    sb_optset_free(&general);
    return text;
}

static void load_back(struct sb_resfile *r, const char *json)
{
    char err[256];
    struct sb_jv *doc = sb_jv_parse(json, strlen(json), err, sizeof(err));

    ck_assert_msg(doc != NULL, "%s", err);
    ck_assert_msg(sb_resfile_from_json(r, doc, "memory", "a", err, sizeof(err)) == 0, "%s", err);
    sb_jv_free(doc);
}

START_TEST(json_round_trip)
{
    struct sb_final f;
    struct sb_point_config pc;
    struct sb_output o;
    struct sb_resfile r;
    const struct sb_resfile_point *p;
    char *json, err[256];

    build_final(&f, &pc);
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
    ck_assert(p->complete);
    ck_assert_double_eq_tol(p->tps, 100, 1e-9);
    ck_assert_double_eq_tol(p->qps, 2000, 1e-9);
    /* The percentiles read back agree with the run's own rule: the same
     * histogram gives the same figure the report printed. */
    ck_assert_double_eq_tol(sb_resfile_percentile_ms(p, 95),
                            (double)sb_hist_percentile(&total.response, 95) / 1e6, 1e-9);
    ck_assert_double_eq_tol(sb_resfile_percentile_ms(p, 99),
                            (double)sb_hist_percentile(&total.response, 99) / 1e6, 1e-9);
    /* Nothing measured on the CPU side: NaN, not zero. */
    ck_assert(!p->server.measured);
    sb_resfile_free(&r);
    free(json);
    ck_assert_int_eq(sb_output_close(&o, err, sizeof(err)), 0);

    /* Poisson and closed loop keep their modes through the file. */
    pc.mode = f.rate_mode = SB_PACE_POISSON;
    output_of(&o, &f, &pc);
    json = json_of(&o);
    load_back(&r, json);
    ck_assert_int_eq(r.points[0].cfg.mode, SB_PACE_POISSON);
    ck_assert_double_eq_tol(r.points[0].cfg.target_tps, 200, 1e-9);
    ck_assert_double_eq_tol(r.points[0].cfg.jitter_us, 0, 1e-9);
    sb_resfile_free(&r);
    free(json);
    sb_output_close(&o, err, sizeof(err));
    pc.mode = f.rate_mode = SB_PACE_NONE;
    output_of(&o, &f, &pc);
    json = json_of(&o);
    load_back(&r, json);
    ck_assert_int_eq(r.points[0].cfg.mode, SB_PACE_NONE);
    ck_assert_double_eq_tol(r.points[0].cfg.target_tps, 0, 1e-9);
    sb_resfile_free(&r);
    free(json);
    sb_output_close(&o, err, sizeof(err));
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
    struct sb_final f;
    struct sb_point_config pc;
    struct sb_output o;
    struct sb_resfile r;
    char a[64], b[64], err[256], *json, *out;
    int rc;

    build_final(&f, &pc);
    output_of(&o, &f, &pc);
    json = json_of(&o);
    sb_output_close(&o, err, sizeof(err));
    temp_file(json, a, sizeof(a));
    free(json);
    /* The second file: the same point at twice the events. */
    total.c[SB_STAT_EVENTS] = 2000;
    thread_events[0] = 1250;
    output_of(&o, &f, &pc);
    json = json_of(&o);
    sb_output_close(&o, err, sizeof(err));
    temp_file(json, b, sizeof(b));
    free(json);
    thread_events[0] = 250;

    /* The reader compare uses, from the file. */
    ck_assert_msg(sb_resfile_load(&r, a, "one", err, sizeof(err)) == 0, "%s", err);
    ck_assert_uint_eq(r.npoints, 1);
    ck_assert_double_eq_tol(r.points[0].tps, 100, 1e-9);
    ck_assert_int_eq(r.points[0].cfg.mode, SB_PACE_FIXED);
    sb_resfile_free(&r);
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

int main(void)
{
    Suite *s = suite_create("sb_result");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, text_report_from_final);
    tcase_add_test(tc, json_round_trip);
    tcase_add_test(tc, pace_mode_names);
    tcase_add_test(tc, compare_reads_the_file);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
