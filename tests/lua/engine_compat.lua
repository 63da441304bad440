-- Engine behaviours sysbench 1.0 scripts rely on. SB_MODE selects:
--   thread_run:  a custom thread_run that prints its thread id and runs
--                no event itself.
--   default_tr:  a global thread_run that is sysbench.__default_thread_run
--                (the legacy layer's built-in loop): must count as none.
--   trx:         every event counts one extra transaction with
--                sb_counter_inc(tid, SB_CNT_TRX).
--   restart_self: every event raises RESTART_EVENT once itself.
--   restart_always: every event raises RESTART_EVENT, forever.
--   rollback:    BEGIN, INSERT, then (first try only) a query on a missing
--                table made ignorable with --db-ignore-errors; the retry
--                begins again, so the first try must have been rolled back.
--   count:       plain events; each thread prints how many it ran.

local ffi = require("ffi")
local print = require("tlib").print

local mode = os.getenv("SB_MODE") or "count"
local con
local calls, retry = 0, false

ffi.cdef [[void sb_counter_inc(int thread_id, sb_counter_type type);]]

if mode == "thread_run" then
  function thread_run(tid)
    print("thread_run " .. tid)
  end
elseif mode == "default_tr" then
  sysbench.__default_thread_run = function()
    print("WRONG: the default thread_run was called as a custom one")
  end
  thread_run = sysbench.__default_thread_run
end

sysbench.cmdline.commands = {
  setup = {function()
    local c = sysbench.sql.driver():connect()
    c:query("DROP TABLE IF EXISTS rb")
    c:query("CREATE TABLE rb (id INTEGER PRIMARY KEY AUTOINCREMENT, tid INTEGER)")
    c:disconnect()
  end},
}

function thread_init()
  if mode == "rollback" then
    con = sysbench.sql.driver():connect()
  end
end

function event(tid)
  calls = calls + 1
  if mode == "trx" then
    ffi.C.sb_counter_inc(sysbench.tid, ffi.C.SB_CNT_TRX)
  elseif mode == "restart_self" then
    if not retry then
      retry = true
      error({errcode = sysbench.error.RESTART_EVENT})
    end
    retry = false
  elseif mode == "restart_always" then
    error({errcode = sysbench.error.RESTART_EVENT})
  elseif mode == "rollback" then
    con:query("BEGIN")
    con:query("INSERT INTO rb (tid) VALUES (" .. sysbench.tid .. ")")
    if not retry then
      retry = true
      con:query("SELECT * FROM missing_table")
    end
    retry = false
    con:query("COMMIT")
  end
end

function thread_done()
  print("calls" .. sysbench.tid .. "=" .. calls)
  if con then con:disconnect() end
end
-- SPDX-License-Identifier: GPL-2.0-or-later
