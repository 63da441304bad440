# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Shared helpers for the command-line and Lua scenario test suites
# (tests/cli/*.sh, tests/lua/lua_tests.sh). A suite sources this
# file, then declares its cases one after the other:
#
#   tcase "threads option rejects zero"
#   sb --threads=0 ev.lua run
#   assert_exit 1
#   assert_fatal "invalid value '0' for --threads"
#
#   ...
#   finish
#
# `tcase NAME` closes the previous case (PASS unless an assertion failed in
# it) and opens a new one in a fresh, empty temporary directory that becomes
# the current directory. (The brief calls it `case NAME`; `case` is a bash
# keyword and cannot be a function name.) Assertions never abort the
# suite: a failed one prints why, marks the case failed and returns 1, so
# a case may stop early with `|| return` when later checks make no sense.
# `finish` prints exactly one "N passed, M failed" line and exits non-zero
# when M > 0.
#
# SB_BIN, SB_SRCDIR and SB_BUILDDIR come from `make check`; the defaults
# below let a developer run a suite by hand from anywhere.

SB_BIN=${SB_BIN:-/tmp/b/sysbench/sysbench}
SB_SRCDIR=${SB_SRCDIR:-/work/main}
SB_BUILDDIR=${SB_BUILDDIR:-$(dirname "$(dirname "$SB_BIN")")}
export SB_BIN SB_SRCDIR SB_BUILDDIR

# Upper bound for a single sysbench invocation, so that a hang shows up as a
# failed case (exit status 124) instead of a stalled `make check`.
SB_TIMEOUT=${SB_TIMEOUT:-60}

# A developer's LUA_PATH or cwd scripts must not change what the suites see.
unset LUA_PATH LUA_CPATH
# Nor a CI runner's PostgreSQL settings: PGHOST, PGSERVICE or PGDATABASE
# make pgsql the default driver, and the suites run on SQLite unless a
# case chooses otherwise (the PostgreSQL cases set their own).
unset PGHOST PGSERVICE PGDATABASE

_T_PASSED=0
_T_FAILED=0
_T_NAME=
_T_BAD=0
_T_SEQ=0
_T_FAILED_NAMES=()

_T_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/sbtest.XXXXXX") || {
    echo "cannot create a temporary directory" >&2
    exit 99
}

_t_cleanup() {
    cd / || true
    if [ -n "${SB_KEEP_TMP:-}" ]; then
        echo "kept temporary files in $_T_ROOT" >&2
    else
        rm -rf "$_T_ROOT"
    fi
}
trap _t_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# need_tool COMMAND WHY: a suite that cannot run without COMMAND fails as
# a whole, with one line saying so.
need_tool() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "$1 is needed $2" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
}

if [ ! -x "$SB_BIN" ]; then
    echo "FAIL: sysbench binary not found at $SB_BIN" >&2
    echo "0 passed, 1 failed"
    exit 1
fi

# ---------------------------------------------------------------- fixtures

# write_ev: ev.lua, an empty event, the cheapest script that can `run`.
write_ev() {
    echo 'function event() end' >ev.lua
}

_t_close() {
    [ -n "$_T_NAME" ] || return 0
    if [ "$_T_BAD" -eq 0 ]; then
        _T_PASSED=$((_T_PASSED + 1))
        echo "PASS: $_T_NAME"
    else
        _T_FAILED=$((_T_FAILED + 1))
        _T_FAILED_NAMES+=("$_T_NAME")
        echo "FAIL: $_T_NAME"
    fi
    _T_NAME=
}

# tcase NAME: starts a test case in its own empty directory.
tcase() {
    _t_close
    _T_NAME=$1
    _T_BAD=0
    _T_SEQ=$((_T_SEQ + 1))
    T="$_T_ROOT/$(printf '%03d' "$_T_SEQ")"
    mkdir -p "$T" && cd "$T" || { fail "cannot enter $T"; return 1; }
    SB_RC=
}

# fail MESSAGE...: marks the current case failed, printing MESSAGE and the
# tail of the last invocation's output for context.
fail() {
    _T_BAD=1
    echo "  [$_T_NAME] $*"
    local f
    for f in out err; do
        if [ -s "$T/$f" ] && [ -z "${_T_SHOWN:-}" ]; then
            echo "    --- $f (last 15 lines):"
            tail -n 15 "$T/$f" | sed 's/^/    | /'
        fi
    done
    _T_SHOWN=1
    return 1
}

# finish: prints the summary line and exits with the suite's status.
finish() {
    _t_close
    if [ "${#_T_FAILED_NAMES[@]}" -gt 0 ]; then
        printf 'failed: %s\n' "${_T_FAILED_NAMES[@]}"
    fi
    echo "$_T_PASSED passed, $_T_FAILED failed"
    [ "$_T_FAILED" -eq 0 ] && exit 0
    exit 1
}

