-- sysbench.histogram: sysbench 1.0's bounded histograms for scripts.
-- new(size, min, max) gives `size` buckets growing geometrically from min
-- to max; values outside [min, max] count in the first or last bucket.
-- The object is an sb_histogram_t pointer as in 1.0, so scripts may also
-- pass it to ffi.C.sb_histogram_update/print themselves. sb_histogram_t
-- and the sb_histogram_* functions are declared in sysbench.lua.

local ffi = require("ffi")

ffi.cdef [[
double sb_ffi_hist_percentile(sb_histogram_t *h, double pct);
]]

local C = ffi.C
local histogram = {}
local methods = {}

function methods:update(value) C.sb_histogram_update(self, value) end
function methods:print() C.sb_histogram_print(self) end
-- Not in 1.0: the bucket value at the pct-th percentile (0 when empty).
function methods:percentile(pct) return C.sb_ffi_hist_percentile(self, pct) end

ffi.metatype("sb_histogram_t", {
  __index = methods,
  __tostring = function() return "<sb_histogram>" end,
})

-- 1.0 requires all three arguments; when all are left out this gives the
-- layout of 1.0's latency histogram (1024 buckets, 0.001 to 100000).
function histogram.new(size, min, max)
  if size == nil and min == nil and max == nil then
    size, min, max = 1024, 0.001, 100000
  end
  if type(size) ~= "number" or size < 1 or size > 2^31 then
    error("sysbench.histogram.new: size must be a number of buckets >= 1", 2)
  end
  local h = C.sb_histogram_new(size, min, max)
  if h == nil then error("sysbench.histogram.new: out of memory", 2) end
  return ffi.gc(h, C.sb_histogram_delete)
end

return histogram
-- SPDX-License-Identifier: GPL-2.0-or-later
