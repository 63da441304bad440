#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Scenario API tests (shared/LUA_API.md): the Lua scripts next to this file
# run on the built binary against SQLite, and the bundled OLTP scripts
# prepare, run and clean up on SQLite. The scripts check most details
# themselves through tlib.lua ("not ok: ..." lines, "checks_TAG=N"
# totals); this file checks reports, exit statuses and database contents.
#
# Run by `make check`, or by hand: bash tests/lua/lua_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

L="$SB_SRCDIR/tests/lua"

# assert_checks TAG N: the script ran N checks under TAG and none failed.
assert_checks() {
    assert_kv out "checks_$1" "$2"
    if grep -q '^not ok' out; then
        fail "script checks failed: $(grep '^not ok' out | head -5 | tr '\n' ';')"
    fi
}

# db_query DB SQL: one value from an SQLite file, through the sqlite3
# shell when it is installed, otherwise through sysbench itself.
db_query() {
    if command -v sqlite3 >/dev/null 2>&1; then
        sqlite3 "$1" "$2"
    else
        printf 'print((sysbench.sql.driver():connect():query_row([[%s]])))\n' "$2" >q.lua
        "$SB_BIN" --sqlite-db="$1" q.lua | tail -n 1
    fi
}

# report_run MODE: a fresh table r in r.db, then report.lua run with the
# report hooks in SB_REPORT=MODE (fields, default, csv or json) on two
# threads for 2 s with a report every second.
report_run() {
    sb --sqlite-db=r.db "$L/report.lua" mktable
    SB_REPORT=$1 sb --sqlite-db=r.db "$L/report.lua" run --threads=2 --time=2 --report-interval=1
}

# ---------------------------------------------------------------- hooks

tcase "hooks: init, thread_init, event, thread_done, done"
sb "$L/hooks.lua" run --threads=3 --events=30 --marker=zz
assert_exit 0
assert_count out '^init tid=.* marker=zz$' 1
assert_count out '^done$' 1
for i in 0 1 2; do
    assert_count out "^thread_init $i tid=$i\$" 1
    assert_count out "^thread_done $i calls=[0-9]+\$" 1
done
calls=$(sed -n 's/^thread_done [0-9] calls=//p' out | awk '{ s += $1 } END { print s + 0 }')
assert_eq "$calls" 30 "event() calls over all threads"
assert_match out "total number of events: +30$"
assert_not_contains out "not ok"
# init runs before the workers start and done after the report.
assert_eq "$(grep -n '^init' out | cut -d: -f1)" \
    "$(grep -n -e '^init' -e '^thread_init' out | head -n 1 | cut -d: -f1)" "init comes first"
done_line=$(grep -n '^done$' out | cut -d: -f1)
fair_line=$(grep -n 'Threads fairness' out | cut -d: -f1)
assert_gt "${done_line:-0}" "${fair_line:-999999}" "line of done() after the report"

tcase "hooks: global prepare, cleanup and help"
sb "$L/hooks.lua" prepare
assert_exit 0
assert_count out '^global prepare ran$' 1
assert_count out '^init' 0
sb "$L/hooks.lua" cleanup
assert_exit 0
assert_count out '^global cleanup ran$' 1
sb "$L/hooks.lua" help
assert_exit 0
assert_count out '^script help ran$' 1
assert_contains out "--marker"

tcase "hooks: custom serial command runs once in the main state"
sb --threads=3 "$L/hooks.lua" serial
assert_exit 0
assert_count out '^serial_cmd ' 1
assert_count out '^serial_cmd tid=' 1

tcase "hooks: PARALLEL_COMMAND runs once per thread with distinct tids"
sb --threads=4 "$L/hooks.lua" parallel
assert_exit 0
assert_count out '^parallel_cmd ' 4
assert_eq "$(sed -n 's/^parallel_cmd tid=//p' out | sort -n | tr '\n' ' ')" "0 1 2 3 " "tids"

