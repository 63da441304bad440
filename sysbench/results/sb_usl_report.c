/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The USL fit and the --threads=auto search in text and JSON; see
 * sb_usl_report.h.
 */
#include "results/sb_usl_report.h"

#include <math.h>

#include "config/sb_config.h"
#include "results/sb_point_result.h"
#include "results/sb_result_writer.h"

bool sb_usl_report_fit(const struct sb_result_writer *o, struct sb_usl_fit *fit)
{
    double n[SB_USL_MAX_POINTS], x[SB_USL_MAX_POINTS];
    size_t count = 0;

    for (size_t i = 0; i < o->npoints; i++) {
        const struct sb_point_result *p = &o->points[i];
        double tps;

        if (!sb_point_result_complete(p))
            continue;
        /* Paced points measure the pace, not what the threads can do. */
        if (p->cfg.mode != SB_PACE_NONE)
            return false;
        tps = sb_point_result_tps(p);
        if (!(tps > 0) || count == SB_USL_MAX_POINTS)
            continue;
        n[count] = p->cfg.threads;
        x[count++] = tps;
    }
    return sb_usl_fit(n, x, count, fit) == 0;
}

static const char *peak_name(enum sb_usl_peak p)
{
    switch (p) {
    case SB_USL_PEAK_INSIDE:
        return "inside";
    case SB_USL_PEAK_ABOVE:
        return "above";
    case SB_USL_PEAK_BELOW:
        return "below";
    case SB_USL_PEAK_NONE:
        break;
    }
    return "none";
}

void sb_usl_report_print(const struct sb_usl_fit *f, FILE *out)
{
    fprintf(out, "Universal Scalability Law fit (%zu runs, %g to %g threads):\n", f->n,
            f->min_threads, f->max_threads);
    fprintf(out, "    lambda %.2f tps per thread, sigma %.4g (contention), kappa %.4g (coherency)\n",
            f->lambda, f->sigma, f->kappa);
    if (f->peak == SB_USL_PEAK_NONE && isinf(f->peak_tps))
        fprintf(out, "    no peak (sigma and kappa 0): throughput grows linearly\n");
    else if (f->peak == SB_USL_PEAK_NONE)
        fprintf(out, "    no peak (kappa 0): throughput levels off towards %.2f tps\n",
                f->peak_tps);
    else
        fprintf(out, "    peak N* = %.1f threads, X(N*) = %.2f tps\n", f->peak_threads,
                f->peak_tps);
    fprintf(out, "    R^2 %.4f, largest relative residual %.1f%% (at %g threads)\n", f->r2,
            100 * f->max_rel_residual, f->worst_threads);
    if (f->poor)
        fprintf(out, "    The fit is poor (R^2 below %.2g or a run more than %.0f%% off the curve): "
                "these runs do not follow the model, and N* and X(N*) are not to be trusted.\n",
                SB_USL_POOR_R2, 100 * SB_USL_POOR_RESIDUAL);
    if (f->peak == SB_USL_PEAK_ABOVE)
        fprintf(out, "    N* lies beyond the largest count measured (%g threads): it is an "
                "extrapolation, which runs at higher counts would confirm or not.\n",
                f->max_threads);
    else if (f->peak == SB_USL_PEAK_BELOW)
        fprintf(out, "    N* lies below the smallest count measured (%g threads): fewer threads "
                "would give more throughput.\n", f->min_threads);
    else if (f->peak == SB_USL_PEAK_NONE)
        fprintf(out, "    No peak within reach: throughput still grows at %g threads, so the "
                "counts measured do not show where it would turn down.\n", f->max_threads);
    fputc('\n', out);
    fflush(out);
}

void sb_usl_report_json(struct sb_json *j, const struct sb_usl_fit *f)
{
    sb_json_key(j, "usl");
    sb_json_begin_object(j);
    sb_json_kv_uint(j, "points", f->n);
    sb_json_kv_double(j, "min_threads", f->min_threads);
    sb_json_kv_double(j, "max_threads", f->max_threads);
    sb_json_kv_double(j, "lambda", f->lambda);
    sb_json_kv_double(j, "sigma", f->sigma);
    sb_json_kv_double(j, "kappa", f->kappa);
    /* Infinite without a peak: written as null. */
    sb_json_kv_double(j, "peak_threads", f->peak_threads);
    sb_json_kv_double(j, "peak_tps", f->peak_tps);
    sb_json_kv_string(j, "peak", peak_name(f->peak));
    sb_json_kv_double(j, "r2", f->r2);
    sb_json_kv_double(j, "max_rel_residual", f->max_rel_residual);
    sb_json_kv_double(j, "worst_threads", f->worst_threads);
    sb_json_kv_bool(j, "poor", f->poor);
    sb_json_end_object(j);
}

const char *sb_peak_report_end(const struct sb_peak *s)
{
    switch (s->end) {
    case SB_PEAK_NARROW:
        return "the bracket around the best is within 25% in threads";
    case SB_PEAK_FLAT:
        return "the counts around the best are within the noise of it";
    case SB_PEAK_BUDGET:
        return "the next run would have overrun --budget";
    case SB_PEAK_NO_SLA:
        return "even 1 thread missed the --sla";
    case SB_PEAK_NOTHING:
        return "1 thread ran no transaction";
    case SB_PEAK_FULL:
        return "it measured as many thread counts as it keeps";
    case SB_PEAK_GOING:
        break;
    }
    return "it was stopped";
}

