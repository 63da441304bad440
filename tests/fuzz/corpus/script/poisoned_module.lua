sysbench = setmetatable({}, {__index = function() error("boom") end})
function event() end
