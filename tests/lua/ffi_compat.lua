-- sysbench 1.0's FFI surface as real scripts use it: they declare 1.0's
-- prototypes themselves (LuaJIT accepts the repeated declarations) and call
-- the exported functions through ffi.C, in worker threads and in the main
-- state. Run by ffi_compat_tests.sh: "run" checks every worker thread,
-- "check" the main state, "draw" prints per-thread sequences to compare.

local t = require("tlib")
local print = t.print
local ffi = require("ffi")
local C = ffi.C
local R = sysbench.rand

-- Declarations copied by many 1.0 scripts: identical to what is already
-- declared, so LuaJIT accepts them.
ffi.cdef [[
void sb_counter_inc(int, sb_counter_type);
uint32_t sb_rand_uniform(uint32_t, uint32_t);
uint32_t sb_rand_default(uint32_t, uint32_t);
uint32_t sb_rand_gaussian(uint32_t, uint32_t);
uint32_t sb_rand_special(uint32_t, uint32_t);
uint32_t sb_rand_pareto(uint32_t, uint32_t);
uint32_t sb_rand_unique(void);
uint64_t sb_rand_uniform_uint64(void);
double sb_rand_uniform_double(void);
void sb_rand_str(const char *, char *);
typedef struct histogram sb_histogram_t;
sb_histogram_t *sb_histogram_new(size_t size, double range_min, double range_max);
void sb_histogram_delete(sb_histogram_t *h);
void sb_histogram_update(sb_histogram_t *h, double value);
void sb_histogram_print(sb_histogram_t *h);
typedef struct { uint32_t len; const char *ptr; } sql_value;
]]

local TWO32 = 2^32

-- 1.0's rule, restated: an argument becomes uint32 (truncated toward
-- zero, modulo 2^32); the result is a + k modulo 2^32 with k < n,
-- n = b - a + 1 modulo 2^32 (n = 0 always gives a). special has
-- k <= b - a instead.
local function u32(x)
  x = x < 0 and math.ceil(x) or math.floor(x)
  return x % TWO32
end

local function follows_rule(v, a, b, special)
  local ua, ub = u32(a), u32(b)
  if v ~= math.floor(v) or v < 0 or v >= TWO32 then return false end
  local k = (v - ua) % TWO32
  if special then return k <= (ub - ua) % TWO32 end
  local n = (ub - ua + 1) % TWO32
  if n == 0 then return v == ua end
  return k < n
end

local ARGS = {
  {1, 10}, {-1, 5}, {5, 1}, {1.7, 3.2}, {2^32 + 1, 2^32 + 4}, {-3.7, -1},
  {0, -1}, {3, 3}, {0, 2^32 - 2}, {-5, 5},
}

local FUNCS = {
  {"C.sb_rand_uniform", function(a, b) return C.sb_rand_uniform(a, b) end},
  {"C.sb_rand_gaussian", function(a, b) return C.sb_rand_gaussian(a, b) end},
  {"C.sb_rand_pareto", function(a, b) return C.sb_rand_pareto(a, b) end},
  {"C.sb_rand_default", function(a, b) return C.sb_rand_default(a, b) end},
  {"C.sb_rand_special", function(a, b) return C.sb_rand_special(a, b) end, true},
  {"rand.uniform", R.uniform}, {"rand.gaussian", R.gaussian},
  {"rand.pareto", R.pareto}, {"rand.default", R.default},
  {"rand.zipfian", R.zipfian}, {"rand.special", R.special, true},
}

