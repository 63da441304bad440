#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cost of --report-per-statement: client CPU per transaction with the
# figures per statement on against off (issue 31: at most 1.02x).
#
#   bench/stmt_overhead.sh                 # 7 repeats
#   REPEAT=9 SCRIPTS="oltp_point_select:400000" bench/stmt_overhead.sh
#
# Env: SB_BIN (ours), REPEAT (7), SCRIPTS (SCRIPT:TRANSACTIONS ..., default
#      "oltp_point_select:200000 oltp_read_write:20000", each a few seconds
#      of CPU, so that /usr/bin/time's 10 ms steps stay below 0.5%),
#      KEEP=1 keeps the raw outputs.
# On the embedded SQLite driver, one thread, fixed work (--events): the
# process's whole CPU (user+sys, /usr/bin/time) divided by transactions.
# SQLite runs in the client's threads, so its own work is in the
# denominator too; a point select on SQLite (a few microseconds) is a
# smaller denominator than a MariaDB or PostgreSQL client's cost per
# statement (the library's protocol work and the system calls), so the
# ratio here is the harder case. off and on alternate (off, on, off, on,
# ...) so that load from other processes hits both alike; the summary
# takes medians.
set -euo pipefail
source "$(dirname "$0")/common.sh"

REPEAT=${REPEAT:-7}
SCRIPTS=${SCRIPTS:-"oltp_point_select:200000 oltp_read_write:20000"}
PEER_BIN=${PEER_BIN:-/usr/bin/sysbench}

check_tools
make_workdir
cd "$WORK"

echo "== --report-per-statement off vs on: SQLite, 1 thread, fixed transactions, ${REPEAT} repeat(s)"
print_env
echo


COMMON=(--db-driver=sqlite --sqlite-db="$WORK/b.db" --tables=1 --table-size=10000)
"$SB_BIN" oltp_common "${COMMON[@]}" prepare > "$WORK/prepare.out" 2>&1

declare -A US
printf '%-18s %-4s %3s %10s %10s %10s\n' script mode rep events "cpu (s)" "us/tx"
for se in $SCRIPTS; do
  s=${se%%:*}; events=${se##*:}
  for r in $(seq 1 "$REPEAT"); do
    for mode in off on; do
      name=$s-$mode-r$r
      run_one "$name" 600 "$SB_BIN" "$s" "${COMMON[@]}" --threads=1 --events="$events" --time=0 \
        --report-per-statement="$mode" run
      ev=$(awk '/^ *transactions:/ {print $2; exit}' "$WORK/$name.out"); cpu=$(cpu_of "$name")
      if [[ $RC -ne 0 || -z "$ev" ]]; then
        echo "FAILED: $s $mode, exit code $RC:" >&2; tail -n 20 "$WORK/$name.out" >&2; exit 1
      fi
      us=$(awk -v e="$ev" -v c="$cpu" 'BEGIN {printf "%.3f", c*1e6/e}')
      US[$s-$mode]="${US[$s-$mode]:-} $us"
      printf '%-18s %-4s %3s %10s %10s %10s\n' "$s" "$mode" "$r" "$ev" "$cpu" "$us"
    done
  done
done

echo
echo "Summary (median of $REPEAT runs; CPU per transaction in us):"
printf '%-18s %10s %10s %8s\n' script off on on/off
for se in $SCRIPTS; do
  s=${se%%:*}
  off=$(echo "${US[$s-off]}" | median); on=$(echo "${US[$s-on]}" | median)
  awk -v s="$s" -v a="$off" -v b="$on" 'BEGIN {printf "%-18s %10.3f %10.3f %8.3f\n", s, a, b, b/a}'
done
print_commands
