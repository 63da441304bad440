#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --find-max end to end on an event of known capacity, and the random
# seed's reproducibility, with no server.
#
# The event is a virtual server per thread: each event is served at that
# thread's next free SERVICE_MS slot, sleeping until then (with 20 ms of
# credit, so that a late wake-up on a loaded machine does not lower the
# capacity). With THREADS threads the capacity is THREADS / SERVICE_MS,
# plus the credit spent once per run (20 ms / SERVICE_MS events a thread,
# about 1% of a 2 s run). --find-max must find it within 5% and end with
# no rate held above a rate missed; its text output has one line per
# probe, the full reports are in the JSON only.
#
# Run by `make check`, or by hand: bash tests/cli/findmax_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read the JSON documents"

# py CODE FILE (tests/lib.sh): Python with d the document.

write_server() {
    cat >server.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } sbt_fm_ts;
int clock_gettime(int, sbt_fm_ts *);
int clock_nanosleep(int, int, const sbt_fm_ts *, sbt_fm_ts *);
]]
local ts, dl = ffi.new("sbt_fm_ts"), ffi.new("sbt_fm_ts")
local service = tonumber(os.getenv("SERVICE_MS") or "4") * 1e6
local free = 0
local function now()
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) * 1e9 + tonumber(ts.tv_nsec)
end
function event()
  local t = now()
  if free < t - 20e6 then free = t - 20e6 end
  free = free + service
  if free > t then
    dl.tv_sec = math.floor(free / 1e9)
    dl.tv_nsec = free - tonumber(dl.tv_sec) * 1e9
    ffi.C.clock_nanosleep(1, 1, dl, nil)
  end
end
LUA
}

tcase "--find-max finds a 500/s capacity (2 threads x 4 ms) within 5%, no rate held above a miss"
write_server
mkdir tmp
# At the real-time priority when granted (tests/lib.sh _T_PRIO): a late
# wake-up on a loaded machine would lower the capacity found.
TMPDIR=$PWD/tmp SB_PLOT_KEEP=1 SB_TIMEOUT=240 SERVICE_MS=4 sb_prio server.lua run --threads=2 \
    --time=2 --find-max --sla=p99:200ms --json=f.json --plot=f.png
assert_exit 0
best=$(sed -n 's/^Highest rate held: \([0-9.]*\) tx\/s (capacity between.*/\1/p' out)
assert_between "${best:-0}" 475 525 "highest rate held (known capacity 500/s)"
assert_eq "$(py "abs(d['find_max']['rate_held'] - ${best:-0}) < 0.005" f.json)" "True"
assert_eq "$(py 'd["find_max"]["complete"] and d["find_max"]["monotone"]' f.json)" "True"
# Every rate held lies below every rate missed, and the bracket's ends
# were each measured three times.
assert_eq "$(py '
fm = d["find_max"]
held = [r["target_tps"] for r in fm["rates"] if r["held"]]
missed = [r["target_tps"] for r in fm["rates"] if not r["held"]]
runs = {r["target_tps"]: r["runs"] for r in fm["rates"]}
print(max(held) < min(missed), max(held) == fm["rate_held"],
      min(missed) == fm["lowest_rate_missed"],
      runs[fm["rate_held"]] >= 3 and runs[fm["lowest_rate_missed"]] >= 3
      or "runs %s (out of probes: %s)" % (runs, fm["out_of_probes"]),
      fm["lowest_rate_missed"] / fm["rate_held"] <= 1.0201)' f.json)" "True True True True True"
# One line per probe, and no full report in the text output; every run is
# a point of the JSON with its full figures, grouped by rate.
assert_eq "$(grep -cE '^ ?[0-9]+/24 ' out)" "$(py 'd["find_max"]["probes"]' f.json)"
assert_not_contains out "Threads started!"
assert_not_contains out "General statistics"
# Probes past the capacity are the point: no unreachable-rate warning.
assert_not_contains err "out of reach"
assert_eq "$(py 'len(d["points"]) == d["find_max"]["runs"] and all(p["final"]["tps"] > 0 for p in d["points"])' f.json)" "True"
assert_eq "$(py '
fm = d["find_max"]
runs = sum(r["runs"] for r in fm["rates"]) + fm["closed_loop"]["runs"]
print(runs == fm["runs"])' f.json)" "True"
assert_contains out "Find-max chart written: f-find-max.png"
[ -s f-find-max.png ] || fail "no f-find-max.png"
# The chart's rate axis is numeric, with the SLA line and the rate found.
gp=$(ls tmp/*/findmax.gp 2>/dev/null | head -n 1)
[ -n "$gp" ] || fail "the find-max gnuplot script was not kept"
assert_contains "$gp" "MS = 200"
assert_contains "$gp" "HELD = $(py "'%.10g' % d['find_max']['rate_held']" f.json)"
assert_contains "$gp" "set xrange [XLO:XHI]"
assert_contains "$gp" "MS with lines dt 2 lw 2 lc rgb '#d62728' title sprintf('SLA: p%g <= %g ms', PCT, MS)"
assert_eq "$(awk '$1 == "XLO" || $1 == "XHI" { print ($3 ~ /^[0-9.]+$/) }' "$gp" | sort -u)" 1 \
    "the rate axis ends are numbers"
# The search's own charts: on the same numeric rate axis (no category
# ticks), no relative chart of one result (it repeats the throughput
# chart), and the latency against throughput chart with the SLA line and
# the rate held.
charts=$(ls tmp/*/charts.gp 2>/dev/null | head -n 1)
[ -n "$charts" ] || fail "the sweep charts' gnuplot script was not kept"
assert_contains out "Charts written: f-throughput.png f-cpu.png f-latency.png f-latency-throughput.png"
assert_not_contains "$charts" "XNUM = 0"
assert_contains "$charts" "SLA_MS = 200"
assert_contains "$charts" "HELD = $(py "'%.10g' % d['find_max']['rate_held']" f.json)"
for c in throughput cpu latency latency-throughput; do
    [ -s "f-$c.png" ] || fail "no f-$c.png"
