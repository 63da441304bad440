#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Server CPU after a server restart: the server is stopped 3 s into a run
# and started again; the CPU accounting finds the new server process at the
# same endpoint and goes on measuring it (interval reports after the restart
# show a number, not n/a), the final report adds up both processes' CPU
# and states the restart and the time not measured. The server is brought
# back even when the case fails.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

fixture select1.lua

server_cpu_across_restart() {
    local drv=$1 stop start rc=0 pid last
    if [ "$drv" = mysql ]; then stop=$SB_MYSQL_STOP; start=$SB_MYSQL_START; else stop=$SB_PGSQL_STOP; start=$SB_PGSQL_START; fi
    # shellcheck disable=SC2046
    timeout -k 5 "$SB_CASE_TIMEOUT" "$SB_BIN" $(sb_driver_args "$drv") --threads=2 --time=14 --verbosity=4 \
        --report-interval=1 select1.lua run >out.txt 2>err.txt &
    pid=$!
    sleep 3
    eval "$stop" >/dev/null || { eval "$start"; wait "$pid" || true; sb_fail "could not stop the server"; return 1; }
    sleep 1
    eval "$start" >/dev/null || { wait "$pid" || true; sb_fail "could not restart the server"; return 1; }
    wait "$pid" || rc=$?
    echo "+ run exited with $rc"
    sb_show out.txt err.txt
    [ "$rc" -eq 0 ] || { sb_fail "the run did not survive the server restart (exit $rc)"; return 1; }
    last=$(grep '^\[ ' out.txt | tail -n 1 | sed -n 's/.*cpu (client\/server %): [0-9.]*\///p')
    [[ $last =~ ^[0-9]+\.[0-9]+$ ]] ||
        { sb_fail "the last interval's server CPU is '$last', expected a number"; return 1; }
    grep -E -q '^ +server: +[0-9]' out.txt ||
        { sb_fail "the final server CPU is not measured"; return 1; }
    grep -E -q 'server processes: .*restarted 1 time\(s\) during the run, [0-9.]+ s not measured' out.txt ||
        { sb_fail "the report does not state the restart and the gap"; return 1; }
    grep -q 'WARNING: the server at .* restarted: measuring pid' err.txt ||
        { sb_fail "no warning about the restart"; return 1; }
}

for drv in mysql pgsql; do
    sb_case "$drv-server-cpu-across-restart" server_cpu_across_restart "$drv"
done