local function check_wrap()
  for _, f in ipairs(FUNCS) do
    for _, ab in ipairs(ARGS) do
      local ok, bad = true, nil
      for _ = 1, 300 do
        local v = f[2](ab[1], ab[2])
        -- default may be special (--rand-type) and so use its rule
        local special = f[3] or (f[1]:find("default") and
          sysbench.opt and sysbench.opt.rand_type == "special")
        if not follows_rule(v, ab[1], ab[2], special) then
          ok, bad = false, v
          break
        end
      end
      t.ok(ok, string.format("%s(%s, %s) wraps as uint32", f[1],
        tostring(ab[1]), tostring(ab[2])), bad)
    end
  end
  -- Both ends of small ranges are reached, also across the wrap.
  local seen = {}
  for _ = 1, 2000 do seen[C.sb_rand_uniform(-1, 5)] = true end
  t.ok(seen[TWO32 - 1] and seen[0] and seen[5], "uniform(-1, 5) reaches 2^32-1, 0 and 5")
  seen = {}
  for _ = 1, 2000 do seen[R.uniform(1.7, 3.2)] = true end
  t.ok(seen[1] and seen[3], "uniform(1.7, 3.2) reaches 1 and 3")
  local big = false
  for _ = 1, 100 do if C.sb_rand_uniform(5, 1) > 1000 then big = true end end
  t.ok(big, "uniform(5, 1) wraps through 2^32")
  t.eq(C.sb_rand_uniform(0, -1), 0, "uniform over all 2^32 values gives a")
end

-- Special: 75% of draws on the 1% of values in the middle of the range.
local function check_special()
  local n, mid, low = 20000, 0, 0
  for _ = 1, n do
    local v = R.special(1, 100000)
    if v >= 49500 and v <= 50499 then mid = mid + 1 end
    if v <= 1000 then low = low + 1 end
  end
  t.ok(mid > n * 0.72 and mid < n * 0.80, "special: hot values in the middle", mid)
  t.ok(low < n * 0.01, "special: nothing hot at the start", low)
  mid = 0
  for _ = 1, n do
    local v = C.sb_rand_special(1, 100000)
    if v >= 49500 and v <= 50499 then mid = mid + 1 end
  end
  t.ok(mid > n * 0.72 and mid < n * 0.80, "C.sb_rand_special: hot values in the middle", mid)
end