tcase "hooks: a prepare in sysbench.cmdline.commands overrides the global one"
SB_HOOKS_MODE=override sb --threads=2 "$L/hooks.lua" prepare
assert_exit 0
assert_count out '^global prepare ran$' 0
assert_eq "$(sed -n 's/^command prepare tid=//p' out | sort -n | tr '\n' ' ')" "0 1 " "tids"

tcase "event() returning true stops its thread"
start=$(date +%s)
sb "$L/stop.lua" run --threads=3 --time=30
end=$(date +%s)
assert_exit 0
assert_kv out stopped0 3
assert_kv out stopped1 4
assert_kv out stopped2 5
assert_match out "total number of events: +12$"
assert_lt $((end - start)) 10 "seconds to finish"

# ---------------------------------------------------------------- options and cmdline

tcase "sysbench.opt: typed defaults of script and general options"
sb "$L/options.lua" opts
assert_exit 0
assert_contains out "flag=false (boolean)"
assert_contains out "flag_on=true (boolean)"
assert_contains out "count=10 (number)"
assert_contains out "bytes=4096 (number)"
assert_contains out "ratio=0.5 (number)"
assert_contains out "name=alpha (string)"
assert_contains out "items=a|b #2 (table)"
assert_contains out "typed_list=x|y|z #3 (table)"
assert_contains out "dash_name=3 (number)"
assert_contains out "some_file= (string)"
assert_contains out "threads=1 (number)"
assert_contains out "time=10 (number)"
assert_contains out "events=0 (number)"
assert_contains out "rand_type=special (string)"
assert_contains out "percentile=95 (number)"
assert_contains out "histogram=false (boolean)"
assert_contains out "db_driver=sqlite (string)"
assert_contains out "sqlite_db=sbtest.db (string)"
assert_contains out "rand_pareto_h=0.2 (number)"

tcase "sysbench.opt: typed values from the command line"
sb "$L/options.lua" opts --flag --flag-on=off --count=42 --bytes=2M --ratio=1.25 \
    --name=beta --items=p,q,r --dash-name=7 --some-file=/etc/hostname \
    --threads=4 --rand-seed=42 --percentile=50,99 --histogram=on --rand-type=zipfian
assert_exit 0
assert_contains out "flag=true (boolean)"
assert_contains out "flag_on=false (boolean)"
assert_contains out "count=42 (number)"
assert_contains out "bytes=2097152 (number)"
assert_contains out "ratio=1.25 (number)"
assert_contains out "name=beta (string)"
assert_contains out "items=p|q|r #3 (table)"
assert_contains out "dash_name=7 (number)"
assert_contains out "some_file=/etc/hostname (string)"
assert_contains out "threads=4 (number)"
assert_contains out "rand_seed=42 (number)"
assert_contains out "percentile=50 (number)"
assert_contains out "histogram=true (boolean)"
assert_contains out "rand_type=zipfian (string)"
for v in on true 1; do
    sb "$L/options.lua" opts --flag="$v" --bytes=3K
    assert_contains out "flag=true (boolean)"
    assert_contains out "bytes=3072 (number)"
done
for v in off false 0; do
    sb "$L/options.lua" opts --flag-on="$v"
    assert_contains out "flag_on=false (boolean)"
done

tcase "sysbench.opt: bad values of script options"
sb "$L/options.lua" opts --count=many
assert_exit 1
assert_fatal "--count"
sb "$L/options.lua" opts --bytes=12Q
assert_exit 1
assert_fatal "--bytes"
sb "$L/options.lua" opts --flag=perhaps
assert_exit 1
assert_fatal "--flag"
sb "$L/options.lua" opts --ratio=x1
assert_exit 1
assert_fatal "--ratio"

