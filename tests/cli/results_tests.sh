#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Result files and sweeps: --json (one document per invocation: a valid
# document whose figures agree with the text report, with no password in
# it), --csv (one row per interval), CPU figures on interval lines, the
# sweep table of --threads and --tx-rate lists, --sweep-cooldown, bad
# result file paths (one FATAL line before any work), and the same safety
# for the --log and --hgrm files.
#
# Run by `make check`, or by hand: bash tests/cli/results_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read the JSON documents"

# A script that runs real queries, so the SQL figures and the driver show.
write_sql() {
    cat >sql.lua <<'EOF'
function thread_init()
  con = sysbench.sql.driver():connect()
  con:query("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v INTEGER)")
end
function event()
  con:query("SELECT 1")
  con:query("INSERT INTO t (v) VALUES (1)")
end
EOF
}

# ---------------------------------------------------------------- --json

tcase "--json writes a valid document that agrees with the text report"
write_sql
sb --sqlite-db=db sql.lua run --threads=2 --time=2 --report-interval=1 \
    --percentile=50,95,99 --json=r.json
assert_exit 0
assert_eq "$(jget r.json 'd["format"]')" sysbench-result "format"
ev=$(report_num out "total number of events:")
assert_gt "${ev:-0}" 0 "events"
assert_eq "$(jget r.json 'len(d["points"])')" 1 "number of points"
assert_eq "$(jget r.json 'd["points"][0]["final"]["events"]')" "$ev" "final.events"
assert_eq "$(jget r.json 'd["points"][0]["histogram"]["count"]')" "$ev" "histogram.count"
assert_eq "$(jget r.json 'sum(b[2] for b in d["points"][0]["histogram"]["buckets"])')" "$ev" \
    "sum of bucket counts"
# Buckets are ordered, non-empty, with low <= high.
assert_eq "$(jget r.json 'all(b[0] <= b[1] and b[2] > 0 for b in d["points"][0]["histogram"]["buckets"])')" \
    true "bucket bounds"
reads=$(report_num out "read:")
assert_eq "$(jget r.json 'd["points"][0]["final"]["queries"]["reads"]')" "$reads" "queries.reads"
assert_eq "$(jget r.json 'sorted(d["points"][0]["final"]["latency_ms"]["response"]["percentiles"])')" \
    '["50", "95", "99"]' "percentile keys"
p99=$(report_num out "99th percentile:")
assert_num "$(jget r.json 'round(d["points"][0]["final"]["latency_ms"]["response"]["percentiles"]["99"], 2)')" \
    == "$p99" "p99"
assert_eq "$(jget r.json 'd["points"][0]["threads"]')" 2 "threads"
assert_eq "$(jget r.json 'd["environment"]["driver"]')" sqlite "driver"
assert_eq "$(jget r.json 'd["environment"]["server_version"]')" \
    "$(jget r.json '[x["client_version"] for x in d["tool"]["drivers"] if x["name"] == "sqlite"][0]')" \
    "server_version (SQLite: the library's)"
assert_gt "$(jget r.json 'd["environment"]["cpu"]["online"]')" 0 "cpu count"
assert_ne "$(jget r.json 'd["environment"]["kernel"]["release"]')" "" "kernel"
assert_eq "$(jget r.json 'd["tool"]["allocator"]')" "$("$SB_BIN" --version --verbosity=4 | sed -n 's/^allocator: //p')" \
    "allocator"
assert_eq "$(jget r.json 'd["options"]["general"]["threads"]')" '["2"]' "options.general.threads"
assert_eq "$(jget r.json '"json" in d["options"]["given"]')" true "options.given"
assert_eq "$(jget r.json 'd["points"][0]["final"]["cpu"]["client"]["measured"]')" true "cpu.client"
assert_eq "$(jget r.json 'len(d["points"][0]["intervals"])')" 2 "intervals"

tcase "--json never contains a password"
write_ev
sb ev.lua run --events=100 --db-driver=mysql --mysql-password=secretpw \
    --pgsql-password=otherpw --json=r.json
