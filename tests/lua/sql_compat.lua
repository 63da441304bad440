-- sysbench 1.0's SQL object behaviour and legacy globals, checked on
-- SQLite. Run without a command (the body is the test); compat_tests.sh
-- insists on the checks_sql_compat total and on no "not ok" line.

local t = require("tlib")
local T = sysbench.sql.type

-- ------------------------------------------------------------ objects

local drv = sysbench.sql.driver()
t.eq(tostring(drv), "<sql_driver>", "tostring(driver)")
t.eq(drv.sname, "sqlite", "drv.sname")
t.eq(drv:name(), "sqlite", "drv:name()")
t.eq(tostring(sysbench.sql.driver("sqlite")), "<sql_driver>", "driver by its name")
t.raises(function() sysbench.sql.driver("nonesuch") end,
  "invalid database driver name: 'nonesuch'", "unknown driver name")

local con = drv:connect()
t.eq(tostring(con), "<sql_connection>", "tostring(connection)")
t.eq(con.error, 0, "con.error before any error")
t.eq(tostring(con.driver), "<sql_driver>", "con.driver")
t.eq(con.driver.sname, "sqlite", "con.driver.sname")
t.eq(type(con.check_error), "function", "con.check_error")

-- DDL/DML: a result that is true in a condition yet equals nil.
local r = con:query("CREATE TABLE c (id INTEGER PRIMARY KEY, s VARCHAR(10), d DOUBLE)")
t.ok(r, "con:query(DDL) is truthy")
t.ok(r == nil, "con:query(DDL) == nil")
t.eq(tostring(r), "<sql_result>", "tostring(empty result)")
t.eq(r.nrows, 0, "empty result nrows")
t.eq(r:fetch_row(), nil, "empty result fetch_row")
t.eq(r:free(), true, "empty result free")
local r2 = con:query("INSERT INTO c VALUES (1, 'a', 1.5)")
t.ok(r2 and r2 == nil, "con:query(DML) truthy and == nil")
t.ok(rawequal(r, r2), "one shared empty result (no allocation per query)")

t.eq(con:bulk_insert_init("INSERT INTO c VALUES"), true, "bulk_insert_init returns true")
t.eq(con:bulk_insert_next("(2, 'b', 2.5)"), true, "bulk_insert_next returns true")
t.eq(con:bulk_insert_done(), true, "bulk_insert_done returns true")

local rs = con:query("SELECT id, s FROM c ORDER BY id")
t.eq(tostring(rs), "<sql_result>", "tostring(result)")
t.ok(rs ~= nil, "a result with rows ~= nil")
t.eq(rs.counter, 1, "rs.counter of a SELECT (SB_CNT_READ)")
t.eq(rs.statement, nil, "rs.statement of a query")
t.eq(rs.row, nil, "rs.row before fetch")
rs:fetch_row()
local row = rs.row
t.eq(row and row.values[0].ptr, "1", "rs.row.values[0].ptr")
t.eq(row and row.values[1].len, 1, "rs.row.values[1].len")
t.eq(row and require("ffi").string(row.values[1].ptr, row.values[1].len), "a",
  "ffi.string of rs.row values")
t.eq(rs:free(), true, "rs:free() returns true")

-- Statements and parameters.
local st = con:prepare("SELECT s FROM c WHERE id = ?")
t.eq(tostring(st), "<sql_statement>", "tostring(statement)")
t.ok(rawequal(st.connection, con), "stmt.connection")
t.eq(st:bind_param(), nil, "bind_param() with no arguments")
local p = st:bind_create(T.INT)
t.eq(tostring(p), "<sql_param>", "tostring(param)")
t.eq(p.type, T.BIGINT, "INT param.type (bound as BIGINT)")
t.eq(p.max_len, 8, "INT param.max_len")
t.eq(st:bind_param(p), 0, "bind_param returns 0")
p:set(2)
t.eq(tonumber(p.buffer[0]), 2, "param.buffer[0] after set")
t.eq(p.is_null[0], 0, "param.is_null[0] after set")
local srs = st:execute()
t.ok(rawequal(srs.statement, st), "rs.statement of an execute")
t.eq(srs:fetch_row()[1], "b", "execute fetches rows")
srs:free()
p:set(nil)
t.eq(p.is_null[0], 1, "param.is_null[0] after set(nil)")

local pc = st:bind_create(T.CHAR, 10)
t.eq(pc.type, T.VARCHAR, "CHAR param.type (bound as VARCHAR)")
t.eq(pc.max_len, 10, "CHAR param.max_len")
pc:set("abc")
t.eq(tonumber(pc.data_len[0]), 3, "param.data_len[0]")
t.eq(require("ffi").string(pc.buffer, 3), "abc", "CHAR param.buffer")
local pd = st:bind_create(T.DOUBLE)
pd:set(2.5)
t.eq(pd.type, T.DOUBLE, "DOUBLE param.type")
t.eq(pd.buffer[0], 2.5, "DOUBLE param.buffer[0]")
t.ok(pcall(st.bind_create, st, T.DATE), "DATE bind type accepted")

