#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Measurement truth in the rate modes: the figures a run reports are the
# ones its schedule implies, checked against what the probe scripts know.
#   - counted events are exactly the slots whose nominal time is inside
#     the measured window, with jitter on (no slot jittered in or out);
#   - the statistics reset at the end of warmup loses no event;
#   - "max backlog" is the true maximum, not a sample at report ticks: a
#     probe stalls once for a measured time, and the reported maximum is
#     within 2% of rate x stall.
#
# Run by `make check`, or by hand: bash tests/cli/truth_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# held_up FILE: the run says others held it up: contention or late
# wake-ups flagged, others using a tenth of the machine or more, or its
# threads waiting for a CPU (the figures behind the flags, whose own
# thresholds are stricter). Its workers could then fall behind their schedules, and
# slots due before the deadline but not started by it are not run. (jget
# prints JSON's true: compared with True, as until 2026-11-29, this never
# held and every run was judged exactly.)
held_up() {
    [ "$(jget "$1" 'set(d["points"][0]["selfcheck"]["flags"]) & {"contention", "late-wakeups"} != set() or (d["points"][0]["selfcheck"]["contention"]["other_cpu_pct"] or 0) >= 10 or bool(d["points"][0]["selfcheck"]["client_bound"]["wait_high"])')" = true ]
}

# An event that does nothing: the schedule alone decides the count.
write_noop() {
    echo 'function event() end' >noop.lua
}

# An event that, in thread 0 only, stalls once (its STALL_AT-th event) for
# STALL_S seconds and prints how long the stall really lasted.
write_stall() {
    cat >stall.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[
struct truth_ts { long sec; long nsec; };
int clock_gettime(int clk, struct truth_ts *ts);
int usleep(unsigned int usec);
]]
local n = 0
local function now()
  local ts = ffi.new("struct truth_ts")
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.sec) + tonumber(ts.nsec) / 1e9
end
function event(tid)
  if tid ~= 0 then return end
  n = n + 1
  if n == tonumber(os.getenv("STALL_AT")) then
    local t = now()
    ffi.C.usleep(math.floor(tonumber(os.getenv("STALL_S")) * 1e6))
    io.stderr:write(string.format("stall_s=%.6f\n", now() - t))
  end
end
LUA
}

report_num() {
    sed -n "s/^ *$2 *\([0-9.]*\).*/\1/p" "$1" | head -n 1
}

tcase "--tx-rate with --time counts exactly rate x time slots, jitter on"
write_noop
for seed in 1 2 3 4; do
    # Jitter as wide as the per-thread period (10 ms): slots near both ends
    # of the window are jittered across them.
    sb noop.lua run --tx-rate=200 --threads=2 --time=2 --tx-jitter=10000 \
        --rand-seed=$seed --json=r.json
    assert_exit 0
    ev=$(report_num out "total number of events:")
    # Exactly 400 unless the run says others held it up: then a worker
    # behind its schedule at the deadline leaves its last due slots
    # unrun (398-399 seen at load 20; 300 when the machine held the
    # workers off their CPUs for 0.6 s), never runs more. Only the
    # bound is judged then; a quiet machine judges the exact count.
    if held_up r.json; then
        echo "  seed $seed: held up by others (flagged), $ev events: only <= 400 judged"
        assert_between "${ev:-0}" 1 400 "events (seed $seed, a held-up run)"
    else
        assert_eq "$ev" 400 "events (seed $seed)"
    fi
done

tcase "--tx-rate: warmup loses no event of the measured window"
write_noop
for threads in 1 4; do
    sb noop.lua run --tx-rate=200 --threads=$threads --warmup-time=1 --time=1 \
        --tx-jitter=2000 --json=r.json
    assert_exit 0
    if held_up r.json; then
        assert_between "$(report_num out "total number of events:")" 1 200 "events ($threads threads, a held-up run)"
    else
        assert_eq "$(report_num out "total number of events:")" 200 "events ($threads threads)"
    fi
done

tcase "--tx-rate: warmup and --report-interval: intervals add up to the total"
write_noop
sb noop.lua run --tx-rate=100 --threads=2 --warmup-time=0.5 --time=2 \
    --report-interval=1 --json=r.json
assert_exit 0
ev=$(report_num out "total number of events:")
# Held up (189 of 200 seen under ASan at load 15), the workers leave their
# last due slots unrun; the intervals still add up to the total.
if held_up r.json; then
    assert_between "${ev:-0}" 1 200 "events (a held-up run)"
