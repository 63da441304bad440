#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Cases of tests/conformance/conformance_tests.sh: every script bundled
# with sysbench 1.0.20 (copied unmodified from $SB_CONF_SCRIPTS into this
# scratch directory) against MariaDB and PostgreSQL: prepare, a short run,
# cleanup, each checked against the servers' own view and the 1.0 report.
# Run by tests/harness/server_tests.sh (servers.env exported, SB_BIN set).

set -uo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

SCRIPTS="$PWD/scripts"
mkdir -p "$SCRIPTS"
cp -- "$SB_CONF_SCRIPTS"/*.lua "$SCRIPTS"/

# Run sizes: small enough that the whole suite takes a few minutes on two
# cores, large enough that every script does real work.
readonly CONF_THREADS=4
readonly CONF_TIME=3
# With 1,000 rows, 4 writers on PostgreSQL deadlock in about 3% of
# transactions under either tool, and a loaded machine (fewer transactions,
# each waiting out deadlock_timeout) pushed that past 10%; 10,000 rows keep
# conflicts rare while prepare stays quick.
readonly CONF_TABLE_SIZE=10000
# Largest share of ignored errors (deadlocks, duplicate keys) accepted, in
# percent of transactions; sysbench 1.0.20 stays well under 5 here.
readonly CONF_MAX_IGNORED_PCT=10

# conf_cli DRIVER SQL: sb_cli with a time budget.
# shellcheck disable=SC2016 # expanded by the inner shell
conf_cli() {
    timeout -k 5 30 bash -c '. "$SB_CASE_LIB"; sb_cli "$1" "$2"' conf_cli "$1" "$2"
}

# conf_tables DRIVER: the names of the sbtest* tables, one a line, sorted.
conf_tables() {
    case "$1" in
    mysql)
        conf_cli mysql "SELECT table_name FROM information_schema.tables
            WHERE table_schema = DATABASE() AND table_name LIKE 'sbtest%'"
        ;;
    pgsql)
        conf_cli pgsql "SELECT tablename FROM pg_tables
            WHERE schemaname = 'public' AND tablename LIKE 'sbtest%'"
        ;;
    esac | sort
}

# conf_drop_all DRIVER: a failed case must not leave tables to the next.
conf_drop_all() {
    local t
    for t in $(conf_tables "$1"); do
        conf_cli "$1" "DROP TABLE IF EXISTS $t" >/dev/null || true
    done
}

# conf_explain OUT ERR WHAT: the first FATAL line, the tail of the output
# and a reason, for a failed step.
conf_explain() {
    local fatal
    fatal=$(grep -h -m 1 'FATAL' "$1" "$2" | head -n 1 || true)
    echo "---- tail of the output of $3"
    tail -n 12 "$1" | sed 's/^/  | /'
    tail -n 8 "$2" | sed 's/^/  ! /'
    if [ -n "$fatal" ]; then
        echo "first FATAL: $fatal"
    fi
}

# conf_step WHAT OUT ERR ARGS...: one sysbench invocation that must exit 0
# and print no FATAL line.
conf_step() {
    local what=$1 out=$PWD/$2 err=$PWD/$3 rc=0
    shift 3
    (cd "$SCRIPTS" && sb_run "$out" "$err" "$@") || rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        conf_explain "$out" "$err" "$what"
        sb_fail "$what did not finish within ${SB_CASE_TIMEOUT}s"
        return 1
    fi
    if [ "$rc" -ne 0 ]; then
        conf_explain "$out" "$err" "$what"
        sb_fail "$what exited with $rc"
        return 1
    fi
    if grep -q 'FATAL' "$out" "$err"; then
        conf_explain "$out" "$err" "$what"
        sb_fail "$what printed a FATAL line"
        return 1
    fi
}

# conf_expect_tables DRIVER EXPECTED: the sbtest* tables are exactly
# EXPECTED (space-separated names, sorted).
conf_expect_tables() {
    local have
    have=$(conf_tables "$1" | tr '\n' ' ' | sed 's/ $//')
    if [ "$have" != "$2" ]; then
        sb_fail "tables on the server are '$have', expected '$2'"
        return 1
    fi
}

# conf_expect_rows DRIVER TABLE N: TABLE holds N rows (N may be "+" for
# "at least one").
conf_expect_rows() {
    local n
    n=$(conf_cli "$1" "SELECT COUNT(*) FROM $2") || {
        sb_fail "cannot count the rows of $2"
        return 1
    }
    if [ "$3" = "+" ]; then
        if [ "$n" -lt 1 ]; then
            sb_fail "$2 is empty after the run"
            return 1
        fi
    elif [ "$n" != "$3" ]; then
        sb_fail "$2 holds $n rows, expected $3"
        return 1
    fi
}

# conf_field FILE ERE WHAT: the report has a line matching ERE.
conf_field() {
    if ! grep -q -E -- "$2" "$1"; then
        sb_fail "report: no parseable '$3' line"
        return 1
    fi
}

# conf_check_report FILE: the sysbench 1.0 final report, with every field a
# 1.0 parser reads, consistent totals, events, and few ignored errors.
conf_check_report() {
    local f=$1 n='[0-9]+' x='[0-9]+\.[0-9]+' r w o t trx ign
    local rate="\\(${x} per sec\\.\\)"
    conf_field "$f" "^\\[ ${n}s \\] thds: ${n} tps: ${x} qps: ${x} \\(r/w/o: ${x}/${x}/${x}\\) lat \\(ms,95%\\): ${x} err/s: ${x} reconn/s: ${x}" \
        "interval report" || return 1
    conf_field "$f" '^SQL statistics:$' "SQL statistics:" || return 1
    conf_field "$f" '^    queries performed:$' "queries performed:" || return 1
    conf_field "$f" "^        read: +${n}$" "read:" || return 1
    conf_field "$f" "^        write: +${n}$" "write:" || return 1
    conf_field "$f" "^        other: +${n}$" "other:" || return 1
    conf_field "$f" "^        total: +${n}$" "total:" || return 1
    conf_field "$f" "^    transactions: +${n} +${rate}$" "transactions:" || return 1
    conf_field "$f" "^    queries: +${n} +${rate}$" "queries:" || return 1
    conf_field "$f" "^    ignored errors: +${n} +${rate}$" "ignored errors:" || return 1
    conf_field "$f" "^    reconnects: +${n} +${rate}$" "reconnects:" || return 1
    conf_field "$f" '^General statistics:$' "General statistics:" || return 1
    conf_field "$f" "^    total time: +${x}s$" "total time:" || return 1
    conf_field "$f" "^    total number of events: +${n}$" "total number of events:" || return 1
    conf_field "$f" '^Latency \(ms\):$' "Latency (ms):" || return 1
    conf_field "$f" "^ +min: +${x}$" "min:" || return 1
    conf_field "$f" "^ +avg: +${x}$" "avg:" || return 1
    conf_field "$f" "^ +max: +${x}$" "max:" || return 1
    conf_field "$f" "^ +95th percentile: +${x}$" "95th percentile:" || return 1
    conf_field "$f" "^ +sum: +${x}$" "sum:" || return 1
    conf_field "$f" '^Threads fairness:$' "Threads fairness:" || return 1
    conf_field "$f" "^    events \\(avg/stddev\\): +${x}/${x}$" "events (avg/stddev):" || return 1
    conf_field "$f" "^    execution time \\(avg/stddev\\): +${x}/${x}$" \
        "execution time (avg/stddev):" || return 1

    r=$(sb_text_report_num "$f" "read:")
    w=$(sb_text_report_num "$f" "write:")
    o=$(sb_text_report_num "$f" "other:")
    t=$(sb_text_report_num "$f" "total:")
    if [ $((r + w + o)) -ne "$t" ]; then
        sb_fail "report: read $r + write $w + other $o is not total $t"
        return 1
    fi
    trx=$(sb_text_report_num "$f" "transactions:")
    if [ "$trx" -lt 1 ]; then
        sb_fail "report: no transactions"
        return 1
    fi
    ign=$(sb_text_report_num "$f" "ignored errors:")
    if [ $((ign * 100)) -gt $((trx * CONF_MAX_IGNORED_PCT)) ]; then
        sb_fail "report: $ign ignored errors for $trx transactions (more than ${CONF_MAX_IGNORED_PCT}%)"
        return 1
    fi
}

# conf_case SCRIPT DRIVER: prepare, run, cleanup with 1.0's command lines.
conf_case() {
    local script=$1 drv=$2 tables=2 expect rows i
    local -a common
    read -r -a common <<<"$(sb_driver_args "$drv")"
    case $script in
    select_random_*) tables=1 ;;
    bulk_insert) tables=$CONF_THREADS ;;
    esac
    # bulk_insert declares no options: a 1.0 user gives it only --threads
    # (one table per thread).
    if [ "$script" != bulk_insert ]; then
        common+=("--tables=$tables" "--table-size=$CONF_TABLE_SIZE")
    fi
    common+=("--threads=$CONF_THREADS")
    rows=$CONF_TABLE_SIZE
    [ "$script" = bulk_insert ] && rows=0
    expect=$(for i in $(seq 1 "$tables"); do echo "sbtest$i"; done | sort | tr '\n' ' ' |
        sed 's/ $//')

    conf_drop_all "$drv"
    conf_step prepare prepare.out prepare.err "./$script.lua" "${common[@]}" prepare ||
        return 1
    conf_expect_tables "$drv" "$expect" || return 1
    for i in $(seq 1 "$tables"); do
        conf_expect_rows "$drv" "sbtest$i" "$rows" || return 1
    done

    # shellcheck disable=SC2086 # SB_CONF_RUN_ARGS: words, or nothing
    conf_step run run.out run.err "./$script.lua" "${common[@]}" \
        "--time=$CONF_TIME" --report-interval=1 ${SB_CONF_RUN_ARGS:-} run || return 1
    conf_check_report run.out || {
        conf_explain run.out run.err run
        return 1
    }
    if [ "$script" = bulk_insert ]; then
        for i in $(seq 1 "$tables"); do
            conf_expect_rows "$drv" "sbtest$i" + || return 1
        done
    fi

    conf_step cleanup cleanup.out cleanup.err "./$script.lua" "${common[@]}" cleanup ||
        return 1
    conf_expect_tables "$drv" "" || return 1
}

# Each case in a directory of its own, so its output files stay apart.
conf_case_in_dir() {
    mkdir -p "$PWD/$1-$2" && cd "$PWD/$1-$2" && conf_case "$1" "$2"
}

for script in $SB_CONF_NAMES; do
    for drv in mysql pgsql; do
        sb_case "$script/$drv" conf_case_in_dir "$script" "$drv"
    done
done
for drv in mysql pgsql; do
    conf_drop_all "$drv"
done
