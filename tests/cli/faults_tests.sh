#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Hostile values and scripts, and earlier result files (issue 22, SQLite
# only; the server faults are in tests/drivers/faults.sh):
#  - numeric options beyond their bounds are refused at parse time with
#    one line "(at most N ...)", and the largest accepted values neither
#    end a run early, spin nor overflow;
#  - a script that replaces or poisons the sysbench module, or raises
#    through metamethods, never gets a Lua PANIC;
#  - error messages quote long values cut short and control bytes escaped;
#  - a run that measured nothing keeps an earlier --json/--csv byte for
#    byte; --log refuses a file it did not write.
#
# Run by `make check`, or by hand: bash tests/cli/faults_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# ---------------------------------------------------------------- numeric extremes

tcase "seconds, rates and sizes beyond their bounds are refused with 'at most N'"
write_ev
for o in time=18446744074 time=1000000001 report-interval=18446744074 \
         forced-shutdown=9223372036854775807 report-checkpoints=1e300 \
         warmup-time=1e19 sweep-cooldown=1e10 repeat-cooldown=1e10 \
         db-reconnect-timeout=1e12 rate=1e300 tx-rate=1e300 tx-spin=1e300 \
         thread-stack-size=8T sqlite-busy-timeout=9223372036854775807 \
         start-at=1e300; do
    sb --"$o" --time=1 ev.lua run
    [ "$SB_RC" = 1 ] || fail "--$o: exit $SB_RC, expected 1"
    assert_fatal "--${o%%=*}"
    grep -q 'at most' err || fail "--$o: no 'at most' in: $(cat err)"
done
sb --time=18446744074 ev.lua run
assert_fatal "invalid value '18446744074' for --time: expected at most 1000000000 seconds"

tcase "--time at its bound with an event limit runs the events and exits 0"
write_ev
sb --time=1000000000 --events=500 ev.lua run
assert_exit 0
assert_eq "$(report_num out 'total number of events:')" 500 "events"

# Each of these once ended at once, spun or overflowed (UBSan); at the
# bound they must run exactly --time=2 and report.
tcase "the largest accepted durations neither end the run early nor hang"
write_ev
for o in report-interval=1000000000 forced-shutdown=1000000000 \
         report-checkpoints=1000000000 db-reconnect-timeout=1000000000 \
         sqlite-busy-timeout=2147483647 tx-spin=1000000000000000; do
    start=$(date +%s%N)
    sb --"$o" --time=2 ev.lua run
    el=$((($(date +%s%N) - start) / 1000000))
    [ "$SB_RC" = 0 ] || fail "--$o: exit $SB_RC"
    t=$(report_num out 'total time:')
    # A run the self-check found held up by other processes may end late
    # by the time its last worker waited for a CPU (3.13 s seen beside an
    # ASan suite); a large option that delayed the end would take its own
    # value (seconds to years), which the bound and the exit time catch.
    if grep -q 'self-check: *FLAGGED \[.*contention' out; then
        assert_between "$t" 1.9 5 "--$o: total time (contention flagged)"
    else
        assert_between "$t" 1.9 2.2 "--$o: total time"
    fi
    assert_lt "$el" 15000 "--$o: ms until exit"
    assert_no_crash
done

tcase "a run that ends inside --warmup-time reports 0 s, not a wrapped clock"
write_ev
sb --warmup-time=30 --events=50 --time=0 ev.lua run
assert_exit 0
assert_eq "$(report_num out 'total time:')" 0.0000 "total time"

# ---------------------------------------------------------------- hostile scripts

# nopanic NAME SCRIPT: the script runs to one outcome without a PANIC or
# a crash, within --time=2 plus a generous hang guard.
nopanic() {
    tcase "no PANIC: $1"
    printf '%s\n' "$2" >h.lua
    for ct in 0 1; do
        sb h.lua run --time=2 --threads=2 --report-interval=1 --client-threads=$ct --json=r.json
        case "$SB_RC" in 0|1) ;; *) fail "--client-threads=$ct: exit $SB_RC" ;; esac
        assert_no_crash
        if [ "$SB_RC" = 1 ]; then
            assert_eq "$(grep -c '^FATAL: ' err)" 1 "FATAL lines (--client-threads=$ct)"
        fi
    done
}
nopanic "sysbench = nil in thread_init" \
    'function thread_init() sysbench = nil end function event() end'
nopanic "sysbench = 5 in thread_init" \
    'function thread_init() sysbench = 5 end function event() end'
nopanic "sysbench with a raising __index in thread_init" \
    'function thread_init() sysbench = setmetatable({}, {__index = function() error("boom") end}) end function event() end'
nopanic "the default event loop removed" \
    'function thread_init() sysbench.__run_events = nil end function event() end'
