/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compare's verdicts and the differing options; see sb_verdict.h.
 */
#include "config.h"

#include "compare/sb_verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pure/sb_histogram.h"
#include "core/sb_json_read.h"

/* A side's figure: the geometric mean of its runs, or the arithmetic mean
 * when some run is at 0 or below (no logs). Sets *runs to the runs with
 * the figure and *positive to whether all of them are above 0. */
static double side_value(const double *x, size_t n, size_t *runs, bool *positive)
{
    double sum = 0, logs = 0, last = NAN;

    *runs = 0;
    *positive = true;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            continue;
        (*runs)++;
        sum += x[i];
        last = x[i];
        if (x[i] > 0)
            logs += log(x[i]);
        else
            *positive = false;
    }
    if (*runs <= 1)
        return last; /* exactly the run's figure */
    return *positive ? exp(logs / (double)*runs) : sum / (double)*runs;
}

/* The verdict of v's interval, widened first by the histogram's bucket
 * resolution for percentiles: each side's true value lies up to a bucket
 * width below its bound, so the true ratio up to that either way. */
static double bucket_widening(const struct sb_verdict *v)
{
    return v->latency ? 1 + 1.0 / (double)(1u << SB_HIST_SUB_BITS) : 1;
}

static void settle(struct sb_verdict *v)
{
    double w = bucket_widening(v);

    if (v->method == SB_VERDICT_NONE) {
        v->v = SB_CI_UNKNOWN;
        return;
    }
    v->r.lo /= w;
    v->r.hi *= w;
    v->v = sb_ci_judge(&v->r, v->higher_is_better);
}

double sb_verdict_detectable(const struct sb_verdict *v)
{
    if (v->method == SB_VERDICT_NONE)
        return NAN;
    return bucket_widening(v) *
               (1 + sb_ci_detectable(v->r.se, v->r.df, v->r.level, SB_VERDICT_POWER)) - 1;
}

void sb_verdict_from_runs(const double *a, size_t na, const double *b, size_t nb, bool latency,
                          bool higher_is_better, struct sb_verdict *out)
{
    bool pos_a, pos_b;

    memset(out, 0, sizeof(*out));
    out->r.ratio = out->r.lo = out->r.hi = out->r.df = out->r.p = NAN;
    out->r.d = out->r.se = NAN;
    out->latency = latency;
    out->higher_is_better = higher_is_better;
    out->a = side_value(a, na, &out->runs_a, &pos_a);
    out->b = side_value(b, nb, &out->runs_b, &pos_b);
    if (out->a > 0 && isfinite(out->b))
        out->r.ratio = out->b / out->a;
    if (pos_a && pos_b && out->runs_a >= 2 && out->runs_b >= 2 &&
        sb_ci_ratio_welch(a, na, b, nb, &out->r) == 0) {
        /* Few runs: Hsu's df (bench/README.md, A/A on MariaDB: pairings
         * of 3 runs with any false verdict 7 of 45 with Welch's df, 2 of
         * 45 with Hsu's). */
        sb_ci_ratio_hsu(&out->r);
        out->method = SB_VERDICT_REPEATS;
    }
    settle(out);
}

/* Every run's figure f of point p into a new array (*n of them); NULL
 * when out of memory. */
static double *runs_of(const struct sb_point_result *p, enum sb_point_result_fig f, double pct, size_t *n)
{
    /* A group holds at most its nreps runs, a single run one. */
    size_t max = p->nreps ? p->nreps : 1;
    double *v = malloc(max * sizeof(*v));

    *n = v != NULL ? sb_point_result_fig_runs(p, f, pct, v, max) : 0;
    return v;
}

double sb_verdict_value(const struct sb_point_result *p, enum sb_point_result_fig f, double pct)
{
    size_t n, runs;
    double *v = runs_of(p, f, pct, &n), x;
    bool positive;

    x = side_value(v, n, &runs, &positive);
    free(v);
    return x;
}

