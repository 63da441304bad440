/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The compare command; see sb_compare.h.
 *
 * The output is one table per figure (throughput, each latency
 * percentile, each side's CPU cost) rather than one wide table, so that
 * any number of files fits the terminal: a row per matched sweep point,
 * a column per file, then a ratio column per file after the first.
 */
#include "config.h"

#include "compare/sb_compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_log.h"
#include "plot/sb_plot.h"
#include "results/sb_result_file.h"
#include "compare/sb_verdict.h"
#include "compare/sb_compare_stmt.h"
#include "compare/sb_compare_usl.h"
#include "core/sb_json_write.h"

/* Percentiles shown at most (p95, p99 and those every file stored). */
#define MAX_SHOWN_PCTS 8

struct compare_args {
    const char **files;     /* borrowed from argv */
    size_t nfiles;
    const char *labels;     /* --labels value, or NULL */
    const char *plot;       /* --plot value, or NULL */
    const char *json;       /* --json value, or NULL */
    bool help;
};

/* What a table shows of a point. */
struct metric {
    const char *title;      /* the table's heading */
    int decimals;           /* digits after the point for values >= 1 */
    double pct;             /* for latency tables: the percentile */
    enum sb_point_result_fig fig;
    bool higher_is_better;  /* throughput; latency and CPU are the reverse */
};

static void usage(FILE *out)
{
    fprintf(out,
            "Usage:\n"
            "  sysbench compare A.json B.json [C.json ...] [--labels=a,b,...] [--plot=FILE.png|FILE.svg]\n"
            "                   [--json=FILE]\n\n"
            "Prints the results of two or more --json files side by side, sweep point by\n"
            "sweep point (matched by thread count and target rate), with the ratio of each\n"
            "file to the first. --labels names the files in the tables and charts (default:\n"
            "the file name without .json); --plot draws throughput, relative throughput, CPU\n"
            "per transaction and latency percentile charts with gnuplot.\n\n"
            "Values are the geometric mean of a point's runs; ratios are of the values\n"
            "shown. When both files ran a point two or more times (--repeat), its ratio\n"
            "gets an interval and a verdict (better, worse, no significant difference):\n"
            "Welch's t on the logs of the runs with the fewer runs minus 1 degrees of\n"
            "freedom, the intervals of all figures judged holding together at 95%%\n"
            "(Bonferroni). Single runs get no verdict: they show no run-to-run variation.\n"
            "Options and environment fields that differ between the files are listed\n"
            "first, with a warning when more than the server differs, and then the\n"
            "runs whose self-check is not ok are named.\n"
            "Files whose thread sweeps have a Universal Scalability Law fit get its\n"
            "parameters side by side (lambda, sigma, kappa, N*, X(N*)) with their ratio:\n"
            "point estimates, one fit per file, with no interval. --json writes that\n"
            "comparison as a JSON document to FILE.\n");
}

bool sb_compare_requested(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            continue;
        return strcmp(argv[i], "compare") == 0;
    }
    return false;
}

static int parse_args(struct compare_args *a, int argc, char **argv, char *err, size_t errlen)
{
    bool seen_cmd = false;

    memset(a, 0, sizeof(*a));
    a->files = calloc((size_t)argc, sizeof(*a->files));
    if (a->files == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!seen_cmd && strcmp(s, "compare") == 0) {
            seen_cmd = true;
        } else if (strncmp(s, "--labels=", 9) == 0) {
            a->labels = s + 9;
        } else if (strncmp(s, "--plot=", 7) == 0) {
            a->plot = s + 7;
            if (*a->plot == '\0') {
                snprintf(err, errlen, "--plot needs a file name ending in .png or .svg");
                return -1;
            }
        } else if (strncmp(s, "--json=", 7) == 0) {
            a->json = s + 7;
            if (*a->json == '\0') {
                snprintf(err, errlen, "--json needs a file name");
                return -1;
            }
        } else if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
            a->help = true;
        } else if (s[0] == '-' && s[1] != '\0') {
            snprintf(err, errlen, "unknown option for compare: %s (expected --labels=, --plot=, --json= or --help)",
                     s);
            return -1;
        } else {
            a->files[a->nfiles++] = s;
        }
    }
    if (!a->help && a->nfiles < 2) {
        snprintf(err, errlen, "compare needs at least two result files (got %zu); usage: "
                 "sysbench compare A.json B.json [...] [--labels=a,b] [--plot=FILE.png]", a->nfiles);
        return -1;
    }
    return 0;
}

