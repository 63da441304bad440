# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# The one test library: every shell suite sources it, the command-line and
# Lua scenario suites (tests/cli/*.sh, tests/lua/*.sh) directly, the
# server cases (tests/drivers/*.sh, tests/conformance/cases/*.sh) through
# tests/harness/case_lib.sh, which sets SB_CASE_MODE and sources this
# file. tests/README.md says which suite tests what and how to add a case.
#
# A scenario suite declares its cases one after the other:
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
# it, SKIP when it called `skip`) and opens a new one in a fresh, empty
# temporary directory that becomes the current directory. (The brief calls
# it `case NAME`; `case` is a bash keyword and cannot be a function name.)
# Assertions never abort the suite: a failed one prints why, marks the
# case failed and returns 1, so a case may stop early with `|| return`
# when later checks make no sense. `finish` prints exactly one "N passed,
# M failed, K skipped" line and exits 1 when M > 0, 77 (automake's SKIP)
# when nothing passed and something was skipped, else 0.
#
# A server case file declares `sb_case NAME FUNCTION [ARGS...]`; the
# function runs in a subshell, reports a problem with `fail` (or its older
# name `sb_fail`), which returns 1, and a case that cannot run here calls
# `sb_skip WHY`. Each case prints one "PASS: NAME", "FAIL: NAME" or "SKIP:
# NAME (WHY)" line, which tests/harness/server_tests.sh counts.
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

_T_PASSED=0
_T_FAILED=0
_T_SKIPPED=0
_T_NAME=
_T_BAD=0
_T_SKIP=
_T_SEQ=0
_T_FAILED_NAMES=()

# need_tool COMMAND WHY: a suite that cannot run without COMMAND fails as
# a whole, with one line saying so.
need_tool() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "$1 is needed $2" >&2
        echo "0 passed, 1 failed, 0 skipped"
        exit 1
    fi
}

# What a scenario suite sets up for itself; a server case file has its
# environment from server_tests.sh (servers.env, a scratch directory).
if [ -z "${SB_CASE_MODE:-}" ]; then
    # A developer's LUA_PATH or cwd scripts must not change what the suites see.
    unset LUA_PATH LUA_CPATH
    # Nor a CI runner's PostgreSQL settings: PGHOST, PGSERVICE or PGDATABASE
    # make pgsql the default driver, and the suites run on SQLite unless a
    # case chooses otherwise (the PostgreSQL cases set their own).
    unset PGHOST PGSERVICE PGDATABASE

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

    if [ ! -x "$SB_BIN" ]; then
        echo "FAIL: sysbench binary not found at $SB_BIN" >&2
        echo "0 passed, 1 failed, 0 skipped"
        exit 1
    fi
fi

# ---------------------------------------------------------------- fixtures

# write_ev: ev.lua, an empty event, the cheapest script that can `run`.
write_ev() {
    echo 'function event() end' >ev.lua
}

# fixture NAME: copies tests/fixtures/NAME (a script several suites or
# case files use) into the current directory.
fixture() {
    cp "$SB_SRCDIR/tests/fixtures/$1" . || fail "no fixture $1"
}

_t_close() {
    [ -n "$_T_NAME" ] || return 0
    if [ "$_T_BAD" -ne 0 ]; then
        _T_FAILED=$((_T_FAILED + 1))
        _T_FAILED_NAMES+=("$_T_NAME")
        echo "FAIL: $_T_NAME"
    elif [ -n "$_T_SKIP" ]; then
        _T_SKIPPED=$((_T_SKIPPED + 1))
        echo "SKIP: $_T_NAME ($_T_SKIP)"
    else
        _T_PASSED=$((_T_PASSED + 1))
        echo "PASS: $_T_NAME"
    fi
    _T_NAME=
}

# tcase NAME: starts a test case in its own empty directory.
tcase() {
    _t_close
    _T_NAME=$1
    _T_BAD=0
    _T_SKIP=
    _T_SEQ=$((_T_SEQ + 1))
    T="$_T_ROOT/$(printf '%03d' "$_T_SEQ")"
    mkdir -p "$T" && cd "$T" || { fail "cannot enter $T"; return 1; }
    SB_RC=
}

# skip WHY: the current case cannot run here (a missing optional tool, a
# sanitizer that defers signals): it is reported as "SKIP: NAME (WHY)" and
# counted apart, never as a pass. A failed assertion still fails it.
skip() {
    _T_SKIP=$1
}

