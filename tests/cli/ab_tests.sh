#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `sysbench ab` on SQLite: its arguments and bad input (one clear line
# each), prepare and cleanup on both targets, the rounds it runs and what
# it writes (the table, the JSON with every round, the chart), the same
# server warned about, a target that cannot be reached. The verdicts on
# labelled probes are in ab_verdict_tests.sh.
#
# Run by `make check`, or by hand: bash tests/cli/ab_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read the JSON documents"

# jv FILE EXPR: a Python expression's value with d the JSON document.
jv() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

AB=(ab --a=--sqlite-db=a.db --b=--sqlite-db=b.db)

tcase "ab: a margin of 0 or above 50% is one clear error"
write_ev
sb "${AB[@]}" ev.lua --margin=0 run
assert_exit 1
assert_fatal "--margin must be above 0% and at most 50% (got 0%)"
sb "${AB[@]}" ev.lua --margin=60% run
assert_exit 1
assert_fatal "--margin must be above 0% and at most 50% (got 60%)"
sb "${AB[@]}" ev.lua --margin=two run
assert_exit 1
assert_fatal "--margin needs a percentage"

tcase "ab: targets missing, a sweep, a repeat, a bad budget: one line each"
write_ev
sb ab --a=--sqlite-db=a.db ev.lua run
assert_exit 1
assert_fatal "ab needs both targets"
sb "${AB[@]}" --threads=1,2 ev.lua run
assert_exit 1
assert_fatal "--threads=1,2 is a sweep"
sb "${AB[@]}" --repeat=3 ev.lua run
assert_exit 1
assert_fatal "--repeat cannot be used with ab"
sb "${AB[@]}" --budget=soon ev.lua run
assert_exit 1
assert_fatal "--budget needs a time"
sb "${AB[@]}" --aa ev.lua run
assert_exit 1
assert_fatal "--aa runs --a's options on both sides: leave out --b"
sb ab --a="--sqlite-db='a.db" --b=--sqlite-db=b.db ev.lua run
assert_exit 1
assert_fatal "unclosed ' quote"
sb "${AB[@]}" --a-before=true --mode=duet ev.lua run
assert_exit 1
assert_fatal "need --mode=interleaved"
[ ! -e a.db ] && [ ! -e b.db ] || fail "a refused command line ran something"

tcase "ab: prepare and cleanup run on both targets with the same rows"
sb "${AB[@]}" oltp_point_select --tables=1 --table-size=200 prepare
assert_exit 0
assert_match out "^\[a\] .*Prepare done"
assert_match out "^\[b\] .*Prepare done"
sum_a=$(python3 -c 'import sqlite3; print(sqlite3.connect("a.db").execute("select count(*), sum(k) from sbtest1").fetchone())')
sum_b=$(python3 -c 'import sqlite3; print(sqlite3.connect("b.db").execute("select count(*), sum(k) from sbtest1").fetchone())')
assert_eq "$sum_a" "$sum_b"
sb "${AB[@]}" oltp_point_select --tables=1 cleanup
assert_exit 0
n=$(python3 -c 'import sqlite3; print(sqlite3.connect("b.db").execute("select count(*) from sqlite_master where name=\"sbtest1\"").fetchone()[0])')
assert_eq "$n" 0

tcase "ab: a target that cannot be reached fails in round 1 with one line naming it"
sb oltp_point_select --sqlite-db=a.db --tables=1 --table-size=100 prepare
assert_exit 0
start=$SECONDS
sb ab --a=--sqlite-db=a.db "--b=--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=1" \
    oltp_point_select --tables=1 --time=1 run
assert_exit 1
assert_fatal "target 'b': run in round 1 failed"
assert_contains err "127.0.0.1"
assert_lt $((SECONDS - start)) 30 "seconds to fail"

tcase "ab: rounds, table, JSON with every round, the same server warned about"
sb oltp_point_select --sqlite-db=same.db --tables=1 --table-size=100 prepare
assert_exit 0
sb ab --a=--sqlite-db=same.db --b=--sqlite-db=./same.db oltp_point_select --tables=1 \
    --table-size=100 --time=1 --rounds=5 --json=ab.json run
