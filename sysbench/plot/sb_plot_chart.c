/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every chart writer shares: cells, the x axis, key titles and
 * starting a chart; see sb_plot_chart.h.
 */
#include "plot/sb_plot_chart.h"
#include "plot/sb_gnuplot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The complete point of result r at key k, or NULL: a gap in the chart. */
const struct sb_point_result *sb_plot_cell(const struct sb_plot_charts *pl, size_t r, size_t k)
{
    return sb_result_file_grid_cell(pl->g, r, k);
}

/* The script name for titles when every file ran the same one. */
static const char *common_script(const struct sb_plot_charts *pl)
{
    for (size_t r = 1; r < pl->n; r++)
        if (strcmp(pl->res[r].script, pl->res[0].script) != 0)
            return "";
    return pl->res[0].script;
}

void sb_plot_begin_chart(struct sb_plot_charts *pl, int which, int w, int h, const char *title,
                         const char *note)
{
    const char *script = common_script(pl);
    char t[512];

    /* One result's legends name its points: the title names the run. */
    if (pl->n == 1 && *script && *pl->res[0].driver)
        snprintf(t, sizeof(t), "%s: %s, %s", title, script, pl->res[0].driver);
    else if (*script)
        snprintf(t, sizeof(t), "%s: %s", title, script);
    else
        snprintf(t, sizeof(t), "%s", title);
    sb_gnuplot_chart_noted(pl->job, pl->out[which], pl->svg, w, h, t, note);
    pl->drawn[pl->ndrawn++] = pl->out[which];
}

bool sb_plot_on_axis(const struct sb_plot_charts *pl, size_t k)
{
    return !pl->xnum || sb_pace_rated(pl->g->keys[k].rate_mode);
}

double sb_plot_key_x(const struct sb_plot_charts *pl, size_t k)
{
    return pl->xnum ? pl->g->keys[k].target_tps : (double)k;
}

void sb_plot_x_range(struct sb_gnuplot_job *j, double lo, double hi)
{
    double m = hi > lo ? (hi - lo) * 0.04 : fabs(hi) * 0.05 + 1e-9;

    if (!(hi >= lo)) {
        lo = 0;
        hi = 1;
    }
    sb_gnuplot_set_num(j, "XLO", lo - m < 0 ? 0 : lo - m);
    sb_gnuplot_set_num(j, "XHI", hi + m);
}

void sb_plot_rate_range(struct sb_plot_charts *pl)
{
    sb_plot_x_range(pl->job, pl->xlo, pl->xhi);
}

void sb_plot_key_axis(struct sb_plot_charts *pl)
{
    char name[64];

    sb_gnuplot_set_num(pl->job, "XNUM", pl->xnum);
    sb_gnuplot_set_num(pl->job, "NK", (double)pl->g->nkeys);
    sb_gnuplot_array(pl->job, "KEY", pl->g->nkeys);
    for (size_t k = 0; k < pl->g->nkeys; k++) {
        sb_result_file_key_name(pl->g, k, name, sizeof(name));
        sb_gnuplot_set_str_at(pl->job, "KEY", k + 1, name);
    }
    sb_gnuplot_set_str(pl->job, "XLABEL", pl->xnum ? "target rate (tx/s)"
                                                   : sb_result_file_grid_axis(pl->g));
    if (pl->xnum)
        sb_plot_rate_range(pl);
}

/* The title of a key in legends and panel titles: "4 threads". */
void sb_plot_key_title(const struct sb_plot_charts *pl, size_t k, char *buf, size_t len)
{
    const struct sb_result_file_key *key = &pl->g->keys[k];
    char rate[64] = "";

    if (key->rate_mode != SB_PACE_NONE)
        snprintf(rate, sizeof(rate), " at %g tx/s", key->target_tps);
    snprintf(buf, len, "%u thread%s%s", key->threads, key->threads == 1 ? "" : "s", rate);
    if (key->occurrence > 0) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, " (#%u)", key->occurrence + 1);
    }
}

/* ------------------------------------------------------------ groups of keys */

size_t sb_plot_group_len(const struct sb_plot_charts *pl, size_t i)
{
    const struct sb_result_file_key *a = &pl->g->keys[pl->order[i]];
    size_t n = 1;

    if (!pl->xnum || !sb_pace_rated(a->rate_mode))
        return 1;
    while (i + n < pl->g->nkeys) {
        const struct sb_result_file_key *b = &pl->g->keys[pl->order[i + n]];
        if (!sb_pace_rated(b->rate_mode) || b->target_tps != a->target_tps)
            break;
        n++;
    }
    return n;
}
