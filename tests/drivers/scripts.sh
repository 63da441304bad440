#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The eleven bundled scenario scripts, found by bare name, through prepare,
# a short run with 4 threads and cleanup on both servers. After prepare the
# tables are checked through the server's own client (row count, ids 1..N,
# the k index, the width of c and pad); the run must end with status 0 and
# a complete report counting transactions and the queries the script is
# meant to send; afterwards the rows must still be what the script's
# semantics allow; cleanup must leave no table behind.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

TABLES=2
TABLE_SIZE=2000
RUN_SECONDS=2

# Names of the sbtest tables present, one a line, sorted.
tables_present() {
    sb_cli "$1" "SELECT table_name FROM information_schema.tables
                 WHERE table_schema = $(schema_expr "$1") AND table_name LIKE 'sbtest%'
                 ORDER BY table_name"
}

schema_expr() {
    if [ "$1" = mysql ]; then echo "DATABASE()"; else echo "current_schema()"; fi
}

# The k index of table n: its column, from the server's catalogue.
k_index_column() {
    local drv=$1 n=$2
    if [ "$drv" = mysql ]; then
        sb_cli mysql "SELECT column_name FROM information_schema.statistics
                      WHERE table_schema = DATABASE() AND table_name = 'sbtest$n'
                        AND index_name = 'k_$n'"
    else
        sb_cli pgsql "SELECT indexdef FROM pg_indexes
                      WHERE tablename = 'sbtest$n' AND indexname = 'k_$n'" |
            sed -n 's/.*USING btree (\(.*\))$/\1/p'
    fi
}

# check_loaded DRV: every table holds ids 1..TABLE_SIZE once, k within
# [1, TABLE_SIZE], c and pad of the documented widths, and has its k index.
check_loaded() {
    local drv=$1 n got expected
    got=$(tables_present "$drv" | tr '\n' ' ')
    expected=$(for n in $(seq 1 $TABLES); do printf 'sbtest%d ' "$n"; done)
    if [ "$got" != "$expected" ]; then
        sb_fail "after prepare the tables are '$got', expected '$expected'"
        return 1
    fi
    for n in $(seq 1 $TABLES); do
        got=$(sb_cli "$drv" "SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id),
                                    SUM(CASE WHEN k BETWEEN 1 AND $TABLE_SIZE THEN 1 ELSE 0 END),
                                    MIN(CHAR_LENGTH(c)), MAX(CHAR_LENGTH(c)),
                                    MIN(CHAR_LENGTH(pad)), MAX(CHAR_LENGTH(pad))
                             FROM sbtest$n" | tr '\t' ' ')
        expected="$TABLE_SIZE $TABLE_SIZE 1 $TABLE_SIZE $TABLE_SIZE 119 119 59 59"
        echo "sbtest$n: $got"
        if [ "$got" != "$expected" ]; then
            sb_fail "sbtest$n holds (count, distinct ids, min, max, k in range, c and pad widths) '$got', expected '$expected'"
            return 1
        fi
        got=$(k_index_column "$drv" "$n")
        if [ "$got" != k ]; then
            sb_fail "sbtest$n has no index k_$n on column k (found '$got')"
            return 1
        fi
    done
}

# expect_no_tables DRV MESSAGE: no sbtest table exists; otherwise fails with
# "MESSAGE: " and the tables found.
expect_no_tables() {
    if [ -n "$(tables_present "$1")" ]; then
        sb_fail "$2: $(tables_present "$1" | tr '\n' ' ')"
        return 1
    fi
}

# prepare_fresh DRV ARGS...: no sbtest table yet, then ARGS prepare succeeds.
prepare_fresh() {
    local drv=$1
    shift
    expect_no_tables "$drv" "sbtest tables exist before prepare" || return 1
    sb_run_ok prepare prep.txt prep.err "$@" prepare
}

# cleanup_all DRV ARGS...: ARGS cleanup succeeds and leaves no sbtest table.
cleanup_all() {
    local drv=$1
    shift
    sb_run_ok cleanup clean.txt clean.err "$@" cleanup || return 1
    expect_no_tables "$drv" "cleanup left tables"
}

# col_sum TEXT N: the sum of column N over the lines of TEXT.
col_sum() {
    echo "$1" | awk -v c="$2" '{s += $c} END {print s}'
}

# Per-table row counts and SUM(k), space-separated, for after-run checks.
table_stats() {
    local drv=$1 n
    for n in $(seq 1 $TABLES); do
        sb_cli "$drv" "SELECT COUNT(*), SUM(k) FROM sbtest$n" | tr '\t' ' '
    done
}

# check_report OUT: status 0 was checked by the caller; the report is complete
# and counts transactions.
check_report() {
    local out=$1 label
    for label in "SQL statistics:" "transactions:" "queries:" "ignored errors:" \
        "reconnects:" "General statistics:" "Latency (ms):" "95th percentile:" \
        "Threads fairness:"; do
        if ! grep -q -F -- "$label" "$out"; then
            sb_show "$out"
            sb_fail "the report has no '$label'"
            return 1
        fi
    done
    sb_expect_positive "$out" "transactions:" || return 1
    sb_expect_positive "$out" "total number of events:" || return 1
}

# What each script must have sent: "read", "write" or both.
query_kinds() {
    case "$1" in
    oltp_read_write) echo "read: write: other:" ;;
    oltp_read_only) echo "read: other:" ;;
    oltp_write_only) echo "write: other:" ;;
    oltp_point_select | select_random_points | select_random_ranges) echo "read:" ;;
    *) echo "write:" ;;
    esac
}

