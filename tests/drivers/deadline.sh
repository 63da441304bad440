#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --time is a deadline and a signal always ends the run, whatever the
# server does: statements of 30 s (SELECT SLEEP(30), SELECT pg_sleep(30))
# still running --deadline-grace after --time are cancelled (MariaDB KILL
# QUERY, libpq PQcancel), counted as cut in the report and in "ended"; the
# same with --events and with multiplexed connections; SIGINT/SIGTERM
# cancel them at once, also after --time; SIGINT during a reconnect
# back-off ends the run without a "can't connect" error.
#
# The server's own view is checked: once sysbench has exited, no statement
# of the run is still sleeping on the server (a closed client connection
# alone does not stop SLEEP or pg_sleep).
#
# Times are asserted loosely (a deadline, not a benchmark); bench/README.md
# has the figures.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

# Seconds past the expected end a run may take on a loaded machine; the
# statements themselves would take 30.
readonly SLACK=8

write_sleeper() {
    cat >sleep.lua <<'EOF'
function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
end
function event()
  if drv:name() == "mysql" then
    con:query("SELECT SLEEP(30)")
  else
    con:query("SELECT pg_sleep(30)")
  end
end
function thread_done()
  con:disconnect()
end
EOF
}

now() {
    date +%s.%N
}

elapsed() {
    awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'
}

# le A B: A <= B (decimals).
le() {
    awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'
}

# sleepers DRV: how many statements of the run still sleep on the server.
sleepers() {
    if [ "$1" = mysql ]; then
        sb_cli mysql "SELECT COUNT(*) FROM information_schema.processlist
                      WHERE user = 'sbtest' AND info LIKE 'SELECT SLEEP(30)%'"
    else
        sb_cli pgsql "SELECT COUNT(*) FROM pg_stat_activity
                      WHERE usename = 'sbtest' AND state = 'active'
                      AND query LIKE 'SELECT pg_sleep(30)%'"
    fi
}

# ended FILE: "status signal deadline cancelled" of the JSON's ended.
ended() {
    python3 -c 'import json,sys
e = json.load(open(sys.argv[1]))["ended"]
print(e["status"], e["signal"], e["deadline"], e["cancelled"])' "$1"
}

# expect_no_sleepers DRV: the cancels reached the server.
expect_no_sleepers() {
    local n
    n=$(sleepers "$1")
    if [ "$n" != 0 ]; then
        sb_fail "$n statement(s) of the run still sleep on the server"
        return 1
    fi
}

# cut_at_deadline DRV EXTRA...: --time=2 --deadline-grace=1 with two
# 30 s statements ends in about 3 s, exit 0, 2 statements cut.
cut_at_deadline() {
    local drv=$1 rc=0 t0 t1 took
    shift
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv"))
    write_sleeper
    t0=$(now)
    sb_run out.txt err.txt "${args[@]}" --threads=2 --time=2 --deadline-grace=1 "$@" \
        sleep.lua run --json=r.json --csv=r.csv || rc=$?
    t1=$(now)
    took=$(elapsed "$t0" "$t1")
    echo "+ ended after $took s"
    if [ "$rc" -ne 0 ]; then
        sb_show out.txt err.txt
        sb_fail "exit $rc, expected 0 (the run lasted its time)"
        return 1
    fi
    le "$took" $((3 + SLACK)) || { sb_fail "took $took s; --time=2 plus a 1 s grace"; return 1; }
    grep -q 'Deadline: 2 statement(s) still running 1s after --time were cancelled' out.txt ||
        { sb_show out.txt; sb_fail "the report does not say 2 statements were cut"; return 1; }
    grep -q 'Threads fairness:' out.txt || { sb_show out.txt; sb_fail "no report"; return 1; }
    [ "$(ended r.json)" = "completed None cut 2" ] ||
        { sb_fail "ended is '$(ended r.json)'"; return 1; }
    tail -n 1 r.csv | grep -qx ',*completed,cut,2' ||
        { tail -n 3 r.csv; sb_fail "the CSV does not say the deadline cut 2 statements"; return 1; }
    [ ! -s err.txt ] || { sb_show err.txt; sb_fail "errors printed"; return 1; }
    expect_no_sleepers "$drv"
}

