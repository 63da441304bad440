#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Figures per statement (--report-per-statement, pure/sb_stmt_table.h),
# on the embedded SQLite driver: one entry per prepared statement and per
# query text with its literals as '?', counts that add up to the query
# totals over several threads, errors by code, rows, the report at
# --verbosity=4 and the JSON; compare of two runs where one statement was
# made slower on purpose (its index dropped) names that statement only.
#
# Run by `make check`, or by hand: bash tests/cli/stmt_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read the result files"
need_tool sqlite3 "to drop an index between two runs"

py_point() {
    python3 - "$@" || fail "the JSON check failed"
}

DB=(--db-driver=sqlite)

tcase "oltp_read_write on 3 threads: one entry per statement text, counts add up to the query totals"
sb oltp_read_write "${DB[@]}" --tables=2 --table-size=500 prepare
assert_exit 0
sb oltp_read_write "${DB[@]}" --tables=2 --table-size=500 --threads=3 --events=600 --time=0 \
    --report-per-statement=on --verbosity=4 --json=r.json run
assert_exit 0
assert_contains out "Statements (latency in ms; rows returned, rows affected):"
assert_match out " UPDATE sbtest1 SET k=k\+\? WHERE id=\?$"
py_point r.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
q, st = p["final"]["queries"], p["statements"]
texts = [s["text"] for s in st]
assert len(texts) == len(set(texts)), texts
# 2 tables x 9 statements of oltp_read_write's, BEGIN and COMMIT
assert len(st) == 20, texts
for kind in ("read", "write", "other"):
    n = sum(s["count"] for s in st if s["kind"] == kind)
    assert n == q[kind + "s" if kind != "other" else "other"], (kind, n, q)
for s in st:
    h = s["histogram"]
    assert h["count"] == s["count"] + s["errors"] == sum(b[2] for b in h["buckets"]), s["text"]
    assert 0 < s["latency_ms"]["p50"] <= s["latency_ms"]["p99"] <= s["latency_ms"]["max"] * 1.01
by = {s["text"]: s for s in st}
# 10 point selects per transaction, each one row; 600 transactions
pts = sum(by["SELECT c FROM sbtest%d WHERE id=?" % t]["count"] for t in (1, 2))
assert pts == 6000, pts
assert sum(by["SELECT c FROM sbtest%d WHERE id=?" % t]["rows"] for t in (1, 2)) == 6000
assert by["BEGIN"]["count"] == 600 and by["COMMIT"]["count"] == 600
PY

tcase "the default verbosity prints no statements; off keeps none in the JSON"
sb oltp_point_select "${DB[@]}" --table-size=100 prepare
sb oltp_point_select "${DB[@]}" --table-size=100 --events=50 --time=0 --report-per-statement=on \
    --json=on.json run
assert_exit 0
assert_not_contains out "Statements (latency"
sb oltp_point_select "${DB[@]}" --table-size=100 --events=50 --time=0 --verbosity=4 --json=off.json run
assert_exit 0
assert_not_contains out "Statements (latency"
py_point on.json off.json <<'PY'
import json, sys
on = json.load(open(sys.argv[1]))["points"][0]
off = json.load(open(sys.argv[2]))["points"][0]
assert "statements" not in off
assert [s["text"] for s in on["statements"]] == ["SELECT c FROM sbtest1 WHERE id=?"], on["statements"]
assert on["statements"][0]["count"] == 50
PY

tcase "unprepared texts: literals become ?, one entry for all values; errors by code"
sb oltp_point_select "${DB[@]}" --table-size=100 prepare
cat >q.lua <<'LUA'
local n = 0
function thread_init()
  con = sysbench.sql.driver():connect()
end
function event()
  n = n + 1
  con:query(string.format("SELECT c FROM sbtest1   WHERE id = %d AND c <> 'x''%d'", n % 100 + 1, n))
  con:query("SELECT 1.5e3, 0x1F, $1")
  -- every fifth event fails once, then runs again (an ignored error restarts it)
  if n % 5 == 0 then con:query("SELECT * FROM no_such_table") end
end
LUA
sb q.lua "${DB[@]}" --events=100 --time=0 --report-per-statement=on --db-ignore-errors=all \
    --json=q.json run
assert_exit 0
py_point q.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
by = {s["text"]: s for s in p["statements"]}
assert set(by) == {"SELECT c FROM sbtest1 WHERE id = ? AND c <> ?", "SELECT ?, ?, ?",
                   "SELECT * FROM no_such_table"}, list(by)
sel = by["SELECT c FROM sbtest1 WHERE id = ? AND c <> ?"]
bad = by["SELECT * FROM no_such_table"]
# 100 events and the 100/4 failed attempts restarted (n counts attempts)
assert bad["count"] == 0 and bad["errors"] == p["final"]["errors"]["ignored"] > 0, bad
assert sel["count"] == 100 + bad["errors"], (sel["count"], bad["errors"])
assert len(bad["errors_by_code"]) == 1 and bad["errors_by_code"][0]["count"] == bad["errors"]
assert bad["errors_by_code"][0]["code"] == 1, bad   # SQLITE_ERROR
assert sel["rows"] == sel["count"]
PY

