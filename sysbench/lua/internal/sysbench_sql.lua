-- sysbench.sql: the native driver/connection objects (sb_lua_sql.c) plus
-- the helpers written in Lua: query_row and bulk inserts.

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

local conn_methods = debug.getregistry()["sysbench.sql.connection"].__methods

-- The first row's values, unpacked; nothing when there is no row.
function conn_methods.query_row(self, query)
  local rs = self:query(query)
  if rs == nil then return end
  local row = rs:fetch_row()
  rs:free()
  if row == nil then return end
  return unpack(row, 1, rs.nfields)
end

function conn_methods.bulk_insert_init(self, query)
  self._bulk_prefix = query
  self._bulk_parts = {}
  self._bulk_size = 0
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
end

function conn_methods.bulk_insert_done(self)
  bulk_flush(self)
  self._bulk_prefix = nil
  self._bulk_parts = nil
end

function sql.driver(name)
  return native.driver(name)
end

return sql
