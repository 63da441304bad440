#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Scale-out without a server (the SQLite default): --instance, --instances
# with JOB_COMPLETION_INDEX, --start-at and --clock-offset, their refusals;
# the split of rate, connections and random streams; `sysbench merge`
# (exact sums, union of the response, service and lag histograms,
# intervals aligned by absolute time) and
# every refusal of files that are not one experiment; compare reading a
# merged file. The server checks are in tests/drivers/scale_out.sh.
#
# Run by `make check`, or by hand: bash tests/cli/scale_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read the JSON documents"

# Prints, per thread, the global connection index and the first draw of
# its random stream.
write_ids() {
    cat >ids.lua <<'EOF'
function thread_init()
  print(string.format("conn %d first %d", sysbench.global_tid, sysbench.rand.uniform(1, 1000000000)))
end
function event() end
EOF
}

# py EXPR FILE... (tests/lib.sh): Python with d[0], d[1], ... the documents.
PY_DOCS=list

# Three instances of a 2-thread run at 600 tx/s in all, started together,
# each naming its own output files (merge must not take those for a
# difference).
FIX=$_T_ROOT/fixtures
mkdir -p "$FIX"
(
    cd "$FIX" || exit 1
    write_ids
    at=$(( $(date +%s) + 2 ))
    for i in 0 1 2; do
        "$SB_BIN" ids.lua run --threads=2 --tx-rate=600 --time=2 --report-interval=1 \
            --rand-seed=9 --instance=$i/3 --start-at="$at" --clock-offset=0.0004 \
            --json=i$i.json --log=so$i.log --hgrm=so$i.hgrm >i$i.out 2>&1 &
    done
    wait
    "$SB_BIN" ids.lua run --threads=6 --time=0.2 --rand-seed=9 >single.out 2>&1
) || true

tcase "option refusals: one FATAL line each"
write_ids
sb ids.lua run --instance=3/3 --rand-seed=1
assert_exit 1
assert_fatal "instance 3 of 3 is out of range"
sb ids.lua run --instance=1/3
assert_exit 1
assert_fatal "--instance=1/3 needs --rand-seed=S"
sb ids.lua run --instance=x/3 --rand-seed=1
assert_exit 1
assert_fatal "invalid value 'x/3' for --instance"
sb ids.lua run --instance=1 --rand-seed=1
assert_exit 1
assert_fatal "--instance=1 needs a count"
sb ids.lua run --instance=1/3 --instances=4 --rand-seed=1
assert_exit 1
assert_fatal "--instance=1/3 and --instances=4 disagree"
env -u JOB_COMPLETION_INDEX "$SB_BIN" ids.lua run --instances=3 --rand-seed=1 >out 2>err
SB_RC=$?
assert_exit 1
assert_fatal "--instances=3 needs --instance=I or JOB_COMPLETION_INDEX"
sb ids.lua run --start-at=2001-01-01T00:00:00Z
assert_exit 1
assert_fatal "--start-at=2001-01-01T00:00:00Z is"
sb ids.lua run --start-at=tomorrow
assert_exit 1
assert_fatal "invalid value 'tomorrow' for --start-at"
sb ids.lua run --clock-offset=abc
assert_exit 1
assert_fatal "invalid value 'abc' for --clock-offset"

tcase "JOB_COMPLETION_INDEX with --instances gives the instance"
write_ids
JOB_COMPLETION_INDEX=2 "$SB_BIN" ids.lua run --instances=3 --threads=2 --time=0.2 \
    --rand-seed=9 --json=r.json >out 2>err
SB_RC=$?
assert_exit 0
assert_eq "$(py 'd[0]["instance"]["index"], d[0]["instance"]["count"], d[0]["instance"]["source"]' r.json)" \
    "2 3 JOB_COMPLETION_INDEX" "instance"
assert_contains out "conn 4 first"
assert_contains out "conn 5 first"

