/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The latency chart of --plot: the response-time percentile curves from
 * the stored histograms (latency.gp); see sb_plot_chart_latency in
 * sb_plot_chart.h.
 */
#include "plot/sb_plot_chart.h"
#include "plot/sb_gnuplot.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Most panels of the latency chart, and most curves of one result's
 * latency chart; more points are thinned evenly. */
#define MAX_PANELS 6
#define MAX_CURVES 12

/* The response-time histogram of point p (NULL allowed), or NULL when p
 * has none (a file without buckets): no latency distribution to draw. */
static const struct sb_hist *response_hist(const struct sb_point_result *p)
{
    return p != NULL && p->total != NULL && p->total->response.total > 0 ? &p->total->response
                                                                         : NULL;
}

/* The i-th of m positions spread evenly over 0..n-1 (m <= n), the first
 * and the last among them. */
static size_t spread(size_t i, size_t n, size_t m)
{
    return m > 1 ? (i * (n - 1) + (m - 1) / 2) / (m - 1) : 0;
}

/* Whether key k is one of the panels of the latency chart: all of them up
 * to MAX_PANELS, otherwise an even spread that keeps the first and last. */
static bool panel_shown(size_t k, size_t nkeys)
{
    if (nkeys <= MAX_PANELS)
        return true;
    for (size_t i = 0; i < MAX_PANELS; i++)
        if (k == spread(i, nkeys, MAX_PANELS))
            return true;
    return false;
}

/*
 * Writes the percentile curve of point p (NULL or without a histogram:
 * an empty file, a curve not drawn) to the data file name: for each
 * bucket a horizontal step at its upper bound (the latency at or below
 * which that share of transactions finished), from the percentile before
 * it to the percentile after it. The x value is 1 / (1 - percentile), so
 * that 90%, 99%, 99.9% are evenly spaced on a logarithmic axis; the last
 * step ends at 1 - 1/count, the largest percentile the data can tell.
 * Returns the count of transactions (0 without a histogram).
 */
static uint64_t latency_file(struct sb_plot_charts *pl, const char *name, const struct sb_point_result *p,
                             double *lo_ms, double *hi_ms)
{
    const struct sb_hist *h = response_hist(p);
    uint64_t total = h != NULL ? h->total : 0, seen = 0;
    double prev_x = 1;
    FILE *f = sb_gnuplot_data(pl->job, name);

    for (size_t b = 0; f != NULL && b < SB_HIST_BUCKETS && total > 0; b++) {
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
    sb_gnuplot_data_close(pl->job, f);
    return total;
}

/* The latency panels: one of every point for one result (a curve per
 * point), else one per point shown (a curve per result). Fills key[] with
 * the key of each panel (SIZE_MAX: every key) and returns their count. */
static size_t latency_panels(const struct sb_plot_charts *pl, size_t *key)
{
    size_t np = 0;

    if (pl->n == 1) {
        key[0] = SIZE_MAX;
        return 1;
    }
    for (size_t k = 0; k < pl->g->nkeys; k++)
        if (panel_shown(k, pl->g->nkeys))
            key[np++] = k;
    return np;
}

/* Writes the curves' data files and their legends (CT); returns the
 * largest count of transactions of a curve, 0 when there is none. */
static uint64_t latency_curves(struct sb_plot_charts *pl, const size_t *key, size_t np, size_t nc,
                               double *lo_ms, double *hi_ms)
{
    uint64_t maxcount = 0;
    char name[64], title[128];

    sb_gnuplot_array(pl->job, "CT", np * nc);
    for (size_t p = 0; p < np; p++)
        for (size_t c = 0; c < nc; c++) {
            /* One result's curves in load order: the colour scale. */
            size_t r = key[p] == SIZE_MAX ? 0 : c;
            size_t k = key[p] != SIZE_MAX ? key[p]
                       : pl->order[nc == pl->g->nkeys ? c : spread(c, pl->g->nkeys, nc)];
            const struct sb_point_result *pt = sb_plot_cell(pl, r, k);
            uint64_t count;
            snprintf(name, sizeof(name), "lat_%zu_%zu.dat", p + 1, c + 1);
            count = latency_file(pl, name, pt, lo_ms, hi_ms);
            maxcount = count > maxcount ? count : maxcount;
            if (key[p] == SIZE_MAX)
                sb_plot_key_title(pl, k, title, sizeof(title));
            else
                snprintf(title, sizeof(title), "%s", pl->res[r].label);
            sb_gnuplot_set_str_at(pl->job, "CT", p * nc + c + 1, count > 0 ? title : "");
        }
    return maxcount;
}

void sb_plot_chart_latency(struct sb_plot_charts *pl)
{
    size_t key[MAX_PANELS > 1 ? MAX_PANELS : 1], np, nc, rows, cols;
    uint64_t maxcount;
    double xmax = 10, lo_ms = INFINITY, hi_ms = 0;
    char t[160];
    bool seq = pl->n == 1;

    np = latency_panels(pl, key);
    /* One result's curves: at most MAX_CURVES, which a legend and a
     * colour scale can still tell apart. */
    nc = seq ? (pl->g->nkeys > MAX_CURVES ? MAX_CURVES : pl->g->nkeys) : pl->n;
    cols = np <= 3 ? np : (np == 4 ? 2 : 3);
    rows = (np + cols - 1) / cols;
    /* The curves first (CT outlives the reset that starts the chart):
     * without any, there is no chart. */
    maxcount = latency_curves(pl, key, np, nc, &lo_ms, &hi_ms);
    if (maxcount == 0)
        return;
    sb_plot_begin_chart(pl, 3, np == 1 ? 1100 : (int)(cols * 520), np == 1 ? 640 : (int)(rows * 460 + 60),
                "Response time by percentile (log scales)");
    while (xmax < (double)maxcount && xmax < 1e12)
        xmax *= 10;
    sb_gnuplot_set_num(pl->job, "NP", (double)np);
    sb_gnuplot_set_num(pl->job, "ROWS", (double)rows);
    sb_gnuplot_set_num(pl->job, "COLS", (double)cols);
    sb_gnuplot_set_num(pl->job, "NC", (double)nc);
    sb_gnuplot_set_num(pl->job, "SEQ", seq);
    sb_gnuplot_set_num(pl->job, "XMAX", xmax);
    /* Every panel on the same decades, so that panels compare at a
     * glance. */
    sb_gnuplot_set_num(pl->job, "YLO", hi_ms > 0 ? pow(10, floor(log10(lo_ms))) : NAN);
    sb_gnuplot_set_num(pl->job, "YHI", hi_ms > 0 ? pow(10, ceil(log10(hi_ms * 1.0001))) : NAN);
    sb_gnuplot_array(pl->job, "PTITLE", np);
    for (size_t p = 0; p < np; p++) {
        if (key[p] == SIZE_MAX && nc < pl->g->nkeys)
            snprintf(t, sizeof(t), "%zu of %zu points, evenly spread", nc, pl->g->nkeys);
        else if (key[p] == SIZE_MAX)
            t[0] = '\0';
        else
            sb_plot_key_title(pl, key[p], t, sizeof(t));
        sb_gnuplot_set_str_at(pl->job, "PTITLE", p + 1, t);
    }
    sb_gnuplot_template(pl->job, "latency.gp");
}
