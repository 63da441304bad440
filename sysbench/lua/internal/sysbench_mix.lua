-- SPDX-License-Identifier: GPL-2.0-or-later
-- Transaction mixes (pure/sb_mix.h): several scripts in one run, loaded
-- by the chunk main.c makes for the mix, once per Lua state (or, where a
-- client thread's connections share a state, once per connection, under
-- its globals).
--
-- Each script runs under globals of its own that fall back to the
-- caller's (its thread_init, event, thread_done, options, commands and
-- hooks stay its own), and a module it requires from package.path (such
-- as oltp_common) runs once per script, under that script's globals. The
-- caller's globals get what the C side calls: thread_init, thread_done,
-- init and done calling each script's in turn; the union of the options
-- (one default each); one command per name calling each script's (a
-- command defined at the same place, such as oltp_common's prepare,
-- once); and sysbench.__mix_events, the events by type, which the
-- built-in event loop calls by the index sb_ffi_mix_next draws.

local ffi = require("ffi")
local M = {}

ffi.cdef [[
int sb_ffi_mix_next(int thread_id);
]]

local LOADING = {}
local searchpath = package.searchpath
-- compiled chunks of modules, by file: each runs once per script
local chunks = {}

-- Hooks the C side calls once per thread or per run, for every script;
-- any other global function is a command: once per defining place.
local PER_SCRIPT = { thread_init = true, thread_done = true, init = true, done = true }
local NOT_MERGED = { event = true, thread_run = true }

local function script_require(E, own, dir, parent_require, name)
  local v = own[name]
  if v == LOADING then
    error("loop or previous error loading module '" .. tostring(name) .. "'", 2)
  end
  if v ~= nil then return v end
  if type(name) ~= "string" or package.loaded[name] ~= nil or
     package.preload[name] ~= nil then
    return parent_require(name)
  end
  local path = searchpath(name, dir .. package.path)
  if path == nil then return parent_require(name) end
  local chunk = chunks[path]
  if chunk == nil then
    local err
    chunk, err = loadfile(path)
    if chunk == nil then
      error("error loading module '" .. name .. "' from file '" .. path .. "':\n\t" .. err, 2)
    end
    chunks[path] = chunk
  end
  own[name] = LOADING
  setfenv(chunk, E)
  local r = chunk(name)
  if r == nil then
    r = rawget(own, name)
    if r == LOADING or r == nil then r = true end
  end
  own[name] = r
  return r
end

-- The globals script `name` (file path) runs under, over parent's.
local function script_env(parent, path)
  local psb = parent.sysbench
  local pcl = psb.cmdline
  -- Its own options and commands; everything else of sysbench.cmdline
  -- is the caller's.
  local cl = setmetatable({}, { __index = function(_, k)
    if k == "options" or k == "commands" then return nil end
    return pcl[k]
  end })
  local S = setmetatable({ hooks = {}, cmdline = cl }, { __index = psb })
  local own = {}
  local P = setmetatable({ loaded = setmetatable(own, { __index = package.loaded }) },
                         { __index = parent.package })
  local dir = path:match("^(.*)/[^/]*$")
  dir = dir and (dir .. "/?.lua;") or ""
  local E = setmetatable({}, { __index = parent })
  local parent_require = parent.require
  E._G, E.sysbench, E.package = E, S, P
  E.require = function(name) return script_require(E, own, dir, parent_require, name) end
  return E, S, cl
end

-- "x" in messages: the script's name as given.
local function same_default(a, b)
  if type(a) == "table" and type(b) == "table" then
    if #a ~= #b then return false end
    for i = 1, #a do if a[i] ~= b[i] then return false end end
    return true
  end
  return a == b
end

local function show(v)
  if type(v) == "table" then return table.concat(v, ",") end
  return tostring(v)
end

