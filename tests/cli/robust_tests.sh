#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The run engine's stop and exit paths (SQLite only): signals during
# prepare, parallel commands (also ending on a statement the signal
# cancelled) and connection set-up; tiny --tx-rate with
# --time; errors in every hook (init, done, the report hooks,
# before_restart_event, sql_error_ignorable, thread_done, cleanup, custom
# commands, help); os.exit in the main state; --forced-shutdown;
# a fatal error in one worker; fractional --report-interval; sysbench.opt
# in a sweep. Time bounds are generous ("within --time + 10 s"): they catch
# hangs, not slowness.
#
# Run by `make check`, or by hand: bash tests/cli/robust_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# sb_wait_max SECONDS: sb_wait, but a sysbench still running after
# SECONDS is killed (the case fails) instead of stalling the suite.
sb_wait_max() {
    local i
    for i in $(seq $(($1 * 10))); do
        kill -0 "$SB_PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$SB_PID" 2>/dev/null; then
        kill -KILL "$SB_PID"
        fail "still running $1 s after the signal"
    fi
    sb_wait
}

# A loop that never returns and never looks at the stop flag: what a
# statement blocked on a lock, or a connect to a dead host, looks like.
BUSY='local x = 0 while true do x = x + 1 end'

# ---------------------------------------------------------------- signals outside the measured run

for sig in INT:130 TERM:143; do
    name=${sig%%:*}
    code=${sig#*:}

    tcase "SIG$name during a main-state prepare exits $code at once"
    printf 'function prepare()\n  print("preparing")\n  io.stdout:flush()\n  %s\nend\n' "$BUSY" >p.lua
    start=$(date +%s)
    sb_bg p.lua prepare
    wait_for out preparing || { kill -KILL "$SB_PID"; sb_wait; continue; }
    kill -"$name" "$SB_PID"
    sb_wait_max 15
    assert_exit "$code"
    assert_lt $(($(date +%s) - start)) 15 "seconds until exit"
    assert_no_crash

    tcase "SIG$name during a parallel prepare exits $code at once"
    cat >pp.lua <<EOF
function cmd()
  print("preparing " .. sysbench.tid)
  io.stdout:flush()
  $BUSY
end
sysbench.cmdline.commands = { prepare = {cmd, sysbench.cmdline.PARALLEL_COMMAND} }
EOF
    start=$(date +%s)
    sb_bg pp.lua --threads=2 prepare
    wait_for out "preparing 1" || { kill -KILL "$SB_PID"; sb_wait; continue; }
    kill -"$name" "$SB_PID"
    sb_wait_max 15
    assert_exit "$code"
    assert_lt $(($(date +%s) - start)) 15 "seconds until exit"
    assert_no_crash
done

# A statement the signal cancels fails at once (SQLite's interrupt), so
# the command's threads end on the signal before the main thread, which
# looks every 10 ms, has seen it: the command was interrupted, not in
# error (exit 1 with "FATAL: unhandled ignorable SQL error" before).
write_long_query() {
cat >lq.lua <<'EOF'
function long_query()
  local con = sysbench.sql.driver():connect()
  print("querying " .. sysbench.tid)
  io.stdout:flush()
  con:query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c " ..
            "WHERE x < 4000000000) SELECT count(*) FROM c")
end
sysbench.cmdline.commands = {
  longq = {long_query},
  plongq = {long_query, sysbench.cmdline.PARALLEL_COMMAND},
}
EOF
}
for cmd in longq:main-state plongq:parallel; do
    tcase "SIGINT cancelling a ${cmd#*:} command's statement exits 130, no error"
    write_long_query
    sb_bg lq.lua --threads=2 "${cmd%%:*}"
    wait_for out "querying" || { kill -KILL "$SB_PID"; sb_wait; continue; }
    sleep 0.3
    kill -INT "$SB_PID"
    sb_wait_max 15
    assert_exit 130
    assert_not_contains err "FATAL"
    assert_no_crash
done

