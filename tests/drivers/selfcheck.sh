#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The self-check's verdicts on real servers: labelled runs whose right
# verdict is known by construction (the Lua-only and SQLite cases are in
# tests/cli/selfcheck_tests.sh).
#
#   run                                              expected
#   SELECT 1 at 10/s over 2 connections, 5 s         no flag (clean)
#   a 50 ms server-side sleep at 40/s, 1 connection  server-bound, cause
#                                                    "connections" (the
#                                                    server's CPU is idle)
#
# on MariaDB and PostgreSQL each. Contention is a true verdict beside
# either when other processes took most of the machine (the run's own
# machine CPU says so) and the run shows an effect; on a machine of its own
# (CI) the clean runs must be OK.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

cat >q.lua <<'LUA'
sysbench.cmdline.options = {
  sleep = {"server-side sleep per transaction, seconds (0: SELECT 1)", 0},
}
function thread_init()
  con = sysbench.sql.driver():connect()
  local s = sysbench.opt.sleep
  if s == 0 then
    sql = "SELECT 1"
  elseif sysbench.opt.db_driver == "mysql" then
    sql = string.format("SELECT SLEEP(%g)", s)
  else
    sql = string.format("SELECT pg_sleep(%g)", s)
  end
end
function event()
  con:query_row(sql)
end
LUA

# verdict LABEL FILE [FLAG...] (tests/lib.sh) judges a labelled run.

# jv FILE EXPR: EXPR of the first point's selfcheck object `s`.
jv() {
    python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["points"][0]["selfcheck"]
print(json.dumps(eval(sys.argv[2])))' "$1" "$2"
}

clean_run() {
    local drv=$1
    # A 200 ms period per connection: a start may be 20 ms late on 1% of
    # them before the client is to blame; SELECT 1 takes well under 1 ms.
    # shellcheck disable=SC2046
    sb_run_ok "the clean run" out.txt err.txt $(sb_driver_args "$drv") --threads=2 --verbosity=4 \
        --tx-rate=10 --time=5 --json=r.json q.lua run || return 1
    sed -n '/^Self-check/,$p' out.txt
    verdict "$drv SELECT 1 at 10/s, 2 connections" r.json || return 1
    grep -Eq '^ +client-bound: +no' out.txt || { sb_fail "client-bound is not 'no'"; return 1; }
    grep -Eq '^ +server-bound: +no' out.txt || { sb_fail "server-bound is not 'no'"; return 1; }
}

too_few_connections() {
    local drv=$1
    # 50 ms in the server per transaction, 40/s on one connection: it
    # would need 200% of its time. The server sleeps, its CPU is idle:
    # more connections would carry the rate.
    # shellcheck disable=SC2046
    sb_run_ok "the over-rate run" out.txt err.txt $(sb_driver_args "$drv") --threads=1 --verbosity=4 \
        --tx-rate=40 --time=3 --json=r.json q.lua run --sleep=0.05 || return 1
    sed -n '/^Self-check/,$p' out.txt
    verdict "$drv 50 ms server sleep at 40/s, 1 connection" r.json server-bound || return 1
    [ "$(jv r.json 's["server_bound"]["cause"]')" = '"connections"' ] ||
        { sb_fail "cause is $(jv r.json 's["server_bound"]["cause"]'), not connections"; return 1; }
    grep -q "=> server-bound (too few connections): each was busy" out.txt ||
        { sb_fail "no advice to run more connections"; return 1; }
    awk -v u="$(jv r.json 's["server_bound"]["utilisation_pct"]')" 'BEGIN { exit !(u >= 150) }' ||
        { sb_fail "utilisation below 150%"; return 1; }
    # The server was measured (the cause rests on its CPU).
    [ "$(jv r.json 's["contention"]["server_cpu_pct"] is not None')" = true ] ||
        { sb_fail "the server's CPU was not measured"; return 1; }
}

for drv in mysql pgsql; do
    sb_case "$drv-selfcheck-clean" clean_run "$drv"
    sb_case "$drv-selfcheck-too-few-connections" too_few_connections "$drv"
done
