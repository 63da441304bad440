-- sysbench.cmdline: option declarations and commands (doc/lua-api.md,
-- doc/compat.md). The C side calls read_cmdline_options() after the
-- script body runs (through the registry, so a script that replaces the
-- `sysbench` global cannot break it) and exports the parsed values as
-- sysbench.opt.

local cmdline = sysbench.cmdline or {}

-- Option types, sysbench 1.0's numbering: the C enum sb_opt_type plus one,
-- with NULL and MAX around them.
cmdline.ARG_NULL = 0
cmdline.ARG_BOOL = 1
cmdline.ARG_INT = 2
cmdline.ARG_SIZE = 3
cmdline.ARG_DOUBLE = 4
cmdline.ARG_STRING = 5
cmdline.ARG_LIST = 6
cmdline.ARG_FILE = 7
cmdline.ARG_MAX = 8

cmdline.PARALLEL_COMMAND = true

-- The type a default implies when the entry gives none. A number is a
-- double, so --x=1.5 is accepted for {"desc", 10}.
local type_of_default = {
  boolean = cmdline.ARG_BOOL,
  number = cmdline.ARG_DOUBLE,
  table = cmdline.ARG_LIST,
  string = cmdline.ARG_STRING,
}

-- True only for commands the script lists in sysbench.cmdline.commands.
function cmdline.command_defined(name)
  local cmds = cmdline.commands
  return type(cmds) == "table" and type(cmds[name]) == "table" and
    cmds[name][1] ~= nil
end

-- True when the command is defined and marked PARALLEL_COMMAND.
function cmdline.command_parallel(name)
  return cmdline.command_defined(name) and
    cmdline.commands[name][2] == cmdline.PARALLEL_COMMAND
end

-- Runs a command in this state. Returns false when it is not defined;
-- otherwise true unless the command returned false (nil counts as success).
function cmdline.call_command(name)
  if not cmdline.command_defined(name) then
    return false
  end
  local rc = cmdline.commands[name][1]()
  return rc == nil or rc ~= false
end

-- The validators (4th element of an entry) of the declared options.
local validators = {}

local function bad(fmt, ...)
  error(string.format("sysbench.cmdline.options: " .. fmt, ...), 0)
end

-- Checks one entry and returns its type and its default as text (nil when
-- the entry has none).
local function check_entry(name, def)
  if type(name) ~= "string" or type(def) ~= "table" then
    if os.getenv("SB_COMPAT") == "1.0" then -- 1.0.20's words, with its location
      error("wrong table structure in sysbench.cmdline.options")
    end
    bad("each entry must be name = {description, default [, type [, validator]]}"
      .. " (found a %s key with a %s value)", type(name), type(def))
  end
  if def[1] == nil then
    bad("option '%s' has no description", name)
  end
  local t, d = def[3], def[2]
  if t ~= nil and (type(t) ~= "number" or t <= cmdline.ARG_NULL or
                   t >= cmdline.ARG_MAX or t % 1 ~= 0) then
    bad("option '%s' has an unknown type %s", name, tostring(t))
  end
  if def[4] ~= nil and type(def[4]) ~= "function" then
    bad("option '%s': the validator (4th element) must be a function", name)
  end
  local text
  if type(d) == "table" then
    if t ~= nil and t ~= cmdline.ARG_LIST then
      bad("option '%s' has a list default but is not a list", name)
    end
    local items = {}
    for i = 1, #d do items[i] = tostring(d[i]) end
    text = table.concat(items, ",")
  elseif type(d) == "boolean" then
    text = d and "on" or "off"
  elseif type(d) == "number" then
    text = string.format("%.17g", d)
  elseif type(d) == "string" then
    text = d
  elseif d ~= nil then
    bad("option '%s' has a default of unsupported type %s", name, type(d))
  end
  if t == nil then
    t = d ~= nil and type_of_default[type(d)] or cmdline.ARG_STRING
  end
  -- sysbench 1.0's values for an option declared without a default.
  if d == nil and t == cmdline.ARG_BOOL then
    text = "on"
  elseif d == nil and t == cmdline.ARG_STRING then
    text = ""
  end
  return t, text
end

