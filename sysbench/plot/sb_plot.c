/*
 * Charts with gnuplot; see sb_plot.h.
 *
 * One gnuplot script draws all four charts. The data go into the script
 * as inline data blocks ($name << EOD ... EOD), so the private temporary
 * directory holds just the script and gnuplot's error output. Text is
 * drawn with enhanced mode off: script names such as oltp_read_write
 * would otherwise turn into subscripts.
 */
#include "config.h"

#include "plot/sb_plot.h"
#include "plot/sb_gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Line and bar colours, distinguishable in colour and in grey. */
static const char *const palette[] = {
    "#1f6fb4", "#d62728", "#2a9d3a", "#ef8a17", "#7b4fb3", "#8c564b", "#d357b0", "#17a2b8"
};
#define NCOLORS (sizeof(palette) / sizeof(palette[0]))

/* Most panels of the latency chart; more points are thinned evenly. */
#define MAX_PANELS 6

static const char *const chart_names[SB_PLOT_NCHARTS + 1] = {
    "throughput", "relative", "cpu", "latency", "latency-throughput"
};

/* One invocation's charts. */
struct plot {
    FILE *gp;                          /* the script being written */
    const struct sb_resfile *res;
    size_t n;
    const struct sb_resfile_grid *g;
    bool svg;
    char out[SB_PLOT_NCHARTS + 1][PATH_MAX]; /* the files to write */
    int ncharts;                       /* SB_PLOT_NCHARTS, one more with rates */
};

/* ------------------------------------------------------------ files and names */

/* Splits path into its stem and extension (".png", ".svg", any case).
 * Returns 0, or -1 when the extension is neither. */
static int split_path(const char *path, char *stem, size_t len, const char **ext, bool *svg)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');

    if (dot == NULL || (slash != NULL && dot < slash) || dot == path || dot[-1] == '/' ||
        (strcasecmp(dot, ".png") != 0 && strcasecmp(dot, ".svg") != 0))
        return -1;
    if ((size_t)(dot - path) + 1 > len)
        return -1;
    memcpy(stem, path, (size_t)(dot - path));
    stem[dot - path] = '\0';
    *ext = dot;
    *svg = strcasecmp(dot, ".svg") == 0;
    return 0;
}

int sb_plot_check(const char *path, char *err, size_t errlen)
{
    char stem[PATH_MAX], dir[PATH_MAX], prog[PATH_MAX];
    const char *ext, *slash;
    bool svg;

    if (split_path(path, stem, sizeof(stem), &ext, &svg) != 0) {
        snprintf(err, errlen, "invalid value '%s' for --plot: expected a file name ending in .png or .svg",
                 path);
        return -1;
    }
    slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(dir, sizeof(dir), ".");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) + (slash == path), path);
    if (access(dir, W_OK) != 0) {
        snprintf(err, errlen, "cannot write the --plot charts to '%s': %s", dir, strerror(errno));
        return -1;
    }
    if (sb_plot_find_gnuplot(prog, sizeof(prog)) != 0) {
        snprintf(err, errlen, "--plot needs gnuplot, which was not found (looked for '%s'); "
                 "install it (Debian: apt-get install gnuplot-nox) or set SB_GNUPLOT", prog);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ chart helpers */

/* The complete point of result r at key k, or NULL: a gap in the chart. */
static const struct sb_point *cell(const struct plot *pl, size_t r, size_t k)
{
    return sb_resfile_grid_cell(pl->g, r, k);
}

/* The response-time histogram of point p (NULL allowed), or NULL when p
 * has none (a file without buckets): no latency distribution to draw. */
static const struct sb_hist *response_hist(const struct sb_point *p)
{
    return p != NULL && p->total != NULL && p->total->response.total > 0 ? &p->total->response
                                                                         : NULL;
}

/* The script name for titles when every file ran the same one. */
static const char *common_script(const struct plot *pl)
{
    for (size_t r = 1; r < pl->n; r++)
        if (strcmp(pl->res[r].script, pl->res[0].script) != 0)
            return "";
    return pl->res[0].script;
}

/* Starts a chart: resets gnuplot's settings, selects the terminal and the
 * output, and sets what every chart shares. */
static void begin_chart(struct plot *pl, int which, int w, int h, const char *title)
{
    FILE *f = pl->gp;
    const char *script = common_script(pl);

    fputs("reset\n", f);
    if (pl->svg)
        fprintf(f, "set terminal svg noenhanced size %d,%d dynamic font 'DejaVu Sans,12' background rgb 'white'\n",
                w, h);
    else
        fprintf(f, "set terminal pngcairo noenhanced size %d,%d font 'DejaVu Sans,11' background rgb 'white'\n",
                w, h);
    fputs("set encoding utf8\nset output ", f);
    sb_plot_gp_path(f, pl->out[which]);
    fputs("\nset title ", f);
    {
        char t[512];
        if (*script)
            snprintf(t, sizeof(t), "%s: %s", title, script);
        else
            snprintf(t, sizeof(t), "%s", title);
        sb_plot_gp_str(f, t);
    }
    fputs(" font ',14'\n", f);
    fputs("set border 3 lc rgb '#555555'\nset tics nomirror out\n"
          "set grid ytics lt 1 lc rgb '#d9d9d9' lw 1\n"
          "set bmargin 6\nset key at screen 0.5, screen 0.02 center bottom horizontal samplen 3\n", f);
}

/* Ticks on the x axis: one per key, at 0, 1, 2, ... */
static void key_xtics(struct plot *pl)
{
    char name[64];

    fprintf(pl->gp, "set xrange [-0.5:%zu.5]\nset xtics (", pl->g->nkeys - 1);
    for (size_t k = 0; k < pl->g->nkeys; k++) {
        sb_resfile_key_name(pl->g, k, name, sizeof(name));
        fprintf(pl->gp, "%s", k ? ", " : "");
        sb_plot_gp_str(pl->gp, name);
        fprintf(pl->gp, " %zu", k);
    }
    fputs(")\nset xlabel ", pl->gp);
    sb_plot_gp_str(pl->gp, sb_resfile_grid_axis(pl->g));
    fputc('\n', pl->gp);
}

/* The title of a key in legends and panel titles: "4 threads". */
static void key_title(const struct plot *pl, size_t k, char *buf, size_t len)
{
    const struct sb_resfile_key *key = &pl->g->keys[k];
    char rate[64] = "";

    if (key->rate_mode != SB_PACE_NONE)
        snprintf(rate, sizeof(rate), " at %g tx/s", key->target_tps);
    snprintf(buf, len, "%u thread%s%s", key->threads, key->threads == 1 ? "" : "s", rate);
    if (key->occurrence > 0) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, " (#%u)", key->occurrence + 1);
    }
}

