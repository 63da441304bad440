-- RESTART_EVENT handling. SB_RESTART_MODE selects:
--   raise:     each thread's first 3 events raise {errcode = RESTART_EVENT}
--              once before succeeding; before_restart_event sees each one.
--   ignorable: the first try of every event queries a missing table and
--              sysbench.hooks.sql_error_ignorable declares that error
--              ignorable, so the event restarts and then succeeds.
--   dbignore:  the same, made ignorable by --db-ignore-errors instead.
--   fatal:     a missing table with no hook: the run fails.
--   pcall:     the script catches the fatal SQL error itself.

local print = require("tlib").print

local mode = os.getenv("SB_RESTART_MODE") or "raise"
local con
local raised, hooked, retry = 0, 0, false
local hook_ok = true

function thread_init()
  con = sysbench.sql.driver():connect()
  con:query("CREATE TABLE IF NOT EXISTS ok_table (x INTEGER)")
end

sysbench.hooks.before_restart_event = function(err)
  hooked = hooked + 1
  if type(err) ~= "table" or err.errcode ~= sysbench.error.RESTART_EVENT then
    hook_ok = false
  end
  if mode ~= "raise" and not (err.sql_errno ~= nil and
      tostring(err.sql_errmsg):find("no such table", 1, true) and
      err.query == "SELECT * FROM missing_table" and err.connection ~= nil) then
    hook_ok = false
  end
end

if mode == "ignorable" then
  sysbench.hooks.sql_error_ignorable = function(err)
    return tostring(err.sql_errmsg):find("missing_table", 1, true) ~= nil
  end
end

function event()
  if mode == "raise" then
    con:query("SELECT count(*) FROM ok_table")
    if raised < 3 and not retry then
      raised = raised + 1
      retry = true
      error({errcode = sysbench.error.RESTART_EVENT})
    end
    retry = false
  elseif mode == "pcall" then
    local ok, err = pcall(con.query, con, "SELECT * FROM missing_table")
    if ok or not tostring(err):find("SQL error, errno = ", 1, true) then
      error("expected an SQL error, got " .. tostring(err))
    end
    caught = (caught or 0) + 1
  else
    if not retry then
      retry = true
      raised = raised + 1
      con:query("SELECT * FROM missing_table")
    end
    retry = false
    con:query("SELECT count(*) FROM ok_table")
  end
end

function thread_done()
  print(string.format("raised%d=%d", sysbench.tid, raised))
  print(string.format("hooked%d=%d", sysbench.tid, hooked))
  print(string.format("hook_ok%d=%s", sysbench.tid, tostring(hook_ok)))
  if caught then print(string.format("caught%d=%d", sysbench.tid, caught)) end
end

-- Creates the database (and turns on WAL) before the threads connect.
sysbench.cmdline.commands = {
  setup = {function()
    local c = sysbench.sql.driver():connect()
    c:query("CREATE TABLE IF NOT EXISTS ok_table (x INTEGER)")
    c:disconnect()
  end},
}
-- SPDX-License-Identifier: GPL-2.0-or-later
