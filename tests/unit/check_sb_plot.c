/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the charts (sb_plot.c, sb_plot_time.c): the gnuplot
 * script written for a small result file, the quoting of labels and file
 * names in it, and what happens when gnuplot is missing or fails.
 *
 * The results go in as a result file (sb_result_file_load), the public way in
 * that does not depend on the in-memory result structs. gnuplot is
 * replaced, through SB_GNUPLOT, by a shell script that keeps a copy of
 * the script it was given and of the data files beside it; the tests
 * read which charts the script draws, the variables set before each
 * template and the data. Two tests run the real gnuplot when configure
 * found one: on file names with quotes and a newline, and on every
 * template with every branch that these results take.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sb_json_read.h"
#include "plot/sb_gnuplot.h"
#include "plot/sb_plot_findmax.h"
#include "plot/sb_plot.h"

#define ERRLEN 1024

/* Two closed-loop points (1 and 4 threads) of oltp_read_write; the
 * first with a three-bucket histogram. */
static const char result_json[] =
    "{\"format\": \"sysbench-result\", \"format_version\": 1,\n"
    " \"script\": \"/usr/share/sysbench/oltp_read_write.lua\",\n"
    " \"points\": [\n"
    "  {\"threads\": 1, \"repeat\": 1, \"repeats\": 1, \"rate_mode\": \"none\",\n"
    "   \"complete\": true,\n"
    "   \"final\": {\"tps\": 100.5, \"qps\": 2010,\n"
    "     \"latency_ms\": {\"response\": {\"percentiles\": {\"95\": 3}}},\n"
    "     \"cpu\": {\"client\": {\"measured\": true, \"user_us_per_tx\": 10,\n"
    "                          \"system_us_per_tx\": 5, \"total_us_per_tx\": 15},\n"
    "             \"server\": {\"measured\": false}}},\n"
    "   \"histogram\": {\"max_ns\": 2900000, \"buckets\": [[1000000, 1015807, 50],\n"
    "                 [2000000, 2031615, 45], [2883584, 2916351, 5]]}},\n"
    "  {\"threads\": 4, \"repeat\": 1, \"repeats\": 1, \"rate_mode\": \"none\",\n"
    "   \"complete\": true,\n"
    "   \"final\": {\"tps\": 400, \"qps\": 8000,\n"
    "     \"cpu\": {\"client\": {\"measured\": true, \"user_us_per_tx\": 8,\n"
    "                          \"system_us_per_tx\": 4, \"total_us_per_tx\": 12},\n"
    "             \"server\": {\"measured\": false}}}}\n"
    " ]}\n";

/* A --find-max search of one thread count: a closed-loop point, then
 * rated points probed out of order (500, 300, 400 tx/s, then 400 again:
 * a line draws the median of a rate's points), each with
 * a histogram of 60 transactions near 0.02 ms and 40 near 13 ms: p50 and
 * p99 more than two decades apart. */
#define FM_HIST "\"histogram\": {\"max_ns\": 12976127, \"buckets\": [[19328, 19455, 60],\n" \
                "                 [12910592, 12976127, 40]]}"
#define FM_POINT(rate, target, tps) \
    "  {\"threads\": 2, \"repeat\": 1, \"repeats\": 1, \"rate_mode\": \"" rate "\",\n" \
    "   " target " \"complete\": true,\n" \
    "   \"final\": {\"tps\": " tps ", \"qps\": 0,\n" \
    "     \"cpu\": {\"client\": {\"measured\": true, \"user_us_per_tx\": 20,\n" \
    "                          \"system_us_per_tx\": 5, \"total_us_per_tx\": 25},\n" \
    "             \"server\": {\"measured\": false}}},\n   " FM_HIST "}"
static const char rates_json[] =
    "{\"format\": \"sysbench-result\", \"format_version\": 1,\n"
    " \"script\": \"server.lua\",\n"
    " \"points\": [\n"
    FM_POINT("none", "", "510") ",\n"
    FM_POINT("tx-rate", "\"target_tps\": 500,", "480") ",\n"
    FM_POINT("tx-rate", "\"target_tps\": 300,", "300") ",\n"
    FM_POINT("tx-rate", "\"target_tps\": 400,", "400") ",\n"
    FM_POINT("tx-rate", "\"target_tps\": 400,", "390") "\n"
    " ]}\n";

/* The result document of that search (SLA p99 <= 200 ms): its
 * "find_max" record, and two of its runs' points, one flagged. */
static const char findmax_json[] =
    "{\"script\": \"/x/server.lua\", \"environment\": {\"driver\": \"mysql\"},\n"
    " \"points\": [{\"threads\": 2, \"target_tps\": 300, \"final\": {\"tps\": 300},\n"
    "              \"selfcheck\": {\"ok\": false}},\n"
    "             {\"threads\": 2, \"target_tps\": 400, \"final\": {\"tps\": 400},\n"
    "              \"selfcheck\": {\"ok\": true}}],\n"
    " \"find_max\": {\"sla\": {\"percentile\": 99, \"limit_ms\": 200}, \"complete\": true,\n"
    " \"closed_loop_tps\": 510, \"rate_held\": 400, \"lowest_rate_missed\": 500,\n"
    " \"rates\": [\n"
    "  {\"target_tps\": 500, \"achieved_tps\": [480], \"latency_ms\": [250],\n"
    "   \"median_achieved_tps\": 480, \"median_latency_ms\": 250, \"held\": false},\n"
    "  {\"target_tps\": 300, \"achieved_tps\": [300], \"latency_ms\": [13],\n"
    "   \"median_achieved_tps\": 300, \"median_latency_ms\": 13, \"held\": true},\n"
    "  {\"target_tps\": 400, \"achieved_tps\": [400, 399], \"latency_ms\": [13, 14],\n"
    "   \"median_achieved_tps\": 399.5, \"median_latency_ms\": 13.5, \"held\": true}]}}\n";