/* ------------------------------------------------------------ the charts */

/* Whether some point of some result has two or more runs (--repeat). */
static bool any_repeats(const struct plot *pl)
{
    for (size_t k = 0; k < pl->g->nkeys; k++)
        for (size_t r = 0; r < pl->n; r++) {
            const struct sb_point *p = cell(pl, r, k);
            if (p != NULL && p->nreps > 1)
                return true;
        }
    return false;
}

/* The median throughput of point p's runs; NaN for a gap. */
static double tps_of(const struct sb_point *p)
{
    return p != NULL ? sb_result_fig_median(p, SB_RESULT_TPS, 0) : NAN;
}

/* The slowest and the fastest run of point p (NaN when none). */
static void tps_range(const struct sb_point *p, double *lo, double *hi)
{
    double v[1024];
    size_t n = p != NULL ? sb_result_fig_runs(p, SB_RESULT_TPS, 0, v, 1024) : 0;

    *lo = *hi = NAN;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        *lo = isnan(*lo) || v[i] < *lo ? v[i] : *lo;
        *hi = isnan(*hi) || v[i] > *hi ? v[i] : *hi;
    }
}

/*
 * A sweep of target rates at one thread count (--tx-rate lists, a
 * --find-max search): throughput against the target on a numeric axis,
 * where uneven rates (a bisection's) keep their true spacing, with the
 * line achieved = target and each result's closed-loop throughput as a
 * dotted level.
 */
