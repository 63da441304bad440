#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The run's check of itself and the time axis: the "Self-check" section
# (printed in full at --verbosity=4; the default report's one verdict line
# is tested in output_tests.sh) and points[].selfcheck (client-bound, server-bound, contention, not
# stationary, error-dominated) on a labelled set of runs,
# --hgrm (HdrHistogram's percentile distribution text), the service-time
# and lag histograms in the JSON and absolute timestamps in the CSV.
#
# Run by `make check`, or by hand: bash tests/cli/selfcheck_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read the JSON documents"

L="$SB_SRCDIR/tests/lua"

# ---------------------------------------------------------------- self-check
#
# The labelled set: runs whose right verdict is known by construction, each
# checked for exactly its flags (verdict below). The server cases
# (MariaDB, PostgreSQL) are in tests/drivers/selfcheck.sh.
#
#   run                                            expected
#   spinning 5 ms of CPU per event at 1000/s       client-bound
#   sleeping 50 ms per event at 40/s, 1 thread     server-bound (cause unknown)
#   1 ms events, 4 of them stalling 300 ms, 10/s   no flag (not client-bound)
#   1 ms events at 4/s                             no flag
#   1 ms events at 100/s, process stopped 3 ms/10  late wake-ups (not client-bound)
#   events growing 2 ms per second, closed loop    not stationary
#   3 ms of CPU at 150/s beside 4 busy loops/CPU   contention (not client-bound)
#   SQLite closed loop (engine in the client)      no flag (not client-bound)
#   SQLite 100k-row CTE at 1000/s, 1 thread        server-bound (not client-bound)
#
# Contention is a true verdict beside any label when other processes did
# take most of the machine (the run's machine CPU says so) and the run
# shows an effect: on a loaded developer machine a "clean" run may rightly
# get it. Alone on the machine (CI) the clean runs must be OK.


# An event that burns BUSY_MS (default 5) ms of CPU.
write_busy() {
    cat >busy.lua <<'EOF'
local ms = tonumber(os.getenv("BUSY_MS") or "5")
function event()
  local t = os.clock() + ms / 1000
  while os.clock() < t do end
end
EOF
}

# An event that sleeps SLEEP_US (default 1000) us. With FALL_PER_S set the
# sleep is instead 1/(100 - FALL_PER_S * t) s, t the seconds since the
# first event: one thread's throughput falls in a straight line from
# 100/s by FALL_PER_S each second. Sleeps of 10 ms and more keep a loaded
# machine's late wake-ups (a few ms) small against the fall.
write_sleep() {
    cat >sleep.lua <<'EOF'
local ffi = require("ffi")
ffi.cdef[[
int usleep(unsigned int);
struct sc_tv { long s; long us; };
int gettimeofday(struct sc_tv *, void *);
]]
local tv = ffi.new("struct sc_tv")
local base = tonumber(os.getenv("SLEEP_US") or "1000")
local fall = tonumber(os.getenv("FALL_PER_S") or "0")
local t0
local function now()
  ffi.C.gettimeofday(tv, nil)
  return tonumber(tv.s) + tonumber(tv.us) / 1e6
end
function event()
  t0 = t0 or now()
  if fall > 0 then
    ffi.C.usleep(math.floor(1e6 / math.max(100 - fall * (now() - t0), 10)))
  else
    ffi.C.usleep(base)
  end
end
EOF
}

tcase "labelled: a client spinning at an unreachable rate is client-bound"
write_busy
sb busy.lua run --verbosity=4 --tx-rate=1000 --time=2 --json=r.json
assert_exit 0
assert_match out "^ +client-bound: +YES"
assert_match out "^ +result: +FLAGGED \[client-bound"
assert_match out "^ +throughput: .*per sec\. \[client-bound"
assert_contains out "=> client-bound: the client was short of CPU"
verdict "spinning 5 ms/event at 1000/s" r.json client-bound
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["ok"]')" false "selfcheck.ok"
# 5 ms of CPU per event at 1000/s needs five cores of the one thread: the
# client's own demand, whatever else ran on the machine.
assert_ge "$(jget r.json 'd["points"][0]["selfcheck"]["client_bound"]["client_demand_pct"]')" 300 \
    "client_demand_pct"
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["server_bound"]["rate_short"]')" true \
    "rate_short"
assert_lt "$(jget r.json 'd["points"][0]["selfcheck"]["server_bound"]["achieved_pct"]')" 50 \
    "achieved_pct"
