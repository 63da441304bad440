/*
 * The --find-max chart (--plot): the SLA percentile and the achieved share
 * of the target against the target rate, on a numeric rate axis, from the
 * "find_max" record of the result document; see sb_plot_findmax in
 * sb_plot.h.
 */
#include "plot/sb_plot_findmax.h"
#include "plot/sb_gnuplot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sb_json_read.h"

#define HELD_RGB 0x2a9d3a
#define MISSED_RGB 0xd62728

/* FILE.png -> FILE-find-max.png; false when path has no .png/.svg. */
static bool chart_name(const char *path, char *buf, size_t len, bool *svg)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');

    if (dot == NULL || (slash != NULL && dot < slash) ||
        (strcasecmp(dot, ".png") != 0 && strcasecmp(dot, ".svg") != 0))
        return false;
    *svg = strcasecmp(dot, ".svg") == 0;
    snprintf(buf, len, "%.*s-find-max%s", (int)(dot - path), path, dot);
    return true;
}

static double num_at(const struct sb_jv *arr, size_t i)
{
    return arr != NULL && arr->type == SB_JV_ARRAY && i < arr->n ? sb_jv_num(&arr->items[i])
                                                                 : NAN;
}

/*
 * The data blocks: $runs, one line per run (target, achieved % of it,
 * latency, colour of the run's own verdict), and $med, one per rate (the
 * medians and the colour of the rate's verdict). Widens [*lo, *hi] to
 * the rates.
 */
static void data_blocks(FILE *f, const struct sb_jv *rates, double ms, double *lo, double *hi)
{
    fputs("$runs << EOD\n", f);
    for (size_t i = 0; rates != NULL && i < rates->n; i++) {
        const struct sb_jv *r = &rates->items[i];
        const struct sb_jv *tps = sb_jv_get(r, "achieved_tps");
        const struct sb_jv *lat = sb_jv_get(r, "latency_ms");
        double t = sb_jv_num(sb_jv_get(r, "target_tps"));
        for (size_t k = 0; tps != NULL && k < tps->n; k++) {
            double a = num_at(tps, k), l = num_at(lat, k);
            bool held = a >= 0.995 * t && l <= ms;
            sb_plot_gp_num(f, t);
            sb_plot_gp_num(f, 100 * a / t);
            sb_plot_gp_num(f, l);
            fprintf(f, " %d\n", held ? HELD_RGB : MISSED_RGB);
        }
        *lo = fmin(*lo, t);
        *hi = fmax(*hi, t);
    }
    fputs("EOD\n$med << EOD\n", f);
    for (size_t i = 0; rates != NULL && i < rates->n; i++) {
        const struct sb_jv *r = &rates->items[i];
        const struct sb_jv *held = sb_jv_get(r, "held");
        double t = sb_jv_num(sb_jv_get(r, "target_tps"));
        sb_plot_gp_num(f, t);
        sb_plot_gp_num(f, 100 * sb_jv_num(sb_jv_get(r, "median_achieved_tps")) / t);
        sb_plot_gp_num(f, sb_jv_num(sb_jv_get(r, "median_latency_ms")));
        bool ok = held != NULL && held->type == SB_JV_BOOL && held->boolean;
        fprintf(f, " %d\n", ok ? HELD_RGB : MISSED_RGB);
    }
    fputs("EOD\n", f);
}

/* The marks both panels share: the bracket shaded, the rate found and
 * the closed-loop throughput as vertical lines. A label goes on the side
 * of its line with more room (right_half: the line is right of centre). */
static void marks(FILE *f, double held, double missed, double closed, bool labels,
                  bool right_half)
{
    const char *side = right_half ? "right offset -0.6,0" : "left offset 0.6,0";

    fputs("unset object\nunset arrow\nunset label\n", f);
    if (held > 0 && missed > 0)
        fprintf(f, "set object 1 rect from first %.10g, graph 0 to first %.10g, graph 1 "
                "fc rgb '#bfe5bf' fs solid 0.6 noborder behind\n", held, missed);
    if (held > 0) {
        fprintf(f, "set arrow 1 from first %.10g, graph 0 to first %.10g, graph 1 nohead "
                "lw 2.5 lc rgb '#2a9d3a' front\n", held, held);
        if (labels && missed > 0)
            fprintf(f, "set label 1 'rate held: %.2f tx/s (capacity below %.2f)' at first "
                    "%.10g, graph 0.93 %s tc rgb '#1d6e29' front\n", held, missed,
                    right_half ? held : missed, side);
        else if (labels)
            fprintf(f, "set label 1 'rate held: %.2f tx/s' at first %.10g, graph 0.93 %s "
                    "tc rgb '#1d6e29' front\n", held, held, side);
    }
    if (closed > 0) {
        fprintf(f, "set arrow 2 from first %.10g, graph 0 to first %.10g, graph 1 nohead "
                "dt 3 lw 1.5 lc rgb '#777777'\n", closed, closed);
        if (labels)
            fprintf(f, "set label 2 'closed loop: %.2f tx/s' at first %.10g, graph 0.06 %s "
                    "tc rgb '#555555'\n", closed, closed, closed > held ? "left offset 0.6,0"
                                                                         : "right offset -0.6,0");
    }
}

