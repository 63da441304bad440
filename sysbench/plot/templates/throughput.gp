# SPDX-License-Identifier: GPL-2.0-or-later
# throughput.gp: transactions per second by point (threads, or target
# rate and threads), one line per result, the results of one point side
# by side; whiskers span the 95% interval of the value over the runs.
# Set before it: N results, LABEL[N]; NK points, KEY[NK] (tick names);
# XLABEL, YLABEL; FLAGGED (1: some point has runs flagged by their
# self-check).
# Data: tps<r>.dat (r = 1..N), per point: x (the point's index 0..NK-1,
# moved a little per result), the value, the interval's low and high
# ends (NaN under two runs), the flagged runs, the runs.
set xrange [-0.5:NK - 0.5]
set xtics ()
do for [k = 1:NK] { set xtics add (KEY[k] k - 1) }
set xlabel XLABEL
set ylabel YLABEL
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
set bmargin 7
set key at screen 0.5, screen 0.02 center bottom horizontal samplen 3
set bars 1.5
plot for [r = 1:N] D.sprintf('tps%d.dat', r) using 1:($3 == $3 ? $2 : NaN):3:4 \
         with yerrorbars lw 1.5 pt 0 lc rgb color(r) notitle, \
     for [r = 1:N] D.sprintf('tps%d.dat', r) using 1:2 \
         with linespoints lw 2.5 pt 7 ps 1.3 lc rgb color(r) dt dash(r) title LABEL[r], \
     for [r = 1:N] D.sprintf('tps%d.dat', r) using 1:($5 > 0 ? $2 : NaN) \
         with points pt 6 ps 3 lw 2 lc rgb FLAGRGB title (r == 1 ? flagtitle(FLAGGED) : ''), \
     for [r = 1:N] D.sprintf('tps%d.dat', r) using 1:($5 > 0 ? $2 : NaN):(sprintf('%d of %d flagged', $5, $6)) \
         with labels left offset 1.6,-0.9 font ',9' tc rgb FLAGRGB notitle
