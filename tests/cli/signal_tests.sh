#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Deadlines that hold without a server (SQLite): statements still running
# --deadline-grace after --time are cancelled (sqlite3_interrupt) and
# counted as cut; SIGINT and SIGTERM end a
# run in every Lua phase, even one that loops for ever (`while true do
# end` in the script body, init, thread_init, event, thread_done, done and
# a prepare command), with exit 130/143 and the report of what ran; a
# second signal exits at once; SIGHUP is handled as SIGTERM and a closed
# stdout (`| head`) does not stop the run, both leaving complete result
# files and no temporary; running out of memory in any Lua phase is one
# FATAL line; a full disk while writing results is one line and leaves the
# earlier file intact (a small tmpfs mount; skipped when none can be made).
#
# Times are asserted loosely (a signal must end the run well before the
# 60 s a loop would otherwise run); the figures are in bench/README.md.
#
# Run by `make check`, or by hand: bash tests/cli/signal_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read the JSON result files"

# Every background run is bounded: a run a signal failed to end fails its
# case after SB_BG_BOUND seconds instead of holding the suite (and CI) for
# ever. timeout(1) passes the signals the cases send on to sysbench.
sb_bg() {
    _T_SHOWN=
    SB_RC=
    rm -f "$T/out" "$T/err" # not an earlier run's lines (lib.sh's sb_bg)
    timeout -k 5 "${SB_BG_BOUND:-90}" "$SB_BIN" "$@" </dev/null >"$T/out" 2>"$T/err" &
    SB_PID=$!
}

# Seconds a signalled run may take to end here: generous for a loaded
# machine, far below the loops' "for ever".
readonly SIGNAL_BOUND=8

# write_loop: loop.lua, which prints "SPIN <phase>" and loops for ever in
# the phase named by $PHASE.
write_loop() {
    cat >loop.lua <<'EOF'
local phase = os.getenv("PHASE")
local function spin(where)
  print("SPIN " .. where)
  local x = 0
  while true do x = x + 1 end
end
if phase == "body" then spin("body") end
local function prep() if phase == "prepare" then spin("prepare") end end
sysbench.cmdline.commands = { prepare = { prep } }
function init() if phase == "init" then spin("init") end end
function thread_init() if phase == "thread_init" then spin("thread_init") end end
function event() if phase == "event" then spin("event") end end
function thread_done() if phase == "thread_done" then spin("thread_done") end end
function done() if phase == "done" then spin("done") end end
EOF
}

# now: seconds since the epoch, with fractions.
now() {
    date +%s.%N
}

# elapsed T0 T1: T1 - T0 in seconds, with a leading digit.
elapsed() {
    awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'
}

# no_temporary: no ".NAME.tmp.PID.N" left in the case directory.
no_temporary() {
    local left
    left=$(find . -maxdepth 1 -name '.*.tmp.*' | head -n 3)
    [ -z "$left" ] || fail "temporary result files left: $left"
}

# ThreadSanitizer runs a signal handler only when the interrupted thread
# next calls into its runtime; a thread spinning in Lua never does, so
# under TSan these runs would wait for ever on TSan, not on sysbench.
lua_phases="body init thread_init event thread_done done prepare"
if [ "${SB_SANITIZER:-}" = tsan ]; then
    echo "  (the Lua-loop cases are skipped under tsan: it defers signal handlers)"
    lua_phases=
fi
for phase in $lua_phases; do
    for sig in INT:2 TERM:15; do
        name=${sig%%:*}
        num=${sig#*:}
        tcase "SIG$name ends a run looping in $phase within ${SIGNAL_BOUND}s (exit $((128 + num)))"
        write_loop
        cmd=run
        [ "$phase" = prepare ] && cmd=prepare
        json=--json=r.json
        [ "$phase" = prepare ] && json=
        # shellcheck disable=SC2086
        PHASE=$phase sb_bg loop.lua --threads=2 --time=1 $cmd $json
        # The loop after --time: done and thread_done come after it.
        wait_for out "SPIN $phase" || { kill -KILL "$SB_PID"; sb_wait; continue; }
        sleep 0.3
        t0=$(now)
        kill -"$name" "$SB_PID"
        sb_wait
        t1=$(now)
        assert_exit $((128 + num))
        assert_lt "$(elapsed "$t0" "$t1")" "$SIGNAL_BOUND" "seconds from the signal to the exit"
        assert_no_crash
        # The interrupted Lua is no error of its own.
        assert_eq "$(grep -c '^FATAL: .*interrupted' err)" 0 "FATAL lines about the interruption"
        case $phase in
        event | thread_done | done)
            # done() runs after the report, which then had no signal to
            # mention; the result file still says how the run ended.
            [ "$phase" = "done" ] || assert_contains out "Interrupted by signal $num"
            assert_contains out "Latency (ms):"
            assert_eq "$(jget r.json 'd["ended"]["status"]')" "interrupted" "ended.status"
            assert_eq "$(jget r.json 'd["ended"]["signal"]')" "$num" "ended.signal"
            no_temporary
            ;;
        esac
    done