static void chart_throughput_rates(struct plot *pl, bool bars)
{
    FILE *f = pl->gp;

    begin_chart(pl, 0, 1000, 620, "Throughput by target rate");
    fputs("set xlabel 'target rate (tx/s)'\nset ylabel ", f);
    sb_plot_gp_str(f, bars ? "transactions per second (median; bars: min to max of the runs)"
                   : "transactions per second");
    fputs("\nset yrange [0:*]\nset offsets graph 0.03, graph 0.03, graph 0.08, 0\n", f);
    for (size_t r = 0; r < pl->n; r++) {
        fprintf(f, "$tr%zu << EOD\n", r);
        for (size_t k = 0; k < pl->g->nkeys; k++) {
            const struct sb_point *p = cell(pl, r, k);
            double lo, hi;
            if (p == NULL || !sb_pace_rated(pl->g->keys[k].rate_mode))
                continue;
            tps_range(p, &lo, &hi);
            sb_plot_gp_num(f, pl->g->keys[k].target_tps);
            sb_plot_gp_num(f, tps_of(p));
            sb_plot_gp_num(f, lo);
            sb_plot_gp_num(f, hi);
            fputc('\n', f);
        }
        fputs("EOD\n", f);
    }
    fputs("plot x with lines dt 2 lw 1.5 lc rgb '#888888' title 'achieved = target'", f);
    for (size_t r = 0; r < pl->n; r++) {
        const char *c = palette[r % NCOLORS];
        fprintf(f, ", \\\n     $tr%zu using 1:2%s with %s lw 2.5 pt 7 ps 1.1 lc rgb '%s' title ",
                r, bars ? ":3:4" : "", bars ? "yerrorlines" : "linespoints", c);
        sb_plot_gp_str(f, pl->res[r].label);
        for (size_t k = 0; k < pl->g->nkeys; k++) {
            const struct sb_point *p = cell(pl, r, k);
            char t[256];
            if (p == NULL || sb_pace_rated(pl->g->keys[k].rate_mode) || isnan(tps_of(p)))
                continue;
            snprintf(t, sizeof(t), "%s closed loop", pl->res[r].label);
            fprintf(f, ", \\\n     %.10g with lines dt 3 lw 2 lc rgb '%s' title ", tps_of(p), c);
            sb_plot_gp_str(f, t);
            break;
        }
    }
    fputc('\n', f);
}

/* Throughput by point: the median of the runs, with error bars from the
 * slowest to the fastest run when there are repeats. */
static void chart_throughput(struct plot *pl)
{
    FILE *f = pl->gp;
    bool bars = any_repeats(pl);

    if (pl->g->any_rated && pl->g->rates_vary && !pl->g->threads_vary) {
        chart_throughput_rates(pl, bars);
        return;
    }

    begin_chart(pl, 0, 1000, 620, pl->g->rates_vary && !pl->g->threads_vary ?
                "Throughput by target rate" : "Throughput by threads");
    key_xtics(pl);
    fputs("set ylabel ", f);
    sb_plot_gp_str(f, bars ? "transactions per second (median; bars: min to max of the runs)"
                   : "transactions per second");
    fputs("\nset yrange [0:*]\nset offsets 0, 0, graph 0.08, 0\n$tps << EOD\n", f);
    for (size_t k = 0; k < pl->g->nkeys; k++) {
        fprintf(f, "%zu", k);
        for (size_t r = 0; r < pl->n; r++) {
            const struct sb_point *p = cell(pl, r, k);
            double v[1024], lo = NAN, hi = NAN;
            size_t n = p != NULL ? sb_result_fig_runs(p, SB_RESULT_TPS, 0, v, 1024) : 0;
            for (size_t i = 0; i < n; i++) {
                if (isnan(v[i]))
                    continue;
                lo = isnan(lo) || v[i] < lo ? v[i] : lo;
                hi = isnan(hi) || v[i] > hi ? v[i] : hi;
            }
            sb_plot_gp_num(f, tps_of(p));
            sb_plot_gp_num(f, lo);
            sb_plot_gp_num(f, hi);
        }
        fputc('\n', f);
    }
    fputs("EOD\nplot ", f);
    for (size_t r = 0; r < pl->n; r++) {
        if (bars)
            fprintf(f, "%s$tps using 1:%zu:%zu:%zu with yerrorlines lw 2.5 pt 7 ps 1.3 lc rgb '%s' title ",
                    r ? ", \\\n     " : "", 3 * r + 2, 3 * r + 3, 3 * r + 4, palette[r % NCOLORS]);
        else
            fprintf(f, "%s$tps using 1:%zu with linespoints lw 2.5 pt 7 ps 1.3 lc rgb '%s' title ",
                    r ? ", \\\n     " : "", 3 * r + 2, palette[r % NCOLORS]);
        sb_plot_gp_str(f, pl->res[r].label);
    }
    fputc('\n', f);
}

/* Response time against achieved throughput over the rated points (a
 * --tx-rate sweep, a --find-max search): where latency turns up is the
 * capacity. Medians of the runs; one line per result and percentile. */