assert_exit 0
assert_eq "$(jget r.json 'd["format"]')" sysbench-result "format"
assert_not_contains r.json secretpw
assert_not_contains r.json otherpw
assert_eq "$(jget r.json 'd["options"]["drivers"]["mysql"]["mysql-password"]')" null "mysql-password"
assert_contains r.json '"--mysql-password=<redacted>"'

tcase "--json escapes strings per RFC 8259"
cat >esc.lua <<'EOF'
sysbench.cmdline.options = { label = {"a label", ""} }
function event() end
EOF
label=$'quote" backslash\\ tab\t bell\a unicode \xc3\xa9'
sb esc.lua run --events=10 "--label=$label" --json=r.json
assert_exit 0
got=$(jget r.json 'd["options"]["script"]["label"]')
assert_eq "$got" "$label" "label read back"

tcase "--json records an interrupted run"
write_ev
sb_bg ev.lua run --time=30 --report-interval=1 --json=r.json
sleep 2.5
kill -INT "$SB_PID"
sb_wait
assert_exit 130
assert_eq "$(jget r.json 'd["points"][0]["interrupted"]')" true "interrupted"
assert_eq "$(jget r.json 'd["points"][0]["final"]["events"]')" \
    "$(report_num out "total number of events:")" "events"

# ---------------------------------------------------------------- --csv

tcase "--csv has a header and one row per interval"
write_ev
sb ev.lua run --time=3 --report-interval=1 --csv=r.csv --json=r.json
assert_exit 0
assert_match r.csv '^point,threads,target_tps,time_s,tps,qps,reads_ps,writes_ps,other_ps,latency_p95_ms,errors_ps,reconnects_ps,lag_p95_ms,backlog,cpu_client_pct,cpu_server_pct,epoch_s,ended,deadline,cancelled$'
n=$(grep -c '^\[ ' out)
assert_ge "$n" 2 "interval lines"
# The header, one row per interval and the row saying how the run ended.
assert_lines r.csv $((n + 2))
assert_count r.csv '^1,1,,[0-9.]+,[0-9.]+,' "$n"
# A closed loop has no lag or backlog: their fields are empty, not 0.00.
assert_count r.csv '^1,1,(,[^,]*){9},,,' "$n"
assert_eq "$(jget r.json 'len(d["points"][0]["intervals"])')" "$n" "JSON intervals"
# Every row has 20 fields; the server column is empty (SQLite is embedded).
assert_eq "$(awk -F, 'NR > 1 && (NF != 20 || $16 != "") { bad++ } END { print bad + 0 }' r.csv)" 0 \
    "malformed rows"
assert_eq "$(csv_end r.csv all)" "completed|met|0" "CSV end row, read by python3's csv module"

tcase "interval lines end with the CPU fields"
write_ev
# Every interval line, however many: a reporter held up past a whole tick
# on a loaded machine folds that tick into its next line (sb_monitor.c).
sb ev.lua run --time=3 --report-interval=1
assert_exit 0
n=$(grep -c '^\[ ' out || true)
assert_ge "$n" 1 "interval lines"
assert_count out '^\[ [0-9]+s \] thds: 1 eps: [0-9.]+ lat \(ms,95%\): [0-9.]+ cpu \(client/server %\): [0-9]+\.[0-9]{2}/n/a$' "$n"

tcase "CPU fields follow the rate fields"
write_ev
sb ev.lua run --time=2 --report-interval=1 --tx-rate=100
assert_exit 0
assert_match out 'target: 100\.00 lag \(ms,95%\): [0-9.]+ backlog: [0-9]+ cpu \(client/server %\): [0-9.]+/n/a$'

# ---------------------------------------------------------------- sweeps

tcase "--threads=1,2 prints the sweep table and two points"
write_ev
sb ev.lua run --threads=1,2 --time=1 --json=r.json
assert_exit 0
assert_contains out "Sweep summary (2 points"
assert_match out '^ +threads +tps +qps +p95 +p99 +cpu client +cpu server +cpu mach\. +relative +self-check$'
assert_match out '^ +1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +n/a +[0-9.na/]+ +1\.00x +[a-z, -]+$'
assert_match out '^ +2 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +n/a +[0-9.na/]+ +[0-9]+\.[0-9]{2}x +[a-z, -]+$'
# A line per point (its header and its result), not a full report each.
assert_count out '^point [12] of 2: threads=[12]' 2
assert_count out '^    => tps [0-9.]+, p95 [0-9.]+ ms, p99 [0-9.]+ ms, CPU us/tx client [0-9.]+, self-check ' 2
assert_count out 'General statistics:' 0
assert_eq "$(jget r.json '[p["threads"] for p in d["points"]]')" '[1, 2]' "points' threads"
assert_eq "$(jget r.json 'all(p["complete"] for p in d["points"])')" true "complete"

