#!/usr/bin/env sysbench
-- bulk_insert.lua: raw insert throughput with multi-row INSERTs.
--
-- prepare creates one table per thread, sbtest1 .. sbtest<threads>, with
-- just (id, k); each event of run adds one row to the thread's own table
-- through con:bulk_insert_next(), which batches rows into multi-row
-- INSERT statements, so an "event" here is a row, not a statement.
-- Run with the same (or a smaller) --threads as prepare; cleanup drops
-- the tables. Ids continue after the largest id already in a table, so
-- run can be repeated without a new prepare; with SB_COMPAT=1.0 they start
-- at 1 and no SELECT is sent, as in sysbench 1.0.20 (whose counters its
-- regression suite checks: read 0), so a second run needs a new prepare.

local function table_count()
   return math.max(sysbench.opt.threads or 1, 1)
end

local function connect()
   local drv = sysbench.sql.driver()
   return drv, drv:connect()
end

function prepare()
   local drv, con = connect()
   for n = 1, table_count() do
      print(string.format("Creating table 'sbtest%d'...", n))
      con:query(string.format([[
CREATE TABLE IF NOT EXISTS sbtest%d (
  id INTEGER NOT NULL,
  k INTEGER DEFAULT '0' NOT NULL,
  PRIMARY KEY (id)
)]], n))
   end
   con:disconnect()
end

function cleanup()
   local drv, con = connect()
   for n = 1, table_count() do
      print(string.format("Dropping table 'sbtest%d'...", n))
      con:query(string.format("DROP TABLE IF EXISTS sbtest%d", n))
   end
   con:disconnect()
end

local con
local next_id

function thread_init()
   local table_name = "sbtest" .. (sysbench.tid + 1)
   local _
   _, con = connect()
   if os.getenv("SB_COMPAT") == "1.0" then
      next_id = 1
   else
      local max_id = con:query_row("SELECT MAX(id) FROM " .. table_name)
      next_id = (tonumber(max_id) or 0) + 1
   end
   con:bulk_insert_init("INSERT INTO " .. table_name .. " VALUES")
end

function event()
   con:bulk_insert_next(string.format("(%d, %d)", next_id, next_id))
   next_id = next_id + 1
end

function thread_done()
   con:bulk_insert_done()
   con:disconnect()
end
-- SPDX-License-Identifier: GPL-2.0-or-later