static void chart_latency_throughput(struct plot *pl)
{
    static const double pcts[] = {50, 99};
    FILE *f = pl->gp;

    begin_chart(pl, SB_PLOT_NCHARTS, 1000, 620, "Response time against throughput");
    fputs("set xlabel 'achieved transactions per second'\n"
          "set ylabel 'response time (ms)'\nset logscale y\n", f);
    for (size_t r = 0; r < pl->n; r++) {
        fprintf(f, "$lt%zu << EOD\n", r);
        for (size_t k = 0; k < pl->g->nkeys; k++) {
            const struct sb_point *p = cell(pl, r, k);
            if (p == NULL || p->cfg.mode == SB_PACE_NONE)
                continue;
            sb_plot_gp_num(f, tps_of(p));
            for (size_t i = 0; i < 2; i++)
                sb_plot_gp_num(f, sb_result_fig_median(p, SB_RESULT_LATENCY, pcts[i]));
            fputc('\n', f);
        }
        fputs("EOD\n", f);
    }
    fputs("plot ", f);
    for (size_t r = 0; r < pl->n; r++)
        for (size_t i = 0; i < 2; i++) {
            char t[256];
            snprintf(t, sizeof(t), "%s p%g", pl->res[r].label, pcts[i]);
            fprintf(f, "%s$lt%zu using 1:%zu with linespoints lw 2 pt %d ps 1.2 dt %d lc rgb '%s' title ",
                    r + i ? ", \\\n     " : "", r, i + 2, i ? 7 : 6, i ? 1 : 2,
                    palette[r % NCOLORS]);
            sb_plot_gp_str(f, t);
        }
    fputc('\n', f);
}

/*
 * Throughput relative to the first result at the same point; with one
 * result, relative to its first point, which shows how the sweep scales.
 */
static void chart_relative(struct plot *pl)
{
    FILE *f = pl->gp;
    bool single = pl->n == 1;
    char title[256], first[128];
    size_t from = single ? 0 : 1;

    if (single) {
        key_title(pl, 0, first, sizeof(first));
        snprintf(title, sizeof(title), "Throughput relative to %s", first);
    } else {
        snprintf(title, sizeof(title), "Throughput relative to %s", pl->res[0].label);
    }
    begin_chart(pl, 1, 1000, 620, title);
    key_xtics(pl);
    fputs("set ylabel ", f);
    if (single)
        snprintf(title, sizeof(title), "throughput / throughput at %s", first);
    else
        snprintf(title, sizeof(title), "throughput / throughput of %s", pl->res[0].label);
    sb_plot_gp_str(f, title);
    fputs("\nset format y '%.2fx'\nset offsets 0, 0, graph 0.12, graph 0.12\n$rel << EOD\n", f);
    for (size_t k = 0; k < pl->g->nkeys; k++) {
        const struct sb_point *b = single ? cell(pl, 0, 0) : cell(pl, 0, k);
        fprintf(f, "%zu", k);
        for (size_t r = 0; r < pl->n; r++) {
            const struct sb_point *p = cell(pl, r, k);
            sb_plot_gp_num(f, tps_of(b) > 0 ? tps_of(p) / tps_of(b) : NAN);
        }
        fputc('\n', f);
    }
    fputs("EOD\nplot 1 with lines lw 1.5 dt 2 lc rgb '#888888' ", f);
    if (single) {
        fputs("notitle", f);
    } else {
        fputs("title ", f);
        sb_plot_gp_str(f, pl->res[0].label);
    }
    for (size_t r = from; r < pl->n; r++) {
        const char *c = palette[r % NCOLORS];
        fprintf(f, ", \\\n     $rel using 1:%zu with linespoints lw 2.5 pt 7 ps 1.3 lc rgb '%s' title ",
                r + 2, c);
        sb_plot_gp_str(f, pl->res[r].label);
        /* The ratios written next to the points, as in a report table;
         * with many lines they would overlap, so only for a few. */
        if (pl->n <= 4)
            fprintf(f, ", \\\n     $rel using 1:%zu:(sprintf('%%.2fx', column(%zu))) with labels "
                    "offset 0,1.1 font ',9' tc rgb '%s' notitle", r + 2, r + 2, c);
    }
    fputc('\n', f);
}

/*
 * CPU microseconds per transaction as bars: for each point a group of
 * bars, one per result and side (client, server), each stacked user
 * (solid) under system (light). Sides no file measured are left out.
 */