# sb ARGS...: runs sysbench with ARGS in the case directory, stdout in
# ./out, stderr in ./err and the exit status in $SB_RC. Standard input is
# $SB_STDIN when set (a file name), otherwise /dev/null.
sb() {
    _T_SHOWN=
    SB_RC=0
    timeout -k 5 "$SB_TIMEOUT" "$SB_BIN" "$@" \
        <"${SB_STDIN:-/dev/null}" >"$T/out" 2>"$T/err" || SB_RC=$?
    return 0
}

# The scheduler priority a timing case may take for itself, so that the
# figures it asserts (a probe's duration, a virtual server's capacity) are
# its own and not the other processes' on a busy machine (a CI runner, a
# suite beside another): the real-time class when allowed (root, and a
# cgroup that grants real-time time), else a higher nice level, else
# none. The probes sleep most of the time, so they cannot starve others.
_T_PRIO=()
if chrt -f 10 true 2>/dev/null; then
    _T_PRIO=(chrt -f 10)
elif nice -n -10 true 2>/dev/null && [ "$(nice -n -10 nice)" -lt "$(nice)" ]; then
    _T_PRIO=(nice -n -10)
fi

# sb_prio ARGS...: sb at the priority above (as sb without one).
sb_prio() {
    _T_SHOWN=
    SB_RC=0
    timeout -k 5 "$SB_TIMEOUT" "${_T_PRIO[@]}" "$SB_BIN" "$@" \
        <"${SB_STDIN:-/dev/null}" >"$T/out" 2>"$T/err" || SB_RC=$?
    return 0
}

# sb_bg ARGS...: starts sysbench in the background with the same files;
# the process id is in $SB_PID; collect it with sb_wait.
sb_bg() {
    _T_SHOWN=
    SB_RC=
    "$SB_BIN" "$@" </dev/null >"$T/out" 2>"$T/err" &
    SB_PID=$!
}

sb_wait() {
    SB_RC=0
    wait "$SB_PID" || SB_RC=$?
}

# ---------------------------------------------------------------- assertions

assert_exit() {
    [ "$SB_RC" = "$1" ] || fail "exit status $SB_RC, expected $1"
}

# assert_contains FILE STRING: FILE has a line containing STRING (fixed).
assert_contains() {
    grep -qF -- "$2" "$1" 2>/dev/null || fail "$1 lacks '$2'"
}

# assert_match FILE REGEX: FILE has a line matching the extended REGEX.
assert_match() {
    grep -qE -- "$2" "$1" 2>/dev/null || fail "$1 has no line matching /$2/"
}

assert_not_contains() {
    if grep -qF -- "$2" "$1" 2>/dev/null; then
        fail "$1 unexpectedly contains '$2'"
    fi
}

# assert_lines FILE N: FILE has exactly N lines.
assert_lines() {
    local n
    n=$(wc -l <"$1" 2>/dev/null || echo missing)
    [ "$n" = "$2" ] || fail "$1 has $n lines, expected $2"
}

# assert_count FILE REGEX N: exactly N lines of FILE match REGEX.
assert_count() {
    local n
    n=$(grep -cE -- "$2" "$1" 2>/dev/null)
    [ "$n" = "$3" ] || fail "$1: $n lines match /$2/, expected $3"
}

assert_eq() {
    [ "$1" = "$2" ] || fail "${3:-value} is '$1', expected '$2'"
}

assert_ne() {
    [ "$1" != "$2" ] || fail "${3:-value} is '$1', expected something else"
}