tcase "--threads=1,2 --verbosity=4 prints both points' full reports"
write_ev
sb ev.lua run --threads=1,2 --time=1 --verbosity=4
assert_exit 0
assert_count out 'General statistics:' 2
assert_count out '^Self-check:' 2
assert_count out '^CPU cost per transaction' 2
assert_contains out "Sweep summary (2 points"

tcase "a single point prints no sweep table"
write_ev
sb ev.lua run --threads=2 --time=1
assert_exit 0
assert_not_contains out "Sweep summary"

tcase "--tx-rate sweep shows the target column"
write_ev
sb ev.lua run --tx-rate=50,100 --time=1 --json=r.json
assert_exit 0
assert_match out '^ +threads +target +tps'
assert_match out '^ +1 +50\.00 +[0-9.]+ .* 1\.00x +[a-z, -]+$'
assert_match out '^ +1 +100\.00 +[0-9.]+ '
assert_eq "$(jget r.json '[p["target_tps"] for p in d["points"]]')" '[50, 100]' "targets"
assert_eq "$(jget r.json 'd["points"][1]["final"]["rate"]["mode"]')" tx-rate "rate mode"

tcase "every point uses the same seed"
cat >seed.lua <<'EOF'
function init() print("init=" .. sysbench.rand.uniform(1, 1000000000)) end
function thread_init() print("thread=" .. sysbench.rand.uniform(1, 1000000000)) end
function event() end
EOF
sb seed.lua run --threads=1,1 --events=10 --rand-seed=42
assert_exit 0
assert_eq "$(grep -c '^init=' out)" 2 "init lines"
assert_eq "$(grep '^init=' out | sort -u | wc -l)" 1 "distinct init values"
assert_eq "$(grep '^thread=' out | sort -u | wc -l)" 1 "distinct thread values"

tcase "--sweep-cooldown pauses between points"
write_ev
start=$(date +%s%N)
sb ev.lua run --threads=1,1 --events=10 --sweep-cooldown=1.5
end=$(date +%s%N)
assert_exit 0
assert_count out 'Cooling down for 1.5 second' 1
assert_ge $(( (end - start) / 1000000 )) 1500 "wall-clock milliseconds"

# ---------------------------------------------------------------- bad paths

