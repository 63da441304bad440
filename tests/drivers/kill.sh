#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The benchmark's connections killed by the server's administrator, twice,
# in the middle of a run of oltp_point_select with 4 threads (MariaDB: KILL
# CONNECTION for every sbtest session; PostgreSQL: pg_terminate_backend as
# postgres). The workers reconnect and re-prepare, the run ends with status
# 0 and a complete report, the reconnects are counted in total and by code.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

# kill_sessions DRV: kills every sbtest session but the caller's and prints
# how many it killed.
kill_sessions() {
    local drv=$1 ids id n=0
    if [ "$drv" = mysql ]; then
        ids=$(sb_cli mysql "SELECT id FROM information_schema.processlist
                            WHERE user = 'sbtest' AND id <> CONNECTION_ID()")
        for id in $ids; do
            # A session may end on its own between the listing and the kill.
            if sb_cli mysql "KILL CONNECTION $id" 2>/dev/null; then
                n=$((n + 1))
            fi
        done
        echo "$n"
    else
        sb_cli pgsql "SELECT COUNT(*) FROM (SELECT pg_terminate_backend(pid) AS done
                      FROM pg_stat_activity
                      WHERE usename = 'sbtest' AND pid <> pg_backend_pid()) t
                      WHERE done"
    fi
}

# kill_soon DRV: kill_sessions, tried every 0.2 s for up to 5 s until it
# kills at least one session (a loaded machine may still be connecting or
# reconnecting); prints how many it killed.
kill_soon() {
    local i n=0
    for i in $(seq 25); do
        n=$(kill_sessions "$1" || echo 0)
        [ "${n:-0}" -ge 1 ] && break
        sleep 0.2
    done
    echo "${n:-0}"
}

killed_mid_run() {
    local drv=$1 rc=0 pid k1 k2
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv") oltp_point_select --tables=1 --table-size=1000)
    sb_run_ok prepare prep.txt prep.err "${args[@]}" prepare || return 1

    timeout -k 5 "$SB_CASE_TIMEOUT" "$SB_BIN" "${args[@]}" --threads=4 --time=14 run \
        >out.txt 2>err.txt &
    pid=$!
    sleep 2
    k1=$(kill_soon "$drv")
    sleep 1
    k2=$(kill_soon "$drv")
    wait "$pid" || rc=$?
    echo "+ killed $k1 then $k2 sessions; the run exited with $rc"
    sb_run clean.txt clean.err "${args[@]}" cleanup || true

    if [ "${k1:-0}" -lt 1 ] || [ "${k2:-0}" -lt 1 ]; then
        sb_show out.txt err.txt
        sb_fail "the killer found no benchmark sessions to kill ($k1, $k2)"
        return 1
    fi
    if [ "$rc" -ne 0 ]; then
        sb_show out.txt err.txt
        sb_fail "the run did not survive the killed connections (exit $rc)"
        return 1
    fi
    grep -E 'transactions:|reconnects:|reconnect after' out.txt || true
    grep -q 'Threads fairness:' out.txt || { sb_show out.txt; sb_fail "the report is incomplete"; return 1; }
    sb_expect_positive out.txt "transactions:" || return 1
    sb_expect_positive out.txt "reconnects:" || return 1
    # One reconnect per killed session at most: nothing else went wrong.
    if [ "$(sb_text_report_num out.txt 'reconnects:')" -gt $((k1 + k2)) ]; then
        sb_show out.txt
        sb_fail "$(sb_text_report_num out.txt 'reconnects:') reconnects for $((k1 + k2)) killed sessions"
        return 1
    fi
    if ! sed -n '/^Errors by code:/,/^$/p' out.txt | grep -E -q '^[[:space:]]+reconnect after [^:]+:[[:space:]]+[1-9]'; then
        sb_show out.txt
        sb_fail "'Errors by code:' lists no reconnects"
        return 1
    fi
    # The by-code lines add up to the total.
    if [ "$(sed -n 's/^[[:space:]]*reconnect after [^:]*:[[:space:]]*\([0-9]*\).*/\1/p' out.txt |
        awk '{s += $1} END {print s + 0}')" != "$(sb_text_report_num out.txt 'reconnects:')" ]; then
        sb_show out.txt
        sb_fail "the reconnects by code do not add up to the total"
        return 1
    fi
}

for drv in mysql pgsql; do
    sb_case "$drv-connections-killed-mid-run" killed_mid_run "$drv"
done
