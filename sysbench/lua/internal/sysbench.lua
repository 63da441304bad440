-- The `sysbench` table scripts see (doc/lua-api.md). The C side has
-- already created it with the per-state values (tid, opt, cmdline.argv,
-- reporters); this module adds the constants, the sub-modules and the
-- built-in event loop.

local ffi = require("ffi")

-- What sysbench 1.0 has declared before a script runs: its enums (whose
-- constants a script may not redeclare, LuaJIT refuses that in 1.0 too),
-- its SQL, option and histogram types (a script may repeat a typedef) and
-- the functions this binary exports under 1.0's names and signatures
-- (sb_ffi.c). These must stay exactly as 1.0 spells them, and no other
-- module may ffi.cdef these names differently. sb_histogram_t is opaque.
ffi.cdef [[
typedef enum
{
  SB_CNT_OTHER,
  SB_CNT_READ,
  SB_CNT_WRITE,
  SB_CNT_TRX,
  SB_CNT_ERROR,
  SB_CNT_RECONNECT,
  SB_CNT_MAX
} sb_counter_type;

typedef enum
{
  DB_ERROR_NONE,
  DB_ERROR_IGNORABLE,
  DB_ERROR_FATAL
} sql_error_t;

typedef enum
{
  SQL_TYPE_NONE,
  SQL_TYPE_TINYINT,
  SQL_TYPE_SMALLINT,
  SQL_TYPE_INT,
  SQL_TYPE_BIGINT,
  SQL_TYPE_FLOAT,
  SQL_TYPE_DOUBLE,
  SQL_TYPE_TIME,
  SQL_TYPE_DATE,
  SQL_TYPE_DATETIME,
  SQL_TYPE_TIMESTAMP,
  SQL_TYPE_CHAR,
  SQL_TYPE_VARCHAR
} sql_bind_type_t;

typedef enum
{
  SB_ARG_TYPE_NULL,
  SB_ARG_TYPE_BOOL,
  SB_ARG_TYPE_INT,
  SB_ARG_TYPE_SIZE,
  SB_ARG_TYPE_DOUBLE,
  SB_ARG_TYPE_STRING,
  SB_ARG_TYPE_LIST,
  SB_ARG_TYPE_FILE,
  SB_ARG_TYPE_MAX
} sb_arg_type_t;

typedef struct
{
  const char *sname;
  const char *lname;
  const char opaque[?];
} sql_driver;

typedef struct
{
  uint32_t len;
  const char *ptr;
} sql_value;

typedef struct
{
  void *ptr;
  sql_value *values;
} sql_row;

typedef struct
{
  sql_error_t error;
  int sql_errno;
  const char *sql_state;
  const char *sql_errmsg;
  sql_driver *driver;
  const char opaque[?];
} sql_connection;

typedef struct
{
  sql_connection *connection;
  const char opaque[?];
} sql_statement;

typedef struct
{
  sb_counter_type counter;
  uint32_t nrows;
  uint32_t nfields;
  sql_statement *statement;
  void *ptr;
  sql_row row;
} sql_result;

typedef struct
{
  sql_bind_type_t type;
  void *buffer;
  unsigned long *data_len;
  unsigned long max_len;
  char *is_null;
} sql_bind;

typedef bool sb_opt_validate_t(const char *, const char *);

typedef struct
{
  const char *name;
  const char *desc;
  const char *value;
  sb_arg_type_t type;
  sb_opt_validate_t *validate;
} sb_arg_t;

typedef struct histogram sb_histogram_t;

sb_histogram_t *sb_histogram_new(size_t size, double range_min, double range_max);
void sb_histogram_delete(sb_histogram_t *h);
void sb_histogram_update(sb_histogram_t *h, double value);
void sb_histogram_print(sb_histogram_t *h);

uint64_t sb_rand_uniform_uint64(void);
uint32_t sb_rand_default(uint32_t, uint32_t);
uint32_t sb_rand_uniform(uint32_t, uint32_t);
uint32_t sb_rand_gaussian(uint32_t, uint32_t);
uint32_t sb_rand_special(uint32_t, uint32_t);
uint32_t sb_rand_pareto(uint32_t, uint32_t);
uint32_t sb_rand_unique(void);
void sb_rand_str(const char *, char *);
double sb_rand_uniform_double(void);

void sb_event_start(int thread_id);
void sb_event_stop(int thread_id);
bool sb_more_events(int thread_id);
void sb_counter_inc(int thread_id, sb_counter_type type);
]]

local sysbench = sysbench

