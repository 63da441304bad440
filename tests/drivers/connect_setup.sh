#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Connections a client thread multiplexes are set up together
# (sb_db_preconnect.h): many connections open, each worker gets its own,
# no more than the bound are in flight, and a refused connection stops
# set-up with one line naming the host and the port.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"
# shellcheck source=../harness/connect_lib.sh
. "${SB_CASE_LIB%/*}/connect_lib.sh"

# The bound of attempts in flight (SB_DB_PRECONNECT_INFLIGHT).
INFLIGHT=32
# Below both harness servers' limits (300 for PostgreSQL).
CONNS=200

# thread_init connects (and, with TWICE set, opens a second connection)
# and records the server's id of each connection, one line per connection.
cat >ids.lua <<'LUA'
local function server_id(con)
  local q = sysbench.opt.db_driver == "pgsql" and "SELECT pg_backend_pid()"
            or "SELECT CONNECTION_ID()"
  local rs = con:query(q)
  return rs:fetch_row()[1]
end
function thread_init()
  local drv = sysbench.sql.driver()
  con = drv:connect()
  local f = assert(io.open("ids.txt", "a"))
  f:write(server_id(con), "\n")
  if os.getenv("TWICE") then
    con2 = drv:connect()
    f:write(server_id(con2), "\n")
  end
  f:close()
end
function event() con:query("SELECT 1") end
LUA

# Connects only at its first event: set-up opens nothing ahead.
cat >late.lua <<'LUA'
function event()
  if con == nil then con = sysbench.sql.driver():connect() end
  con:query("SELECT 1")
end
LUA

write_count_init_lua

# The debug line of a set-up: "connections: N opened together by one
# client thread in S s, at most M in flight, R retried blocking".
setup_line() {
    grep -h -E 'connections: [0-9]+ opened together' "$@" | head -n 1
}

# CONNS connections on one client thread: all open, each its own server
# session, more than one attempt in flight and never more than the bound.
many_together() {
    local drv=$1 line opened inflight ids
    rm -f ids.txt
    # shellcheck disable=SC2046
    sb_run_ok "the run" out.txt err.txt $(sb_driver_args "$drv") --threads=$CONNS \
        --client-threads=1 --tx-rate=200 --time=1 --verbosity=5 ids.lua run || return 1
    line=$(setup_line out.txt err.txt)
    [ -n "$line" ] || { sb_show out.txt err.txt; sb_fail "no set-up line"; return 1; }
    echo "$line"
    opened=$(sed -E 's/.*connections: ([0-9]+) opened.*/\1/' <<<"$line")
    inflight=$(sed -E 's/.*at most ([0-9]+) in flight.*/\1/' <<<"$line")
    [ "$opened" -eq "$CONNS" ] || { sb_fail "$opened of $CONNS opened together"; return 1; }
    if [ "$inflight" -lt 2 ] || [ "$inflight" -gt "$INFLIGHT" ]; then
        sb_fail "at most $inflight in flight: expected 2 to $INFLIGHT"
        return 1
    fi
    ids=$(sort -u ids.txt | wc -l)
    [ "$ids" -eq "$CONNS" ] || { sb_fail "$ids distinct server sessions for $CONNS connections"; return 1; }
    sb_expect_positive out.txt 'transactions:' || return 1
}

# A second connection of thread_init is opened the usual way, and is
# another session.
second_connection() {
    local drv=$1 ids
    rm -f ids.txt
    # shellcheck disable=SC2046
    TWICE=1 sb_run_ok "the run" out.txt err.txt $(sb_driver_args "$drv") --threads=50 \
        --client-threads=1 --tx-rate=100 --time=1 ids.lua run || return 1
    ids=$(sort -u ids.txt | wc -l)
    [ "$ids" -eq 100 ] || { sb_fail "$ids distinct sessions for 50 x 2 connections"; return 1; }
}

# A script that connects in event(): nothing is opened at set-up.
connect_later() {
    local drv=$1
    # shellcheck disable=SC2046
    sb_run_ok "the run" out.txt err.txt $(sb_driver_args "$drv") --threads=50 \
        --client-threads=1 --tx-rate=100 --time=1 --verbosity=5 late.lua run || return 1
    if [ -n "$(setup_line out.txt err.txt)" ]; then
        sb_fail "connections were set up ahead for a script that connects in event()"
        return 1
    fi
    sb_expect_positive out.txt 'transactions:' || return 1
}

# Refused: exit 1, one line naming 127.0.0.1 and the port, no other
# worker's thread_init ran, and promptly.
refused() {
    local drv=$1 port rc=0 t0 t1 common
    if [ "$drv" = mysql ]; then port=$(closed_port "$SB_MYSQL_PORT"); else port=$(closed_port "$SB_PGSQL_PORT"); fi
    common="--db-driver=$drv --$drv-host=127.0.0.1 --$drv-port=$port --$drv-user=sbtest --$drv-password=sbpass --$drv-db=sbtest"
    rm -f inits.txt
    t0=$(date +%s)
    # shellcheck disable=SC2086
    sb_run out.txt err.txt $common --threads=$CONNS --client-threads=1 --time=2 \
        count_init.lua run || rc=$?
    t1=$(date +%s)
    expect_exit_1 "$rc" || return 1
    sb_expect_one_line_error err.txt "127\.0\.0\.1.*$port|$port.*127\.0\.0\.1" || return 1
    [ "$(wc -l <inits.txt)" -le 1 ] || { sb_fail "$(wc -l <inits.txt) thread_init calls after the refusal"; return 1; }
    [ $((t1 - t0)) -le 10 ] || { sb_fail "took $((t1 - t0)) s to give up"; return 1; }
}

for drv in mysql pgsql; do
    sb_case "$drv-setup-many-together" many_together "$drv"
    sb_case "$drv-setup-second-connection" second_connection "$drv"
    sb_case "$drv-setup-connect-in-event" connect_later "$drv"
    sb_case "$drv-setup-refused-one-line" refused "$drv"
done
