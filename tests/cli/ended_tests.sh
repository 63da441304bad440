#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Result files say how the run ended (SQLite only): the JSON document's
# "ended" member and the CSV file's last line, for a completed run, a run
# interrupted by SIGINT/SIGTERM, a run failed by a script error and one
# ended by --forced-shutdown.
#
# Run by `make check`, or by hand: bash tests/cli/ended_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# json_end FILE: "status signal error" of the ended member, one line.
json_end() {
    python3 -c 'import json,sys
e = json.load(open(sys.argv[1]))["ended"]
print(e["status"], e["signal"], e["error"])' "$1"
}

need_tool python3 "to read the JSON result files"

tcase "a run that completes is marked completed"
write_ev
sb ev.lua run --time=1 --report-interval=1 --json=r.json --csv=r.csv
assert_exit 0
assert_eq "$(json_end r.json)" "completed None None" "ended"
assert_eq "$(csv_end r.csv all)" "completed|met|0" "CSV end row"
assert_eq "$(head -c 6 r.csv)" "point," "CSV header"

for sig in INT:2 TERM:15; do
    tcase "a run stopped by SIG${sig%%:*} is marked interrupted by signal ${sig#*:}"
    write_ev
    sb_bg ev.lua run --time=30 --report-interval=1 --json=r.json --csv=r.csv
    wait_for_report out || { kill -KILL "$SB_PID"; sb_wait; continue; }
    kill -"${sig%%:*}" "$SB_PID"
    sb_wait
    assert_exit $((128 + ${sig#*:}))
    assert_eq "$(json_end r.json)" "interrupted ${sig#*:} None" "ended"
    assert_eq "$(csv_end r.csv all)" "interrupted by signal ${sig#*:}||0" "CSV end row"
done

tcase "a run failed by a script error is marked failed with the error"
printf 'local n = 0\nfunction event()\n  n = n + 1\n  if n > 50 then error("broken\\27[31m") end\nend\n' >f.lua
sb f.lua run --time=5 --json=r.json --csv=r.csv
assert_exit 1
assert_fatal "broken"
assert_eq "$(json_end r.json)" 'failed None f.lua:4: broken\x1b[31m' "ended"
assert_eq "$(csv_end r.csv)" 'failed: f.lua:4: broken\x1b[31m' "CSV end row"

tcase "a forced shutdown is marked failed, naming the forced shutdown"
printf 'local n = 0\nfunction event()\n  n = n + 1\n  if n > 20 then local x = 0 while true do x = x + 1 end end\nend\n' >s.lua
sb s.lua run --time=1 --forced-shutdown=1 --json=r.json --csv=r.csv
assert_exit 1
assert_match r.json '"status": "failed"'
assert_match r.json '"error": ".*forced shutdown'
csv_end r.csv >ended.txt
assert_match ended.txt '^failed: .*forced shutdown'

tcase "compare reads a result file with the ended member"
write_ev
sb ev.lua run --time=1 --json=a.json
sb ev.lua run --time=1 --json=b.json
sb compare a.json b.json
assert_exit 0

finish
