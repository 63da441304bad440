#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# sysbench 1.0 error handling on the servers: after an ignorable error the
# driver layer rolls back the transaction the error left open, so that the
# retried event starts clean, with no help from the script (no
# before_restart_event hook here). PostgreSQL: 23505 is ignorable by
# default and neither it nor 40P01 leaves an aborted transaction behind
# (no 25P02 on the retry). MariaDB: a lock-wait timeout (1205) leaves the
# transaction open; it must be rolled back rather than committed by the
# retry's BEGIN. And sysbench 1.0.20's own oltp_read_write.lua and
# oltp_write_only.lua, copied at test time from /usr/share/sysbench, run
# at 4 threads on PostgreSQL without aborting.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

# ---------------------------------------------------------------- 23505

cat >dup.lua <<'LUA'
-- Every event: BEGIN, insert a new row, and on its first try insert a
-- duplicate of row 1 (23505). The retry must not meet 25P02.
local con, retry, commits = nil, false, 0
local print = print

function prepare()
  local c = sysbench.sql.driver():connect()
  c:query("DROP TABLE IF EXISTS sbdup")
  c:query("CREATE TABLE sbdup (id INTEGER NOT NULL PRIMARY KEY)")
  c:query("INSERT INTO sbdup VALUES (1)")
  c:disconnect()
end

function cleanup()
  local c = sysbench.sql.driver():connect()
  c:query("DROP TABLE IF EXISTS sbdup")
  c:disconnect()
end

local next_id

function thread_init()
  con = sysbench.sql.driver():connect()
  next_id = 1000 + sysbench.tid * 100000
end

function event()
  con:query("BEGIN")
  next_id = next_id + 1
  con:query("INSERT INTO sbdup VALUES (" .. next_id .. ")")
  if not retry then
    retry = true
    con:query("INSERT INTO sbdup VALUES (1)")
  end
  retry = false
  con:query("COMMIT")
  commits = commits + 1
end

function thread_done()
  print("commits" .. sysbench.tid .. "=" .. commits)
  con:disconnect()
end
LUA

pg_duplicate_key() {
    local rc=0 rows
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args pgsql))
    sb_run_ok prepare prep.txt prep.err "${args[@]}" dup.lua prepare || return 1
    sb_run out.txt err.txt "${args[@]}" --threads=2 --events=40 dup.lua run || rc=$?
    rows=$(sb_cli pgsql "SELECT count(*) FROM sbdup")
    sb_run clean.txt clean.err "${args[@]}" dup.lua cleanup || true
    if [ "$rc" -ne 0 ] || grep -q 25P02 out.txt err.txt; then
        sb_show out.txt err.txt
        sb_fail "the run exited with $rc (23505 must be ignorable and rolled back)"
        return 1
    fi
    grep -q -E '^ +ignored 23505: +40 ' out.txt || { sb_show out.txt; sb_fail "expected 40 ignored 23505"; return 1; }
    grep -q -E 'total number of events: +40$' out.txt || { sb_show out.txt; sb_fail "expected 40 events"; return 1; }
    # Row 1 and one row per committed event; the failed tries' inserts
    # were rolled back.
    [ "$rows" = 41 ] || { sb_fail "table holds $rows rows, expected 41"; return 1; }
}

# ---------------------------------------------------------------- 40P01

cat >dl.lua <<'LUA'
-- Two threads lock rows 1 and 2 in opposite orders: deadlocks. No hook:
-- the driver layer must roll back the victim's aborted transaction.
local con, sleep_sql

function prepare()
  local c = sysbench.sql.driver():connect()
  c:query("DROP TABLE IF EXISTS sbdl2")
  c:query("CREATE TABLE sbdl2 (id INTEGER NOT NULL PRIMARY KEY, v INTEGER NOT NULL)")
  c:query("INSERT INTO sbdl2 VALUES (1, 0), (2, 0)")
  c:disconnect()
end

function cleanup()
  local c = sysbench.sql.driver():connect()
  c:query("DROP TABLE IF EXISTS sbdl2")
  c:disconnect()
end

function thread_init()
  local drv = sysbench.sql.driver()
  con = drv:connect()
  sleep_sql = drv:name() == "mysql" and "SELECT SLEEP(0.05)" or "SELECT pg_sleep(0.05)"
end

function event()
  local first, second = 1, 2
  if sysbench.tid % 2 == 1 then first, second = 2, 1 end
  con:query("BEGIN")
  con:query("UPDATE sbdl2 SET v = v + 1 WHERE id = " .. first)
  con:query(sleep_sql)
  con:query("UPDATE sbdl2 SET v = v + 1 WHERE id = " .. second)
  con:query("COMMIT")
end
LUA

deadlock_no_hook() {
    local drv=$1 code=$2 seconds=$3 rc=0 v n
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv"))
    sb_run_ok prepare prep.txt prep.err "${args[@]}" dl.lua prepare || return 1
    sb_run out.txt err.txt "${args[@]}" --threads=2 --time="$seconds" dl.lua run || rc=$?
    v=$(sb_cli "$drv" "SELECT v FROM sbdl2 ORDER BY id" | tr '\n' ' ')
    sb_run clean.txt clean.err "${args[@]}" dl.lua cleanup || true
    if [ "$rc" -ne 0 ]; then
        sb_show out.txt err.txt
        sb_fail "the run exited with $rc"
        return 1
    fi
    grep -q -E "^ +ignored $code: +[1-9]" out.txt || { sb_show out.txt; sb_fail "no ignored $code"; return 1; }
    n=$(sb_text_report_num out.txt "transactions:")
    [ "$v" = "$n $n " ] || { sb_fail "after $n transactions the rows hold '$v'"; return 1; }
}

