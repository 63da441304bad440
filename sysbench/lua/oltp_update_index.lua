#!/usr/bin/env sysbench
-- oltp_update_index.lua: one UPDATE of the indexed column k per event, in
-- autocommit mode, on a randomly chosen table.

local oltp = require("oltp_common")

function thread_init()
   oltp.thread_init({"index_updates"})
end

function event()
   oltp.index_updates(oltp.rand_table(), 1)
   oltp.event_done()
end
-- SPDX-License-Identifier: GPL-2.0-or-later