void sb_verdict_judge(const struct sb_point_result *a, const struct sb_point_result *b,
                      enum sb_point_result_fig f, double pct, bool higher_is_better,
                      struct sb_verdict *out)
{
    size_t na, nb;
    double *va = runs_of(a, f, pct, &na), *vb = runs_of(b, f, pct, &nb);

    sb_verdict_from_runs(va, na, vb, nb, f == SB_POINT_RESULT_LATENCY, higher_is_better, out);
    free(va);
    free(vb);
}

size_t sb_verdict_family(struct sb_verdict *v, size_t n)
{
    size_t m = 0;

    for (size_t i = 0; i < n; i++)
        m += v[i].method != SB_VERDICT_NONE;
    for (size_t i = 0; i < n && m > 0; i++) {
        if (v[i].method == SB_VERDICT_NONE)
            continue;
        sb_ci_ratio_at_level(&v[i].r, 1 - SB_VERDICT_ALPHA / (double)m);
        settle(&v[i]);
    }
    return m;
}

/* ------------------------------------------------------------ self-check */

/* Appends the flags of a flagged self-check to buf ("?" without any). */
static void flag_list(const struct sb_jv *sc, char *buf, size_t len)
{
    const struct sb_jv *flags = sb_jv_get(sc, "flags");
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < sb_jv_len(flags) && used + 1 < len; i++) {
        const struct sb_jv *f = sb_jv_at(flags, i);
        char shown[128];
        sb_jv_escape(shown, sizeof(shown), sb_jv_str(f) ? f->string : "?",
                     sb_jv_str(f) ? sb_jv_str_len(f) : 1);
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", shown);
    }
    if (used == 0)
        snprintf(buf, len, "flagged");
}

/* Prints the flagged runs of one document; returns how many. */
static int flagged_runs(FILE *out, const struct sb_jv *doc, const char *label, int before)
{
    const struct sb_jv *points = sb_jv_get(doc, "points");
    char flags[256], rate[64];
    int k = 0;

    for (size_t i = 0; i < sb_jv_len(points); i++) {
        const struct sb_jv *p = sb_jv_at(points, i), *sc = sb_jv_get(p, "selfcheck");
        const struct sb_jv *ok = sb_jv_get(sc, "ok");
        double target = sb_jv_num(sb_jv_get(p, "target_tps"));
        double threads = sb_jv_num(sb_jv_get(p, "threads"));
        double rep = sb_jv_num(sb_jv_get(p, "repeat")), reps = sb_jv_num(sb_jv_get(p, "repeats"));
        if (ok == NULL || ok->type != SB_JV_BOOL || ok->boolean)
            continue;
        if (before + k++ == 0)
            fprintf(out, "WARNING: runs whose self-check is not ok (their figures may not "
                    "measure the server alone):\n");
        flag_list(sc, flags, sizeof(flags));
        rate[0] = '\0';
        if (isfinite(target))
            snprintf(rate, sizeof(rate), " at %g tx/s", target);
        /* A run of --repeat is named as the run line named it ("run 2 of
         * 3"), its point by threads and rate; a file's point number means
         * nothing to its reader. */
        if (reps > 1)
            fprintf(out, "  %-12s run %g of %g (%g thread%s%s): %s\n", label, rep, reps,
                    threads, threads == 1 ? "" : "s", rate, flags);
        else
            fprintf(out, "  %-12s point %zu (%g thread%s%s): %s\n", label, i + 1, threads,
                    threads == 1 ? "" : "s", rate, flags);
    }
    return k;
}

int sb_verdict_print_selfcheck(FILE *out, const char *const *paths, char *const *labels,
                               size_t n, char *err, size_t errlen)
{
    int k = 0;

    for (size_t r = 0; r < n; r++) {
        struct sb_jv *doc = sb_jv_parse_file(paths[r], err, errlen);
        if (doc == NULL)
            return -1;
        k += flagged_runs(out, doc, labels[r], k);
        sb_jv_free(doc);
    }
    if (k > 0)
        fputc('\n', out);
    return k;
}

/* ------------------------------------------------------------ differences */

