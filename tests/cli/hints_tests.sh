#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Errors and warnings that say what to do (SQLite and the compiled-in
# tests; the server cases are in tests/drivers/conventions.sh): a missing
# table names the prepare command to run, an unknown option the closest
# one, a rate the threads fall far short of is warned about as it shows,
# and a rate they reach is not.
#
# Run by `make check`, or by hand: bash tests/cli/hints_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read the CSV result files"

tcase "a missing table says to run prepare with the same --tables and --table-size"
sb oltp_read_only --tables=3 --table-size=100 --time=1 run
assert_exit 1
assert_fatal "table sbtest1 does not exist: run 'sysbench oltp_read_only --tables=3 --table-size=100 prepare' first"
# No "oltp_common.lua:NNN:" prefix: the line is not what went wrong.
assert_not_contains err "oltp_common.lua:"

tcase "a table missing past those prepared is named, with the run's --tables"
sb oltp_point_select --tables=2 --table-size=50 prepare
assert_exit 0
sb oltp_point_select --tables=3 --table-size=50 --time=1 run
assert_exit 1
assert_fatal "table sbtest3 does not exist: run 'sysbench oltp_point_select --tables=3 --table-size=50 prepare' first"
sb oltp_point_select --tables=2 --table-size=50 --time=1 run
assert_exit 0

tcase "the missing-table hint repeats the driver and connection options, never a password"
# Pasted, the hint must reach the same database: without --sqlite-db it
# would prepare sbtest.db in the current folder.
sb oltp_point_select --db-driver=sqlite --sqlite-db=other.db --mysql-password=Sekr1t \
    --pgsql-password=Sekr2t --tables=2 --table-size=50 --time=1 run
assert_exit 1
assert_fatal "table sbtest1 does not exist: run 'sysbench oltp_point_select --db-driver=sqlite --sqlite-db=other.db --tables=2 --table-size=50 prepare' first"
assert_not_contains err "Sekr1t"
assert_not_contains err "Sekr2t"
# A value with a space is quoted for the shell; the hint, run as given,
# prepares what the run needs.
sb oltp_point_select "--sqlite-db=my db.db" --tables=1 --table-size=20 --time=1 run
assert_exit 1
assert_fatal "run 'sysbench oltp_point_select \"--sqlite-db=my db.db\" --tables=1 --table-size=20 prepare' first"
hint=$(sed -n "s/.*run '\(.*\)' first.*/\1/p" err)
eval "set -- ${hint#sysbench }"
sb "$@"
assert_exit 0
[ -s "my db.db" ] || fail "the hint did not prepare 'my db.db'"
sb oltp_point_select "--sqlite-db=my db.db" --tables=1 --table-size=20 --time=1 run
assert_exit 0

tcase "prepare over existing tables says they exist and names cleanup"
sb oltp_read_only --sqlite-db=ex.db --tables=2 --table-size=20 prepare
assert_exit 0
sb oltp_read_only --sqlite-db=ex.db --tables=2 --table-size=20 prepare
assert_exit 1
assert_fatal "table sbtest1 already exists: these tables were prepared before; drop them with 'sysbench oltp_read_only --sqlite-db=ex.db --tables=2 cleanup' first, or run on the tables as they are"
# No raw SQL error, no script path.
assert_not_contains err "SQL error"
assert_not_contains err "oltp_common.lua"
# The named cleanup makes prepare work again.
sb oltp_read_only --sqlite-db=ex.db --tables=2 cleanup
assert_exit 0
sb oltp_read_only --sqlite-db=ex.db --tables=2 --table-size=20 prepare
assert_exit 0

tcase "a misspelt script name suggests the closest bundled script or test"
sb oltp_read_wirte run
assert_exit 1
assert_fatal "cannot find script 'oltp_read_wirte': no such file, and no bundled script of that name: did you mean oltp_read_write?"
sb cpuu --time=1 run
assert_exit 1
assert_fatal "did you mean cpu?"
# Nothing close: no guess.
sb oltp_rw run
assert_exit 1
assert_fatal "cannot find script 'oltp_rw': no such file, and no bundled script of that name"
assert_not_contains err "did you mean"

