# SPDX-License-Identifier: GPL-2.0-or-later
# ab.gp: a sysbench ab comparison: the ratio b/a of the primary figure in
# each round (circles: a went first, triangles: b went first), the
# estimate at each look with its interval as a band (at that look's own
# level, so the band narrows as rounds come and the levels relax), no
# change as a solid line and the equivalence margin dashed.
# Set before it: FIGURE (the primary figure's name), LA, LB (the labels),
# MARGIN (a fraction, NaN: none), NROUNDS, YLO and YHI (the ratio axis),
# LOGY (1: a log ratio axis).
# Data: rounds.dat: round, ratio, 1 when a went first;
# looks.dat: round, estimate, low, high.
set key below horizontal
set xlabel 'round'
set ylabel sprintf('%s / %s of %s', LB, LA, FIGURE)
if (LOGY) {
    set logscale y
} else {
    set format y '%.3f'
}
set xrange [0.5:NROUNDS + 0.5]
set yrange [YLO:YHI]
set grid xtics ytics lt 1 lc rgb '#e5e5e5'
if (MARGIN == MARGIN) {
    set arrow 1 from graph 0, first (1 + MARGIN) to graph 1, first (1 + MARGIN) nohead dt 2 lw 1.5 lc rgb '#2a9d3a' back
    set arrow 2 from graph 0, first 1 / (1 + MARGIN) to graph 1, first 1 / (1 + MARGIN) nohead dt 2 lw 1.5 lc rgb '#2a9d3a' back
}
set arrow 3 from graph 0, first 1 to graph 1, first 1 nohead lw 1.5 lc rgb '#555555' back
plot D.'looks.dat' using 1:3:4 with filledcurves fc rgb '#1f6fb4' fs transparent solid 0.18 noborder title 'interval at each look (its level)', \
     D.'looks.dat' using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#1f6fb4' title 'estimate at each look', \
     D.'rounds.dat' using 1:($3 == 1 ? $2 : NaN) with points pt 6 ps 1.3 lc rgb '#d62728' title sprintf('round, %s first', LA), \
     D.'rounds.dat' using 1:($3 == 0 ? $2 : NaN) with points pt 8 ps 1.3 lc rgb '#ef8a17' title sprintf('round, %s first', LB), \
     NaN with lines dt 2 lw 1.5 lc rgb '#2a9d3a' title (MARGIN == MARGIN ? sprintf('margin +-%g%%', 100 * MARGIN) : '')