/* The value of "environment.server" in a file that has none. */
#define NOT_RECORDED "(not recorded)"

/* One flattened field: "options.general.threads" = "4". */
struct field {
    char *path, *value;
};

struct fields {
    struct field *f;
    size_t n, cap;
};

static int add_field(struct fields *fs, const char *path, const char *value)
{
    if (fs->n == fs->cap) {
        size_t cap = fs->cap ? fs->cap * 2 : 64;
        struct field *nf = realloc(fs->f, cap * sizeof(*nf));
        if (nf == NULL)
            return -1;
        fs->f = nf;
        fs->cap = cap;
    }
    fs->f[fs->n].path = strdup(path);
    fs->f[fs->n].value = strdup(value);
    if (fs->f[fs->n].path == NULL || fs->f[fs->n].value == NULL)
        return -1;
    fs->n++;
    return 0;
}

/* A scalar or an array of scalars as text, whole (two values that differ
 * anywhere render differently), strings escaped (sb_jv_escape): the
 * fields are printed. */
static void render(FILE *m, const struct sb_jv *v)
{
    char *shown;

    switch (v->type) {
    case SB_JV_NULL:
        fputs("null", m);
        break;
    case SB_JV_BOOL:
        fputs(v->boolean ? "true" : "false", m);
        break;
    case SB_JV_NUMBER:
        fprintf(m, "%.15g", v->number);
        break;
    case SB_JV_STRING:
        if ((shown = sb_jv_str_shown(v)) != NULL)
            fputs(shown, m);
        free(shown);
        break;
    default:
        for (size_t i = 0; i < v->n; i++) {
            if (i > 0)
                fputc(',', m);
            render(m, &v->items[i]);
        }
        if (v->type == SB_JV_ARRAY && v->n == 0)
            fputs("(empty)", m);
    }
}

/* render into a new string (free it); NULL when out of memory. */
static char *rendered(const struct sb_jv *v)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&buf, &size);

    if (m == NULL)
        return NULL;
    render(m, v);
    if (fclose(m) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static bool skipped(const char *path)
{
    static const char *const skip[] = {
        "options.general.json", "options.general.csv", "options.general.plot",
        "options.general.hgrm", "options.general.log",
        "options.general.verbosity", "options.general.config-file",
    };
    for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
        if (strcmp(path, skip[i]) == 0)
            return true;
    return false;
}

/* Objects are walked; scalars and arrays are fields. */
static int flatten(struct fields *fs, const struct sb_jv *v, const char *path)
{
    char sub[512], key[256], *buf;
    int rc;

    if (v == NULL || skipped(path))
        return 0;
    if (v->type != SB_JV_OBJECT) {
        if ((buf = rendered(v)) == NULL)
            return -1;
        rc = add_field(fs, path, buf);
        free(buf);
        return rc;
    }
    for (size_t i = 0; i < v->n; i++) {
        sb_jv_escape(key, sizeof(key), sb_jv_key(v, i), strlen(sb_jv_key(v, i)));
        snprintf(sub, sizeof(sub), "%s.%s", path, key);
        if (flatten(fs, &v->items[i], sub) != 0)
            return -1;
    }
    return 0;
}

static int load_fields(struct fields *fs, const char *path, char *err, size_t errlen)
{
    struct sb_jv *doc = sb_jv_parse_file(path, err, errlen);
    const char *drv;
    char p[128];
    int rc;

    memset(fs, 0, sizeof(*fs));
    if (doc == NULL)
        return -1;
    drv = sb_jv_str(sb_jv_path(doc, "environment.driver"));
    if (drv == NULL)
        drv = sb_jv_str(sb_jv_path(doc, "options.general.db-driver"));
    snprintf(p, sizeof(p), "options.drivers.%s", drv != NULL ? drv : "");
    rc = flatten(fs, sb_jv_get(doc, "tool"), "tool");
    rc = rc ? rc : flatten(fs, sb_jv_path(doc, "options.general"), "options.general");
    rc = rc ? rc : flatten(fs, sb_jv_path(doc, p), p);
    rc = rc ? rc : flatten(fs, sb_jv_path(doc, "options.script"), "options.script");
    rc = rc ? rc : flatten(fs, sb_jv_get(doc, "environment"), "environment");
    /* A file from before the server was recorded: one line for it, not
     * one per setting of the other files. */
    if (rc == 0)
        rc = add_field(fs, "environment.server",
                       sb_jv_path(doc, "environment.server") == NULL ? NOT_RECORDED
                                                                     : "(recorded)");
    sb_jv_free(doc);
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    return rc;
}

static void free_fields(struct fields *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        free(fs->f[i].path);
        free(fs->f[i].value);
    }
    free(fs->f);
}