# fail MESSAGE...: marks the current case failed, printing MESSAGE and the
# tail of the last invocation's output for context, and returns 1. In a
# server case (SB_CASE_MODE) it prints "reason: MESSAGE" into the case's
# log and returns 1; sb_case reports the case from its status.
fail() {
    if [ -n "${SB_CASE_MODE:-}" ]; then
        echo "reason: $*"
        return 1
    fi
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

# finish: prints the summary line and exits with the suite's status: 1
# when a case failed, 77 (automake's SKIP) when every case was skipped.
finish() {
    _t_close
    if [ "${#_T_FAILED_NAMES[@]}" -gt 0 ]; then
        printf 'failed: %s\n' "${_T_FAILED_NAMES[@]}"
    fi
    echo "$_T_PASSED passed, $_T_FAILED failed, $_T_SKIPPED skipped"
    [ "$_T_FAILED" -eq 0 ] || exit 1
    [ "$_T_PASSED" -eq 0 ] && [ "$_T_SKIPPED" -gt 0 ] && exit 77
    exit 0
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
    # The shell truncates them only once the child runs: a wait_for right
    # after must not read an earlier run's lines.
    rm -f "$T/out" "$T/err"
    "$SB_BIN" "$@" </dev/null >"$T/out" 2>"$T/err" &
    SB_PID=$!
}

sb_wait() {
    SB_RC=0
    wait "$SB_PID" || SB_RC=$?
}

# sb_signal_child PID [SIGNAL]: sends SIGNAL (default TERM) to PID only
# while PID is still a child of this shell. Bash reaps a background job
# as soon as it ends, so its PID may already belong to another process
# (pid_max is 32,768 here, and several suites run at once): a plain kill
# once signalled another suite's sysbench. A zombie not yet collected
# still names this shell as its parent and takes the signal harmlessly.
sb_signal_child() {
    local stat rest ppid
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    rest=${stat##*) }
    read -r _ ppid _ <<<"$rest"
    [ "$ppid" = "$BASHPID" ] && kill -"${2:-TERM}" "$1" 2>/dev/null
    return 0
}

# sb_stop_child PID: sb_signal_child PID TERM, then collects it.
sb_stop_child() {
    sb_signal_child "$1" TERM
    wait "$1" 2>/dev/null || true
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

# report_num FILE LABEL: the first number (possibly negative) after LABEL
# (a fixed string, for example "transactions:") on a line holding both;
# empty when there is none. sb_text_report_num is its older name.
report_num() {
    awk -v label="$2" '{
        i = index($0, label)
        if (i > 0) {
            rest = substr($0, i + length(label))
            if (match(rest, /-?[0-9]+(\.[0-9]+)?/)) {
                print substr(rest, RSTART, RLENGTH)
                exit
            }
        }
    }' "$1" 2>/dev/null
}
sb_text_report_num() { report_num "$@"; }

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

# An interval report's line, whatever its second (extended regex): a
# reporter held up past a whole tick on a loaded machine folds that tick
# into its next line, so "[ 1s ]" itself may never come.
REPORT_LINE='^\[ [0-9]+s \]'

# wait_for_report FILE [N]: waits (up to 20 s) until FILE has an interval
# line of N s or later (default 1).
wait_for_report() {
    local i t
    for i in $(seq 200); do
        t=$(grep -oE "$REPORT_LINE" "$1" 2>/dev/null | tail -n 1 | tr -dc '0-9')
        [ -n "$t" ] && [ "$t" -ge "${2:-1}" ] && return 0
        sleep 0.1
    done
    fail "$1 never showed an interval line of ${2:-1} s or later"
    return 1
}

# ---------------------------------------------------------------- JSON documents

# py CODE FILE...: CODE in Python, an expression's value printed, or a
# multi-line program run (it prints what it wants). d is the document in
# FILE; with PY_DOCS=list set by the suite, d is the list of the FILEs'
# documents and pt(i, threads) the point of document i at that thread
# count. pct(point, q) is a point's q-th percentile in ms by the run's own
# rule. An error prints "<error: ...>", which no assertion expects.
py() {
    python3 - "${PY_DOCS:-one}" "$@" <<'PY' 2>&1
import json, math, sys
mode, code, files = sys.argv[1], sys.argv[2], sys.argv[3:]
def pt(i, threads):
    return [p for p in d[i]["points"] if p["threads"] == threads][0]
def pct(p, q):
    # The run's own rule: the upper bound of the bucket holding the
    # ceil(q% of count)-th value, at most the maximum.
    h = p["histogram"]
    total = sum(b[2] for b in h["buckets"])
    x = q * total / 100.0
    target = max(1, min(total, math.ceil(x - x * 1e-12)))
    seen = 0
    for lo, hi, c in h["buckets"]:
        seen += c
        if seen >= target:
            return min(hi, h["max_ns"]) / 1e6
try:
    if mode == "list":
        d = [json.load(open(f)) for f in files]
    else:
        d = json.load(open(files[0]))
    if "\n" in code:
        exec(code)
    else:
        r = eval(code)
        # The several-document suites (scale, compare) were written for
        # print(EXPR): a tuple prints space-joined there, as a repr in
        # the one-document suites.
        print(*r) if mode == "list" and isinstance(r, tuple) else print(r)
except Exception as e:
    print("<error: %s: %s>" % (type(e).__name__, e))
PY
}

# verdict LABEL FILE [FLAG...]: the self-check of FILE's first point raised
# exactly FLAGs (contention tolerated where others took most of the
# machine); prints the labelled row, fails the case otherwise.
verdict() {
    local label=$1 f=$2 got
    shift 2
    got=$(python3 - "$f" "$@" <<'PY'
import json, sys
try:
    sc = json.load(open(sys.argv[1]))["points"][0]["selfcheck"]
except Exception as e:
    print("WRONG <no selfcheck: %s>" % e)
    sys.exit(0)
want, got = set(sys.argv[2:]), set(sc["flags"])
extra = got - want
# When other processes held a good part of the machine, contention beside
# the expected verdict is true, and so are late wake-ups: a busy machine
# wakes idle workers late (CI saw a wake-up p99 of 4.7 ms at 10 tx/s with
# others at 98.6%; this machine 3.1 ms at 50 tx/s with others at 27%)
# without the workers queueing for a CPU. On a quiet machine (others under
# 10%) either flag beside the label is still a false alarm.
if sc["contention"]["others_dominant"] or (sc["contention"]["other_cpu_pct"] or 0) >= 10:
    extra -= {"contention", "late-wakeups"}
ok = want <= got and not extra and sc["ok"] == (not got)
print("%s %s" % ("ok" if ok else "WRONG", ",".join(sorted(got)) or "none"))
PY
)
    echo "  labelled run: $label | expected: ${*:-no flag} | got: ${got#* }"
    [ "${got%% *}" = ok ] || { fail "$label: expected ${*:-no flag}, got ${got#* }"; return 1; }
}

# ---------------------------------------------------------------- server cases

# Upper bound for one sysbench invocation: a hang is a failure, not a stall
# of the whole test suite.
SB_CASE_TIMEOUT=${SB_CASE_TIMEOUT:-120}

# sb_fail MESSAGE...: fail's older name in the server cases.
sb_fail() { fail "$@"; }

# sb_case NAME FUNCTION [ARGS...]: runs FUNCTION in a subshell with its
# output in case-NAME.log; prints PASS, FAIL (with the log's tail) or SKIP
# (FUNCTION called sb_skip) for NAME.
sb_case() {
    local name=$1 log rc=0
    shift
    log="$PWD/case-${name//[^A-Za-z0-9_.-]/_}.log"
    ( set +e; "$@" ) >"$log" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ]; then
        echo "PASS: $name"
    elif [ "$rc" -eq 77 ] && grep -q '^skip: ' "$log"; then
        echo "SKIP: $name ($(grep '^skip: ' "$log" | tail -n 1 | cut -c7-))"
    else
        echo "FAIL: $name"
        tail -n 30 "$log" | sed 's/^/    /'
    fi
}

# sb_skip WHY: inside a case function, the case cannot run here (an
# optional tool missing): it ends the case, reported as SKIP, never PASS.
sb_skip() {
    echo "skip: $*"
    exit 77
}

# sb_skip_case NAME WHY: a case the file does not start at all (its tool
# is missing), reported as SKIP like one that called sb_skip.
sb_skip_case() {
    echo "SKIP: $1 ($2)"
}

# sb_run OUT ERR ARGS...: runs the binary with ARGS, stdout to OUT and
# stderr to ERR, and returns its exit status (124 means it timed out).
sb_run() {
    local out=$1 err=$2 rc=0
    shift 2
    timeout -k 5 "$SB_CASE_TIMEOUT" "$SB_BIN" "$@" >"$out" 2>"$err" || rc=$?
    echo "+ sysbench $* -> exit $rc"
    return "$rc"
}

# sb_run_ok WHAT OUT ERR ARGS...: sb_run that must succeed; otherwise it
# shows OUT and ERR and fails with "WHAT exited with STATUS".
sb_run_ok() {
    local what=$1 out=$2 err=$3 rc=0
    shift 3
    sb_run "$out" "$err" "$@" || rc=$?
    if [ "$rc" -ne 0 ]; then
        sb_show "$out" "$err"
        sb_fail "$what exited with $rc"
        return 1
    fi
}

# Arguments selecting DRIVER (mysql or pgsql) on the harness servers.
sb_driver_args() {
    case "$1" in
    mysql) echo "--db-driver=mysql $SB_MYSQL_ARGS" ;;
    pgsql) echo "--db-driver=pgsql $SB_PGSQL_ARGS" ;;
    *) echo "unknown driver $1" >&2; return 1 ;;
    esac
}

