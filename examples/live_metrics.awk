# SPDX-License-Identifier: GPL-2.0-or-later
#
# One progress line from the /metrics answers of a scale-out run's
# instances (doc/results.md, "Live metrics"), concatenated, each preceded
# by a line "#instance I up" or "#instance I down". Used by
# examples/pdsh/run.sh and examples/k8s/run.sh.
#
#   awk -v n=3 -f live_metrics.awk scrapes.txt
#
# Sums the instances' rates, targets, errors and backlogs (gauges of each
# one's last interval); the latency is the largest instance's value of
# the highest quantile served, so an upper bound of the merged one.
function val(line) { return line + 0 }
/^#instance / { cur = $2; up[cur] = ($3 == "up"); next }
/^#/ { next }
{
    name = $1; sub(/\{.*/, "", name); v = val($NF)
    if (name == "sysbench_transactions_per_second") { tps += v; got[cur] = 1 }
    else if (name == "sysbench_target_transactions_per_second") { target += v; has_target = 1 }
    else if (name == "sysbench_errors_per_second") errs += v
    else if (name == "sysbench_backlog_transactions") backlog += v
    else if (name == "sysbench_elapsed_seconds") { if (v > elapsed) elapsed = v }
    else if (name == "sysbench_latency_seconds" && match($1, /quantile="[^"]*"/)) {
        q = substr($1, RSTART + 10, RLENGTH - 11) + 0
        if (q > maxq) { maxq = q; lat = 0 }
        if (q == maxq && v > lat) lat = v
    }
}
END {
    nup = 0; nrep = 0
    for (i in up) nup += up[i]
    for (i in got) nrep++
    if (nrep == 0) {
        printf "live: waiting for the first interval (%d of %d instances answer)\n", nup, n
        exit
    }
    printf "live: %6.1f s  %10.1f tx/s", elapsed, tps
    if (has_target) printf " of %.1f", target
    if (maxq > 0) printf "  p%g <= %.2f ms", maxq * 100, lat * 1000
    printf "  errors %.1f/s", errs
    if (has_target) printf "  backlog %d", backlog
    printf "  (%d of %d instances reporting)\n", nrep, n
}