tcase "sysbench.cmdline: argv, command, script_path, command_defined, version"
sb "$L/options.lua" show --count=5
assert_exit 0
assert_kv out "argv\\[0\\]" "$SB_BIN"
assert_kv out "argv\\[1\\]" "$L/options.lua"
assert_kv out "argv\\[2\\]" "show"
assert_kv out "argv\\[3\\]" "--count=5"
assert_kv out command show
assert_kv out script_path "$L/options.lua"
assert_kv out defined_show true
assert_kv out defined_opts true
assert_kv out defined_nope false
assert_match out '^version=[0-9]+\.[0-9]+\.[0-9]+$'
v=$(kv out version)
assert_kv out version_string "sysbench $v"
"$SB_BIN" --version >ver.out 2>&1
assert_contains ver.out "sysbench $v"
assert_kv out error_none 0
assert_kv out error_restart 1

tcase "sysbench.cmdline.print_test_options"
sb "$L/options.lua" help_ext
assert_exit 0
assert_match out '^ +--count=N +an integer \[10\]$'
assert_match out '^ +--bytes=SIZE +a size \[4K\]$'
assert_match out '^ +--flag\[=on\|off\] +a boolean \[off\]$'
assert_match out '^ +--items=\[LIST,\.\.\.\] +a list \[a,b\]$'
assert_match out '^ +--name=STRING +a string \[alpha\]$'
assert_count out '^ +--' 10

# ---------------------------------------------------------------- rand

tcase "sysbench.rand: ranges, formats, unique() in every thread"
sb "$L/rand.lua" run --threads=2 --events=1
assert_exit 0
assert_kv out checks_thread0 23
assert_kv out checks_thread1 23
assert_not_contains out "not ok"

tcase "sysbench.rand: same seed, same sequences; other seed differs"
sb --rand-seed=42 --threads=2 "$L/rand.lua" draw
assert_exit 0
grep '^t[0-9]' out | sort >seq42a
sb --rand-seed=42 --threads=2 "$L/rand.lua" draw
grep '^t[0-9]' out | sort >seq42b
sb --rand-seed=43 --threads=2 "$L/rand.lua" draw
grep '^t[0-9]' out | sort >seq43
assert_lines seq42a 40
cmp -s seq42a seq42b || fail "two runs with --rand-seed=42 differ"
cmp -s seq42a seq43 && fail "--rand-seed=42 and 43 give the same sequences"
# The two threads draw different sequences.
grep '^t0 ' seq42a | cut -d' ' -f2- >t0
grep '^t1 ' seq42a | cut -d' ' -f2- >t1
cmp -s t0 t1 && fail "threads 0 and 1 draw the same sequence"
# A thread's sequence does not depend on how many threads there are...
sb --rand-seed=42 --threads=1 "$L/rand.lua" draw
grep '^t0 ' out >seq1
grep '^t0 ' seq42a | cmp -s - seq1 || fail "thread 0 differs between --threads=1 and 2"
# ...nor on whether it runs a command or a benchmark.
SB_RAND_DRAW=1 sb --rand-seed=42 --threads=2 "$L/rand.lua" run --events=1
assert_exit 0
grep '^t[0-9]' out | sort | cmp -s - seq42a || fail "run and command draw differently"
# Time-seeded runs differ from each other. The seed is the current time in
# seconds (as in sysbench 1.0), so the second run waits for the next second.
sb --threads=1 "$L/rand.lua" draw
grep '^t0 ' out >seq0a
sleep 1.1
sb --threads=1 "$L/rand.lua" draw
grep '^t0 ' out | cmp -s - seq0a && fail "two time-seeded runs drew the same sequence"

tcase "sysbench.rand.default follows --rand-type"
cat >def.lua <<'EOF'
local n, low = 20000, 0
for _ = 1, n do if sysbench.rand.default(1, 100) <= 10 then low = low + 1 end end
print("low=" .. low)
EOF
sb --rand-type=uniform --rand-seed=1 def.lua
low_u=$(kv out low)
sb --rand-type=pareto --rand-seed=1 def.lua
low_p=$(kv out low)
# Uniform puts ~10% in the lowest tenth, pareto (h=0.2) far more.
assert_between "${low_u:-0}" 1600 2400 "uniform values <= 10"
assert_ge "${low_p:-0}" 10000 "pareto values <= 10"