bad_paths=(
    "--json=.|--json file '.'"
    "--json=no/such/dir/r.json|--json file 'no/such/dir/r.json'"
    "--csv=.|--csv file '.'"
    "--csv=no/such/dir/r.csv|--csv file 'no/such/dir/r.csv'"
    "--sweep-cooldown=-1|--sweep-cooldown"
    "--json=same --csv=same|name the same file"
)
for entry in "${bad_paths[@]}"; do
    args=${entry%%|*}
    want=${entry#*|}
    tcase "bad result option: $args"
    write_ev
    echo 'function init() print("init ran") end' >>ev.lua
    # shellcheck disable=SC2086 # $args is a list of options on purpose.
    sb ev.lua run --time=1 $args
    assert_exit 1
    assert_fatal "$want"
    assert_lines err 1
    assert_not_contains out "init ran"
    assert_not_contains out "Threads started"
done

tcase "an unwritable --json file is refused before the run"
write_ev
mkdir ro && touch ro/r.json && chmod 0444 ro/r.json
if [ "$(id -u)" = 0 ]; then
    # root writes through file modes; a path under a regular file cannot
    # be created by anyone.
    touch plain
    sb ev.lua run --time=1 --json=plain/r.json
    assert_fatal "--json file 'plain/r.json'"
else
    sb ev.lua run --time=1 --json=ro/r.json
    assert_fatal "--json file 'ro/r.json'"
fi
assert_exit 1
assert_not_contains out "Threads started"

tcase "--json never replaces a file that is not a result file"
write_ev
printf 'SQLite format 3\000precious' >db.sqlite
cp db.sqlite db.orig
sb ev.lua run --time=1 --json=db.sqlite
assert_exit 1
assert_fatal "refusing to replace the --json file 'db.sqlite': it is not a sysbench result file"
cmp -s db.sqlite db.orig || fail "the database file was changed"
assert_not_contains out "Threads started"
assert_eq "$(ls -A | grep -c '\.tmp\.')" 0 "temporary files left"

tcase "--json and --csv refuse symlinks, directories and each other"
write_ev
echo keep >target
ln -s target link.json
mkdir dir.csv
sb ev.lua run --time=1 --json=link.json
assert_exit 1
assert_fatal "'link.json': it is a symbolic link"
assert_eq "$(cat target)" keep "symlink target"
sb ev.lua run --time=1 --csv=dir.csv
assert_exit 1
assert_fatal "'dir.csv': it is a directory"
sb ev.lua run --time=1 --csv=same --json=same
assert_exit 1
assert_fatal "name the same file"

tcase "a previous result file is kept until the new one is complete, then replaced"
write_ev
sb ev.lua run --time=1 --json=r.json --csv=r.csv --report-interval=1
assert_exit 0
cp r.json r1.json
cp r.csv r1.csv
# A run refused before it starts (bad --plot) leaves both files untouched.
sb ev.lua run --time=1 --json=r.json --csv=r.csv --plot=nope.txt
assert_exit 1
cmp -s r.json r1.json || fail "r.json changed by a refused run"
cmp -s r.csv r1.csv || fail "r.csv changed by a refused run"
# While a run is going, the final names still hold the previous results.
sb ev.lua run --time=1 --events=3 --json=r.json --csv=r.csv
assert_exit 0
assert_eq "$(jget r.json 'd["points"][0]["final"]["events"]')" 3 "events in the new document"
assert_eq "$(ls -A | grep -c '\.tmp\.')" 0 "temporary files left"
# An empty file (mktemp) may be replaced.
: >empty.json
sb ev.lua run --time=1 --events=1 --json=empty.json
assert_exit 0
assert_eq "$(jget empty.json 'd["format"]')" sysbench-result "format"

# ---------------------------------------------------------------- --log, --hgrm

# The files of --log and --hgrm follow the rule of --json and --csv: a
# temporary name renamed over the final one when the run ends.

tcase "--log and --hgrm refuse symlinks and leave their targets alone"
write_ev
echo keep >target
ln -s target link.log
ln -s target link.hgrm
ln -s absent dangling.hgrm
for opt in --log=link.log --hgrm=link.hgrm --hgrm=dangling.hgrm; do
    sb ev.lua run --events=10 "$opt"
    assert_exit 1
    assert_fatal "file '${opt#*=}': it is a symbolic link"
    assert_lines err 1
    assert_not_contains out "Threads started"
done
assert_eq "$(cat target)" keep "symlink target"
[ -e absent ] && fail "the dangling symlink's target was created"
assert_eq "$(ls -A | grep -c '\.tmp\.')" 0 "temporary files left"

tcase "every --hgrm name of a sweep is checked before the run"
write_ev
echo keep >target
ln -s target s-2.hgrm
sb ev.lua run --threads=1,2 --events=10 --hgrm=s.hgrm
assert_exit 1
assert_fatal "refusing to replace the --hgrm file 's-2.hgrm': it is a symbolic link"
assert_not_contains out "Threads started"
assert_eq "$(cat target)" keep "symlink target"
[ -e s-1.hgrm ] && fail "s-1.hgrm was written by a refused run"
assert_eq "$(ls -A | grep -c '\.tmp\.')" 0 "temporary files left"

tcase "--log and --hgrm never replace a file of another kind"
write_ev
printf 'SQLite format 3\000precious' >db.sqlite
cp db.sqlite db.orig
for opt in --log --hgrm; do
    sb ev.lua run --events=10 "$opt=db.sqlite"
    assert_exit 1
    assert_fatal "refusing to replace the $opt file 'db.sqlite': it is not a sysbench result file"
    cmp -s db.sqlite db.orig || fail "$opt changed the database file"
done
# Their own earlier files are replaced.
sb ev.lua run --events=10 --log=tx.log --hgrm=r.hgrm
assert_exit 0
sb ev.lua run --events=7 --log=tx.log --hgrm=r.hgrm
assert_exit 0
assert_lines tx.log 7
assert_match r.hgrm '^#\[Max .*Total count += +7\]$'

tcase "a run that fails before measuring keeps the earlier --log and --hgrm"
write_ev
sb ev.lua run --events=5 --log=tx.log --hgrm=r.hgrm
assert_exit 0
cp tx.log tx.orig
cp r.hgrm r.orig
echo 'function init() error("no tables") end' >>ev.lua
sb ev.lua run --events=5 --log=tx.log --hgrm=r.hgrm
assert_exit 1
assert_fatal "no tables"
cmp -s tx.log tx.orig || fail "tx.log changed by a run that measured nothing"
cmp -s r.hgrm r.orig || fail "r.hgrm changed by a run that measured nothing"
assert_eq "$(ls -A | grep -c '\.tmp\.')" 0 "temporary files left"

tcase "--log keeps the earlier file during the run, then publishes an interrupted run's lines"
write_ev
sb ev.lua run --events=5 --log=tx.log
assert_exit 0
cp tx.log tx.orig
sb_bg ev.lua run --time=30 --report-interval=1 --log=tx.log
if wait_for_report out; then
    cmp -s tx.log tx.orig || fail "tx.log changed while the run was going"
    assert_eq "$(ls -A | grep -c '^\.tx\.log\.tmp\.')" 1 "temporary log during the run"
fi
kill -INT "$SB_PID"
sb_wait
assert_exit 130
ev=$(report_num out "total number of events:")
assert_gt "${ev:-0}" 5 "events"
assert_lines tx.log "$ev"
assert_eq "$(ls -A | grep -c '\.tmp\.')" 0 "temporary files left"

tcase "--log publishes the lines of a run that failed after it started"
cat >fail.lua <<'EOF'
function event()
  n = (n or 0) + 1
  if n > 100 then error("event 101 fails") end
end
EOF
sb fail.lua run --events=1000 --log=tx.log
assert_exit 1
assert_fatal "event 101 fails"
assert_lines tx.log 100
assert_eq "$(awk '$2 != NR { bad++ } END { print bad + 0 }' tx.log)" 0 "numbering"

tcase "per worker thread CPU: one entry per thread, consistent with the client"
cat >burn.lua <<'EOF'
-- Thread 1 does three times the Lua work of thread 0 per event, and
-- enough of it (about 8 and 24 us here) that the engine's fixed cost per
-- event, several times larger under TSan, cannot even the two out.
function event(tid)
  local x = 0
  for i = 1, (tid == 1 and 30000 or 10000) do x = x + i end
end
EOF
sb burn.lua run --verbosity=4 --threads=2 --events=20000 --time=0 --json=c.json
assert_exit 0
assert_contains out "client workers:"
assert_match out "worker threads: 2, CPU per thread min/avg/max"
assert_eq "$(jget c.json 'len(d["points"][0]["final"]["cpu"]["threads"])')" 2 "thread entries"
assert_eq "$(jget c.json 'sum(t["events"] for t in d["points"][0]["final"]["cpu"]["threads"])')" 20000 \
    "events over the threads"
# Threads take events as they come, so compare CPU per event: thread 1 burns
# more per event than thread 0.
assert_eq "$(jget c.json '(lambda t: (t[1]["user_s"]+t[1]["system_s"])/t[1]["events"] > 1.5*(t[0]["user_s"]+t[0]["system_s"])/t[0]["events"])(d["points"][0]["final"]["cpu"]["threads"])')" \
    true "heavier thread costs more per event"
# The workers' CPU is part of the whole process's.
assert_eq "$(jget c.json '(lambda c: sum(t["user_s"]+t["system_s"] for t in c["threads"]) <= c["client"]["cpu_s"] * 1.05 + 0.01)(d["points"][0]["final"]["cpu"])')" \
    true "workers within the client total"

finish