assert_exit 0
assert_contains out "WARNING: 'a' and 'b' are the same server (sqlite "
assert_match out "^round +5/5 "
assert_match out "^\* throughput \(tx/s\) "
assert_match out "^Verdict: (EQUIVALENT|INCONCLUSIVE|'b' is (BETTER|WORSE))"
assert_eq "$(jv ab.json 'd["format"]')" "sysbench-ab"
assert_eq "$(jv ab.json 'len(d["rounds"])')" 5
assert_eq "$(jv ab.json 'd["rounds_run"]')" 5
assert_eq "$(jv ab.json 'd["same_server"]')" True
assert_eq "$(jv ab.json '[r["first"] for r in d["rounds"]]')" "['a', 'b', 'a', 'b', 'a']"
assert_eq "$(jv ab.json 'all(r["a"]["tps"] > 0 and r["b"]["tps"] > 0 for r in d["rounds"])')" True
# The table's ratio is the figures' ratio.
assert_eq "$(jv ab.json 'abs(d["figures"][0]["b"] / d["figures"][0]["a"] / d["figures"][0]["ratio"] - 1) < 1e-9')" True
assert_eq "$(jv ab.json 'd["verdict"]["figure"]')" tps
assert_eq "$(jv ab.json 'd["looks"][-1]["round"]')" 5
# The measured start: each side's first dispatch, after the common start,
# and the skew the summary prints is the median of the rounds' skews.
assert_eq "$(jv ab.json 'all(r[s]["first_dispatch_unix_s"] >= r[s]["start_unix_s"] for r in d["rounds"] for s in "ab")')" True
skew=$(jv ab.json '"%.1f" % (1e3 * sorted(abs(r["b"]["first_dispatch_unix_s"] - r["a"]["first_dispatch_unix_s"]) for r in d["rounds"])[2])')
assert_match out "^(Start|WARNING): the targets' first events were dispatched $skew ms apart \(median of 5 rounds"
[ ! -e sbtest.db ] || fail "a run used the default database instead of the target's"

tcase "ab: --aa runs a's options on both sides and says it is a calibration"
write_ev
sb ab --a=--sqlite-db=x.db --aa ev.lua --time=0.3 --rounds=4 --json=aa.json run
assert_exit 0
assert_contains out "A/A calibration: both sides run --a's options."
assert_not_contains out "same server"
assert_not_contains out "are the same options"
assert_eq "$(jv aa.json 'd["aa"]')" True
assert_eq "$(jv aa.json 'd["b"]')" "['--sqlite-db=x.db']"

tcase "ab: the seed is one per round, the same for both targets"
cat >seed.lua <<'LUA'
function event() end
function done() print("first draw " .. sysbench.rand.uniform(1, 1000000000)) end
LUA
sb "${AB[@]}" seed.lua --time=0.3 --rounds=4 --rand-seed=42 --ab-dir=runs run
assert_exit 0
for r in 001 002; do
    da=$(grep -o 'first draw [0-9]*' "runs/round$r-a.log")
    db=$(grep -o 'first draw [0-9]*' "runs/round$r-b.log")
    [ -n "$da" ] && assert_eq "$da" "$db"
done
assert_ne "$(grep -o 'first draw [0-9]*' runs/round001-a.log)" \
    "$(grep -o 'first draw [0-9]*' runs/round002-a.log)"
assert_eq "$(jv runs/round003-b.json 'd["rand_seed"]["value"]')" 45

tcase "ab: --primary names a figure that was not measured: one line"
write_ev
sb "${AB[@]}" ev.lua --time=0.3 --rounds=4 --primary=server-cpu run
assert_exit 1
assert_fatal "--primary=server-cpu: the first round did not measure it"

tcase "ab: --plot draws the rounds and the interval"
if ! command -v gnuplot >/dev/null 2>&1; then
    fail "gnuplot is not installed (scripts/deps.sh installs gnuplot-nox)"
else
    write_ev
    sb "${AB[@]}" ev.lua --time=0.3 --rounds=4 --plot=c.png run
    assert_exit 0
    assert_contains out "A/B chart written: c-ab.png"
    [ -s c-ab.png ] || fail "no chart"
fi

tcase "ab: passwords, on their own or inside --a/--b, are not in ps while it runs"
printf '%s\n' 'function thread_init() c = sysbench.sql.driver():connect() end' \
    'function event() end' >conn.lua
sb_bg ab "--a=--sqlite-db=a.db --mysql-password=sekrit-in-a" --b=--sqlite-db=b.db \
    --db-driver=sqlite --pgsql-password=sekrit-top conn.lua --time=1 --rounds=4 run
for _ in $(seq 1 100); do
    grep -q "^round" "$T/out" 2>/dev/null && break
    sleep 0.1
done
cmdline=$(tr '\0' ' ' <"/proc/$SB_PID/cmdline" 2>/dev/null || true)
sb_wait
assert_exit 0
[ -n "$cmdline" ] || fail "ab ended before its command line could be read"
case "$cmdline" in
*sekrit*) fail "a password is in ps: $cmdline" ;;
esac
case "$cmdline" in
*"--sqlite-db=a.db --mysql-password=xxxxxxxxxxx"*) ;;
*) fail "the --a value was not scrubbed as expected: $cmdline" ;;
esac
[ -e a.db ] && [ -e b.db ] || fail "the targets' options did not reach the runs"

tcase "ab: SIGINT stops after the round in flight and reports what ran"
write_ev
sb_bg "${AB[@]}" ev.lua --time=1 --rounds=40 run
sleep 6
kill -INT "$SB_PID"
sb_wait
assert_exit 130
assert_match out "^round +[0-9]+/40"
assert_no_crash

finish
