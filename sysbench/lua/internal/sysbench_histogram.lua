-- sysbench.histogram: latency histograms for scripts, on the same C
-- histogram the core uses (values in milliseconds, 1% relative error).

local ffi = require("ffi")

ffi.cdef [[
struct sb_hist;
struct sb_hist *sb_ffi_hist_new(void);
void sb_ffi_hist_free(struct sb_hist *h);
void sb_ffi_hist_update(struct sb_hist *h, double ms);
void sb_ffi_hist_print(struct sb_hist *h);
double sb_ffi_hist_percentile(struct sb_hist *h, double pct);
]]

local C = ffi.C
local histogram = {}
local methods = {}
methods.__index = methods

-- size, min and max describe sysbench 1.0's fixed layout; ours covers
-- 1 us to an hour at 1% precision whatever they are, so they are accepted
-- and ignored.
function histogram.new(size, min, max)
  local h = C.sb_ffi_hist_new()
  if h == nil then error("histogram.new: out of memory", 2) end
  return setmetatable({ h = ffi.gc(h, C.sb_ffi_hist_free) }, methods)
end

function methods:update(value) C.sb_ffi_hist_update(self.h, value) end
function methods:print() C.sb_ffi_hist_print(self.h) end
function methods:percentile(pct) return C.sb_ffi_hist_percentile(self.h, pct) end

return histogram
