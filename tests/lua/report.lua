-- Report hooks. SB_REPORT selects what report_intermediate and
-- report_cumulative do with the stat table:
--   fields:  print every documented field as "kind.field=value" lines
--   default/csv/json: hand the stat to sysbench.report_default/_csv/_json
-- Each event does one read and one write on SQLite so the figures are
-- known: reads == writes == events.

local print = require("tlib").print

local which = os.getenv("SB_REPORT") or "fields"
local con

function thread_init()
  con = sysbench.sql.driver():connect()
end

function event()
  con:query("SELECT 1")
  con:query("UPDATE r SET n = n + 1")
end

local common = {"threads_running", "time_interval", "time_total", "latency_pct",
                "events", "reads", "writes", "other", "errors", "reconnects"}
local interval_only = {"queue_length", "concurrency"}
local final_only = {"latency_min", "latency_max", "latency_avg", "latency_sum"}

local function dump(kind, stat, extra, absent)
  for _, fields in ipairs({common, extra}) do
    for _, f in ipairs(fields) do
      print(string.format("%s.%s=%s", kind, f, type(stat[f]) == "number" and
        string.format("%.6f", stat[f]) or ("BAD " .. type(stat[f]))))
    end
  end
  for _, f in ipairs(absent) do
    if stat[f] ~= nil then print(string.format("%s.%s=UNEXPECTED", kind, f)) end
  end
end

local reporters = {
  default = sysbench.report_default,
  csv = sysbench.report_csv,
  json = sysbench.report_json,
}

-- The hook for KIND ("interval" or "final"): EXTRA are the fields only
-- that kind has, ABSENT those it must not have.
local function hook(kind, extra, absent)
  if which ~= "fields" then
    return reporters[which]
  end
  return function(stat) dump(kind, stat, extra, absent) end
end

sysbench.hooks.report_intermediate = hook("interval", interval_only, final_only)
sysbench.hooks.report_cumulative = hook("final", final_only, interval_only)

sysbench.cmdline.commands = {
  mktable = {function()
    local c = sysbench.sql.driver():connect()
    c:query("DROP TABLE IF EXISTS r")
    c:query("CREATE TABLE r (n INTEGER)")
    c:query("INSERT INTO r VALUES (0)")
    c:disconnect()
  end},
}
-- SPDX-License-Identifier: GPL-2.0-or-later
