-- The globals sysbench 1.0 keeps for scripts written for sysbench 0.5 (and
-- that its own bundled scripts still use): sb_rand*, thread_id, test, the
-- db_* functions on one implicit connection per Lua state, the DB_ERROR_*
-- constants, a default thread_run and ffi. Loaded in every state, after
-- the sysbench module and before the script; where connections share a
-- state, once for all of them (thread_id is then each one's own global,
-- the sb_rand_uniq sequence is the client thread's, as 1.0 shares it).

local ffi = require("ffi")
local sysbench = sysbench
local rand = sysbench.rand

_G.ffi = ffi

-- -------------------------------------------------------------- state

-- 0 in the main state, as in sysbench 1.0.
thread_id = sysbench.tid or 0

-- The script as named on the command line ("./x.lua", "oltp_insert"):
-- sysbench 1.0 gives the text as typed, which can differ from the path
-- the script was found at. It is the first argument that is not an option.
local function script_as_given()
  local argv = sysbench.cmdline.argv or {}
  for i = 1, #argv do
    local a = argv[i]
    if a == "-" or (type(a) == "string" and a:sub(1, 1) ~= "-") then
      return a
    end
  end
  return sysbench.cmdline.script_path
end
test = script_as_given()

mysql_table_engine = mysql_table_engine or "innodb"
myisam_max_rows = 1000000

-- -------------------------------------------------------------- random

sb_rand = rand.default
sb_rand_uniform = rand.uniform
sb_rand_gaussian = rand.gaussian
sb_rand_special = rand.special
sb_rand_str = rand.string

-- The low 32 bits of a 64-bit draw, as a Lua number.
function sb_rnd()
  return tonumber(rand.uniform_uint64() % 4294967296ULL)
end

-- sb_rand_uniq(a, b): a value of [a, b] from a sequence that steps by a
-- large prime, so that values repeat only after about b - a + 1 calls (the
-- unique ids 0.5-style insert scripts ask for). sysbench 1.0 shares the
-- sequence between threads under a lock; here each state has its own,
-- started at a random point. Without arguments: sysbench.rand.unique().
local UNIQ_STEP = 2147483647 -- 2^31 - 1, a prime
local uniq_seq = nil
function sb_rand_uniq(a, b)
  if a == nil and b == nil then
    return rand.unique()
  end
  a = a or 0
  b = b or 4294967295
  if uniq_seq == nil then
    uniq_seq = sb_rnd()
  end
  uniq_seq = (uniq_seq + UNIQ_STEP) % 4294967296
  return a + uniq_seq % (b - a + 1)
end

-- -------------------------------------------------------------- db_*

local db = sysbench.db or {}
sysbench.db = db

db.DB_ERROR_NONE = 0
db.DB_ERROR_RESTART_TRANSACTION = 1
db.DB_ERROR_FAILED = 2

-- The state's one implicit connection (db_connect, or the first db_*
-- call that needs it). Where connections share the state (sb_lua_shared.h)
-- each has its own, kept by its globals' table (sysbench.__current_env,
-- set up after this module loads).
local state_con = nil
local conn_cons = setmetatable({}, { __mode = "k" })

local function current_env()
  local f = rawget(sysbench, "__current_env")
  return f and f()
end

local function get_con()
  local E = current_env()
  if E then return conn_cons[E] end
  return state_con
end

local function set_con(c)
  local E = current_env()
  if E then conn_cons[E] = c else state_con = c end
end

-- db_driver names the --db-driver driver as soon as there is one (1.0
-- sets it before prepare() and on db_connect).
do
  local ok, drv = pcall(require("sysbench.sql.native").driver)
  if ok then db_driver = drv:name() end
end

function db.connect()
  local drv = sysbench.sql.driver()
  db_driver = drv:name()
  if get_con() == nil then
    set_con(drv:connect())
  end
end

local function connection()
  local con = get_con()
  if con == nil then
    db.connect()
    con = get_con()
  end
  return con
end

function db.disconnect()
  local con = get_con()
  if con ~= nil then
    con:disconnect()
    set_con(nil)
  end
end

-- Returns the result of a statement that returns rows (they can be
-- fetched with rs:fetch_row()), and nil for any other: 0.5-style scripts
-- test `if rs then` after an UPDATE to catch the unexpected, so the empty
-- result con:query() gives for DML, truthy in an `if`, must not leak here.
-- An ignorable error raises the error table that makes the event restart,
-- as con:query() does.
function db.query(query)
  if type(query) ~= "string" then
    error("bad argument #1 to 'db_query' (string expected, got " .. type(query) .. ")", 2)
  end
  local rs = connection():query(query)
  if rs ~= nil and rs.nfields > 0 then
    return rs
  end
  return nil