# The thread never waits for anything but a CPU: on one, or runnable.
# Kernels without schedstat leave worker_busy_pct null.
if [ -r /proc/thread-self/schedstat ]; then
    assert_ge "$(jget r.json 'd["points"][0]["selfcheck"]["client_bound"]["worker_busy_pct"]')" 90 \
        "worker_busy_pct"
fi

tcase "labelled: events longer than the period are server-bound, not the client's"
write_sleep
# 50 ms per event on 1 connection at 40/s: the connection would need 200%
# of its time; the client is idle in usleep.
SLEEP_US=50000 sb sleep.lua run --verbosity=4 --tx-rate=40 --threads=1 --time=3 --json=r.json
assert_exit 0
assert_match out "^ +client-bound: +no"
assert_match out "^ +server-bound: +YES"
assert_contains out "=> server-bound (cause unknown): each connection was busy"
assert_contains out "the server's CPU was not measured"
verdict "50 ms sleeps at 40/s, 1 thread" r.json server-bound
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["server_bound"]["cause"]')" unknown "cause"
assert_ge "$(jget r.json 'd["points"][0]["selfcheck"]["server_bound"]["utilisation_pct"]')" 150 \
    "utilisation_pct"
assert_ge "$(jget r.json 'd["points"][0]["selfcheck"]["server_bound"]["suggest_threads"]')" 3 \
    "suggest_threads"

tcase "labelled: server stalls make lag but are not the client's fault"
# Events 10, 30, 50 and 70 stall 300 ms (three periods): the start lag p99
# is far above 10% of the 100 ms period (sysbench flagged that
# generator-bound), yet the worker was free at every due time.
cat >stall.lua <<'EOF'
local ffi = require("ffi")
ffi.cdef[[ int usleep(unsigned int); ]]
local n = 0
function event()
  n = n + 1
  ffi.C.usleep((n % 20 == 10 and n < 80) and 300000 or 1000)
end
EOF
sb stall.lua run --verbosity=4 --tx-rate=10 --threads=1 --time=10 --json=r.json
assert_exit 0
assert_match out "^ +server-bound: +no"
verdict "1 ms events, 4 stalls of 300 ms, 10/s" r.json
assert_gt "$(jget r.json 'd["points"][0]["selfcheck"]["server_bound"]["lag_pct_of_period"]')" 100 \
    "lag_pct_of_period"
assert_lt "$(jget r.json 'd["points"][0]["selfcheck"]["server_bound"]["utilisation_pct"]')" 50 \
    "utilisation_pct"

tcase "labelled: a clean low-rate run is not flagged"
write_sleep
# A 250 ms period: the client may start up to 25 ms late (a loaded
# machine's wake-ups) on 1% of its starts before it is client-bound.
sb sleep.lua run --verbosity=4 --tx-rate=4 --time=2 --json=r.json
assert_exit 0
assert_match out "^ +client-bound: +no"
assert_match out "^ +server-bound: +no"
assert_match out "^ +error-dominated: +no"
assert_match out "^ +stationary: +not enough evidence \([12] samples? of 1 s"
verdict "1 ms events at 4/s" r.json
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["stationarity"]["tested"]')" false "tested"
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["stationarity"]["verdict"]')" \
    too-few-samples "stationarity verdict"
assert_between "$(jget r.json 'd["points"][0]["selfcheck"]["stationarity"]["samples"]')" 1 2 "samples"

tcase "labelled: a process held off its CPUs wakes late: late wake-ups, not client-bound"
write_sleep
# The kernel waking an idle worker late, made certain: the process is
# stopped for 3 ms out of every 10 ms (SIGSTOP/SIGCONT, as a virtual
# machine's host takes its CPUs away). A stopped thread is neither on a CPU
# nor waiting for one: the client is not short of CPU, yet a third of its
# wake-ups come up to 3 ms late, most of a 1 ms event's response p99.
cat >stopper.py <<'EOF'
import os, signal, sys, time
pid, end = int(sys.argv[1]), time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    try:
        os.kill(pid, signal.SIGSTOP)
        time.sleep(0.003)
        os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        break
    time.sleep(0.007)
EOF
sb_bg sleep.lua run --verbosity=4 --tx-rate=100 --threads=1 --time=4 --json=r.json
python3 stopper.py "$SB_PID" 6
kill -CONT "$SB_PID" 2>/dev/null
sb_wait
assert_exit 0
assert_match out "^ +client-bound: +no"
assert_match out "^ +wake-up delay: +p99 [0-9.]+ ms after the due time of an idle connection"
# The finding's figures: the wake-up p99 above the 1 ms threshold.
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["late_wakeups"]["wake_high"]')" true "wake_high"
assert_ge "$(jget r.json 'd["points"][0]["selfcheck"]["late_wakeups"]["wake_p99_ms"]')" 1.5 "wake_p99_ms"
if [ "$(jget r.json 'd["points"][0]["selfcheck"]["contention"]["others_dominant"]')" = true ]; then
    # Others took the machine: its figures are the contention's, which
    # explains late wake-ups too (they are not judged apart then).
    verdict "stopped 3 ms in 10, 1 ms events at 100/s (contended)" r.json contention
