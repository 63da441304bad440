#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Start-up and teardown with thousands of tables: ours vs sysbench 1.0.20.
#
#   bench/teardown.sh                       # 1,000, 4,000 and 16,000 tables, 3 repeats
#   TABLES="16000" REPEAT=5 bench/teardown.sh
#
# oltp_read_write --tables=N --time=1 --mysql-dry-run (no server: every
# statement is prepared and closed on the client only) prepares 14
# statements per table in thread_init and closes them all when the thread
# ends, so the run's wall time beyond its 1 s is the statements' set-up
# and teardown. The two tools run back to back (ours, peer, ours, ...) so
# that load from other processes hits both alike; the summary is the
# median wall time (/usr/bin/time) and ours/peer.
#
# Env: SB_BIN (ours), PEER_BIN (default /usr/bin/sysbench), TABLES
#      ("1000 4000 16000"), REPEAT (3), KEEP=1 keeps the raw outputs.
set -euo pipefail
source "$(dirname "$0")/common.sh"

TABLES=${TABLES:-"1000 4000 16000"}
REPEAT=${REPEAT:-3}

check_tools
make_workdir


echo "== oltp_read_write --mysql-dry-run --time=1: wall time by table count, ${REPEAT} repeat(s)"
printf '%-4s %7s %3s %9s %9s\n' tool tables rep "wall (s)" "cpu (s)"
declare -A WALL
for n in $TABLES; do
  for r in $(seq 1 "$REPEAT"); do
    for tool in ours peer; do
      name=$tool-$n-$r
      run_one "$name" 900 "$(bin_of "$tool")" oltp_read_write --db-driver=mysql \
        --mysql-dry-run --tables="$n" --time=1 run
      if [[ $RC -ne 0 ]]; then
        echo "FAILED: $tool at $n tables, exit code $RC; output:" >&2
        tail -n 20 "$WORK/$name.out" >&2
        exit 1
      fi
      printf '%-4s %7s %3s %9s %9s\n' "$tool" "$n" "$r" "$(wall_of "$name")" "$(cpu_of "$name")"
      WALL[$tool-$n]="${WALL[$tool-$n]:-} $(wall_of "$name")"
    done
  done
done
echo
echo "== median wall time"
printf '%7s %9s %9s %9s\n' tables ours peer ours/peer
for n in $TABLES; do
  o=$(echo "${WALL[ours-$n]}" | median); p=$(echo "${WALL[peer-$n]}" | median)
  printf '%7s %9s %9s %9s\n' "$n" "$o" "$p" "$(awk -v o="$o" -v p="$p" 'BEGIN { printf "%.2f", o / p }')"
done
