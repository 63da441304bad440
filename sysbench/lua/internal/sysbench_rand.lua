-- sysbench.rand: the calling thread's own generator (no sharing, no
-- locks). Each state's generator lives in C and is reached through FFI, so
-- calls compile to direct calls inside LuaJIT traces.

local ffi = require("ffi")

ffi.cdef [[
struct sb_rand;
double sb_ffi_rand_uniform(struct sb_rand *r, double a, double b);
double sb_ffi_rand_gaussian(struct sb_rand *r, double a, double b);
double sb_ffi_rand_special(struct sb_rand *r, double a, double b);
double sb_ffi_rand_pareto(struct sb_rand *r, double a, double b);
double sb_ffi_rand_zipfian(struct sb_rand *r, double a, double b);
double sb_ffi_rand_default(struct sb_rand *r, double a, double b);
double sb_ffi_rand_unique(struct sb_rand *r);
double sb_ffi_rand_double(struct sb_rand *r);
uint64_t sb_ffi_rand_u64(struct sb_rand *r);
size_t sb_ffi_rand_string(struct sb_rand *r, const char *fmt, size_t len, char *buf, size_t cap);
size_t sb_ffi_rand_varstring(struct sb_rand *r, size_t min, size_t max, char *buf, size_t cap);
]]

local C = ffi.C
local state = ffi.cast("struct sb_rand *", sysbench.__rand_state)
local buf_size = 4096
local buf = ffi.new("char[?]", buf_size)

local rand = {}

function rand.uniform_uint64() return C.sb_ffi_rand_u64(state) end
function rand.uniform(a, b) return C.sb_ffi_rand_uniform(state, a, b) end
function rand.gaussian(a, b) return C.sb_ffi_rand_gaussian(state, a, b) end
function rand.special(a, b) return C.sb_ffi_rand_special(state, a, b) end
function rand.pareto(a, b) return C.sb_ffi_rand_pareto(state, a, b) end
function rand.zipfian(a, b) return C.sb_ffi_rand_zipfian(state, a, b) end
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