static const char *end_key(enum sb_peak_end e)
{
    static const char *const k[] = {"stopped", "narrow", "flat", "budget", "no_sla", "nothing",
                                    "full"};
    return (size_t)e < sizeof(k) / sizeof(k[0]) ? k[e] : "stopped";
}

void sb_peak_report_print(const struct sb_peak *s, const struct sb_usl_fit *fit, FILE *out)
{
    const struct sb_peak_point *b = sb_peak_point_of(s, s->best);
    bool sla = s->par.sla_ms > 0;
    char lat[32];

    fprintf(out, "\n--threads=auto: %zu run(s) at %zu thread count(s), medians:\n", s->nruns,
            s->npts);
    snprintf(lat, sizeof(lat), "p%g ms", sla ? s->par.sla_pct : SB_PEAK_REPORT_PCT);
    fprintf(out, "%8s %5s %12s %12s%s\n", "threads", "runs", "tps", lat,
            fit != NULL ? "      usl fit" : "");
    for (size_t i = 0; i < s->npts; i++) {
        const struct sb_peak_point *p = &s->pts[i];
        fprintf(out, "%8u %5u %12.2f %12.2f", p->threads, p->runs, p->median_tps,
                p->median_latency_ms);
        if (fit != NULL)
            fprintf(out, " %12.2f", sb_usl_eval(fit, p->threads));
        fprintf(out, "%s%s\n", p->threads == s->best ? "  <- best" : "",
                sla && !p->within_sla ? "  (misses the SLA)" : "");
    }
    if (b != NULL)
        fprintf(out, "Peak: %u threads, %.2f tps (median of %u run(s)); measured neighbours %u "
                "and %u threads; stopped because %s.\n", s->best, b->median_tps, b->runs,
                s->lo, s->hi, sb_peak_report_end(s));
    else
        fprintf(out, "No peak found: %s.\n", sb_peak_report_end(s));
    fputc('\n', out);
    fflush(out);
}

static void json_doubles(struct sb_json *j, const char *key, const double *v, unsigned n)
{
    sb_json_key(j, key);
    sb_json_begin_array_inline(j);
    for (unsigned i = 0; i < n; i++)
        sb_json_double(j, v[i]);
    sb_json_end_array(j);
}

void sb_peak_report_json(struct sb_json *j, const struct sb_peak *s)
{
    sb_json_key(j, "threads_auto");
    sb_json_begin_object(j);
    sb_json_kv_uint(j, "max_threads", s->par.max_threads);
    if (s->par.sla_ms > 0) {
        sb_json_key(j, "sla");
        sb_json_begin_object(j);
        sb_json_kv_double(j, "percentile", s->par.sla_pct);
        sb_json_kv_double(j, "limit_ms", s->par.sla_ms);
        sb_json_end_object(j);
    } else {
        sb_json_kv_null(j, "sla");
    }
    sb_json_kv_double(j, "budget_s", s->par.budget_s > 0 ? s->par.budget_s : NAN);
    sb_json_kv_double(j, "latency_percentile",
                      s->par.sla_ms > 0 ? s->par.sla_pct : SB_PEAK_REPORT_PCT);
    sb_json_kv_bool(j, "complete", s->end != SB_PEAK_GOING);
    sb_json_kv_string(j, "end", end_key(s->end));
    if (s->best > 0) {
        sb_json_kv_uint(j, "best_threads", s->best);
        sb_json_kv_double(j, "best_tps", sb_peak_point_of(s, s->best)->median_tps);
        sb_json_kv_uint(j, "lo_threads", s->lo);
        sb_json_kv_uint(j, "hi_threads", s->hi);
    } else {
        sb_json_kv_null(j, "best_threads");
        sb_json_kv_null(j, "best_tps");
        sb_json_kv_null(j, "lo_threads");
        sb_json_kv_null(j, "hi_threads");
    }
    sb_json_kv_uint(j, "runs", s->nruns);
    sb_json_key(j, "order");
    sb_json_begin_array_inline(j);
    for (size_t i = 0; i < s->nruns && i < SB_PEAK_MAX_ORDER; i++)
        sb_json_uint(j, s->order[i]);
    sb_json_end_array(j);
    sb_json_key(j, "counts");
    sb_json_begin_array(j);
    for (size_t i = 0; i < s->npts; i++) {
        const struct sb_peak_point *p = &s->pts[i];
        sb_json_begin_object(j);
        sb_json_kv_uint(j, "threads", p->threads);
        sb_json_kv_uint(j, "runs", p->runs);
        json_doubles(j, "tps", p->tps, p->runs);
        json_doubles(j, "latency_ms", p->latency_ms, p->runs);
        sb_json_kv_double(j, "median_tps", p->median_tps);
        sb_json_kv_double(j, "median_latency_ms", p->median_latency_ms);
        sb_json_kv_bool(j, "within_sla", p->within_sla);
        sb_json_end_object(j);
    }
    sb_json_end_array(j);
    sb_json_end_object(j);
}
