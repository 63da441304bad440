#!/usr/bin/env sysbench
-- oltp_delete.lua: one DELETE of a random row per event, in autocommit
-- mode, on a randomly chosen table. Rows are not put back, so the tables
-- shrink as the run goes on (re-run prepare for a fresh start).

local oltp = require("oltp_common")

function thread_init()
   oltp.thread_init({"deletes"})
end

function event()
   oltp.deletes(oltp.rand_table(), 1)
   oltp.event_done()
end
-- SPDX-License-Identifier: GPL-2.0-or-later