local up = con:prepare("UPDATE c SET s = ? WHERE id = ?")
local us, ui = up:bind_create(T.VARCHAR, 10), up:bind_create(T.INT)
up:bind_param(us, ui)
us:set("z")
ui:set(1)
local ur = up:execute()
t.ok(ur and ur == nil, "stmt:execute(DML) truthy and == nil")
t.eq(con:query_row("SELECT s FROM c WHERE id = 1"), "z", "the update ran")
t.eq(up:close(), 0, "stmt:close() returns 0")

-- Errors: con.error and con:check_error.
local ok = pcall(con.query, con, "SELECT * FROM nonesuch")
t.ok(not ok, "a bad query raises")
t.eq(con.error, 2, "con.error after a fatal error")
t.raises(function() con:check_error(nil, "q") end, "SQL error", "check_error re-raises")
t.eq(con:check_error(5, "q"), 5, "check_error passes a result through")
con:query("SELECT 1")
t.eq(con.error, 0, "con.error back to NONE")
t.eq(con:check_error(nil, "q"), nil, "check_error without an error")

t.eq(con:reconnect(), true, "con:reconnect() returns true")
t.eq(con:query_row("SELECT count(*) FROM c"), "2", "usable after reconnect")
t.eq(con:disconnect(), true, "con:disconnect() returns true")

-- ------------------------------------------------------------ legacy globals

local rand = sysbench.rand
t.ok(sb_rand == rand.default and sb_rand_uniform == rand.uniform and
     sb_rand_gaussian == rand.gaussian and sb_rand_special == rand.special and
     sb_rand_str == rand.string, "sb_rand* alias sysbench.rand")
local seen, distinct = {}, 0
for _ = 1, 10 do
  local v = sb_rand_uniq(1, 10)
  t.ok(v >= 1 and v <= 10, "sb_rand_uniq in range", v)
  if not seen[v] then distinct = distinct + 1; seen[v] = true end
end
t.eq(distinct, 10, "sb_rand_uniq(1, 10): 10 distinct values in 10 calls")
local x = sb_rnd()
t.ok(type(x) == "number" and x >= 0 and x < 4294967296 and x % 1 == 0, "sb_rnd()", x)
t.eq(thread_id, 0, "thread_id in the main state")
t.ok(type(test) == "string" and test:find("sql_compat.lua", 1, true) ~= nil, "test", test)
t.eq(DB_ERROR_NONE, 0, "DB_ERROR_NONE")
t.eq(DB_ERROR_RESTART_TRANSACTION, 1, "DB_ERROR_RESTART_TRANSACTION")
t.eq(DB_ERROR_FAILED, 2, "DB_ERROR_FAILED")
t.eq(sysbench.db.DB_ERROR_FAILED, 2, "sysbench.db.DB_ERROR_FAILED")
t.eq(mysql_table_engine, "innodb", "mysql_table_engine")
t.eq(myisam_max_rows, 1000000, "myisam_max_rows")
t.eq(db_driver, "sqlite", "db_driver")
t.eq(type(ffi), "table", "ffi global")
t.ok(ffi == require("ffi"), "ffi is the ffi module")
t.eq(type(thread_run), "function", "thread_run global")
t.ok(thread_run == sysbench.__default_thread_run, "thread_run is the default loop")
for _, n in ipairs({ "connect", "disconnect", "query", "bulk_insert_init",
    "bulk_insert_next", "bulk_insert_done", "prepare", "bind_param",
    "bind_result", "execute", "store_results", "free_results", "close" }) do
  t.ok(type(_G["db_" .. n]) == "function" and _G["db_" .. n] == sysbench.db[n],
    "db_" .. n .. " and sysbench.db." .. n)
end

-- db_* argument checks as in 1.0.
db_query("CREATE TABLE b (id INTEGER)")
local bst = db_prepare("INSERT INTO b VALUES (?)")
t.raises(function() db_bind_param(bst, {}) end, "table is empty", "db_bind_param({})")
t.raises(function() db_bind_param(bst, 5) end, "table was expected", "db_bind_param(5)")
t.raises(function() db_bind_param(bst, { true }) end, "Unsupported variable type: boolean",
  "db_bind_param({true})")
t.eq(select("#", db_bind_param(bst, { 7 })), 0, "db_bind_param returns nothing")
local er = db_execute(bst)
t.ok(er and er == nil, "db_execute(DML) truthy and == nil")
-- Growing string values rebind the parameter.
db_query("CREATE TABLE g (s TEXT)")
local gst = db_prepare("INSERT INTO g VALUES (?)")
local gp = { "short" }
db_bind_param(gst, gp)
db_execute(gst)
gp[1] = string.rep("x", 300)
db_execute(gst)
t.eq(db_query("SELECT max(length(s)) FROM g"):fetch_row()[1], "300", "long value after rebind")
t.eq(select("#", db_close(gst)), 0, "db_close returns nothing")
t.eq(db_query("SELECT count(*) FROM b"):fetch_row()[1], "1", "db_execute inserted")

t.summary("sql_compat")
-- SPDX-License-Identifier: GPL-2.0-or-later
