#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# sysbench.sql round trip on both servers: create a table, insert through a
# prepared statement (with NULL parameters), read back through a prepared
# statement and a plain query, under both --db-ps-mode values. The two
# modes and the two servers must print exactly the same rows.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

cat >roundtrip.lua <<'LUA'
local T = sysbench.sql.type
local drv = sysbench.sql.driver()
local con = drv:connect()

con:query("DROP TABLE IF EXISTS sbh_roundtrip")
con:query([[CREATE TABLE sbh_roundtrip (
  id INTEGER NOT NULL PRIMARY KEY, k BIGINT, c VARCHAR(120), d DOUBLE PRECISION,
  pad VARCHAR(10))]])

local ins = con:prepare(
  "INSERT INTO sbh_roundtrip (id, k, c, d, pad) VALUES (?, ?, ?, ?, ?)")
local p = {
  ins:bind_create(T.INT), ins:bind_create(T.BIGINT),
  ins:bind_create(T.VARCHAR, 120), ins:bind_create(T.DOUBLE),
  ins:bind_create(T.VARCHAR, 10),
}
ins:bind_param(unpack(p))
for i = 1, 3 do
  p[1]:set(i)
  p[2]:set(i * 10000000000)
  p[3]:set("row '" .. i .. "' ?")
  p[4]:set(i + 0.5)
  if i == 2 then p[5]:set(nil) else p[5]:set("pad" .. i) end
  ins:execute()
end
-- Every parameter NULL but the key.
p[1]:set(4); p[2]:set(nil); p[3]:set(nil); p[4]:set(nil); p[5]:set(nil)
ins:execute()
ins:close()

local function show(rs)
  print("rows " .. tonumber(rs.nrows) .. " fields " .. tonumber(rs.nfields))
  for _ = 1, tonumber(rs.nrows) do
    local row = rs:fetch_row()
    local out = {}
    for j = 1, tonumber(rs.nfields) do
      out[j] = row[j] == nil and "NULL" or tostring(row[j])
    end
    print(table.concat(out, "|"))
  end
  rs:free()
end

local sel = con:prepare(
  "SELECT id, k, c, d, pad FROM sbh_roundtrip WHERE id >= ? AND c IS NOT NULL OR id = 4 ORDER BY id")
local from = sel:bind_create(T.INT)
sel:bind_param(from)
from:set(2)
show(sel:execute())
-- A second execution reuses the statement and its buffers.
from:set(3)
show(sel:execute())
sel:close()

show(con:query("SELECT id, c FROM sbh_roundtrip WHERE id IN (1, 4) ORDER BY id"))
print("count " .. con:query_row("SELECT COUNT(*) FROM sbh_roundtrip"))
con:query("DROP TABLE sbh_roundtrip")
con:disconnect()
print("done")
LUA

cat >roundtrip.expected <<'TXT'
rows 3 fields 5
2|20000000000|row '2' ?|2.5|NULL
3|30000000000|row '3' ?|3.5|pad3
4|NULL|NULL|NULL|NULL
rows 2 fields 5
3|30000000000|row '3' ?|3.5|pad3
4|NULL|NULL|NULL|NULL
rows 2 fields 2
1|row '1' ?
4|NULL
count 4
done
TXT

roundtrip() {
    local drv=$1 mode=$2
    # shellcheck disable=SC2046
    sb_run_ok roundtrip.lua out.txt err.txt $(sb_driver_args "$drv") --db-ps-mode="$mode" \
        roundtrip.lua || return 1
    # The binary may print a version header first; compare from the rows on.
    sed -n '/^rows /,$p' out.txt >rows.txt
    sb_expect_same roundtrip.expected rows.txt || { sb_show err.txt; return 1; }
}

for drv in mysql pgsql; do
    for mode in auto disable; do
        sb_case "$drv-roundtrip-ps-$mode" roundtrip "$drv" "$mode"
    done
done

# A result set stays readable while the same connection prepares another
# statement: preparing must not discard it.
cat >open_result.lua <<'LUA'
local con = sysbench.sql.driver():connect()
con:query("DROP TABLE IF EXISTS sb_open_rs")
con:query("CREATE TABLE sb_open_rs (a INTEGER)")
con:query("INSERT INTO sb_open_rs VALUES (1), (2), (3)")
local rs = con:query("SELECT a FROM sb_open_rs ORDER BY a")
local st = con:prepare("SELECT a FROM sb_open_rs WHERE a = ?")
local got = {}
for _ = 1, rs.nrows do
  local row = rs:fetch_row()
  got[#got + 1] = row and row[1] or "nil"
end
print("rows " .. table.concat(got, ","))
st:close()
con:query("DROP TABLE sb_open_rs")
LUA

open_result_survives_prepare() {
    local drv=$1
    # shellcheck disable=SC2046
    sb_run_ok open_result.lua out.txt err.txt $(sb_driver_args "$drv") open_result.lua || return 1
    grep -qx "rows 1,2,3" out.txt || { sb_show out.txt err.txt; sb_fail "the open result lost its rows"; return 1; }
}

for drv in mysql pgsql; do
    sb_case "$drv-result-open-across-prepare" open_result_survives_prepare "$drv"
done
