# SPDX-License-Identifier: GPL-2.0-or-later
# latency.gp: the response-time percentile curves from the stored
# histograms, both axes logarithmic; the percentile axis is 1/(1 - p),
# so that 90%, 99%, 99.9% are evenly spaced.
# Set before it: NP panels in ROWS x COLS, PTITLE[NP] (the point of each
# panel, '' for one panel of every point); NC curves per panel;
# CT[NP*NC] (the legend of curve c of panel p at (p - 1) * NC + c, ''
# when that curve has no data); SEQ (1: the curves are the points of one
# result, coloured from light to dark load on one scale; 0: the curves
# are results, coloured as in the other charts); XMAX (the percentile
# axis ends at 1/(1 - p) = XMAX); YLO, YHI (whole decades, the same on
# every panel; NaN when there is no data).
# Data: lat_<p>_<c>.dat, the curve's steps (x, milliseconds). Tick
# labels are formats: %% is a percent sign.
array PNAME[8] = ['0%%', '90%%', '99%%', '99.9%%', '99.99%%', '99.999%%', '99.9999%%', '99.99999%%']
NT = floor(log10(XMAX) + 0.5) + 1
NT = NT > 8 ? 8 : NT
set logscale xy 10
set xtics ()
do for [i = 1:NT] { set xtics add (PNAME[i] 10**(i - 1)) }
set xrange [1:XMAX]
set format y '%g'
set grid xtics ytics mytics lt 1 lc rgb '#d9d9d9' lw 1, lt 1 lc rgb '#eeeeee' lw 1
set xlabel 'percentile'
set ylabel 'response time (ms)'
if (YHI == YHI) { set yrange [YLO:YHI] }
# Points of one load, light to heavy, on one ordered scale.
set palette defined (0 '#0d0887', 0.33 '#7e03a8', 0.66 '#cc4778', 1 '#f48c2c')
unset colorbox
ccolor(c) = NC > 1 ? (c - 1.0) / (NC - 1) : 0
# Legends go outside the data, at the right of each panel.
set key outside right top vertical Left reverse samplen 2 font ',10'
if (NP > 1) {
    unset title
    set multiplot layout ROWS, COLS title TITLE font ',14'
}
if (NP == 1 && PTITLE[1] ne '') { set title TITLE.', '.PTITLE[1] font ',14' }
do for [p = 1:NP] {
    if (NP > 1) { set title PTITLE[p] font ',12' }
    if (SEQ) {
        plot for [c = 1:NC] D.sprintf('lat_%d_%d.dat', p, c) using 1:2 \
             with lines lw 2 lc palette frac ccolor(c) title CT[(p - 1) * NC + c]
    } else {
        plot for [c = 1:NC] D.sprintf('lat_%d_%d.dat', p, c) using 1:2 \
             with lines lw 2 lc rgb color(c) dt dash(c) title CT[(p - 1) * NC + c]
    }
}
if (NP > 1) { unset multiplot }