else
    verdict "stopped 3 ms in 10, 1 ms events at 100/s" r.json late-wakeups
    assert_match out "^ +late wake-ups: +YES"
    assert_match out "=> late wake-ups: the kernel woke idle workers late \(wake-up delay p99 [0-9.]+ ms.*--tx-spin=[0-9]+ "
    assert_ge "$(jget r.json 'd["points"][0]["selfcheck"]["late_wakeups"]["suggest_tx_spin_us"]')" 1500 \
        "suggest_tx_spin_us"
fi

tcase "labelled: a falling throughput is flagged not stationary"
write_sleep
# 100/s falling to 30/s over 10 s: on a machine at load 20 the first
# form (a sleep growing 2 ms per second from 1 ms: 1,000/s falling to
# 48/s along a curve) left t = -1.92 against 2.26; a straight fall of 70%
# stays significant there.
FALL_PER_S=7 sb sleep.lua run --verbosity=4 --time=11 --json=r.json
assert_exit 0
# On a machine others took (contention flagged), the run may be held up
# past its samples (5 of 10 seen beside an ASan suite): "not enough
# evidence" is then the true answer. A falling throughput is never
# called stationary.
if [ "$(jget r.json '"contention" in d["points"][0]["selfcheck"]["flags"]')" = true ]; then
    assert_match out "^ +stationary: +(NO|not enough evidence) \("
    assert_ne "$(jget r.json 'd["points"][0]["selfcheck"]["stationarity"]["verdict"]')" stationary \
        "stationarity verdict"
else
    assert_match out "^ +stationary: +NO \(fitted throughput change -"
    assert_contains out "lengthen --warmup-time"
    verdict "throughput falling 7/s per second" r.json not-stationary
    assert_ge "$(jget r.json 'd["points"][0]["selfcheck"]["stationarity"]["samples"]')" 10 "samples"
    assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["stationarity"]["verdict"]')" \
        not-stationary "stationarity verdict"
    assert_lt "$(jget r.json 'd["points"][0]["selfcheck"]["stationarity"]["change_pct"]')" -10 \
        "change_pct"
    # The samples add up to the run's events (each is events/second of 1 s).
    assert_between "$(jget r.json 'round(sum(d["points"][0]["selfcheck"]["stationarity"]["tps"]) / d["points"][0]["final"]["events"], 3)')" \
        0.9 1.1 "samples against events"
fi

tcase "a flat throughput is stationary"
write_sleep
sb sleep.lua run --verbosity=4 --tx-rate=100 --time=11 --json=r.json
assert_exit 0
assert_eq "$(jget r.json '"not-stationary" in d["points"][0]["selfcheck"]["flags"]')" false "flag"
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["stationarity"]["tested"]')" true "tested"
# On a machine others took (contention flagged: starts held up by hundreds
# of ms were seen), or when the run's own starts were held up past 10
# periods (a start lag p99 of 1,258 ms without the contention flag, others
# at 37% of the CPUs beside an ASan suite), the per-second throughput is
# noisy enough that a large change is not significant: "not enough
# evidence" is then the true answer. Otherwise the flat rate must be found
# stationary.
if [ "$(jget r.json '"contention" in d["points"][0]["selfcheck"]["flags"] or d["points"][0]["selfcheck"]["server_bound"]["lag_p99_ms"] >= 100')" = true ]; then
    assert_match out "^ +stationary: +(yes|not enough evidence) \("
else
    assert_match out "^ +stationary: +yes \("
    assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["stationarity"]["verdict"]')" stationary \
        "stationarity verdict"
fi

tcase "labelled: busy loops outside client and server are contention"
write_busy
# 3 ms of CPU at 150/s needs 45% of one core: the client alone keeps up.
# Four busy loops per CPU leave it about a fifth of one and take most of
# the machine: contention, neither client-bound nor server-bound.
# The loops end when the file spin goes (or after 120 s, so that an
# interrupted suite leaves none behind), never by a kill of their PIDs: at
# load 40-57 the run outlived a 30-s bound, the PIDs were free again, and
# a kill of them could reach another suite's process (signal_tests once
# saw a second SIGTERM it never sent).
loops=()
: >spin
for _ in $(seq $((4 * $(nproc)))); do
    timeout 120 sh -c 'while [ -e spin ]; do :; done' &
    loops+=($!)
