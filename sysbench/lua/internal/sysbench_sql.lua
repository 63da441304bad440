-- sysbench.sql: the native driver/connection objects (sb_lua_sql.c) plus
-- the helpers written in Lua: query_row and bulk inserts.

local ffi = require("ffi")
local native = require("sysbench.sql.native")

local sql = {}

sql.type = {
  NONE = 0, TINYINT = 1, SMALLINT = 2, INT = 3, BIGINT = 4, FLOAT = 5,
  DOUBLE = 6, TIME = 7, DATE = 8, DATETIME = 9, TIMESTAMP = 10,
  CHAR = 11, VARCHAR = 12,
}
sql.error = { NONE = 0, IGNORABLE = 1, FATAL = 2 }

-- Multi-row inserts are sent when the text passes this size; small enough
-- for MySQL's default max_allowed_packet, large enough to amortise the
-- round trip.
local BULK_LIMIT = 256 * 1024

local registry = debug.getregistry()
local conn_methods = registry["sysbench.sql.connection"].__methods

-- What query() and execute() return for statements without rows. In
-- sysbench 1.0 that is a NULL sql_result pointer: true in a condition, yet
-- equal to nil, and printed as <sql_result>. One NULL pointer of a type of
-- our own serves every call, so nothing is allocated per statement.
ffi.cdef [[ struct sb_lua_sql_no_rows; ]]
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
native.set_empty_result(ffi.cast("struct sb_lua_sql_no_rows *", nil))

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

-- stmt.connection, after the methods so that method calls stay cheap.
do
  local mt = registry["sysbench.sql.statement"]
  local methods = mt.__methods
  local stmt_connection = native.stmt_connection
  mt.__index = function(self, k)
    local m = methods[k]
    if m ~= nil or k ~= "connection" then return m end
    return stmt_connection(self)
  end
end

-- sysbench 1.0's parameter fields: the bind type it uses (integers bind
-- as BIGINT, FLOAT as DOUBLE, CHAR as VARCHAR) and pointers to the value,
-- its length and the null flag.
do
  local mt = registry["sysbench.sql.param"]
  local methods = mt.__methods
  local param_fields = native.param_fields
  local T = sql.type
  local function int_type(t) return t >= T.TINYINT and t <= T.BIGINT end
  local fields = {
    type = function(t)
      if int_type(t) then return T.BIGINT end
      if t == T.FLOAT or t == T.DOUBLE then return T.DOUBLE end
      if t == T.CHAR or t == T.VARCHAR then return T.VARCHAR end
      return t
    end,
    buffer = function(t, value)
      if int_type(t) then return ffi.cast("int64_t *", value) end
      if t == T.FLOAT or t == T.DOUBLE then return ffi.cast("double *", value) end
      return ffi.cast("char *", value)
    end,
    max_len = function(t, _, _, _, cap)
      if int_type(t) or t == T.FLOAT or t == T.DOUBLE then return 8 end
      return cap
    end,
    data_len = function(_, _, len) return ffi.cast("unsigned long *", len) end,
    is_null = function(_, _, _, is_null) return ffi.cast("char *", is_null) end,
  }
  mt.__index = function(self, k)
    local m = methods[k]
    if m ~= nil then return m end
    local f = fields[k]
    if f ~= nil then return f(param_fields(self)) end
  end
end

-- The first row's values, unpacked; nothing when there is no row.
function conn_methods.query_row(self, query)
  local rs = self:query(query)
  if rs == nil then return end
  local row = rs:fetch_row()
  rs:free()
  if row == nil then return end
  return unpack(row, 1, rs.nfields)
end

-- The bulk insert methods return true, as sysbench 1.0's do.
function conn_methods.bulk_insert_init(self, query)
  self._bulk_prefix = query
  self._bulk_parts = {}
  self._bulk_size = 0
  return true
end

local function bulk_flush(self)
  local parts = self._bulk_parts
  if parts and #parts > 0 then
    self:query(self._bulk_prefix .. table.concat(parts, ","))
    self._bulk_parts = {}
    self._bulk_size = 0
  end
end

function conn_methods.bulk_insert_next(self, values)
  if self._bulk_prefix == nil then
    error("bulk_insert_next() called before bulk_insert_init()", 2)
  end
  local parts = self._bulk_parts
  parts[#parts + 1] = values
  self._bulk_size = self._bulk_size + #values + 1
  if self._bulk_size >= BULK_LIMIT then
    bulk_flush(self)
  end
  return true
end

function conn_methods.bulk_insert_done(self)
  bulk_flush(self)
  self._bulk_prefix = nil
  self._bulk_parts = nil
  return true
end

function sql.driver(name)
  return native.driver(name)
end

return sql
