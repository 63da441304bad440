-- The FFI interface real scripts use: declare sb_counter_inc themselves
-- and bump the core's per-thread counters; with thread_run defined, drive
-- the event protocol by hand (sb_more_events/sb_event_start/sb_event_stop).

local print = require("tlib").print

local ffi = require("ffi")

ffi.cdef [[
void sb_counter_inc(int, sb_counter_type);
bool sb_more_events(int);
void sb_event_start(int);
void sb_event_stop(int);
]]

local mode = os.getenv("SB_FFI_MODE") or "event"

-- Two reads, one write and three "other" per event.
local function count(tid)
  ffi.C.sb_counter_inc(tid, ffi.C.SB_CNT_READ)
  ffi.C.sb_counter_inc(tid, ffi.C.SB_CNT_READ)
  ffi.C.sb_counter_inc(tid, ffi.C.SB_CNT_WRITE)
  for _ = 1, 3 do
    ffi.C.sb_counter_inc(tid, ffi.C.SB_CNT_OTHER)
  end
end

function event()
  count(sysbench.tid)
end

if mode == "thread_run" then
  local loops = 0
  function thread_run(thread_id)
    while ffi.C.sb_more_events(thread_id) do
      ffi.C.sb_event_start(thread_id)
      count(thread_id)
      loops = loops + 1
      ffi.C.sb_event_stop(thread_id)
    end
    print(string.format("loops%d=%d", thread_id, loops))
  end
end

if mode == "enum" then
  -- The enum's names and order are part of the interface.
  print("enum=" .. table.concat({
    tonumber(ffi.C.SB_CNT_OTHER), tonumber(ffi.C.SB_CNT_READ),
    tonumber(ffi.C.SB_CNT_WRITE), tonumber(ffi.C.SB_CNT_TRX),
    tonumber(ffi.C.SB_CNT_ERROR), tonumber(ffi.C.SB_CNT_RECONNECT),
    tonumber(ffi.C.SB_CNT_MAX)}, ","))
end
-- SPDX-License-Identifier: GPL-2.0-or-later
