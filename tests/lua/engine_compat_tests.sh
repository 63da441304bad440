#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# sysbench 1.0 engine behaviours (shared/LUA_COMPAT.md): custom thread_run,
# sb_counter_inc(SB_CNT_TRX), where ignored errors are counted, the report
# formats of report_default/report_json, --report-checkpoints, the stop
# check in the retry loop, the rollback after an ignored error and the
# SQLite write-lock predictor. SQLite only.
#
# Run by `make check`, or by hand: bash tests/lua/engine_compat_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

L="$SB_SRCDIR/tests/lua"

# ---------------------------------------------------------------- thread_run

tcase "a custom thread_run runs in every thread, also those that get no event"
SB_MODE=thread_run sb "$L/engine_compat.lua" run --threads=4 --events=1
assert_exit 0
for i in 0 1 2 3; do
    assert_count out "^thread_run $i\$" 1
done

tcase "a thread_run that is sysbench.__default_thread_run counts as none"
SB_MODE=default_tr sb "$L/engine_compat.lua" run --threads=2 --events=30
assert_exit 0
assert_not_contains out "WRONG"
assert_eq "$(sum_kv out calls)" 30 "event() calls"
assert_match out "total number of events: +30$"

# ---------------------------------------------------------------- counters

tcase "sb_counter_inc(SB_CNT_TRX) adds a transaction, as in 1.0"
SB_MODE=trx sb "$L/engine_compat.lua" run --threads=2 --events=25
assert_exit 0
assert_eq "$(sum_kv out calls)" 25 "event() calls"
# 25 events, each counting one more transaction.
assert_match out "total number of events: +50$"

tcase "a script's own RESTART_EVENT is retried but not counted"
SB_MODE=restart_self sb "$L/engine_compat.lua" run --threads=1 --events=10
assert_exit 0
assert_eq "$(sum_kv out calls)" 20 "tries (each event twice)"
assert_match out "total number of events: +10$"
assert_not_contains out "ignored errors: +[1-9]"

# ---------------------------------------------------------------- stop

tcase "an event that always restarts ends at --time, reports, and fails: nothing completed"
start=$(date +%s)
SB_MODE=restart_always sb "$L/engine_compat.lua" run --threads=2 --time=2 --json=r.json
assert_exit 1
# --time plus a bounded grace: a hang guard, not a timing claim.
assert_lt $(($(date +%s) - start)) 12 "seconds until exit"
assert_match out "total number of events: +0$"
tries=$(sum_kv out calls)
assert_gt "$tries" 0 "tries"
assert_fatal "no event completed: every event was restarted ("
# Every try raised RESTART_EVENT and counts as a restart, each thread's
# last one too (the loop sees the stop only after counting it).
n=$(sed -n 's/^FATAL: no event completed: every event was restarted (\([0-9]*\) restarts)$/\1/p' err)
assert_eq "${n:-none}" "$tries" "restarts in the FATAL line"
assert_eq "$(jget r.json 'd["ended"]["status"]')" failed "ended.status in r.json"
assert_contains r.json "no event completed"

tcase "a run in which some events complete after restarts exits 0"
SB_MODE=restart_self sb "$L/engine_compat.lua" run --threads=2 --time=1
assert_exit 0
assert_lines err 0
ev=$(report_num out "total number of events:")
assert_gt "${ev:-0}" 0 "events reported"

tcase "an event that always restarts still ends on SIGTERM"
SB_MODE=restart_always sb_bg "$L/engine_compat.lua" run --threads=2 --time=60
sleep 1
kill -TERM "$SB_PID"
# A hang would stop here until the watchdog; a bounded wait keeps it short.
for _ in $(seq 50); do kill -0 "$SB_PID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$SB_PID" 2>/dev/null; then
    kill -KILL "$SB_PID"
    fail "still running 5 s after SIGTERM"
fi
sb_wait
assert_exit 143
assert_contains out "Interrupted by signal 15"
# The signal is the run's outcome, not the restarts.
assert_not_contains err "no event completed"

# ---------------------------------------------------------------- rollback

tcase "SQLite: an ignored error inside a transaction is rolled back before the retry"
sb --sqlite-db=rb.db "$L/engine_compat.lua" setup
assert_exit 0
SB_MODE=rollback sb --sqlite-db=rb.db --db-ignore-errors=1 "$L/engine_compat.lua" run \
    --threads=2 --events=20