# ---------------------------------------------------------------- sql

for mode in auto disable; do
    tcase "sysbench.sql on SQLite (--db-ps-mode=$mode)"
    sb --sqlite-db=t.db --db-ps-mode="$mode" "$L/sql.lua" sqltest
    assert_exit 0
    assert_checks sql 56
    assert_kv out errno 1
    assert_contains out "row: 1|7|-300|123456|1234567890123|2.5|-1.125|12:34:56|2024-02-29|2024-02-29 12:34:56|2001-02-03 04:05:06"
    assert_contains out "row: 2|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL"
    grep '^row:' out >"$_T_ROOT/rows.$mode"
    assert_eq "$(db_query t.db 'SELECT count(*) FROM types')" 3 "rows in types (sqlite3)"
    assert_eq "$(db_query t.db "SELECT vc FROM types WHERE id = 1")" "a varchar" "vc (sqlite3)"
done
tcase "sysbench.sql: both --db-ps-mode values store the same rows"
cmp -s "$_T_ROOT/rows.auto" "$_T_ROOT/rows.disable" || fail "rows differ between ps modes"
assert_lines "$_T_ROOT/rows.auto" 3

tcase "sysbench.sql: queries from concurrent worker threads"
sb --sqlite-db=t.db "$L/sql.lua" mkev
assert_exit 0
sb --sqlite-db=t.db "$L/sql.lua" run --threads=2 --time=1
assert_exit 0
tx=$(report_num out "transactions:")
assert_gt "${tx:-0}" 0 "transactions"
assert_eq "$(report_num out "read:")" "$tx" "reads"
assert_eq "$(report_num out "write:")" "$tx" "writes"
assert_eq "$(report_num out "other:")" 0 "other"
assert_eq "$(report_num out "    total:")" $((tx * 2)) "total queries"
rows=$(db_query t.db 'SELECT count(*) FROM ev')
# Random id collisions aside, one row per transaction.
assert_between "$rows" $((tx - 20)) "$tx" "rows inserted"
assert_eq "$(db_query t.db 'SELECT count(DISTINCT tid) FROM ev')" 2 "threads that inserted"

tcase "sysbench.sql: a fatal SQL error in event() ends the run"
sb --sqlite-db=t.db "$L/restart.lua" setup
SB_RESTART_MODE=fatal sb --sqlite-db=t.db "$L/restart.lua" run --threads=2 --events=20
assert_exit 1
assert_fatal "restart.lua:"
assert_contains err "SQL error, errno = 1"
assert_contains err "no such table: missing_table"

tcase "sysbench.sql: a script can pcall a fatal SQL error"
sb --sqlite-db=t.db "$L/restart.lua" setup
SB_RESTART_MODE=pcall sb --sqlite-db=t.db "$L/restart.lua" run --threads=2 --events=20
assert_exit 0
assert_eq "$(sum_kv out caught)" 20 "caught errors"
assert_match out "total number of events: +20$"
assert_match out "ignored errors: +0 "

# Regression: several threads opening a fresh database file at once used
# to fail now and then with "database is locked" from the journal-mode
# pragma, which SQLite does not route through the busy timeout. The race
# shows in a few percent of runs, so this case tries 20 times.
tcase "threads connecting at once to a fresh SQLite file"
cat >conc.lua <<'EOF'
function thread_init()
  con = sysbench.sql.driver():connect()
  con:query("CREATE TABLE IF NOT EXISTS x (a INTEGER)")