static void chart_cpu(struct plot *pl)
{
    FILE *f = pl->gp;
    bool has[2] = {false, false};
    const char *side_name[2] = {"client", "server"};
    size_t nsides = 0, nbars, j = 0;
    double w;
    char name[256];

    for (size_t r = 0; r < pl->n; r++)
        for (size_t k = 0; k < pl->g->nkeys; k++) {
            const struct sb_point *p = cell(pl, r, k);
            /* A side that was not measured has NaN figures. */
            if (p && !isnan(sb_result_cpu_us(p, SB_RESULT_CLIENT)))
                has[0] = true;
            if (p && !isnan(sb_result_cpu_us(p, SB_RESULT_SERVER)))
                has[1] = true;
        }
    nsides = (size_t)has[0] + (size_t)has[1];
    begin_chart(pl, 2, 1000, 620, "CPU per transaction (user solid, system light)");
    key_xtics(pl);
    fputs("set ylabel 'CPU µs per transaction'\nset yrange [0:*]\n"
          "set offsets 0, 0, graph 0.1, 0\nset grid noxtics\n", f);
    if (nsides == 0) {
        fputs("set label 1 'CPU was not measured in these results' at graph 0.5, graph 0.5 center\n"
              "set yrange [0:1]\nplot NaN notitle\n", f);
        return;
    }
    nbars = pl->n * nsides;
    w = 0.8 / (double)nbars;
    fprintf(f, "set boxwidth %.6f absolute\nset style fill solid 1.0 border lc rgb '#444444'\n",
            w * 0.92);
    for (size_t r = 0; r < pl->n; r++) {
        for (size_t s = 0; s < 2; s++) {
            if (!has[s])
                continue;
            fprintf(f, "$cpu%zu << EOD\n", j);
            for (size_t k = 0; k < pl->g->nkeys; k++) {
                const struct sb_point *p = cell(pl, r, k);
                const struct sb_cpu_figures *c = p ? (s ? &p->cpu.server : &p->cpu.client) : NULL;
                bool ok = c && c->measured;
                fprintf(f, "%.6f", (double)k - 0.4 + w * ((double)j + 0.5));
                sb_plot_gp_num(f, ok ? c->user_us_per_tx : NAN);
                sb_plot_gp_num(f, ok ? c->user_us_per_tx + c->system_us_per_tx : NAN);
                fputc('\n', f);
            }
            fputs("EOD\n", f);
            j++;
        }
    }
    fputs("plot ", f);
    j = 0;
    for (size_t r = 0; r < pl->n; r++) {
        for (size_t s = 0; s < 2; s++) {
            const char *c;
            if (!has[s])
                continue;
            c = palette[j % NCOLORS];
            /* The light bar is the total; the solid user part is drawn
             * over its lower end, so the light part shows the system
             * time. The total is written above the bar when the bars are
             * wide enough to carry it. */
            fprintf(f, "%s$cpu%zu using 1:3 with boxes fs solid 0.3 lc rgb '%s' notitle, \\\n"
                    "     $cpu%zu using 1:2 with boxes fs solid 0.9 lc rgb '%s' title ",
                    j ? ", \\\n     " : "", j, c, j, c);
            snprintf(name, sizeof(name), "%s %s", pl->res[r].label, side_name[s]);
            sb_plot_gp_str(f, name);
            if (nbars * pl->g->nkeys <= 24)
                fprintf(f, ", \\\n     $cpu%zu using 1:3:(sprintf('%%.0f', $3)) with labels "
                        "offset 0,0.7 font ',9' notitle", j);
            j++;
        }
    }
    fputc('\n', f);
}

/* Whether key k is one of the panels of the latency chart: all of them up
 * to MAX_PANELS, otherwise an even spread that keeps the first and last. */
static bool panel_shown(size_t k, size_t nkeys)
{
    if (nkeys <= MAX_PANELS)
        return true;
    for (size_t i = 0; i < MAX_PANELS; i++)
        if (k == (i * (nkeys - 1) + (MAX_PANELS - 1) / 2) / (MAX_PANELS - 1))
            return true;
    return false;
}

/*
 * Writes the percentile curve of a point as a data block: for each
 * bucket a horizontal step at its upper bound (the latency at or below
 * which that share of transactions finished), from the percentile before
 * it to the percentile after it. The x value is 1 / (1 - percentile), so
 * that 90%, 99%, 99.9% are evenly spaced on a logarithmic axis; the last
 * step ends at 1 - 1/count, the largest percentile the data can tell.
 */
