#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Empty-event throughput and client CPU per event: ours vs sysbench 1.0.
#
#   bench/empty_event.sh            # 10 s runs, 1 and 2 threads, 3 repeats
#   DURATION=30 REPEAT=5 THREADS="1 2 4" bench/empty_event.sh
#
# Env: SB_BIN (ours), PEER_BIN (default /usr/bin/sysbench), DURATION (s, 10),
#      REPEAT (3), THREADS ("1 2"), KEEP=1 keeps the raw outputs.
# For each point the two tools run back to back (ours, peer, ours, peer, ...)
# so that load from other processes hits both alike.  events/s is
# events / "total time"; CPU/event is the process's user+sys CPU time
# (/usr/bin/time) divided by events, in nanoseconds; the summary takes the
# median over the repeats.
set -euo pipefail
source "$(dirname "$0")/common.sh"

DURATION=${DURATION:-10}
REPEAT=${REPEAT:-3}
THREADS=${THREADS:-"1 2"}

check_tools
make_workdir

echo "== Empty event: closed loop, ${DURATION} s per run, ${REPEAT} repeat(s)"
print_env
echo


declare -A EPS NS
printf '%-4s %-5s %3s %14s %12s %10s %9s\n' tool thr rep events "events/s" "cpu (s)" "ns/event"
for t in $THREADS; do
  for r in $(seq 1 "$REPEAT"); do
    for tool in ours peer; do
      name=$tool-t$t-r$r
      run_one "$name" $((DURATION + 60)) "$(bin_of "$tool")" "$EMPTY_LUA" --threads="$t" --time="$DURATION" run
      ev=$(events_of "$name"); tt=$(ttime_of "$name"); cpu=$(cpu_of "$name")
      if [[ $RC -ne 0 || -z "$ev" || -z "$tt" ]]; then
        echo "FAILED: $tool, $t thread(s), exit code $RC; output:" >&2
        tail -n 20 "$WORK/$name.out" >&2
        exit 1
      fi
      eps=$(awk -v e="$ev" -v t="$tt" 'BEGIN {printf "%.0f", e/t}')
      ns=$(awk -v e="$ev" -v c="$cpu" 'BEGIN {printf "%.1f", c*1e9/e}')
      EPS[$tool-$t]="${EPS[$tool-$t]:-} $eps"; NS[$tool-$t]="${NS[$tool-$t]:-} $ns"
      printf '%-4s %-5s %3s %14s %12s %10s %9s\n' "$tool" "$t" "$r" "$ev" "$eps" "$cpu" "$ns"
    done
  done
done

echo
echo "Summary (median of $REPEAT run(s) of ${DURATION} s):"
printf '%-7s | %14s %14s %8s | %12s %12s %8s\n' threads "ours ev/s" "peer ev/s" "ours/peer" "ours ns/ev" "peer ns/ev" "ours/peer"
for t in $THREADS; do
  oe=$(echo "${EPS[ours-$t]}" | median); pe=$(echo "${EPS[peer-$t]}" | median)
  on=$(echo "${NS[ours-$t]}" | median);  pn=$(echo "${NS[peer-$t]}" | median)
  awk -v t="$t" -v oe="$oe" -v pe="$pe" -v on="$on" -v pn="$pn" 'BEGIN {
    printf "%-7s | %14.0f %14.0f %8.2f | %12.1f %12.1f %8.2f\n", t, oe, pe, oe/pe, on, pn, on/pn }'
done
print_commands
