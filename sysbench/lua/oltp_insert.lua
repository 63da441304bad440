#!/usr/bin/env sysbench
-- oltp_insert.lua: one INSERT of a new row per event, in autocommit mode,
-- on a randomly chosen table.
--
-- With --auto-inc (the default) the database generates the id. With
-- --auto-inc=off the id comes from sysbench.rand.unique(), which never
-- repeats within a thread, shifted into the signed 32-bit range so it
-- fits an INTEGER column; ids can still (rarely) collide with another
-- thread's or the prepared rows 1..table_size.

local oltp = require("oltp_common")

local auto_inc

function thread_init()
   oltp.init()
   auto_inc = oltp.use_auto_inc(sysbench.sql.driver())
   oltp.thread_init({auto_inc and "auto_inserts" or "inserts"})
end

function event()
   local t = oltp.rand_table()
   if auto_inc then
      local p = oltp.param[t].auto_inserts
      p[1]:set(oltp.rand_id())
      p[2]:set_rand_str(oltp.C_FORMAT)
      p[3]:set_rand_str(oltp.PAD_FORMAT)
      oltp.stmt[t].auto_inserts:execute()
   else
      local p = oltp.param[t].inserts
      p[1]:set(sysbench.rand.unique() - 2147483648)
      p[2]:set(oltp.rand_id())
      p[3]:set_rand_str(oltp.C_FORMAT)
      p[4]:set_rand_str(oltp.PAD_FORMAT)
      oltp.stmt[t].inserts:execute()
   end
   oltp.event_done()
end

-- As sysbench 1.0.20 (its oltp_insert.lua and tests/t/script_oltp_insert_*):
-- with --auto-inc=off, prepare creates the tables empty, so the rows run
-- inserts (ids from sysbench.rand.unique()) are the only rows.
local prepare_tables = sysbench.cmdline.commands.prepare[1]
sysbench.cmdline.commands.prepare[1] = function(...)
   if not sysbench.opt.auto_inc then
      sysbench.opt.table_size = 0
   end
   return prepare_tables(...)
end
-- SPDX-License-Identifier: GPL-2.0-or-later
