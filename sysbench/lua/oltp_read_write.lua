#!/usr/bin/env sysbench
-- oltp_read_write.lua: the classic OLTP read/write transaction.
--
-- Per event, on one randomly chosen table, inside BEGIN/COMMIT (unless
-- --skip-trx): --point-selects point SELECTs, the range SELECTs (unless
-- --range-selects=off), --index-updates and --non-index-updates UPDATEs
-- and --delete-inserts DELETE/INSERT pairs.

local oltp = require("oltp_common")

function thread_init()
   oltp.thread_init(oltp.kinds(oltp.READ_KINDS, oltp.WRITE_KINDS))
end

function event()
   local t = oltp.begin()
   oltp.point_selects(t)
   oltp.range_selects(t)
   oltp.index_updates(t)
   oltp.non_index_updates(t)
   oltp.delete_inserts(t)
   oltp.commit()
end
-- SPDX-License-Identifier: GPL-2.0-or-later