local function merge_options(types, pcl)
  local merged, from = nil, {}
  for _, t in ipairs(types) do
    local opts = rawget(t.cl, "options")
    if type(opts) == "table" then
      merged = merged or {}
      for name, def in pairs(opts) do
        local have = merged[name]
        if have ~= nil and type(def) == "table" and type(have) == "table" and
           not same_default(have[2], def[2]) then
          error(string.format("scripts %s and %s of the mix declare different defaults " ..
                              "for --%s: %s and %s", from[name], t.name, name,
                              show(have[2]), show(def[2])), 0)
        end
        if have == nil then
          merged[name], from[name] = def, t.name
        end
      end
    end
  end
  if merged ~= nil then pcl.options = merged end
end

-- One function running fns in turn; commands defined at the same place
-- (file and line) run once.
local function chain(fns, dedupe)
  local list, seen = {}, {}
  for _, f in ipairs(fns) do
    local key = f
    if dedupe then
      local info = debug.getinfo(f, "S")
      key = info.what == "Lua" and (info.source .. ":" .. info.linedefined) or f
    end
    if not seen[key] then
      seen[key] = true
      list[#list + 1] = f
    end
  end
  if #list == 1 then return list[1] end
  return function(...)
    local rc = nil
    for _, f in ipairs(list) do
      local r = f(...)
      if r == false then rc = false end
    end
    return rc
  end
end

local function merge_commands(types, pcl)
  local names, byname, parallel = {}, {}, {}
  for _, t in ipairs(types) do
    local cmds = rawget(t.cl, "commands")
    if type(cmds) == "table" then
      for name, def in pairs(cmds) do
        if type(def) == "table" and type(def[1]) == "function" then
          if byname[name] == nil then
            byname[name] = {}
            names[#names + 1] = name
          end
          table.insert(byname[name], def[1])
          if def[2] == pcl.PARALLEL_COMMAND then parallel[name] = true end
        end
      end
    end
  end
  if #names == 0 then return end
  local merged = {}
  for _, name in ipairs(names) do
    merged[name] = { chain(byname[name], true), parallel[name] and pcl.PARALLEL_COMMAND or nil }
  end
  pcl.commands = merged
end

local function merge_globals(types, parent)
  local names, byname = {}, {}
  for _, t in ipairs(types) do
    for name, v in pairs(t.E) do
      if type(v) == "function" and type(name) == "string" and not NOT_MERGED[name] and
         name ~= "require" then
        if byname[name] == nil then
          byname[name] = {}
          names[#names + 1] = name
        end
        table.insert(byname[name], v)
      end
    end
  end
  for _, name in ipairs(names) do
    parent[name] = chain(byname[name], not PER_SCRIPT[name])
  end
end

-- The first script's hook of each name (a mix has one reporter).
local function merge_hooks(types, psb)
  for _, t in ipairs(types) do
    for name, f in pairs(t.S.hooks) do
      if psb.hooks[name] == nil then psb.hooks[name] = f end
    end
  end
end

-- Loads the mix's scripts, list = { {name, path}, ... } in type order,
-- under the caller's globals.
function M.load(list)
  local parent = getfenv(2)
  local psb = parent.sysbench
  local types, events = {}, {}
  for i, item in ipairs(list) do
    local name, path = item[1], item[2]
    local E, S, cl = script_env(parent, path)
    local chunk, err = loadfile(path)
    if chunk == nil then error(err, 0) end
    setfenv(chunk, E)
    chunk()
    if type(rawget(E, "thread_run")) == "function" then
      error("script " .. name .. " defines its own thread_run(): it cannot run in a mix", 0)
    end
    local ev = rawget(E, "event")
    if type(ev) ~= "function" then
      error("script " .. name .. " of the mix defines no event()", 0)
    end
    types[i] = { name = name, E = E, S = S, cl = cl }
    events[i] = ev
  end
  merge_options(types, psb.cmdline)
  merge_commands(types, psb.cmdline)
  merge_globals(types, parent)
  merge_hooks(types, psb)
  psb.__mix_events = events
  local C = ffi.C
  -- For callers other than the built-in loop (which indexes
  -- __mix_events itself): one event of a type drawn from the weights.
  parent.event = function(tid)
    return events[C.sb_ffi_mix_next(tid) + 1](tid)
  end
end

return M