# check_after_run DRV SCRIPT BEFORE: the rows are what the script can have
# left. BEFORE holds table_stats from before the run, one table a line.
check_after_run() {
    local drv=$1 script=$2 before=$3 after n c0 k0 c1 k1
    after=$(table_stats "$drv")
    echo "before: $(echo "$before" | tr '\n' ';') after: $(echo "$after" | tr '\n' ';')"
    for n in $(seq 1 $TABLES); do
        read -r c0 k0 <<<"$(echo "$before" | sed -n "${n}p")"
        read -r c1 k1 <<<"$(echo "$after" | sed -n "${n}p")"
        case "$script" in
        oltp_read_only | oltp_point_select | select_random_points | select_random_ranges | oltp_update_non_index)
            # Nothing that changes k or the number of rows.
            [ "$c1" = "$c0" ] && [ "$k1" = "$k0" ] ||
                { sb_fail "sbtest$n changed from '$c0 $k0' to '$c1 $k1'"; return 1; }
            ;;
        oltp_read_write | oltp_write_only)
            # A delete and its re-insert share a transaction.
            [ "$c1" = "$c0" ] ||
                { sb_fail "sbtest$n went from $c0 to $c1 rows; transactions are not atomic"; return 1; }
            ;;
        oltp_update_index)
            [ "$c1" = "$c0" ] && [ "$k1" -ge "$k0" ] ||
                { sb_fail "sbtest$n: '$c0 $k0' became '$c1 $k1', expected the same rows and a larger SUM(k)"; return 1; }
            ;;
        oltp_insert)
            [ "$c1" -ge "$c0" ] ||
                { sb_fail "sbtest$n lost rows ($c0 -> $c1) under oltp_insert"; return 1; }
            ;;
        oltp_delete)
            [ "$c1" -le "$c0" ] ||
                { sb_fail "sbtest$n gained rows ($c0 -> $c1) under oltp_delete"; return 1; }
            ;;
        esac
    done
    # Across all tables the writes must have shown.
    case "$script" in
    oltp_update_index)
        [ "$(col_sum "$after" 2)" -gt "$(col_sum "$before" 2)" ] ||
            { sb_fail "SUM(k) did not grow under oltp_update_index"; return 1; } ;;
    oltp_insert)
        [ "$(col_sum "$after" 1)" -gt "$(col_sum "$before" 1)" ] ||
            { sb_fail "no row was inserted by oltp_insert"; return 1; } ;;
    oltp_delete)
        [ "$(col_sum "$after" 1)" -lt "$(col_sum "$before" 1)" ] ||
            { sb_fail "no row was deleted by oltp_delete"; return 1; } ;;
    esac
}

