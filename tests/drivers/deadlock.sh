#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A forced deadlock between two threads: thread 0 locks row 1 then row 2,
# thread 1 row 2 then row 1, with a short sleep in between. The server
# breaks each deadlock by failing one transaction (InnoDB error 1213,
# PostgreSQL SQLSTATE 40P01); the driver reports it as ignorable, the event
# is retried, and the run ends normally with the ignored errors counted in
# total and by code.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

cat >deadlock.lua <<'LUA'
local con
local in_trx = false
local sleep_sql

function prepare()
  local c = sysbench.sql.driver():connect()
  c:query("DROP TABLE IF EXISTS sbdl")
  c:query("CREATE TABLE sbdl (id INTEGER NOT NULL PRIMARY KEY, v INTEGER NOT NULL)")
  c:query("INSERT INTO sbdl VALUES (1, 0), (2, 0)")
  c:disconnect()
end

function cleanup()
  local c = sysbench.sql.driver():connect()
  c:query("DROP TABLE IF EXISTS sbdl")
  c:disconnect()
end

function thread_init()
  local drv = sysbench.sql.driver()
  con = drv:connect()
  -- Long enough for the other thread to take its first lock.
  if drv:name() == "mysql" then
    sleep_sql = "SELECT SLEEP(0.05)"
  else
    sleep_sql = "SELECT pg_sleep(0.05)"
  end
end

function thread_done()
  con:disconnect()
end

local function lock(id)
  con:query("UPDATE sbdl SET v = v + 1 WHERE id = " .. id)
end

function event()
  local first, second = 1, 2
  if sysbench.tid % 2 == 1 then
    first, second = 2, 1
  end
  con:query("BEGIN")
  in_trx = true
  lock(first)
  con:query(sleep_sql)
  lock(second)
  con:query("COMMIT")
  in_trx = false
end

-- The deadlock victim's transaction is over on MySQL but only aborted on
-- PostgreSQL, where every later statement would fail until a ROLLBACK.
sysbench.hooks = sysbench.hooks or {}
function sysbench.hooks.before_restart_event(err)
  if in_trx then
    pcall(con.query, con, "ROLLBACK")
    in_trx = false
  end
end
LUA

forced_deadlock() {
    local drv=$1 code=$2 seconds=$3 rc=0 n v
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv"))
    sb_run_ok prepare prep.txt prep.err "${args[@]}" deadlock.lua prepare || return 1
    sb_run out.txt err.txt "${args[@]}" --threads=2 --time="$seconds" deadlock.lua run || rc=$?
    # Each committed transaction added 1 to both rows; a victim added nothing.
    v=$(sb_cli "$drv" "SELECT v FROM sbdl ORDER BY id" | tr '\n' ' ')
    sb_run clean.txt clean.err "${args[@]}" deadlock.lua cleanup || true
    grep -E 'transactions:|ignored errors:|ignored [0-9A-Z]+:' out.txt || true
    if [ "$rc" -ne 0 ]; then
        sb_show out.txt err.txt
        sb_fail "the run exited with $rc"
        return 1
    fi
    sb_expect_positive out.txt "transactions:" || return 1
    sb_expect_positive out.txt "ignored errors:" || return 1
    n=$(sb_text_report_num out.txt "transactions:")
    if [ "$v" != "$n $n " ]; then
        sb_fail "after $n transactions the rows hold '$v', expected '$n $n'"
        return 1
    fi
    grep -q 'Threads fairness:' out.txt || { sb_show out.txt; sb_fail "the report is incomplete"; return 1; }
    if ! sed -n '/^Errors by code:/,/^$/p' out.txt | grep -E -q "^[[:space:]]+ignored $code:[[:space:]]+[1-9]"; then
        sb_show out.txt
        sb_fail "'Errors by code:' does not list 'ignored $code'"
        return 1
    fi
    # Every ignored error is a deadlock here; the totals must agree.
    n=$(sed -n "s/^[[:space:]]*ignored $code:[[:space:]]*\([0-9]*\).*/\1/p" out.txt)
    if [ "$n" != "$(sb_text_report_num out.txt 'ignored errors:')" ]; then
        sb_show out.txt
        sb_fail "ignored $code counts $n, ignored errors $(sb_text_report_num out.txt 'ignored errors:')"
        return 1
    fi
}

# PostgreSQL looks for deadlocks only after deadlock_timeout (1 s), so its
# run is longer to see a few.
sb_case mysql-forced-deadlock forced_deadlock mysql 1213 3
sb_case pgsql-forced-deadlock forced_deadlock pgsql 40P01 4