static uint64_t latency_block(FILE *f, const struct sb_point *p, size_t r, size_t k,
                              double *lo_ms, double *hi_ms)
{
    const struct sb_hist *h = response_hist(p);
    uint64_t total = h->total, seen = 0;
    double prev_x = 1;

    fprintf(f, "$lat_%zu_%zu << EOD\n", r, k);
    for (size_t b = 0; b < SB_HIST_BUCKETS && total > 0; b++) {
        /* The bucket's upper bound capped at the maximum, as
         * sb_hist_percentile reports it. */
        uint64_t v = sb_hist_bucket_high(b);
        double x, left;
        if (h->counts[b] == 0)
            continue;
        if (h->max_ns > 0 && v > h->max_ns)
            v = h->max_ns;
        seen += h->counts[b];
        left = 1.0 - (double)seen / (double)total;
        x = left * (double)total < 1.0 ? (double)total : 1.0 / left;
        fprintf(f, "%.8g %.8g\n%.8g %.8g\n", prev_x, (double)v / 1e6, x, (double)v / 1e6);
        if (v > 0) {
            *lo_ms = fmin(*lo_ms, (double)v / 1e6);
            *hi_ms = fmax(*hi_ms, (double)v / 1e6);
        }
        prev_x = x;
    }
    fputs("EOD\n", f);
    return total;
}

/* Writes the data blocks of the latency chart: they come first, as
 * gnuplot cannot define them inside a multiplot. Counts the panels and
 * widens [lo_ms, hi_ms] to the latencies seen; returns the largest count
 * of transactions of a point. */
static uint64_t latency_blocks(struct plot *pl, size_t *npanels, double *lo_ms, double *hi_ms)
{
    uint64_t maxcount = 1;
    bool single = pl->n == 1;

    for (size_t k = 0; k < pl->g->nkeys; k++) {
        if (!single && !panel_shown(k, pl->g->nkeys))
            continue;
        (*npanels)++;
        for (size_t r = 0; r < pl->n; r++) {
            const struct sb_point *p = cell(pl, r, k);
            if (response_hist(p) != NULL) {
                uint64_t c = latency_block(pl->gp, p, r, k, lo_ms, hi_ms);
                maxcount = c > maxcount ? c : maxcount;
            }
        }
    }
    return maxcount;
}

/* The percentile axis up to xmax and the latency axis over whole decades. */
static void latency_axes(FILE *f, double xmax, double lo_ms, double hi_ms)
{
    static const char *const names[] = {"0%%", "90%%", "99%%", "99.9%%", "99.99%%", "99.999%%",
                                        "99.9999%%", "99.99999%%"};
    double x = 1;

    fputs("unset title\nset logscale xy 10\nset xtics (", f);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && x <= xmax; i++, x *= 10)
        fprintf(f, "%s'%s' %g", i ? ", " : "", names[i], x);
    fprintf(f, ")\nset xrange [1:%g]\nset format y '%%g'\n"
            "set grid xtics ytics mytics lt 1 lc rgb '#d9d9d9' lw 1, lt 1 lc rgb '#eeeeee' lw 1\n"
            "set xlabel 'percentile'\nset ylabel 'response time (ms)'\n"
            "set bmargin\nset key inside top left vertical reverse Left box lc rgb '#bbbbbb' opaque width 1 font ',10'\n",
            xmax);
    /* Every panel on the same decades, so that panels compare at a
     * glance. */
    if (hi_ms > 0)
        fprintf(f, "set yrange [%g:%g]\n", pow(10, floor(log10(lo_ms))),
                pow(10, ceil(log10(hi_ms * 1.0001))));
}

/* The title begin_chart set is cleared by latency_axes so that the panels
 * do not repeat it; it goes over the whole multiplot, or back on the one
 * plot. */
static void latency_title(struct plot *pl, size_t npanels, size_t rows, size_t cols)
{
    FILE *f = pl->gp;
    char t[256];
    const char *script = common_script(pl);

    snprintf(t, sizeof(t), "Response time by percentile (log scales)%s%s", *script ? ": " : "",
             script);
    if (npanels > 1)
        fprintf(f, "set multiplot layout %zu,%zu title ", rows, cols);
    else
        fputs("set title ", f);
    sb_plot_gp_str(f, t);
    fputs(" font ',14'\n", f);
}

/* One result: one panel, a curve per point. */
static void latency_plot_points(struct plot *pl)
{
    FILE *f = pl->gp;
    size_t drawn = 0;
    char name[128];

    fputs("plot ", f);
    for (size_t k = 0; k < pl->g->nkeys; k++) {
        const struct sb_point *p = cell(pl, 0, k);
        if (response_hist(p) == NULL)
            continue;
        fprintf(f, "%s$lat_0_%zu using 1:2 with lines lw 2 lc rgb '%s' title ",
                drawn ? ", \\\n     " : "", k, palette[k % NCOLORS]);
        key_title(pl, k, name, sizeof(name));
        sb_plot_gp_str(f, name);
        drawn++;
    }
    fputs(drawn ? "\n" : "NaN notitle\n", f);
}

