#!/usr/bin/env sysbench
-- oltp_point_select.lua: one primary-key SELECT per event, in autocommit
-- mode, on a randomly chosen table.

local oltp = require("oltp_common")

function thread_init()
   oltp.thread_init({"point_selects"})
end

function event()
   oltp.point_selects(oltp.rand_table(), 1)
   oltp.event_done()
end
-- SPDX-License-Identifier: GPL-2.0-or-later
