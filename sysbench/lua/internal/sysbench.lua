-- The `sysbench` table scripts see (shared/LUA_API.md). The C side has
-- already created it with the per-state values (tid, opt, cmdline.argv,
-- reporters); this module adds the constants, the sub-modules and the
-- built-in event loop.

local ffi = require("ffi")

-- sysbench 1.0's counter enum and event protocol. Real scripts declare
-- sb_counter_inc and the event functions themselves; LuaJIT accepts an
-- identical redeclaration, so these must stay exactly as sysbench 1.0
-- spells them.
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

bool sb_more_events(int thread_id);
void sb_event_start(int thread_id);
void sb_event_stop(int thread_id);
]]

local sysbench = sysbench

sysbench.version = "1.1.0"
sysbench.version_string = "sysbench 1.1.0"
sysbench.error = { NONE = 0, RESTART_EVENT = 1 }
sysbench.hooks = sysbench.hooks or {}

sysbench.cmdline = require("sysbench.cmdline")
sysbench.rand = require("sysbench.rand")
sysbench.sql = require("sysbench.sql")
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
function sysbench.__run_events(thread_id)
  local event = _G.event
  local hooks = sysbench.hooks
  if type(event) ~= "function" then
    error("the script does not define event()", 0)
  end
  while C.sb_more_events(thread_id) do
    C.sb_event_start(thread_id)
    local ok, ret
    repeat
      ok, ret = pcall(event, thread_id)
      if not ok then
        if type(ret) == "table" and ret.errcode == RESTART_EVENT then
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

-- Declared after the enum exists. sb_ffi_stop_requested is this
-- project's own (sb_worker.c).
ffi.cdef [[
void sb_counter_inc(int thread_id, sb_counter_type type);
bool sb_ffi_stop_requested(void);
]]

return sysbench