tcase "SIGINT during connection set-up does not wait for every thread"
cat >ti.lua <<EOF
function thread_init()
  if sysbench.tid == 1 then
    print("stuck in thread_init")
    io.stdout:flush()
    $BUSY
  end
end
function event() end
EOF
start=$(date +%s)
sb_bg ti.lua --threads=2 --time=60 run
wait_for out "stuck in thread_init" || { kill -KILL "$SB_PID"; sb_wait; }
kill -INT "$SB_PID"
sb_wait_max 15
assert_exit 130
assert_lt $(($(date +%s) - start)) 15 "seconds until exit"
assert_contains out "before the run started"
assert_not_contains out "General statistics:"
assert_no_crash

tcase "SIGINT during init() exits 130 at once"
printf 'function init()\n  print("in init")\n  io.stdout:flush()\n  %s\nend\nfunction event() end\n' "$BUSY" >in.lua
start=$(date +%s)
sb_bg in.lua --time=60 run
wait_for out "in init" || { kill -KILL "$SB_PID"; sb_wait; }
kill -INT "$SB_PID"
sb_wait_max 15
assert_exit 130
assert_lt $(($(date +%s) - start)) 15 "seconds until exit"
assert_no_crash

tcase "SIGINT during a measured event stuck in Lua still reports what ran"
cat >st.lua <<EOF
local n = 0
function event()
  n = n + 1
  if n == 100 then
    print("stuck in event")
    io.stdout:flush()
    $BUSY
  end
end
EOF
start=$(date +%s)
sb_bg st.lua --time=60 run
wait_for out "stuck in event" || { kill -KILL "$SB_PID"; sb_wait; }
kill -INT "$SB_PID"
sb_wait_max 15
assert_exit 130
assert_lt $(($(date +%s) - start)) 15 "seconds until exit"
assert_contains out "General statistics:"
assert_eq "$(report_num out "total number of events:")" 99 "events reported"

# ---------------------------------------------------------------- tiny rates

# The bug took 6 s for a 1 s run. The bound is the same binary's plain
# --time=1 run plus 3.5 s, so that a slow (sanitizer) build does not fail.
# On a busy machine one pair can still straddle a burst (at load 7-15 a
# Poisson run took 8.3 s beside a plain one of 1.4 s): a pair over the
# bound is measured again, up to 3 times; the bug is over it every time.
# tiny_run OPTION: sets TINY_S and TINY_BASE of the last pair measured.
tiny_run() {
    local try start
    for try in 1 2 3; do
        start=$(date +%s.%N)
        sb ev.lua run --time=1
        TINY_BASE=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
        start=$(date +%s.%N)
        sb ev.lua run "$1" --time=1
        TINY_S=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
        [ "$SB_RC" = 0 ] || return 0
        awk -v t="$TINY_S" -v b="$TINY_BASE" 'BEGIN { exit !(t < b + 3.5) }' && return 0
        echo "  (try $try: $TINY_S s against a plain run of $TINY_BASE s)"
    done
}

tcase "--tx-rate=0.01 --time=1 ends at about 1 s"
write_ev
tiny_run --tx-rate=0.01
assert_exit 0
assert_lt "$TINY_S" "$(awk -v b="$TINY_BASE" 'BEGIN { print b + 3.5 }')" \
    "seconds for a 1-second run (a plain 1 s run took $TINY_BASE)"
tt=$(report_num out "total time:")
assert_between "${tt:-99}" 0.9 3 "reported total time"
assert_no_crash

tcase "--rate=0.01 (Poisson) --time=1 ends at about 1 s"
write_ev
tiny_run --rate=0.01
assert_exit 0
assert_lt "$TINY_S" "$(awk -v b="$TINY_BASE" 'BEGIN { print b + 3.5 }')" \
    "seconds for a 1-second run (a plain 1 s run took $TINY_BASE)"
assert_no_crash

# ---------------------------------------------------------------- hook and thread_done errors

