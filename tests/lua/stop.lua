-- event() returning a true value stops its thread: thread N stops after
-- N + 3 events, so with --threads=3 the run holds 3 + 4 + 5 = 12 events
-- and ends long before --time.

local print = require("tlib").print

local calls = 0

function event(thread_id)
  calls = calls + 1
  if calls >= thread_id + 3 then
    return true
  end
end

function thread_done(thread_id)
  print(string.format("stopped%d=%d", thread_id, calls))
end
-- SPDX-License-Identifier: GPL-2.0-or-later
