# SPDX-License-Identifier: GPL-2.0-or-later
# latency-throughput.gp: response time against achieved throughput over
# the rated points (a --tx-rate sweep, a --find-max search): where
# latency turns up is the capacity. Per result, pPA dashed with open
# points and pPB solid.
# Set before it: N results, LABEL[N]; PA, PB (the two percentiles);
# XLO, XHI (the throughput axis); LOGY (1: the latencies span more than
# two decades, so the axis is logarithmic); SLA_PCT, SLA_MS (the
# --find-max SLA, NaN without one), HELD (the rate it found, NaN if
# none), HELD_RIGHT (1: HELD is right of the middle, its label goes left
# of it); FLAGGED (1: some point has runs flagged by their self-check).
# Data: lt<r>.dat (r = 1..N), per point achieved tx/s, pPA ms, pPB ms,
# the flagged runs.
set xlabel 'achieved transactions per second'
set ylabel 'response time (ms)'
if (LOGY) { set logscale y } else { set yrange [0:*] }
set xrange [XLO:XHI]
set offsets 0, 0, graph 0.08, 0
set bmargin 7
set key at screen 0.5, screen 0.02 center bottom horizontal samplen 3
if (HELD == HELD) {
    set arrow 1 from first HELD, graph 0 to first HELD, graph 1 nohead lw 2.5 lc rgb '#2a9d3a' front
    if (HELD_RIGHT) {
        set label 1 sprintf('rate held: %.2f tx/s', HELD) at first HELD, graph 0.95 right offset -0.6,0 tc rgb '#1d6e29' front
    } else {
        set label 1 sprintf('rate held: %.2f tx/s', HELD) at first HELD, graph 0.95 left offset 0.6,0 tc rgb '#1d6e29' front
    }
}
plot for [r = 1:N] D.sprintf('lt%d.dat', r) using 1:2 \
         with linespoints lw 2 pt 6 ps 1.2 dt 2 lc rgb color(r) title sprintf('%s p%g', LABEL[r], PA), \
     for [r = 1:N] D.sprintf('lt%d.dat', r) using 1:3 \
         with linespoints lw 2 pt 7 ps 1.2 dt 1 lc rgb color(r) title sprintf('%s p%g', LABEL[r], PB), \
     (SLA_MS) with lines dt 2 lw 2 lc rgb '#d62728' \
         title shown(SLA_MS == SLA_MS, sprintf('SLA: p%g <= %g ms', SLA_PCT, SLA_MS)), \
     for [r = 1:N] D.sprintf('lt%d.dat', r) using 1:($4 > 0 ? $3 : NaN) \
         with points pt 6 ps 3 lw 2 lc rgb FLAGRGB title (r == 1 ? flagtitle(FLAGGED) : '')
