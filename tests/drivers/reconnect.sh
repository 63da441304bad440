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

server_gone_mid_run() {
    local drv=$1 stop start rc=0 pid
    if [ "$drv" = mysql ]; then stop=$SB_MYSQL_STOP; start=$SB_MYSQL_START; else stop=$SB_PGSQL_STOP; start=$SB_PGSQL_START; fi
    # shellcheck disable=SC2046
    timeout -k 5 "$SB_CASE_TIMEOUT" "$SB_BIN" $(sb_driver_args "$drv") --threads=2 --time=10 \
        select1.lua run >out.txt 2>err.txt &
    pid=$!
    sleep 3
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
