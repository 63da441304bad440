-- sysbench.cmdline: option declarations and commands (shared/LUA_API.md).
-- The C side reads `options` after the script body runs and exports the
-- parsed values as sysbench.opt.

local cmdline = sysbench.cmdline or {}

-- Option types; the values are the C enum sb_opt_type plus one.
cmdline.ARG_BOOL = 1
cmdline.ARG_INT = 2
cmdline.ARG_SIZE = 3
cmdline.ARG_DOUBLE = 4
cmdline.ARG_STRING = 5
cmdline.ARG_LIST = 6
cmdline.ARG_FILE = 7

cmdline.PARALLEL_COMMAND = true

-- True when the script handles `name` as a command.
function cmdline.command_defined(name)
  local cmds = cmdline.commands
  if type(cmds) == "table" and cmds[name] ~= nil then
    return true
  end
  return type(_G[name]) == "function"
end

local function placeholder(opt)
  local t = opt[3]
  local d = opt[2]
  if t == nil then
    if type(d) == "boolean" then t = cmdline.ARG_BOOL
    elseif type(d) == "number" then t = cmdline.ARG_INT
    elseif type(d) == "table" then t = cmdline.ARG_LIST
    else t = cmdline.ARG_STRING end
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
  for name in pairs(opts) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local o = opts[name]
    -- Names as the script declared them, as sysbench 1.0 prints them.
    local left = "  --" .. name .. placeholder(o)
    io.write(string.format("%-33s %s [%s]\n", left, o[1] or "", default_text(o[2])))
  end
end

return cmdline