nopanic "a strict _G" \
    'function event() end setmetatable(_G, {__index = function(_, k) error("strict: " .. tostring(k)) end})'
nopanic "hooks with a raising __index" \
    'function event() end sysbench.hooks = setmetatable({}, {__index = function() error("boom") end})'
nopanic "an error object with a raising __index" \
    'function thread_init() error(setmetatable({}, {__index = function() error("x") end})) end function event() end'
nopanic "an error object with a raising __index in the main chunk" \
    'error(setmetatable({}, {__index = function() error("x") end}))'

tcase "sysbench = nil in thread_init is one FATAL line, with or without a thread per connection"
printf '%s\n' 'function thread_init() sysbench = nil end function event() end' >h.lua
for ct in 0 1; do
    sb h.lua run --time=2 --threads=3 --client-threads=$ct
    assert_exit 1
    assert_fatal "the script replaced the sysbench module"
done

# ---------------------------------------------------------------- messages

tcase "an option error quotes a 5,000-character value cut short"
write_ev
long=$(printf '9%.0s' $(seq 5000))
for o in time threads tx-rate tx-late percentile report-checkpoints rand-type \
         forced-shutdown start-at instance clock-offset thread-stack-size; do
    sb --"$o=x$long" ev.lua run
    [ "$SB_RC" = 1 ] || fail "--$o: exit $SB_RC"
    assert_fatal "--$o"
    n=$(wc -c <err)
    assert_lt "$n" 300 "--$o: bytes of stderr"
    assert_contains err "..."
done
sb ev.lua "run$long"
assert_exit 1
assert_lt "$(wc -c <err)" 300 "bytes of stderr for a long command"

tcase "script errors reach the terminal with ESC, CR and NUL escaped"
printf '%s\n' 'function thread_init() error({sql_errmsg = "a\0b\27[31m", query = "q\rx", sql_state = "\1"}) end' \
    'function event() end' >h.lua
printf '%s\n' 'function init() error("x\27[2J\ry") end function event() end' >i.lua
for s in h.lua i.lua; do
    sb "$s" run --time=1 --json=r.json
    assert_exit 1
    if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" out err; then
        fail "$s: raw control bytes in the output"
    fi
    assert_no_crash
done
assert_contains err 'x\x1b[2J\x0dy'
sb h.lua run --time=1
assert_contains err 'a\x00b\x1b[31m'

# ---------------------------------------------------------------- earlier result files

tcase "a run that fails before measuring keeps an earlier --json and --csv byte for byte"
write_ev
sb ev.lua run --time=1 --report-interval=1 --json=r.json --csv=r.csv
assert_exit 0
sum=$(md5sum r.json r.csv)
printf '%s\n' 'function init() error("no database") end function event() end' >bad.lua
sb bad.lua run --time=1 --json=r.json --csv=r.csv
assert_exit 1
assert_fatal "no database"
assert_eq "$(md5sum r.json r.csv)" "$sum" "checksums after the failed run"
assert_contains err "the earlier --json file 'r.json' is kept"
assert_eq "$(find . -name '.*tmp*' | wc -l)" 0 "temporary files left"
printf '%s\n' 'function thread_init() error("cannot connect") end function event() end' >bad2.lua
sb bad2.lua run --time=1 --json=r.json --csv=r.csv
assert_exit 1
assert_eq "$(md5sum r.json r.csv)" "$sum" "checksums after a failed connect"

tcase "a failed run with no earlier file still writes its 'failed' record"
printf '%s\n' 'function init() error("no database") end function event() end' >bad.lua
sb bad.lua run --time=1 --json=r.json
assert_exit 1
assert_eq "$(jget r.json 'd["ended"]["status"]')" failed "ended.status"

tcase "a measured run replaces the earlier result file"
write_ev
sb ev.lua run --time=1 --json=r.json
sum=$(md5sum <r.json)
sb ev.lua run --time=1 --json=r.json --rand-seed=7
assert_exit 0
assert_ne "$(md5sum <r.json)" "$sum" "checksum after a measured run"

tcase "--log refuses a file it did not write (a PID file, another program's numbers)"
write_ev
echo 12345 >pid
printf '1 2 3 4 5 6\n' >numbers
for f in pid numbers; do
    cp "$f" "$f.orig"
    sb ev.lua run --time=1 --log="$f"
    assert_exit 1
    assert_fatal "refusing to replace the --log file '$f'"
    cmp -s "$f" "$f.orig" || fail "$f was changed"
done

tcase "--log replaces its own earlier log, which keeps pgbench's format exactly"
write_ev
sb ev.lua run --time=1 --log=tx.log --events=20
assert_exit 0
assert_lines tx.log 20
assert_count tx.log '^[0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+$' 20
sb ev.lua run --time=1 --log=tx.log --events=30
assert_exit 0
assert_lines tx.log 30

finish