/* Several results: a panel per point, a curve per result. */
static void latency_plot_panels(struct plot *pl)
{
    FILE *f = pl->gp;
    char name[128];

    for (size_t k = 0; k < pl->g->nkeys; k++) {
        size_t drawn = 0;
        if (!panel_shown(k, pl->g->nkeys))
            continue;
        key_title(pl, k, name, sizeof(name));
        fputs("set title ", f);
        sb_plot_gp_str(f, name);
        fputs(" font ',12'\nplot ", f);
        for (size_t r = 0; r < pl->n; r++) {
            const struct sb_point *p = cell(pl, r, k);
            if (response_hist(p) == NULL)
                continue;
            fprintf(f, "%s$lat_%zu_%zu using 1:2 with lines lw 2 lc rgb '%s' title ",
                    drawn ? ", \\\n     " : "", r, k, palette[r % NCOLORS]);
            sb_plot_gp_str(f, pl->res[r].label);
            drawn++;
        }
        fputs(drawn ? "\n" : "NaN notitle\n", f);
    }
}

static void chart_latency(struct plot *pl)
{
    size_t npanels = 0, rows, cols;
    uint64_t maxcount;
    double xmax = 10, lo_ms = INFINITY, hi_ms = 0;
    bool single = pl->n == 1;

    maxcount = latency_blocks(pl, &npanels, &lo_ms, &hi_ms);
    while (xmax < (double)maxcount && xmax < 1e12)
        xmax *= 10;
    if (single)
        npanels = 1;
    cols = npanels <= 3 ? npanels : (npanels == 4 ? 2 : 3);
    rows = (npanels + cols - 1) / cols;
    begin_chart(pl, 3, npanels == 1 ? 1000 : (int)(cols * 520), npanels == 1 ? 640 : (int)(rows * 430 + 60),
                "Response time by percentile (log scales)");
    latency_axes(pl->gp, xmax, lo_ms, hi_ms);
    latency_title(pl, npanels, rows, cols);
    if (single)
        latency_plot_points(pl);
    else
        latency_plot_panels(pl);
    if (npanels > 1)
        fputs("unset multiplot\n", pl->gp);
}

/* ------------------------------------------------------------ running gnuplot */

/* Creates the private directory for the script, under $TMPDIR when set.
 * Returns its path (in tmpl), or NULL with err set. */
static char *make_plot_dir(char *tmpl, size_t len, char *err, size_t errlen)
{
    const char *tmproot = getenv("TMPDIR");
    char *tmp;

    if (tmproot != NULL && *tmproot)
        snprintf(tmpl, len, "%s/sysbench-plot.XXXXXX", tmproot);
    else
        snprintf(tmpl, len, "%s", "/tmp/sysbench-plot.XXXXXX");
    tmp = mkdtemp(tmpl);
    if (tmp == NULL)
        snprintf(err, errlen, "cannot create a temporary directory for gnuplot (%s): %s", tmpl,
                 strerror(errno));
    return tmp;
}

/* Writes every chart into the gnuplot script. Returns 0 or -1. */
static int write_charts_script(struct plot *pl, const char *script, char *err, size_t errlen)
{
    pl->gp = fopen(script, "w");
    if (pl->gp == NULL) {
        snprintf(err, errlen, "cannot write '%s': %s", script, strerror(errno));
        return -1;
    }
    chart_throughput(pl);
    chart_relative(pl);
    chart_cpu(pl);
    chart_latency(pl);
    pl->ncharts = SB_PLOT_NCHARTS;
    if (pl->g->any_rated) {
        chart_latency_throughput(pl);
        pl->ncharts++;
    }
    if (ferror(pl->gp) | (fclose(pl->gp) != 0)) {
        snprintf(err, errlen, "cannot write '%s': %s", script, strerror(errno));
        return -1;
    }
    return 0;
}

/* Writes the script, runs gnuplot on it and checks that every chart file
 * came out non-empty, then names them on out. Returns 0 or -1. */
static int draw_charts(struct plot *pl, const char *script, const char *errpath, FILE *out,
                       char *err, size_t errlen)
{
    if (write_charts_script(pl, script, err, errlen) != 0)
        return -1;
    if (sb_plot_gnuplot(script, errpath, err, errlen) != 0)
        return -1;
    for (int i = 0; i < pl->ncharts; i++) {
        struct stat st;
        if (stat(pl->out[i], &st) != 0 || st.st_size == 0) {
            snprintf(err, errlen, "gnuplot did not write '%s'", pl->out[i]);
            return -1;
        }
    }
    if (out != NULL) {
        fprintf(out, "Charts written:");
        for (int i = 0; i < pl->ncharts; i++)
            fprintf(out, " %s", pl->out[i]);
        fprintf(out, "\n");
        fflush(out);
    }
    return 0;
}