/* The gnuplot script: latency over achieved share, rate axis at the bottom. */
static void write_script(FILE *f, const struct sb_jv *fm, const char *name, bool svg)
{
    const struct sb_jv *rates = sb_jv_get(fm, "rates");
    double pct = sb_jv_num(sb_jv_path(fm, "sla.percentile"));
    double ms = sb_jv_num(sb_jv_path(fm, "sla.limit_ms"));
    double held = sb_jv_num(sb_jv_get(fm, "rate_held"));
    double missed = sb_jv_num(sb_jv_get(fm, "lowest_rate_missed"));
    double closed = sb_jv_num(sb_jv_get(fm, "closed_loop_tps"));
    double lo = INFINITY, hi = 0;
    char title[256];

    data_blocks(f, rates, ms, &lo, &hi);
    if (closed > 0) {
        lo = fmin(lo, closed);
        hi = fmax(hi, closed);
    }
    if (!(hi > 0)) {
        lo = 0;
        hi = 1;
    }
    if (svg)
        fputs("set terminal svg noenhanced size 1000,900 dynamic font 'DejaVu Sans,12' "
              "background rgb 'white'\n", f);
    else
        fputs("set terminal pngcairo noenhanced size 1000,900 font 'DejaVu Sans,11' "
              "background rgb 'white'\n", f);
    fputs("set output ", f);
    sb_plot_gp_path(f, name);
    snprintf(title, sizeof(title), "Find-max: SLA p%g <= %g ms (open: one run, filled: median "
             "of the runs; green held, red missed)", pct, ms);
    fputs("\nset multiplot layout 2,1 title ", f);
    sb_plot_gp_str(f, title);
    fprintf(f, " font ',13'\nset border 3 lc rgb '#555555'\nset tics nomirror out\n"
            "set grid xtics ytics lt 1 lc rgb '#d9d9d9'\nset lmargin 12\n"
            "set key below horizontal\n"
            "set xrange [%.10g:%.10g]\n", lo - (hi - lo) * 0.06 - 1e-9,
            hi + (hi - lo) * 0.06 + 1e-9);
    marks(f, held, missed, closed, true, held > (lo + hi) / 2);
    fprintf(f, "set logscale y\nset ylabel 'p%g response time (ms)'\n", pct);
    fprintf(f, "plot $med using 1:3 with lines lw 1.5 lc rgb '#999999' notitle, \\\n"
            "     $runs using 1:3:4 with points pt 6 ps 1.2 lc rgb variable notitle, \\\n"
            "     $med using 1:3:4 with points pt 7 ps 1.6 lc rgb variable notitle, \\\n"
            "     %.10g with lines dt 2 lw 2 lc rgb '#d62728' title 'SLA: p%g <= %g ms'\n",
            ms, pct, ms);
    marks(f, held, missed, closed, false, false);
    fputs("unset logscale y\nset ylabel 'achieved (% of the target)'\n"
          "set xlabel 'target rate (transactions per second)'\n", f);
    fputs("plot $med using 1:2 with lines lw 1.5 lc rgb '#999999' notitle, \\\n"
          "     $runs using 1:2:4 with points pt 6 ps 1.2 lc rgb variable notitle, \\\n"
          "     $med using 1:2:4 with points pt 7 ps 1.6 lc rgb variable notitle, \\\n"
          "     99.5 with lines dt 2 lw 2 lc rgb '#d62728' title 'held needs >= 99.5%'\n"
          "unset multiplot\n", f);
}

static void write_findmax(FILE *f, const void *fm, const char *name, bool svg)
{
    write_script(f, fm, name, svg);
}

int sb_plot_findmax(const struct sb_jv *fm, const char *path, FILE *out, char *err,
                    size_t errlen)
{
    char name[PATH_MAX], kept[PATH_MAX + 32] = "";
    bool svg;

    if (!chart_name(path, name, sizeof(name), &svg)) {
        snprintf(err, errlen, "invalid value '%s' for --plot", path);
        return -1;
    }
    if (sb_gnuplot_render(name, svg, "findmax.gp", write_findmax, fm, kept, sizeof(kept), err,
                          errlen) != 0)
        return -1;
    if (out != NULL) {
        fprintf(out, "Find-max chart written: %s\n", name);
        if (kept[0] != '\0')
            fprintf(out, "gnuplot script kept in %s\n", kept);
        fflush(out);
    }
    return 0;
}
