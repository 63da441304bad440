/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The latency chart of --plot: the response-time percentile curves from
 * the stored histograms (latency.gp); see sb_plot_chart_latency in
 * sb_plot_chart.h.
 *
 * A curve is the histogram of every run it stands for, pooled (bucket
 * counts added: histograms of one layout merge exactly), never the first
 * run alone; its legend says how many runs it pools. The percentiles the
 * run asked for (or compare's tables show) are marked on it with the
 * value its report prints and that value's interval.
 */
#include "plot/sb_plot_chart.h"
#include "plot/sb_gnuplot.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most panels of the latency chart, and most curves of one result's
 * latency chart; more points are thinned evenly. */
#define MAX_PANELS 6
#define MAX_CURVES 12
/* Most percentiles marked on a curve, and most keys a curve pools. */
#define MAX_MARKS 8
#define MAX_POOLED 64

/* One curve: result r's runs at the keys listed, pooled. */
struct curve {
    size_t r;
    size_t keys[MAX_POOLED];
    size_t nkeys;
    char title[192];
};

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

/* Adds the response-time histograms of every run of curve c into h;
 * returns the number of runs with one. */
static size_t pool(const struct sb_plot_charts *pl, const struct curve *c, struct sb_hist *h)
{
    const struct sb_point_result *runs[1024];
    size_t used = 0;

    sb_hist_reset(h);
    for (size_t i = 0; i < c->nkeys; i++) {
        size_t n = sb_plot_runs(sb_plot_cell(pl, c->r, c->keys[i]), runs, 1024);
        for (size_t q = 0; q < n; q++)
            if (runs[q]->total != NULL && runs[q]->total->response.total > 0) {
                sb_hist_merge(h, &runs[q]->total->response);
                used++;
            }
    }
    return used;
}

/*
 * Writes the percentile curve of histogram h (empty: an empty file, a
 * curve not drawn) to the data file name: for each bucket a horizontal
 * step at its upper bound (the latency at or below which that share of
 * transactions finished), from the percentile before it to the
 * percentile after it. The x value is 1 / (1 - percentile), so that 90%,
 * 99%, 99.9% are evenly spaced on a logarithmic axis; the last step ends
 * at 1 - 1/count, the largest percentile the data can tell. Returns the
 * count of transactions.
 */
static uint64_t latency_file(struct sb_plot_charts *pl, const char *name, const struct sb_hist *h,
                             double *lo_ms, double *hi_ms)
{
    uint64_t total = h->total, seen = 0;
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

/* Adds pct to the list of marks (room for MAX_MARKS) unless there. */
static void add_mark(double *pcts, size_t *n, double pct)
{
    if (!(pct > 0 && pct < 100) || *n == MAX_MARKS)
        return;
    for (size_t i = 0; i < *n; i++)
        if (fabs(pcts[i] - pct) < 1e-9)
            return;
    pcts[(*n)++] = pct;
}

/* The percentiles marked on the curves: compare's latency tables, else
 * every percentile the runs drawn asked for (--percentile). Returns how
 * many. */
static size_t mark_percentiles(const struct sb_plot_charts *pl, const struct curve *cs, size_t nc,
                               double *pcts)
{
    size_t n = 0;

    if (pl->tables != NULL) {
        for (size_t t = 0; t < pl->tables->ntables; t++)
            if (pl->tables->tables[t].fig == SB_POINT_RESULT_LATENCY)
                add_mark(pcts, &n, pl->tables->tables[t].pct);
        return n;
    }
    for (size_t c = 0; c < nc; c++)
        for (size_t i = 0; i < cs[c].nkeys; i++) {
            const struct sb_point_result *p = sb_plot_cell(pl, cs[c].r, cs[c].keys[i]);
            for (size_t j = 0; p != NULL && j < p->nfile_pcts; j++)
                add_mark(pcts, &n, p->file_pcts[j]);
        }
    return n;
}

/* The marks of curve c into the data file name: per percentile x, the
 * value its report prints, that value's interval, the label. */
static void marks_file(struct sb_plot_charts *pl, const char *name, const struct curve *c,
                       const double *pcts, size_t np, double *lo_ms, double *hi_ms)
{
    FILE *f = sb_gnuplot_data(pl->job, name);
    struct sb_plot_fig fg;

    size_t pos = 0;

    /* The keys of a curve are consecutive in the order. */
    while (c->nkeys > 0 && pos < pl->g->nkeys && pl->order[pos] != c->keys[0])
        pos++;
    for (size_t i = 0; f != NULL && i < np && pos < pl->g->nkeys; i++) {
        sb_plot_group_fig(pl, c->r, pos, c->nkeys, SB_POINT_RESULT_LATENCY, pcts[i], &fg);
        if (isnan(fg.v))
            continue;
        sb_plot_gp_num(f, 1 / (1 - pcts[i] / 100));
        sb_plot_gp_num(f, fg.v);
        sb_plot_gp_num(f, fg.lo);
        sb_plot_gp_num(f, fg.hi);
        fprintf(f, " \"p%g\"\n", pcts[i]);
        if (fg.v > 0) {
            *lo_ms = fmin(*lo_ms, isnan(fg.lo) ? fg.v : fmin(fg.v, fg.lo));
            *hi_ms = fmax(*hi_ms, isnan(fg.hi) ? fg.v : fmax(fg.v, fg.hi));
        }
    }
    sb_gnuplot_data_close(pl->job, f);
}

/* The curves of a --find-max search: the final bracket only, each rate's
 * points pooled (held first). Returns how many (0: no bracket known). */
static size_t bracket_curves(const struct sb_plot_charts *pl, struct curve *cs)
{
    const struct sb_plot_marks *m = pl->marks;
    double rates[2] = {m != NULL ? m->rate_held : NAN, m != NULL ? m->rate_missed : NAN};
    const char *what[2] = {"rate held", "lowest rate missed"};
    size_t nc = 0;

    if (!pl->xnum)
        return 0;
    for (int b = 0; b < 2; b++) {
        struct curve *c = &cs[nc];
        if (!(rates[b] > 0))
            continue;
        memset(c, 0, sizeof(*c));
        for (size_t i = 0; i < pl->g->nkeys && c->nkeys < MAX_POOLED; i++) {
            const struct sb_result_file_key *key = &pl->g->keys[pl->order[i]];
            if (sb_pace_rated(key->rate_mode) && key->target_tps == rates[b])
                c->keys[c->nkeys++] = pl->order[i];
        }
        if (c->nkeys == 0)
            continue;
        snprintf(c->title, sizeof(c->title), "%s: %.2f tx/s", what[b], rates[b]);
        nc++;
    }
    return nc;
}

/* The panels and their curves: for one result one panel (the final
 * bracket of a --find-max search, or a curve per point), else a panel
 * per point shown with a curve per result. Fills key[] with each panel's
 * key (SIZE_MAX: one panel of several points) and cs[] with the curves,
 * nc per panel. Returns the number of panels. */
static size_t latency_layout(const struct sb_plot_charts *pl, size_t *key, struct curve *cs,
                             size_t *nc, bool *seq)
{
    size_t np = 0;

    *seq = false;
    if (pl->n == 1) {
        key[0] = SIZE_MAX;
        *nc = bracket_curves(pl, cs);
        if (*nc > 0)
            return 1;
        /* One result's curves: at most MAX_CURVES, which a legend and a
         * colour scale can still tell apart, in load order. */
        *seq = true;
        *nc = pl->g->nkeys > MAX_CURVES ? MAX_CURVES : pl->g->nkeys;
        for (size_t c = 0; c < *nc; c++) {
            size_t k = pl->order[*nc == pl->g->nkeys ? c : spread(c, pl->g->nkeys, *nc)];
            cs[c] = (struct curve){.r = 0, .keys = {k}, .nkeys = 1};
            sb_plot_key_title(pl, k, cs[c].title, sizeof(cs[c].title));
        }
        return 1;
    }
    *nc = pl->n;
    for (size_t k = 0; k < pl->g->nkeys; k++) {
        if (!panel_shown(k, pl->g->nkeys))
            continue;
        for (size_t r = 0; r < pl->n; r++) {
            struct curve *c = &cs[np * pl->n + r];
            *c = (struct curve){.r = r, .keys = {k}, .nkeys = 1};
            sb_plot_series_name(pl, r, c->title, sizeof(c->title));
        }
        key[np++] = k;
    }
    return np;
}

/* Writes the curves' and marks' data files and the legends (CT); returns
 * the largest count of transactions of a curve, 0 when there is none. */
static uint64_t latency_curves(struct sb_plot_charts *pl, struct curve *cs, size_t ncurves,
                               const double *pcts, size_t npcts, double *lo_ms, double *hi_ms)
{
    struct sb_hist *h = malloc(sizeof(*h));
    uint64_t maxcount = 0;
    char name[64], title[256];

    if (h == NULL)
        return 0;
    sb_gnuplot_array(pl->job, "CT", ncurves);
    for (size_t i = 0; i < ncurves; i++) {
        size_t runs = pool(pl, &cs[i], h);
        uint64_t count;
        snprintf(name, sizeof(name), "lat_%zu.dat", i + 1);
        count = latency_file(pl, name, h, lo_ms, hi_ms);
        maxcount = count > maxcount ? count : maxcount;
        snprintf(name, sizeof(name), "lm_%zu.dat", i + 1);
        marks_file(pl, name, &cs[i], pcts, count > 0 ? npcts : 0, lo_ms, hi_ms);
        if (runs > 1)
            snprintf(title, sizeof(title), "%s (%zu runs pooled)", cs[i].title, runs);
        else
            snprintf(title, sizeof(title), "%s", cs[i].title);
        sb_gnuplot_set_str_at(pl->job, "CT", i + 1, count > 0 ? title : "");
    }
    free(h);
    return maxcount;
}

/* MARKTITLE (the legend of the dots) and the chart's note, which says
 * what the curves and the dots are. */
static void mark_title(struct sb_plot_charts *pl, const double *pcts, size_t n, char *note,
                       size_t len)
{
    char list[128] = "none", t[192];
    size_t used = 0, lo, hi;
    bool findmax = pl->marks != NULL && pl->xnum;

    for (size_t i = 0; i < n && used < sizeof(list); i++)
        used += (size_t)snprintf(list + used, sizeof(list) - used, "%sp%g", i ? ", " : "",
                                 pcts[i]);
    sb_plot_runs_range(pl, &lo, &hi);
    snprintf(t, sizeof(t), "%s", n == 0 ? "" : list);
    if (findmax)
        snprintf(note, len, "curves: each rate's runs pooled; dots: %s, the median of the "
                 "runs (whiskers: lowest to highest run)", list);
    else if (hi <= 1)
        snprintf(note, len, "dots: %s as %s", list,
                 pl->tables != NULL ? "compare's table" : "the report");
    else
        snprintf(note, len, "curves: each point's runs pooled; dots: %s as %s (geometric "
                 "mean of the runs, whiskers: its 95%% interval)", list,
                 pl->tables != NULL ? "compare's table" : "the Repeat summary");
    sb_gnuplot_set_str(pl->job, "MARKTITLE", t);
}

void sb_plot_chart_latency(struct sb_plot_charts *pl)
{
    size_t key[MAX_PANELS > 1 ? MAX_PANELS : 1], np, nc, rows, cols, npcts;
    struct curve *cs = calloc(MAX_PANELS * (pl->n > MAX_CURVES ? pl->n : MAX_CURVES),
                              sizeof(*cs));
    double xmax = 10, lo_ms = INFINITY, hi_ms = 0, pcts[MAX_MARKS];
    uint64_t maxcount;
    char t[160], note[512];
    bool seq;

    if (cs == NULL)
        return;
    np = latency_layout(pl, key, cs, &nc, &seq);
    npcts = mark_percentiles(pl, cs, np * nc, pcts);
    cols = np <= 3 ? np : (np == 4 ? 2 : 3);
    rows = (np + cols - 1) / cols;
    /* The curves first (CT outlives the reset that starts the chart):
     * without any, there is no chart. */
    maxcount = latency_curves(pl, cs, np * nc, pcts, npcts, &lo_ms, &hi_ms);
    free(cs);
    if (maxcount == 0)
        return;
    /* MARKTITLE outlives the reset that starts the chart. */
    mark_title(pl, pcts, npcts, note, sizeof(note));
    sb_plot_begin_chart(pl, 3, np == 1 ? 1100 : (int)(cols * 560),
                        np == 1 ? 660 : (int)(rows * 460 + 90),
                        "Response time by percentile (log scales)", note);
    while (xmax < (double)maxcount && xmax < 1e12)
        xmax *= 10;
    sb_gnuplot_set_num(pl->job, "NP", (double)np);
    sb_gnuplot_set_num(pl->job, "ROWS", (double)rows);
    sb_gnuplot_set_num(pl->job, "COLS", (double)cols);
    sb_gnuplot_set_num(pl->job, "NC", (double)nc);
    sb_gnuplot_set_num(pl->job, "SEQ", seq);
    sb_gnuplot_set_num(pl->job, "XMAX", xmax);
    sb_gnuplot_set_num(pl->job, "MARKLABELS", nc <= 3);
    /* Every panel on the same decades, so that panels compare at a
     * glance. */
    sb_gnuplot_set_num(pl->job, "YLO", hi_ms > 0 ? pow(10, floor(log10(lo_ms))) : NAN);
    sb_gnuplot_set_num(pl->job, "YHI", hi_ms > 0 ? pow(10, ceil(log10(hi_ms * 1.0001))) : NAN);
    sb_gnuplot_array(pl->job, "PTITLE", np);
    for (size_t p = 0; p < np; p++) {
        if (key[p] == SIZE_MAX && seq && nc < pl->g->nkeys)
            snprintf(t, sizeof(t), "%zu of %zu points, evenly spread", nc, pl->g->nkeys);
        else if (key[p] == SIZE_MAX)
            t[0] = '\0';
        else
            sb_plot_key_title(pl, key[p], t, sizeof(t));
        sb_gnuplot_set_str_at(pl->job, "PTITLE", p + 1, t);
    }
    sb_gnuplot_template(pl->job, "latency.gp");
}
