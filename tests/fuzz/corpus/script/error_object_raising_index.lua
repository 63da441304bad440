error(setmetatable({}, {__index = function() error("x") end}))