sysbench.version = "1.1.0"
sysbench.version_string = "sysbench 1.1.0"
sysbench.error = { NONE = 0, RESTART_EVENT = 1 }
sysbench.hooks = sysbench.hooks or {}

ffi.cdef [[
void sb_ffi_progress_add(double n);
void sb_ffi_progress_expect(double n);
void sb_ffi_progress_phase(const char *name);
]]

-- Progress of a long command (doc/lua-api.md): the rows it expects and has
-- done, and the phase this thread is in; shown on standard error and in
-- the command's "done in" line (core/sb_progress.h). Outside a command
-- (in "run") the calls do nothing.
sysbench.progress = {
  expect = function(n) ffi.C.sb_ffi_progress_expect(tonumber(n) or 0) end,
  add = function(n) ffi.C.sb_ffi_progress_add(tonumber(n) or 0) end,
  phase = function(name)
    if name ~= nil then name = tostring(name) end
    ffi.C.sb_ffi_progress_phase(name)
  end,
}

sysbench.cmdline = require("sysbench.cmdline")
sysbench.rand = require("sysbench.rand")
-- sysbench.sql is loaded on first use (a script that never touches SQL,
-- such as a CPU-only event, does not pay for it: about 36 KB of every
-- worker's Lua state); every other key of the table is as set here.
setmetatable(sysbench, { __index = function(t, k)
  if k ~= "sql" then return nil end
  local m = require("sysbench.sql")
  rawset(t, k, m)
  return m
end })
sysbench.histogram = require("sysbench.histogram")

local C = ffi.C
local RESTART_EVENT = sysbench.error.RESTART_EVENT

-- The default thread loop, used when the script has no thread_run().
-- It is plain Lua over FFI calls so LuaJIT can compile it; an event that
-- raises a RESTART_EVENT error (an ignorable SQL error or a reconnect,
-- counted once by the SQL layer where it happened; a script that raises
-- one itself counts it with sb_counter_inc if it wants, as in sysbench
-- 1.0) runs again after the before_restart_event hook; any other error
-- ends the run. A retry first checks for a stop, so an event that always
-- restarts cannot outlive --time or a signal; the unfinished event is
-- then not counted.
local function run_events(thread_id, more_events, G)
  -- G: the connection's globals where connections share the state
  -- (sysbench.__conn_env), else this state's.
  G = G or _G
  local event = G.event
  local sb = G.sysbench
  local hooks = type(sb) == "table" and sb.hooks or sysbench.hooks
  if type(event) ~= "function" then
    error("the script does not define event()", 0)
  end
  while more_events(thread_id) do
    C.sb_event_start(thread_id)
    local ok, ret
    repeat
      ok, ret = pcall(event, thread_id)
      if not ok then
        if type(ret) == "table" and ret.errcode == RESTART_EVENT then
          C.sb_ffi_event_restarted(thread_id)
          local hook = hooks.before_restart_event
          if hook then
            hook(ret)
          end
          if C.sb_ffi_stop_requested() then
            return
          end
        else
          error(ret, 0)
        end
      end
    until ok
    C.sb_event_stop(thread_id)
    if ret then
      return
    end
  end
end

function sysbench.__run_events(thread_id)
  return run_events(thread_id, C.sb_more_events)
end

-- Declared after the enum exists. The sb_ffi_* functions are this
-- project's own (sb_worker.c, sb_ffi.c).
ffi.cdef [[
void sb_counter_inc(int thread_id, sb_counter_type type);
bool sb_ffi_stop_requested(void);
void sb_ffi_event_restarted(int thread_id);
int sb_ffi_mux_next(int thread_id);
int sb_ffi_mux_woken(int thread_id);
]]

-- A multiplexed connection (sb_loop.c) runs the same loop in a coroutine;
-- where a thread of its own would sleep until the next scheduled start,
-- it yields (enum sb_mux_next: 0 stop, 1 go, 2 wait, 3 yield once, go).
local co_yield = coroutine.yield

local function mux_more_events(thread_id)
  local m = C.sb_ffi_mux_next(thread_id)
  if m == 3 then
    co_yield()
    return true
  end
  while m == 2 do
    co_yield()
    m = C.sb_ffi_mux_woken(thread_id)
  end
  return m == 1
end

function sysbench.__mux_run(thread_id, G)
  sysbench.sql.__set_coroutine(coroutine.running())
  return run_events(thread_id, mux_more_events, G)
end

-- sysbench 1.0's legacy globals (sb_rand, db_query, thread_run, ...).
require("sysbench.legacy")

return sysbench
-- SPDX-License-Identifier: GPL-2.0-or-later
