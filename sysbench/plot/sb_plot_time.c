/*
 * The time axis of a single run (--plot): one chart of stacked panels
 * sharing the time axis, drawn from the point's interval reports; see
 * sb_plot_timeline in sb_plot.h.
 */
#include "plot/sb_plot_time.h"
#include "plot/sb_gnuplot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* FILE.png -> FILE-timeline.png; false when path has no .png/.svg. */
static bool timeline_name(const char *path, char *buf, size_t len, bool *svg)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');

    if (dot == NULL || (slash != NULL && dot < slash) ||
        (strcasecmp(dot, ".png") != 0 && strcasecmp(dot, ".svg") != 0))
        return false;
    *svg = strcasecmp(dot, ".svg") == 0;
    snprintf(buf, len, "%.*s-timeline%s", (int)(dot - path), path, dot);
    return true;
}

static void data_block(FILE *f, const struct sb_point *p)
{
    fputs("$tl << EOD\n", f);
    for (size_t i = 0; i < p->nintervals; i++) {
        const struct sb_interval *iv = &p->intervals[i];
        sb_plot_gp_num(f, iv->time_s);
        sb_plot_gp_num(f, iv->tps);
        sb_plot_gp_num(f, p->cfg.mode != SB_PACE_NONE ? p->cfg.target_tps : NAN);
        sb_plot_gp_num(f, iv->p50_ms);
        sb_plot_gp_num(f, iv->p99_ms);
        sb_plot_gp_num(f, p->cfg.mode != SB_PACE_NONE ? iv->lag_p99_ms : NAN);
        sb_plot_gp_num(f, (double)iv->backlog);
        sb_plot_gp_num(f, iv->cpu_client_pct);
        sb_plot_gp_num(f, iv->cpu_server_pct);
        fputc('\n', f);
    }
    fputs("EOD\n", f);
}

/* The gnuplot script: four panels, time in seconds at the bottom. */
static void write_script(FILE *f, const struct sb_point *p, const char *png, bool svg)
{
    bool rate = p->cfg.mode != SB_PACE_NONE;

    data_block(f, p);
    if (svg)
        fputs("set terminal svg noenhanced size 1000,1100 dynamic font 'DejaVu Sans,12' "
              "background rgb 'white'\n", f);
    else
        fputs("set terminal pngcairo noenhanced size 1000,1100 font 'DejaVu Sans,11' "
              "background rgb 'white'\n", f);
    fputs("set output ", f);
    sb_plot_gp_path(f, png);
    fputc('\n', f);
    fprintf(f, "set multiplot layout 4,1 title 'Time axis: %u thread(s)%s' font ',14'\n",
            p->cfg.threads, rate ? ", fixed target rate" : "");
    fputs("set border 3 lc rgb '#555555'\nset tics nomirror out\n"
          "set grid ytics lt 1 lc rgb '#d9d9d9'\nset key top right\nset lmargin 12\n"
          "set yrange [0:*]\nset style data linespoints\nset pointsize 0.6\n", f);
    fputs("set ylabel 'transactions/s'\n"
          "plot $tl using 1:2 title 'throughput' lc rgb '#1f6fb4' lw 2", f);
    if (rate)
        fputs(", $tl using 1:3 title 'target' with lines dt 2 lc rgb '#555555' lw 2", f);
    fputs("\nset ylabel 'ms'\n"
          "plot $tl using 1:4 title 'response p50' lc rgb '#2a9d3a' lw 2, "
          "$tl using 1:5 title 'response p99' lc rgb '#d62728' lw 2", f);
    if (rate)
        fputs(", $tl using 1:6 title 'start lag p99' lc rgb '#ef8a17' lw 2", f);
    fputs("\nset ylabel 'transactions'\n"
          "plot $tl using 1:7 title 'backlog (due, not started)' lc rgb '#7b4fb3' lw 2\n", f);
    fputs("set ylabel '% of all CPUs'\nset xlabel 'seconds since the start of measurement'\n"
          "plot $tl using 1:8 title 'client CPU' lc rgb '#1f6fb4' lw 2, "
          "$tl using 1:9 title 'server CPU' lc rgb '#d62728' lw 2\n"
          "unset multiplot\n", f);
}

static void write_timeline(FILE *f, const void *p, const char *name, bool svg)
{
    write_script(f, p, name, svg);
}

int sb_plot_timeline(const struct sb_point *p, const char *path, FILE *out, char *err,
                     size_t errlen)
{
    char name[PATH_MAX];
    bool svg;

    if (!timeline_name(path, name, sizeof(name), &svg)) {
        snprintf(err, errlen, "invalid value '%s' for --plot", path);
        return -1;
    }
    if (p->nintervals < 2) {
        if (out != NULL)
            fprintf(out, "No time-axis chart: it needs at least 2 interval reports "
                    "(--report-interval)\n");
        return 0;
    }
    if (sb_gnuplot_render(name, svg, "timeline.gp", write_timeline, p, NULL, 0, err, errlen) != 0)
        return -1;
    if (out != NULL) {
        fprintf(out, "Time-axis chart written: %s\n", name);
        fflush(out);
    }
    return 0;
}