static const char *value_of(const struct fields *fs, const char *path)
{
    for (size_t i = 0; i < fs->n; i++)
        if (strcmp(fs->f[i].path, path) == 0)
            return fs->f[i].value;
    return "(absent)";
}

/* The server's own fields: expected to differ when servers are compared. */
static bool server_field(const char *path)
{
    static const char *const suffix[] = {"-host", "-port", "-socket", "-db", "-user"};
    size_t len = strlen(path);

    /* environment.server: its settings and binary (sb_server_info.h). */
    if (strcmp(path, "environment.server_version") == 0 ||
        strncmp(path, "environment.server", 18) == 0 ||
        strcmp(path, "options.general.server-pid") == 0)
        return true;
    if (strncmp(path, "options.drivers.", 16) != 0)
        return false;
    for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
        size_t sl = strlen(suffix[i]);
        if (len > sl && strcmp(path + len - sl, suffix[i]) == 0)
            return true;
    }
    return false;
}

/* A field of environment.server when some file has none: only the
 * missing record is listed. */
static bool server_unrecorded(const struct fields *all, size_t n, const char *path)
{
    if (strncmp(path, "environment.server.", 19) != 0)
        return false;
    for (size_t q = 0; q < n; q++)
        if (strcmp(value_of(&all[q], "environment.server"), NOT_RECORDED) == 0)
            return true;
    return false;
}

/* Whether path appears earlier in any file's list (printed already). */
static bool seen_before(const struct fields *all, size_t r, size_t i)
{
    for (size_t q = 0; q <= r; q++)
        for (size_t j = 0; j < (q == r ? i : all[q].n); j++)
            if (strcmp(all[q].f[j].path, all[r].f[i].path) == 0)
                return true;
    return false;
}

int sb_verdict_print_diffs(FILE *out, const char *const *paths, char *const *labels, size_t n,
                           char *err, size_t errlen)
{
    struct fields *all = calloc(n, sizeof(*all));
    int other = 0, shown = 0;

    if (all == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t r = 0; r < n; r++)
        if (load_fields(&all[r], paths[r], err, errlen) != 0) {
            other = -1;
            goto done;
        }
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < all[r].n; i++) {
            const char *path = all[r].f[i].path, *v0 = value_of(&all[0], path);
            bool differs = false;
            if (seen_before(all, r, i) || server_unrecorded(all, n, path))
                continue;
            for (size_t q = 1; q < n; q++)
                differs = differs || strcmp(value_of(&all[q], path), v0) != 0;
            if (!differs)
                continue;
            if (shown++ == 0)
                fprintf(out, "Differences between the files (options and environment):\n");
            fprintf(out, "  %s%s\n", path, server_field(path) ? "  (server)" : "");
            for (size_t q = 0; q < n; q++)
                fprintf(out, "    %-12s %s\n", labels[q], value_of(&all[q], path));
            other += !server_field(path);
        }
    if (shown == 0)
        fprintf(out, "Options and environment: identical in every file.\n");
    if (other > 0)
        fprintf(out, "WARNING: %d field%s other than the server's differ%s: the files do not "
                "measure the server alone.\n", other, other == 1 ? "" : "s",
                other == 1 ? "s" : "");
    fputc('\n', out);
done:
    for (size_t r = 0; r < n; r++)
        free_fields(&all[r]);
    free(all);
    return other;
}