int sb_plot_write(const struct sb_resfile *res, size_t n, const char *path, FILE *out,
                  char *err, size_t errlen)
{
    struct plot pl;
    struct sb_resfile_grid g;
    char stem[PATH_MAX], *tmp;
    char script[PATH_MAX + 32], errpath[PATH_MAX + 32];
    const char *ext;
    char tmpl[PATH_MAX];
    int rc;

    memset(&pl, 0, sizeof(pl));
    if (sb_plot_check(path, err, errlen) != 0)
        return -1;
    split_path(path, stem, sizeof(stem), &ext, &pl.svg);
    for (int i = 0; i <= SB_PLOT_NCHARTS; i++)
        snprintf(pl.out[i], sizeof(pl.out[i]), "%.*s-%s%s", PATH_MAX - 32, stem, chart_names[i], ext);
    if (sb_resfile_grid_build(&g, res, n) != 0 || g.nkeys == 0) {
        sb_resfile_grid_free(&g);
        snprintf(err, errlen, "no points to plot");
        return -1;
    }
    tmp = make_plot_dir(tmpl, sizeof(tmpl), err, errlen);
    if (tmp == NULL) {
        sb_resfile_grid_free(&g);
        return -1;
    }
    snprintf(script, sizeof(script), "%s/charts.gp", tmp);
    snprintf(errpath, sizeof(errpath), "%s/gnuplot.err", tmp);
    pl.res = res;
    pl.n = n;
    pl.g = &g;
    rc = draw_charts(&pl, script, errpath, out, err, errlen);
    /* The script is kept with SB_PLOT_KEEP set, for whoever wants to
     * restyle the charts by hand. */
    if (getenv("SB_PLOT_KEEP") != NULL && rc == 0) {
        if (out != NULL)
            fprintf(out, "gnuplot script kept in %s\n", script);
    } else {
        unlink(script);
        unlink(errpath);
        rmdir(tmp);
    }
    sb_resfile_grid_free(&g);
    return rc;
}

int sb_plot_output(const struct sb_output *o, const struct sb_lua_env *env, const char *path,
                   FILE *out, char *err, size_t errlen)
{
    struct sb_resfile r;
    struct sb_jv *doc;
    char perr[512], *text = NULL, *label;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int rc;

    if (mem == NULL) {
        snprintf(err, errlen, "cannot draw the --plot charts: %s", strerror(errno));
        return -1;
    }
    rc = sb_output_write_json_to(o, env, mem, "in memory", err, errlen);
    if (fclose(mem) != 0 && rc == 0) {
        snprintf(err, errlen, "cannot draw the --plot charts: %s", strerror(errno));
        rc = -1;
    }
    if (rc != 0) {
        free(text);
        return -1;
    }
    doc = sb_jv_parse(text, len, perr, sizeof(perr));
    free(text);
    if (doc == NULL) {
        snprintf(err, errlen, "cannot read back the results for --plot: %s", perr);
        return -1;
    }
    label = sb_resfile_default_label(o->json_path != NULL && *o->json_path ? o->json_path :
                                    env->script_path != NULL ? env->script_path : "run");
    if (label != NULL) {
        size_t l = strlen(label);
        if (l > 4 && strcmp(label + l - 4, ".lua") == 0)
            label[l - 4] = '\0';
    }
    rc = label == NULL ? -1 : sb_resfile_from_json(&r, doc, "the run", label, err, errlen);
    if (label == NULL)
        snprintf(err, errlen, "out of memory");
    free(label);
    if (rc != 0) {
        sb_jv_free(doc);
        return -1;
    }
    rc = sb_plot_write(&r, 1, path, out, err, errlen);
    sb_resfile_free(&r);
    /* A single run also gets its time axis. */
    if (rc == 0 && o->npoints == 1)
        rc = sb_plot_timeline(&o->points[0], path, out, err, errlen);
    /* A --find-max search, its chart on a numeric rate axis. */
    if (rc == 0 && sb_jv_get(doc, "find_max") != NULL)
        rc = sb_plot_findmax(sb_jv_get(doc, "find_max"), path, out, err, errlen);
    sb_jv_free(doc);
    return rc;
}
