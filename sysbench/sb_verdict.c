/*
 * compare's verdicts and the differing options; see sb_verdict.h.
 */
#include "config.h"

#include "sb_verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sb_histogram.h"
#include "sb_json_read.h"

/* Most runs or intervals used per side. */
#define MAX_SAMPLES 4096

static size_t usable(const double *v, size_t n)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++)
        k += isfinite(v[i]) && v[i] > 0;
    return k;
}

/* The interval from batch means of the two interval series, centred on
 * the ratio of the whole-run figures. */
static bool judge_batches(const struct sb_point *a, const struct sb_point *b,
                          enum sb_result_fig f, double pct, struct sb_verdict *out)
{
    static double xa[MAX_SAMPLES], xb[MAX_SAMPLES], ba[MAX_SAMPLES], bb[MAX_SAMPLES];
    size_t na = sb_result_fig_intervals(a, f, pct, xa, MAX_SAMPLES);
    size_t nb = sb_result_fig_intervals(b, f, pct, xb, MAX_SAMPLES);
    double centre = sb_result_fig(b, f, pct) / sb_result_fig(a, f, pct);
    struct sb_ci_ratio r;

    if (usable(xa, na) < 4 || usable(xb, nb) < 4 || !(isfinite(centre) && centre > 0))
        return false;
    na = sb_ci_batch_means(xa, na, ba);
    nb = sb_ci_batch_means(xb, nb, bb);
    if (sb_ci_ratio_welch(ba, na, bb, nb, &r) != 0)
        return false;
    out->r = r;
    out->r.lo = centre * r.lo / r.ratio;
    out->r.hi = centre * r.hi / r.ratio;
    out->r.ratio = centre;
    out->method = SB_VERDICT_BATCHES;
    return true;
}

void sb_verdict_judge(const struct sb_point *a, const struct sb_point *b,
                      enum sb_result_fig f, double pct, bool higher_is_better,
                      struct sb_verdict *out)
{
    static double va[MAX_SAMPLES], vb[MAX_SAMPLES];
    size_t na = sb_result_fig_runs(a, f, pct, va, MAX_SAMPLES);
    size_t nb = sb_result_fig_runs(b, f, pct, vb, MAX_SAMPLES);

    memset(out, 0, sizeof(*out));
    out->r.ratio = out->r.lo = out->r.hi = out->r.df = NAN;
    if (usable(va, na) >= 2 && usable(vb, nb) >= 2) {
        sb_ci_ratio_welch(va, na, vb, nb, &out->r);
        out->method = SB_VERDICT_REPEATS;
    } else if (!judge_batches(a, b, f, pct, out)) {
        double x = sb_result_fig_median(a, f, pct), y = sb_result_fig_median(b, f, pct);
        out->r.ratio = x > 0 && isfinite(y) ? y / x : NAN;
    }
    if (f == SB_RESULT_LATENCY && out->method != SB_VERDICT_NONE) {
        /* Each side is a bucket bound: the true ratio may be off by the
         * bucket width of either. */
        double w = 1 + 1.0 / (double)(1u << SB_HIST_SUB_BITS);
        out->r.lo /= w;
        out->r.hi *= w;
    }
    out->v = sb_ci_judge(&out->r, higher_is_better);
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

/* A scalar or an array of scalars as text. */
static void render(const struct sb_jv *v, char *buf, size_t len)
{
    size_t used = 0;

    switch (v->type) {
    case SB_JV_NULL:
        snprintf(buf, len, "null");
        break;
    case SB_JV_BOOL:
        snprintf(buf, len, "%s", v->boolean ? "true" : "false");
        break;
    case SB_JV_NUMBER:
        snprintf(buf, len, "%.15g", v->number);
        break;
    case SB_JV_STRING:
        snprintf(buf, len, "%s", v->string);
        break;
    default:
        buf[0] = '\0';
        for (size_t i = 0; i < v->n && used + 1 < len; i++) {
            char item[256];
            render(&v->items[i], item, sizeof(item));
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "", item);
        }
        if (v->type == SB_JV_ARRAY && v->n == 0)
            snprintf(buf, len, "(empty)");
    }
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
    char buf[1024], sub[512];

    if (v == NULL || skipped(path))
        return 0;
    if (v->type != SB_JV_OBJECT) {
        render(v, buf, sizeof(buf));
        return add_field(fs, path, buf);
    }
    for (size_t i = 0; i < v->n; i++) {
        snprintf(sub, sizeof(sub), "%s.%s", path, v->keys[i]);
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
