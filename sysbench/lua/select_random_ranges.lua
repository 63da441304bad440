#!/usr/bin/env sysbench
-- select_random_ranges.lua: per event, one SELECT COUNT(k) over
-- --number-of-ranges random ranges of k, each --delta wide
-- (WHERE k BETWEEN ? AND ? OR k BETWEEN ? AND ? ...), on a randomly
-- chosen table. Uses the k index (--create-secondary).

local oltp = require("oltp_common")

oltp.add_options({
   number_of_ranges = {"BETWEEN ranges joined by OR in each query", 10},
   delta = {"width of each BETWEEN range", 5},
})

local queries         -- queries[table] = prepared statement handle
local delta

function thread_init()
   oltp.init()
   local nranges = sysbench.opt.number_of_ranges
   if nranges < 1 then
      error("--number-of-ranges must be at least 1", 0)
   end
   delta = sysbench.opt.delta
   oltp.thread_init({})
   local conds, types = {}, {}
   for i = 1, nranges do
      conds[i] = "k BETWEEN ? AND ?"
      types[2 * i - 1], types[2 * i] = "INT", "INT"
   end
   queries = oltp.prepare_custom_tables(
      "SELECT COUNT(k) FROM sbtest%d WHERE " .. table.concat(conds, " OR "),
      types)
end

function event()
   local q = queries[oltp.rand_table()]
   local p = q.param
   for i = 1, #p, 2 do
      local first = oltp.rand_id()
      p[i]:set(first)
      p[i + 1]:set(first + delta)
   end
   q.stmt:execute()
   oltp.event_done()
end
-- SPDX-License-Identifier: GPL-2.0-or-later