assert_exit 0
assert_not_contains err "within a transaction"
assert_match out "total number of events: +20$"
assert_match out "ignored errors: +20 "
# Only the committed tries left a row: the failed ones were rolled back.
printf 'print("rows=" .. (sysbench.sql.driver():connect():query_row("SELECT count(*) FROM rb")))\n' >q.lua
sb --sqlite-db=rb.db q.lua
assert_kv out rows 20
# 100% of transactions hit an ignored error: the report says so.
SB_MODE=rollback sb --sqlite-db=rb.db --db-ignore-errors=1 "$L/engine_compat.lua" run \
    --threads=1 --events=5
assert_match out "^WARNING: 5 ignored errors for 5 transactions"

# ---------------------------------------------------------------- reports

tcase "sysbench.report_default prints 1.0's line"
cat >rd.lua <<'LUA'
sysbench.hooks.report_intermediate = sysbench.report_default
sysbench.hooks.report_cumulative = sysbench.report_default
function event() end
LUA
sb rd.lua run --threads=2 --events=1000
assert_exit 0
# Always the tps/qps form (no "eps"), "err/s" without a colon, thds 0 at the end.
assert_match out '^\[ [0-9]+s \] thds: 0 tps: [0-9]+\.[0-9]{2} qps: 0\.00 \(r/w/o: 0\.00/0\.00/0\.00\) lat \(ms,95%\): [0-9]+\.[0-9]{2} err/s 0\.00 reconn/s: 0\.00$'
assert_not_contains out "eps:"

tcase "--report-checkpoints: cumulative reports that reset the counters"
SB_MODE=count sb "$L/engine_compat.lua" run --threads=2 --time=2 --report-checkpoints=1
assert_exit 0
assert_contains out "Report checkpoint(s) at 1 seconds"
assert_count out '^\[ 1s \] Checkpoint report:$' 1
assert_count out '^General statistics:$' 2
ck=$(grep 'total number of events:' out | head -n 1 | awk '{ print $NF }')
fin=$(grep 'total number of events:' out | tail -n 1 | awk '{ print $NF }')
assert_gt "$ck" 0 "events at the checkpoint"
assert_gt "$fin" 0 "events after the checkpoint"
# Counters reset at the checkpoint: the two reports add up to every event.
assert_eq "$((ck + fin))" "$(sum_kv out calls)" "checkpoint + final events"

# write_rj: rj.lua, whose checkpoint and final reports are report_json's.
write_rj() {
    cat >rj.lua <<'LUA'
sysbench.hooks.report_cumulative = sysbench.report_json
function event() end
LUA
}

tcase "--report-checkpoints through a report_json hook"
write_rj
sb rj.lua run --threads=1 --time=2 --report-checkpoints=1
assert_exit 0
assert_count out '^\[ 1s \] Checkpoint report:$' 1
assert_count out '^\[$' 2
assert_count out '^\]$' 2
assert_count out '^    "time": +1,$' 1
assert_count out '^    "time": +2,$' 1

tcase "--report-checkpoints: a reporter woken late keeps the checkpoint's time"
# The process is stopped across the 1-s checkpoint, so the reporter wakes
# for it about 1.8 s into the run: the hook still says "time": 1.
write_rj
sb_bg rj.lua run --threads=1 --time=3 --report-checkpoints=1
wait_for out "Threads started!" && sleep 0.6 && kill -STOP "$SB_PID" && sleep 1.2
kill -CONT "$SB_PID"
sb_wait
assert_exit 0
assert_count out '^\[ 1s \] Checkpoint report:$' 1
assert_count out '^    "time": +1,$' 1

tcase "--report-checkpoints rejects a bad value"
sb rj.lua run --report-checkpoints=abc --time=1
assert_ne "$SB_RC" 0 "exit status"
assert_contains err "--report-checkpoints"

# ---------------------------------------------------------------- SQLite

# quick_ratio THREADS: the quickstart workload on SQLite for 2 s; fails
# unless ignored errors are under 1% of transactions.
quick_ratio() {
    sb oltp_read_write --tables=2 --table-size=10000 --threads="$1" --time=2 run
    assert_exit 0
    tx=$(report_num out "transactions:")
    ig=$(report_num out "ignored errors:")
    assert_gt "$tx" 0 "transactions"
    assert_lt "$((ig * 100))" "$tx" "ignored errors x 100 (ignored $ig, transactions $tx)"
    assert_not_contains out "WARNING:"
}

tcase "SQLite quickstart: ignored errors under 1% of transactions at 2 and 4 threads"
sb oltp_read_write --tables=2 --table-size=10000 prepare
assert_exit 0
quick_ratio 2
quick_ratio 4

finish