/*
 * Splits --labels into one label per file. Returns the labels (an array
 * of nfiles owned strings), or NULL with err when their number is wrong,
 * one is empty, or memory ran out.
 */
static char **make_labels(const struct compare_args *a, char *err, size_t errlen)
{
    char **labels = calloc(a->nfiles, sizeof(*labels));
    const char *s = a->labels;
    size_t n = 0;

    if (labels == NULL)
        goto oom;
    if (s == NULL) {
        for (n = 0; n < a->nfiles; n++)
            if ((labels[n] = sb_result_file_default_label(a->files[n])) == NULL)
                goto oom;
        return labels;
    }
    for (;;) {
        size_t len = strcspn(s, ",");
        if (len == 0 || n == a->nfiles) {
            snprintf(err, errlen, "--labels needs %zu non-empty comma-separated names, one per file",
                     a->nfiles);
            goto fail;
        }
        if ((labels[n] = strndup(s, len)) == NULL)
            goto oom;
        n++;
        s += len;
        if (*s == '\0')
            break;
        s++;
    }
    if (n != a->nfiles) {
        snprintf(err, errlen, "--labels has %zu name%s for %zu files", n, n == 1 ? "" : "s",
                 a->nfiles);
        goto fail;
    }
    return labels;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    for (size_t i = 0; labels != NULL && i < a->nfiles; i++)
        free(labels[i]);
    free(labels);
    return NULL;
}

static void fmt_value(char *buf, size_t len, double v, int decimals)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", decimals, v);
}

/* The verdict of result r against the first at key k; a NaN ratio where
 * either has no complete point. */
static void judge_cell(const struct metric *m, const struct sb_result_file_grid *g, size_t r,
                       size_t k, struct sb_verdict *v)
{
    const struct sb_point_result *a = sb_result_file_grid_cell(g, 0, k);
    const struct sb_point_result *b = sb_result_file_grid_cell(g, r, k);

    if (a == NULL || b == NULL) {
        sb_verdict_from_runs(NULL, 0, NULL, 0, false, m->higher_is_better, v);
        return;
    }
    sb_verdict_judge(a, b, m->fig, m->pct, m->higher_is_better, v);
}

/* The metric of result r at key k as the tables show it (the geometric
 * mean of the point's runs); NaN where r has no complete point. */
static double value_at(const struct metric *m, const struct sb_result_file_grid *g, size_t r,
                       size_t k)
{
    const struct sb_point_result *p = sb_result_file_grid_cell(g, r, k);

    return p != NULL ? sb_verdict_value(p, m->fig, m->pct) : NAN;
}

static int width_of(const char *s, int min)
{
    int w = (int)strlen(s);
    return w > min ? w : min;
}

/* The interval, verdict and detectable-change cells of v. */
static void verdict_cells(const struct sb_verdict *v, char *ci, size_t cilen, char *verdict,
                          size_t vlen, char *det, size_t dlen)
{
    double d;

    snprintf(det, dlen, "-");
    if (v->method == SB_VERDICT_NONE) {
        snprintf(ci, cilen, "-");
        snprintf(verdict, vlen, "%s", isnan(v->r.ratio) ? "-" : "no verdict (single run)");
        return;
    }
    snprintf(ci, cilen, "[%.3f, %.3f]", v->r.lo, v->r.hi);
    snprintf(verdict, vlen, "%s", sb_ci_verdict_name(v->v));
    d = sb_verdict_detectable(v);
    if (isfinite(d))
        snprintf(det, dlen, "%.1f%%", 100 * d);
}

/* Prints one table: a row per key, the value of each file, then each
 * file's ratio to the first; when some ratio has an interval, also the
 * interval and the verdict. vs[r] holds file r's verdicts (r >= 1), this
 * table's at [t * nkeys + k]. Prints nothing when no file has a value. */
