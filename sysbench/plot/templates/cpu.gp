# SPDX-License-Identifier: GPL-2.0-or-later
# cpu.gp: CPU microseconds per transaction. On a point axis (XNUM 0),
# for each point a group of bars, one per result and side (client,
# server), the user part solid under the system part light, whiskers
# spanning the 95% interval of the total over the runs; on a target
# rate axis (XNUM 1), a line per result and side, the total solid and
# the user part dashed. Sides no file measured are left out.
# Set before it: NB series, BLABEL[NB]; NOCPU (1: nothing was measured);
# BOXW (bar width); BARLABELS (1: the total above each bar); FLAGGED (1:
# some point has runs flagged by their self-check); XLABEL, XNUM (1: a
# target-rate axis from XLO to XHI), NK, KEY[NK].
# Data: cpu<j>.dat (j = 1..NB), per point: x, the user part, the total
# (user + system), its interval's low and high ends (NaN: none), the
# flagged runs, the runs.
set xlabel XLABEL
set ylabel 'CPU µs per transaction'
set yrange [0:*]
set grid noxtics
set bmargin 8
set key at screen 0.5, screen 0.02 center bottom horizontal samplen 3
set offsets 0, 0, graph 0.1, 0
if (XNUM) {
    set xrange [XLO:XHI]
} else {
    set xrange [-0.5:NK - 0.5]
    set xtics ()
    do for [k = 1:NK] { set xtics add (KEY[k] k - 1) }
}
if (NOCPU) {
    set label 1 'CPU was not measured in these results' at graph 0.5, graph 0.5 center
    set yrange [0:1]
    plot NaN notitle
} else { if (XNUM) {
    plot for [j = 1:NB] D.sprintf('cpu%d.dat', j) using 1:3 \
             with linespoints lw 2.5 pt 7 ps 1.1 lc rgb color(j) title BLABEL[j].' user + system', \
         for [j = 1:NB] D.sprintf('cpu%d.dat', j) using 1:($4 == $4 ? $3 : NaN):4:5 \
             with yerrorbars lw 1.5 pt 0 lc rgb color(j) notitle, \
         for [j = 1:NB] D.sprintf('cpu%d.dat', j) using 1:2 \
             with linespoints lw 1.5 dt 2 pt 6 ps 1 lc rgb color(j) title BLABEL[j].' user', \
         for [j = 1:NB] D.sprintf('cpu%d.dat', j) using 1:($6 > 0 ? $3 : NaN) \
             with points pt 6 ps 3 lw 2 lc rgb FLAGRGB title (j == 1 ? flagtitle(FLAGGED) : '')
} else {
    set boxwidth BOXW absolute
    set style fill solid 1.0 border lc rgb '#444444'
    # The light bar is the total; the solid user part is drawn over its
    # lower end, so the light part shows the system time. The two grey
    # keys say which is which for every colour.
    plot for [j = 1:NB] D.sprintf('cpu%d.dat', j) using 1:3 with boxes fs solid 0.3 lc rgb color(j) notitle, \
         for [j = 1:NB] D.sprintf('cpu%d.dat', j) using 1:2 with boxes fs solid 0.9 lc rgb color(j) title BLABEL[j], \
         NaN with boxes fs solid 0.9 lc rgb '#666666' title 'user (solid)', \
         NaN with boxes fs solid 0.3 lc rgb '#666666' title 'system (light)', \
         for [j = 1:NB] D.sprintf('cpu%d.dat', j) using 1:($4 == $4 ? $3 : NaN):4:5 with yerrorbars lw 1.5 pt 0 lc rgb '#222222' notitle, \
         for [j = 1:NB] D.sprintf('cpu%d.dat', j) using 1:($6 > 0 ? $3 : NaN) \
             with points pt 6 ps 3 lw 2 lc rgb FLAGRGB title (j == 1 ? flagtitle(FLAGGED) : ''), \
         for [j = 1:NB] D.sprintf('cpu%d.dat', j) using 1:(BARLABELS ? ($5 == $5 ? $5 : $3) : NaN):(sprintf('%.0f', $3)) \
             with labels offset 0,0.7 font ',9' notitle
} }