tcase "compare: the statement whose index was dropped is worse; no other is named with a change of its size"
sb oltp_common "${DB[@]}" --tables=1 --table-size=3000 prepare
assert_exit 0
cat >two.lua <<'LUA'
function thread_init()
  con = sysbench.sql.driver():connect()
  s_id = con:prepare("SELECT c FROM sbtest1 WHERE id=?")
  p_id = s_id:bind_create(sysbench.sql.type.INT)
  s_id:bind_param(p_id)
  s_k = con:prepare("SELECT id FROM sbtest1 WHERE k=?")
  p_k = s_k:bind_create(sysbench.sql.type.INT)
  s_k:bind_param(p_k)
end
function event()
  p_id:set(sysbench.rand.uniform(1, 3000)); s_id:execute()
  p_k:set(sysbench.rand.uniform(1, 3000)); s_k:execute()
end
LUA
sb two.lua "${DB[@]}" --events=300 --time=0 --report-per-statement=on --repeat=3 --json=a.json run
assert_exit 0
# Without its index, k=? reads all 3,000 rows: tens of times slower.
sqlite3 sbtest.db "DROP INDEX k_1" || fail "cannot drop the index"
sb two.lua "${DB[@]}" --events=300 --time=0 --report-per-statement=on --repeat=3 --json=b.json run
assert_exit 0
sb compare a.json b.json
assert_exit 0
assert_contains out "Statements whose latency changed"
assert_match out "^  b: SELECT id FROM sbtest1 WHERE k=\? (p50|p99) .*, worse "
# The id=? lookup may be named too, and honestly: it runs right after a
# 3,000-row scan that evicts its cache lines, and a loaded machine moves
# short runs' percentiles. What must not happen is naming it with a change
# of the size of k=?'s (hundreds of times slower): at most +100% here.
assert_eq "$(grep -E 'WHERE id=\? p(50|99) ' out |
             sed -E 's/.* p(50|99) ([-+][0-9.]+)%.*/\2/' |
             awk '{ x = $1 < 0 ? -$1 : $1; if (x >= 100) big++ } END { print big + 0 }')" 0 \
    "id=? statements named with a change of 100% or more"

tcase "merge of --instance=I/2 files: the statements' counts and histograms add up exactly"
cat >m.lua <<'LUA'
local n = 0
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  n = n + 1
  con:query("SELECT " .. n)
  if n % 3 == 0 then con:query("SELECT 'a' || " .. n) end
end
LUA
at=$(( $(date +%s) + 2 ))
for i in 0 1; do
    "$SB_BIN" m.lua "${DB[@]}" --threads=2 --tx-rate=200 --time=1 --report-per-statement=on \
        --rand-seed=5 --instance=$i/2 --start-at="$at" --json=i$i.json run >i$i.out 2>&1 &
done
wait
sb merge i0.json i1.json --json=all.json
assert_exit 0
py_point all.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
ins = [json.load(open("i%d.json" % i))["points"][0] for i in (0, 1)]
by = {s["text"]: s for s in p["statements"]}
assert set(by) == {"SELECT ?", "SELECT ? || ?"}, list(by)
for text, s in by.items():
    parts = [[x for x in q["statements"] if x["text"] == text][0] for q in ins]
    assert s["count"] == sum(x["count"] for x in parts) > 0, (text, s["count"])
    h = s["histogram"]
    assert h["count"] == sum(x["histogram"]["count"] for x in parts) == sum(b[2] for b in h["buckets"])
    assert h["sum_ns"] == sum(x["histogram"]["sum_ns"] for x in parts)
    assert h["max_ns"] == max(x["histogram"]["max_ns"] for x in parts)
    assert h["min_ns"] == min(x["histogram"]["min_ns"] for x in parts)
assert sum(s["count"] for s in p["statements"]) == p["final"]["queries"]["total"]
PY

tcase "compare of single runs: no verdict on statements"
sb oltp_point_select "${DB[@]}" --table-size=100 prepare
sb oltp_point_select "${DB[@]}" --table-size=100 --events=50 --time=0 --report-per-statement=on --json=c.json run
sb compare c.json c.json
assert_exit 0
assert_contains out "no verdicts: they need two or more runs"

tcase "oltp_write_only: rows affected per statement, one per UPDATE/DELETE/INSERT, none for reads"
sb oltp_write_only "${DB[@]}" --table-size=200 prepare
assert_exit 0
sb oltp_write_only "${DB[@]}" --table-size=200 --events=300 --time=0 --report-per-statement=on \
    --verbosity=4 --json=w.json run
assert_exit 0
assert_match out " affected +avg "
py_point w.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
by = {s["text"]: s for s in p["statements"]}
# Each of oltp_write_only's writes names one existing id (the DELETE and
# INSERT of a transaction take the same id), so each changes one row.
writes = [s for s in p["statements"] if s["kind"] == "write"]
assert len(writes) == 4, list(by)
for s in writes:
    assert s["count"] == 300 and s["errors"] == 0, s["text"]
    assert s["affected_rows"] == s["count"], (s["text"], s["affected_rows"])
    assert s["rows"] == 0, s["text"]
assert by["BEGIN"]["affected_rows"] == 0 and by["COMMIT"]["affected_rows"] == 0
assert sum(s["affected_rows"] for s in p["statements"]) == p["final"]["queries"]["writes"]
PY

finish