end
function event() con:query("SELECT 1") end
EOF
failed_runs=0
for i in $(seq 1 20); do
    rm -f fresh.db fresh.db-wal fresh.db-shm
    sb --sqlite-db=fresh.db conc.lua run --threads=4 --events=50
    [ "$SB_RC" = 0 ] || failed_runs=$((failed_runs + 1))
done
assert_eq "$failed_runs" 0 "runs out of 20 that failed to connect"

# ---------------------------------------------------------------- RESTART_EVENT

tcase "RESTART_EVENT raised by the script is retried, not counted (as 1.0)"
sb --sqlite-db=t.db "$L/restart.lua" setup
SB_RESTART_MODE=raise sb --sqlite-db=t.db "$L/restart.lua" run --threads=1 --events=20
assert_exit 0
assert_kv out raised0 3
assert_kv out hooked0 3
assert_kv out hook_ok0 true
# sysbench 1.0 counts ignored errors where the SQL error happens; a script
# that raises RESTART_EVENT itself counts with sb_counter_inc if it wants.
assert_match out "ignored errors: +0 "
assert_match out "transactions: +20 "
assert_match out "total number of events: +20$"
# 20 events plus 3 tries that were restarted each ran one SELECT.
assert_match out "read: +23$"

tcase "sysbench.hooks.sql_error_ignorable makes an SQL error restart the event"
sb --sqlite-db=t.db "$L/restart.lua" setup
SB_RESTART_MODE=ignorable sb --sqlite-db=t.db "$L/restart.lua" run --threads=2 --events=20
assert_exit 0
assert_eq "$(sum_kv out raised)" 20 "failing first tries"
assert_eq "$(sum_kv out hooked)" 20 "before_restart_event calls"
assert_kv out hook_ok0 true
assert_kv out hook_ok1 true
assert_match out "ignored errors: +20 "
assert_match out "total number of events: +20$"

tcase "--db-ignore-errors makes an SQL error restart the event"
sb --sqlite-db=t.db "$L/restart.lua" setup
SB_RESTART_MODE=dbignore sb --db-ignore-errors=1 --sqlite-db=t.db "$L/restart.lua" run \
    --threads=2 --events=20
assert_exit 0
assert_eq "$(sum_kv out hooked)" 20 "before_restart_event calls"
assert_kv out hook_ok0 true
assert_match out "ignored errors: +20 "
assert_match out "total number of events: +20$"

# ---------------------------------------------------------------- reports

tcase "report hooks receive the documented stat fields"
report_run fields
assert_exit 0
assert_not_contains out "BAD"
assert_not_contains out "UNEXPECTED"
assert_not_contains out "General statistics:"
n_int=$(grep -c '^interval.events=' out)
assert_between "$n_int" 1 2 "interval reports"
for f in threads_running time_interval time_total latency_pct events reads writes other \
    errors reconnects queue_length concurrency; do
    assert_count out "^interval\\.$f=" "$n_int"
done
for f in threads_running time_interval time_total latency_pct events reads writes other \
    errors reconnects latency_min latency_max latency_avg latency_sum; do
    assert_count out "^final\\.$f=" 1
done
ev=$(kv out final.events)
assert_gt "$ev" 0 "final events"
assert_eq "$(kv out final.reads)" "$ev" "final reads"
assert_eq "$(kv out final.writes)" "$ev" "final writes"
assert_num "$(kv out final.other)" == 0 "final other"
assert_num "$(kv out final.errors)" == 0 "final errors"
# Every worker has finished by the final report: 1.0 says 0.
assert_num "$(kv out final.threads_running)" == 0 "final threads_running"
assert_between "$(kv out final.time_total)" 1.9 3 "final time_total (seconds)"
assert_num "$(kv out interval.threads_running)" == 2 "interval threads_running"
assert_between "$(kv out interval.time_interval)" 0.9 1.1 "interval time_interval (seconds)"
# Latencies are in seconds: min <= avg <= max, all well under a second.
lmin=$(kv out final.latency_min)
lavg=$(kv out final.latency_avg)
lmax=$(kv out final.latency_max)
lsum=$(kv out final.latency_sum)
assert_le "$lmin" "$lavg" "latency_min vs avg"
assert_le "$lavg" "$lmax" "latency_avg vs max"
assert_lt "$lmax" 1 "latency_max (seconds)"
assert_gt "$lsum" 0 "latency_sum"
# sum = avg * events, within rounding of the printed values.
awk -v s="$lsum" -v a="$lavg" -v e="$ev" 'BEGIN { d = s - a * e; if (d < 0) d = -d;
    exit !(d <= 0.02 * s + 0.001) }' || fail "latency_sum $lsum != avg $lavg * events $ev"
