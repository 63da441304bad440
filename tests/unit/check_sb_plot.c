/*
 * Unit tests for the charts (sb_plot.c, sb_plot_time.c): the gnuplot
 * script written for a small result file, the quoting of labels and file
 * names in it, and what happens when gnuplot is missing or fails.
 *
 * The results go in as a result file (sb_resfile_load), the public way in
 * that does not depend on the in-memory result structs. gnuplot is
 * replaced, through SB_GNUPLOT, by a shell script that keeps a copy of
 * the script it was given; one test runs the real gnuplot when configure
 * found one, on file names with quotes and a newline.
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

#include "plot/sb_gnuplot.h"
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

/* One test's directory: the result file, the fake gnuplot, TMPDIR. */
struct fx {
    char dir[64];
    char tmpdir[96];
    char capture[96];
    struct sb_resfile res;
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
    char path[128], text[512];

    snprintf(path, sizeof(path), "%s/fake-gnuplot", f->dir);
    snprintf(text, sizeof(text), "#!/bin/sh\ncp \"$1\" '%s' || exit 3\nprintf '%%s\\n' '%s' >&2\n"
             "exit %d\n", f->capture, err, status);
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
    snprintf(path, sizeof(path), "%s/result.json", f->dir);
    write_file(path, result_json, 0644);
    ck_assert_msg(sb_resfile_load(&f->res, path, label, err, sizeof(err)) == 0, "%s", err);
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
    sb_resfile_free(&f->res);
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
 * a command early. */
static void assert_well_quoted(const char *script)
{
    size_t line = 1, quotes = 0;

    for (const char *p = script; *p; p++) {
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
    char stem[128], path[160], err[ERRLEN] = "", *out = NULL, *gp, want[1024];
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
    /* The data: key, median, min and max of the runs per result. */
    ck_assert_ptr_nonnull(strstr(gp, "$tps << EOD\n0 100.5 100.5 100.5\n1 400 400 400\nEOD\n"));
    ck_assert_ptr_nonnull(strstr(gp, "set xtics ('1' 0, '4' 1)\n"));
    for (const char *c = "throughput\0relative\0cpu\0latency\0"; *c; c += strlen(c) + 1) {
        snprintf(want, sizeof(want), "set output '%s-%s.png'\n", stem, c);
        ck_assert_msg(strstr(gp, want) != NULL, "no '%s'", want);
    }
    ck_assert_ptr_nonnull(strstr(gp, "set terminal pngcairo noenhanced"));
    ck_assert_ptr_nonnull(strstr(gp, "set title 'Throughput by threads: oltp_read_write'"));
    /* The label: quote doubled, newline as a space. */
    ck_assert_ptr_nonnull(strstr(gp, "title 'base''line \"v2\"'\n"));
    /* The latency curve of the point with a histogram, none for the other. */
    ck_assert_ptr_nonnull(strstr(gp, "$lat_0_0 << EOD\n"));
    ck_assert_ptr_null(strstr(gp, "$lat_0_1 << EOD\n"));
    ck_assert_ptr_nonnull(strstr(gp, "title '1 thread'"));
    /* No rated point, so no fifth chart. */
    ck_assert_ptr_null(strstr(gp, "latency-throughput"));
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
    ck_assert_ptr_nonnull(strstr(gp, "set terminal svg noenhanced"));
    snprintf(want, sizeof(want), "set output '%s/it''s \"q\"' . \"\\012\" . 'x/out-cpu.svg'\n",
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
    struct sb_point p = {.cfg = {.threads = 2, .mode = SB_PACE_NONE}, .intervals = iv,
                         .nintervals = 2};
    char sub[128], path[192], chart[256], err[ERRLEN] = "", *out = NULL, *gp, want[1024];
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
    ck_assert_msg(sb_plot_timeline(&p, path, mem, err, sizeof(err)) == 0, "%s", err);
    fclose(mem);
    snprintf(want, sizeof(want), "Time-axis chart written: %s\n", chart);
    ck_assert_str_eq(out, want);
    free(out);
    ck_assert(dir_empty(f.tmpdir));
    gp = read_all(f.capture);
    assert_well_quoted(gp);
    ck_assert_ptr_nonnull(strstr(gp, "$tl << EOD\n 1 10 NaN 1.5 4 NaN 0 12.5 NaN\n"
                                     " 2 20 NaN 1.25 3 NaN 2 25 NaN\nEOD\n"));
    snprintf(want, sizeof(want), "set output '%s/t' . \"\\011\" . 'q''/run-timeline.png'\n",
             f.dir);
    ck_assert_msg(strstr(gp, want) != NULL, "no '%s'", want);
    ck_assert_ptr_nonnull(strstr(gp, "'Time axis: 2 thread(s)'"));
    ck_assert_ptr_null(strstr(gp, "'target'"));
    free(gp);

    /* One interval is not a time axis: nothing drawn, and said so. */
    unlink(f.capture);
    p.nintervals = 1;
    out = NULL;
    mem = open_memstream(&out, &outlen);
    ck_assert_int_eq(sb_plot_timeline(&p, path, mem, err, sizeof(err)), 0);
    fclose(mem);
    ck_assert_ptr_nonnull(strstr(out, "No time-axis chart"));
    free(out);
    ck_assert_int_ne(access(f.capture, F_OK), 0);
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
