#!/usr/bin/env sysbench
-- select_random_points.lua: per event, one SELECT of the rows whose k is
-- any of --random-points random values (WHERE k IN (?, ?, ...)), on a
-- randomly chosen table. Uses the k index (--create-secondary).

local oltp = require("oltp_common")

oltp.add_options({
   random_points = {"ids listed in the IN (...) of each query", 10},
})

local queries         -- queries[table] = prepared statement handle

function thread_init()
   oltp.init()
   local npoints = sysbench.opt.random_points
   if npoints < 1 then
      error("--random-points must be at least 1", 0)
   end
   oltp.thread_init({})
   local marks, types = {}, {}
   for i = 1, npoints do
      marks[i], types[i] = "?", "INT"
   end
   queries = oltp.prepare_custom_tables(
      "SELECT id, k, c, pad FROM sbtest%d WHERE k IN (" ..
      table.concat(marks, ", ") .. ")", types)
end

function event()
   local q = queries[oltp.rand_table()]
   for _, p in ipairs(q.param) do
      p:set(oltp.rand_id())
   end
   q.stmt:execute()
   oltp.event_done()
end
-- SPDX-License-Identifier: GPL-2.0-or-later