-- The table the script declared, found without metamethods so that only
-- the script's own data is read.
local function declared_options()
  local sb = rawget(_G, "sysbench")
  if type(sb) ~= "table" then
    error("the script replaced the global 'sysbench' with a " .. type(sb), 0)
  end
  local cl = rawget(sb, "cmdline")
  if type(cl) ~= "table" then
    error("the script replaced 'sysbench.cmdline' with a " .. type(cl), 0)
  end
  return rawget(cl, "options")
end

-- Reads sysbench.cmdline.options and declares each option (sorted by name)
-- through `declare` (the C side's, or nil when a script calls the public
-- function). Raises one error naming the bad entry; returns true.
local function read_options(declare)
  local opts = declared_options()
  if opts == nil then
    return true
  end
  if type(opts) ~= "table" then
    bad("must be a table, not a %s", type(opts))
  end
  local names, checked = {}, {}
  for name, def in pairs(opts) do
    local t, text = check_entry(name, def)
    names[#names + 1] = name
    checked[name] = { tostring(def[1]), text, t }
  end
  table.sort(names)
  for _, name in ipairs(names) do
    local c = checked[name]
    validators[name] = opts[name][4]
    if declare then
      declare(name, c[1], c[2], c[3] - 1)
    end
  end
  return true
end

function cmdline.read_cmdline_options()
  return read_options(nil)
end

-- Called by the C side for each script option the user set: runs the
-- option's validator with the name and the value as text. False rejects.
local function validate_option(name, value)
  local v = validators[name]
  if v == nil then
    return true
  end
  return v(name, value) and true or false
end

local function placeholder(opt)
  local t = opt[3]
  local d = opt[2]
  if t == nil then
    t = d ~= nil and type_of_default[type(d)] or cmdline.ARG_STRING
  end
  if t == cmdline.ARG_BOOL then return "[=on|off]" end
  if t == cmdline.ARG_LIST then return "=[LIST,...]" end
  if t == cmdline.ARG_SIZE then return "=SIZE" end
  if t == cmdline.ARG_FILE then return "=FILENAME" end
  if t == cmdline.ARG_STRING then return "=STRING" end
  return "=N"
end

local function default_text(d)
  if type(d) == "boolean" then return d and "on" or "off" end
  if type(d) == "table" then return table.concat(d, ",") end
  if d == nil then return "" end
  return tostring(d)
end

-- Prints the script's options, one per line, sorted by name.
function cmdline.print_test_options()
  local opts = cmdline.options or {}
  local names = {}
  local compat10 = os.getenv("SB_COMPAT") == "1.0"
  for name, o in pairs(opts) do
    -- SB_COMPAT=1.0: a bundled script's options 1.0 did not have.
    if not (compat10 and o.compat10_hidden) then names[#names + 1] = name end
  end
  table.sort(names)
  -- SB_COMPAT=1.0: 1.0 aligns descriptions one space past the longest.
  local width = 33
  if os.getenv("SB_COMPAT") == "1.0" then
    width = 0
    for _, name in ipairs(names) do
      width = math.max(width, #("  --" .. name .. placeholder(opts[name])))
    end
  end
  for _, name in ipairs(names) do
    local o = opts[name]
    -- Names with dashes, as every other option is shown (--table_size
    -- works too); under SB_COMPAT=1.0 as declared, as sysbench 1.0 prints them.
    local shown = os.getenv("SB_COMPAT") == "1.0" and name or name:gsub("_", "-")
    local left = "  --" .. shown .. placeholder(o)
    -- No brackets for an option without a default, as 1.0 prints it.
    local def = o[2] ~= nil and " [" .. default_text(o[2]) .. "]" or ""
    io.write(string.format("%-" .. width .. "s %s%s\n", left, tostring(o[1] or ""), def))
  end
  if os.getenv("SB_COMPAT") == "1.0" then
    io.write("\n") -- 1.0 ends the list with a blank line
  end
end

-- The C side finds these through the registry, not through globals that a
-- script may have replaced.
local reg = debug.getregistry()
reg.sb_read_cmdline_options = read_options
reg.sb_validate_option = validate_option

return cmdline
-- SPDX-License-Identifier: GPL-2.0-or-later
