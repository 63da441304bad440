#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A bulk insert cut at the deadline leaves the run consistent, on all three
# drivers: bulk_insert with 4 threads, --time=2 --deadline-grace=0 (the
# multi-row INSERTs in flight at the deadline are cancelled: KILL QUERY,
# PQcancel, sqlite3_interrupt) exits 0 with no error, and afterwards each
# table holds ids 1..N once each and the tables together hold exactly one
# row per counted event. Before the fix the event whose statement was cut
# was dropped while its rows stayed (a cancel that came too late), and
# thread_done sent the rows again: a duplicate-key FATAL, or one row more
# than the events counted.
#
# Whether a statement is in flight at the deadline, and whether its cancel
# lands before or after it completes, is up to the scheduler: each case
# runs several times (a run takes about 3 s), and all runs together must
# have cut at least one statement, so the cases cannot pass without
# exercising the cut. The same holds for the server's bulk path
# (--bulk-mode=copy: COPY, LOAD DATA LOCAL) in the event loop.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

readonly RUNS=4

driver_args() {
    case "$1" in
    sqlite) echo "--db-driver=sqlite --sqlite-db=$PWD/bulk.db" ;;
    *) sb_driver_args "$1" ;;
    esac
}

# rows DRV N: "count distinct min max" of sbtestN's ids.
rows() {
    local q="SELECT COUNT(*), COUNT(DISTINCT id), COALESCE(MIN(id), 1), COALESCE(MAX(id), 0) FROM sbtest$2"
    if [ "$1" = sqlite ]; then
        sqlite3 -separator ' ' "$PWD/bulk.db" "$q"
    else
        sb_cli "$1" "$q" | tr '\t' ' '
    fi
}

# one_run DRV I EXTRA...: prepare, a cut run, the tables checked; adds
# how many statements the deadline cut to the file cuts.
one_run() {
    local drv=$1 i=$2 rc=0 events total=0 n c d lo hi cut
    shift 2
    local -a args
    # shellcheck disable=SC2207
    args=($(driver_args "$drv") bulk_insert --threads=4)
    sb_run clean.txt clean.err "${args[@]}" cleanup || true
    sb_run_ok prepare prep.txt prep.err "${args[@]}" prepare || return 1
    sb_run "run$i.txt" "run$i.err" "${args[@]}" --time=2 --deadline-grace=0 "$@" run ||
        rc=$?
    if [ "$rc" -ne 0 ] || [ -s "run$i.err" ]; then
        sb_show "run$i.txt" "run$i.err"
        sb_fail "run $i exited with $rc (expected 0 and no error)"
        return 1
    fi
    events=$(sb_text_report_num "run$i.txt" "total number of events:")
    for n in 1 2 3 4; do
        read -r c d lo hi <<<"$(rows "$drv" "$n")"
        if [ "$d" != "$c" ] || [ "$lo" != 1 ] || [ "$hi" != "$c" ]; then
            sb_fail "run $i: sbtest$n does not hold ids 1..$c once each ($c rows, $d distinct, $lo..$hi)"
            return 1
        fi
        total=$((total + c))
    done
    cut=$(sb_text_report_num "run$i.txt" "Deadline:")
    echo "run $i: $events events, $total rows, ${cut:-0} statement(s) cut"
    if [ "$total" -ne "$events" ]; then
        sb_fail "run $i: the tables hold $total rows, the report counts $events events"
        return 1
    fi
    echo "${cut:-0}" >>cuts
}

cut_consistent() {
    local drv=$1 i cuts
    shift
    : >cuts
    for i in $(seq "$RUNS"); do
        one_run "$drv" "$i" "$@" || return 1
    done
    # shellcheck disable=SC2046
    sb_run clean.txt clean.err $(driver_args "$drv") bulk_insert --threads=4 cleanup || true
    cuts=$(awk '{ s += $1 } END { print s + 0 }' cuts)
    if [ "$cuts" -eq 0 ]; then
        sb_fail "no run cut a statement at the deadline: the case did not test the cut"
        return 1
    fi
}

for drv in mysql pgsql sqlite; do
    sb_case "$drv-bulk-insert-cut-at-deadline" cut_consistent "$drv"
done
for drv in mysql pgsql; do
    sb_case "$drv-bulk-insert-cut-multiplexed" cut_consistent "$drv" --client-threads=1
    # The server's bulk path in the event loop: one COPY or LOAD DATA per
    # 256 KB of rows, settled as the INSERTs are.
    sb_case "$drv-bulk-copy-cut-at-deadline" cut_consistent "$drv" --bulk-mode=copy
done
