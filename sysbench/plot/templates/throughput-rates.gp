# SPDX-License-Identifier: GPL-2.0-or-later
# throughput-rates.gp: a sweep of target rates at one thread count
# (--tx-rate lists, --find-max): throughput against the target on a
# numeric axis, so that uneven rates (a bisection's) keep their spacing,
# with the line achieved = target and each result's closed-loop
# throughput as a dotted level; whiskers span the 95% interval of the
# value over the runs (or, for a rate measured again as new points, its
# lowest to its highest run).
# Set before it: N results, LABEL[N], CLOSED[N] (closed-loop tx/s, NaN
# if none); XLO, XHI (the rate axis); YLABEL; FLAGGED (1: some point has
# runs flagged by their self-check).
# Data: tr<r>.dat (r = 1..N), per rate: the target (moved a little per
# result), the value, the whiskers' low and high ends (NaN: none), the
# flagged runs, the runs.
set xlabel 'target rate (tx/s)'
set ylabel YLABEL
set yrange [0:*]
set xrange [XLO:XHI]
set offsets 0, 0, graph 0.08, 0
set bmargin 7
set key at screen 0.5, screen 0.02 center bottom horizontal samplen 3
plot x with lines dt 2 lw 1.5 lc rgb '#888888' title 'achieved = target', \
     for [r = 1:N] D.sprintf('tr%d.dat', r) using 1:($3 == $3 ? $2 : NaN):3:4 \
         with yerrorbars lw 1.5 pt 0 lc rgb color(r) notitle, \
     for [r = 1:N] D.sprintf('tr%d.dat', r) using 1:2 \
         with linespoints lw 2.5 pt 7 ps 1.1 lc rgb color(r) dt dash(r) title LABEL[r], \
     for [r = 1:N] (CLOSED[r]) with lines dt 3 lw 2 lc rgb color(r) \
         title shown(CLOSED[r] == CLOSED[r], LABEL[r].' closed loop'), \
     for [r = 1:N] D.sprintf('tr%d.dat', r) using 1:($5 > 0 ? $2 : NaN) \
         with points pt 6 ps 3 lw 2 lc rgb FLAGRGB title (r == 1 ? flagtitle(FLAGGED) : '')
