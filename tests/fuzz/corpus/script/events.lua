sysbench.cmdline.options = { rows = {"rows per table", 10}, mode = {"mode", "a"} }
function thread_init() x = 0 end
function event() x = x + sysbench.rand.uniform(1, 100) end
function report_intermediate(s) print(s.time) end
local t = {} for i = 1, 10 do t[i] = string.rep("x", i) end