/* One test's directory: the result file, the fake gnuplot, TMPDIR. */
struct fx {
    char dir[64];
    char tmpdir[96];
    char capture[96];
    char capdir[96];             /* the copy of gnuplot's directory */
    struct sb_result_file res;
};

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");

    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(chmod(path, mode), 0);
}

/* A stand-in for gnuplot: keeps the script, writes `err` to stderr, and
 * exits with `status`. */
static void fake_gnuplot(struct fx *f, const char *err, int status)
{
    char path[128], text[1024];

    snprintf(path, sizeof(path), "%s/fake-gnuplot", f->dir);
    snprintf(text, sizeof(text), "#!/bin/sh\ncp \"$1\" '%s' || exit 3\nrm -rf '%s'\n"
             "cp -r \"$(dirname \"$1\")\" '%s' || exit 3\nprintf '%%s\\n' '%s' >&2\n"
             "exit %d\n", f->capture, f->capdir, f->capdir, err, status);
    write_file(path, text, 0755);
    setenv("SB_GNUPLOT", path, 1);
}

static void fx_setup(struct fx *f, const char *label)
{
    char path[128], err[ERRLEN];

    memset(f, 0, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/check_sb_plot_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(f->dir));
    snprintf(f->tmpdir, sizeof(f->tmpdir), "%s/tmp", f->dir);
    ck_assert_int_eq(mkdir(f->tmpdir, 0700), 0);
    setenv("TMPDIR", f->tmpdir, 1);
    unsetenv("SB_PLOT_KEEP");
    snprintf(f->capture, sizeof(f->capture), "%s/captured.gp", f->dir);
    snprintf(f->capdir, sizeof(f->capdir), "%s/captured", f->dir);
    snprintf(path, sizeof(path), "%s/result.json", f->dir);
    write_file(path, result_json, 0644);
    ck_assert_msg(sb_result_file_load(&f->res, path, label, err, sizeof(err)) == 0, "%s", err);
    fake_gnuplot(f, "", 0);
}

/* Removes everything under dir (one level of subdirectories). */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (unlink(path) != 0)
            remove_tree(path);
    }
    closedir(d);
    rmdir(dir);
}

static void fx_teardown(struct fx *f)
{
    sb_result_file_free(&f->res);
    remove_tree(f->dir);
}

/* Whether dir has no entries (the temporary directory was removed). */
static bool dir_empty(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    bool empty = true;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            empty = false;
    closedir(d);
    return empty;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text;
    long n;

    ck_assert_msg(f != NULL, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    text = calloc(1, (size_t)n + 1);
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_eq(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return text;
}

/* The data file name that the fake gnuplot saw beside the script. */
static char *read_cap(const struct fx *f, const char *name)
{
    char path[256];

    snprintf(path, sizeof(path), "%s/%s", f->capdir, name);
    return read_all(path);
}

/* Creates the chart files a fake gnuplot does not draw. */
static void precreate_charts(const char *stem, const char *ext)
{
    static const char *const names[] = {"throughput", "relative", "cpu", "latency"};
    char path[512];

    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof(path), "%s-%s%s", stem, names[i], ext);
        write_file(path, "x", 0644);
    }
}

/* Every line of the script has its single quotes paired ('' inside a
 * string counts twice) and no control character: no label or name ends
 * a command early. Comment lines (the templates') are skipped. */
static void assert_well_quoted(const char *script)
{
    size_t line = 1, quotes = 0;

    for (const char *p = script; *p; p++) {
        if ((p == script || p[-1] == '\n') && p[strspn(p, " ")] == '#') {
            p = strchr(p, '\n');
            if (p == NULL)
                break;
            line++;
            continue;
        }
        if (*p == '\n') {
            ck_assert_msg(quotes % 2 == 0, "line %zu has unpaired quotes", line);
            line++;
            quotes = 0;
        } else {
            ck_assert_msg((unsigned char)*p >= 0x20 || *p == '\t',
                          "control character 0x%02x on line %zu", (unsigned char)*p, line);
            quotes += *p == '\'';
        }
    }
}

/* ------------------------------------------------------------ the script */

START_TEST(test_script_text)
{
    struct fx f;
    char stem[128], path[160], err[ERRLEN] = "", *out = NULL, *gp, *data, want[1024];
    size_t outlen = 0;
    FILE *mem;

    fx_setup(&f, "base'line\n\"v2\"");
    snprintf(stem, sizeof(stem), "%s/charts", f.dir);
    snprintf(path, sizeof(path), "%s.png", stem);
    precreate_charts(stem, ".png");
    mem = open_memstream(&out, &outlen);
    ck_assert_ptr_nonnull(mem);
    ck_assert_msg(sb_plot_write(&f.res, 1, path, mem, err, sizeof(err)) == 0, "%s", err);
    fclose(mem);
    snprintf(want, sizeof(want), "Charts written: %s-throughput.png %s-relative.png "
             "%s-cpu.png %s-latency.png\n", stem, stem, stem, stem);
    ck_assert_str_eq(out, want);
    free(out);
    /* The script and gnuplot's error file are gone with their directory. */
    ck_assert(dir_empty(f.tmpdir));

    gp = read_all(f.capture);
    assert_well_quoted(gp);
    /* The data: per point x, the value, its interval (none for a single
     * run), the flagged runs and the runs. */
    data = read_cap(&f, "tps1.dat");
    ck_assert_str_eq(data, " 0 100.5 NaN NaN 0 1\n 1 400 NaN NaN 0 1\n");
    free(data);
    ck_assert_ptr_nonnull(strstr(gp, "KEY[1] = '1'\nKEY[2] = '4'\n"));
    for (const char *c = "throughput\0relative\0cpu\0latency\0"; *c; c += strlen(c) + 1) {
        snprintf(want, sizeof(want), "OUT = '%s-%s.png'\nSVG = 0\n", stem, c);
        ck_assert_msg(strstr(gp, want) != NULL, "no '%s'", want);
        snprintf(want, sizeof(want), "# %s.gp: ", c);
        ck_assert_msg(strstr(gp, want) != NULL, "template %s.gp not in the script", c);
    }
    ck_assert_ptr_nonnull(strstr(gp, "TITLE = 'Throughput by threads: oltp_read_write'\n"));
    /* One result needs no label to tell it apart: the legend names the
     * script (the file names no driver). */
    ck_assert_ptr_nonnull(strstr(gp, "LABEL[1] = 'oltp_read_write'\n"));
    /* The latency curve of the point with a histogram, none (no legend
     * entry, an empty file) for the other. */
    data = read_cap(&f, "lat_1.dat");
    /* Steps from percentile 0 (x = 1) to 99% of 100 (x = 100). */
    ck_assert_msg(strncmp(data, "1 1.", 4) == 0 && strstr(data, "\n100 2.899967\n") != NULL,
                  "%s", data);
    free(data);
    data = read_cap(&f, "lat_2.dat");
    ck_assert_str_eq(data, "");
    free(data);
    ck_assert_ptr_nonnull(strstr(gp, "CT[1] = '1 thread'\nCT[2] = ''\n"));
    ck_assert_ptr_nonnull(strstr(gp, "SEQ = 1\n"));
    /* Ratios 1 to 3.98: whole ticks. */
    ck_assert_ptr_nonnull(strstr(gp, "YSTEP = 1\nYDEC = 0\n"));
    /* No rated point, so no fifth chart; the server CPU was not
     * measured, so only client bars. */
    ck_assert_ptr_null(strstr(gp, "latency-throughput"));
    ck_assert_ptr_nonnull(strstr(gp, "NB = 1\n"));
    ck_assert_ptr_nonnull(strstr(gp, "BLABEL[1] = 'oltp_read_write client'\n"));
    ck_assert_ptr_null(strstr(gp, "server'"));
    free(gp);
    fx_teardown(&f);
}
END_TEST

