#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Faults around connections (issue 22): connections killed again and
# again while oltp_point_select --reconnect=1 drops and re-opens its
# connection and re-prepares its statements inside every event, so kills
# land inside con:prepare() and connect (the run must reconnect and
# restart the event, as for query/execute, and end with status 0 and a
# report); TLS required over a Unix socket to a server without TLS is
# refused as over TCP, never plain text; a run refused by the server
# keeps earlier result files byte for byte.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

# kill_window DRV: for about 3 s, kills every sbtest session every
# 0.25 s (MariaDB; KILL USER ends them all in one statement, as
# short-lived --reconnect=1 sessions would be gone before a KILL by id) or
# every 0.05 s from inside one PostgreSQL session (sb_pg_kill_for, lib.sh);
# prints how many sessions it ended.
kill_window() {
    local total=0 killed
    if [ "$1" = mysql ]; then
        local end=$((SECONDS + 3))
        # At most 12 tries and 3 s: on a loaded machine a client call alone
        # can take a second, and the window must end well inside the run.
        for _ in $(seq 12); do
            [ "$SECONDS" -lt "$end" ] || break
            killed=$(sb_cli mysql "SELECT COUNT(*) FROM information_schema.processlist
                                   WHERE user = 'sbtest'; KILL CONNECTION USER sbtest" \
                     2>/dev/null || echo 0)
            total=$((total + ${killed:-0}))
            sleep 0.25
        done
        echo "$total"
    else
        sb_pg_kill_for 3
    fi
}

# killed_in_prepare DRV RUNS CLIENT_THREADS: RUNS runs of 10 s, each with
# every session killed for about 3 s from 1 s after its threads started
# (kill_window); every run must end with status 0 and a complete report.
# The window ends about 4 s after the threads start, and kill_window's
# tries are bounded in time, so that kills land inside the run, not at
# its deadline, even on a loaded machine. (A kill at the deadline, in a
# prepare being cut, ends the event uncounted: sb_db_prepare's
# prepare_cut.)
killed_in_prepare() {
    local drv=$1 runs=$2 ct=$3 i rc pid total ok=0
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv") oltp_point_select --tables=1 --table-size=1000)
    sb_run clean0.txt clean0.err "${args[@]}" cleanup || true
    sb_run_ok prepare prep.txt prep.err "${args[@]}" prepare || return 1
    for i in $(seq "$runs"); do
        rc=0
        rm -f "out$i.txt" "err$i.txt"  # a previous case's output must not be read as this run's
        timeout -k 5 "$SB_CASE_TIMEOUT" "$SB_BIN" "${args[@]}" --threads=4 --time=10 \
            --client-threads="$ct" --reconnect=1 run >"out$i.txt" 2>"err$i.txt" &
        pid=$!
        # The kills start a second after the threads did, not a second
        # after exec: on a loaded machine set-up alone took longer.
        for _ in $(seq 300); do
            grep -q 'Threads started' "out$i.txt" 2>/dev/null && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        sleep 1
        total=$(kill_window "$drv")
        wait "$pid" || rc=$?
        echo "+ run $i: killed $total sessions; exit $rc;" \
            "$(grep -E 'reconnects:' "out$i.txt" | tr -s ' ')"
        if [ "$rc" -eq 0 ] && grep -q 'Threads fairness:' "out$i.txt"; then
            ok=$((ok + 1))
        else
            sb_show "err$i.txt"
        fi
        [ "$total" -ge 1 ] || { sb_fail "run $i: the killer found no sessions"; return 1; }
    done
    sb_run clean.txt clean.err "${args[@]}" cleanup || true
    echo "+ $ok of $runs runs survived"
    [ "$ok" -eq "$runs" ] || { sb_fail "$((runs - ok)) of $runs runs died"; return 1; }
}

for drv in mysql pgsql; do
    sb_case "$drv-killed-inside-prepare-with-reconnect" killed_in_prepare "$drv" \
        "${SB_FAULT_RUNS:-3}" 0
    sb_case "$drv-killed-inside-prepare-with-reconnect-shared-client-thread" \
        killed_in_prepare "$drv" "${SB_FAULT_RUNS_SHARED:-2}" 1
done

# refused_over_socket DRV MODE: TLS required over the Unix socket of a
# harness server, which has no TLS: exit 1, one FATAL line saying so, and
# never a session that ran a statement in plain text (the server's
# statement counter for sbtest does not move).
refused_over_socket() {
    local drv=$1 mode=$2 rc=0
    local -a args
    if [ "$drv" = mysql ]; then
        args=(--db-driver=mysql --mysql-socket="$SB_MYSQL_SOCKET" --mysql-user=sbtest
              --mysql-password=sbpass --mysql-db=sbtest --mysql-ssl="$mode")
        [ "$mode" = verify_ca ] && args+=(--mysql-ssl-ca=/etc/ssl/certs/ca-certificates.crt)
    else
        args=(--db-driver=pgsql --pgsql-host="$SB_PGSQL_SOCKET_DIR" --pgsql-port="$SB_PGSQL_PORT"
              --pgsql-user=sbtest --pgsql-password=sbpass --pgsql-db=sbtest --pgsql-sslmode="$mode")
    fi
    cat >plain.lua <<'LUA'
function event()
  local con = sysbench.sql.driver():connect()
  con:query("CREATE TABLE IF NOT EXISTS sb_plain_text (id INT)")
  print("PLAIN TEXT")
end
LUA
    sb_run out.txt err.txt "${args[@]}" --events=1 plain.lua run || rc=$?
    [ "$rc" -eq 1 ] || { sb_show out.txt err.txt; sb_fail "exit $rc, expected 1"; return 1; }
    sb_expect_one_line_error err.txt "over the Unix socket is not encrypted" || return 1
    if grep -q "PLAIN TEXT" out.txt; then sb_fail "a statement ran in plain text"; return 1; fi
    if [ -n "$(sb_cli "$drv" "SELECT 1 FROM information_schema.tables WHERE table_name = 'sb_plain_text'")" ]; then
        sb_cli "$drv" "DROP TABLE sb_plain_text"
        sb_fail "the table a plain-text session would create exists"
        return 1
    fi
}

for mode in on required verify_ca; do
    sb_case "mysql-ssl-$mode-over-a-socket-without-tls-is-refused" refused_over_socket mysql "$mode"
done
for mode in require verify-ca verify-full; do
    sb_case "pgsql-sslmode-$mode-over-a-socket-is-refused" refused_over_socket pgsql "$mode"
done

# earlier_kept DRV: a run that fails before measuring (a wrong password, a
# refused port) leaves an earlier --json and --csv byte for byte, and says
# so in one warning line besides its FATAL line.
earlier_kept() {
    local drv=$1 sum
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv"))
    printf 'function event() end\n' >ev.lua
    sb_run_ok "a measured run" out.txt err.txt "${args[@]}" --time=1 --report-interval=1 \
        --json=r.json --csv=r.csv ev.lua run || return 1
    sum=$(md5sum r.json r.csv)
    cat >conn.lua <<'LUA'
function thread_init() sysbench.sql.driver():connect() end
function event() end
LUA
    for bad in "--$drv-password=wrong" "--$drv-port=1"; do
        if sb_run out.txt err.txt "${args[@]}" "$bad" --time=1 --json=r.json --csv=r.csv \
            conn.lua run; then
            sb_fail "$bad: the run did not fail"
            return 1
        fi
        [ "$(md5sum r.json r.csv)" = "$sum" ] || { sb_fail "$bad: an earlier file changed"; return 1; }
        grep -q "the earlier --json file 'r.json' is kept" err.txt ||
            { sb_show err.txt; sb_fail "$bad: no warning"; return 1; }
        [ "$(grep -c '^FATAL' err.txt)" -eq 1 ] || { sb_show err.txt; sb_fail "$bad: not one FATAL line"; return 1; }
    done
}

for drv in mysql pgsql; do
    sb_case "$drv-failed-run-keeps-earlier-result-files" earlier_kept "$drv"
done
