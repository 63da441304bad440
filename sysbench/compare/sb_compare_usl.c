/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The USL fits of the compared files, side by side; see sb_compare_usl.h.
 */
#include "compare/sb_compare_usl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_json_read.h"

/* The parameters in the record's names, and as the table shows them. */
static const char *const par_key[SB_COMPARE_USL_NPAR] = {"lambda", "sigma", "kappa",
                                                         "peak_threads", "peak_tps"};
static const char *const par_name[SB_COMPARE_USL_NPAR] = {"lambda (tps)", "sigma", "kappa",
                                                          "N* (threads)", "X(N*) (tps)"};

int sb_compare_usl_load(struct sb_compare_usl *u, const char *const *paths, size_t n, char *err,
                        size_t errlen)
{
    memset(u, 0, sizeof(*u));
    u->n = n;
    u->has = calloc(n + 1, sizeof(*u->has));
    u->poor = calloc(n + 1, sizeof(*u->poor));
    u->r2 = calloc(n + 1, sizeof(*u->r2));
    u->par = calloc(n * SB_COMPARE_USL_NPAR + 1, sizeof(*u->par));
    if (u->has == NULL || u->poor == NULL || u->r2 == NULL || u->par == NULL) {
        sb_compare_usl_free(u);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        struct sb_jv *doc = sb_jv_parse_file(paths[i], err, errlen);
        const struct sb_jv *r, *poor;

        if (doc == NULL) {
            sb_compare_usl_free(u);
            return -1;
        }
        r = sb_jv_get(doc, "usl");
        if (r != NULL && r->type == SB_JV_OBJECT) {
            u->has[i] = true;
            u->nfits++;
            for (size_t k = 0; k < SB_COMPARE_USL_NPAR; k++)
                u->par[i * SB_COMPARE_USL_NPAR + k] = sb_jv_num(sb_jv_get(r, par_key[k]));
            u->r2[i] = sb_jv_num(sb_jv_get(r, "r2"));
            poor = sb_jv_get(r, "poor");
            u->poor[i] = poor != NULL && poor->type == SB_JV_BOOL && poor->boolean;
        }
        sb_jv_free(doc);
    }
    return 0;
}

void sb_compare_usl_free(struct sb_compare_usl *u)
{
    free(u->has);
    free(u->poor);
    free(u->r2);
    free(u->par);
    memset(u, 0, sizeof(*u));
}

/* File i's parameter k over the first file's: NaN when either is missing
 * or the first is 0 (sigma or kappa 0: no ratio). */
static double ratio(const struct sb_compare_usl *u, size_t i, size_t k)
{
    double a = u->par[k], b = u->par[i * SB_COMPARE_USL_NPAR + k];

    if (!u->has[0] || !u->has[i] || !isfinite(a) || !isfinite(b) || a == 0)
        return NAN;
    return b / a;
}

static void cell(FILE *out, double v, bool has)
{
    if (!has)
        fprintf(out, " %12s", "no fit");
    else if (!isfinite(v))
        fprintf(out, " %12s", "none");
    else
        fprintf(out, " %12.4g", v);
}

void sb_compare_usl_print(FILE *out, const struct sb_compare_usl *u, char *const *labels)
{
    if (u->nfits == 0)
        return;
    fprintf(out, "Universal Scalability Law fits of the thread sweeps: point estimates (one fit "
            "per file, no interval), so a ratio below is no verdict; N* 'none' is no peak "
            "(kappa 0), X(N*) then the level throughput tends to.\n");
    fprintf(out, "%-14s", "");
    for (size_t i = 0; i < u->n; i++)
        fprintf(out, " %12.12s", labels[i]);
    for (size_t i = 1; i < u->n; i++)
        fprintf(out, " %8.8s/%-3.3s", labels[i], labels[0]);
    fputc('\n', out);
    for (size_t k = 0; k < SB_COMPARE_USL_NPAR; k++) {
        fprintf(out, "%-14s", par_name[k]);
        for (size_t i = 0; i < u->n; i++)
            cell(out, u->par[i * SB_COMPARE_USL_NPAR + k], u->has[i]);
        for (size_t i = 1; i < u->n; i++) {
            double r = ratio(u, i, k);
            if (isfinite(r))
                fprintf(out, " %11.3fx", r);
            else
                fprintf(out, " %12s", "n/a");
        }
        fputc('\n', out);
    }
    fprintf(out, "%-14s", "R^2");
    for (size_t i = 0; i < u->n; i++)
        cell(out, u->r2[i], u->has[i]);
    fputc('\n', out);
    for (size_t i = 0; i < u->n; i++) {
        if (!u->has[i])
            fprintf(out, "%s has no fit: its sweep has fewer than 4 thread counts, or is not "
                    "closed loop.\n", labels[i]);
        else if (u->poor[i])
            fprintf(out, "%s's fit is poor: its parameters are not to be trusted.\n",
                    labels[i]);
    }
    fputc('\n', out);
    fflush(out);
}

void sb_compare_usl_json(struct sb_json *j, const struct sb_compare_usl *u, char *const *labels)
{
    if (u->nfits < 2 || !u->has[0]) {
        sb_json_kv_null(j, "usl");
        return;
    }
    sb_json_key(j, "usl");
    sb_json_begin_object(j);
    sb_json_kv_bool(j, "point_estimates", true);
    sb_json_kv_null(j, "interval");
    sb_json_key(j, "files");
    sb_json_begin_array(j);
    for (size_t i = 0; i < u->n; i++) {
        sb_json_begin_object(j);
        sb_json_kv_string(j, "label", labels[i]);
        sb_json_kv_bool(j, "fit", u->has[i]);
        for (size_t k = 0; k < SB_COMPARE_USL_NPAR && u->has[i]; k++)
            sb_json_kv_double(j, par_key[k], u->par[i * SB_COMPARE_USL_NPAR + k]);
        if (u->has[i]) {
            sb_json_kv_double(j, "r2", u->r2[i]);
            sb_json_kv_bool(j, "poor", u->poor[i]);
        }
        /* Against the first file; null where there is no ratio. */
        sb_json_key(j, "ratio");
        sb_json_begin_object(j);
        for (size_t k = 0; k < SB_COMPARE_USL_NPAR; k++)
            sb_json_kv_double(j, par_key[k], i == 0 ? 1.0 : ratio(u, i, k));
        sb_json_end_object(j);
        sb_json_end_object(j);
    }
    sb_json_end_array(j);
    sb_json_end_object(j);
}