tcase "--start-at accepts ISO 8601 UTC and starts then"
write_ids
at=$(date -u -d "@$(( $(date +%s) + 2 ))" +%Y-%m-%dT%H:%M:%SZ)
sb ids.lua run --time=0.2 --start-at="$at" --json=r.json
assert_exit 0
want=$(date -u -d "$at" +%s)
assert_between "$(py 'd[0]["points"][0]["start_unix_s"]' r.json)" "$((want - 1))" "$((want + 1))" \
    "start_unix_s"
assert_eq "$(py 'd[0]["instance"]["start_at"]' r.json)" "$want" "instance.start_at"

tcase "connections and random streams are those of one process with all threads"
cd "$FIX" || exit 1
for i in 0 1 2; do
    assert_contains i$i.out "Instance $i of 3 (connections $((2 * i)) to $((2 * i + 1)) of 6)"
done
# Instance I's connection g draws what thread g of one 6-thread process draws.
grep -h '^conn ' i0.out i1.out i2.out | sort >split.ids
grep -h '^conn ' single.out | sort >single.ids
assert_lines split.ids 6
if ! diff -u single.ids split.ids; then fail "the instances' streams differ from one process's"; fi
assert_eq "$(cut -d' ' -f4 split.ids | sort -u | wc -l)" 6 "distinct first draws"

tcase "the rate is split exactly and the instance is in the result"
cd "$FIX" || exit 1
# (How many slots ran depends on the machine's load: only the split is
# checked, not that every slot ran.)
for i in 0 1 2; do
    assert_eq "$(py 'd[0]["points"][0]["target_tps"], d[0]["points"][0]["final"]["rate"]["target_tps"], d[0]["instance"]["index"], d[0]["instance"]["clock_offset_s"]' i$i.json)" \
        "200 200 $i 0.0004" "instance $i target, rate target, index, clock offset"
done

tcase "merge: sums, the union of the histograms, aligned intervals"
cp "$FIX"/i?.json .
sb merge i0.json i1.json i2.json --json=all.json
assert_exit 0
assert_contains out "Merged result of 3 instances"
assert_eq "$(py 'sorted({x["options"]["general"]["log"] for x in d} | {x["options"]["general"]["hgrm"] for x in d})' i0.json i1.json i2.json)" \
    "['so0.hgrm', 'so0.log', 'so1.hgrm', 'so1.log', 'so2.hgrm', 'so2.log']" "per-instance output names"
assert_contains out "target:                              600.00 tx/s"
assert_eq "$(py 'd[3]["points"][0]["final"]["events"] == sum(x["points"][0]["final"]["events"] for x in d[:3]), round(d[3]["points"][0]["final"]["rate"]["achieved_tps"], 6) == round(d[3]["points"][0]["final"]["events"] / (max(x["points"][0]["start_unix_s"] + x["points"][0]["final"]["time_s"] for x in d[:3]) - min(x["points"][0]["start_unix_s"] for x in d[:3])), 6), d[3]["points"][0]["threads"], d[3]["points"][0]["target_tps"]' i0.json i1.json i2.json all.json)" \
    "True True 6 600" "merged events are the sums, the achieved rate the events over the window (first start to last end); connections, target"
assert_eq "$(python3 - i0.json i1.json i2.json all.json <<'EOF'
import json, sys
ds = [json.load(open(f)) for f in sys.argv[1:]]
u = {}
for d in ds[:3]:
    for lo, hi, c in d["points"][0]["histogram"]["buckets"]:
        u[lo] = u.get(lo, 0) + c
m = {lo: c for lo, hi, c in ds[3]["points"][0]["histogram"]["buckets"]}
ivs = ds[3]["points"][0]["intervals"]
print(m == u, [i["time_s"] for i in ivs], sum(i["events"] for i in ivs) ==
      sum(i["events"] for d in ds[:3] for i in d["points"][0]["intervals"]))
EOF
)" "True [1, 2] True" "histogram union, interval times, interval events"
assert_eq "$(py '[e["index"] for e in d[0]["merged"]["instances"]]' all.json)" "[0, 1, 2]" "merged.instances"

