#!/usr/bin/env bash
#
# The run's check of itself and the time axis: the "Self-check" section
# and points[].selfcheck (generator-bound, not stationary, error-dominated),
# --hgrm (HdrHistogram's percentile distribution text), the service-time
# and lag histograms in the JSON and absolute timestamps in the CSV.
#
# Run by `make check`, or by hand: bash tests/cli/selfcheck_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read the JSON documents"

L="$SB_SRCDIR/tests/lua"

# An event that burns 5 ms of CPU.
write_busy() {
    cat >busy.lua <<'EOF'
function event()
  local t = os.clock() + 0.005
  while os.clock() < t do end
end
EOF
}

# An event that sleeps 1 ms (plus, with SLOPE_US set, SLOPE_US more for
# every second since the first event: a throughput that falls with time).
write_sleep() {
    cat >sleep.lua <<'EOF'
local ffi = require("ffi")
ffi.cdef[[
int usleep(unsigned int);
struct sc_tv { long s; long us; };
int gettimeofday(struct sc_tv *, void *);
]]
local tv = ffi.new("struct sc_tv")
local slope = tonumber(os.getenv("SLOPE_US") or "0")
local t0
local function now()
  ffi.C.gettimeofday(tv, nil)
  return tonumber(tv.s) + tonumber(tv.us) / 1e6
end
function event()
  t0 = t0 or now()
  ffi.C.usleep(1000 + math.floor(slope * (now() - t0)))
end
EOF
}

# ---------------------------------------------------------------- self-check

tcase "an event burning more CPU than the rate allows is flagged generator-bound"
write_busy
sb busy.lua run --tx-rate=1000 --time=2 --json=r.json
assert_exit 0
assert_match out "^ +generator-bound: +YES"
assert_match out "^ +result: +FLAGGED \[generator-bound"
assert_match out "^ +throughput: .*per sec\. \[generator-bound"
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["ok"]')" false "selfcheck.ok"
assert_eq "$(jget r.json '"generator-bound" in d["points"][0]["selfcheck"]["flags"]')" true \
    "generator-bound flag"
# 5 ms per event at a 1 ms period: the lag and the rate both say so.
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["generator_bound"]["lag_bound"]')" true \
    "lag_bound"
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["generator_bound"]["rate_short"]')" true \
    "rate_short"
assert_lt "$(jget r.json 'd["points"][0]["selfcheck"]["generator_bound"]["achieved_pct"]')" 50 \
    "achieved_pct"
# The thread never waits for anything but a CPU: on one, or runnable
# (its run-queue wait counts: on a shared machine CPU time alone says
# nothing). Kernels without schedstat leave worker_busy_pct null.
if [ -r /proc/thread-self/schedstat ]; then
    assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["generator_bound"]["cpu_bound"]')" true \
        "cpu_bound"
    assert_ge "$(jget r.json 'd["points"][0]["selfcheck"]["generator_bound"]["worker_busy_pct"]')" 90 \
        "worker_busy_pct"
fi

tcase "a clean low-rate run is not flagged"
write_sleep
# A 250 ms period: the lag may reach 25 ms (a loaded machine's wake-ups)
# before the run is generator-bound.
sb sleep.lua run --tx-rate=4 --time=2 --json=r.json
assert_exit 0
assert_match out "^ +generator-bound: +no"
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["generator_bound"]["cpu_bound"]')" false \
    "cpu_bound"
assert_match out "^ +error-dominated: +no"
assert_match out "^ +result: +OK"
assert_match out "^ +stationary: +not tested \([12] samples? of 1 s"
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["flags"]')" "[]" "flags"
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["stationarity"]["tested"]')" false "tested"
assert_between "$(jget r.json 'd["points"][0]["selfcheck"]["stationarity"]["samples"]')" 1 2 "samples"

tcase "a falling throughput is flagged not stationary"
write_sleep
SLOPE_US=2000 sb sleep.lua run --time=6 --json=r.json
assert_exit 0
assert_match out "^ +stationary: +NO \(fitted throughput change -"
assert_contains out "lengthen --warmup-time"
assert_eq "$(jget r.json '"not-stationary" in d["points"][0]["selfcheck"]["flags"]')" true "flag"
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["stationarity"]["samples"]')" 6 "samples"
assert_lt "$(jget r.json 'd["points"][0]["selfcheck"]["stationarity"]["change_pct"]')" -10 \
    "change_pct"
# The samples add up to the run's events (each is events/second of 1 s).
assert_between "$(jget r.json 'round(sum(d["points"][0]["selfcheck"]["stationarity"]["tps"]) / d["points"][0]["final"]["events"], 3)')" \
    0.9 1.1 "samples against events"

tcase "a flat throughput is stationary"
write_sleep
sb sleep.lua run --tx-rate=100 --time=6 --json=r.json
assert_exit 0
assert_match out "^ +stationary: +yes \("
assert_eq "$(jget r.json '"not-stationary" in d["points"][0]["selfcheck"]["flags"]')" false "flag"
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["stationarity"]["tested"]')" true "tested"

