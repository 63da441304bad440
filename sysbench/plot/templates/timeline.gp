# SPDX-License-Identifier: GPL-2.0-or-later
# timeline.gp: the time axis of one run, stacked panels sharing time in
# seconds: throughput (and the target), response time p50/p99 (and start
# lag p99), the backlog (rate mode only: a closed loop has none), and
# client/server CPU (only the sides measured; no panel when neither
# was).
# Set before it: RATE (1: a fixed target rate), CLIENT, SERVER (1: that
# CPU was measured), NPANELS (the panels drawn), LOGY (1: the latencies
# span more than two decades, so their axis is logarithmic).
# Data: tl.dat, per interval: seconds, tx/s, target, p50, p99, lag p99,
# backlog, client CPU %, server CPU %.
unset title
unset label 99
set tmargin
set multiplot layout NPANELS,1 title (NOTE ne '' ? TITLE."\n".NOTE : TITLE) font ',13'
set lmargin 12
# Legends in the right margin, the same width on every panel, so that the
# panels keep one time axis and no legend hides a line.
set rmargin 26
set key outside right top vertical Left reverse samplen 2
set yrange [0:*]
set style data linespoints
set pointsize 0.6
# The time axis is named under the last panel only.
P = 0
next_panel(x) = (P = P + 1, P == NPANELS)
XNAME = 'seconds since the start of measurement'
set ylabel 'transactions/s'
if (next_panel(0)) { set xlabel XNAME }
plot D.'tl.dat' using 1:2 title 'throughput' lc rgb '#1f6fb4' lw 2, \
     D.'tl.dat' using 1:3 title shown(RATE, 'target') with lines dt 2 lc rgb '#555555' lw 2
set ylabel 'ms'
if (next_panel(0)) { set xlabel XNAME }
if (LOGY) { set logscale y; set yrange [*:*] }
plot D.'tl.dat' using 1:4 title 'response p50' lc rgb '#2a9d3a' lw 2, \
     D.'tl.dat' using 1:5 title 'response p99' lc rgb '#d62728' lw 2, \
     D.'tl.dat' using 1:6 title shown(RATE, 'start lag p99') lc rgb '#ef8a17' lw 2
unset logscale y
set yrange [0:*]
if (RATE) {
    set ylabel 'due, not started (tx)'
    if (next_panel(0)) { set xlabel XNAME }
    plot D.'tl.dat' using 1:7 title 'backlog' lc rgb '#7b4fb3' lw 2
}
if (CLIENT || SERVER) {
    set ylabel '% of all CPUs'
    if (next_panel(0)) { set xlabel XNAME }
    plot D.'tl.dat' using 1:8 title shown(CLIENT, 'client CPU') lc rgb '#1f6fb4' lw 2, \
         D.'tl.dat' using 1:9 title shown(SERVER, 'server CPU') lc rgb '#d62728' lw 2
}
unset multiplot
