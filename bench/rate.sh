#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Steady-rate accuracy on an empty event, 2 threads: ours (--tx-rate and
# --rate) side by side with sysbench 1.0's --rate.
#
#   bench/rate.sh [--quick|--full]
#     --quick (default)  10 s per fixed-rate point   (about 3.5 minutes)
#     --full             30 s per fixed-rate point   (about 7.5 minutes)
#
# Steps:
#   1. closed-loop max events/s of each tool at 2 threads (MAX_TIME s);
#   2. fixed targets RATES (default 1000 10000 100000 1000000 per second):
#      achieved/target, per-second eps from --report-interval=1 (mean,
#      stddev, min, max), start-lag p50/p99/p99.9 (ours only: sysbench 1.0
#      does not measure it), late starts and backlog;
#   3. a ladder (LADDER, LADDER_TIME s per step) for the highest rate each
#      mode holds within 1% (|achieved/target - 1| <= 1%), stopping at the
#      first step that fails;
#   4. overload at 2x our closed-loop max: what each tool does (exit code,
#      the line that matters).
# Env: SB_BIN, PEER_BIN, THREADS (2), RATES, LADDER, MAX_TIME (5),
#      LADDER_TIME (3), OVERLOAD_TIME (5), KEEP=1 keeps the raw outputs.
# "achieved" is events / "total time" for every tool (ours also prints its own
# figure, which agrees).  Percent figures are of the target.
set -euo pipefail
source "$(dirname "$0")/common.sh"

DURATION=10
for a in "$@"; do
  case $a in
    --quick) DURATION=10 ;;
    --full)  DURATION=30 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "unknown argument: $a (use --quick or --full)" >&2; exit 2 ;;
  esac
done
THREADS=${THREADS:-2}
RATES=${RATES:-"1000 10000 100000 1000000"}
LADDER=${LADDER:-"100000 200000 500000 1000000 2000000 4000000 8000000 16000000 32000000 64000000 128000000"}
MAX_TIME=${MAX_TIME:-5}
LADDER_TIME=${LADDER_TIME:-3}
OVERLOAD_TIME=${OVERLOAD_TIME:-5}
PCT=50,99,99.9

check_tools
make_workdir