static void print_table(FILE *out, const struct metric *m, const struct sb_result_file *res,
                        const struct sb_result_file_grid *g, struct sb_verdict *const *vs, size_t t)
{
    char cell[96], name[64], verdict[64], det[32];
    int kw = 7, vw[64], rw[64], cw[64], dw[64];
    size_t nres = g->nres < 64 ? g->nres : 64;
    int decimals = m->decimals;
    bool any = false, ci = false;

    /* One precision per table, so that the column reads evenly: one
     * more digit when some value is below 1 (sub-millisecond latencies). */
    for (size_t k = 0; k < g->nkeys; k++) {
        for (size_t r = 0; r < nres; r++) {
            double v = value_at(m, g, r, k);
            ci = ci || (r > 0 && vs[r][t * g->nkeys + k].method != SB_VERDICT_NONE);
            if (isnan(v))
                continue;
            any = true;
            if (v != 0 && fabs(v) < 1)
                decimals = m->decimals + 1;
        }
        sb_result_file_key_name(g, k, name, sizeof(name));
        kw = width_of(name, kw);
    }
    if (!any) {
        fprintf(out, "%s: not measured in any file\n\n", m->title);
        return;
    }
    fprintf(out, "%s:\n", m->title);
    kw = width_of(g->rates_vary && !g->threads_vary ? "target" : "threads", kw);
    fprintf(out, "%*s", kw + 1, g->rates_vary && !g->threads_vary ? "target" : "threads");
    for (size_t r = 0; r < nres; r++) {
        vw[r] = width_of(res[r].label, 10);
        fprintf(out, "  %*s", vw[r], res[r].label);
    }
    for (size_t r = 1; r < nres; r++) {
        snprintf(cell, sizeof(cell), "%s/%s", res[r].label, res[0].label);
        rw[r] = width_of(cell, 7);
        fprintf(out, "  %*s", rw[r], cell);
        if (ci) {
            cw[r] = 17;
            dw[r] = 25;
            fprintf(out, "  %*s  %-*s  %10s", cw[r], "interval", dw[r], "verdict", "detectable");
        }
    }
    fputc('\n', out);
    for (size_t k = 0; k < g->nkeys; k++) {
        sb_result_file_key_name(g, k, name, sizeof(name));
        fprintf(out, "%*s", kw + 1, name);
        for (size_t r = 0; r < nres; r++) {
            fmt_value(cell, sizeof(cell), value_at(m, g, r, k), decimals);
            fprintf(out, "  %*s", vw[r], cell);
        }
        for (size_t r = 1; r < nres; r++) {
            const struct sb_verdict *v = &vs[r][t * g->nkeys + k];
            if (isnan(v->r.ratio))
                snprintf(cell, sizeof(cell), "-");
            else
                snprintf(cell, sizeof(cell), ci ? "%.3fx" : "%.2fx", v->r.ratio);
            fprintf(out, "  %*s", rw[r], cell);
            if (!ci)
                continue;
            verdict_cells(v, cell, sizeof(cell), verdict, sizeof(verdict), det, sizeof(det));
            fprintf(out, "  %*s  %-*s  %10s", cw[r], cell, dw[r], verdict, det);
        }
        fputc('\n', out);
    }
    fputc('\n', out);
}

/* Whether every complete point of every file stored percentile pct. */
static bool all_stored(const struct sb_result_file *res, size_t n, double pct)
{
    for (size_t r = 0; r < n; r++) {
        for (size_t i = 0; i < res[r].npoints; i++) {
            const struct sb_point_result *p = &res[r].points[i];
            bool found = false;
            if (!sb_point_result_complete(p))
                continue;
            for (size_t j = 0; j < p->nfile_pcts && !found; j++)
                found = fabs(p->file_pcts[j] - pct) < 1e-9;
            if (!found)
                return false;
        }
    }
    return true;
}

/* The latency percentiles to show: 95 and 99, which the histogram always
 * gives, and any other that every file stored (its --percentile list). */
