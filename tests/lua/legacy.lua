-- A script in the style of sysbench 0.5: global functions, options read
-- as plain globals with defaults, the implicit connection of db_query,
-- sb_rand*, thread_id and test. compat_tests.sh runs it on SQLite and
-- checks what it prints and leaves in the database.

local t = require("tlib")
local print = t.print

-- 0.5 scripts derive the directory of their helpers from `test`.
script_dir = string.match(test, "(.*/)") or ""

rows = 40

function prepare()
  db_connect()
  t.eq(db_driver, "sqlite", "db_driver after db_connect")
  db_query("CREATE TABLE legacy (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, c CHAR(20) NOT NULL, hits INTEGER NOT NULL DEFAULT 0)")
  db_bulk_insert_init("INSERT INTO legacy (id, k, c) VALUES")
  for i = 1, rows do
    db_bulk_insert_next(string.format("(%d, %d, '%s')", i, sb_rand(1, 1000),
                                      sb_rand_str("###-@@@")))
  end
  db_bulk_insert_done()
  local rs = db_query("SELECT count(*), min(length(c)), max(length(c)) FROM legacy")
  local row = rs:fetch_row()
  db_free_results(rs)
  t.eq(row[1], tostring(rows), "rows inserted by db_bulk_insert_*")
  t.eq(row[2], "7", "sb_rand_str length (min)")
  t.eq(row[3], "7", "sb_rand_str length (max)")
  db_disconnect()
  t.summary("prepare")
end

function cleanup()
  db_query("DROP TABLE legacy")
end

function thread_init(tid)
  t.eq(thread_id, tid, "thread_id in thread_init")
  t.eq(thread_id, sysbench.tid, "thread_id is sysbench.tid")
  db_connect()
  -- A prepared statement whose values come from a table read at each
  -- db_execute, as 0.5 scripts bind them.
  upd = db_prepare("UPDATE legacy SET hits = hits + 1, c = ? WHERE id = ?")
  upd_params = { "", 0 }
  db_bind_param(upd, upd_params)
  sel = db_prepare("SELECT k FROM legacy WHERE id = ?")
  sel_params = { 0 }
  db_bind_param(sel, sel_params)
  updates = 0
end

function event()
  local id = sb_rand_uniform(1, rows)
  upd_params[1] = string.format("t%d", thread_id)
  upd_params[2] = id
  local rs = db_execute(upd)
  db_store_results(rs)
  db_free_results(rs)
  updates = updates + 1
  sel_params[1] = id
  rs = db_execute(sel)
  local row = rs:fetch_row()
  t.ok(row ~= nil and tonumber(row[1]) ~= nil, "db_execute of a SELECT returns its row")
  db_free_results(rs)
  rs = db_query("SELECT id FROM legacy WHERE id = " .. id)
  t.eq(rs:fetch_row()[1], tostring(id), "db_query returns its rows")
end

function thread_done()
  db_close(upd)
  db_close(sel)
  print(string.format("updates%d=%d", thread_id, updates))
  db_disconnect()
  t.summary("thread" .. thread_id)
end
-- SPDX-License-Identifier: GPL-2.0-or-later
