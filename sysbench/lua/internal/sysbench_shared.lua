-- Connections sharing one Lua state (sb_lua_shared.h), loaded only into
-- such a state (sb_lua_shared.c requires it before the first connection):
-- a state of its own, one per worker thread, does not carry it.

local ffi = require("ffi")
local sysbench = sysbench

-- Connections sharing one state (sb_lua_shared.h): where a client thread
-- multiplexes connections, they share its state (bytecode, built-in
-- modules, FFI declarations, JIT traces), and each has a table of globals
-- of its own that falls back to the state's. The script's chunk and the
-- chunks of the modules it requires are compiled once and run once per
-- connection under its table, so that every connection has its own
-- closures, upvalues and globals, as with a state of its own.

local shared_G = _G
local raw_setmt, raw_getmt = setmetatable, getmetatable
local real_require = require
local searchpath = package.searchpath
local conn_mt = { __index = shared_G }
local sysbench_mt = { __index = sysbench }
local package_mt = { __index = package }
local loaded_mt = { __index = package.loaded }
local opt_mt -- set by __shared_init: the options are exported after this
-- connection globals -> the metatable the script gave them (false: none)
local envs = raw_setmt({}, { __mode = "k" })
-- module name -> its compiled chunk; names the state itself serves
local chunks, builtin = {}, {}
local LOADING = {}

-- A metatable a script gives its globals (a strict mode raising on unknown
-- names) sees only what the state does not have, as it would in a state
-- of its own, where the standard names are the globals' own fields.
local function chained(mt)
  local idx = mt.__index
  local m = {}
  for k, v in pairs(mt) do m[k] = v end
  m.__index = function(t, k)
    local v = shared_G[k]
    if v ~= nil then return v end
    if type(idx) == "function" then return idx(t, k) end
    if idx ~= nil then return idx[k] end
    return nil
  end
  return m
end

local function conn_setmetatable(t, mt)
  local cur = envs[t]
  if cur == nil or (mt ~= nil and type(mt) ~= "table") then
    return raw_setmt(t, mt)
  end
  if cur and cur.__metatable ~= nil then
    error("cannot change a protected metatable", 2)
  end
  envs[t] = mt or false
  raw_setmt(t, mt and chained(mt) or conn_mt)
  return t
end

local function conn_getmetatable(t)
  local cur = envs[t]
  if cur == nil then return raw_getmt(t) end
  if cur and cur.__metatable ~= nil then return cur.__metatable end
  return cur or nil
end

-- require() of one connection: the state's modules (standard, built-in,
-- C modules) are shared; a module found on package.path runs its chunk,
-- compiled once, under the connection's globals, once per connection.
local function conn_require(E, P, name)
  local loaded = rawget(P, "loaded") or package.loaded
  local v = loaded[name]
  if v == LOADING then
    error("loop or previous error loading module '" .. tostring(name) .. "'", 2)
  end
  if v ~= nil then return v end
  if type(name) ~= "string" or builtin[name] then return real_require(name) end
  local chunk = chunks[name]
  if chunk == nil then
    local path = searchpath(name, P.path)
    if path == nil then return real_require(name) end
    local err
    chunk, err = loadfile(path)
    if chunk == nil then
      error("error loading module '" .. name .. "' from file '" .. path .. "':\n\t" .. err, 2)
    end
    chunks[name] = chunk
  end
  loaded[name] = LOADING
  setfenv(chunk, E)
  local r = chunk(name)
  if r == nil then
    r = rawget(loaded, name)
    if r == LOADING or r == nil then r = true end
  end
  loaded[name] = r
  return r
end

-- The body of a script runs once per connection, and the state has one C
-- declaration namespace: a second ffi.cdef of the same struct would fail
-- ("attempt to redefine"), a second ffi.metatype of the same type too. The
-- state remembers what it declared and gives a repeat the first result
-- (the metamethods are the first connection's: doc/design.md).
local function share_ffi()
  local cdef, metatype, typeof = ffi.cdef, ffi.metatype, ffi.typeof
  local declared, typed = {}, {}
  -- Errors name the script's line, not this one.
  local function call(f, ...)
    local r = { pcall(f, ...) }
    if not r[1] then error(r[2], 3) end
    return unpack(r, 2, table.maxn(r))
  end
  ffi.cdef = function(text, ...)
    if type(text) ~= "string" or select("#", ...) > 0 then
      return call(cdef, text, ...)
    end
    if not declared[text] then
      call(cdef, text)
      declared[text] = true
    end
  end
  ffi.metatype = function(ct, mt)
    local ok, id = pcall(function() return tonumber(typeof(ct)) end)
    if not ok or id == nil then return call(metatype, ct, mt) end
    local t = typed[id]
    if t == nil then
      t = call(metatype, ct, mt)
      typed[id] = t
    end
    return t
  end
end

-- Called once by sb_lua_shared.c, before the first connection.
function sysbench.__shared_init()
  share_ffi()
  for k in pairs(package.loaded) do builtin[k] = true end
  for k in pairs(package.preload) do builtin[k] = true end
  if type(sysbench.opt) == "table" then opt_mt = { __index = sysbench.opt } end
  shared_G.setmetatable = conn_setmetatable
  shared_G.getmetatable = conn_getmetatable
end

-- The globals of connection tid (the legacy globals are the state's; its
-- implicit db_* connection is per connection all the same).
function sysbench.__conn_env(tid, global_tid)
  local E = {}
  local S = raw_setmt({ tid = tid, global_tid = global_tid, hooks = {},
                        opt = opt_mt and raw_setmt({}, opt_mt) }, sysbench_mt)
  local P = raw_setmt({ loaded = raw_setmt({}, loaded_mt) }, package_mt)
  E._G, E.sysbench, E.package, E.thread_id = E, S, P, tid
  E.require = function(name) return conn_require(E, P, name) end
  envs[E] = false
  raw_setmt(E, conn_mt)
  return E
end

-- Runs the script's compiled chunk under the connection's globals E.
function sysbench.__conn_run(E, script)
  setfenv(script, E)
  script()
end


return true
-- SPDX-License-Identifier: GPL-2.0-or-later