# Interval events add up to at most the final count.
isum=$(grep '^interval.events=' out | cut -d= -f2 | awk '{ s += $1 } END { print s }')
assert_le "$isum" "$ev" "sum of interval events"

tcase "sysbench.report_default output shape"
report_run default
assert_exit 0
# 1.0's own line: "err/s" without a colon; thds 0 in the final report.
re='^\[ [0-9]+s \] thds: (2|0) tps: [0-9]+\.[0-9]{2} qps: [0-9]+\.[0-9]{2} \(r/w/o: [0-9]+\.[0-9]{2}/[0-9]+\.[0-9]{2}/0\.00\) lat \(ms,95%\): [0-9]+\.[0-9]{2} err/s 0\.00 reconn/s: 0\.00$'
n=$(grep -cE "$re" out)
assert_between "$n" 2 3 "report_default lines"
assert_count out '^\[ ' "$n"
assert_not_contains out "General statistics:"
# qps is twice tps (one read and one write per event).
grep -E "$re" out | awk '{ tps = $7; qps = $9; if (qps < 1.99 * tps || qps > 2.01 * tps) bad = 1 }
    END { exit bad }' || fail "qps is not twice tps"

tcase "sysbench.report_csv output shape"
report_run csv
assert_exit 0
re='^[0-9]+,(2|0),[0-9]+\.[0-9]{2},[0-9]+\.[0-9]{2},[0-9]+\.[0-9]{2},[0-9]+\.[0-9]{2},0\.00,[0-9]+\.[0-9]{2},0\.00,0\.00$'
n=$(grep -cE "$re" out)
assert_between "$n" 2 3 "report_csv lines"
assert_count out '^[0-9]+,' "$n"
assert_match out '^1,2,'
assert_match out '^2,2,'

tcase "sysbench.report_json output shape"
report_run json
assert_exit 0
# 1.0's layout: pretty objects in a "[ ... ]" array per kind of report
# (the intervals, then the final one), each object's fields on own lines.
assert_match out '^\[$'
assert_match out '^    "time": +[0-9]+,$'
assert_match out '^      "total": [0-9]+\.[0-9]{2},$'
assert_count out '^\]$' 2
if command -v python3 >/dev/null 2>&1; then
    python3 - out <<'EOF' || fail "report_json output is not 1.0's arrays of objects"
import json, re, sys
text = open(sys.argv[1]).read()
arrays = re.findall(r"^\[\n.*?^\]$", text, re.S | re.M)
assert len(arrays) == 2, arrays
objs = [o for a in arrays for o in json.loads(a)]
assert 2 <= len(objs) <= 3, objs
for d in objs:
    assert set(d) == {"time", "threads", "tps", "qps", "latency", "errors", "reconnects"}, d
    assert set(d["qps"]) == {"total", "reads", "writes", "other"}, d
    assert d["tps"] > 0 and d["errors"] == 0, d
    assert abs(d["qps"]["total"] - 2 * d["tps"]) <= 0.02 * d["qps"]["total"] + 0.01, d