tcase "an error in report_intermediate stops the run: one FATAL, the report, exit 1"
cat >ri.lua <<'EOF'
function event() end
sysbench.hooks.report_intermediate = function() error("bad hook") end
EOF
start=$(date +%s)
sb ri.lua run --time=20 --report-interval=1
assert_exit 1
assert_fatal "bad hook"
assert_contains err "report_intermediate"
assert_lt $(($(date +%s) - start)) 10 "seconds until exit"
assert_contains out "General statistics:"
ev=$(report_num out "total number of events:")
assert_gt "${ev:-0}" 0 "events reported"

tcase "an error in thread_done keeps the measured run"
printf 'function event() end\nfunction thread_done()\n  error("bad done")\nend\n' >td.lua
sb td.lua run --time=1 --threads=2
assert_exit 1
assert_fatal "bad done"
assert_contains err "thread_done"
assert_contains out "General statistics:"
ev=$(report_num out "total number of events:")
assert_gt "${ev:-0}" 0 "events reported"

tcase "a fatal error in one worker still reports what ran"
cat >we.lua <<'EOF'
local n = 0
function event()
  n = n + 1
  if sysbench.tid == 1 and n == 500 then error("worker gave up") end
end
EOF
sb we.lua run --time=20 --threads=2
assert_exit 1
assert_fatal "worker gave up"
assert_contains out "General statistics:"
ev=$(report_num out "total number of events:")
assert_ge "${ev:-0}" 499 "events reported"

# ---------------------------------------------------------------- errors in every other hook

# hook_fails EXIT EXPECTED ARGS...: sysbench ARGS exits EXIT within
# --time=2 plus a 10 s grace (a hang guard, not a timing claim), with one
# FATAL line containing EXPECTED (the script's file and line) and no
# crash, PANIC or traceback.
hook_fails() {
    local want=$1 expected=$2 start
    shift 2
    start=$(date +%s)
    sb "$@"
    assert_exit "$want"
    assert_fatal "$expected"
    assert_lt $(($(date +%s) - start)) 12 "seconds until exit"
}

# assert_report: the final report of what ran was printed, with events.
assert_report() {
    assert_contains out "General statistics:"
    ev=$(report_num out "total number of events:")
    assert_gt "${ev:-0}" 0 "events reported"
}

# assert_json_events: the result file r.json holds the point's events.
assert_json_events() {
    assert_eq "$(jget r.json 'd["points"][0]["final"]["events"] > 0')" true "events in r.json"
}

tcase "an error in init() ends the run before it starts: one FATAL, no report"
printf 'function init()\n  error("bad init")\nend\nfunction event() end\n' >in.lua
hook_fails 1 "in.lua:2: bad init" in.lua run --time=2
assert_not_contains out "General statistics:"
assert_not_contains out "Threads started"

tcase "an error in done() after a run keeps the report and the result file"
printf 'function event() end\nfunction done()\n  error("bad done")\nend\n' >dn.lua
hook_fails 1 "dn.lua:3: bad done" dn.lua run --time=1 --json=r.json
assert_report
assert_json_events

tcase "an error in report_cumulative: one FATAL, the built-in final report, the result file"
printf 'function event() end\nsysbench.hooks.report_cumulative = function()\n  error("bad cumulative")\nend\n' >rc.lua
hook_fails 1 "sysbench.hooks.report_cumulative: rc.lua:3: bad cumulative" \
    rc.lua run --time=1 --json=r.json
assert_report
assert_json_events

tcase "an error in report_cumulative at a checkpoint stops the run with one FATAL"
printf 'function event() end\nsysbench.hooks.report_cumulative = function()\n  error("bad cumulative")\nend\n' >rc.lua
hook_fails 1 "sysbench.hooks.report_cumulative: rc.lua:3: bad cumulative" \
    rc.lua run --time=20 --report-checkpoints=1,2,3
assert_contains out "Stopped by an error"
assert_report
assert_not_contains out "[ 2s ] Checkpoint report:"

