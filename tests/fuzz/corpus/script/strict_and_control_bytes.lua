setmetatable(_G, {__index = function(_, k) error("strict: " .. tostring(k)) end})
error({sql_errmsg = "a\0b\27[2J\r", query = string.rep("q", 5000), sql_state = "\1\2"})