done
[ ! -e f-relative.png ] || fail "f-relative.png drawn for one rate sweep"

tcase "--find-max: a failed run ends the search with its error and the JSON says so"
cat >bad.lua <<'LUA'
local n = 0
function event()
  n = n + 1
  if n > 50 and os.getenv("FAIL_NOW") then error("boom") end
end
LUA
FAIL_NOW=1 sb bad.lua run --time=0.2 --find-max --sla=p99:50ms --json=b.json
assert_exit 1
assert_contains err "boom"
assert_contains out "--find-max: stopped: run 1 failed"
assert_eq "$(py 'd["ended"]["status"], d["find_max"]["complete"], d["find_max"]["runs"]' b.json)" \
    "('failed', False, 1)"

write_rand() {
    cat >rand.lua <<'LUA'
-- Every random stream a script sees: the main state's (init), each
-- worker's (event), unique() and the random strings.
function init()
  io.write(string.format("main %d %d\n", sysbench.rand.uniform(1, 1000000000),
                         sysbench.rand.default(1, 1000)))
end
function thread_init()
  tid = sysbench.tid
end
function event()
  io.write(string.format("t%d %d %d %d %s\n", tid, sysbench.rand.uniform(1, 1000000000),
                         sysbench.rand.gaussian(1, 1000), sysbench.rand.pareto(1, 1000),
                         sysbench.rand.string("###-@@@")))
  local t0 = os.clock()
  while os.clock() - t0 < 0.0005 do end
end
LUA
}

# streams FILE: the lines of each thread, the first N of each (N the
# fewest any thread wrote), sorted by thread: runs paced by the clock make
# different numbers of events.
streams() {
    python3 - "$1" "$2" <<'PY'
import sys, collections
a = collections.defaultdict(list)
for line in open(sys.argv[1]):
    w = line.split()
    if w and (w[0] == "main" or (w[0].startswith("t") and w[0][1:].isdigit())):
        a[w[0]].append(line)
n = int(sys.argv[2])
for k in sorted(a):
    print("".join(a[k][:n]), end="")
PY
}

tcase "the seed from the clock is printed and stored; --rand-seed with it repeats every stream"
write_rand
# Paced above what the event can do, late slots skipped: the pacer draws
# a varying number of jitters, which must not shift the script's values.
sb rand.lua run --threads=2 --time=1 --tx-rate=8000 --tx-late=skip --json=a.json
assert_exit 0
seed=$(sed -n 's/.*from current time: seed \([0-9]*\) .*/\1/p' out)
[ -n "$seed" ] || fail "no seed printed"
assert_contains out "(--rand-seed=$seed repeats every random stream)"
assert_eq "$(py 'd["rand_seed"]["value"], d["rand_seed"]["from"], d["options"]["general"]["rand-seed"]' a.json)" \
    "($seed, 'clock', 0)"
cp out a.out
sb rand.lua run --threads=2 --time=1 --tx-rate=8000 --tx-late=skip --rand-seed="$seed" --json=b.json
assert_exit 0
assert_contains out "Initializing random number generator from seed ($seed)."
assert_eq "$(py 'd["rand_seed"]["value"], d["rand_seed"]["from"]' b.json)" "($seed, 'option')"
n=$(python3 - a.out out <<'PY'
import sys, collections
c = [collections.Counter(l.split()[0] for l in open(f) if l[:1] == "t" and l[1:2].isdigit()) for f in sys.argv[1:]]
print(min(min(x.values()) for x in c) if all(len(x) == 2 for x in c) else 0)
PY
)
assert_ge "$n" 20 "events per thread in both runs"
streams a.out "$n" >sa
streams out "$n" >sb
[ -s sa ] && cmp -s sa sb || fail "the rerun with --rand-seed=$seed drew other values"
assert_eq "$(grep -c '^main ' sa)" 1
# A different seed gives different values.
sb rand.lua run --threads=2 --time=0.5 --rand-seed=$((seed + 1))
streams out 20 >sc
head -c 200 sa | cmp -s - <(head -c 200 sc) && fail "seed $((seed + 1)) drew the same values"

finish
