#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A server that goes away for 2 s in the middle of a run: the workers
# reconnect, the run completes with exit status 0 and the report counts the
# reconnects. The server is brought back even when the case fails, so the
# cases after this one still have it.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

fixture select1.lua

# sessions DRV: how many sessions of user sbtest the server holds.
sessions() {
    if [ "$1" = mysql ]; then
        sb_cli mysql "SELECT COUNT(*) FROM information_schema.processlist WHERE user = 'sbtest'"
    else
        sb_cli pgsql "SELECT COUNT(*) FROM pg_stat_activity WHERE usename = 'sbtest'"
    fi
}

# The outage starts once both workers hold their sessions (not after a
# fixed sleep: on a loaded machine the run may still be connecting, and a
# server stopped then is a failed connect, not a reconnect), and the run
# lasts 20 s, so that a stop and a start that take several seconds each
# on a busy machine still end well before --time does.
server_gone_mid_run() {
    local drv=$1 stop start rc=0 pid up=
    if [ "$drv" = mysql ]; then stop=$SB_MYSQL_STOP; start=$SB_MYSQL_START; else stop=$SB_PGSQL_STOP; start=$SB_PGSQL_START; fi
    # shellcheck disable=SC2046
    timeout -k 5 "$SB_CASE_TIMEOUT" "$SB_BIN" $(sb_driver_args "$drv") --threads=2 --time=20 \
        select1.lua run >out.txt 2>err.txt &
    pid=$!
    for _ in $(seq 100); do
        # (sb_cli itself connects as root / postgres, not counted.)
        [ "$(sessions "$drv" 2>/dev/null || echo 0)" -ge 2 ] && { up=1; break; }
        sleep 0.1
    done
    [ -n "$up" ] || { sb_stop_child "$pid"; sb_show out.txt err.txt; sb_fail "the run's 2 sessions never showed on the server"; return 1; }
    eval "$stop" || { eval "$start"; wait "$pid" || true; sb_fail "could not stop the server"; return 1; }
    sleep 2
    eval "$start" || { wait "$pid" || true; sb_fail "could not restart the server"; return 1; }
    wait "$pid" || rc=$?
    echo "+ run exited with $rc"
    if [ "$rc" -ne 0 ]; then
        sb_show out.txt err.txt
        sb_fail "the run did not survive the server restart (exit $rc)"
        return 1
    fi
    if ! grep -E -q 'reconnects:[[:space:]]+[1-9]' out.txt; then
        sb_show out.txt
        sb_fail "the report counts no reconnects"
        return 1
    fi
}

for drv in mysql pgsql; do
    sb_case "$drv-server-restart-mid-run" server_gone_mid_run "$drv"
done