assert [d["threads"] for d in json.loads(arrays[1])] == [0], arrays[1]
assert all(d["threads"] == 2 for d in json.loads(arrays[0])), arrays[0]
EOF
fi

# ---------------------------------------------------------------- FFI

tcase "FFI: sb_counter_inc from a script changes the report counters"
sb "$L/ffi_counters.lua" run --events=50 --threads=2
assert_exit 0
assert_match out "^ +read: +100$"
assert_match out "^ +write: +50$"
assert_match out "^ +other: +150$"
assert_match out "^ +total: +300$"
assert_match out "transactions: +50 "
assert_match out "total number of events: +50$"

tcase "FFI: thread_run with sb_more_events/sb_event_start/sb_event_stop"
SB_FFI_MODE=thread_run sb "$L/ffi_counters.lua" run --events=40 --threads=2
assert_exit 0
assert_eq "$(sum_kv out loops)" 40 "loop iterations over both threads"
assert_match out "total number of events: +40$"
assert_match out "^ +read: +80$"
SB_FFI_MODE=thread_run sb "$L/ffi_counters.lua" run --time=1 --threads=2
assert_exit 0
ev=$(report_num out "total number of events:")
assert_gt "${ev:-0}" 0 "events in a timed thread_run"
assert_eq "$(sum_kv out loops)" "$ev" "loop iterations in a timed thread_run"

tcase "FFI: sb_counter_type enum names and order"
SB_FFI_MODE=enum sb "$L/ffi_counters.lua"
assert_exit 0
assert_kv out enum "0,1,2,3,4,5,6"

# ---------------------------------------------------------------- histogram

tcase "sysbench.histogram new/update/print"
sb "$L/histogram.lua"
assert_exit 0
assert_contains out "printed"
total=$(awk '/\|/ && $1 ~ /^[0-9.]+$/ { s += $NF } END { print s + 0 }' out)
assert_eq "$total" 1000 "sum of printed counts"
# The two groups land in buckets near 1 ms and 100 ms.
b1=$(awk '/\|/ && $NF == 900 { print $1 }' out)
b2=$(awk '/\|/ && $NF == 100 { print $1 }' out)
assert_between "${b1:-0}" 0.9 1.1 "bucket of 1 ms"
assert_between "${b2:-0}" 90 110 "bucket of 100 ms"

# ---------------------------------------------------------------- bundled scripts

for s in oltp_read_write oltp_read_only oltp_write_only oltp_point_select oltp_insert \
    oltp_delete oltp_update_index oltp_update_non_index select_random_points \
    select_random_ranges; do
    tcase "bundled $s: prepare, run, cleanup on SQLite"
    opts=(--sqlite-db=b.db --tables=2 --table-size=1000)
    sb "$s" prepare "${opts[@]}"
    assert_exit 0
    assert_eq "$(db_query b.db 'SELECT count(*) FROM sbtest1')" 1000 "rows in sbtest1"
    assert_eq "$(db_query b.db 'SELECT count(*) FROM sbtest2')" 1000 "rows in sbtest2"
    assert_eq "$(db_query b.db "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'k_1' AND tbl_name = 'sbtest1'")" 1 "index k_1"
    assert_eq "$(db_query b.db "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'k_2'")" 1 "index k_2"
    sb "$s" run "${opts[@]}" --threads=2 --time=2
    assert_exit 0
    assert_no_crash
    tx=$(report_num out "transactions:")
    assert_gt "${tx:-0}" 0 "transactions"
    # Concurrent writers on SQLite get SQLITE_BUSY, which is ignorable, so
    # only the read-only scripts are sure to have no ignored errors.
    case "$s" in
    oltp_read_only|oltp_point_select|select_random_*)
        assert_match out "ignored errors: +0 " ;;
    *)
        assert_match out "ignored errors: +[0-9]+ " ;;
    esac
    tt=$(report_num out "total time:")
    assert_between "${tt:-0}" 1.9 3 "total time"
    sb "$s" cleanup "${opts[@]}"
    assert_exit 0
    assert_eq "$(db_query b.db "SELECT count(*) FROM sqlite_master WHERE name LIKE 'sbtest%'")" 0 \
        "tables left after cleanup"