/* An SVG name: the SVG terminal, and a file name with quotes and a
 * newline kept byte for byte in the script. */
START_TEST(test_script_paths)
{
    struct fx f;
    char sub[128], stem[160], path[192], err[ERRLEN] = "", *gp, want[1024];

    fx_setup(&f, "r");
    snprintf(sub, sizeof(sub), "%s/it's \"q\"\nx", f.dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    snprintf(stem, sizeof(stem), "%s/out", sub);
    snprintf(path, sizeof(path), "%s.svg", stem);
    precreate_charts(stem, ".svg");
    ck_assert_msg(sb_plot_write(&f.res, 1, path, NULL, err, sizeof(err)) == 0, "%s", err);
    gp = read_all(f.capture);
    assert_well_quoted(gp);
    ck_assert_ptr_nonnull(strstr(gp, "SVG = 1\n"));
    snprintf(want, sizeof(want), "OUT = '%s/it''s \"q\"' . \"\\012\" . 'x/out-cpu.svg'\n",
             f.dir);
    ck_assert_msg(strstr(gp, want) != NULL, "no '%s'", want);
    free(gp);
    fx_teardown(&f);
}
END_TEST

START_TEST(test_gp_writers)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);

    ck_assert_ptr_nonnull(mem);
    sb_plot_gp_str(mem, "a'b\tc\n`x`");
    fputc('|', mem);
    sb_plot_gp_str(mem, "");
    fputc('|', mem);
    sb_plot_gp_path(mem, "\na'\t");
    fputc('|', mem);
    sb_plot_gp_path(mem, "");
    fputc('|', mem);
    sb_plot_gp_path(mem, "`id`");
    fputc('|', mem);
    sb_plot_gp_num(mem, 1.5);
    sb_plot_gp_num(mem, 1.0 / 3.0);
    sb_plot_gp_num(mem, NAN);
    sb_plot_gp_num(mem, -INFINITY);
    fclose(mem);
    ck_assert_str_eq(text, "'a''b c `x`'|''|\"\\012\" . 'a''' . \"\\011\"|''|'`id`'|"
                           " 1.5 0.3333333333 NaN NaN");
    free(text);
}
END_TEST

/* ------------------------------------------------------------ gnuplot */

START_TEST(test_gnuplot_missing)
{
    struct fx f;
    char path[128], nope[128], err[ERRLEN] = "", *out = NULL;
    size_t outlen = 0;
    FILE *mem;
    char *saved_path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");

    fx_setup(&f, "r");
    snprintf(path, sizeof(path), "%s/c.png", f.dir);
    snprintf(nope, sizeof(nope), "%s/no-gnuplot", f.dir);
    setenv("SB_GNUPLOT", nope, 1);
    ck_assert_int_eq(sb_plot_check(path, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "--plot needs gnuplot, which was not found"));
    ck_assert_ptr_nonnull(strstr(err, nope));

    /* A bare name is looked up on PATH. */
    setenv("SB_GNUPLOT", "fake-gnuplot", 1);
    setenv("PATH", f.tmpdir, 1);
    ck_assert_int_eq(sb_plot_check(path, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "(looked for 'fake-gnuplot')"));
    mem = open_memstream(&out, &outlen);
    ck_assert_int_eq(sb_plot_write(&f.res, 1, path, mem, err, sizeof(err)), -1);
    fclose(mem);
    ck_assert_ptr_nonnull(strstr(err, "--plot needs gnuplot"));
    ck_assert_str_eq(out, "");
    free(out);
    ck_assert(dir_empty(f.tmpdir));
    ck_assert_int_ne(access(f.capture, F_OK), 0);

    setenv("PATH", f.dir, 1);
    ck_assert_msg(sb_plot_check(path, err, sizeof(err)) == 0, "%s", err);
    /* Restored for the tests after this one without CK_FORK. */
    setenv("PATH", saved_path, 1);
    free(saved_path);
    fx_teardown(&f);
}
END_TEST