tcase "an error in before_restart_event stops the run with one FATAL and the report"
printf 'function event() error({errcode = sysbench.error.RESTART_EVENT}) end\nsysbench.hooks.before_restart_event = function()\n  error("bad restart hook")\nend\n' >br.lua
hook_fails 1 "br.lua:3: bad restart hook" br.lua run --time=2
assert_contains out "General statistics:"

tcase "an error in sql_error_ignorable is the run's error, not the SQL error it was asked about"
cat >se.lua <<'LUA'
local con
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT * FROM no_such_table") end
sysbench.hooks.sql_error_ignorable = function()
  error("bad ignorable")
end
LUA
hook_fails 1 "sysbench.hooks.sql_error_ignorable: se.lua:5: bad ignorable" se.lua run --time=2
assert_not_contains err "no such table"
assert_contains out "General statistics:"

tcase "an error in cleanup() is one FATAL line"
printf 'function event() end\nfunction cleanup()\n  error("bad cleanup")\nend\n' >cu.lua
hook_fails 1 "cu.lua:3: bad cleanup" cu.lua cleanup

tcase "an error in a custom command is one FATAL line"
printf 'local function mine()\n  error("bad command")\nend\nsysbench.cmdline.commands = { mine = {mine} }\n' >cc.lua
hook_fails 1 "cc.lua:2: bad command" cc.lua mine

tcase "an error in help() is one FATAL line after the options"
printf 'sysbench.cmdline.options = {x = {"an option", 1}}\nfunction help()\n  error("bad help")\nend\n' >hp.lua
hook_fails 1 "hp.lua:3: bad help" hp.lua help
assert_contains out "an option"

# ---------------------------------------------------------------- os.exit in the main state

tcase "os.exit in report_intermediate does not skip the report or the result file"
printf 'function event() end\nsysbench.hooks.report_intermediate = function()\n  os.exit(0)\nend\n' >xi.lua
hook_fails 1 "sysbench.hooks.report_intermediate: xi.lua:3: os.exit() called during a run" \
    xi.lua run --time=20 --report-interval=1 --json=r.json
assert_report
assert_json_events

tcase "os.exit in report_cumulative, through a saved reference, does not skip the report"
cat >xc.lua <<'LUA'
local exit = os.exit -- taken before the run: still guarded
function event() end
sysbench.hooks.report_cumulative = function()
  exit(0)
end
LUA
hook_fails 1 "sysbench.hooks.report_cumulative: xc.lua:4: os.exit() called during a run" \
    xc.lua run --time=1 --json=r.json
assert_report
assert_json_events

tcase "os.exit in done() and in init() are errors of the run"
printf 'function event() end\nfunction done()\n  os.exit(0)\nend\n' >xd.lua
hook_fails 1 "xd.lua:3: os.exit() called during a run" xd.lua run --time=1
assert_report
printf 'function init()\n  os.exit(0)\nend\nfunction event() end\n' >xn.lua
hook_fails 1 "xn.lua:2: os.exit() called during a run" xn.lua run --time=1

tcase "os.exit(n) in prepare, cleanup, help and a custom command keeps its status"
cat >xp.lua <<'LUA'
local exit = os.exit
sysbench.cmdline.options = {x = {"an option", 1}}
function prepare() print("bad options") exit(3) end
function cleanup() os.exit(4) end
function help() os.exit(5) end
sysbench.cmdline.commands = { mine = {function() os.exit(6) end} }
LUA
for c in prepare:3 cleanup:4 help:5 mine:6; do
    sb xp.lua "${c%%:*}"
    assert_exit "${c#*:}"
    assert_lines err 0
done
sb xp.lua prepare
assert_contains out "bad options"

tcase "os.exit(n) in the body of a script given 'run' keeps its status"
printf 'os.exit(2)\nfunction event() end\n' >xb.lua
sb xb.lua run --time=1
assert_exit 2
assert_lines err 0
assert_not_contains out "Threads started"

# ---------------------------------------------------------------- forced shutdown

tcase "--forced-shutdown reports what ran and exits non-zero"
cat >fs.lua <<EOF
local n = 0
function event()
  n = n + 1
  if n > 50 then $BUSY end
