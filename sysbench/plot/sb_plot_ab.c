/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The chart of a `sysbench ab` comparison; see sb_plot_ab.h.
 */
#include "config.h"

#include "plot/sb_plot_ab.h"
#include "plot/sb_gnuplot.h"

#include <limits.h>
#include <math.h>
#include <string.h>
#include <strings.h>

/* rounds.dat: round, ratio, 1 when A went first; looks.dat: round,
 * estimate, low, high. */
static void data_files(struct sb_gnuplot_job *j, const struct sb_plot_ab_data *d)
{
    FILE *f = sb_gnuplot_data(j, "rounds.dat");

    for (size_t i = 0; f != NULL && i < d->nrounds; i++) {
        fprintf(f, "%zu", i + 1);
        sb_plot_gp_num(f, d->ratio[i]);
        fprintf(f, " %d\n", d->a_first[i] ? 1 : 0);
    }
    sb_gnuplot_data_close(j, f);
    f = sb_gnuplot_data(j, "looks.dat");
    for (size_t i = 0; f != NULL && i < d->nlooks; i++) {
        fprintf(f, "%zu", d->look_round[i]);
        sb_plot_gp_num(f, d->look_ratio[i]);
        sb_plot_gp_num(f, d->look_lo[i]);
        sb_plot_gp_num(f, d->look_hi[i]);
        fputc('\n', f);
    }
    sb_gnuplot_data_close(j, f);
}

/* The ratio axis: every round, the last interval, no change and the
 * margin, with room around; the early looks' wide bands are cut. */
static void y_range(const struct sb_plot_ab_data *d, double *lo, double *hi)
{
    *lo = *hi = 1;
    if (d->margin > 0) {
        *lo = 1 / (1 + d->margin);
        *hi = 1 + d->margin;
    }
    for (size_t i = 0; i < d->nrounds; i++)
        if (d->ratio[i] > 0 && isfinite(d->ratio[i])) {
            *lo = fmin(*lo, d->ratio[i]);
            *hi = fmax(*hi, d->ratio[i]);
        }
    if (d->nlooks > 0 && d->look_lo[d->nlooks - 1] > 0 && isfinite(d->look_hi[d->nlooks - 1])) {
        *lo = fmin(*lo, d->look_lo[d->nlooks - 1]);
        *hi = fmax(*hi, d->look_hi[d->nlooks - 1]);
    }
    *lo /= 1.08;
    *hi *= 1.08;
}

int sb_plot_ab(const struct sb_plot_ab_data *d, const char *path, FILE *out, char *err,
               size_t errlen)
{
    char name[PATH_MAX], kept[PATH_MAX + 32] = "";
    const char *outs[1] = {name};
    struct sb_gnuplot_job j;
    double ylo, yhi;
    bool svg;

    if (!sb_gnuplot_side_name(path, "ab", name, sizeof(name), &svg)) {
        snprintf(err, errlen, "invalid value '%s' for --plot", path);
        return -1;
    }
    if (sb_gnuplot_begin(&j, "ab.gp", err, errlen) != 0)
        return -1;
    data_files(&j, d);
    sb_gnuplot_chart(&j, name, svg, 1000, 600, d->title);
    sb_gnuplot_set_str(&j, "FIGURE", d->figure);
    sb_gnuplot_set_str(&j, "LA", d->label_a);
    sb_gnuplot_set_str(&j, "LB", d->label_b);
    sb_gnuplot_set_num(&j, "MARGIN", d->margin > 0 ? d->margin : NAN);
    sb_gnuplot_set_num(&j, "NROUNDS", (double)d->nrounds);
    y_range(d, &ylo, &yhi);
    sb_gnuplot_set_num(&j, "YLO", ylo);
    sb_gnuplot_set_num(&j, "YHI", yhi);
    /* A log axis only where the ratios span a wide range; a narrow one
     * reads better, with its ticks, on a linear axis. */
    sb_gnuplot_set_num(&j, "LOGY", yhi / ylo > 4 ? 1 : 0);
    sb_gnuplot_template(&j, "ab.gp");
    if (sb_gnuplot_finish(&j, outs, 1, kept, sizeof(kept), err, errlen) != 0)
        return -1;
    if (out != NULL) {
        fprintf(out, "A/B chart written: %s\n", name);
        if (kept[0] != '\0')
            fprintf(out, "gnuplot script kept in %s\n", kept);
        fflush(out);
    }
    return 0;
}
