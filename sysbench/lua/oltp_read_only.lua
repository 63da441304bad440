#!/usr/bin/env sysbench
-- oltp_read_only.lua: the read half of the OLTP transaction.
--
-- Per event, on one randomly chosen table, inside BEGIN/COMMIT (unless
-- --skip-trx): --point-selects point SELECTs and the range SELECTs
-- (unless --range-selects=off).

local oltp = require("oltp_common")

function thread_init()
   oltp.thread_init(oltp.READ_KINDS)
end

function event()
   local t = oltp.begin()
   oltp.point_selects(t)
   oltp.range_selects(t)
   oltp.commit()
end
-- SPDX-License-Identifier: GPL-2.0-or-later
