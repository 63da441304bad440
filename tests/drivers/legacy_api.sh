#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The 0.5-style legacy API (db_connect, db_query, db_bulk_insert_*,
# db_prepare/db_bind_param/db_execute, sb_rand*, thread_id) on MariaDB and
# PostgreSQL: a script written the way 0.5 scripts are prepares a table,
# runs a forced deadlock through db_query (two threads taking two rows in
# opposite orders), and cleans up. Each deadlock must restart the event and
# be counted; every committed event must have reached both rows. Also
# sysbench.sql.driver() of a driver other than --db-driver's.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

cat >legacy_dl.lua <<'LUA'
-- 0.5 style: globals, db_* on the implicit connection.
function prepare()
  db_query("DROP TABLE IF EXISTS sblegacy")
  db_query("CREATE TABLE sblegacy (id INTEGER NOT NULL PRIMARY KEY, v INTEGER NOT NULL, c VARCHAR(20) NOT NULL)")
  db_bulk_insert_init("INSERT INTO sblegacy (id, v, c) VALUES")
  for i = 1, 10 do
    db_bulk_insert_next(string.format("(%d, 0, '%s')", i, sb_rand_str("@@@@")))
  end
  db_bulk_insert_done()
  local rs = db_query("SELECT count(*) FROM sblegacy")
  print("rows=" .. rs:fetch_row()[1])
  db_free_results(rs)
end

function cleanup()
  db_query("DROP TABLE IF EXISTS sblegacy")
end

function thread_init()
  db_connect()
  if db_driver == "mysql" then
    sleep_query = "SELECT SLEEP(0.05)"
  else
    sleep_query = "SELECT pg_sleep(0.05)"
  end
  lock_stmt = db_prepare("UPDATE sblegacy SET v = v + 1 WHERE id = ?")
  lock_params = { 0 }
  db_bind_param(lock_stmt, lock_params)
  commits = 0
end

local function lock(id)
  lock_params[1] = id
  db_execute(lock_stmt)
end

function event()
  local first, second = 1, 2
  if thread_id % 2 == 1 then
    first, second = 2, 1
  end
  db_query("BEGIN")
  in_trx = true
  lock(first)
  -- The other thread takes its first row meanwhile; the second update
  -- goes through db_query, whose deadlock must restart the event.
  db_query(sleep_query)
  db_query("UPDATE sblegacy SET v = v + 1 WHERE id = " .. second)
  db_query("COMMIT")
  in_trx = false
  commits = commits + 1
end

function thread_done()
  print(string.format("commits%d=%d", thread_id, commits))
  db_close(lock_stmt)
  db_disconnect()
end

-- PostgreSQL leaves the victim's transaction aborted until a ROLLBACK.
sysbench.hooks = sysbench.hooks or {}
function sysbench.hooks.before_restart_event()
  if in_trx then
    db_query("ROLLBACK")
    in_trx = false
  end
end
LUA

legacy_deadlock() {
    local drv=$1 seconds=$2 rc=0 n v commits
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv"))
    sb_run_ok prepare prep.txt prep.err "${args[@]}" legacy_dl.lua prepare || return 1
    grep -q '^rows=10$' prep.txt || { sb_show prep.txt prep.err; sb_fail "prepare did not insert 10 rows"; return 1; }
    sb_run out.txt err.txt "${args[@]}" --threads=2 --time="$seconds" legacy_dl.lua run || rc=$?
    v=$(sb_cli "$drv" "SELECT v FROM sblegacy WHERE id IN (1, 2) ORDER BY id" | tr '\n' ' ')
    sb_run clean.txt clean.err "${args[@]}" legacy_dl.lua cleanup || true
    grep -E 'transactions:|ignored errors:|^commits' out.txt || true
    if [ "$rc" -ne 0 ]; then
        sb_show out.txt err.txt
        sb_fail "the run exited with $rc"
        return 1
    fi
    sb_expect_positive out.txt "transactions:" || return 1
    sb_expect_positive out.txt "ignored errors:" || return 1
    n=$(sb_text_report_num out.txt "transactions:")
    commits=$(sed -n 's/^commits[0-9]*=//p' out.txt | awk '{ s += $1 } END { print s + 0 }')
    if [ "$commits" != "$n" ]; then
        sb_fail "the script committed $commits events, the report says $n"
        return 1
    fi
    # Each committed event added 1 to both rows; a victim added nothing.
    if [ "$v" != "$n $n " ]; then
        sb_fail "after $n transactions the rows hold '$v', expected '$n $n'"
        return 1
    fi
    if ! sb_cli "$drv" "SELECT count(*) FROM information_schema.tables WHERE table_name = 'sblegacy'" |
        grep -qx 0; then
        sb_fail "cleanup did not drop the table"
        return 1
    fi
}

cat >other_driver.lua <<'LUA'
function prepare()
  for _, name in ipairs({ "mysql", "pgsql" }) do
    local drv = sysbench.sql.driver(name)
    local con = drv:connect()
    print(string.format("%s: %s %s %s", name, tostring(drv), drv.sname,
                        con:query_row("SELECT 6 * 7")))
    con:disconnect()
  end
end
LUA

other_driver() {
    sb_run_ok prepare out.txt err.txt --db-driver=mysql $SB_MYSQL_ARGS $SB_PGSQL_ARGS \
        other_driver.lua prepare || return 1
    for d in mysql pgsql; do
        grep -qx "$d: <sql_driver> $d 42" out.txt || {
            sb_show out.txt err.txt
            sb_fail "no working connection through sysbench.sql.driver('$d')"
            return 1
        }
    done
}

# PostgreSQL looks for deadlocks only after deadlock_timeout (1 s).
sb_case mysql-legacy-db-query-deadlock legacy_deadlock mysql 3
sb_case pgsql-legacy-db-query-deadlock legacy_deadlock pgsql 4
sb_case sql-driver-other-than-db-driver other_driver