# signal_cancels DRV SIG AT GRACE: SIG AT seconds into a --time=2 run of
# 30 s statements (GRACE: --deadline-grace) ends it at once, exit
# 128+SIG, report printed, the statements cancelled.
signal_cancels() {
    local drv=$1 sig=$2 at=$3 grace=$4 rc=0 pid t0 t1 took num
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv"))
    num=$(kill -l "$sig")
    write_sleeper
    timeout -k 5 "$SB_CASE_TIMEOUT" "$SB_BIN" "${args[@]}" --threads=2 --time=2 \
        --deadline-grace="$grace" sleep.lua run --json=r.json >out.txt 2>err.txt &
    pid=$!
    sleep "$at"
    # Before --time: only once both statements run (a loaded machine may
    # still be connecting).
    if [ "$grace" != 30 ]; then
        for _ in $(seq 100); do
            [ "$(sleepers "$drv")" = 2 ] && break
            sleep 0.2
        done
    fi
    t0=$(now)
    kill -"$sig" "$pid"
    wait "$pid" || rc=$?
    t1=$(now)
    took=$(elapsed "$t0" "$t1")
    echo "+ SIG$sig at ${at}s: exit $rc after $took s"
    [ "$rc" -eq $((128 + num)) ] || { sb_show out.txt err.txt; sb_fail "exit $rc"; return 1; }
    le "$took" $((2 + SLACK)) || { sb_fail "took $took s after the signal"; return 1; }
    grep -q "Interrupted by signal $num" out.txt || { sb_show out.txt; sb_fail "no report"; return 1; }
    [ "$(ended r.json)" = "interrupted $num None 2" ] ||
        { sb_fail "ended is '$(ended r.json)'"; return 1; }
    expect_no_sleepers "$drv"
}

# backoff_sigint DRV: the server goes away, the workers retry; SIGINT
# then ends the run with its report and no error line.
backoff_sigint() {
    local drv=$1 rc=0 pid
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv") oltp_point_select --tables=1 --table-size=100)
    sb_run clean.txt clean.err "${args[@]}" cleanup || true
    sb_run_ok prepare prep.txt prep.err "${args[@]}" prepare || return 1
    timeout -k 5 "$SB_CASE_TIMEOUT" "$SB_BIN" "${args[@]}" --threads=2 --time=60 run \
        >out.txt 2>err.txt &
    pid=$!
    sleep 2
    if [ "$drv" = mysql ]; then eval "$SB_MYSQL_STOP"; else eval "$SB_PGSQL_STOP"; fi
    sleep 2
    kill -INT "$pid"
    wait "$pid" || rc=$?
    if [ "$drv" = mysql ]; then eval "$SB_MYSQL_START"; else eval "$SB_PGSQL_START"; fi
    sb_run clean.txt clean.err "${args[@]}" cleanup || true
    [ "$rc" -eq 130 ] || { sb_show out.txt err.txt; sb_fail "exit $rc, expected 130"; return 1; }
    grep -q 'Interrupted by signal 2' out.txt || { sb_show out.txt; sb_fail "no report"; return 1; }
    if [ -s err.txt ]; then
        sb_show err.txt
        sb_fail "SIGINT during the reconnect back-off printed errors"
        return 1
    fi
}

for drv in mysql pgsql; do
    sb_case "$drv-deadline-cuts-30s-statements" cut_at_deadline "$drv"
    sb_case "$drv-deadline-with-events" cut_at_deadline "$drv" --events=100
    sb_case "$drv-deadline-multiplexed" cut_at_deadline "$drv" --client-threads=1
    sb_case "$drv-sigint-during-statement" signal_cancels "$drv" INT 1 1
    sb_case "$drv-sigterm-after-time" signal_cancels "$drv" TERM 3.5 30
    sb_case "$drv-sigint-after-time" signal_cancels "$drv" INT 3.5 30
    sb_case "$drv-sigint-during-reconnect-backoff" backoff_sigint "$drv"
done
