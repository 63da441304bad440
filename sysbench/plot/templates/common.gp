# SPDX-License-Identifier: GPL-2.0-or-later
# common.gp: the start of every chart of sysbench --plot.
# Set before it: OUT (the file), SVG (1 for SVG, else PNG), W and H
# (size in pixels), TITLE, NOTE (a line under the title saying what the
# chart draws, '' for none). D is the directory of the data files.
if (SVG) {
    set terminal svg noenhanced size W,H dynamic font 'DejaVu Sans,12' background rgb 'white'
} else {
    set terminal pngcairo noenhanced size W,H font 'DejaVu Sans,11' background rgb 'white'
}
set encoding utf8
set output OUT
set title TITLE font ',14'
# The note: smaller, between the title and the plot, in the room a taller
# top margin leaves (a chart of panels puts it in its multiplot title
# instead).
TOFF = 0
if (NOTE ne '') {
    TOFF = 1.2
    set title TITLE font ',14' offset 0, TOFF
    set label 99 NOTE at screen 0.5, graph 1 offset 0, 1.2 center font ',10' tc rgb '#444444'
    set tmargin 5
}
set border 3 lc rgb '#555555'
set tics nomirror out
set grid ytics lt 1 lc rgb '#d9d9d9' lw 1
# Line colours, told apart in colour and in grey; from the ninth line on
# they come again with another dash pattern, so no two lines look alike.
array COLOR[8] = ['#1f6fb4', '#d62728', '#2a9d3a', '#ef8a17', '#7b4fb3', '#8c564b', '#d357b0', '#17a2b8']
color(i) = COLOR[(i - 1) % 8 + 1]
dash(i) = (i - 1) / 8 + 1
# A series that was not measured is drawn without a legend entry.
shown(ok, t) = ok ? t : ''
# The mark of a point with runs whose self-check was not ok: a black ring
# around it (FLAGGED: some point has one, so the legend names the mark).
FLAGRGB = '#000000'
flagtitle(ok) = ok ? 'ring: self-check not OK in some run' : ''