oltp_script() {
    local drv=$1 script=$2 before label
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv") "$script" --tables="$TABLES" --table-size="$TABLE_SIZE")

    prepare_fresh "$drv" "${args[@]}" || return 1
    check_loaded "$drv" || return 1
    before=$(table_stats "$drv")

    sb_run_ok run run.txt run.err "${args[@]}" --threads=4 --time=$RUN_SECONDS run || return 1
    check_report run.txt || return 1
    for label in $(query_kinds "$script"); do
        sb_expect_positive run.txt "$label" || return 1
    done
    grep -E 'transactions:|queries:|ignored errors:|reconnects:' run.txt
    check_after_run "$drv" "$script" "$before" || return 1

    cleanup_all "$drv" "${args[@]}"
}

# bulk_insert makes one empty table per thread in prepare and appends
# consecutive ids to its own table in run: afterwards each table holds ids
# 1..N exactly once and the tables together hold one row per event.
bulk_insert() {
    local drv=$1 n got events total=0 c d lo hi
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv") bulk_insert --threads=4)

    prepare_fresh "$drv" "${args[@]}" || return 1
    got=$(tables_present "$drv" | tr '\n' ' ')
    if [ "$got" != "sbtest1 sbtest2 sbtest3 sbtest4 " ]; then
        sb_fail "after prepare the tables are '$got', expected sbtest1..sbtest4"
        return 1
    fi
    for n in 1 2 3 4; do
        got=$(sb_cli "$drv" "SELECT COUNT(*) FROM sbtest$n")
        [ "$got" = 0 ] || { sb_fail "sbtest$n holds $got rows after prepare, expected none"; return 1; }
    done

    sb_run_ok run run.txt run.err "${args[@]}" --time=$RUN_SECONDS run || return 1
    check_report run.txt || return 1
    sb_expect_positive run.txt "write:" || return 1
    events=$(sb_text_report_num run.txt "total number of events:")
    for n in 1 2 3 4; do
        read -r c d lo hi <<<"$(sb_cli "$drv" "SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id) FROM sbtest$n" | tr '\t' ' ')"
        echo "sbtest$n: $c rows, $d distinct, ids $lo..$hi"
        if [ "$c" -gt 0 ] && { [ "$d" != "$c" ] || [ "$lo" != 1 ] || [ "$hi" != "$c" ]; }; then
            sb_fail "sbtest$n does not hold ids 1..$c once each ($c rows, $d distinct, $lo..$hi)"
            return 1
        fi
        total=$((total + c))
    done
    if [ "$total" -ne "$events" ]; then
        sb_fail "the tables hold $total rows, the report counts $events events"
        return 1
    fi

    cleanup_all "$drv" "${args[@]}"
}

# A failed case may leave its tables; drop them so the next starts clean.
drop_sbtest_tables() {
    local t
    for t in $(tables_present "$1" || true); do
        sb_cli "$1" "DROP TABLE $t" >/dev/null || true
    done
}

for drv in mysql pgsql; do
    for script in oltp_read_write oltp_read_only oltp_write_only oltp_point_select \
        oltp_insert oltp_delete oltp_update_index oltp_update_non_index \
        select_random_points select_random_ranges; do
        sb_case "$drv-$script" oltp_script "$drv" "$script"
        drop_sbtest_tables "$drv"
    done
    sb_case "$drv-bulk_insert" bulk_insert "$drv"
    drop_sbtest_tables "$drv"
done
