#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Hostile input (SQLite only): config files and option values with control
# bytes, a byte order mark, unknown options and out-of-range values; and
# hostile scripts (infinite recursion, error(nil), error with a table,
# huge strings, coroutine misuse, os.exit in a benchmark thread). Each
# bad input must end in one FATAL line and a non-zero exit, never a crash,
# a hang or a raw control byte on the terminal.
#
# Run by `make check`, or by hand: bash tests/cli/input_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# d.lua touches the driver in prepare, so driver option errors surface.
write_d() {
    echo 'function prepare() sysbench.sql.driver() end function event() end' >d.lua
}
# o.lua declares an option, so undeclared ones are unknown (sysbench 1.0
# passes any option to a script that declares none).
write_o() {
    printf 'sysbench.cmdline.options = {x = {"an option", 1}}\nfunction prepare() end\n' >o.lua
}
# assert_no_raw_control FILE: no byte below 0x20 but newline and tab.
assert_no_raw_control() {
    if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$1"; then
        fail "$1 holds a raw control byte"
    fi
}

# ---------------------------------------------------------------- config files and values

tcase "a control byte in a config file value is shown escaped, with file and line"
write_d
printf '# comment\nthreads=\x1b[31mX\n' >cfg
sb --config-file=cfg d.lua prepare
assert_exit 1
assert_fatal "cfg:2: invalid value '\\x1b[31mX' for --threads"
assert_no_raw_control err

tcase "a newline in a command-line value keeps the error on one line"
write_d
sb --threads=$'1\n2' d.lua prepare
assert_exit 1
assert_fatal "invalid value '1\\x0a2' for --threads"
assert_lines err 1

tcase "a config file starting with a UTF-8 byte order mark is read"
write_ev
printf '\xef\xbb\xbfthreads=2\nevents=4\ntime=0\n' >cfg
sb --config-file=cfg ev.lua run
assert_exit 0
assert_match out "Number of threads: 2"
assert_match out "total number of events: +4"

tcase "an unknown option from a config file names the file and line"
write_o
printf 'x=2\n\nnosuch=1\n' >cfg
sb --config-file=cfg o.lua prepare
assert_exit 1
assert_fatal "cfg:3: unknown option: --nosuch"

tcase "a config file line 'NAME VALUE' without '=' does not print the value (a password)"
write_o
printf 'mysql-password Pw-Xq83zKv\n' >cfg
sb --config-file=cfg o.lua prepare
assert_exit 1
assert_fatal "cfg:1: unknown option: --mysql-password (expected NAME=VALUE"
assert_not_contains err "Pw-Xq83zKv"
assert_not_contains out "Pw-Xq83zKv"
sb "--pgsql-password Pw-Xq83zKv" o.lua prepare
assert_exit 1
assert_fatal "unknown option: --pgsql-password (expected NAME=VALUE"
assert_not_contains err "Pw-Xq83zKv"

tcase "a value checked after parsing names the config file line"
write_o
printf 'threads=1\n  tx-late = nope\n' >cfg
sb --config-file=cfg o.lua prepare
assert_exit 1
assert_fatal "cfg:2: invalid value 'nope' for --tx-late"

tcase "the command line overrides the config file without a location"
write_o
printf 'tx-late=nope\n' >cfg
sb --config-file=cfg --tx-late=bad o.lua prepare
assert_exit 1
assert_fatal "invalid value 'bad' for --tx-late"
assert_not_contains err "cfg:"

tcase "enumerated SQLite pragmas reject unknown values"
write_d
sb --sqlite-synchronous=abc d.lua prepare
assert_exit 1
assert_fatal "invalid value 'abc' for --sqlite-synchronous"
sb --sqlite-journal-mode=bogus d.lua prepare
assert_exit 1
assert_fatal "invalid value 'bogus' for --sqlite-journal-mode"
sb --sqlite-synchronous=FULL --sqlite-journal-mode=delete d.lua prepare
assert_exit 0

tcase "ignore lists take error numbers, SQLSTATEs or all, nothing else"
write_d
for v in inf 12x3 40P0 '1213,nan'; do
    sb --db-ignore-errors="$v" d.lua prepare
    assert_exit 1
    assert_fatal "for --db-ignore-errors: expected error numbers"
done
sb --sqlite-ignore-errors=busy d.lua prepare
assert_exit 1
assert_fatal "invalid value 'busy' for --sqlite-ignore-errors"
sb --db-ignore-errors=1213,40P01,all d.lua prepare
assert_exit 0

tcase "typed general options reject out-of-range values with one line"
write_d
for o in time=-1 warmup-time=-1 rate=-1 tx-jitter=-1 sweep-cooldown=-1 events=-1 \
         server-pid=abc report-checkpoints=abc percentile=abc forced-shutdown=abc \
         tx-late=x rand-type=x verbosity=9 db-ps-mode=x db-reconnect-timeout=-1 \
         sqlite-busy-timeout=-1 threads=0 time=inf rate=nan; do
    sb --"$o" d.lua prepare
    [ "$SB_RC" = 1 ] || fail "--$o: exit $SB_RC, expected 1"
    assert_fatal "--${o%%=*}"
done

# ---------------------------------------------------------------- hostile scripts

# hostile NAME BODY EXPECTED: the script BODY ends `run` with exit 1 and
# one FATAL line containing EXPECTED, within --time=2 plus a 10 s grace
# (a hang guard, not a timing claim).
hostile() {
    local start
    tcase "hostile script: $1"
    printf '%s\n' "$2" >h.lua
    start=$(date +%s)
    sb h.lua run --time=2
    assert_exit 1
    assert_fatal "$3"
    assert_lt $(($(date +%s) - start)) 12 "seconds until exit"
}

hostile "infinite recursion in event" \
    'local function f() return 1 + f() end function event() f() end' "stack overflow"
hostile "infinite recursion at load time" \
    'local function f() return 1 + f() end f()' "stack overflow"
hostile "error(nil)" 'function event() error(nil) end' "error of type nil"
hostile "error with a table" 'function event() error({}) end' "(a table)"
hostile "error with a table whose __tostring fails" \
    'function event() error(setmetatable({}, {__tostring = function() error("x") end})) end' \
    "(a table)"
hostile "a 1 MB error message" 'function event() error(string.rep("x", 1e6)) end' "xxxx"
hostile "a string too large to build" \
    'function event() local s = string.rep("x", 2^31 - 1) end' "out of memory (Lua) in event()"
hostile "coroutine.yield outside a coroutine" 'function event() coroutine.yield() end' \
    "attempt to yield"
hostile "resuming a coroutine from itself" \
    'function event() local co co = coroutine.create(function() assert(coroutine.resume(co)) end) assert(coroutine.resume(co)) end' \
    "cannot resume"
hostile "os.exit in event" 'function event() os.exit(0) end' "os.exit() called in a benchmark thread"
hostile "os.exit in thread_init" 'function thread_init() os.exit(3) end function event() end' \
    "os.exit() called in a benchmark thread"

tcase "hostile script: the 1 MB error stays a bounded line"
printf 'function event() error(string.rep("x", 1e6)) end\n' >h.lua
sb h.lua run --time=2
assert_exit 1
assert_lt "$(wc -c <err)" 8192 "bytes on stderr"

tcase "os.exit in the script body (sysbench as a Lua interpreter) keeps its status"
printf 'os.exit(3)\n' >h.lua
sb h.lua
assert_exit 3

finish