static size_t shown_percentiles(const struct sb_result_file *res, size_t n, double *pcts)
{
    size_t np = 0;

    pcts[np++] = 95;
    pcts[np++] = 99;
    for (size_t i = 0; i < res[0].npoints && np < MAX_SHOWN_PCTS; i++) {
        const struct sb_point_result *p = &res[0].points[i];
        for (size_t j = 0; j < p->nfile_pcts && np < MAX_SHOWN_PCTS; j++) {
            bool dup = false;
            for (size_t k = 0; k < np; k++)
                dup = dup || fabs(pcts[k] - p->file_pcts[j]) < 1e-9;
            if (!dup && all_stored(res, n, p->file_pcts[j]))
                pcts[np++] = p->file_pcts[j];
        }
    }
    /* Ascending, as the text report lists them. */
    for (size_t i = 1; i < np; i++)
        for (size_t j = i; j > 0 && pcts[j - 1] > pcts[j]; j--) {
            double t = pcts[j];
            pcts[j] = pcts[j - 1];
            pcts[j - 1] = t;
        }
    return np;
}

static void print_files(FILE *out, const struct sb_result_file *res, size_t n)
{
    int lw = 5, fw = 4;

    for (size_t r = 0; r < n; r++) {
        lw = width_of(res[r].label, lw);
        fw = width_of(res[r].path, fw);
    }
    fprintf(out, "Comparing %zu result files; ratios are against '%s' (the first).\n", n,
            res[0].label);
    fprintf(out, "  %-*s  %-*s  %6s  %s\n", lw, "label", fw, "file", "points",
            "script / server version / sysbench's allocator / started");
    for (size_t r = 0; r < n; r++)
        fprintf(out, "  %-*s  %-*s  %6zu  %s / %s / %s / %s\n", lw, res[r].label, fw,
                res[r].path, res[r].npoints, *res[r].script ? res[r].script : "?",
                *res[r].server_version ? res[r].server_version : "?",
                *res[r].allocator ? res[r].allocator : "?",
                *res[r].started_at ? res[r].started_at : "?");
    fputc('\n', out);
}

/* The tables compare prints, in order: throughput, each shown latency
 * percentile, each side's CPU. Returns how many (titles has room for
 * MAX_SHOWN_PCTS + 4). */
static size_t make_metrics(const struct sb_result_file *res, size_t n, struct metric *ms,
                           char (*titles)[128])
{
    double pcts[MAX_SHOWN_PCTS];
    size_t np = shown_percentiles(res, n, pcts), nm = 0;

    ms[nm++] = (struct metric){"Throughput (transactions per second; higher is better)", 2, 0,
                               SB_POINT_RESULT_TPS, true};
    for (size_t i = 0; i < np; i++) {
        snprintf(titles[i], sizeof(titles[i]),
                 "Response time, %gth percentile (ms; lower is better)", pcts[i]);
        ms[nm++] = (struct metric){titles[i], 2, pcts[i], SB_POINT_RESULT_LATENCY, false};
    }
    ms[nm++] = (struct metric){"CPU per transaction, client (us user+system; lower is better)", 1,
                               0, SB_POINT_RESULT_CPU_CLIENT, false};
    ms[nm++] = (struct metric){"CPU per transaction, server (us user+system; lower is better)", 1,
                               0, SB_POINT_RESULT_CPU_SERVER, false};
    ms[nm++] = (struct metric){"CPU per transaction, whole machine (us busy; lower is better)", 1,
                               0, SB_POINT_RESULT_CPU_MACHINE, false};
    return nm;
}

/* How the verdicts of each file against the first were reached: the
 * number of figures judged and the level of each interval, or why there
 * is none. */
static void print_verdict_note(FILE *out, const struct sb_result_file *res, size_t n,
                               const size_t *judged)
{
    fprintf(out, "Values are the geometric mean of each point's runs (--repeat; a single run's own "
            "figure), and\nratios are of the values shown.\n");
    for (size_t r = 1; r < n; r++) {
        if (judged[r] == 0) {
            fprintf(out, "No verdicts for '%s' against '%s': a verdict needs two or more runs of "
                    "a point in both\nfiles (--repeat=3 or more), because single runs show no "
                    "run-to-run variation.\n", res[r].label, res[0].label);
            continue;
        }
        fprintf(out, "Verdicts for '%s' against '%s': %zu figure%s judged from the runs "
                "(Welch's t on their logs,\nthe fewer runs minus 1 degrees of freedom); each "
                "interval is at %.4g%% so that all %zu\nhold together at 95%% (Bonferroni): "
                "the chance of any false 'better' or 'worse' among them\nis at most 5%%.\n",
                res[r].label, res[0].label, judged[r], judged[r] == 1 ? "" : "s",
                100 * (1 - SB_VERDICT_ALPHA / (double)judged[r]), judged[r]);
        fprintf(out, "Detectable: the smallest change a figure had an 80%% chance to show at its "
                "runs' variation;\n'no significant difference' says nothing of changes below it "
                "(more runs, or sysbench ab, see smaller ones).\n");
    }
    fputc('\n', out);
}

