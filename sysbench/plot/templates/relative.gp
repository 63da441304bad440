# SPDX-License-Identifier: GPL-2.0-or-later
# relative.gp: throughput relative to the first result at the same
# point, or, for one result, to its first point (how the sweep scales).
# compare's ratios come with the interval its table prints (whiskers)
# and the verdict, written beside each point.
# Set before it: N results, LABEL[N]; FROM (the first result drawn: 2
# when the first is the reference); REFTITLE (legend of the 1.0 line, ''
# for none); YLABEL, XLABEL; XNUM (1: x is the target rate, a numeric
# axis from XLO to XHI; 0: x is the point's index, named by KEY[NK]);
# PTLABELS (1: the ratio is written next to each point); LOGY (1: a
# logarithmic axis, for intervals a decade wide); YSTEP, YDEC (the tick
# step and the decimals of its labels on a linear axis).
# Data: rel<r>.dat (r = FROM..N), per point: x, the ratio, its
# interval's low and high ends (NaN: none), the height of the label, and
# the label (a quoted string: the ratio, and the verdict when judged).
if (XNUM) {
    set xrange [XLO:XHI]
} else {
    set xrange [-0.5:NK - 0.5]
    set xtics ()
    do for [k = 1:NK] { set xtics add (KEY[k] k - 1) }
}
set offsets 0, 0, graph 0.12, graph 0.12
set xlabel XLABEL
set ylabel YLABEL
if (LOGY) {
    set logscale y
    set format y '%gx'
} else {
    # A round step and as many decimals as it needs: every tick label is
    # distinct (ticks 0.0025 apart at two decimals would repeat 1.01x).
    set ytics YSTEP
    set format y sprintf('%%.%dfx', YDEC)
}
set bmargin 7
set key at screen 0.5, screen 0.02 center bottom horizontal samplen 3
set bars 1.5
plot 1 with lines lw 1.5 dt 2 lc rgb '#888888' title REFTITLE, \
     for [r = FROM:N] D.sprintf('rel%d.dat', r) using 1:($3 == $3 ? $2 : NaN):3:4 \
         with yerrorbars lw 1.5 pt 0 lc rgb color(r) notitle, \
     for [r = FROM:N] D.sprintf('rel%d.dat', r) using 1:2 \
         with linespoints lw 2.5 pt 7 ps 1.3 lc rgb color(r) dt dash(r) title LABEL[r], \
     for [r = FROM:N] D.sprintf('rel%d.dat', r) using 1:(PTLABELS ? $5 : NaN):6 \
         with labels offset 0,1.1 font ',9' tc rgb color(r) notitle
