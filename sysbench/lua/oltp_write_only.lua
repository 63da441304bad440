#!/usr/bin/env sysbench
-- oltp_write_only.lua: the write half of the OLTP transaction.
--
-- Per event, on one randomly chosen table, inside BEGIN/COMMIT (unless
-- --skip-trx): --index-updates and --non-index-updates UPDATEs and
-- --delete-inserts DELETE/INSERT pairs.

local oltp = require("oltp_common")

function thread_init()
   oltp.thread_init(oltp.WRITE_KINDS)
end

function event()
   local t = oltp.begin()
   oltp.index_updates(t)
   oltp.non_index_updates(t)
   oltp.delete_inserts(t)
   oltp.commit()
end
-- SPDX-License-Identifier: GPL-2.0-or-later