/* The tables as printed, for the charts (--plot): the cells are owned. */
struct chart_tables {
    struct sb_plot_table t[MAX_SHOWN_PCTS + 4];
    struct sb_plot_cell *cells;
    double level[64];
    size_t judged[64];
    struct sb_plot_tables pt;
};

/* Fills ct with every cell of the nm tables as print_table prints it:
 * the values, and each file's ratio, interval and verdict. Returns 0, or
 * -1 when out of memory. */
static int chart_tables(struct chart_tables *ct, const struct metric *ms, size_t nm,
                        const struct sb_result_file_grid *g, struct sb_verdict *const *vs,
                        const size_t *judged, size_t nres)
{
    ct->cells = calloc(nm * nres * g->nkeys + 1, sizeof(*ct->cells));
    if (ct->cells == NULL)
        return -1;
    for (size_t t = 0; t < nm; t++) {
        struct sb_plot_cell *c = ct->cells + t * nres * g->nkeys;
        ct->t[t] = (struct sb_plot_table){ms[t].fig, ms[t].pct, c};
        for (size_t r = 0; r < nres; r++)
            for (size_t k = 0; k < g->nkeys; k++, c++) {
                const struct sb_verdict *v = r > 0 ? &vs[r][t * g->nkeys + k] : NULL;
                bool judged_here = v != NULL && v->method != SB_VERDICT_NONE;
                c->value = value_at(&ms[t], g, r, k);
                c->ratio = v != NULL ? v->r.ratio : NAN;
                c->lo = judged_here ? v->r.lo : NAN;
                c->hi = judged_here ? v->r.hi : NAN;
                c->verdict = judged_here ? sb_ci_verdict_name(v->v) : NULL;
            }
    }
    for (size_t r = 0; r < nres; r++) {
        ct->judged[r] = judged[r];
        ct->level[r] = judged[r] > 0 ? 1 - SB_VERDICT_ALPHA / (double)judged[r] : NAN;
    }
    ct->pt = (struct sb_plot_tables){ct->t, nm, ct->level, ct->judged};
    return 0;
}

/* Judges every table's figures, file by file against the first, controls
 * each file's verdicts for their number, then prints the tables; with ct,
 * keeps them as printed for the charts. */
static void print_all(FILE *out, const struct sb_result_file *res, size_t n,
                      const struct sb_result_file_grid *g, struct chart_tables *ct)
{
    struct metric ms[MAX_SHOWN_PCTS + 4];
    char titles[MAX_SHOWN_PCTS][128];
    size_t nm = make_metrics(res, n, ms, titles), nres = g->nres < 64 ? g->nres : 64;
    size_t judged[64] = {0};
    struct sb_verdict *vs[64] = {NULL};

    for (size_t r = 1; r < nres; r++) {
        vs[r] = calloc(nm * g->nkeys + 1, sizeof(*vs[r]));
        if (vs[r] == NULL)
            goto done;
        for (size_t t = 0; t < nm; t++)
            for (size_t k = 0; k < g->nkeys; k++)
                judge_cell(&ms[t], g, r, k, &vs[r][t * g->nkeys + k]);
        judged[r] = sb_verdict_family(vs[r], nm * g->nkeys);
    }
    print_verdict_note(out, res, nres, judged);
    for (size_t t = 0; t < nm; t++)
        print_table(out, &ms[t], res, g, vs, t);
    sb_compare_stmt_print(out, res, n, g);
    fflush(out);
    if (ct != NULL && chart_tables(ct, ms, nm, g, vs, judged, nres) != 0)
        ct->cells = NULL;
done:
    for (size_t r = 1; r < nres; r++)
        free(vs[r]);
}

