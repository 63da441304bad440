# SPDX-License-Identifier: GPL-2.0-or-later
# usl.gp: a thread sweep and its Universal Scalability Law fit: every
# run's throughput against its threads, the fitted curve
# X(N) = LAMBDA*N / (1 + SIGMA*(N-1) + KAPPA*N*(N-1)) with its parameters
# and R^2 in the legend, N* and X(N*) marked (or, without a peak, the
# level the curve tends to, dotted), and in red what makes the fit or
# its peak doubtful.
# Set before it: LAMBDA, SIGMA, KAPPA, R2, MAXREL (the fit); NSTAR, XSTAR
# (N* and X(N*); NSTAR NaN without a peak, XSTAR then the level or NaN);
# SHOWN (1: N* lies on the chart); XHI, YHI (the axes' ends); WPOOR,
# WPEAK (the warnings, '' for none).
# Data: runs.dat (threads, tps per run), curve.dat (N, X(N)), peak.dat
# (N*, X(N*)).
set key inside right bottom vertical Left reverse samplen 2 font ',10' box opaque
set grid xtics ytics lt 1 lc rgb '#d9d9d9'
set xrange [0:XHI]
set yrange [0:YHI]
set xlabel 'threads (N)'
set ylabel 'throughput (transactions per second)'
if (WPOOR ne '') {
    set label 1 WPOOR at graph 0.02, graph 0.96 left font ',10' tc rgb '#d62728' front
}
if (WPEAK ne '') {
    set label 2 WPEAK at graph 0.02, graph (WPOOR ne '' ? 0.91 : 0.96) left font ',10' tc rgb '#d62728' front
}
if (SHOWN) {
    set arrow 1 from first NSTAR, graph 0 to first NSTAR, first XSTAR nohead dt 2 lw 1.5 lc rgb '#2a9d3a'
}
FITTITLE = sprintf('USL fit: lambda %.4g tps, sigma %.4g, kappa %.4g; R^2 %.4f (largest residual %.1f%%)', \
                   LAMBDA, SIGMA, KAPPA, R2, 100 * MAXREL)
PEAKTITLE = SHOWN ? sprintf('N* = %.1f threads, X(N*) = %.2f tps', NSTAR, XSTAR) : ''
LEVEL = NSTAR != NSTAR && XSTAR == XSTAR
LEVELTITLE = LEVEL ? sprintf('no peak: levels off at %.2f tps', XSTAR) : ''
if (SHOWN) {
    plot D.'curve.dat' using 1:2 with lines lw 2 lc rgb '#1f6fb4' title FITTITLE, \
         D.'runs.dat' using 1:2 with points pt 7 ps 1.3 lc rgb '#d62728' title 'measured (one run)', \
         D.'peak.dat' using 1:2 with points pt 9 ps 2.4 lc rgb '#2a9d3a' title PEAKTITLE
} else {
    plot D.'curve.dat' using 1:2 with lines lw 2 lc rgb '#1f6fb4' title FITTITLE, \
         D.'runs.dat' using 1:2 with points pt 7 ps 1.3 lc rgb '#d62728' title 'measured (one run)', \
         (LEVEL ? XSTAR : NaN) with lines dt 3 lw 1.5 lc rgb '#555555' title LEVELTITLE
}
