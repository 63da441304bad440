-- Every hook and command kind: main-state init/done, per-thread
-- thread_init/event/thread_done, prepare/cleanup/help as globals, custom
-- serial and parallel commands, and an overridden prepare.

local print = require("tlib").print

local mode = os.getenv("SB_HOOKS_MODE")

sysbench.cmdline.options = {
  marker = {"a string printed by the hooks", "m"},
}

function init()
  print("init tid=" .. tostring(sysbench.tid) .. " marker=" .. sysbench.opt.marker)
end

function done()
  print("done")
end

local calls = 0
local seen_tid

function thread_init(thread_id)
  seen_tid = thread_id
  print(string.format("thread_init %d tid=%d", thread_id, sysbench.tid))
end

function event(thread_id)
  if thread_id ~= seen_tid then
    print("not ok: event got thread_id " .. tostring(thread_id))
  end
  calls = calls + 1
end

function thread_done(thread_id)
  print(string.format("thread_done %d calls=%d", thread_id, calls))
end

function prepare()
  print("global prepare ran")
end

function cleanup()
  print("global cleanup ran")
end

function help()
  print("script help ran")
end

local function serial_cmd()
  print("serial_cmd tid=" .. tostring(sysbench.tid))
end

local function parallel_cmd()
  print("parallel_cmd tid=" .. tostring(sysbench.tid))
end

sysbench.cmdline.commands = {
  serial = {serial_cmd},
  parallel = {parallel_cmd, sysbench.cmdline.PARALLEL_COMMAND},
}

if mode == "override" then
  -- A script's own prepare in commands wins over the global function.
  sysbench.cmdline.commands.prepare = {
    function() print("command prepare tid=" .. tostring(sysbench.tid)) end,
    sysbench.cmdline.PARALLEL_COMMAND,
  }
end
-- SPDX-License-Identifier: GPL-2.0-or-later