done

# write_slow: slow.lua, whose every event is one SQLite statement of
# minutes (a recursive count to two billion).
write_slow() {
    cat >slow.lua <<'LUA'
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  con:query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c " ..
            "WHERE x < 2000000000) SELECT count(*) FROM c")
end
function thread_done() con:disconnect() end
LUA
}

tcase "--time is a deadline: statements running --deadline-grace after it are cancelled"
write_slow
t0=$(now)
sb slow.lua --threads=2 --time=2 --deadline-grace=1 run --json=r.json --csv=r.csv
t1=$(now)
assert_exit 0
assert_lt "$(elapsed "$t0" "$t1")" $((3 + SIGNAL_BOUND)) "seconds for --time=2 plus a 1 s grace"
assert_contains out "Deadline: 2 statement(s) still running 1s after --time were cancelled"
assert_eq "$(jget r.json 'd["ended"]')" \
    '{"status": "completed", "signal": null, "error": null, "deadline": "cut", "cancelled": 2}' "ended"
assert_eq "$(csv_end r.csv all)" "completed|cut|2" "CSV end row"
assert_eq "$(grep -c . err)" 0 "lines on stderr"

tcase "a signal after --time cancels the statements at once and is an interruption"
write_slow
sb_bg slow.lua --threads=2 --time=1 --deadline-grace=60 run --json=r.json
sleep 2.5
t0=$(now)
kill -TERM "$SB_PID"
sb_wait
t1=$(now)
assert_exit 143
assert_lt "$(elapsed "$t0" "$t1")" "$SIGNAL_BOUND" "seconds from the signal to the exit"
assert_contains out "Interrupted by signal 15"
assert_eq "$(jget r.json 'd["ended"]["status"]')" "interrupted" "ended.status"
assert_eq "$(jget r.json 'd["ended"]["cancelled"]')" 2 "ended.cancelled"

tcase "a completed run that needed no cancel says its deadline was met"
write_ev
sb ev.lua --time=1 run --json=r.json
assert_exit 0
assert_eq "$(jget r.json 'd["ended"]["deadline"]')" "met" "ended.deadline"
assert_eq "$(jget r.json 'd["ended"]["cancelled"]')" 0 "ended.cancelled"

tcase "--deadline-grace rejects a negative value"
write_ev
sb ev.lua --time=1 --deadline-grace=-1 run
assert_exit 1
assert_fatal "invalid value for --deadline-grace"

tcase "a second signal exits at once"
# An event compiled by the JIT is not interrupted by the hook: the first
# signal waits for the thread's abandon, the second does not. Started
# without timeout(1), which would pass each signal on twice; under TSan
# the spinning thread may take the signal, which TSan then never delivers.
if [ "${SB_SANITIZER:-}" != tsan ]; then
write_loop
_T_SHOWN=
SB_RC=
rm -f "$T/out" "$T/err"
PHASE=event "$SB_BIN" loop.lua --threads=1 --time=30 run </dev/null >"$T/out" 2>"$T/err" &
SB_PID=$!
wait_for out "SPIN event" || kill -KILL "$SB_PID"
sleep 0.3
kill -INT "$SB_PID"
# Not at once: a repeat within 0.3 s is taken as the same request.
sleep 0.6
t0=$(now)
kill -INT "$SB_PID"
sb_wait
t1=$(now)
assert_exit 130
assert_contains err "second signal"
assert_lt "$(elapsed "$t0" "$t1")" 1.2 "seconds from the second signal to the exit"
else
    skip "under tsan"
fi

tcase "SIGHUP ends the run as SIGTERM does: report, complete result files, no temporary"
write_ev
sb_bg ev.lua --threads=2 --time=30 --report-interval=1 run --json=r.json --csv=r.csv \
    --hgrm=r.hgrm --log=r.log