tcase "ignored errors above 5% of transactions are flagged error-dominated"
sb --sqlite-db=rb.db "$L/engine_compat.lua" setup
assert_exit 0
SB_MODE=rollback sb --sqlite-db=rb.db --db-ignore-errors=1 "$L/engine_compat.lua" run \
    --threads=1 --events=5 --json=r.json
assert_exit 0
assert_match out "^WARNING: 5 ignored errors for 5 transactions"
assert_match out "^ +error-dominated: +YES \(ignored errors 100.00%"
assert_eq "$(jget r.json '"error-dominated" in d["points"][0]["selfcheck"]["flags"]')" true "flag"
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["errors"]["ignored_pct"]')" 100 "ignored_pct"

tcase "the sweep table shows each point's self-check"
write_sleep
sb sleep.lua run --threads=1,2 --tx-rate=4 --time=1
assert_exit 0
assert_match out "relative +self-check$"
assert_count out "^ +[12] +4\.00 .* ok$" 2

# ---------------------------------------------------------------- --hgrm

tcase "--hgrm writes HdrHistogram's percentile distribution of every event"
write_sleep
sb sleep.lua run --threads=2 --time=1 --hgrm=r.hgrm --json=r.json
assert_exit 0
ev=$(report_num out "total number of events:")
assert_contains out "Response-time histogram (HdrHistogram text): r.hgrm"
python3 - r.hgrm "$ev" "$(report_num out "max:")" >check.txt <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
ev, mx = int(sys.argv[2]), float(sys.argv[3])
assert lines[0].split() == ["Value", "Percentile", "TotalCount", "1/(1-Percentile)"], lines[0]
assert lines[1] == ""
rows = []
for l in lines[2:]:
    if l.startswith("#") or not l:
        break
    f = l.split()
    rows.append((float(f[0]), float(f[1]), int(f[2]), float(f[3]) if len(f) > 3 else None))
assert len(rows) > 10, len(rows)
for a, b in zip(rows, rows[1:]):
    assert a[0] <= b[0] and a[1] < b[1] and a[2] <= b[2], (a, b)
for v, p, c, inv in rows[:-1]:
    assert abs(inv - 1 / (1 - p)) < 0.01, (p, inv)
assert rows[0][1] == 0 and rows[-1][1] == 1 and rows[-1][3] is None
assert rows[-1][2] == ev, (rows[-1][2], ev)
assert abs(rows[-1][0] - mx) < 0.006, (rows[-1][0], mx)
foot = [l for l in lines if l.startswith("#[")]
assert len(foot) == 3 and foot[0].startswith("#[Mean    =") and foot[1].startswith("#[Max     =")
assert int(re.search(r"Total count += +(\d+)", foot[1]).group(1)) == ev
print("ok")
EOF
assert_eq "$(cat check.txt)" ok "hgrm check"

tcase "--hgrm to a path that cannot be written stops before the run"
write_ev
sb ev.lua run --time=1 --hgrm=/nonexistent/dir/r.hgrm
assert_exit 1
assert_fatal "cannot write the --hgrm file '/nonexistent/dir/r.hgrm'"
assert_not_contains out "Threads started"

tcase "a sweep writes one --hgrm file per point"
write_ev
sb ev.lua run --threads=1,2 --time=1 --hgrm=s.hgrm
assert_exit 0
[ -s s-1.hgrm ] && [ -s s-2.hgrm ] || fail "s-1.hgrm and s-2.hgrm not both written"

# ---------------------------------------------------------------- JSON, CSV

tcase "the JSON histograms of service time and lag re-sum to the events"
write_sleep
sb sleep.lua run --threads=2 --tx-rate=200 --time=2 --json=r.json
assert_exit 0
ev=$(jget r.json 'd["points"][0]["final"]["events"]')
assert_gt "$ev" 0 "events"
for h in service lag; do
    assert_eq "$(jget r.json "d['points'][0]['histograms']['$h']['count']")" "$ev" "$h count"
    assert_eq "$(jget r.json "sum(b[2] for b in d['points'][0]['histograms']['$h']['buckets'])")" \
        "$ev" "$h bucket sum"
    assert_eq "$(jget r.json "d['points'][0]['histograms']['$h']['of']")" "$h" "$h of"
done
assert_eq "$(jget r.json 'sum(b[2] for b in d["points"][0]["histogram"]["buckets"])')" "$ev" \
    "response bucket sum"

tcase "the CSV and the JSON intervals carry absolute, increasing timestamps"
write_ev
t0=$(date +%s)
sb ev.lua run --time=3 --report-interval=1 --csv=r.csv --json=r.json
t1=$(date +%s)
assert_exit 0
assert_match r.csv "^point,.*,epoch_s$"
python3 - r.csv "$t0" "$t1" >check.txt <<'EOF'
import csv, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
t0, t1 = int(sys.argv[2]), int(sys.argv[3])
assert len(rows) == 3, len(rows)
e = [float(r["epoch_s"]) for r in rows]
assert all(t0 - 1 <= x <= t1 + 1 for x in e), (e, t0, t1)
assert all(a < b for a, b in zip(e, e[1:])), e
# One report interval apart, as time_s says.
for r, s in zip(rows, rows[1:]):
    d = (float(s["epoch_s"]) - float(r["epoch_s"])) - (float(s["time_s"]) - float(r["time_s"]))
    assert abs(d) < 0.01, d