# ---------------------------------------------------------------- 1205

cat >lw.lua <<'LUA'
-- Thread 0 holds row 1 for 1.5 s per transaction. Thread 1 (lock wait
-- timeout 1 s) updates row 2 and then row 1: when it times out (1205),
-- its update of row 2 is still open; a retry's BEGIN would commit it.
local con, commits = nil, 0

function prepare()
  local c = sysbench.sql.driver():connect()
  c:query("DROP TABLE IF EXISTS sblw")
  c:query("CREATE TABLE sblw (id INTEGER NOT NULL PRIMARY KEY, v INTEGER NOT NULL) ENGINE=InnoDB")
  c:query("INSERT INTO sblw VALUES (1, 0), (2, 0)")
  c:disconnect()
end

function cleanup()
  local c = sysbench.sql.driver():connect()
  c:query("DROP TABLE IF EXISTS sblw")
  c:disconnect()
end

function thread_init()
  con = sysbench.sql.driver():connect()
  con:query("SET SESSION innodb_lock_wait_timeout = 1")
end

function event()
  con:query("BEGIN")
  if sysbench.tid == 0 then
    con:query("UPDATE sblw SET v = v + 1 WHERE id = 1")
    con:query("SELECT SLEEP(1.5)")
  else
    con:query("UPDATE sblw SET v = v + 1 WHERE id = 2")
    con:query("UPDATE sblw SET v = v + 1 WHERE id = 1")
  end
  con:query("COMMIT")
  commits = commits + 1
end

function thread_done()
  print("commits" .. sysbench.tid .. "=" .. commits)
  con:disconnect()
end
LUA

mysql_lock_wait() {
    local rc=0 v c0 c1
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args mysql))
    sb_run_ok prepare prep.txt prep.err "${args[@]}" lw.lua prepare || return 1
    sb_run out.txt err.txt "${args[@]}" --threads=2 --time=5 lw.lua run || rc=$?
    v=$(sb_cli mysql "SELECT v FROM sblw ORDER BY id" | tr '\n' ' ')
    sb_run clean.txt clean.err "${args[@]}" lw.lua cleanup || true
    if [ "$rc" -ne 0 ]; then
        sb_show out.txt err.txt
        sb_fail "the run exited with $rc"
        return 1
    fi
    grep -q -E '^ +ignored 1205: +[1-9]' out.txt || { sb_show out.txt; sb_fail "no ignored 1205"; return 1; }
    c0=$(sed -n 's/^commits0=//p' out.txt)
    c1=$(sed -n 's/^commits1=//p' out.txt)
    # Row 2 moved only with thread 1's committed transactions: a timed-out
    # try left no trace.
    [ "$v" = "$((c0 + c1)) $c1 " ] ||
        { sb_fail "rows hold '$v', expected '$((c0 + c1)) $c1 ' (commits $c0/$c1)"; return 1; }
}

# ---------------------------------------------------------------- 1.0 scripts

# sysbench 1.0.20's own OLTP scripts, copied at test time (never kept).
# Their prepare calls the legacy global sb_rand, so the tables are made
# with the bundled oltp_read_write (the same schema); `run` is 1.0's.
v10_script() {
    local name=$1 rc=0
    local -a args
    if [ ! -r "/usr/share/sysbench/$name.lua" ]; then
        sb_skip "sysbench 1.0's scripts are not installed (/usr/share/sysbench)"
    fi
    # Their own directory: a bare "oltp_read_write" must still mean ours.
    mkdir -p v10
    cp "/usr/share/sysbench/$name.lua" /usr/share/sysbench/oltp_common.lua v10/
    # shellcheck disable=SC2207
    args=($(sb_driver_args pgsql))
    sb_run clean0.txt clean0.err "${args[@]}" oltp_read_write --tables=2 cleanup || true
    sb_run_ok prepare prep.txt prep.err "${args[@]}" oltp_read_write --tables=2 \
        --table-size=1000 prepare || return 1
    sb_run out.txt err.txt "${args[@]}" --tables=2 --table-size=1000 --threads=4 --time=3 \
        "v10/$name.lua" run || rc=$?
    sb_run clean.txt clean.err "${args[@]}" oltp_read_write --tables=2 cleanup || true
    grep -E 'transactions:|ignored errors:' out.txt || true
    if [ "$rc" -ne 0 ]; then
        sb_show out.txt err.txt
        sb_fail "1.0's $name.lua exited with $rc"
        return 1
    fi
    sb_expect_positive out.txt "transactions:" || return 1
}

sb_case pgsql-23505-ignorable-rolled-back pg_duplicate_key
sb_case pgsql-deadlock-rolled-back-without-hook deadlock_no_hook pgsql 40P01 4
sb_case mysql-deadlock-without-hook deadlock_no_hook mysql 1213 3
sb_case mysql-lock-wait-timeout-rolled-back mysql_lock_wait
sb_case pgsql-sysbench-1.0-oltp_read_write v10_script oltp_read_write
sb_case pgsql-sysbench-1.0-oltp_write_only v10_script oltp_write_only
