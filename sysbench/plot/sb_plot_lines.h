/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_PLOT_LINES_H
#define SB_PLOT_LINES_H

/*
 * The line and bar charts of the points (sb_plot_lines.c); internal to
 * plot/. Each writes its chart into pl's gnuplot job and counts it as
 * drawn; sb_plot.c decides which are drawn.
 */

#include "plot/sb_plot_chart.h"

/* Their templates: throughput.gp or throughput-rates.gp, relative.gp,
 * cpu.gp, latency-throughput.gp. */
void sb_plot_chart_throughput(struct sb_plot_charts *pl);
void sb_plot_chart_relative(struct sb_plot_charts *pl);
void sb_plot_chart_cpu(struct sb_plot_charts *pl);
void sb_plot_chart_latency_throughput(struct sb_plot_charts *pl);

#endif /* SB_PLOT_LINES_H */