# Numeric comparisons (integers or decimals): assert_num A OP B [WHAT]
# with OP one of == != < <= > >=.
assert_num() {
    local a=$1 op=$2 b=$3
    if ! [[ $a =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; then
        fail "${4:-value} '$a' is not a number"
        return 1
    fi
    awk -v a="$a" -v b="$b" -v op="$op" 'BEGIN {
        if (op == "==") r = (a + 0 == b + 0);
        else if (op == "!=") r = (a + 0 != b + 0);
        else if (op == "<") r = (a + 0 < b + 0);
        else if (op == "<=") r = (a + 0 <= b + 0);
        else if (op == ">") r = (a + 0 > b + 0);
        else if (op == ">=") r = (a + 0 >= b + 0);
        else r = 0;
        exit !r }' || fail "${4:-value} $a is not $op $b"
}
assert_gt() { assert_num "$1" ">" "$2" "${3:-}"; }
assert_ge() { assert_num "$1" ">=" "$2" "${3:-}"; }
assert_lt() { assert_num "$1" "<" "$2" "${3:-}"; }
assert_le() { assert_num "$1" "<=" "$2" "${3:-}"; }

# assert_between VALUE LOW HIGH [WHAT]: LOW <= VALUE <= HIGH; the two
# bounds are checked (and reported) separately, as assert_ge and assert_le.
assert_between() {
    assert_ge "$1" "$2" "${4:-}"
    assert_le "$1" "$3" "${4:-}"
}

# assert_fatal STRING: the run failed cleanly: stderr holds exactly one
# line starting with "FATAL: ", that line contains STRING, and there is no
# sign of a crash or a Lua backtrace anywhere in the output.
assert_fatal() {
    local n
    n=$(grep -c '^FATAL: ' "$T/err")
    [ "$n" = 1 ] || { fail "stderr has $n FATAL lines, expected 1"; return 1; }
    grep '^FATAL: ' "$T/err" | grep -qF -- "$1" ||
        fail "the FATAL line lacks '$1'"
    assert_no_crash
}

# assert_no_crash: no crash, sanitizer report or Lua traceback in the output.
assert_no_crash() {
    if grep -qiE 'segmentation fault|core dumped|stack traceback|traceback|AddressSanitizer|panic|Aborted' \
        "$T/out" "$T/err"; then
        fail "output shows a crash or a traceback"
        return 1
    fi
    # Death by a signal (other than the ones tests send) is a crash.
    case "$SB_RC" in
    132|134|135|136|139) fail "killed by signal $((SB_RC - 128))" ;;
    esac
}

# ---------------------------------------------------------------- report parsing

# report_num FILE LABEL: the first number following LABEL (a fixed string)
# on the first line containing it; empty when absent.
report_num() {
    grep -F -- "$2" "$1" 2>/dev/null | head -n 1 |
        awk -v l="$2" '{ i = index($0, l); s = substr($0, i + length(l));
            if (match(s, /-?[0-9]+(\.[0-9]+)?/)) print substr(s, RSTART, RLENGTH) }'
}

# kv FILE KEY: the value of a "KEY=value" line printed by a test script.
kv() {
    grep -E "^$2=" "$1" 2>/dev/null | head -n 1 | cut -d= -f2-
}

# sum_kv FILE PREFIX: the sum of the values of every PREFIX<n>=value line
# (one per thread, n the thread id).
sum_kv() {
    grep -E "^$2[0-9]+=" "$1" | cut -d= -f2 | awk '{ s += $1 } END { print s + 0 }'
}

# assert_kv FILE KEY VALUE: a test script printed KEY=VALUE.
assert_kv() {
    local v
    if ! grep -qE "^$2=" "$1" 2>/dev/null; then
        fail "$1 has no $2= line"
        return 1
    fi
    v=$(kv "$1" "$2")
    [ "$v" = "$3" ] || fail "$2 is '$v', expected '$3'"
}

# jget FILE EXPR: prints EXPR evaluated in Python with `d` the document in
# FILE (booleans, null, lists and objects printed as JSON). When FILE is
# not valid JSON or EXPR fails it prints "<error: ...>" instead, which no
# assertion expects (it runs in $(...), where `fail` could not mark the
# case).

jget() {
    python3 - "$1" "$2" <<'EOF' 2>&1
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    v = eval(sys.argv[2])
except Exception as e:
    print("<error: %s: %s>" % (type(e).__name__, e))
    sys.exit(0)
print(json.dumps(v) if isinstance(v, (bool, type(None), dict, list)) else v)
EOF
}

# csv_end FILE [all]: reads a --csv file with python3's csv module (plain
# CSV: no comment lines, every row as wide as the header) and prints its
# last row's ended field, or with "all" "ended|deadline|cancelled".
csv_end() {
    python3 - "$1" "${2:-}" <<'EOF' 2>&1
import csv, sys
try:
    rows = list(csv.DictReader(open(sys.argv[1], newline="")))
    for r in rows:
        if None in r or None in r.values():
            raise ValueError("row %s is not as wide as the header" % r)
    last = rows[-1]
    if sys.argv[2] == "all":
        print("%s|%s|%s" % (last["ended"], last["deadline"], last["cancelled"]))
    else:
        print(last["ended"])
except Exception as e:
    print("<error: %s: %s>" % (type(e).__name__, e))
EOF
}

# wait_for FILE STRING: waits (up to 20 s) until FILE contains STRING, so a
# signal is sent once the phase under test has begun, not after a guess.
wait_for() {
    local i
    for i in $(seq 200); do
        grep -qF -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    fail "$1 never showed '$2'"
    return 1
}