local function check_others()
  local dok = true
  for _ = 1, 1000 do
    local d = C.sb_rand_uniform_double()
    if not (d >= 0 and d < 1) then dok = false end
  end
  t.ok(dok, "sb_rand_uniform_double in [0, 1)")
  local x, y = C.sb_rand_uniform_uint64(), C.sb_rand_uniform_uint64()
  t.ok(ffi.istype("uint64_t", x) and x ~= y, "sb_rand_uniform_uint64 gives uint64_t values")
  local seen, dup = {}, false
  for _ = 1, 10000 do
    local u = C.sb_rand_unique()
    if seen[u] then dup = true end
    seen[u] = true
  end
  t.ok(not dup, "sb_rand_unique repeats nothing")
  -- sb_rand_str writes #fmt bytes and no terminator, as 1.0's callers
  -- size the buffer exactly.
  local fmt = "##-@@ x"
  local buf = ffi.new("char[?]", #fmt + 1)
  buf[#fmt] = 90 -- 'Z'
  C.sb_rand_str(fmt, buf)
  local s = ffi.string(buf, #fmt)
  t.ok(s:match("^%d%d%-%l%l x$") ~= nil, "sb_rand_str follows its format", s)
  t.eq(buf[#fmt], 90, "sb_rand_str writes no terminator")
  t.eq(#R.string(fmt), #fmt, "sysbench.rand.string length")
end

local function check_types()
  local bad = pcall(ffi.cdef, "typedef enum { SB_CNT_OTHER } my_cnt;")
  t.ok(not bad, "redefining an SB_CNT_* constant is refused, as in 1.0")
  for _, name in ipairs({"sb_counter_type", "sql_driver", "sql_connection",
      "sql_statement", "sql_result", "sql_row", "sql_value", "sql_bind",
      "sb_arg_t", "sb_histogram_t", "sql_error_t", "sql_bind_type_t",
      "sb_arg_type_t"}) do
    t.ok(pcall(ffi.typeof, name), "type " .. name .. " is declared")
  end
  t.eq(ffi.sizeof("sql_value"), 16, "sizeof sql_value")
  t.eq(ffi.sizeof("sql_bind"), 40, "sizeof sql_bind")
  t.eq(ffi.sizeof("sql_result"), 48, "sizeof sql_result")
  t.eq(ffi.sizeof("sb_arg_t"), 40, "sizeof sb_arg_t")
  t.eq(ffi.offsetof("sql_connection", "sql_errno"), 4, "sql_connection.sql_errno")
  t.eq(tonumber(C.SB_CNT_TRX), 3, "SB_CNT_TRX")
  t.eq(tonumber(C.SB_CNT_RECONNECT), 5, "SB_CNT_RECONNECT")
  t.eq(tonumber(C.SQL_TYPE_VARCHAR), 12, "SQL_TYPE_VARCHAR")
  t.eq(tonumber(C.SQL_TYPE_TIMESTAMP), 10, "SQL_TYPE_TIMESTAMP")
  t.eq(tonumber(C.DB_ERROR_FATAL), 2, "DB_ERROR_FATAL")
  t.eq(tonumber(C.SB_ARG_TYPE_FILE), 7, "SB_ARG_TYPE_FILE")
  t.eq(tonumber(C.SB_ARG_TYPE_MAX), 8, "SB_ARG_TYPE_MAX")
end

local function check_histogram()
  local h = sysbench.histogram.new(10, 1, 100)
  t.ok(ffi.istype("sb_histogram_t *", h), "histogram.new gives an sb_histogram_t *")
  for _ = 1, 5 do h:update(0.01) end   -- below min: first bucket
  for _ = 1, 3 do h:update(5000) end   -- above max: last bucket
  C.sb_histogram_update(h, 10)         -- the C entry point on the same object
  t.ok(math.abs(h:percentile(50) - 1) < 1e-9, "values below min count at min", h:percentile(50))
  t.ok(math.abs(h:percentile(100) - 100) < 1e-9, "values above max count at max", h:percentile(100))
  local h2 = ffi.gc(C.sb_histogram_new(4, 1, 1000), C.sb_histogram_delete)
  t.ok(h2 ~= nil, "sb_histogram_new from a script")
  h2:update(10)
  t.ok(math.abs(h2:percentile(50) - 10) < 1e-9, "4 buckets over [1, 1000]: 10 is a bucket value")
  t.raises(function() sysbench.histogram.new(0, 1, 10) end, "size", "size 0 is refused")
end

local function checks(tag)
  check_types()
  check_wrap()
  check_special()
  check_others()
  check_histogram()
  t.summary(tag)
end

function thread_init()
  if os.getenv("SB_FFI_DRAW") then return end
  checks("thread" .. sysbench.tid)
end

function event(tid)
  C.sb_counter_inc(tid, C.SB_CNT_READ)
  local v = C.sb_rand_uniform(1, 1000)
  if v < 1 or v > 1000 then error("sb_rand_uniform out of range: " .. v) end
end

-- The sequence of the calling thread's generator through 1.0's exported
-- functions, interleaved with sysbench.rand (the same generator).
local function draw()
  local tid = sysbench.tid or 0
  for i = 1, 10 do
    print(string.format("t%s %02d %d %d %d %d %s %.10f", tostring(tid), i,
      C.sb_rand_uniform(1, 1000000), R.uniform(1, 1000000),
      C.sb_rand_special(1, 1000000), C.sb_rand_default(1, 1000000),
      tostring(C.sb_rand_uniform_uint64()), C.sb_rand_uniform_double()))
  end
end

-- unique(): one process-wide sequence, interleaved from every thread.
local function uniq()
  local tid = sysbench.tid or 0
  for _ = 1, 5000 do
    print(string.format("u %d %d", C.sb_rand_unique(), R.unique()))
  end
  io.write("uniq_done_" .. tostring(tid) .. "\n")
end

local function main_checks()
  checks("main")
  local h = sysbench.histogram.new(10, 1, 100)
  for _ = 1, 40 do h:update(1) end
  for _ = 1, 20 do h:update(1000) end
  h:update(3)
  h:print()
  io.write("printed\n")
end

sysbench.cmdline.commands = {
  draw = {draw, sysbench.cmdline.PARALLEL_COMMAND},
  maindraw = {draw},
  uniq = {uniq, sysbench.cmdline.PARALLEL_COMMAND},
  check = {main_checks},
}
-- SPDX-License-Identifier: GPL-2.0-or-later
