# SPDX-License-Identifier: GPL-2.0-or-later
# throughput.gp: transactions per second by point (threads, or target
# rate and threads), one line per result.
# Set before it: N results, LABEL[N]; NK points, KEY[NK] (tick names);
# XLABEL, YLABEL; BARS (1: error bars from the slowest to the fastest
# run).
# Data: tps.dat, per point its index (0..NK-1), then per result the
# median, the slowest and the fastest run.
set xrange [-0.5:NK - 0.5]
set xtics ()
do for [k = 1:NK] { set xtics add (KEY[k] k - 1) }
set xlabel XLABEL
set ylabel YLABEL
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
set bmargin 6
set key at screen 0.5, screen 0.02 center bottom horizontal samplen 3
if (BARS) {
    plot for [r = 1:N] D.'tps.dat' using 1:(column(3*r - 1)):(column(3*r)):(column(3*r + 1)) \
         with yerrorlines lw 2.5 pt 7 ps 1.3 lc rgb color(r) dt dash(r) title LABEL[r]
} else {
    plot for [r = 1:N] D.'tps.dat' using 1:(column(3*r - 1)) \
         with linespoints lw 2.5 pt 7 ps 1.3 lc rgb color(r) dt dash(r) title LABEL[r]
}
