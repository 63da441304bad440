# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Helpers for the server test cases in tests/drivers/*.sh; sourced by each
# case file, which server_tests.sh runs with servers.env exported, SB_BIN
# set and the current directory a scratch directory of its own.
#
# A case file declares its cases with `sb_case NAME FUNCTION [ARGS...]`.
# Each case runs in a subshell with its output captured, and prints exactly
# one "PASS: NAME" or "FAIL: NAME" line (a failure is followed by the
# indented tail of what the case printed). server_tests.sh counts those
# lines. Case functions report problems with sb_fail, which returns 1, so
# they chain checks as `check ... || return 1`.

# Upper bound for one sysbench invocation: a hang is a failure, not a stall
# of the whole test suite.
SB_CASE_TIMEOUT=${SB_CASE_TIMEOUT:-120}

sb_fail() {
    echo "reason: $*"
    return 1
}

# sb_case NAME FUNCTION [ARGS...]
sb_case() {
    local name=$1 log
    shift
    log="$PWD/case-${name//[^A-Za-z0-9_.-]/_}.log"
    if ( set +e; "$@" ) >"$log" 2>&1; then
        echo "PASS: $name"
    else
        echo "FAIL: $name"
        tail -n 30 "$log" | sed 's/^/    /'
    fi
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

# sb_text_report_num FILE LABEL: the first number after LABEL (for example
# "transactions:") in a report, or nothing when the label is missing.
sb_text_report_num() {
    awk -v label="$2" '{
        i = index($0, label)
        if (i > 0) {
            rest = substr($0, i + length(label))
            if (match(rest, /[0-9]+(\.[0-9]+)?/)) {
                print substr(rest, RSTART, RLENGTH)
                exit
            }
        }
    }' "$1"
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