tcase "merge: service-time and lag histograms summed, their percentiles exact"
cp "$FIX"/i?.json .
sb merge i0.json i1.json i2.json --json=all.json
assert_exit 0
assert_contains out "start lag (ms), from the merged histogram:"
# The union of the instances' buckets, and the percentiles rebuilt from it
# by the rule of doc/results.md: the upper bound of the bucket holding the
# ceil(p% * count)-th value, at most max_ns.
assert_eq "$(python3 - i0.json i1.json i2.json all.json <<'EOF'
import json, math, sys
ds = [json.load(open(f)) for f in sys.argv[1:]]
out = []
for name in ("service", "lag"):
    u, hi_of = {}, {}
    for d in ds[:3]:
        for lo, hi, c in d["points"][0]["histograms"][name]["buckets"]:
            u[lo] = u.get(lo, 0) + c
            hi_of[lo] = hi
    mh = ds[3]["points"][0]["histograms"][name]
    m = {lo: c for lo, hi, c in mh["buckets"]}
    total = sum(u.values())
    mx = max(d["points"][0]["histograms"][name]["max_ns"] for d in ds[:3])
    ok = total > 0 and m == u and mh["count"] == total and mh["max_ns"] == mx
    lat = ds[3]["points"][0]["final"]["latency_ms"][name]
    for key, got in lat["percentiles"].items():
        x = float(key) * total / 100
        target = min(max(1, math.ceil(x - x * 1e-12)), total)
        seen = 0
        for lo in sorted(u):
            seen += u[lo]
            if seen >= target:
                want = min(hi_of[lo], mx) / 1e6
                break
        ok = ok and round(got, 6) == round(want, 6)
    ok = ok and lat["count"] == total and len(lat["percentiles"]) > 0
    out.append(ok)
print(out, [b for b in ds[3]["merged"]["upper_bounds"] if "service" in b or ".lag." in b])
EOF
)" "[True, True] []" "service and lag union, percentiles from it, not upper bounds"
# A file without the lag histogram (an older version): lag is bounded again
# and says so; service stays exact.
py 'd[0]["points"][0]["histograms"].pop("lag") and json.dump(d[0], open("old1.json", "w"))' i1.json >/dev/null
sb merge i0.json old1.json i2.json --json=mixed.json
assert_exit 0
assert_contains out "percentiles at most (not every file has the lag histogram)"
assert_eq "$(py 'd[0]["points"][0]["histograms"]["lag"], d[0]["points"][0]["histograms"]["service"]["count"] == d[0]["points"][0]["final"]["events"], [b for b in d[0]["merged"]["upper_bounds"] if "service" in b or ".lag." in b]' mixed.json)" \
    "None True ['points[].final.latency_ms.lag.percentiles']" "lag bounded, service exact"

tcase "compare reads a merged file"
cp "$FIX"/i?.json .
sb merge i0.json i1.json i2.json --json=all.json
sb compare i0.json all.json
assert_exit 0
assert_match out "^ *6 @ 600 +- +[0-9]+\.[0-9]+"

tcase "compare --plot draws charts from a merged file"
if command -v gnuplot >/dev/null 2>&1; then
    cp "$FIX"/i?.json .
    sb merge i0.json i1.json i2.json --json=all.json
    sb compare i0.json all.json --plot=c.png
    assert_exit 0
    for k in throughput relative cpu latency; do
        [ -s "c-$k.png" ] || fail "no c-$k.png"
    done
else
    skip "gnuplot is not installed"
fi

tcase "merge --help prints its usage and exits 0"
sb merge --help
assert_exit 0
assert_contains out "Usage: sysbench merge A.json B.json"
assert_not_contains err "FATAL"

