-- Typed values of declared script options (defaults, and whatever the
-- command line gives), general options in sysbench.opt, and the cmdline
-- values. Prints NAME=VALUE (with the Lua type) for lua_tests.sh to check.

local C = sysbench.cmdline

sysbench.cmdline.options = {
  flag = {"a boolean", false},
  flag_on = {"a boolean defaulting to on", true},
  count = {"an integer", 10},
  bytes = {"a size", "4K", C.ARG_SIZE},
  ratio = {"a double", 0.5, C.ARG_DOUBLE},
  name = {"a string", "alpha"},
  items = {"a list", {"a", "b"}},
  typed_list = {"a list given by type", "x,y,z", C.ARG_LIST},
  dash_name = {"a name with an underscore", 3},
  some_file = {"a file", "", C.ARG_FILE},
}

local function show(name)
  local v = sysbench.opt[name]
  local s
  if type(v) == "table" then
    s = table.concat(v, "|") .. " #" .. #v
  else
    s = tostring(v)
  end
  print(string.format("%s=%s (%s)", name, s, type(v)))
end

local function show_all()
  for _, n in ipairs({"flag", "flag_on", "count", "bytes", "ratio", "name",
                      "items", "typed_list", "dash_name", "some_file",
                      "threads", "time", "events", "rand_type", "rand_seed",
                      "percentile", "histogram", "db_driver", "sqlite_db",
                      "rand_pareto_h"}) do
    show(n)
  end
end

function init()
  show_all()
end

function event() return true end

function help_ext()
  sysbench.cmdline.print_test_options()
end

local function show_cmdline()
  local argv = sysbench.cmdline.argv
  print("argc=" .. #argv)
  for i = 0, #argv do
    print(string.format("argv[%d]=%s", i, tostring(argv[i])))
  end
  print("command=" .. tostring(sysbench.cmdline.command))
  print("script_path=" .. tostring(sysbench.cmdline.script_path))
  print("defined_run=" .. tostring(C.command_defined("run")))
  print("defined_show=" .. tostring(C.command_defined("show")))
  print("defined_opts=" .. tostring(C.command_defined("opts")))
  print("defined_help_ext=" .. tostring(C.command_defined("help_ext")))
  print("defined_nope=" .. tostring(C.command_defined("nope")))
  print("version=" .. tostring(sysbench.version))
  print("version_string=" .. tostring(sysbench.version_string))
  print("error_none=" .. tostring(sysbench.error.NONE))
  print("error_restart=" .. tostring(sysbench.error.RESTART_EVENT))
end

sysbench.cmdline.commands = {
  show = {show_cmdline},
  opts = {show_all},
}
-- SPDX-License-Identifier: GPL-2.0-or-later
