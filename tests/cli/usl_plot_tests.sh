#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --plot of a thread sweep draws its Universal Scalability Law fit
# (plot/sb_plot_usl.c, templates/usl.gp), tested as a figure: the
# chart's data files (the runs, the fitted curve, N* and X(N*)) and the
# figures set for its template must be the JSON "usl" record and points
# of the same run, within the precision they are printed with (10
# significant digits); a sweep of fewer than 4 thread counts has no fit
# and no chart. No server: the events sleep and hold one shared lock.
#
# Run by `make check`, or by hand: bash tests/cli/usl_plot_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read the JSON documents"

# Events that hold one lock shared by all threads (flock on one file) for
# HOLD_MS of their PERIOD_MS: a curve that rises and levels off. With
# ZIGZAG set, an odd thread count's events take 1 ms and an even count's
# 12 ms instead: throughput that no USL curve follows.
write_lock() {
    fixture lock.lua
    export PERIOD_MS=6 HOLD_MS=2
}

# check_figure JSON GPDIR: the chart's data and variables against the
# JSON document of the same run; prints "ok" or what differs.
check_figure() {
    python3 - "$1" "$2" <<'PY'
import json, math, re, sys
d = json.load(open(sys.argv[1]))
g = sys.argv[2]
u = d["usl"]
bad = []
def close(a, b, what):
    if a is None or b is None:
        if a != b:
            bad.append("%s: %r vs %r" % (what, a, b))
    elif abs(a - b) > 1e-9 * max(abs(a), abs(b), 1e-300):
        bad.append("%s: %r vs %r" % (what, a, b))
def rows(name):
    return [[float(x) for x in l.split()] for l in open(g + "/" + name) if l.strip()]
lam, sig, kap = u["lambda"], u["sigma"], u["kappa"]
X = lambda n: lam * n / (1 + sig * (n - 1) + kap * n * (n - 1))
curve = rows("curve.dat")
if len(curve) < 100:
    bad.append("curve of %d samples" % len(curve))
for n, x in curve:
    close(x, X(n), "curve at %g" % n)
ns = [n for n, _ in curve]
if ns != sorted(ns) or ns[0] != 1 or ns[-1] < u["max_threads"]:
    bad.append("curve spans %g to %g, the runs 1 to %g" % (ns[0], ns[-1], u["max_threads"]))
peak = rows("peak.dat")
if u["peak_threads"] is None:
    if peak:
        bad.append("a peak drawn without one: %r" % peak)
elif u["peak_threads"] <= ns[-1]:
    if len(peak) != 1:
        bad.append("peak.dat: %r" % peak)
    else:
        close(peak[0][0], u["peak_threads"], "N*")
        close(peak[0][1], u["peak_tps"], "X(N*)")
        close(peak[0][1], X(peak[0][0]), "X(N*) on the curve")
runs = sorted((p["threads"], p["final"]["tps"]) for p in d["points"])
drawn = sorted(tuple(r) for r in rows("runs.dat"))
if len(runs) != len(drawn) or len(drawn) != u["points"]:
    bad.append("%d runs drawn, %d in the JSON, %d fitted" % (len(drawn), len(runs), u["points"]))
for (n1, x1), (n2, x2) in zip(runs, drawn):
    close(float(n1), n2, "run threads")
    close(x1, x2, "run tps at %g" % n1)
# The figures the template prints in the legend and its warnings.
script = open(g + "/usl.gp").read()
def var(name):
    m = re.search(r"^%s = (.*)$" % name, script, re.M)
    return m.group(1) if m else None
for name, key in (("LAMBDA", "lambda"), ("SIGMA", "sigma"), ("KAPPA", "kappa"), ("R2", "r2"),
                  ("NSTAR", "peak_threads")):
    v = var(name)
    close(None if v in (None, "NaN") else float(v), u[key], name)
wpoor, wpeak = var("WPOOR"), var("WPEAK")
if (wpoor != "''") != u["poor"]:
    bad.append("WPOOR %s with poor %s" % (wpoor, u["poor"]))
if (wpeak != "''") != (u["peak"] != "inside"):
    bad.append("WPEAK %s with the peak %s" % (wpeak, u["peak"]))
print("ok" if not bad else "; ".join(bad[:5]))
PY
}

tcase "--plot of a 5-count sweep: the USL chart's curve, N*, X(N*) and runs are the JSON's usl record"
write_lock
mkdir tmp
TMPDIR=$PWD/tmp SB_PLOT_KEEP=1 SB_TIMEOUT=120 sb lock.lua --threads=1,2,3,4,6 --time=0.5 \
    --json=s.json --plot=s.png run
assert_exit 0
assert_contains out "Universal Scalability Law fit (5 runs, 1 to 6 threads):"
assert_contains out "USL chart written: s-usl.png"
[ -s s-usl.png ] || fail "no s-usl.png"
gp=$(ls tmp/*/usl.gp 2>/dev/null | head -n 1)
[ -n "$gp" ] || fail "the USL gnuplot script was not kept"
assert_eq "$(check_figure s.json "$(dirname "$gp")")" "ok" "the chart against the JSON"
assert_contains "$gp" "FITTITLE = sprintf('USL fit: lambda %.4g tps, sigma %.4g, kappa %.4g; R^2 %.4f"
assert_contains "$gp" "PEAKTITLE = SHOWN ? sprintf('N* = %.1f threads, X(N*) = %.2f tps', NSTAR, XSTAR)"

tcase "a poor fit is said on the chart, and its figures are still the record's"
write_lock
mkdir tmp
TMPDIR=$PWD/tmp SB_PLOT_KEEP=1 SB_TIMEOUT=120 ZIGZAG=1 sb lock.lua --threads=1,2,3,4,5 --time=0.5 \
    --json=z.json --plot=z.svg run
assert_exit 0
assert_contains out "USL chart written: z-usl.svg"
assert_eq "$(py 'd["usl"]["poor"]' z.json)" "True" "a zigzag of 1 and 12 ms events fits poorly"
gp=$(ls tmp/*/usl.gp 2>/dev/null | head -n 1)
[ -n "$gp" ] || fail "the USL gnuplot script was not kept"
assert_eq "$(check_figure z.json "$(dirname "$gp")")" "ok" "the chart against the JSON"
assert_match "$gp" "^WPOOR = 'Poor fit \(R\^2 -?[0-9.]+, a run [0-9]+% off the curve\): N\* and X\(N\*\) are not to be trusted.'"
assert_contains z-usl.svg "Poor fit (R^2"

tcase "a sweep of 3 counts, or a single run, draws no USL chart"
write_lock
mkdir tmp
TMPDIR=$PWD/tmp SB_PLOT_KEEP=1 SB_TIMEOUT=120 sb lock.lua --threads=1,2,4 --time=0.3 \
    --json=t.json --plot=t.png run
assert_exit 0
assert_contains out "Charts written:"
assert_not_contains out "USL chart"
[ ! -e t-usl.png ] || fail "t-usl.png drawn for 3 thread counts"
[ -z "$(ls tmp/*/usl.gp 2>/dev/null)" ] || fail "a USL script was written for 3 counts"
assert_eq "$(py '"usl" in d' t.json)" "False"
# Four runs at three counts are no 4-count sweep either.
TMPDIR=$PWD/tmp sb lock.lua --threads=1,2,4,4 --time=0.3 --json=r.json --plot=r.png run
assert_exit 0
assert_not_contains out "USL chart"
[ ! -e r-usl.png ] || fail "r-usl.png drawn for 3 distinct thread counts"

finish