done

tcase "bundled bulk_insert: prepare, run, cleanup on SQLite"
# bulk_insert has no --tables/--table-size: it makes one table per thread.
sb bulk_insert prepare --sqlite-db=b.db --threads=2
assert_exit 0
assert_eq "$(db_query b.db "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('sbtest1', 'sbtest2')")" 2 "tables"
sb bulk_insert run --sqlite-db=b.db --threads=2 --time=2
assert_exit 0
ev=$(report_num out "total number of events:")
assert_gt "${ev:-0}" 0 "rows inserted (events)"
rows=$(( $(db_query b.db 'SELECT count(*) FROM sbtest1') + $(db_query b.db 'SELECT count(*) FROM sbtest2') ))
assert_eq "$rows" "$ev" "rows in the tables vs events"
sb bulk_insert cleanup --sqlite-db=b.db --threads=2
assert_exit 0
assert_eq "$(db_query b.db "SELECT count(*) FROM sqlite_master WHERE name LIKE 'sbtest%'")" 0 \
    "tables left after cleanup"

tcase "bundled oltp_common: prepare, prewarm, cleanup"
sb oltp_common prepare --sqlite-db=b.db --tables=2 --table-size=1000
assert_exit 0
assert_contains out "sbtest2"
assert_eq "$(db_query b.db 'SELECT count(*) FROM sbtest2')" 1000 "rows in sbtest2"
assert_eq "$(db_query b.db 'SELECT count(DISTINCT id) FROM sbtest1')" 1000 "distinct ids"
sb oltp_common prewarm --sqlite-db=b.db --tables=2 --table-size=1000
assert_exit 0
assert_contains out "sbtest1"
assert_contains out "sbtest2"
sb oltp_common cleanup --sqlite-db=b.db --tables=2
assert_exit 0
assert_eq "$(db_query b.db "SELECT count(*) FROM sqlite_master WHERE name LIKE 'sbtest%'")" 0 \
    "tables left after cleanup"

tcase "bundled oltp_read_write: run on unprepared tables fails cleanly"
sb oltp_read_write run --sqlite-db=empty.db --tables=1 --table-size=10 --time=2
assert_exit 1
assert_fatal "sbtest1"

tcase "print() from several threads writes whole lines"
cat >pr.lua <<'EOF'
function event()
  print("thread", sysbench.tid, "says", "a line long enough to be split if print were not atomic")
end
EOF
sb pr.lua run --threads=2 --events=20000
assert_exit 0
assert_eq "$(grep -c '^thread	[01]	says	a line long enough to be split if print were not atomic$' out)" 20000 \
    "whole lines printed"

tcase "p:set takes LuaJIT 64-bit integers and numeric strings for BIGINT"
cat >i64.lua <<'EOF'
local con = sysbench.sql.driver():connect()
con:query("CREATE TABLE t (a BIGINT)")
local st = con:prepare("INSERT INTO t VALUES (?)")
local p = st:bind_create(sysbench.sql.type.BIGINT)
st:bind_param(p)
for _, v in ipairs({123, 9007199254740993LL, -5LL, "42"}) do p:set(v); st:execute() end
local rs = con:query("SELECT a FROM t ORDER BY rowid")
for i = 1, rs.nrows do io.write("v=", rs:fetch_row()[1], "\n") end
io.write("bad=", tostring(pcall(p.set, p, "12abc")), "\n")
EOF
sb --sqlite-db=i64.db i64.lua
assert_exit 0
assert_eq "$(grep '^v=' out | tr '\n' ' ')" "v=123 v=9007199254740993 v=-5 v=42 " "values stored"
assert_contains out "bad=false"

finish
