-- sysbench.rand: ranges and formats of every generator (checked in each
-- worker thread) and, through the parallel "draw" command, a printed
-- sequence per thread that lua_tests.sh compares across runs and seeds.

local t = require("tlib")
local print = t.print
local R = sysbench.rand

local function in_range(f, a, b, n, name)
  local lo, hi = math.huge, -math.huge
  local ok = true
  for _ = 1, n do
    local v = f(a, b)
    if v < a or v > b or v ~= math.floor(v) then
      ok = false
      t.ok(false, name, "value " .. tostring(v) .. " outside [" .. a .. ", " .. b .. "]")
      break
    end
    if v < lo then lo = v end
    if v > hi then hi = v end
  end
  t.ok(ok, name .. " in range")
  return lo, hi
end

local function checks()
  local N = 20000
  local lo, hi = in_range(R.uniform, 1, 10, N, "uniform")
  t.eq(lo, 1, "uniform reaches its minimum")
  t.eq(hi, 10, "uniform reaches its maximum")
  -- As in sysbench 1.0, arguments are uint32: -5 is 2^32 - 5, and the
  -- range counts the 11 values from there up through 2^32 - 1 to 5.
  local wok, wrapped, small = true, false, false
  for _ = 1, N do
    local v = R.uniform(-5, 5)
    if not ((v >= 2^32 - 5 and v <= 2^32 - 1) or (v >= 0 and v <= 5)) then
      wok = false
    end
    if v >= 2^32 - 5 then wrapped = true else small = true end
  end
  t.ok(wok and wrapped and small, "uniform(-5, 5) wraps as uint32")
  t.eq(R.uniform(7, 7), 7, "uniform on a single value")
  in_range(R.gaussian, 1, 100, N, "gaussian")
  in_range(R.special, 1, 100, N, "special")
  in_range(R.pareto, 1, 100, N, "pareto")
  in_range(R.zipfian, 1, 100, N, "zipfian")
  in_range(R.default, 1, 100, N, "default")

  -- Gaussian values gather in the middle: the mean of many is near it.
  local sum = 0
  for _ = 1, N do sum = sum + R.gaussian(1, 1001) end
  local mean = sum / N
  t.ok(mean > 480 and mean < 520, "gaussian mean near the middle", mean)

  -- Pareto with the default h piles up at the low end.
  local low = 0
  for _ = 1, N do if R.pareto(1, 100) <= 20 then low = low + 1 end end
  t.ok(low > N * 0.6, "pareto favours low values", low)

  -- uniform_double is in [0, 1).
  local dok = true
  for _ = 1, N do
    local d = R.uniform_double()
    if not (d >= 0 and d < 1) then dok = false end
  end
  t.ok(dok, "uniform_double in [0, 1)")

  -- uniform_uint64 gives 64-bit cdata values that differ.
  local a, b = R.uniform_uint64(), R.uniform_uint64()
  t.ok(type(a) == "cdata" or type(a) == "number", "uniform_uint64 type", type(a))
  t.ok(a ~= b, "uniform_uint64 values differ")
  local big = false
  for _ = 1, 64 do
    if R.uniform_uint64() > 4294967295ULL then big = true end
  end
  t.ok(big, "uniform_uint64 uses more than 32 bits")

  -- unique() never repeats.
  local seen, dup = {}, false
  for _ = 1, 100000 do
    local u = R.unique()
    if seen[u] then dup = true end
    seen[u] = true
    if u < 0 or u > 4294967295 then dup = true end
  end
  t.ok(not dup, "unique() gives 100000 distinct 32-bit values")

  -- string(): '#' digit, '@' lowercase letter, others unchanged.
  local fmt = "###-@@@-x.y #@"
  local sok = true
  for _ = 1, 1000 do
    local s = R.string(fmt)
    if #s ~= #fmt or not s:match("^%d%d%d%-%l%l%l%-x%.y %d%l$") then
      sok = false
      t.ok(false, "string format", s)
      break
    end
  end
  t.ok(sok, "string() keeps the format")
  t.eq(R.string(""), "", "string of an empty format")
  local long = R.string(string.rep("#", 5000))
  t.ok(#long == 5000 and long:match("^%d+$") ~= nil, "string of 5000 digits")

  -- varstring(min, max): length in range, only [0-9a-z].
  local vok, minl, maxl = true, math.huge, 0
  for _ = 1, 2000 do
    local s = R.varstring(3, 8)
    if #s < 3 or #s > 8 or not s:match("^[0-9a-z]+$") then vok = false end
    if #s < minl then minl = #s end
    if #s > maxl then maxl = #s end
  end
  t.ok(vok, "varstring length and alphabet")
  t.ok(minl == 3 and maxl == 8, "varstring covers its length range", minl .. ".." .. maxl)
  t.eq(#R.varstring(5, 5), 5, "varstring with min == max")
end

local draw

function thread_init()
  if os.getenv("SB_RAND_DRAW") then
    -- The same sequence, drawn by the workers of a `run`.
    draw()
    return
  end
  checks()
  t.summary("thread" .. sysbench.tid)
end

function event() return true end

-- The sequence compared between runs: every generator, in one line per
-- draw, prefixed with the thread id so sorted output is comparable.
function draw()
  local tid = sysbench.tid
  for i = 1, 20 do
    print(string.format("t%d %02d %d %d %d %d %d %s %s %s %.10f %s", tid, i,
      R.uniform(1, 1000000), R.gaussian(1, 1000000), R.special(1, 1000000),
      R.pareto(1, 1000000), R.zipfian(1, 1000000), tostring(R.default(1, 100)),
      tostring(R.uniform_uint64()), R.string("@@@###"),
      R.uniform_double(), R.varstring(1, 10)))
  end
  -- unique() is one process-wide sequence (as in sysbench 1.0), so which
  -- thread gets which value depends on timing: ffi_compat_tests.sh checks
  -- it separately.
end

sysbench.cmdline.commands = {
  draw = {draw, sysbench.cmdline.PARALLEL_COMMAND},
}
-- SPDX-License-Identifier: GPL-2.0-or-later
