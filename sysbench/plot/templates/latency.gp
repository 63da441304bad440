# SPDX-License-Identifier: GPL-2.0-or-later
# latency.gp: the response-time percentile curves from the stored
# histograms, both axes logarithmic; the percentile axis is 1/(1 - p),
# so that 90%, 99%, 99.9% are evenly spaced. A curve pools the
# histograms of all its runs; dots mark the percentiles the report
# prints (the run's --percentile list, or compare's tables) at the value
# it prints, with that value's 95% interval as whiskers.
# Set before it: NP panels in ROWS x COLS, PTITLE[NP] (the point of each
# panel, '' for one panel of every point); NC curves per panel;
# CT[NP*NC] (the legend of curve c of panel p at (p - 1) * NC + c, ''
# when that curve has no data); SEQ (1: the curves are the points of one
# result, coloured from light to dark load on one scale; 0: the curves
# are results, or the two ends of a --find-max bracket, coloured as in
# the other charts); XMAX (the percentile axis ends at 1/(1 - p) =
# XMAX); YLO, YHI (whole decades, the same on every panel; NaN when
# there is no data); MARKTITLE (the legend of the dots, '' for none);
# MARKLABELS (1: each dot is labelled with its percentile).
# Without labels they are empty strings, not NaN positions: gnuplot 5.4
# crashes (SIGSEGV) on a labels plot whose every point is NaN.
# Data: lat_<i>.dat, the steps of curve i = (p - 1) * NC + c (x,
# milliseconds); lm_<i>.dat, its dots: x, milliseconds, the interval's
# low and high ends (NaN: none), the label ("p99"). Tick labels are
# formats: %% is a percent sign.
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
# One panel: the legend outside the data, at its right. Panels: one
# legend, in the first panel's top left corner (latency rises to the
# right: that corner stays empty), the same colours in every panel.
if (NP == 1) {
    set key outside right top vertical Left reverse samplen 2 font ',10'
} else {
    set key inside left top vertical Left reverse samplen 2 font ',9' opaque box lc rgb '#cccccc'
}
set bars 1
if (NP > 1) {
    unset title
    unset label 99
    set tmargin
    set multiplot layout ROWS, COLS title (NOTE ne '' ? TITLE."\n".NOTE : TITLE) font ',12'
}
if (NP == 1 && PTITLE[1] ne '') { set title TITLE.', '.PTITLE[1] font ',14' offset 0, TOFF }
do for [p = 1:NP] {
    if (NP > 1) { set title PTITLE[p] font ',12' }
    MT = p == 1 ? MARKTITLE : ''
    if (p == 2) { unset key }
    if (SEQ) {
        plot for [c = 1:NC] D.sprintf('lat_%d.dat', (p - 1) * NC + c) using 1:2 \
             with lines lw 2 lc palette frac ccolor(c) title CT[(p - 1) * NC + c], \
             for [c = 1:NC] D.sprintf('lm_%d.dat', (p - 1) * NC + c) using 1:($3 == $3 ? $2 : NaN):3:4 \
             with yerrorbars pt 0 lw 1.5 lc palette frac ccolor(c) notitle, \
             for [c = 1:NC] D.sprintf('lm_%d.dat', (p - 1) * NC + c) using 1:2 \
             with points pt 7 ps 1.1 lc palette frac ccolor(c) title (c == 1 ? MT : ''), \
             for [c = 1:NC] D.sprintf('lm_%d.dat', (p - 1) * NC + c) using 1:2:(MARKLABELS ? stringcolumn(5) : '') \
             with labels offset 0,1 font ',9' notitle
    } else {
        plot for [c = 1:NC] D.sprintf('lat_%d.dat', (p - 1) * NC + c) using 1:2 \
             with lines lw 2 lc rgb color(c) dt dash(c) title CT[(p - 1) * NC + c], \
             for [c = 1:NC] D.sprintf('lm_%d.dat', (p - 1) * NC + c) using 1:($3 == $3 ? $2 : NaN):3:4 \
             with yerrorbars pt 0 lw 1.5 lc rgb color(c) notitle, \
             for [c = 1:NC] D.sprintf('lm_%d.dat', (p - 1) * NC + c) using 1:2 \
             with points pt 7 ps 1.1 lc rgb color(c) title (c == 1 ? MT : ''), \
             for [c = 1:NC] D.sprintf('lm_%d.dat', (p - 1) * NC + c) using 1:2:(MARKLABELS ? stringcolumn(5) : '') \
             with labels offset 0,1 font ',9' tc rgb color(c) notitle
    }
}
if (NP > 1) { unset multiplot }