wait_for_report out || kill -KILL "$SB_PID"
kill -HUP "$SB_PID"
sb_wait
assert_exit 129
assert_contains out "Interrupted by signal 1"
assert_eq "$(jget r.json 'd["ended"]["status"]')" "interrupted" "ended.status"
assert_eq "$(jget r.json 'd["ended"]["signal"]')" "1" "ended.signal"
assert_eq "$(csv_end r.csv)" "interrupted by signal 1" "CSV end row"
assert_gt "$(wc -l <r.log)" 0 "transaction log lines"
[ -s r.hgrm ] || fail "no --hgrm file"
no_temporary

tcase "a closed stdout (| head) does not stop the run: complete result files, no temporary"
write_ev
t0=$(now)
set +o pipefail
timeout -k 5 "$SB_TIMEOUT" "$SB_BIN" ev.lua --threads=2 --time=3 --report-interval=1 run \
    --json=r.json --csv=r.csv 2>err | head -n 2 >out
SB_RC=${PIPESTATUS[0]}
t1=$(now)
assert_exit 0
assert_ge "$(elapsed "$t0" "$t1")" 2.5 "seconds the run went on after stdout closed"
assert_eq "$(jget r.json 'd["ended"]["status"]')" "completed" "ended.status"
assert_eq "$(jget r.json 'len(d["points"])')" 1 "points"
assert_eq "$(csv_end r.csv)" "completed" "CSV end row"
assert_eq "$(grep -c . err)" 0 "lines on stderr"
no_temporary

# write_hog: hog.lua, which allocates without end in the phase $PHASE.
write_hog() {
    cat >hog.lua <<'EOF'
local phase = os.getenv("PHASE")
local function hog()
  local t = {}
  for i = 1, 1e9 do t[i] = string.rep("x", 1000000) .. i end
end
if phase == "body" then hog() end
function init() if phase == "init" then hog() end end
function thread_init() if phase == "thread_init" then hog() end end
function event() if phase == "event" then hog() end end
function thread_done() if phase == "thread_done" then hog() end end
function done() if phase == "done" then hog() end end
EOF
}

for phase in body init thread_init event thread_done "done"; do
    tcase "out of memory in $phase is one FATAL line saying so and where"
    # A sanitizer's shadow memory does not fit under an address-space
    # limit: the binary would not start.
    if [ -n "${SB_SANITIZER:-}" ]; then
        skip "under $SB_SANITIZER"
        continue
    fi
    write_hog
    # An address-space limit: what the machine's memory would be. 400 MB
    # filled 1 MB at a time takes 1-3 s of CPU; 800 MB in 1 KB strings
    # took 3-5 s and outlived the 60-s bound at load 25 in a chroot.
    SB_RC=0
    (ulimit -v 400000 && PHASE=$phase exec timeout -k 5 "$SB_TIMEOUT" "$SB_BIN" \
        hog.lua --threads=2 --time=1 run --json=r.json) >out 2>err </dev/null || SB_RC=$?
    assert_exit 1
    assert_fatal "out of memory (Lua) in ${phase/body/the script body}"
done

tcase "a full disk while writing --json is one line; the earlier file is intact"
mnt=$PWD/full
mkdir -p "$mnt"
if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
    skip "cannot mount a small tmpfs here"
else
    write_ev
    sb ev.lua --time=1 run --json="$mnt/r.json" --csv="$mnt/r.csv"
    assert_exit 0
    before=$(md5sum <"$mnt/r.json")
    before_csv=$(md5sum <"$mnt/r.csv")
    # Fill what is left: the next documents cannot be written.
    dd if=/dev/zero of="$mnt/fill" bs=1k count=128 2>/dev/null || true
    sb ev.lua --threads=2 --time=2 --report-interval=1 run --json="$mnt/r.json"
    assert_exit 1
    assert_fatal "cannot write the --json file '$mnt/r.json': No space left on device"
    assert_eq "$(md5sum <"$mnt/r.json")" "$before" "the earlier --json file"
    sb ev.lua --threads=2 --time=2 --report-interval=1 run --csv="$mnt/r.csv"
    assert_exit 1
    assert_fatal "cannot write the --csv file '$mnt/r.csv': No space left on device"
    assert_eq "$(md5sum <"$mnt/r.csv")" "$before_csv" "the earlier --csv file"
    left=$(find "$mnt" -name '.*.tmp.*' | head -n 3)
    [ -z "$left" ] || fail "temporary result files left: $left"
    umount "$mnt" || true
fi

finish