tcase "a duration with a unit says the option's unit and the value to give"
sb cpu --time=10s run
assert_exit 1
assert_fatal "invalid value '10s' for --time: the value is in seconds, without a unit: --time=10"
sb cpu --report-interval=500ms --time=1 run
assert_exit 1
assert_fatal "invalid value '500ms' for --report-interval: the value is in seconds, without a unit: --report-interval=0.5"
sb cpu --tx-spin=1ms --time=1 run
assert_exit 1
assert_fatal "--tx-spin: the value is in microseconds, without a unit: --tx-spin=1000"
sb cpu --time=10parsecs run
assert_exit 1
assert_fatal "invalid value '10parsecs' for --time: expected a number of seconds, without a unit"

tcase "an unknown option in a config file suggests the closest one too"
printf 'tx-rtae=10\n' >cfg
sb cpu --config-file=cfg --time=1 run
assert_exit 1
assert_fatal "cfg:1: unknown option: --tx-rtae: did you mean --tx-rate?"

# The cpu test's event (primes up to 10000) takes about 0.2 ms here and
# never under 10 us on any machine: 1,000,000 per second on one thread is
# out of reach by far, 50 per second well within reach.
tcase "a --tx-rate the thread falls far short of is warned about in the first second"
sb_bg cpu --tx-rate=1000000 --time=30 run
wait_for err "out of reach" || fail "no warning within 20 s"
# Said while the run goes on, not only in the report afterwards.
assert_not_contains out "General statistics"
kill -INT "$SB_PID"
sb_wait
assert_count err '^WARNING: --tx-rate=1000000 is out of reach so far: in the first second the 1 thread\(s\) completed [0-9]+ events \([0-9.]+% of the target\)' 1

tcase "--rate (Poisson) short of its target is warned about too"
sb cpu --rate=1000000 --threads=2 --time=2 run
assert_exit 0
assert_count err '^WARNING: --rate=1000000 is out of reach so far: .* the 2 thread\(s\)' 1

tcase "SB_COMPAT=1.0 prints 1.0's output: no rate warning, no suggestion"
SB_COMPAT=1.0 sb cpu --rate=1000000 --time=2 run
assert_exit 0
assert_not_contains err "out of reach"
SB_COMPAT=1.0 sb cpu --tx-rat=5 run
assert_exit 1
assert_not_contains err "did you mean"

tcase "a rate within reach gets no warning"
sb cpu --tx-rate=50 --time=2 run
assert_exit 0
assert_not_contains out "out of reach"
assert_not_contains err "out of reach"

tcase "the CSV reads back with python3's csv module: closed loop leaves lag and backlog empty"
sb cpu --time=2 --report-interval=1 --csv=r.csv run
assert_exit 0
python3 - r.csv >check.txt 2>&1 <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
intervals = [r for r in rows if r["ended"] == ""]
end = rows[-1]
assert len(intervals) >= 1, rows
for r in intervals:
    assert r["lag_p95_ms"] == "" and r["backlog"] == "", r
    assert float(r["tps"]) > 0 and r["target_tps"] == "", r
assert end["ended"] == "completed" and end["deadline"] == "met" and end["cancelled"] == "0", end
assert all(v == "" for k, v in end.items() if k not in ("ended", "deadline", "cancelled")), end
print("ok", len(intervals))
EOF
assert_match check.txt '^ok [0-9]+$'

tcase "the CSV of a rate run has lag and backlog on every interval row"
sb cpu --time=2 --tx-rate=50 --report-interval=1 --csv=r.csv run
assert_exit 0
python3 - r.csv >check.txt 2>&1 <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
intervals = rows[:-1]
assert len(intervals) >= 1
for r in intervals:
    float(r["lag_p95_ms"]); int(r["backlog"]); assert float(r["target_tps"]) == 50.0, r
print("ok")
EOF
assert_match check.txt '^ok$'

tcase "a failure message with commas and quotes is one quoted CSV field"
printf 'local n = 0\nfunction event()\n  n = n + 1\n  if n > 20 then error("bad, \\"quoted\\" thing") end\nend\n' >f.lua
sb f.lua run --time=5 --report-interval=1 --csv=r.csv
assert_exit 1
assert_eq "$(csv_end r.csv all)" 'failed: f.lua:4: bad, "quoted" thing||0' "CSV end row"

finish
