-- sysbench.sql: drivers (native userdata, sb_lua_sql.c) and the
-- connection, statement, parameter and result objects, which are FFI cdata
-- over sb_lua_sql_ffi.h with ffi.metatype methods calling its functions
-- through the FFI. A trace compiles the whole per-query path; nothing is
-- allocated per statement but what a row returns (a table, as in 1.0).
-- The C functions never raise: they return a status and the wrappers here
-- call error(). Also the helpers written in Lua: query_row and bulk inserts.

local ffi = require("ffi")
local native = require("sysbench.sql.native")
local C = ffi.C

-- The leading (Lua-visible) fields of sb_lua_sql_ffi.h's structures, under
-- names a script cannot meet by accident (1.0's field names are served by
-- __index), and the functions. Checked against the C layout below.
ffi.cdef [[
struct sb_lsql_value { const char *ptr; size_t len; };
struct sb_lsql_conn;
struct sb_lsql_result {
  struct sb_lsql_conn *__conn;
  const struct sb_lsql_value *__values;
  uint32_t nrows;
  uint32_t nfields;
  int32_t counter;
  int32_t __stmt_id;
  int32_t __have_row;
  int32_t __active;
};
struct sb_lsql_conn {
  struct sb_lsql_result __rs;
  int32_t __id;
  int32_t error;
};
struct sb_lsql_stmt {
  struct sb_lsql_conn *__conn;
  int32_t __id;
  int32_t __nparams;
};
struct sb_lsql_param {
  int __type;
  bool __is_null;
  int64_t __i;
  double __d;
  char *__str;
  size_t __len;
  size_t __cap;
};
struct sb_lua_sql_no_rows;
size_t sb_lsql_abi(int what);
void sb_lsql_conn_ref(struct sb_lsql_conn *c);
void sb_lsql_conn_unref(struct sb_lsql_conn *c);
int sb_lsql_query(struct sb_lsql_conn *c, const char *sql, size_t len);
int sb_lsql_continue(struct sb_lsql_conn *c);
int sb_lsql_complete(struct sb_lsql_conn *c);
int sb_lsql_reconnect(struct sb_lsql_conn *c);
void sb_lsql_disconnect(struct sb_lsql_conn *c);
void sb_lsql_count_ignored(struct sb_lsql_conn *c);
int sb_lsql_is_open(const struct sb_lsql_conn *c);
int sb_lsql_stmt_is_open(const struct sb_lsql_stmt *s);
int sb_lsql_errno(const struct sb_lsql_conn *c);
const char *sb_lsql_sqlstate(const struct sb_lsql_conn *c);
const char *sb_lsql_errmsg(const struct sb_lsql_conn *c);
const char *sb_lsql_error_text(struct sb_lsql_conn *c);
const char *sb_lsql_server_version(const struct sb_lsql_conn *c);
struct sb_lsql_stmt *sb_lsql_prepare(struct sb_lsql_conn *c, const char *sql, size_t len,
                                     int *nomem);
int sb_lsql_bind(struct sb_lsql_stmt *s, struct sb_lsql_param *const *params, unsigned n);
int sb_lsql_execute(struct sb_lsql_stmt *s);
void sb_lsql_stmt_close(struct sb_lsql_stmt *s);
void sb_lsql_stmt_free(struct sb_lsql_stmt *s);
int sb_lsql_fetch(struct sb_lsql_result *r);
void sb_lsql_free_result(struct sb_lsql_result *r);
void sb_lsql_result_unref(struct sb_lsql_result *r);
struct sb_lsql_param *sb_lsql_param_new(int type, long long maxlen);
void sb_lsql_param_free(struct sb_lsql_param *p);
int sb_lsql_param_rand_str(struct sb_lsql_param *p, void *rand, const char *fmt, size_t len);
int sb_lsql_parse_int64(const char *s, int64_t *out);
void *sb_ffi_rand_current(void);
int sb_lsql_bulk_init(struct sb_lsql_conn *c, const char *head, size_t len, int in_run);
int sb_lsql_bulk_next(struct sb_lsql_conn *c, const char *row, size_t len);
int sb_lsql_bulk_done(struct sb_lsql_conn *c);
struct sb_rowgen_col {
  int32_t kind;
  int32_t dist;
  uint32_t a, b;
  const char *fmt;
  size_t fmt_len;
};
int sb_lsql_bulk_rows(struct sb_lsql_conn *c, void *rand, const struct sb_rowgen_col *cols,
                      unsigned n, int64_t first, int64_t last, int64_t *next);
]]