end
EOF
start=$(date +%s)
sb fs.lua run --time=1 --forced-shutdown=1 --json=r.json
assert_exit 1
assert_fatal "forced shutdown"
assert_lt $(($(date +%s) - start)) 12 "seconds until exit"
assert_contains out "General statistics:"
assert_eq "$(report_num out "total number of events:")" 50 "events reported"
# The result file holds the point, not 0 bytes.
assert_contains r.json '"final"'
assert_not_contains r.json '"final": null'

# ---------------------------------------------------------------- report interval and sweeps

tcase "--report-interval=0.5 is rejected with one line (sysbench 1.0 takes whole seconds)"
write_ev
sb ev.lua run --time=1 --report-interval=0.5
assert_exit 1
assert_fatal "report-interval"
assert_not_contains out "Threads started"

tcase "--report-interval=1 still labels whole seconds"
write_ev
# A reporter held up past a whole tick (a loaded machine: the suite's run
# that failed here had its worker in events 0.6 s of 3) folds the missed
# tick into its next line, labelled with its scheduled tick (sb_monitor.c):
# a label may be skipped then, never made fractional.
sb ev.lua run --time=3 --report-interval=1
assert_exit 0
assert_match out '^\[ [123]s \]'
assert_count out '^\[ *[0-9]+\.[0-9]*s \]' 0
assert_count out "$REPORT_LINE" "$(grep -c '^\[ ' out)"

tcase "sysbench.opt.threads in the main state follows the sweep point"
cat >sw.lua <<'EOF'
function init() print("init_threads=" .. sysbench.opt.threads) end
function event() end
function done() print("done_threads=" .. sysbench.opt.threads) end
EOF
sb sw.lua run --threads=1,3 --time=1
assert_exit 0
assert_eq "$(grep -E '^init_threads=' out | cut -d= -f2 | tr '\n' ' ')" "1 3 " "init() saw threads"
assert_eq "$(grep -E '^done_threads=' out | cut -d= -f2 | tr '\n' ' ')" "1 3 " "done() saw threads"

tcase "every Lua state and hook of a sweep point sees that point (threads, tx_rate, global_tid)"
# The main state's hooks (init, report_intermediate, report_cumulative,
# done) and the workers' (thread_init, thread_done) print what they see;
# every line must name the point being run, in sweep order.
cat >pt.lua <<'EOF'
sysbench.cmdline.options = { foo = {"unused", 1} }
local function show(where)
  if sysbench.tid == 0 then
    print(string.format("pt %s %d %g %d", where, sysbench.opt.threads, sysbench.opt.tx_rate,
                        sysbench.global_tid))
  end
end
function init() show("init") end
function thread_init() show("thread_init") end
function event() end
function thread_done() show("thread_done") end
function done() show("done") end
sysbench.hooks.report_intermediate = function() show("report_intermediate") end
sysbench.hooks.report_cumulative = function() show("report_cumulative") end
EOF
sb pt.lua run --threads=1,3 --tx-rate=40,80 --time=1 --report-interval=1 \
  --instance=1/2 --rand-seed=7
assert_exit 0
for hook in init thread_init thread_done report_intermediate report_cumulative done; do
  # --instance=1/2: the main state and worker 0 are global connection
  # 1 * threads + 0.
  assert_eq "$(awk -v h=$hook '$1 == "pt" && $2 == h { print $3 "/" $4 "/" $5 }' out | tr '\n' ' ')" \
    "1/40/1 1/80/1 3/40/3 3/80/3 " "$hook saw the point"
done

tcase "a 0.5-style script's num_threads global follows the sweep point"
printf 'function init() print("g=" .. num_threads) end\nfunction event() end\n' >g.lua
sb g.lua run --threads=2,1 --time=1 --undeclared=1
assert_exit 0
assert_eq "$(grep -E '^g=' out | cut -d= -f2 | tr '\n' ' ')" "2 1 " "num_threads global"

finish