end

function db.bulk_insert_init(query)
  connection():bulk_insert_init(query)
end

function db.bulk_insert_next(values)
  connection():bulk_insert_next(values)
end

function db.bulk_insert_done()
  connection():bulk_insert_done()
end

-- A prepared statement of the 0.5 API: the values are those of a Lua
-- table bound with db_bind_param, read afresh at every db_execute.
local legacy_stmt = {}
legacy_stmt.__index = legacy_stmt
legacy_stmt.__tostring = function() return "<sql_statement>" end

function db.prepare(query)
  local st = connection():prepare(query)
  return setmetatable({ stmt = st }, legacy_stmt)
end

local function check_legacy_stmt(st, fname)
  if getmetatable(st) ~= legacy_stmt then
    error("bad argument #1 to '" .. fname .. "' (prepared statement expected)", 3)
  end
end

-- The keys of a table whose values are numbers or strings, in traversal
-- order, as sysbench 1.0 binds them.
local function bind_keys(t)
  if type(t) ~= "table" then
    error("table was expected", 3)
  end
  local keys = {}
  for k, v in pairs(t) do
    local tv = type(v)
    if tv ~= "number" and tv ~= "string" then
      error("Unsupported variable type: " .. tv, 3)
    end
    keys[#keys + 1] = k
  end
  if #keys == 0 then
    error("table is empty", 3)
  end
  return keys
end

local TEXT_MIN = 64

-- One parameter per key: numbers bind as BIGINT, strings as VARCHAR that
-- grow when a longer value comes (rebinding the statement).
local function make_param(st, v, cap)
  local T = sysbench.sql.type
  if type(v) == "number" then
    return st:bind_create(T.BIGINT), 0
  end
  cap = math.max(cap or TEXT_MIN, #v)
  return st:bind_create(T.VARCHAR, cap), cap
end

function db.bind_param(lst, t)
  check_legacy_stmt(lst, "db_bind_param")
  local keys = bind_keys(t)
  local params, caps = {}, {}
  for i, k in ipairs(keys) do
    params[i], caps[i] = make_param(lst.stmt, t[k])
  end
  lst.stmt:bind_param(unpack(params, 1, #params))
  lst.keys, lst.values, lst.params, lst.caps = keys, t, params, caps
end

-- sysbench 1.0 accepts a table of result variables but never fills it;
-- so does this (rows are read with rs:fetch_row()).
function db.bind_result(lst, t)
  check_legacy_stmt(lst, "db_bind_result")
  bind_keys(t)
  lst.results = t
end

function db.execute(lst)
  check_legacy_stmt(lst, "db_execute")
  local keys, values, params, caps = lst.keys, lst.values, lst.params, lst.caps
  if keys ~= nil then
    local rebind = false
    for i = 1, #keys do
      local v = values[keys[i]]
      if type(v) == "string" and caps[i] ~= 0 and #v > caps[i] then
        params[i], caps[i] = make_param(lst.stmt, v, caps[i] * 2)
        rebind = true
      end
      params[i]:set(v)
    end
    if rebind then
      lst.stmt:bind_param(unpack(params, 1, #params))
    end
  end
  return lst.stmt:execute()
end

function db.close(lst)
  check_legacy_stmt(lst, "db_close")
  lst.stmt:close()
end

-- Results are always stored (the whole result set is read by the query).
function db.store_results(rs)
end

function db.free_results(rs)
  if rs ~= nil and type(rs) ~= "boolean" then
    rs:free()
  end
end

db_connect = db.connect
db_disconnect = db.disconnect
db_query = db.query
db_bulk_insert_init = db.bulk_insert_init
db_bulk_insert_next = db.bulk_insert_next
db_bulk_insert_done = db.bulk_insert_done
db_prepare = db.prepare
db_bind_param = db.bind_param
db_bind_result = db.bind_result
db_execute = db.execute
db_store_results = db.store_results
db_free_results = db.free_results
db_close = db.close

DB_ERROR_NONE = db.DB_ERROR_NONE
DB_ERROR_RESTART_TRANSACTION = db.DB_ERROR_RESTART_TRANSACTION
DB_ERROR_FAILED = db.DB_ERROR_FAILED

-- -------------------------------------------------------------- thread_run

-- sysbench 1.0's default thread_run, which scripts may wrap or replace.
-- It only runs the built-in event loop. The engine tells a script's own
-- thread_run from this one by comparing the global with
-- sysbench.__default_thread_run.
function thread_run(tid)
  return sysbench.__run_events(tid)
end
sysbench.__default_thread_run = thread_run

return db
-- SPDX-License-Identifier: GPL-2.0-or-later