print("ok")
EOF
assert_eq "$(cat check.txt)" ok "CSV epoch_s"
assert_eq "$(jget r.json 'all(abs((i["epoch_s"] - i["time_s"]) - (d["points"][0]["intervals"][0]["epoch_s"] - d["points"][0]["intervals"][0]["time_s"])) < 0.01 for i in d["points"][0]["intervals"])')" \
    true "JSON epoch_s"

# ---------------------------------------------------------------- --log

tcase "--log writes one pgbench line per measured transaction"
write_sleep
sb sleep.lua run --threads=2 --time=2 --warmup-time=1 --log=tx.log
assert_exit 0
ev=$(report_num out "total number of events:")
assert_gt "${ev:-0}" 0 "events"
assert_lines tx.log "$ev"
# client_id transaction_no time script_no time_epoch time_us: six fields,
# each thread numbering its transactions 1, 2, 3, ...
assert_eq "$(awk 'NF != 6 || $4 != 0 || $6 >= 1000000 { bad++ } END { print bad + 0 }' tx.log)" 0 \
    "malformed lines"
assert_eq "$(awk '{ if ($2 != ++n[$1]) bad++ } END { print bad + 0 }' tx.log)" 0 "numbering"
assert_eq "$(awk '{ print $1 }' tx.log | sort -u | tr '\n' ' ')" "0 1 " "client ids"
now=$(date +%s)
assert_eq "$(awk -v now="$now" '$5 < now - 60 || $5 > now { bad++ } END { print bad + 0 }' tx.log)" \
    0 "epoch times"

tcase "--log in a rate mode adds the schedule lag"
write_sleep
sb sleep.lua run --threads=2 --tx-rate=200 --time=2 --log=tx.log
assert_exit 0
ev=$(report_num out "total number of events:")
assert_lines tx.log "$ev"
assert_eq "$(awk 'NF != 7 || $7 < 0 || $3 < $7 { bad++ } END { print bad + 0 }' tx.log)" 0 \
    "lines with a lag no larger than the response time"

tcase "--log-aggregate-interval sums to the transactions"
write_sleep
sb sleep.lua run --threads=2 --tx-rate=200 --time=2 --log=agg.log --log-aggregate-interval=1
assert_exit 0
ev=$(report_num out "total number of events:")
assert_eq "$(awk '{ s += $2 } END { print s }' agg.log)" "$ev" "num_transactions sum"
# pgbench 15's 15 fields, one line per interval, in time order.
assert_eq "$(awk 'NF != 15 || $1 % 1 != 0 || $5 > $6 || $3 < $5 * $2 || $1 <= last { bad++ } { last = $1 } END { print bad + 0 }' agg.log)" \
    0 "malformed or unordered aggregate lines"

tcase "--log-aggregate-interval counts the slots --tx-late=skip dropped"
write_sleep
sb sleep.lua run --threads=2 --tx-rate=5000 --tx-late=skip --time=2 --log=agg.log \
    --log-aggregate-interval=1
assert_exit 0
sk=$(report_num out "skipped:")
assert_gt "${sk:-0}" 0 "skipped slots"
assert_eq "$(awk '{ s += $11 } END { print s }' agg.log)" "$sk" "skipped column sum"

tcase "--log options are checked before the run"
write_ev
sb ev.lua run --time=1 --log-aggregate-interval=5
assert_exit 1
assert_fatal "--log-aggregate-interval needs --log=FILE"
sb ev.lua run --time=1 --log=/nonexistent/dir/tx.log
assert_exit 1
assert_fatal "cannot write the --log file '/nonexistent/dir/tx.log'"

# ---------------------------------------------------------------- --plot

tcase "--plot on a single run draws the time axis too"
if command -v gnuplot >/dev/null 2>&1; then
    write_sleep
    sb sleep.lua run --tx-rate=100 --time=3 --report-interval=1 --plot=c.png
    assert_exit 0
    assert_contains out "Time-axis chart written: c-timeline.png"
    assert_eq "$(head -c 8 c-timeline.png | od -An -tx1 | tr -d ' ')" 89504e470d0a1a0a "PNG signature"
    # Without interval reports there is no time axis, and the run says so.
    sb sleep.lua run --tx-rate=100 --time=1 --plot=d.png
    assert_exit 0
    assert_contains out "No time-axis chart: it needs at least 2 interval reports"
    [ ! -e d-timeline.png ] || fail "d-timeline.png drawn without intervals"
else
    echo "  (gnuplot not installed: checked only that the suite knows it)"
fi

finish