else
    assert_eq "$ev" 200 "events"
fi
assert_eq "$(python3 -c 'import json,sys; d=json.load(open("r.json")); print(sum(i["events"] for i in d["points"][0]["intervals"]))')" \
    "$ev" "sum of interval events"

# Events of the window still running at the deadline: each lasts 40 ms,
# so the slots due in the last 40 ms end after it. They count in the
# total, and the interval whose tick is the deadline must hold them too
# (it is reported once the workers are joined). Closed loop likewise: the
# events in flight at the deadline finish and count.
write_slow() {
    cat >slow.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int usec);]]
function event() ffi.C.usleep(40000) end
LUA
}
interval_sum() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(i["events"] for i in d["points"][0]["intervals"]))' "$1"
}

tcase "--tx-rate: events ending after the deadline count in the last interval as in the total"
write_slow
sb slow.lua run --tx-rate=100 --threads=8 --time=2 --report-interval=1 --json=r.json
assert_exit 0
assert_eq "$(interval_sum r.json)" "$(report_num out "total number of events:")" "sum of interval events"
assert_eq "$(jget r.json 'len(d["points"][0]["intervals"])')" 2 "intervals"

tcase "closed loop: events in flight at the deadline count in the last interval as in the total"
write_slow
sb slow.lua run --threads=2 --time=3 --report-interval=1 --json=r.json
assert_exit 0
assert_eq "$(interval_sum r.json)" "$(report_num out "total number of events:")" "sum of interval events"
assert_eq "$(jget r.json 'len(d["points"][0]["intervals"])')" 3 "intervals"

# Events of 300 ms on 4 threads cannot pass 4 / 0.3 = 13.33 per second, and
# a 1-s run holds 4 of them per thread, the last ending about 1.2 s in. Its
# time must run until they ended (sysbench 1.0's total time), or its
# throughput is 16/s: the events in flight at the deadline counted, their
# time not. A late wake-up only lengthens the events, so the bound holds
# on any machine.
tcase "closed loop: the time runs until the events in flight at the deadline ended"
cat >long.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int usec);]]
function event() ffi.C.usleep(300000) end
LUA
sb long.lua run --threads=4 --time=1 --report-interval=1 --json=r.json
assert_exit 0
assert_eq "$(jget r.json 'd["points"][0]["final"]["events"]')" 16 "events"
assert_between "$(report_num out "total time:")" 1.2 2.5 "total time"
assert_le "$(jget r.json 'round(d["points"][0]["final"]["tps"], 3)')" 13.334 "events per second"
assert_eq "$(jget r.json 'd["points"][0]["intervals"][-1]["interval_s"] == d["points"][0]["final"]["time_s"]')" \
    true "the one interval spans the run's time"

# check_backlog RATE THREADS: thread 0 stalls 1 s once; the true backlog
# at the end of the stall is its own slots due meanwhile, rate/threads x
# stall (the other threads keep up).
check_backlog() {
    local rate=$1 threads=$2 stall expect got hi
    write_stall
    STALL_AT=20 STALL_S=1.0 sb stall.lua run --verbosity=4 --tx-rate="$rate" --threads="$threads" \
        --time=2 --tx-jitter=1 --json=r.json
    assert_exit 0
    stall=$(sed -n 's/^stall_s=//p' err)
    assert_ne "$stall" "" "stall duration"
    expect=$(awk -v r="$rate" -v n="$threads" -v s="${stall:-0}" 'BEGIN { printf "%.1f", r / n * s }')
    got=$(report_num out "max backlog:")
    # A held-up run's other threads fall behind too, and their slots add
    # to the stall's (222 for 214 seen at load 15; 400 for 249, every slot
    # of both threads, under ASan beside a CPU hog and another suite): then
    # the stall's share below, and above only the run's slots (rate x 2 s).
    # A sampled maximum (the bug this guards) is below the share either way.
    hi=$(awk -v e="$expect" 'BEGIN { print e * 1.02 }')
    held_up r.json && hi=$((rate * 2))
    assert_between "${got:-0}" "$(awk -v e="$expect" 'BEGIN { print e * 0.98 }')" "$hi" \
        "max backlog (expected $expect)"
}

tcase "max backlog of a 1 s stall at 200/s is exact without --report-interval"
check_backlog 200 1

tcase "max backlog of a stall in one of two threads counts that thread's slots"
check_backlog 400 2

finish