MODES="ours:tx-rate ours:rate peer:rate"
# run_mode NAME MODE RATE TIME [extra args]
run_mode() {
  local name=$1 mode=$2 rate=$3 t=$4; shift 4
  local tool=${mode%%:*} opt=${mode#*:} extra=()
  # Ours: the full sections (Start lag, max backlog, CPU) are read below.
  [[ $tool == ours ]] && extra=(--percentile=$PCT --verbosity=4)
  run_one "$name" $((t + 60)) "$(bin_of "$mode")" "$EMPTY_LUA" --threads="$THREADS" \
      --time="$t" --$opt="$rate" "${extra[@]}" "$@" run
}
ratio_of() { # NAME TARGET -> achieved/target in percent ("-" if no events line)
  local ev tt; ev=$(events_of "$1"); tt=$(ttime_of "$1")
  if [[ -z "$ev" || -z "$tt" ]]; then echo "-"; return; fi
  awk -v e="$ev" -v t="$tt" -v r="$2" 'BEGIN {printf "%.2f", 100*e/t/r}'
}
key_line() { # the line that says what happened
  grep -m1 -E 'FATAL|ALERT|error|achieved:' "$WORK/$1.out" | sed 's/^ *//;s/  */ /g' || true
}

echo "== Steady rate, empty event, $THREADS threads ($([[ $DURATION == 30 ]] && echo --full || echo --quick): $DURATION s per point)"
print_env
echo

# ---- 1. closed-loop max -------------------------------------------------
echo "-- 1. closed-loop max events/s, $THREADS threads, $MAX_TIME s"
declare -A MAX
for tool in ours peer; do
  run_one "max-$tool" $((MAX_TIME + 60)) "$(bin_of "$tool")" "$EMPTY_LUA" --threads="$THREADS" --time="$MAX_TIME" run
  ev=$(events_of "max-$tool"); tt=$(ttime_of "max-$tool")
  if [[ $RC -ne 0 || -z "$ev" ]]; then echo "FAILED: closed loop $tool, exit $RC" >&2; tail "$WORK/max-$tool.out" >&2; exit 1; fi
  MAX[$tool]=$(awk -v e="$ev" -v t="$tt" 'BEGIN {printf "%.0f", e/t}')
  printf '   %-4s %14s events/s  (cpu %s s)\n' "$tool" "${MAX[$tool]}" "$(cpu_of "max-$tool")"
done
echo "   (sleeping per event is impossible at these rates: the fixed targets below"
echo "    are a list, not fractions of the max; 2x our max is used for overload)"
echo

# ---- 2. fixed targets ---------------------------------------------------
echo "-- 2. fixed targets, $DURATION s each, --report-interval=1"
hdr='%-9s %-13s %8s | %3s %11s %9s %11s %11s | %7s %7s %7s | %6s %9s %6s %3s\n'
printf "$hdr" target mode "ach/tgt%" n "eps mean" stddev min max "lag p50" p99 p99.9 "late%" backlog "cpu s" rc
printf "$hdr" "" "" "" "" "" "" "" "" "(ms)" "(ms)" "(ms)" "" "" "" ""
for r in $RATES; do
  for m in $MODES; do
    name=fix-${m/:/-}-$r
    run_mode "$name" "$m" "$r" "$DURATION" --report-interval=1
    read -r n mean sd mn mx < <(interval_stats "$name")
    printf "$hdr" "$r" "${m/:/ --}" "$(ratio_of "$name" "$r")" "$n" "$mean" "$sd" "$mn" "$mx" \
      "$(lag_of "$name" 50)" "$(lag_of "$name" 99)" "$(lag_of "$name" 99.9)" \
      "$(late_of "$name")" "$(backlog_of "$name")" "$(cpu_of "$name")" "$RC"
  done
done
echo "   late% and backlog: ours from its report; 'qN' = sysbench 1.0's largest interval"
echo "   'queue length'; lag n/a = sysbench 1.0 does not measure start lag."
echo

# ---- 3. ladder: highest rate held within 1% -----------------------------
echo "-- 3. highest rate held within 1%, $LADDER_TIME s per step (stop at first failure)"
declare -A HELD
for m in $MODES; do
  HELD[$m]="none"
  line=""
  for r in $LADDER; do
    name=lad-${m/:/-}-$r
    run_mode "$name" "$m" "$r" "$LADDER_TIME"
    pc=$(ratio_of "$name" "$r")
    ok=$(awk -v p="$pc" -v rc="$RC" 'BEGIN {print (rc == 0 && p != "-" && p >= 99 && p <= 101) ? 1 : 0}')
    if [[ $ok == 1 ]]; then line+=" $r:${pc}%"; HELD[$m]=$r
    else line+=" $r:${pc}%(rc=$RC) FAIL"; break; fi
  done
  printf '   %-13s held up to %-10s |%s\n' "${m/:/ --}" "${HELD[$m]}" "$line"
done
echo

# ---- 4. overload at 2x our max ------------------------------------------
OVER=$(awk -v m="${MAX[ours]}" 'BEGIN {printf "%.0f", 2*m}')
echo "-- 4. overload: target $OVER/s (2x our closed-loop max), $OVERLOAD_TIME s, --report-interval=1"
ohdr='%-13s %3s %6s %12s %9s %9s %10s %6s  %s\n'
printf "$ohdr" mode rc wall events "ach/tgt%" "lag p99" "backlog" "cpu s" "what it said"
for m in $MODES; do
  name=over-${m/:/-}
  run_mode "$name" "$m" "$OVER" "$OVERLOAD_TIME" --report-interval=1
  ev=$(events_of "$name")
  printf "$ohdr" "${m/:/ --}" "$RC" "$(wall_of "$name")" "${ev:-none}" "$(ratio_of "$name" "$OVER")" \
    "$(lag_of "$name" 99)" "$(backlog_of "$name")" "$(cpu_of "$name")" "$(key_line "$name")"
done
echo "   interval lines of the overload runs:"
# shellcheck disable=SC2086 # $MODES is a list of modes.
print_intervals over $MODES

print_commands
