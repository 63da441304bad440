-- sysbench.sql on SQLite, run as the custom command "sqltest" (in the
-- main state). Every check goes through tlib; the row dumps printed with
-- "row:" must be identical under --db-ps-mode=auto and disable.

local t = require("tlib")
local print = t.print
local T = sysbench.sql.type

local function rows(con, q)
  local rs = con:query(q)
  local out = {}
  for _ = 1, rs.nrows do
    local r = rs:fetch_row()
    local cells = {}
    for i = 1, rs.nfields do cells[i] = r[i] == nil and "NULL" or r[i] end
    out[#out + 1] = table.concat(cells, "|")
  end
  rs:free()
  return out
end

local function sqltest()
  local drv = sysbench.sql.driver()
  t.eq(drv:name(), "sqlite", "driver():name()")
  t.eq(sysbench.sql.driver("sqlite"):name(), "sqlite", "driver('sqlite'):name()")
  local con = drv:connect()

  -- Constants.
  for _, n in ipairs({"TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
                      "TIME", "DATE", "DATETIME", "TIMESTAMP", "CHAR", "VARCHAR"}) do
    t.ok(type(T[n]) == "number", "sysbench.sql.type." .. n)
  end
  t.ok(sysbench.sql.error.NONE ~= nil and sysbench.sql.error.IGNORABLE ~= nil and
       sysbench.sql.error.FATAL ~= nil, "sysbench.sql.error constants")

  -- DDL returns nothing.
  t.eq(con:query("DROP TABLE IF EXISTS t1"), nil, "DROP returns nil")
  t.eq(con:query("CREATE TABLE t1 (id INTEGER PRIMARY KEY, name TEXT, v REAL)"),
       nil, "CREATE returns nil")
  t.eq(con:query("INSERT INTO t1 VALUES (1, 'one', 1.5), (2, NULL, NULL), (3, 'three', -2.25)"),
       nil, "INSERT returns nil")

  -- A multi-row result set.
  local rs = con:query("SELECT id, name, v FROM t1 ORDER BY id")
  t.eq(rs.nrows, 3, "rs.nrows")
  t.eq(rs.nfields, 3, "rs.nfields")
  local r1 = rs:fetch_row()
  t.eq(r1[1], "1", "row 1 id is a string")
  t.eq(r1[2], "one", "row 1 name")
  t.eq(tonumber(r1[3]), 1.5, "row 1 v")
  local r2 = rs:fetch_row()
  t.eq(r2[1], "2", "row 2 id")
  t.eq(r2[2], nil, "NULL is nil")
  t.eq(r2[3], nil, "NULL is nil (REAL)")
  local r3 = rs:fetch_row()
  t.eq(r3[2], "three", "row 3 name")
  t.eq(rs:fetch_row(), nil, "fetch_row after the last row")
  rs:free()

  -- An empty result set is still a result set.
  rs = con:query("SELECT id FROM t1 WHERE id > 100")
  t.ok(rs ~= nil and rs.nrows == 0 and rs.nfields == 1, "empty result set")
  if rs then rs:free() end

  -- query_row unpacks the first row.
  local n, mx, name = con:query_row("SELECT count(*), max(id), min(name) FROM t1")
  t.eq(tonumber(n), 3, "query_row count")
  t.eq(tonumber(mx), 3, "query_row max")
  t.eq(name, "one", "query_row third value")
  t.eq(select("#", con:query_row("SELECT 1 WHERE 0")), 0, "query_row with no row")

  -- Bulk insert of 100,000 rows.
  con:query("DROP TABLE IF EXISTS bulk")
  con:query("CREATE TABLE bulk (id INTEGER PRIMARY KEY, k INTEGER, c TEXT)")
  con:bulk_insert_init("INSERT INTO bulk (id, k, c) VALUES")
  for i = 1, 100000 do
    con:bulk_insert_next(string.format("(%d, %d, '%s')", i, i % 7, "row" .. i))
  end
  con:bulk_insert_done()
  local cnt, sum = con:query_row("SELECT count(*), sum(id) FROM bulk")
  t.eq(tonumber(cnt), 100000, "bulk insert row count")
  t.eq(tonumber(sum), 5000050000, "bulk insert id sum")
  t.eq(select(1, con:query_row("SELECT c FROM bulk WHERE id = 77777")), "row77777",
       "bulk insert row content")

  -- Prepared statements with every parameter type.
  con:query("DROP TABLE IF EXISTS types")
  con:query([[CREATE TABLE types (id INTEGER PRIMARY KEY, ti TINYINT, si SMALLINT,
    i INT, bi BIGINT, f FLOAT, d DOUBLE, tm TIME, dt DATE, dtm DATETIME,
    ts TIMESTAMP, ch CHAR(10), vc VARCHAR(20))]])
  local ins = con:prepare([[INSERT INTO types
    (id, ti, si, i, bi, f, d, tm, dt, dtm, ts, ch, vc)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)]])
  local p = {
    ins:bind_create(T.INT), ins:bind_create(T.TINYINT), ins:bind_create(T.SMALLINT),
    ins:bind_create(T.INT), ins:bind_create(T.BIGINT), ins:bind_create(T.FLOAT),
    ins:bind_create(T.DOUBLE), ins:bind_create(T.TIME), ins:bind_create(T.DATE),
    ins:bind_create(T.DATETIME), ins:bind_create(T.TIMESTAMP),
    ins:bind_create(T.CHAR, 10), ins:bind_create(T.VARCHAR, 20),
  }
  ins:bind_param(unpack(p))
  local vals = {1, 7, -300, 123456, 1234567890123, 2.5, -1.125,
                "12:34:56", "2024-02-29", "2024-02-29 12:34:56",
                "2001-02-03 04:05:06", "chars", "a varchar"}
  for i, v in ipairs(vals) do p[i]:set(v) end
  ins:execute()
  -- Row 2: every parameter NULL except the key.
  p[1]:set(2)
  for i = 2, #p do p[i]:set(nil) end
  ins:execute()
  -- Row 3: random strings from formats.
  p[1]:set(3)
  p[12]:set_rand_str("###-@@")
  p[13]:set_rand_str("@@@@@@@@@@-##")
  ins:execute()
  ins:close()

  local got = rows(con, "SELECT * FROM types WHERE id = 1")
  t.eq(got[1], "1|7|-300|123456|1234567890123|2.5|-1.125|12:34:56|2024-02-29|" ..
       "2024-02-29 12:34:56|2001-02-03 04:05:06|chars|a varchar", "typed row")
  got = rows(con, "SELECT * FROM types WHERE id = 2")
  t.eq(got[1], "2|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL",
       "p:set(nil) binds NULL")
  local ch, vc = con:query_row("SELECT ch, vc FROM types WHERE id = 3")
  t.ok(ch ~= nil and ch:match("^%d%d%d%-%l%l$") ~= nil, "set_rand_str CHAR", ch)
  t.ok(vc ~= nil and vc:match("^%l%l%l%l%l%l%l%l%l%l%-%d%d$") ~= nil, "set_rand_str VARCHAR", vc)
  for _, line in ipairs(rows(con, "SELECT id, ti, si, i, bi, f, d, tm, dt, dtm, ts FROM types ORDER BY id")) do
    print("row: " .. line)
  end

  -- A prepared statement run many times with new values.
  local upd = con:prepare("UPDATE bulk SET k = ? WHERE id = ?")
  local pk, pid = upd:bind_create(T.INT), upd:bind_create(T.BIGINT)
  upd:bind_param(pk, pid)
  for i = 1, 100 do pk:set(1000 + i); pid:set(i); upd:execute() end
  upd:close()
  t.eq(tonumber((con:query_row("SELECT sum(k) FROM bulk WHERE id <= 100"))), 105050,
       "prepared UPDATE executed 100 times")

  -- A prepared SELECT.
  local sel = con:prepare("SELECT c FROM bulk WHERE id BETWEEN ? AND ? ORDER BY id")
  local a, b = sel:bind_create(T.INT), sel:bind_create(T.INT)
  sel:bind_param(a, b)
  a:set(10); b:set(12)
  local srs = sel:execute()
  if t.ok(srs ~= nil, "prepared SELECT returns a result set") then
    t.eq(srs.nrows, 3, "prepared SELECT nrows")
    t.eq(srs:fetch_row()[1], "row10", "prepared SELECT first row")
    srs:free()
  end
  sel:close()

  -- A wrong number of parameters is a clear error.
  local bad = con:prepare("SELECT ? + ?")
  t.raises(function() bad:bind_param(bad:bind_create(T.INT)) end, "bind_param",
           "bind_param with too few parameters")
  bad:close()

  -- A non-ignorable SQL error: a string error scripts can pcall.
  local ok, err = pcall(con.query, con, "SELECT * FROM no_such_table")
  t.eq(ok, false, "query on a missing table fails")
  t.ok(tostring(err):find("SQL error, errno = ", 1, true) ~= nil, "error text", err)
  t.ok(tostring(err):find("no such table", 1, true) ~= nil, "error names the problem", err)
  t.ok(con.sql_errno ~= 0 and con.sql_errno ~= nil, "con.sql_errno set", con.sql_errno)
  t.ok(type(con.sql_state) == "string", "con.sql_state is a string", con.sql_state)
  t.ok(tostring(con.sql_errmsg):find("no such table", 1, true) ~= nil,
       "con.sql_errmsg", con.sql_errmsg)
  print("errno=" .. tostring(con.sql_errno))
  -- A bad prepare fails the same way.
  -- A bad statement fails in prepare (server-side) or, with client-side
  -- emulation (--db-ps-mode=disable), when it is executed.
  ok, err = pcall(function()
    local st = con:prepare("SELECT FROM WHERE")
    st:execute()
  end)
  t.ok(not ok and tostring(err):find("SQL error", 1, true) ~= nil, "bad prepare", err)
  -- The connection still works after errors.
  t.eq(tonumber((con:query_row("SELECT count(*) FROM t1"))), 3, "usable after errors")

  -- reconnect keeps the data, disconnect closes.
  con:reconnect()
  t.eq(tonumber((con:query_row("SELECT count(*) FROM bulk"))), 100000, "after reconnect")
  con:disconnect()
  t.raises(function() con:query("SELECT 1") end, "closed", "query after disconnect")

  -- A second connection sees committed data.
  local con2 = drv:connect()
  t.eq(tonumber((con2:query_row("SELECT count(*) FROM types"))), 3, "second connection")
  con2:query("DROP TABLE bulk")
  con2:disconnect()

  t.summary("sql")
end

-- Statements and errors inside worker threads, concurrently.
local con
function thread_init()
  con = sysbench.sql.driver():connect()
end

function event()
  local id = sysbench.rand.uniform(1, 1000000000)
  con:query(string.format("INSERT OR IGNORE INTO ev (id, tid) VALUES (%d, %d)", id, sysbench.tid))
  con:query_row("SELECT count(*) FROM ev")
end

function thread_done()
  con:disconnect()
end

local function mkev()
  local c = sysbench.sql.driver():connect()
  c:query("DROP TABLE IF EXISTS ev")
  c:query("CREATE TABLE ev (id INTEGER PRIMARY KEY, tid INTEGER)")
  c:disconnect()
end

local function countev()
  local c = sysbench.sql.driver():connect()
  print("ev_rows=" .. c:query_row("SELECT count(*) FROM ev"))
  print("ev_tids=" .. c:query_row("SELECT count(DISTINCT tid) FROM ev"))
  c:disconnect()
end

sysbench.cmdline.commands = {
  sqltest = {sqltest},
  mkev = {mkev},
  countev = {countev},
}
-- SPDX-License-Identifier: GPL-2.0-or-later
