#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# sysbench 1.0 compatibility on SQLite (shared/LUA_COMPAT.md sections 1
# and 2): the SQL object behaviour (sql_compat.lua checks itself), a
# 0.5-style script on the legacy globals (legacy.lua), the default
# thread_run a script can wrap, the `test` global, and sysbench 1.0's own
# bulk_insert.lua, copied at test time from the installed sysbench 1.0.
#
# Run by `make check`, or by hand: bash tests/lua/compat_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

L="$SB_SRCDIR/tests/lua"
# The test scripts require tlib.lua from this directory.
export LUA_PATH="$L/?.lua;;"

# assert_checks TAG N: the script ran N checks under TAG and none failed.
assert_checks() {
    assert_kv out "checks_$1" "$2"
    if grep -q '^not ok' out; then
        fail "script checks failed: $(grep '^not ok' out | head -5 | tr '\n' ';')"
    fi
}

# sql DB SQL: one value from an SQLite file, read through sysbench.
sql() {
    printf 'io.write(tostring((sysbench.sql.driver():connect():query_row([[%s]]))), "\\n")\n' \
        "$2" >q.lua
    "$SB_BIN" --sqlite-db="$1" q.lua 2>/dev/null | tail -n 1
}

# ---------------------------------------------------------------- objects

tcase "SQL objects behave as in sysbench 1.0"
sb --sqlite-db=c.db "$L/sql_compat.lua"
assert_exit 0
assert_checks sql_compat 108

# ---------------------------------------------------------------- legacy

tcase "0.5-style script: prepare, run and cleanup through db_* and sb_rand*"
cp "$L/legacy.lua" .
sb --sqlite-db=l.db ./legacy.lua prepare
assert_exit 0
assert_checks prepare 4
assert_eq "$(sql l.db 'SELECT count(*) FROM legacy')" 40 "rows after prepare"
sb --sqlite-db=l.db ./legacy.lua run --threads=2 --events=60
assert_exit 0
assert_not_contains out "not ok"
assert_eq "$(sum_kv out updates)" 60 "events counted by the script"
assert_match out "total number of events: +60$"
# Every db_execute of the UPDATE reached the table, with the values the
# script put in its bound table at that moment.
assert_eq "$(sql l.db 'SELECT sum(hits) FROM legacy')" 60 "hits written by db_execute"
assert_eq "$(sql l.db "SELECT count(*) FROM legacy WHERE hits > 0 AND c NOT IN ('t0', 't1')")" 0 \
    "bound string values"
sb --sqlite-db=l.db ./legacy.lua cleanup
assert_exit 0
assert_eq "$(sql l.db "SELECT count(*) FROM sqlite_master WHERE name = 'legacy'")" 0 \
    "table dropped by cleanup"

tcase "test is the script as named on the command line"
echo 'io.write("test=", tostring(test), "\n")' >named.lua
sb ./named.lua
assert_kv out test ./named.lua
sb named.lua
assert_kv out test named.lua
sb named
assert_kv out test named

tcase "a script can wrap the default thread_run"
cat >wrap.lua <<'EOF'
local default_run = thread_run
local events = 0
function event() events = events + 1 end
-- One string per io.write: its arguments are written one by one, and the
-- two threads' lines interleave when they end at the same moment.
function thread_run(tid)
  io.write(("wrapped%d\n"):format(tid))
  default_run(tid)
  io.write(("events%d=%d\n"):format(tid, events))
end
EOF
# By time, not by events: both threads surely start (whether a thread
# that gets no events still runs thread_run is the engine's business).
sb wrap.lua run --threads=2 --time=1
assert_exit 0
assert_count out '^wrapped[01]$' 2
assert_eq "$(sum_kv out events)" "$(report_num out 'total number of events:')" \
    "events run through the wrapped loop"
assert_gt "$(sum_kv out events)" 0 "events run"

tcase "the default thread_run does not count as the script's own"
echo 'x = 1' >noevent.lua
sb noevent.lua run --threads=1 --time=1
assert_exit 1
assert_contains err "defines neither event() nor thread_run()"

tcase "db_query errors made ignorable restart the event and are counted once"
cat >ig.lua <<'EOF'
local failed = false
function event()
  if not failed then
    failed = true
    db_query("SELECT * FROM nonesuch")
  end
  db_query("SELECT 1")
end
EOF
sb --db-ignore-errors=all ig.lua run --threads=2 --events=10
assert_exit 0
assert_eq "$(report_num out 'ignored errors:')" 2 "ignored errors"
assert_match out "total number of events: +10$"
sb ig.lua run --threads=1 --events=10
assert_exit 1
assert_contains err "nonesuch"

tcase "sysbench 1.0's bulk_insert.lua runs unchanged"
if [ ! -f /usr/share/sysbench/bulk_insert.lua ]; then
    fail "sysbench 1.0's scripts are not installed in /usr/share/sysbench"
else
    cp /usr/share/sysbench/bulk_insert.lua .
    sb --sqlite-db=b.db bulk_insert.lua prepare --threads=2
    assert_exit 0
    sb --sqlite-db=b.db bulk_insert.lua run --threads=2 --events=200
    assert_exit 0
    assert_eq "$(($(sql b.db 'SELECT count(*) FROM sbtest1') + $(sql b.db 'SELECT count(*) FROM sbtest2')))" \
        200 "rows inserted by both threads"
    sb --sqlite-db=b.db bulk_insert.lua cleanup --threads=2
    assert_exit 0
fi

finish
