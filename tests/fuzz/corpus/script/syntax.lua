function event( print("x" end
local s = [==[ unterminated