do
  local want = {
    [0] = ffi.sizeof("struct sb_lsql_result"),
    ffi.offsetof("struct sb_lsql_conn", "error"),
    ffi.offsetof("struct sb_lsql_stmt", "__nparams"),
    ffi.sizeof("struct sb_lsql_param"),
    ffi.offsetof("struct sb_lsql_param", "__cap"),
    ffi.sizeof("struct sb_lsql_value"),
  }
  for i = 0, 5 do
    assert(tonumber(C.sb_lsql_abi(i)) == want[i], "sysbench.sql: FFI layout mismatch " .. i)
  end
end

local new_tab = require("table.new")

local sql = {}

sql.type = {
  NONE = 0, TINYINT = 1, SMALLINT = 2, INT = 3, BIGINT = 4, FLOAT = 5,
  DOUBLE = 6, TIME = 7, DATE = 8, DATETIME = 9, TIMESTAMP = 10,
  CHAR = 11, VARCHAR = 12,
}
sql.error = { NONE = 0, IGNORABLE = 1, FATAL = 2 }
local T = sql.type

-- Status codes of the C functions: enum sb_db_outcome, then ours.
local DONE, IGNORED, RECONNECTED, ROWS, PENDING = 0, 1, 2, 4, 5
local CLOSED, NOMEM = -1, -2

