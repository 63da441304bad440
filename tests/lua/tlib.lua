-- Assertion helpers for the Lua scenario tests. Each check that fails
-- prints one "not ok: NAME: detail" line; t.summary(tag) prints
-- "checks_TAG=N" so the shell side can insist that every check ran, and
-- lua_tests.sh fails a case on any "not ok" line.

local t = { count = 0 }

-- print for test scripts: worker threads share stdout, and one write per
-- line keeps their lines whole (print() writes its text and the newline
-- separately). Scripts do `local print = require("tlib").print`.
function t.print(s) io.write(tostring(s) .. "\n") end
local print = t.print

function t.ok(cond, name, detail)
  t.count = t.count + 1
  if not cond then
    print("not ok: " .. name .. (detail and (": " .. tostring(detail)) or ""))
  end
  return cond
end

function t.eq(actual, expected, name)
  return t.ok(actual == expected, name,
    string.format("got %s (%s), expected %s (%s)", tostring(actual),
      type(actual), tostring(expected), type(expected)))
end

-- Checks that fn raises an error whose text contains pattern (plain).
function t.raises(fn, pattern, name)
  local ok, err = pcall(fn)
  return t.ok(not ok and string.find(tostring(err), pattern, 1, true) ~= nil,
    name, ok and "no error raised" or tostring(err))
end

function t.summary(tag)
  print(string.format("checks_%s=%d", tag, t.count))
end

return t
-- SPDX-License-Identifier: GPL-2.0-or-later
