# SPDX-License-Identifier: GPL-2.0-or-later
# findmax.gp: the --find-max search on a numeric target-rate axis:
# above, the SLA percentile of every run (open) and of every rate
# (filled, the median), with the SLA limit dashed; below, the achieved
# share of the target, with the 99.5% a held rate needs. Green held, red
# missed; the rate found is a solid vertical line, the bracket up to the
# lowest rate missed is shaded, and the closed-loop throughput is
# dotted; runs whose self-check was not ok are ringed.
# Set before it: PCT, MS (the SLA: pPCT <= MS ms); HELD, MISSED, CLOSED
# (tx/s, NaN when not known); XLO, XHI (the rate axis); FLAGGED (1: some
# run is ringed).
# Data: runs.dat, per run: target, achieved %, latency ms, colour, 1 when
# its self-check was not ok; med.dat, per rate the same (without the
# last column) with medians and the rate's verdict.
unset title
set multiplot layout 2,1 title TITLE font ',13'
set grid xtics ytics lt 1 lc rgb '#d9d9d9'
set lmargin 12
# The legends in the right margin, the same width on both panels, so
# that the panels keep one rate axis and no legend covers a mark or the
# other panel's axis labels.
set rmargin 34
set key outside right top vertical Left reverse samplen 2 font ',10'
set xrange [XLO:XHI]
RIGHT = HELD == HELD && HELD > (XLO + XHI) / 2
if (HELD == HELD && MISSED == MISSED) {
    set object 1 rect from first HELD, graph 0 to first MISSED, graph 1 fc rgb '#bfe5bf' fs solid 0.6 noborder behind
}
if (HELD == HELD) {
    set arrow 1 from first HELD, graph 0 to first HELD, graph 1 nohead lw 2.5 lc rgb '#2a9d3a' front
    LTEXT = MISSED == MISSED ? sprintf('rate held: %.2f tx/s (capacity below %.2f)', HELD, MISSED) \
                             : sprintf('rate held: %.2f tx/s', HELD)
    if (RIGHT) {
        set label 1 LTEXT at first HELD, graph 0.93 right offset -0.6,0 tc rgb '#1d6e29' front
    } else {
        set label 1 LTEXT at first (MISSED == MISSED ? MISSED : HELD), graph 0.93 left offset 0.6,0 tc rgb '#1d6e29' front
    }
}
if (CLOSED == CLOSED) {
    set arrow 2 from first CLOSED, graph 0 to first CLOSED, graph 1 nohead dt 3 lw 1.5 lc rgb '#777777'
    # On the side of its line with room, as the rate-held label.
    if (CLOSED > (XLO + XHI) / 2) {
        set label 2 sprintf('closed loop: %.2f tx/s', CLOSED) at first CLOSED, graph 0.06 right offset -0.6,0 tc rgb '#555555'
    } else {
        set label 2 sprintf('closed loop: %.2f tx/s', CLOSED) at first CLOSED, graph 0.06 left offset 0.6,0 tc rgb '#555555'
    }
}
set logscale y
set ylabel sprintf('p%g response time (ms)', PCT)
plot D.'med.dat' using 1:3 with lines lw 1.5 lc rgb '#999999' notitle, \
     D.'runs.dat' using 1:3:4 with points pt 6 ps 1.2 lc rgb variable notitle, \
     D.'med.dat' using 1:3:4 with points pt 7 ps 1.6 lc rgb variable notitle, \
     D.'runs.dat' using 1:($5 > 0 ? $3 : NaN) with points pt 6 ps 2.6 lw 1.5 lc rgb FLAGRGB notitle, \
     MS with lines dt 2 lw 2 lc rgb '#d62728' title sprintf('SLA: p%g <= %g ms', PCT, MS), \
     NaN with points pt 6 ps 1.2 lc rgb '#555555' title 'one run', \
     NaN with points pt 7 ps 1.6 lc rgb '#555555' title 'median of the runs of a rate', \
     NaN with points pt 7 ps 1.6 lc rgb '#2a9d3a' title 'held', \
     NaN with points pt 7 ps 1.6 lc rgb '#d62728' title 'missed', \
     NaN with points pt 6 ps 2.6 lw 1.5 lc rgb FLAGRGB title flagtitle(FLAGGED)
# The marks again without their labels, which the upper panel carries.
unset label
unset logscale y
set ylabel 'achieved (% of the target)'
set xlabel 'target rate (transactions per second)'
plot D.'med.dat' using 1:2 with lines lw 1.5 lc rgb '#999999' notitle, \
     D.'runs.dat' using 1:2:4 with points pt 6 ps 1.2 lc rgb variable notitle, \
     D.'med.dat' using 1:2:4 with points pt 7 ps 1.6 lc rgb variable notitle, \
     D.'runs.dat' using 1:($5 > 0 ? $2 : NaN) with points pt 6 ps 2.6 lw 1.5 lc rgb FLAGRGB notitle, \
     99.5 with lines dt 2 lw 2 lc rgb '#d62728' title 'held needs >= 99.5%'
unset multiplot