-- Multiplexed connections (sb_loop.c): the coroutine the loop runs this
-- state's events in. A statement in flight yields it, so that the thread
-- serves its other connections meanwhile; anywhere else (a coroutine of
-- the script's own, a yield across a C call) the statement is waited for
-- in place.
-- Where the connections of a client thread share one state
-- (sb_lua_shared.h), each runs in a coroutine of its own: the set of
-- them, weak so that an ended one goes.
local co_running, co_yield = coroutine.running, coroutine.yield
local mux_cos = setmetatable({}, { __mode = "k" })

local function await(c)
  local o = PENDING
  while o == PENDING do
    local co = co_running()
    if co == nil or not mux_cos[co] or not pcall(co_yield) then
      return C.sb_lsql_complete(c)
    end
    o = C.sb_lsql_continue(c)
  end
  return o
end

local conn_t = ffi.typeof("struct sb_lsql_conn *")
local result_t = ffi.typeof("struct sb_lsql_result *")
local param_t = ffi.typeof("struct sb_lsql_param *")
local param_array_t = ffi.typeof("struct sb_lsql_param *[?]")
local int_box = ffi.new("int[1]")
local i64_box = ffi.new("int64_t[1]")

-- What query() and execute() return for statements without rows. In
-- sysbench 1.0 that is a NULL sql_result pointer: true in a condition, yet
-- equal to nil, and printed as <sql_result>. One NULL pointer of a type of
-- our own serves every call, so nothing is allocated per statement.
local no_rows_fields = { nrows = 0, nfields = 0, counter = 0 }
local no_rows_methods = {
  fetch_row = function() return nil end,
  free = function() return true end,
}
ffi.metatype("struct sb_lua_sql_no_rows", {
  __index = function(_, k)
    local m = no_rows_methods[k]
    if m ~= nil then return m end
    return no_rows_fields[k]
  end,
  __tostring = function() return "<sql_result>" end,
})
local NO_ROWS = ffi.cast("struct sb_lua_sql_no_rows *", nil)

-- What the objects keep on the Lua side, by the id stored in the C object
-- (ids are reused once an object is collected).
local conn_rs = {}      -- connection id -> its result object
local conn_drv = {}     -- connection id -> its driver object
local conn_fields = {}  -- connection id -> fields a script stored on it
local stmt_obj = setmetatable({}, { __mode = "v" }) -- statement id -> object
local stmt_conn = {}    -- statement id -> its connection object
local stmt_rs = {}      -- statement id -> its connection's result object
local stmt_sql = {}     -- statement id -> its text (for error tables)
local stmt_params = {}  -- statement id -> the bound parameter objects
local free_ids, nfree, last_id = {}, 0, 0

local function new_id()
  if nfree > 0 then
    local id = free_ids[nfree]
    free_ids[nfree] = nil
    nfree = nfree - 1
    return id
  end
  last_id = last_id + 1
  return last_id
end

local function drop_id(id)
  nfree = nfree + 1
  free_ids[nfree] = id
end

-- ------------------------------------------------------------ errors

-- "file:line: " of the innermost script frame. The SQL helpers written in
-- Lua (these methods, query_row, bulk inserts) run in the built-in modules,
-- and a message naming "[builtin sysbench.sql]" would not tell the user
-- which line of their script failed, so built-in frames are skipped.
local function script_where()
  local level = 2
  while true do
    local ar = debug.getinfo(level, "Sl")
    if ar == nil then return "" end
    if ar.currentline > 0 and ar.short_src:sub(1, 9) ~= "[builtin " then
      return ar.short_src .. ":" .. ar.currentline .. ": "
    end
    level = level + 1
  end
end

local function error_table(con, query)
  -- The SQL layer already counted it (as an error or a reconnect); the
  -- event loop must not count it again.
  return { connection = con, query = query or "", sql_errno = C.sb_lsql_errno(con),
           sql_state = ffi.string(C.sb_lsql_sqlstate(con)),
           sql_errmsg = ffi.string(C.sb_lsql_errmsg(con)),
           errcode = sysbench.error.RESTART_EVENT, counted = true }
end

-- Asks sysbench.hooks.sql_error_ignorable(err) about an error the policy
-- calls fatal. A hook that raises an error ends the run with that error,
-- not the SQL error it was asked about: the bug is in the hook, and its
-- message names the hook's own file and line.
local function script_says_ignorable(e)
  -- Connections sharing the state: the hooks of the one that runs.
  local G = sysbench.__current_env and sysbench.__current_env()
  local sb = G and G.sysbench or sysbench
  local hooks = type(sb) == "table" and sb.hooks
  local f = type(hooks) == "table" and hooks.sql_error_ignorable
  if type(f) ~= "function" then return false end
  local ok, yes = pcall(f, e)
  if not ok then
    if type(yes) == "string" then
      error("sysbench.hooks.sql_error_ignorable: " .. yes, 0)
    end
    error("sysbench.hooks.sql_error_ignorable raised an error of type " .. type(yes), 0)
  end
  return yes
end

-- Turns a failed outcome into Lua behaviour: an error table with errcode
-- RESTART_EVENT for ignored errors and reconnects; otherwise a string
-- error "SQL error, errno = N, state = 'S': message" (unless the script's
-- sql_error_ignorable hook accepts it). con.error was set by C.
local function raise_outcome(con, o, query)
  if o == IGNORED or o == RECONNECTED then
    error(error_table(con, query))
  end
  local e = error_table(con, query)
  if script_says_ignorable(e) then
    C.sb_lsql_count_ignored(con)
    con.error = sql.error.IGNORABLE
    error(e)
  end
  error(script_where() ..
        string.format("SQL error, errno = %d, state = '%s': %s", C.sb_lsql_errno(con),
                      ffi.string(C.sb_lsql_sqlstate(con)),
                      ffi.string(C.sb_lsql_error_text(con))), 0)
end

local function check_string(v, fname)
  local t = type(v)
  if t == "string" then return v end
  if t == "number" then return tostring(v) end
  error(string.format("bad argument #1 to '%s' (string expected, got %s)", fname,
                      t == "nil" and "no value" or t), 3)
end

-- ------------------------------------------------------------ results

local result_methods = {}

function result_methods.fetch_row(self)
  local rc = C.sb_lsql_fetch(self)
  if rc <= 0 then
    if rc < 0 then
      error("fetch failed: " .. ffi.string(C.sb_lsql_errmsg(self.__conn)), 2)
    end
    return nil
  end
  local n = self.nfields
  local v = self.__values
  local row = new_tab(n, 0)
  for i = 0, n - 1 do
    local p = v[i].ptr
    if p ~= nil then -- SQL NULL stays nil
      row[i + 1] = ffi.string(p, v[i].len)
    end
  end
  return row
end

function result_methods.free(self)
  C.sb_lsql_free_result(self)
  return true -- as sysbench 1.0
end

-- rs.row as sysbench 1.0 shapes it: {values = {[0] = {ptr = s, len = n},
-- ...}} for the row fetched last (ptr is a string, which ffi.string()
-- accepts like a pointer; nil for SQL NULL). Built on demand.
local function row_view(self)
  if self.__have_row == 0 or self.__active == 0 or self.__values == nil then return nil end
  local v = self.__values
  local values = {}
  for i = 0, self.nfields - 1 do
    local cell = { len = tonumber(v[i].len) }
    if v[i].ptr ~= nil then cell.ptr = ffi.string(v[i].ptr, v[i].len) end
    values[i] = cell
  end
  return { values = values }
end

ffi.metatype("struct sb_lsql_result", {
  __index = function(self, k)
    local m = result_methods[k]
    if m ~= nil then return m end
    -- sysbench 1.0's fields besides nrows, nfields and counter.
    if k == "statement" then
      local id = self.__stmt_id
      return id ~= 0 and stmt_obj[id] or nil
    elseif k == "row" then
      return row_view(self)
    end
    return nil
  end,
  __tostring = function() return "<sql_result>" end,
})

-- ------------------------------------------------------------ connections

local conn_methods = {}

function conn_methods.query(self, query)
  if type(query) ~= "string" then query = check_string(query, "query") end
  local o = C.sb_lsql_query(self, query, #query)
  if o == PENDING then o = await(self) end
  if o == ROWS then return conn_rs[self.__id] end
  if o == DONE then return NO_ROWS end
  if o == CLOSED then error("connection is closed", 2) end
  raise_outcome(self, o, query)
end

local function stmt_gc(s)
  local id = s.__id
  -- rs.statement must not name whatever reuses the id.
  local r = stmt_rs[id]
  if r ~= nil and r.__stmt_id == id then r.__stmt_id = 0 end
  stmt_conn[id], stmt_rs[id], stmt_sql[id], stmt_params[id] = nil, nil, nil, nil
  drop_id(id)
  C.sb_lsql_stmt_free(s)
end

function conn_methods.prepare(self, query)
  query = check_string(query, "prepare")
  local s = C.sb_lsql_prepare(self, query, #query, int_box)
  if s == nil then
    if int_box[0] == 1 then error("out of memory", 2) end
    -- Lost and re-opened (counted as a reconnect), or lost as the run was
    -- being cut (nothing counted): restart the event; a stop ends it.
    if int_box[0] == 2 then error(error_table(self, query)) end
    if C.sb_lsql_is_open(self) == 0 then error("connection is closed", 2) end
    error(string.format("SQL error, errno = %d, state = '%s': cannot prepare: %s",
                        C.sb_lsql_errno(self), ffi.string(C.sb_lsql_sqlstate(self)),
                        ffi.string(C.sb_lsql_error_text(self))), 2)
  end
  local id = new_id()
  s.__id = id
  s = ffi.gc(s, stmt_gc)
  stmt_obj[id], stmt_conn[id], stmt_rs[id], stmt_sql[id] = s, self, conn_rs[self.__id], query
  return s
end

function conn_methods.reconnect(self)
  local o = C.sb_lsql_reconnect(self)
  if o == CLOSED then error("connection is closed", 2) end
  if o ~= DONE then error("reconnect failed: " .. ffi.string(C.sb_lsql_errmsg(self)), 2) end
  return true
end

function conn_methods.disconnect(self)
  C.sb_lsql_disconnect(self)
  return true -- as sysbench 1.0
end
conn_methods.close = conn_methods.disconnect

function conn_methods.server_version(self)
  if C.sb_lsql_is_open(self) == 0 then error("connection is closed", 2) end
  local v = C.sb_lsql_server_version(self)
  if v == nil then return nil end
  return ffi.string(v)
end

-- Raises the connection's last error again unless rs is a result
-- (sysbench 1.0's con:check_error): the error table for an ignorable
-- error (already counted when it happened), else the error string.
function conn_methods.check_error(self, rs, query)
  if rs ~= nil or self.error == sql.error.NONE then
    return rs
  end
  if self.error == sql.error.IGNORABLE then
    error({ connection = self, query = query, sql_errno = self.sql_errno,
            sql_state = self.sql_state, sql_errmsg = self.sql_errmsg,
            errcode = sysbench.error.RESTART_EVENT, counted = true }, 2)
  end
  error(string.format("SQL error, errno = %d, state = '%s': %s",
                      self.sql_errno, self.sql_state, self.sql_errmsg), 2)
end

local conn_getters = {
  sql_errno = function(self) return C.sb_lsql_errno(self) end,
  sql_state = function(self) return ffi.string(C.sb_lsql_sqlstate(self)) end,
  sql_errmsg = function(self) return ffi.string(C.sb_lsql_errmsg(self)) end,
  driver = function(self) return conn_drv[self.__id] end,
}

ffi.metatype("struct sb_lsql_conn", {
  -- Methods, then sysbench 1.0's error and driver fields, then fields a
  -- script stored on the connection.
  __index = function(self, k)
    local m = conn_methods[k]
    if m ~= nil then return m end
    local g = conn_getters[k]
    if g ~= nil then return g(self) end
    local f = conn_fields[self.__id]
    return f and f[k]
  end,
  __newindex = function(self, k, v)
    local f = conn_fields[self.__id]
    if f then f[k] = v end
  end,
  __tostring = function() return "<sql_connection>" end,
})

local function conn_gc(c)
  local id = c.__id
  conn_rs[id], conn_drv[id], conn_fields[id] = nil, nil, nil
  drop_id(id)
  C.sb_lsql_conn_unref(c)
end

do
  local drv_methods = debug.getregistry()["sysbench.sql.driver"].__methods
  local native_connect = native.connect
  function drv_methods.connect(self)
    local p, err = native_connect(self)
    -- No "script.lua:476:" prefix: a server that cannot be reached is not
    -- a fault of the script's line, and the message names what to change.
    if p == nil then error(err, 0) end
    local c = ffi.cast(conn_t, p)
    local id = new_id()
    c.__id = id
    c = ffi.gc(c, conn_gc)
    conn_drv[id], conn_fields[id] = self, {}
    -- The result object holds its own reference: a script may keep it
    -- after dropping the connection.
    C.sb_lsql_conn_ref(c)
    conn_rs[id] = ffi.gc(ffi.cast(result_t, c), C.sb_lsql_result_unref)
    return c
  end
end

-- ------------------------------------------------------------ statements

local stmt_methods = {}

local function check_stmt(self, level)
  if C.sb_lsql_stmt_is_open(self) == 0 then
    error("statement is closed", level + 1)
  end
end

function stmt_methods.execute(self)
  local id = self.__id
  local o = C.sb_lsql_execute(self)
  if o == PENDING then o = await(self.__conn) end
  if o == ROWS then return stmt_rs[id] end
  if o == DONE then return NO_ROWS end
  if o == CLOSED then error("statement is closed", 2) end
  raise_outcome(stmt_conn[id], o, stmt_sql[id])
end

function stmt_methods.close(self)
  C.sb_lsql_stmt_close(self)
  return 0 -- sysbench 1.0 returns db_close()'s 0
end

function stmt_methods.bind_create(self, t, maxlen)
  check_stmt(self, 2)
  local ty = tonumber(t)
  if ty == nil then
    error(string.format("bad argument #1 to 'bind_create' (number expected, got %s)",
                        t == nil and "no value" or type(t)), 2)
  end
  ty = ty >= 0 and math.floor(ty) or math.ceil(ty)
  if ty <= T.NONE or ty > T.VARCHAR then
    error(string.format("bind_create: unknown type %d", ty), 2)
  end
  local n = maxlen ~= nil and tonumber(maxlen) or 0
  if n == nil then
    error(string.format("bad argument #2 to 'bind_create' (number expected, got %s)",
                        type(maxlen)), 2)
  end
  local p = C.sb_lsql_param_new(ty, n)
  if p == nil then error("out of memory", 2) end
  return ffi.gc(p, C.sb_lsql_param_free)
end

function stmt_methods.bind_param(self, ...)
  local n = select("#", ...)
  check_stmt(self, 2)
  if n == 0 then
    return nil -- sysbench 1.0 binds nothing and says nil
  end
  if n ~= self.__nparams then
    error(string.format("bind_param: the statement has %d placeholders, got %d parameters",
                        self.__nparams, n), 2)
  end
  local arr = ffi.new(param_array_t, n)
  local keep = {}
  for i = 1, n do
    local p = select(i, ...)
    if not ffi.istype(param_t, p) then
      error(string.format("bad argument #%d to 'bind_param' (sysbench.sql.param expected, got %s)",
                          i, type(p) == "cdata" and "cdata" or type(p)), 2)
    end
    arr[i - 1] = p
    keep[i] = p
  end
  local rc = C.sb_lsql_bind(self, arr, n)
  if rc == NOMEM then error("out of memory", 2) end
  if rc == CLOSED then error("statement is closed", 2) end
  -- The statement keeps its parameters alive.
  stmt_params[self.__id] = keep
  return 0 -- sysbench 1.0 returns db_bind_param()'s 0
end

ffi.metatype("struct sb_lsql_stmt", {
  __index = function(self, k)
    local m = stmt_methods[k]
    if m ~= nil or k ~= "connection" then return m end
    return stmt_conn[self.__id]
  end,
  __tostring = function() return "<sql_statement>" end,
})

-- ------------------------------------------------------------ parameters

local param_methods = {}

local function arg_error(what, v, level)
  error(string.format("bad argument #1 to 'set' (%s expected, got %s)", what,
                      v == nil and "no value" or type(v)), level + 1)
end

-- Values: integers from a Lua number, a numeric string or a LuaJIT 64-bit
-- integer (cdata such as 123LL or uniform_uint64()'s) without the precision
-- loss of a double; text is truncated to the declared length, as a
-- CHAR(n) column would.
function param_methods.set(self, v)
  if v == nil then
    self.__is_null = true
    return
  end
  self.__is_null = false
  local t = self.__type
  if t <= T.BIGINT then
    if type(v) == "number" then
      self.__i = v
    else
      local s = tostring(v)
      if s == nil or C.sb_lsql_parse_int64(s, i64_box) == 0 then
        error("bad argument #1 to 'set' (integer expected)", 2)
      end
      self.__i = i64_box[0]
    end
  elseif t <= T.DOUBLE then
    local d = tonumber(v)
    if d == nil or (type(v) ~= "number" and type(v) ~= "string") then arg_error("number", v, 2) end
    self.__d = d
  else
    if type(v) ~= "string" then
      if type(v) ~= "number" then arg_error("string", v, 2) end
      v = tostring(v)
    end
    local cap = tonumber(self.__cap)
    if cap == 0 then
      self.__len = 0
      return
    end
    local len = #v
    if len > cap - 1 then len = cap - 1 end
    ffi.copy(self.__str, v, len)
    self.__str[len] = 0
    self.__len = len
  end
end

-- The state's generator as cdata: a trace cannot pass light userdata.
local rand_state

-- The generator sysbench.rand draws from in this state.
local function current_rand()
  if rand_state == nil then
    -- A state shared by connections has none of its own (false): the
    -- generator bound to the thread is the connection's that runs.
    local r = sysbench.__rand_state
    rand_state = r ~= nil and ffi.cast("void *", r) or false
  end
  return rand_state or C.sb_ffi_rand_current()
end

function param_methods.set_rand_str(self, fmt)
  if type(fmt) ~= "string" then fmt = check_string(fmt, "set_rand_str") end
  if C.sb_lsql_param_rand_str(self, current_rand(), fmt, #fmt) ~= 0 then
    error("set_rand_str needs a CHAR or VARCHAR parameter", 2)
  end
end

-- sysbench 1.0's parameter fields: the bind type it uses (integers bind
-- as BIGINT, FLOAT as DOUBLE, CHAR as VARCHAR) and pointers to the value,
-- its length and the null flag.
local param_fields
do
  local function int_type(t) return t >= T.TINYINT and t <= T.BIGINT end
  local off_i = ffi.offsetof("struct sb_lsql_param", "__i")
  local off_d = ffi.offsetof("struct sb_lsql_param", "__d")
  local off_len = ffi.offsetof("struct sb_lsql_param", "__len")
  local off_null = ffi.offsetof("struct sb_lsql_param", "__is_null")
  local function at(self, off, ct) return ffi.cast(ct, ffi.cast("char *", self) + off) end
  param_fields = {
    type = function(self)
      local t = self.__type
      if int_type(t) then return T.BIGINT end
      if t == T.FLOAT or t == T.DOUBLE then return T.DOUBLE end
      if t == T.CHAR or t == T.VARCHAR then return T.VARCHAR end
      return t
    end,
    buffer = function(self)
      local t = self.__type
      if int_type(t) then return at(self, off_i, "int64_t *") end
      if t == T.FLOAT or t == T.DOUBLE then return at(self, off_d, "double *") end
      return ffi.cast("char *", self.__str)
    end,
    max_len = function(self)
      local t = self.__type
      if int_type(t) or t == T.FLOAT or t == T.DOUBLE then return 8 end
      local cap = tonumber(self.__cap)
      return cap > 0 and cap - 1 or 0
    end,
    data_len = function(self) return at(self, off_len, "unsigned long *") end,
    is_null = function(self) return at(self, off_null, "char *") end,
  }
end

ffi.metatype("struct sb_lsql_param", {
  __index = function(self, k)
    local m = param_methods[k]
    if m ~= nil then return m end
    local f = param_fields[k]
    if f ~= nil then return f(self) end
  end,
  __tostring = function() return "<sql_param>" end,
})

-- The first row's values, unpacked; nothing when there is no row.
function conn_methods.query_row(self, query)
  local rs = self:query(query)
  if rs == nil then return end
  local row = rs:fetch_row()
  rs:free()
  if row == nil then return end
  return unpack(row, 1, rs.nfields)
end

-- Bulk inserts (drivers/sb_db_bulk.h): the rows are kept, checked and
-- sent in C. The methods return true, as sysbench 1.0's do.
local BADROW, NOBULK = -3, -4

local function bulk_fail(self, o, fname)
  if o == CLOSED then error("connection is closed", 3) end
  if o == NOMEM then error("out of memory", 3) end
  if o == NOBULK then error(fname .. "() called before bulk_insert_init()", 3) end
  if o == BADROW then
    -- The message names the row; the script's line says where it came from.
    error(script_where() .. ffi.string(C.sb_lsql_errmsg(self)), 0)
  end
  raise_outcome(self, o, "")
end

function conn_methods.bulk_insert_init(self, query)
  if type(query) ~= "string" then query = check_string(query, "bulk_insert_init") end
  -- run's events insert with INSERTs under --bulk-mode=auto; every
  -- other command loads through the server's bulk path.
  local cmdline = sysbench.cmdline
  local in_run = cmdline ~= nil and cmdline.command == "run"
  local o = C.sb_lsql_bulk_init(self, query, #query, in_run and 1 or 0)
  if o ~= 0 then bulk_fail(self, o, "bulk_insert_init") end
  return true
end

function conn_methods.bulk_insert_next(self, values)
  if type(values) ~= "string" then values = check_string(values, "bulk_insert_next") end
  local o = C.sb_lsql_bulk_next(self, values, #values)
  if o == PENDING then o = await(self) end
  if o ~= DONE then bulk_fail(self, o, "bulk_insert_next") end
  return true
end

function conn_methods.bulk_insert_done(self)
  local o = C.sb_lsql_bulk_done(self)
  if o ~= DONE and o ~= NOBULK then bulk_fail(self, o, "bulk_insert_done") end
  return true
end

-- con:bulk_insert_rows(first, last, columns): rows first..last made in C
-- (pure/sb_rowgen.h) into the open bulk insert. columns[i] is "id" (the
-- row's number), {DIST, a, b} (sysbench.rand.DIST(a, b), DIST one of
-- default, uniform, gaussian, special, pareto, zipfian) or {"string",
-- TEMPLATE} (sysbench.rand.string(TEMPLATE)). The same rows, and the
-- same draws, as bulk_insert_next with string.format of those calls.
local ROWGEN_ID, ROWGEN_RAND, ROWGEN_STRING = 0, 1, 2
local ROWGEN_DIST = { default = -1, uniform = 0, gaussian = 1, special = 2, pareto = 3,
                      zipfian = 4 }
local ROWS_CHUNK = 8192   -- rows per C call: an interrupt is seen between them
local rowgen_cols_t = ffi.typeof("struct sb_rowgen_col[?]")
local int64_box_t = ffi.typeof("int64_t[1]")

local function rowgen_cols(columns)
  if type(columns) ~= "table" or #columns == 0 then
    error("bulk_insert_rows: columns must be a non-empty list", 3)
  end
  local n = #columns
  local cols = rowgen_cols_t(n)
  for i = 1, n do
    local c, col = columns[i], cols[i - 1]
    if c == "id" then
      col.kind = ROWGEN_ID
    elseif type(c) == "table" and c[1] == "string" and type(c[2]) == "string" then
      col.kind, col.fmt, col.fmt_len = ROWGEN_STRING, c[2], #c[2]
    elseif type(c) == "table" and ROWGEN_DIST[c[1]] ~= nil and
      type(c[2]) == "number" and type(c[3]) == "number" then
      col.kind, col.dist, col.a, col.b = ROWGEN_RAND, ROWGEN_DIST[c[1]], c[2], c[3]
    else
      error(string.format("bulk_insert_rows: column %d must be \"id\", {DIST, a, b} " ..
                          "or {\"string\", template}", i), 3)
    end
  end
  return cols, n
end

function conn_methods.bulk_insert_rows(self, first, last, columns)
  if type(first) ~= "number" or type(last) ~= "number" then
    error("bulk_insert_rows: first and last must be numbers", 2)
  end
  -- cols points into the template strings of columns, which stays
  -- referenced here until the last C call.
  local cols, n = rowgen_cols(columns)
  local rand, next_id = current_rand(), int64_box_t()
  local id = first
  while id <= last do
    local o = C.sb_lsql_bulk_rows(self, rand, cols, n, id,
                                  math.min(last, id + ROWS_CHUNK - 1), next_id)
    id = tonumber(next_id[0])
    if o == PENDING then o = await(self) end
    if o ~= DONE then bulk_fail(self, o, "bulk_insert_rows") end
  end
  return true
end

function sql.driver(name)
  return native.driver(name)
end

-- Called by sysbench.__mux_run in the coroutine a loop runs (sb_loop.c).
function sql.__set_coroutine(co)
  mux_cos[co] = true
end

return sql
-- SPDX-License-Identifier: GPL-2.0-or-later
