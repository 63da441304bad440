-- sysbench.histogram.new/update/print from a script: 1000 values, 900 of
-- them at 1 ms and 100 at 100 ms; the printed counts must add up to 1000.

local h = sysbench.histogram.new(1024, 0.001, 100000)
for _ = 1, 900 do h:update(1.0) end
for _ = 1, 100 do h:update(100.0) end
h:print()
print("printed")
-- SPDX-License-Identifier: GPL-2.0-or-later
