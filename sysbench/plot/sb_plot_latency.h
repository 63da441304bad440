/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_PLOT_LATENCY_H
#define SB_PLOT_LATENCY_H

/* The latency chart (sb_plot_latency.c); internal to plot/. */

#include "plot/sb_plot_chart.h"

/* The response-time percentile curves (latency.gp): a panel per point
 * (at most 6) with a curve per result, or for one result a curve per
 * point (at most 12) on one colour scale in load order; none drawn when
 * no point has a histogram. */
void sb_plot_chart_latency(struct sb_plot_charts *pl);

#endif /* SB_PLOT_LATENCY_H */