# sb_pg_kill_for SECONDS: from inside one PostgreSQL session, terminates
# every sbtest session every 0.05 s for SECONDS of wall time; prints how
# many it ended. One session, not a psql per try: a psql took 1.3 s on a
# loaded machine, longer than a --reconnect=1 session lives, and found
# none. A statement sees pg_stat_activity as one snapshot per
# transaction, so each try clears it; CASE keeps the terminate after the
# filter; the count comes back as a NOTICE.
sb_pg_kill_for() {
    local out
    out=$(sb_cli pgsql "DO \$\$ DECLARE n int := 0; k int;
                t0 timestamptz := clock_timestamp(); BEGIN
                WHILE clock_timestamp() < t0 + interval '$1 s' LOOP
                  PERFORM pg_stat_clear_snapshot();
                  SELECT count(*) INTO k FROM pg_stat_activity a
                   WHERE CASE WHEN a.usename = 'sbtest' AND a.pid <> pg_backend_pid()
                              THEN pg_terminate_backend(a.pid) ELSE false END;
                  n := n + k;
                  PERFORM pg_sleep(0.05);
                END LOOP;
                RAISE NOTICE 'killed=%', n; END \$\$" 2>&1 || true)
    out=$(printf '%s\n' "$out" | sed -n 's/.*killed=\([0-9]*\).*/\1/p')
    echo "${out:-0}"
}

sb_show() {
    local f
    for f in "$@"; do
        echo "---- $f"
        cat "$f"
    done
}

# sb_expect_same EXPECTED_FILE ACTUAL_FILE
sb_expect_same() {
    if ! diff -u "$1" "$2"; then
        sb_fail "output differs from the expected output"
        return 1
    fi
}

# sb_expect_one_line_error ERR_FILE PATTERN: stderr is exactly one
# non-empty line and it matches the extended regular expression PATTERN.
sb_expect_one_line_error() {
    local n
    n=$(grep -c -v '^[[:space:]]*$' "$1" || true)
    if [ "$n" -ne 1 ]; then
        sb_show "$1"
        sb_fail "expected exactly one error line on stderr, got $n"
        return 1
    fi
    if ! grep -q -E -- "$2" "$1"; then
        sb_show "$1"
        sb_fail "the error line does not match /$2/"
        return 1
    fi
}

# sb_expect_absent STRING FILE...: a secret must not be printed anywhere.
sb_expect_absent() {
    local s=$1
    shift
    if grep -q -F -- "$s" "$@"; then
        sb_fail "'$s' appears in the output"
        return 1
    fi
}

# sb_cli DRIVER SQL: runs SQL as the administrator (MariaDB root over the
# unix socket, PostgreSQL postgres over its socket directory) in database
# sbtest, and prints the rows tab-separated without headers. Checks use it
# to look at the server's own view rather than trusting the binary.
sb_cli() {
    case "$1" in
    mysql)
        mariadb --no-defaults -S "$SB_MYSQL_SOCKET" -uroot -N -B -D "$SB_MYSQL_DB" -e "$2"
        ;;
    pgsql)
        psql -X -q -A -t -F $'\t' -v ON_ERROR_STOP=1 -h "$SB_PGSQL_SOCKET_DIR" \
            -p "$SB_PGSQL_PORT" -U postgres -d "$SB_PGSQL_DB" -c "$2"
        ;;
    *) echo "unknown driver $1" >&2; return 1 ;;
    esac
}

# sb_server_ready DRIVER: waits up to 30 s until the server answers a
# query, and for PostgreSQL accepts on the TCP port the runs use (a case
# before this one may have restarted it). Returns 1, with a line, if it
# never does.
sb_server_ready() {
    local _
    for _ in $(seq 1 100); do
        if sb_cli "$1" "SELECT 1" >/dev/null 2>&1 &&
            { [ "$1" != pgsql ] || pg_isready -q -h "$SB_PGSQL_HOST" -p "$SB_PGSQL_PORT"; }; then
            return 0
        fi
        sleep 0.3
    done
    sb_fail "the $1 server did not answer for 30 s before the case"
    return 1
}

# sb_expect_positive FILE LABEL: the report shows LABEL with a value > 0.
sb_expect_positive() {
    local v
    v=$(sb_text_report_num "$1" "$2")
    if [ -z "$v" ]; then
        sb_show "$1"
        sb_fail "no '$2' in the report"
        return 1
    fi
    if ! awk -v v="$v" 'BEGIN { exit !(v > 0) }'; then
        sb_show "$1"
        sb_fail "'$2' is $v, expected more than 0"
        return 1
    fi
}