tcase "merge range-checks every number it reads: one line naming file and field, no hang"
# Issue 30 items 1, 2: an interval's time_s of 1e15 looped for decades, one
# of 2^32 for 85 minutes; histogram.sum_ns=1e308 merged to 0 with rc 0.
cp "$FIX"/i?.json .
# set FILE OUT PYTHON-STATEMENT: OUT is FILE's document after the statement
# (on p, its first point).
set_field() {
    python3 -c "import json, sys; d = json.load(open(sys.argv[1])); p = d['points'][0]; $3; json.dump(d, open(sys.argv[2], 'w'))" "$1" "$2"
}
set_field i2.json far.json "p['intervals'][0]['time_s'] = 1e15"
set_field i2.json wrap.json "p['intervals'][0]['time_s'] = 4294967296"
set_field i2.json sum.json "p['histogram']['sum_ns'] = 1e308"
set_field i2.json idx.json "d['instance']['index'] = 1e308"
set_field i2.json neg.json "p['final']['events'] = -1"
for c in "far.json:points[0].intervals[0].time_s is 1e+15, expected 0..1e+09" \
    "wrap.json:points[0].intervals[0].time_s is 4.29497e+09" \
    "sum.json:points[0].histogram.sum_ns is 1e+308" \
    "idx.json:instance.index is 1e+308" \
    "neg.json:points[0].final.events is -1"; do
    f=${c%%:*}
    # A hang ends at the timeout with 124, not 1.
    SB_TIMEOUT=60 sb merge i0.json i1.json "$f" --json=bad.json
    assert_exit 1
    assert_fatal "cannot merge: '$f': ${c#*:}"
    [ ! -e bad.json ] || fail "a refused merge wrote bad.json"
done
# In range but far: an interval three years on costs one interval.
set_field i2.json years.json "p['intervals'][-1]['time_s'] = 1e8"
SB_TIMEOUT=60 sb merge i0.json i1.json years.json --json=years_all.json
assert_exit 0
assert_eq "$(py 'round(d[0]["points"][0]["intervals"][-1]["time_s"] / 1e8)' years_all.json)" 1 \
    "the far interval kept at its time"

tcase "merge refuses what is not one experiment, one line each"
cp "$FIX"/i?.json .
py 'json.dump(dict(d[0], options=dict(d[0]["options"], general=dict(d[0]["options"]["general"], **{"rand-seed": 8}))), open("seed.json", "w"))' i2.json >/dev/null
py 'json.dump(dict(d[0], options=dict(d[0]["options"], general=dict(d[0]["options"]["general"], **{"tx-rate": ["500"]}))), open("rate.json", "w"))' i2.json >/dev/null
py 'json.dump(dict(d[0], script="other.lua"), open("script.json", "w"))' i2.json >/dev/null
py 'json.dump(dict(d[0], instance=dict(d[0]["instance"], start_at=1)), open("start.json", "w"))' i2.json >/dev/null
py 'json.dump(dict(d[0], instance=dict(d[0]["instance"], count=4)), open("count.json", "w"))' i2.json >/dev/null
sb merge i0.json i1.json seed.json
assert_exit 1
assert_fatal "'i0.json' and 'seed.json' have different --rand-seed"
sb merge i0.json i1.json rate.json
assert_exit 1
assert_fatal "option --tx-rate differs between 'i0.json' and 'rate.json'"
sb merge i0.json i1.json script.json
assert_exit 1
assert_fatal "'i0.json' ran ids.lua, 'script.json' ran other.lua"
sb merge i0.json i1.json start.json
assert_exit 1
assert_fatal "have different --start-at"
py 'json.dump(dict(d[0], points=[dict(d[0]["points"][0], start_unix_s=d[0]["points"][0]["start_unix_s"] + 30)]), open("late.json", "w"))' i2.json >/dev/null
sb merge i0.json i1.json late.json
assert_exit 1
assert_fatal "the instances started 30.0 s apart, more than --time=2: not one run"
sb merge i0.json i1.json count.json
assert_exit 1
assert_fatal "is one of 3 instances, 'count.json' one of 4"
sb merge i0.json i1.json i1.json
assert_exit 1
assert_fatal "'i1.json' and 'i1.json' are both instance 1"
sb merge i0.json i2.json
assert_exit 1
assert_fatal "instance 1 of 3 is missing"
echo '{}' >empty.json
sb merge i0.json i1.json empty.json
assert_exit 1
assert_fatal "'empty.json' is not a sysbench result file"
sb merge i0.json i1.json i2.json --plot=x.png
assert_exit 1
assert_fatal "merge: unknown option '--plot=x.png'"
sb merge i0.json i1.json i2.json --json=out.json
sb merge out.json
assert_exit 1
assert_fatal "'out.json' is already a merged result"

finish
