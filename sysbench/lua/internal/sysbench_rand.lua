-- sysbench.rand: the calling thread's own generator (no sharing, no
-- locks). Each state's generator lives in C and is reached through FFI, so
-- calls compile to direct calls inside LuaJIT traces.
--
-- Ranges follow sysbench 1.0: a and b are converted to uint32_t by the FFI
-- (truncated toward zero, modulo 2^32) and the result counts b - a + 1
-- values up from a modulo 2^32, so uniform(-1, 5) may give 4294967295 and
-- uniform(5, 1) wraps through 2^32 (sb_rand.h, sb_rand_next_wrapped).

local ffi = require("ffi")

ffi.cdef [[
struct sb_rand;
void sb_ffi_rand_bind(struct sb_rand *r);
void sb_ffi_rand_unbind(struct sb_rand *r);
uint32_t sb_ffi_rand_wrapped(struct sb_rand *r, int dist, uint32_t a, uint32_t b);
uint32_t sb_ffi_rand_default(struct sb_rand *r, uint32_t a, uint32_t b);
uint32_t sb_ffi_rand_unique(struct sb_rand *r);
double sb_ffi_rand_double(struct sb_rand *r);
uint64_t sb_ffi_rand_u64(struct sb_rand *r);
size_t sb_ffi_rand_string(struct sb_rand *r, const char *fmt, size_t len, char *buf, size_t cap);
size_t sb_ffi_rand_varstring(struct sb_rand *r, size_t min, size_t max, char *buf, size_t cap);
]]

local C = ffi.C
local state = ffi.cast("struct sb_rand *", sysbench.__rand_state)

-- The exported 1.0 functions (sb_rand_uniform(uint32_t, uint32_t), ...)
-- draw from the calling thread's bound generator: bind this state's, and
-- unbind it when the state closes (the anchor below is collected then).
C.sb_ffi_rand_bind(state)
sysbench.__rand_anchor = ffi.gc(ffi.new("char[1]"), function()
  C.sb_ffi_rand_unbind(state)
end)

-- enum sb_rand_dist (sb_rand.h)
local UNIFORM, GAUSSIAN, SPECIAL, PARETO, ZIPFIAN = 0, 1, 2, 3, 4

local buf_size = 4096
local buf = ffi.new("char[?]", buf_size)

local rand = {}

function rand.uniform_uint64() return C.sb_ffi_rand_u64(state) end
function rand.uniform(a, b) return C.sb_ffi_rand_wrapped(state, UNIFORM, a, b) end
function rand.gaussian(a, b) return C.sb_ffi_rand_wrapped(state, GAUSSIAN, a, b) end
function rand.special(a, b) return C.sb_ffi_rand_wrapped(state, SPECIAL, a, b) end
function rand.pareto(a, b) return C.sb_ffi_rand_wrapped(state, PARETO, a, b) end
function rand.zipfian(a, b) return C.sb_ffi_rand_wrapped(state, ZIPFIAN, a, b) end
function rand.default(a, b) return C.sb_ffi_rand_default(state, a, b) end
function rand.unique() return C.sb_ffi_rand_unique(state) end
function rand.uniform_double() return C.sb_ffi_rand_double(state) end

local function ensure(n)
  if n + 1 > buf_size then
    buf_size = n + 1
    buf = ffi.new("char[?]", buf_size)
  end
end

-- '#' becomes a random digit, '@' a random lowercase letter.
function rand.string(fmt)
  local len = #fmt
  ensure(len)
  local n = C.sb_ffi_rand_string(state, fmt, len, buf, buf_size)
  return ffi.string(buf, n)
end

-- A random string of [0-9a-z] with a length in [min, max].
function rand.varstring(min, max)
  if min > max then min, max = max, min end
  ensure(max)
  local n = C.sb_ffi_rand_varstring(state, min, max, buf, buf_size)
  return ffi.string(buf, n)
end

return rand
-- SPDX-License-Identifier: GPL-2.0-or-later
