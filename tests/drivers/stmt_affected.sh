#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Rows affected per statement (--report-per-statement, JSON
# statements[].affected_rows) against what the server changed: a prepared
# UPDATE ... SET k=k+1 over a random id range (part of it past the table,
# so an execution changes 0 to 10 rows) on sbtest1 and the same as a text
# query on sbtest2, on 2 threads. Each row changed adds 1 to its k, so
# each table's sum(k) grows by exactly the rows its statement changed.
# A prepared UPDATE ... SET k=k on existing ids changes nothing: MariaDB
# reports rows changed (0, as ROW_COUNT() would), PostgreSQL rows matched
# (one per execution).

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

cat >affected.lua <<'LUA'
-- SPDX-License-Identifier: GPL-2.0-or-later
local T = sysbench.sql.type
function thread_init()
  con = sysbench.sql.driver():connect()
  upd = con:prepare("UPDATE sbtest1 SET k=k+1 WHERE id BETWEEN ? AND ?")
  lo, hi = upd:bind_create(T.INT), upd:bind_create(T.INT)
  upd:bind_param(lo, hi)
  same = con:prepare("UPDATE sbtest1 SET k=k WHERE id=?")
  sid = same:bind_create(T.INT)
  same:bind_param(sid)
end
function event()
  local a = sysbench.rand.uniform(1, 1100)
  local b = a + sysbench.rand.uniform(0, 9)
  lo:set(a); hi:set(b); upd:execute()
  a = sysbench.rand.uniform(1, 1100)
  b = a + sysbench.rand.uniform(0, 9)
  con:query(string.format("UPDATE sbtest2 SET k=k+1 WHERE id BETWEEN %d AND %d", a, b))
  sid:set(sysbench.rand.uniform(1, 1000)); same:execute()
end
function thread_done()
  con:disconnect()
end
LUA

sums() {
    sb_cli "$1" "SELECT (SELECT SUM(k) FROM sbtest1), (SELECT SUM(k) FROM sbtest2)" | tr '\t' ' '
}

affected_against_server() {
    local drv=$1 before after
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv"))
    sb_run c0.txt c0.err "${args[@]}" oltp_read_write --tables=2 cleanup || true
    sb_run_ok prepare p.txt p.err "${args[@]}" oltp_read_write --tables=2 --table-size=1000 prepare ||
        return 1
    before=$(sums "$drv")
    sb_run_ok "the run" r.txt r.err "${args[@]}" ./affected.lua --threads=2 --events=2000 --time=0 \
        --report-per-statement=on --verbosity=4 --json=r.json run || return 1
    after=$(sums "$drv")
    python3 - r.json "$drv" "$before" "$after" <<'EOF' || { sb_show r.txt; sb_fail "affected rows differ from the server's"; return 1; }
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
drv, before, after = sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
by = {s["text"]: s for s in p["statements"]}
rng = by["UPDATE sbtest1 SET k=k+? WHERE id BETWEEN ? AND ?"]
txt = by["UPDATE sbtest2 SET k=k+? WHERE id BETWEEN ? AND ?"]
same = by["UPDATE sbtest1 SET k=k WHERE id=?"]
changed = [int(a) - int(b) for a, b in zip(after, before)]
print(drv, "server changed", changed, "affected_rows",
      rng["affected_rows"], txt["affected_rows"], same["affected_rows"])
assert rng["count"] + rng["errors"] == 2000 and txt["count"] + txt["errors"] == 2000
assert rng["affected_rows"] == changed[0], (rng, changed)
assert txt["affected_rows"] == changed[1], (txt, changed)
# 0 to 10 rows each, part past the table: the sums are not the counts.
assert 0 < rng["affected_rows"] < 10 * rng["count"] and rng["affected_rows"] != rng["count"]
assert same["affected_rows"] == (0 if drv == "mysql" else same["count"]), same
assert all(by[t]["rows"] == 0 for t in by if t.startswith("UPDATE"))
EOF
    sb_run c1.txt c1.err "${args[@]}" oltp_read_write --tables=2 cleanup || true
}

sb_case mysql-affected-rows-against-server affected_against_server mysql
sb_case pgsql-affected-rows-against-server affected_against_server pgsql