/* compare's document (doc/results.md): the files and their USL fits. */
static int write_json(const char *path, const struct sb_compare_usl *u, const char *const *files,
                      char *const *labels, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    struct sb_json j;

    if (f == NULL) {
        snprintf(err, errlen, "cannot write --json file '%s': %s", path, strerror(errno));
        return -1;
    }
    sb_json_init(&j, f, true);
    sb_json_begin_object(&j);
    sb_json_kv_string(&j, "format", "sysbench-compare");
    sb_json_kv_int(&j, "format_version", 1);
    sb_json_key(&j, "files");
    sb_json_begin_array(&j);
    for (size_t i = 0; i < u->n; i++) {
        sb_json_begin_object(&j);
        sb_json_kv_string(&j, "path", files[i]);
        sb_json_kv_string(&j, "label", labels[i]);
        sb_json_end_object(&j);
    }
    sb_json_end_array(&j);
    sb_compare_usl_json(&j, u, labels);
    sb_json_end_object(&j);
    if (sb_json_finish(&j) != 0 || fclose(f) != 0) {
        snprintf(err, errlen, "cannot write --json file '%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int sb_compare_main(int argc, char **argv, FILE *out)
{
    struct compare_args a;
    struct sb_result_file *res = NULL;
    struct sb_result_file_grid g;
    char **labels = NULL, err[1024];
    struct chart_tables ct;
    struct sb_compare_usl usl;
    size_t loaded = 0;
    int rc = 1;

    memset(&g, 0, sizeof(g));
    memset(&ct, 0, sizeof(ct));
    memset(&usl, 0, sizeof(usl));
    if (parse_args(&a, argc, argv, err, sizeof(err)) != 0)
        goto fail;
    if (a.help) {
        usage(out);
        rc = 0;
        goto done;
    }
    /* A missing gnuplot or a bad chart name is found before any file is
     * read, as with the run command. */
    if (a.plot != NULL && sb_plot_check(a.plot, err, sizeof(err)) != 0)
        goto fail;
    labels = make_labels(&a, err, sizeof(err));
    if (labels == NULL)
        goto fail;
    res = calloc(a.nfiles, sizeof(*res));
    if (res == NULL) {
        snprintf(err, sizeof(err), "out of memory");
        goto fail;
    }
    for (; loaded < a.nfiles; loaded++)
        if (sb_result_file_load(&res[loaded], a.files[loaded], labels[loaded], err, sizeof(err)) != 0)
            goto fail;
    if (sb_result_file_grid_build(&g, res, a.nfiles) != 0) {
        snprintf(err, sizeof(err), "out of memory");
        goto fail;
    }
    print_files(out, res, a.nfiles);
    if (sb_verdict_print_diffs(out, a.files, labels, a.nfiles, err, sizeof(err)) < 0)
        goto fail;
    if (sb_verdict_print_selfcheck(out, a.files, labels, a.nfiles, err, sizeof(err)) < 0)
        goto fail;
    print_all(out, res, a.nfiles, &g, a.plot != NULL ? &ct : NULL);
    if (sb_compare_usl_load(&usl, a.files, a.nfiles, err, sizeof(err)) != 0)
        goto fail;
    sb_compare_usl_print(out, &usl, labels);
    if (a.json != NULL && write_json(a.json, &usl, a.files, labels, err, sizeof(err)) != 0)
        goto fail;
    /* The charts draw the tables as printed. */
    if (a.plot != NULL && ct.cells == NULL) {
        snprintf(err, sizeof(err), "out of memory");
        goto fail;
    }
    if (a.plot != NULL &&
        sb_plot_write_compare(res, a.nfiles < 64 ? a.nfiles : 64, a.plot, &ct.pt, out, err,
                              sizeof(err)) != 0)
        goto fail;
    rc = 0;
    goto done;
fail:
    sb_fatal("%s", err);
done:
    sb_compare_usl_free(&usl);
    free(ct.cells);
    sb_result_file_grid_free(&g);
    for (size_t i = 0; i < loaded; i++)
        sb_result_file_free(&res[i]);
    free(res);
    for (size_t i = 0; labels != NULL && i < a.nfiles; i++)
        free(labels[i]);
    free(labels);
    free(a.files);
    return rc;
}
