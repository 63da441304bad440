#!/usr/bin/env sysbench
-- oltp_update_non_index.lua: one UPDATE of the non-indexed column c per
-- event, in autocommit mode, on a randomly chosen table.

local oltp = require("oltp_common")

function thread_init()
   oltp.thread_init({"non_index_updates"})
end

function event()
   oltp.non_index_updates(oltp.rand_table(), 1)
   oltp.event_done()
end
-- SPDX-License-Identifier: GPL-2.0-or-later