done
BUSY_MS=3 sb busy.lua run --verbosity=4 --tx-rate=150 --threads=1 --time=4 --json=r.json
rm -f spin
wait "${loops[@]}" 2>/dev/null
assert_exit 0
assert_match out "^ +contention: +YES"
assert_contains out "=> contention: other processes took most of the machine's CPU"
verdict "3 ms CPU at 150/s beside busy loops" r.json contention
assert_ge "$(jget r.json 'd["points"][0]["selfcheck"]["contention"]["other_cpu_pct"]')" 50 \
    "other_cpu_pct"
assert_lt "$(jget r.json 'd["points"][0]["selfcheck"]["client_bound"]["client_demand_pct"]')" 90 \
    "client_demand_pct"

tcase "labelled: SQLite's engine in the client is not the client's fault"
cat >sq.lua <<'EOF'
local n = tonumber(os.getenv("CTE_N") or "1")
local sql = string.format("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c " ..
                          "WHERE x < %d) SELECT count(*) FROM c", n)
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query_row(sql) end
EOF
# A closed loop keeps the engine, and so the worker, busy: that is the
# database at work, not a client limit.
sb --db-driver=sqlite --sqlite-db=a.db sq.lua run --verbosity=4 --threads=1 --time=2 --json=r.json
assert_exit 0
assert_match out "^ +in-process workload: +the workload runs in the client"
verdict "SQLite closed loop" r.json
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["client_bound"]["in_process"]')" true \
    "in_process"
# 100,000-row CTEs (several ms of CPU each) at 1000/s on one connection:
# the engine would need several CPUs, more than the machine has: the
# verdict names the engine (server-bound, cause "server"), never the
# client. (At 5000/s the 20 us left between one transaction's end and
# the next start is less than a TSan build's own bookkeeping takes: that
# client is rightly late.)
CTE_N=100000 sb --db-driver=sqlite --sqlite-db=a.db sq.lua run --verbosity=4 --threads=1 --tx-rate=1000 \
    --time=2 --json=r.json
assert_exit 0
assert_match out "^ +server-bound: +YES"
assert_contains out "=> server-bound (the server): the server is the limit at this rate: the in-process workload"
verdict "SQLite 100k-row CTE at 1000/s" r.json server-bound
assert_eq "$(jget r.json 'd["points"][0]["selfcheck"]["server_bound"]["cause"]')" server "cause"

tcase "ignored errors above 5% of transactions are flagged error-dominated"
sb --sqlite-db=rb.db "$L/engine_compat.lua" setup
assert_exit 0
SB_MODE=rollback sb --sqlite-db=rb.db --db-ignore-errors=1 "$L/engine_compat.lua" run --verbosity=4 \
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
# Each point is ok, or rightly contention or late wake-ups on a machine
# others took (an ASan run at load: late wake-ups at 4 tx/s).
assert_count out "^ +[12] +4\.00 .* (ok|contention|late wake-ups|contention, late wake-ups)$" 2

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
assert_match r.csv "^point,.*,epoch_s,ended,deadline,cancelled$"
python3 - r.csv "$t0" "$t1" >check.txt <<'EOF'
import csv, sys
# The interval rows: the last row, whose "ended" is set, says how the run ended.
rows = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if r["ended"] == ""]
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
sb sleep.lua run --verbosity=4 --threads=2 --tx-rate=5000 --tx-late=skip --time=2 --log=agg.log \
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
    mkdir -p tmp
    TMPDIR=$PWD/tmp SB_PLOT_KEEP=1 sb sleep.lua run --tx-rate=100 --time=5 --report-interval=1 --plot=c.png
    assert_exit 0
    assert_contains out "Time-axis chart written: c-timeline.png"
    # One point draws no line: no throughput, relative or CPU chart of one
    # point each, only its latency curve.
    assert_contains out "Charts written: c-latency.png"
    for c in throughput relative cpu; do
        [ ! -e "c-$c.png" ] || fail "c-$c.png drawn for a single run"
    done
    # SQLite runs inside the client: the server CPU was not measured and
    # gets no legend entry; a rate run has a backlog panel.
    tl=$(ls tmp/*/timeline.gp 2>/dev/null | head -n 1)
    [ -n "$tl" ] || fail "the time-axis gnuplot script was not kept"
    assert_contains "$tl" "SERVER = 0"
    assert_contains "$tl" "RATE = 1"
    assert_contains "$tl" "title shown(SERVER, 'server CPU')"
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