START_TEST(test_gnuplot_fails)
{
    struct fx f;
    char path[128], err[ERRLEN] = "";

    fx_setup(&f, "r");
    fake_gnuplot(&f, "\"charts.gp\" line 7: undefined variable: x", 1);
    snprintf(path, sizeof(path), "%s/c.png", f.dir);
    ck_assert_int_eq(sb_plot_write(&f.res, 1, path, NULL, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "gnuplot failed (exit status 1): \"charts.gp\" line 7: undefined variable: x");
    ck_assert(dir_empty(f.tmpdir));

    /* gnuplot exits 0 but writes nothing. */
    fake_gnuplot(&f, "", 0);
    ck_assert_int_eq(sb_plot_write(&f.res, 1, path, NULL, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "gnuplot did not write '"));
    ck_assert_ptr_nonnull(strstr(err, "/c-throughput.png'"));
    ck_assert(dir_empty(f.tmpdir));
    fx_teardown(&f);
}
END_TEST

START_TEST(test_check_path)
{
    char err[ERRLEN];

    ck_assert_int_eq(sb_plot_check("out.jpg", err, sizeof(err)), -1);
    ck_assert_str_eq(err, "invalid value 'out.jpg' for --plot: expected a file name ending in "
                          ".png or .svg");
    ck_assert_int_eq(sb_plot_check("dir.png/out", err, sizeof(err)), -1);
    ck_assert_int_eq(sb_plot_check(".png", err, sizeof(err)), -1);
    ck_assert_int_eq(sb_plot_check("/nonexistent-dir/out.png", err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot write the --plot charts to '/nonexistent-dir'"));
}
END_TEST

/* The real gnuplot, when configure found one: the charts land exactly at
 * the names derived from a path with quotes and a newline. */
START_TEST(test_real_gnuplot)
{
    static const char *const names[] = {"throughput", "relative", "cpu", "latency"};
    struct fx f;
    char sub[128], path[192], chart[256], err[ERRLEN] = "";
    struct stat st;

    if (access(SB_GNUPLOT, X_OK) != 0) {
        fprintf(stderr, "check_sb_plot: no gnuplot at %s, test_real_gnuplot checks nothing\n",
                SB_GNUPLOT);
        return;
    }
    fx_setup(&f, "it's \"v1\"\n");
    setenv("SB_GNUPLOT", SB_GNUPLOT, 1);
    snprintf(sub, sizeof(sub), "%s/a'b \"c\"\nd`true`", f.dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    snprintf(path, sizeof(path), "%s/out.svg", sub);
    ck_assert_msg(sb_plot_write(&f.res, 1, path, NULL, err, sizeof(err)) == 0, "%s", err);
    for (size_t i = 0; i < 4; i++) {
        snprintf(chart, sizeof(chart), "%s/out-%s.svg", sub, names[i]);
        ck_assert_msg(stat(chart, &st) == 0 && st.st_size > 0, "no %s", chart);
    }
    ck_assert(dir_empty(f.tmpdir));
    fx_teardown(&f);
}
END_TEST

/* ------------------------------------------------------------ time axis */

/* The time-axis chart of one point: a data row per interval, and the
 * file name kept byte for byte. Built by hand with only the fields the
 * chart reads, so that it follows the result structs easily. */
START_TEST(test_timeline)
{
    struct fx f;
    struct sb_interval iv[2] = {
        {.time_s = 1, .tps = 10, .p50_ms = 1.5, .p99_ms = 4, .backlog = 0,
         .cpu_client_pct = 12.5, .cpu_server_pct = NAN},
        {.time_s = 2, .tps = 20, .p50_ms = 1.25, .p99_ms = 3, .backlog = 2,
         .cpu_client_pct = 25, .cpu_server_pct = NAN},
    };
    struct sb_point_result p = {.cfg = {.threads = 2, .mode = SB_PACE_NONE}, .intervals = iv,
                         .nintervals = 2};
    char sub[128], path[192], chart[256], err[ERRLEN] = "", *out = NULL, *gp, *data, want[1024];
    size_t outlen = 0;
    FILE *mem;

    fx_setup(&f, "r");
    snprintf(sub, sizeof(sub), "%s/t\tq'", f.dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    snprintf(path, sizeof(path), "%s/run.png", sub);
    snprintf(chart, sizeof(chart), "%s/run-timeline.png", sub);
    write_file(chart, "x", 0644);
    mem = open_memstream(&out, &outlen);
    ck_assert_ptr_nonnull(mem);
    ck_assert_msg(sb_plot_timeline(&p, NULL, path, mem, err, sizeof(err)) == 0, "%s", err);
    fclose(mem);
    snprintf(want, sizeof(want), "Time-axis chart written: %s\n", chart);
    ck_assert_str_eq(out, want);
    free(out);
    ck_assert(dir_empty(f.tmpdir));
    gp = read_all(f.capture);
    assert_well_quoted(gp);
    data = read_cap(&f, "tl.dat");
    ck_assert_str_eq(data, " 1 10 NaN 1.5 4 NaN 0 12.5 NaN\n 2 20 NaN 1.25 3 NaN 2 25 NaN\n");
    free(data);
    snprintf(want, sizeof(want), "OUT = '%s/t' . \"\\011\" . 'q''/run-timeline.png'\n",
             f.dir);
    ck_assert_msg(strstr(gp, want) != NULL, "no '%s'", want);
    ck_assert_ptr_nonnull(strstr(gp, "TITLE = 'Time axis: 2 threads, closed loop'\n"));
    /* A closed loop has no target, lag or backlog: three panels, the
     * last of them the client CPU alone (the server's was not measured:
     * no legend entry for it). Latencies within two decades: linear. */
    ck_assert_ptr_nonnull(strstr(gp, "RATE = 0\nCLIENT = 1\nSERVER = 0\nNPANELS = 3\nLOGY = 0\n"));
    free(gp);

    /* At a target rate, with p99 more than 100 times p50: four panels
     * and a logarithmic latency axis; no CPU measured: no CPU panel. */
    iv[1].p99_ms = 400;
    iv[0].cpu_client_pct = iv[1].cpu_client_pct = NAN;
    p.cfg.mode = SB_PACE_FIXED;
    p.cfg.target_tps = 20;
    ck_assert_msg(sb_plot_timeline(&p, NULL, path, NULL, err, sizeof(err)) == 0, "%s", err);
    gp = read_all(f.capture);
    ck_assert_ptr_nonnull(strstr(gp, "TITLE = 'Time axis: 2 threads at 20 tx/s'\n"));
    ck_assert_ptr_nonnull(strstr(gp, "RATE = 1\nCLIENT = 0\nSERVER = 0\nNPANELS = 3\nLOGY = 1\n"));
    free(gp);
    p.cfg.mode = SB_PACE_NONE;

    /* One interval is not a time axis: nothing drawn, and said so. */
    unlink(f.capture);
    p.nintervals = 1;
    out = NULL;
    mem = open_memstream(&out, &outlen);
    ck_assert_int_eq(sb_plot_timeline(&p, NULL, path, mem, err, sizeof(err)), 0);
    fclose(mem);
    ck_assert_ptr_nonnull(strstr(out, "No time-axis chart"));
    free(out);
    ck_assert_int_ne(access(f.capture, F_OK), 0);
    fx_teardown(&f);
}
END_TEST

/* Loads text as the result file name in f's directory into res. */
static void load_text(const struct fx *f, const char *name, const char *text, const char *label,
                      struct sb_result_file *res)
{
    char path[256], err[ERRLEN];

    snprintf(path, sizeof(path), "%s/%s", f->dir, name);
    write_file(path, text, 0644);
    ck_assert_msg(sb_result_file_load(res, path, label, err, sizeof(err)) == 0, "%s", err);
}

/* Draws the charts of n results to DIR/c.png with the fake gnuplot (the
 * chart files made beforehand) and returns what was printed. */
static char *draw(struct fx *f, const struct sb_result_file *res, size_t n,
                  const struct sb_plot_marks *marks)
{
    char path[160], err[ERRLEN] = "", *out = NULL;
    size_t outlen = 0;
    FILE *mem;

    snprintf(path, sizeof(path), "%s/c", f->dir);
    precreate_charts(path, ".png");
    strcat(path, "-latency-throughput.png");
    write_file(path, "x", 0644);
    snprintf(path, sizeof(path), "%s/c.png", f->dir);
    mem = open_memstream(&out, &outlen);
    ck_assert_ptr_nonnull(mem);
    ck_assert_msg(sb_plot_write_marked(res, n, path, marks, mem, err, sizeof(err)) == 0, "%s",
                  err);
    fclose(mem);
    return out;
}

/* A single run (one point) has no line to draw: only its latency curve,
 * no throughput, relative or CPU chart of one point; without a histogram
 * no chart at all, and gnuplot is not run. */
START_TEST(test_single_point)
{
    struct fx f;
    struct sb_result_file one;
    char want[512], *out, *gp, *text = strdup(result_json);
    char *second = strstr(text, ",\n  {\"threads\": 4");

    fx_setup(&f, "r");
    ck_assert_ptr_nonnull(second);
    strcpy(second, "\n ]}\n");
    load_text(&f, "one.json", text, "one", &one);
    out = draw(&f, &one, 1, NULL);
    snprintf(want, sizeof(want), "Charts written: %s/c-latency.png\n", f.dir);
    ck_assert_str_eq(out, want);
    free(out);
    gp = read_all(f.capture);
    ck_assert_ptr_null(strstr(gp, "-throughput.png"));
    ck_assert_ptr_null(strstr(gp, "-relative.png"));
    ck_assert_ptr_null(strstr(gp, "-cpu.png"));
    free(gp);
    sb_result_file_free(&one);

    /* The same point without its histogram: nothing to draw. */
    unlink(f.capture);
    second = strstr(text, ",\n   \"histogram\"");
    ck_assert_ptr_nonnull(second);
    strcpy(second, "}\n ]}\n");
    load_text(&f, "none.json", text, "none", &one);
    out = draw(&f, &one, 1, NULL);
    ck_assert_str_eq(out, "No sweep charts: one point has no lines to draw\n");
    free(out);
    ck_assert_int_ne(access(f.capture, F_OK), 0);
    ck_assert(dir_empty(f.tmpdir));
    sb_result_file_free(&one);
    free(text);
    fx_teardown(&f);
}
END_TEST

/* A --find-max search's charts: a numeric rate axis with the points in
 * rate order (probed 500, 300, 400), no relative chart (it would repeat
 * the throughput chart), the SLA line and the rate held marked, and a
 * logarithmic latency axis as p50 and p99 are more than two decades
 * apart. */
START_TEST(test_rate_sweep)
{
    struct fx f;
    struct sb_result_file fm;
    struct sb_plot_marks marks = {.sla_pct = 99, .sla_ms = 200, .rate_held = 400};
    char want[1024], *out, *gp, *data;

    fx_setup(&f, "r");
    load_text(&f, "fm.json", rates_json, "fm", &fm);
    out = draw(&f, &fm, 1, &marks);
    snprintf(want, sizeof(want), "Charts written: %s/c-throughput.png %s/c-cpu.png "
             "%s/c-latency.png %s/c-latency-throughput.png\n", f.dir, f.dir, f.dir, f.dir);
    ck_assert_str_eq(out, want);
    free(out);
    gp = read_all(f.capture);
    assert_well_quoted(gp);
    ck_assert_ptr_nonnull(strstr(gp, "# throughput-rates.gp: "));
    /* A --find-max search's rates: the median of the runs, whiskers from
     * the lowest to the highest (none for one run), as its curve. */
    data = read_cap(&f, "tr1.dat");
    ck_assert_str_eq(data, " 300 300 NaN NaN 0 1\n 400 395 390 400 0 2\n 500 480 NaN NaN 0 1\n");
    free(data);
    ck_assert_ptr_nonnull(strstr(gp, "CLOSED[1] = 510\n"));
    data = read_cap(&f, "cpu1.dat");
    ck_assert_str_eq(data, " 300 20 25 NaN NaN 0 1\n 400 20 25 25 25 0 2\n 500 20 25 NaN NaN 0 1\n");
    free(data);
    ck_assert_ptr_nonnull(strstr(gp, "XNUM = 1\n"));
    ck_assert_ptr_null(strstr(gp, "XNUM = 0\n"));
    data = read_cap(&f, "lt1.dat");
    ck_assert_msg(strncmp(data, " 300 ", 5) == 0 && strstr(data, "\n 395 ") != NULL &&
                  strstr(data, "\n 480 ") != NULL && strstr(data, "\n 480 ") > strstr(data, "\n 395 "),
                  "lt1.dat not in rate order: %s", data);
    free(data);
    /* The throughput axis: achieved 300..480 tx/s with 4% margins. */
    ck_assert_ptr_nonnull(strstr(gp, "LOGY = 1\nXLO = 292.8\nXHI = 487.2\nSLA_PCT = 99\n"
                                     "SLA_MS = 200\nHELD = 400\nHELD_RIGHT = 1\n"));
    /* The latency chart of a search: the final bracket only (here the
     * rate held, its two points pooled; no rate missed is known). */
    ck_assert_ptr_nonnull(strstr(gp, "NC = 1\nSEQ = 0\n"));
    ck_assert_ptr_nonnull(strstr(gp, "CT[1] = 'rate held: 400.00 tx/s (2 runs pooled)'\n"));
    ck_assert_ptr_null(strstr(gp, "CT[2]"));
    free(gp);

    /* Without marks (compare): no SLA line, no rate held; five curves of
     * one result on one ordered colour scale. */
    out = draw(&f, &fm, 1, NULL);
    free(out);
    gp = read_all(f.capture);
    ck_assert_ptr_nonnull(strstr(gp, "SLA_MS = NaN\nHELD = NaN\n"));
    ck_assert_ptr_nonnull(strstr(gp, "NC = 5\nSEQ = 1\n"));
    ck_assert_ptr_nonnull(strstr(gp, "CT[1] = '2 threads at 300 tx/s'\n"));
    ck_assert_ptr_nonnull(strstr(gp, "CT[3] = '2 threads at 400 tx/s (#2)'\n"
                                     "CT[4] = '2 threads at 500 tx/s'\nCT[5] = '2 threads'\n"));
    free(gp);
    sb_result_file_free(&fm);
    fx_teardown(&f);
}
END_TEST

/* A search of 14 rates: one result's latency chart keeps 12 curves,
 * spread evenly from the lowest rate to the highest, and says so. */
START_TEST(test_many_curves)
{
    struct fx f;
    struct sb_result_file many;
    char *text = malloc(65536), *out, *gp;
    size_t used;

    fx_setup(&f, "r");
    ck_assert_ptr_nonnull(text);
    used = (size_t)snprintf(text, 65536, "{\"format\": \"sysbench-result\", \"format_version\": 1,\n"
                            " \"script\": \"s.lua\", \"points\": [\n");
    for (int i = 1; i <= 14; i++) {
        char target[64], tps[32];
        snprintf(target, sizeof(target), "\"target_tps\": %d,", 100 * i);
        snprintf(tps, sizeof(tps), "%d", 100 * i);
        used += (size_t)snprintf(text + used, 65536 - used, FM_POINT("tx-rate", "%s", "%s") "%s\n",
                                 target, tps, i < 14 ? "," : "");
    }
    snprintf(text + used, 65536 - used, " ]}\n");
    load_text(&f, "many.json", text, "many", &many);
    out = draw(&f, &many, 1, NULL);
    free(out);
    gp = read_all(f.capture);
    ck_assert_ptr_nonnull(strstr(gp, "NC = 12\n"));
    ck_assert_ptr_nonnull(strstr(gp, "PTITLE[1] = '12 of 14 points, evenly spread'\n"));
    ck_assert_ptr_nonnull(strstr(gp, "CT[1] = '2 threads at 100 tx/s'\n"));
    ck_assert_ptr_nonnull(strstr(gp, "CT[12] = '2 threads at 1400 tx/s'\n"));
    ck_assert_ptr_null(strstr(gp, "CT[13]"));
    free(gp);
    sb_result_file_free(&many);
    free(text);
    fx_teardown(&f);
}
END_TEST

/* Two results at one point: each chart sets them side by side, and the
 * latency chart names its point in its title (not only "4 threads"). */
START_TEST(test_compare_one_point)
{
    struct fx f;
    struct sb_result_file two[2];
    char *out, *gp, *text = strdup(result_json);
    char *second = strstr(text, ",\n  {\"threads\": 4");

    fx_setup(&f, "r");
    strcpy(second, "\n ]}\n");
    load_text(&f, "a.json", text, "a", &two[0]);
    /* b is 1.2% faster: relative ticks 0.0025 apart, with 4 decimals so
     * that no two tick labels read the same (1.01x 1.01x 1.00x). */
    memcpy(strstr(text, "\"tps\": 100.5"), "\"tps\": 101.7", 12);
    load_text(&f, "b.json", text, "b", &two[1]);
    out = draw(&f, two, 2, NULL);
    ck_assert_ptr_nonnull(strstr(out, "-throughput.png"));
    ck_assert_ptr_nonnull(strstr(out, "-relative.png"));
    ck_assert_ptr_nonnull(strstr(out, "-cpu.png"));
    ck_assert_ptr_nonnull(strstr(out, "-latency.png"));
    free(out);
    gp = read_all(f.capture);
    ck_assert_ptr_nonnull(strstr(gp, "NP = 1\n"));
    ck_assert_ptr_nonnull(strstr(gp, "YSTEP = 0.0025\nYDEC = 4\n"));
    ck_assert_ptr_nonnull(strstr(gp, "TITLE = 'Response time by percentile (log scales): "
                                     "oltp_read_write'\n"));
    ck_assert_ptr_nonnull(strstr(gp, "PTITLE[1] = '1 thread'\n"));
    ck_assert_ptr_nonnull(strstr(gp, "if (NP == 1 && PTITLE[1] ne '') { set title TITLE.', '.PTITLE[1]"));
    free(gp);
    sb_result_file_free(&two[0]);
    sb_result_file_free(&two[1]);
    free(text);
    fx_teardown(&f);
}
END_TEST

/* A copy of text (owned by the caller) with the first from replaced. */
static char *replace_once(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    char *out = malloc(strlen(text) + strlen(to) + 1);

    ck_assert_ptr_nonnull(at);
    ck_assert_ptr_nonnull(out);
    sprintf(out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

/* Two results with compare's tables: every value, ratio, interval and
 * verdict drawn is the table's (here numbers no run has), the legends
 * name the label (quoted), the script and the driver, and the results
 * of a point stand side by side. */
START_TEST(test_compare_tables)
{
    struct fx f;
    struct sb_result_file two[2];
    struct sb_plot_cell tps[4] = {
        {.value = 111, .ratio = NAN, .lo = NAN, .hi = NAN},
        {.value = 444, .ratio = NAN, .lo = NAN, .hi = NAN},
        {.value = 122, .ratio = 1.099, .lo = 0.95, .hi = 1.27, .verdict = "no significant difference"},
        {.value = 555, .ratio = 1.25, .lo = 1.1, .hi = 1.4, .verdict = "better"},
    };
    struct sb_plot_cell p95[4] = {
        {.value = 2.5, .ratio = NAN, .lo = NAN, .hi = NAN},
        {.value = NAN, .ratio = NAN, .lo = NAN, .hi = NAN},
        {.value = 2.75, .ratio = 1.1, .lo = 0.9, .hi = 1.3, .verdict = "no significant difference"},
        {.value = NAN, .ratio = NAN, .lo = NAN, .hi = NAN},
    };
    struct sb_plot_table tables[2] = {{SB_POINT_RESULT_TPS, 0, tps},
                                      {SB_POINT_RESULT_LATENCY, 95, p95}};
    double level[2] = {NAN, 1 - 0.05 / 12};
    size_t judged[2] = {0, 12};
    struct sb_plot_tables pt = {tables, 2, level, judged};
    char path[160], err[ERRLEN] = "", *gp, *data;
    const char *at = strstr(result_json, " \"script\"");
    char *text = malloc(sizeof(result_json) + 64), *flagged;

    /* The files name their driver. */
    ck_assert_ptr_nonnull(text);
    sprintf(text, "%.*s \"environment\": {\"driver\": \"pgsql\"},\n%s", (int)(at - result_json),
            result_json, at);
    fx_setup(&f, "a");
    load_text(&f, "a.json", text, "base'line\n\"v2\"", &two[0]);
    /* b's first point was flagged by its self-check. */
    flagged = replace_once(text, "\"complete\": true,",
                           "\"complete\": true, \"selfcheck\": {\"ok\": false},");
    load_text(&f, "b.json", flagged, "b", &two[1]);
    free(flagged);
    snprintf(path, sizeof(path), "%s/c", f.dir);
    precreate_charts(path, ".png");
    snprintf(path, sizeof(path), "%s/c.png", f.dir);
    ck_assert_msg(sb_plot_write_compare(two, 2, path, &pt, NULL, err, sizeof(err)) == 0, "%s", err);
    gp = read_all(f.capture);
    assert_well_quoted(gp);
    /* The label: quote doubled, newline as a space; then the script. */
    ck_assert_ptr_nonnull(strstr(gp, "LABEL[1] = 'base''line \"v2\": oltp_read_write, pgsql'\n"));
    ck_assert_ptr_nonnull(strstr(gp, "LABEL[2] = 'b: oltp_read_write, pgsql'\n"));
    /* The table's values, the results 0.12 apart around each point; no
     * interval of a single run. */
    data = read_cap(&f, "tps1.dat");
    ck_assert_str_eq(data, " -0.06 111 NaN NaN 0 1\n 0.94 444 NaN NaN 0 1\n");
    free(data);
    data = read_cap(&f, "tps2.dat");
    ck_assert_str_eq(data, " 0.06 122 NaN NaN 1 1\n 1.06 555 NaN NaN 0 1\n");
    free(data);
    ck_assert_ptr_nonnull(strstr(gp, "FLAGGED = 1\n"));
    /* The ratio, its interval and the verdict as the table printed them. */
    data = read_cap(&f, "rel2.dat");
    ck_assert_str_eq(data, " 0 1.099 0.95 1.27 1.27 \"1.099x no significant difference\"\n"
                           " 1 1.25 1.1 1.4 1.4 \"1.250x better\"\n");
    free(data);
    ck_assert_ptr_nonnull(strstr(gp, "NOTE = 'ratio of geometric means and its 99.58% interval as "
                                     "compare''s table (all 12 figures judged hold together at "
                                     "95%), verdict beside each point'\n"));
    /* The latency dots: the table's p95 (the only latency table) on the
     * curve of each file at 1 thread; none at 4 threads (no value). */
    data = read_cap(&f, "lm_1.dat");
    ck_assert_str_eq(data, " 20 2.5 NaN NaN \"p95\"\n");
    free(data);
    data = read_cap(&f, "lm_2.dat");
    ck_assert_str_eq(data, " 20 2.75 NaN NaN \"p95\"\n");
    free(data);
    data = read_cap(&f, "lm_3.dat");
    ck_assert_str_eq(data, "");
    free(data);
    free(gp);
    sb_result_file_free(&two[0]);
    sb_result_file_free(&two[1]);
    free(text);
    fx_teardown(&f);
}
END_TEST

/* The find-max chart: the SLA and the rates found set before findmax.gp,
 * the runs and the medians in data files on the rate axis. */
START_TEST(test_findmax_chart)
{
    struct fx f;
    struct sb_jv *fm;
    char perr[256], path[160], chart[192], err[ERRLEN] = "", *gp, *data;

    fx_setup(&f, "r");
    fm = sb_jv_parse(findmax_json, strlen(findmax_json), perr, sizeof(perr));
    ck_assert_msg(fm != NULL, "%s", perr);
    snprintf(path, sizeof(path), "%s/f.png", f.dir);
    snprintf(chart, sizeof(chart), "%s/f-find-max.png", f.dir);
    write_file(chart, "x", 0644);
    ck_assert_msg(sb_plot_findmax(fm, path, NULL, err, sizeof(err)) == 0, "%s", err);
    gp = read_all(f.capture);
    assert_well_quoted(gp);
    ck_assert_ptr_nonnull(strstr(gp, "TITLE = 'Find-max: server, mysql, 2 threads; SLA p99 <= "
                                     "200 ms'\n"));
    ck_assert_ptr_nonnull(strstr(gp, "FLAGGED = 1\nPCT = 99\nMS = 200\nHELD = 400\nMISSED = 500\n"
                                     "CLOSED = 510\nXLO = 287.4"));
    ck_assert_ptr_nonnull(strstr(gp, "# findmax.gp: "));
    /* The run at 300 tx/s is the flagged point of the document. */
    data = read_cap(&f, "runs.dat");
    ck_assert_str_eq(data, " 500 96 250 14034728 0\n 300 100 13 2792762 1\n 400 100 13 2792762 0\n"
                           " 400 99.75 14 2792762 0\n");
    free(data);
    free(gp);
    sb_jv_free(fm);
    fx_teardown(&f);
}
END_TEST

/* The real gnuplot on every template and the branches these results
 * take: a rate sweep with find-max marks, a comparison, a time axis at a
 * rate with CPU, and the find-max chart. Each chart comes out non-empty. */
START_TEST(test_real_templates)
{
    struct fx f;
    struct sb_result_file fm, two[2];
    struct sb_plot_marks marks = {.sla_pct = 99, .sla_ms = 200, .rate_held = 400};
    struct sb_interval iv[3] = {
        {.time_s = 1, .tps = 10, .p50_ms = 0.02, .p99_ms = 40, .lag_p99_ms = 1, .backlog = 0,
         .cpu_client_pct = 12.5, .cpu_server_pct = NAN},
        {.time_s = 2, .tps = 20, .p50_ms = 0.03, .p99_ms = 30, .lag_p99_ms = 2, .backlog = 2,
         .cpu_client_pct = 25, .cpu_server_pct = NAN},
        {.time_s = 3, .tps = 20, .p50_ms = 0.03, .p99_ms = 30, .lag_p99_ms = 2, .backlog = 2,
         .cpu_client_pct = 25, .cpu_server_pct = NAN},
    };
    struct sb_point_result p = {.cfg = {.threads = 2, .mode = SB_PACE_FIXED, .target_tps = 20},
                         .intervals = iv, .nintervals = 3};
    const char *names[] = {"throughput", "cpu", "latency", "latency-throughput", "timeline",
                           "find-max"};
    char path[160], chart[192], perr[256], err[ERRLEN] = "", *out;
    struct sb_jv *jfm;
    struct stat st;

    if (access(SB_GNUPLOT, X_OK) != 0) {
        fprintf(stderr, "check_sb_plot: no gnuplot at %s, test_real_templates checks nothing\n",
                SB_GNUPLOT);
        return;
    }
    fx_setup(&f, "r");
    setenv("SB_GNUPLOT", SB_GNUPLOT, 1);
    load_text(&f, "fm.json", rates_json, "fm", &fm);
    snprintf(path, sizeof(path), "%s/r.png", f.dir);
    ck_assert_msg(sb_plot_write_marked(&fm, 1, path, &marks, NULL, err, sizeof(err)) == 0, "%s",
                  err);
    ck_assert_msg(sb_plot_timeline(&p, NULL, path, NULL, err, sizeof(err)) == 0, "%s", err);
    jfm = sb_jv_parse(findmax_json, strlen(findmax_json), perr, sizeof(perr));
    ck_assert_ptr_nonnull(jfm);
    ck_assert_msg(sb_plot_findmax(jfm, path, NULL, err, sizeof(err)) == 0, "%s", err);
    sb_jv_free(jfm);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(chart, sizeof(chart), "%s/r-%s.png", f.dir, names[i]);
        ck_assert_msg(stat(chart, &st) == 0 && st.st_size > 0, "no %s", chart);
    }
    /* Two rate sweeps compared: panels, and a relative chart by rate. */
    load_text(&f, "fm2.json", rates_json, "fm2", &two[1]);
    two[0] = fm;
    snprintf(path, sizeof(path), "%s/c.svg", f.dir);
    out = NULL;
    ck_assert_msg(sb_plot_write(two, 2, path, NULL, err, sizeof(err)) == 0, "%s", err);
    snprintf(chart, sizeof(chart), "%s/c-relative.svg", f.dir);
    ck_assert_msg(stat(chart, &st) == 0 && st.st_size > 0, "no %s", chart);
    free(out);
    sb_result_file_free(&two[1]);
    sb_result_file_free(&fm); /* two[0] is a copy of it */
    ck_assert(dir_empty(f.tmpdir));
    fx_teardown(&f);
}
END_TEST

static Suite *plot_suite(void)
{
    Suite *s = suite_create("sb_plot");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_script_text);
    tcase_add_test(tc, test_script_paths);
    tcase_add_test(tc, test_gp_writers);
    tcase_add_test(tc, test_gnuplot_missing);
    tcase_add_test(tc, test_gnuplot_fails);
    tcase_add_test(tc, test_check_path);
    tcase_add_test(tc, test_real_gnuplot);
    tcase_add_test(tc, test_timeline);
    tcase_add_test(tc, test_single_point);
    tcase_add_test(tc, test_rate_sweep);
    tcase_add_test(tc, test_compare_one_point);
    tcase_add_test(tc, test_compare_tables);
    tcase_add_test(tc, test_many_curves);
    tcase_add_test(tc, test_findmax_chart);
    tcase_add_test(tc, test_real_templates);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(plot_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
