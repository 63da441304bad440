#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Steady-rate accuracy on oltp_read_write against a throwaway MariaDB, 4
# threads: ours (--tx-rate and --rate) side by side with sysbench 1.0's --rate.
#
#   bench/rate_mariadb.sh            30 s per rate point (about 8 minutes)
#   bench/rate_mariadb.sh --quick    10 s per rate point (about 4 minutes)
#
# Steps:
#   0. start MariaDB (and PostgreSQL, which the harness always starts) with
#      tests/harness/servers.sh in a scratch directory, stopped on exit;
#      prepare TABLES x TABLE_SIZE rows once with our binary (sysbench 1.0
#      runs on the same sbtestN tables);
#   1. closed-loop max TPS of each tool at THREADS threads (MAX_TIME s);
#   2. at FRACTIONS (25 50 90) percent of OUR max, run back to back:
#      ours --tx-rate, ours --rate, peer --rate, with --report-interval=1:
#      achieved/target, per-second TPS from the interval lines (first one
#      skipped: n, mean, stddev, min, max), start-lag p50/p99/p99.9 (ours
#      only: sysbench 1.0 does not measure it), late starts, backlog, and the
#      server CPU per transaction from our "CPU cost per transaction" report
#      (row "server:", column total; ours only);
#   3. overload at 2x our max (OVERLOAD_TIME s): our runs must finish and
#      report lag and backlog; for the peer, its exit code and last lines.
# Env: SB_BIN, PEER_BIN, THREADS (4), TABLES (4), TABLE_SIZE (10000),
#      FRACTIONS ("25 50 90"), MAX_TIME (10), WARMUP_TIME (5), OVERLOAD_TIME (10),
#      KEEP=1 keeps the raw outputs (the servers are always stopped).
# "achieved" is the "transactions: N (X per sec.)" figure, X / target, for
# every tool (ours also prints its own "achieved:" line, which agrees).
set -euo pipefail
source "$(dirname "$0")/common.sh"

DURATION=30
MODE_NAME=full
for a in "$@"; do
  case $a in
    --quick) DURATION=10; MODE_NAME=--quick ;;
    --full)  DURATION=30; MODE_NAME=full ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "unknown argument: $a (use --quick)" >&2; exit 2 ;;
  esac
done
THREADS=${THREADS:-4}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}
FRACTIONS=${FRACTIONS:-"25 50 90"}
MAX_TIME=${MAX_TIME:-10}
WARMUP_TIME=${WARMUP_TIME:-5}
OVERLOAD_TIME=${OVERLOAD_TIME:-10}
PCT=50,99,99.9
SERVERS_SH=$BENCH_DIR/../tests/harness/servers.sh

WARN=()
check_tools
[[ -r $SERVERS_SH ]] || { echo "error: $SERVERS_SH not found" >&2; exit 2; }
make_workdir

# ---- 0. servers ---------------------------------------------------------
# The harness wants a directory the postgres user can enter.
SRV_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sbbench-srv.XXXXXX")
chmod 755 "$SRV_DIR"
cleanup() {
  local rc=$?
  if [[ -n "${SRV_DIR:-}" && -d $SRV_DIR ]]; then
    bash "$SERVERS_SH" stop "$SRV_DIR" >/dev/null 2>&1 || echo "warning: servers.sh stop $SRV_DIR failed" >&2
  fi
  if [[ "${KEEP:-0}" != 1 ]]; then rm -rf "$WORK"; else echo "raw outputs kept in $WORK" >&2; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! bash "$SERVERS_SH" start "$SRV_DIR" > "$WORK/servers.log" 2>&1; then
  echo "FAILED: servers.sh start:" >&2; cat "$WORK/servers.log" >&2; exit 1
fi
# shellcheck disable=SC1091
source "$SRV_DIR/servers.env"
# SB_MYSQL_ARGS: --mysql-host/port/user/password/db.  Our default driver is
# SQLite, so both tools get --db-driver=mysql explicitly.
read -r -a DB_ARGS <<< "--db-driver=mysql $SB_MYSQL_ARGS"
WL=(oltp_read_write "${DB_ARGS[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE")

# ---- helpers --------------------------------------------------------------
# run_mode NAME MODE RATE TIME   (MODE = ours:tx-rate, ours:rate, peer:rate)
run_mode() {
  local name=$1 mode=$2 rate=$3 t=$4
  local tool=${mode%%:*} opt=${mode#*:} extra=()
  # Ours: the full sections (Start lag, max backlog, CPU) are read below.
  [[ $tool == ours ]] && extra=(--percentile=$PCT --verbosity=4)
  run_one "$name" $((t + 60)) "$(bin_of "$mode")" "${WL[@]}" --threads="$THREADS" \
      --time="$t" --$opt="$rate" --report-interval=1 "${extra[@]}" run
}
ratio_of() { # NAME TARGET -> achieved/target in percent
  local x; x=$(tps_of "$1")
  if [[ -z "$x" ]]; then echo "-"; return; fi
  awk -v x="$x" -v r="$2" 'BEGIN {printf "%.2f", 100*x/r}'
}
# Per-second TPS of the interval lines, the first one skipped, with one
# decimal: "n mean stddev min max".
tps_stats() { interval_stats "$1" 1 1; }
# Server CPU us/transaction: row "server:" of "CPU cost per transaction", column total.
srvcpu_of() {
  awk '/^CPU cost per transaction/ {s=1; next}
       s && $1 == "server:" {print $4; f=1; exit}
       END {if (!f) print "n/a"}' "$WORK/$1.out"
}
# CPU of other processes, % of the machine, during our run: machine util minus
# client and server util (the machine is shared; this says how much).
other_of() {
  awk '/^CPU cost per transaction/ {s=1; next}
       s && $1 == "client:" {c=$5+0} s && $1 == "server:" {v=$5+0}
       s && $1 == "machine:" && $5 ~ /%$/ {o=$5-c-v; if (o < 0) o=0; printf "%.0f", o; f=1; exit}
       END {if (!f) printf "n/a"}' "$WORK/$1.out"
}
# Our interval labels must be 1s, 2s, 3s ... with none missing or repeated.
labels_ok() {
  awk '/^\[ *[0-9]+s \] thds:/ {t=$2; sub(/s$/,"",t); if (t+0 != ++k) {bad=1}}
       END {exit bad}' "$WORK/$1.out"
}
label_list() { grep -oE '^\[ *[0-9]+s \] thds:' "$WORK/$1.out" | grep -oE '[0-9]+s' | tr '\n' ' '; }
achieved_line() { grep -m1 -E '^ *achieved:' "$WORK/$1.out" | sed 's/^ *//;s/  */ /g' || true; }

# check_ours NAME MODE TARGET: flag what a sane run cannot produce.
check_ours() {
  local name=$1 mode=$2 r=$3 pc
  if [[ $RC -ne 0 ]]; then WARN+=("$name: exit code $RC"); return; fi
  pc=$(ratio_of "$name" "$r")
  grep -q '^Start lag' "$WORK/$name.out" || WARN+=("$name: no 'Start lag' section")
  grep -q '^ *max backlog:' "$WORK/$name.out" || WARN+=("$name: no 'max backlog:' line")
  # Below the max: a fixed schedule must land within 2%; Poisson within
  # max(2%, 4 sd), sd = 1/sqrt(expected arrivals).
  local tol
  if [[ $mode == ours:tx-rate ]]; then tol=2
  else tol=$(awk -v r="$r" -v t="$DURATION" 'BEGIN {v=400/sqrt(r*t); print (v > 2 ? v : 2)}'); fi
  awk -v p="$pc" -v tol="$tol" 'BEGIN {exit !(p == "-" || p < 100 - tol || p > 100 + tol)}' &&
    WARN+=("$name: achieved $pc% of target (tolerance ±$tol%)")
  labels_ok "$name" || WARN+=("$name: interval labels missing/repeated: $(label_list "$name")")
  local p999; p999=$(lag_of "$name" 99.9)
  awk -v l="$p999" -v t="$DURATION" 'BEGIN {exit !(l != "n/a" && (l < 0 || l > 1000*t))}' &&
    WARN+=("$name: start-lag p99.9 $p999 ms is outside [0, run time]")
  return 0
}

echo "== Steady rate, oltp_read_write on MariaDB $SB_MYSQL_VERSION, $THREADS threads, $TABLES tables x $TABLE_SIZE rows ($MODE_NAME: $DURATION s per rate point)"
print_env
echo

run_one prepare 600 "$SB_BIN" "${WL[@]}" --threads="$THREADS" prepare
if [[ $RC -ne 0 ]]; then echo "FAILED: prepare, exit $RC" >&2; tail -n 20 "$WORK/prepare.out" >&2; exit 1; fi

# Warm-up (discarded): the first run after prepare meets InnoDB's background work.
run_one warmup $((WARMUP_TIME + 60)) "$SB_BIN" "${WL[@]}" --threads="$THREADS" --time="$WARMUP_TIME" run

# ---- 1. closed-loop max -------------------------------------------------
echo "-- 1. closed-loop max TPS, $THREADS threads, $MAX_TIME s (after a ${WARMUP_TIME} s warm-up run of ours)"
declare -A MAX
for tool in ours peer; do
  name=max-$tool
  run_one "$name" $((MAX_TIME + 60)) "$(bin_of "$tool")" "${WL[@]}" --threads="$THREADS" --time="$MAX_TIME" --report-interval=1 run
  x=$(tps_of "$name")
  if [[ $RC -ne 0 || -z "$x" ]]; then
    echo "FAILED: closed loop $tool, exit $RC" >&2; tail -n 20 "$WORK/$name.out" >&2; exit 1
  fi
  MAX[$tool]=$x
  read -r n mean sd mn mx < <(tps_stats "$name")
  oth=n/a; [[ $tool == ours ]] && oth=$(other_of "$name")
  printf '   %-4s %9s tps   per second (n=%s): mean %s sd %s min %s max %s   server us/tx %s   client cpu %s s   oth%% %s\n' \
    "$tool" "$x" "$n" "$mean" "$sd" "$mn" "$mx" "$(srvcpu_of "$name")" "$(cpu_of "$name")" "$oth"
  [[ $tool == ours ]] && { labels_ok "$name" || WARN+=("$name: interval labels missing/repeated: $(label_list "$name")"); }
done
echo "   (the peer ran on the tables our binary prepared; targets below are fractions of OUR max)"
echo

# ---- 2. fractions of our max ----------------------------------------------
MODES="ours:tx-rate ours:rate peer:rate"
echo "-- 2. rate points, $DURATION s each, --report-interval=1 (first interval skipped)"
hdr='%-4s %-7s %-13s %8s | %3s %8s %7s %8s %8s | %7s %7s %7s | %6s %7s | %8s %4s %3s\n'
printf "$hdr" "%max" target mode "ach/tgt%" n "tps mean" sd min max "lag p50" p99 p99.9 "late%" backlog "srv us/tx" oth% rc
printf "$hdr" "" "" "" "" "" "" "" "" "" "(ms)" "(ms)" "(ms)" "" "" "" "" ""
for f in $FRACTIONS; do
  r=$(awk -v m="${MAX[ours]}" -v f="$f" 'BEGIN {printf "%.0f", m*f/100}')
  for m in $MODES; do
    name=f$f-${m/:/-}
    run_mode "$name" "$m" "$r" "$DURATION"
    [[ ${m%%:*} == ours ]] && check_ours "$name" "$m" "$r"
    read -r n mean sd mn mx < <(tps_stats "$name")
    srv=n/a; oth=n/a
    [[ ${m%%:*} == ours ]] && { srv=$(srvcpu_of "$name"); oth=$(other_of "$name"); }
    printf "$hdr" "$f" "$r" "${m/:/ --}" "$(ratio_of "$name" "$r")" "$n" "$mean" "$sd" "$mn" "$mx" \
      "$(lag_of "$name" 50)" "$(lag_of "$name" 99)" "$(lag_of "$name" 99.9)" \
      "$(late_of "$name")" "$(backlog_of "$name")" "$srv" "$oth" "$RC"
  done
done
echo "   late% and backlog: ours from its report; 'qN' = sysbench 1.0's largest interval"
echo "   'queue length'; lag and srv us/tx n/a = not measured for sysbench 1.0."
echo "   oth% = CPU of other processes (% of the machine) during our run: machine - client - server."
echo

# ---- 3. overload at 2x our max --------------------------------------------
OVER=$(awk -v m="${MAX[ours]}" 'BEGIN {printf "%.0f", 2*m}')
echo "-- 3. overload: target $OVER/s (2x our closed-loop max), $OVERLOAD_TIME s, --report-interval=1"
ohdr='%-13s %3s %6s %8s %9s %9s %9s %9s %6s  %s\n'
printf "$ohdr" mode rc wall tps "ach/tgt%" "lag p50" "lag p99" backlog "cpu s" "our achieved: line / peer's last line"
for m in $MODES; do
  name=over-${m/:/-}
  run_mode "$name" "$m" "$OVER" "$OVERLOAD_TIME"
  if [[ ${m%%:*} == ours ]]; then
    [[ $RC -eq 0 ]] || WARN+=("$name: exit code $RC under overload")
    grep -q '^Start lag' "$WORK/$name.out" || WARN+=("$name: no 'Start lag' section under overload")
    grep -q '^ *max backlog:' "$WORK/$name.out" || WARN+=("$name: no 'max backlog:' under overload")
    said=$(achieved_line "$name")
  else
    said=$(grep -m1 -E 'FATAL|ALERT' "$WORK/$name.out" | sed 's/^ *//;s/  */ /g' || true)
    if [[ -z "$said" ]]; then
      said="no abort; last queue length: $(grep -E 'queue length:' "$WORK/$name.out" | tail -n 1 | sed -E 's/.*queue length: ([0-9]+).*/\1/')"
    fi
  fi
  x=$(tps_of "$name")
  printf "$ohdr" "${m/:/ --}" "$RC" "$(wall_of "$name")" "${x:-none}" "$(ratio_of "$name" "$OVER")" \
    "$(lag_of "$name" 50)" "$(lag_of "$name" 99)" "$(backlog_of "$name")" "$(cpu_of "$name")" "$said"
done
echo "   interval lines of the overload runs:"
# shellcheck disable=SC2086 # $MODES is a list of modes.
print_intervals over $MODES
echo "   peer --rate, last 8 lines of its output:"
grep -v '^ *$' "$WORK/over-peer-rate.out" | tail -n 8 | sed 's/^/     /'
echo

if [[ ${#WARN[@]} -gt 0 ]]; then
  echo "-- CHECK these (some may come from other load on the machine: see oth%; raw outputs: KEEP=1):"
  printf '   %s\n' "${WARN[@]}"
else
  echo "-- checks on our runs: all passed (exit 0; lag and backlog reported; interval labels 1s, 2s, ...;"
  echo "   achieved within tolerance below max)"
fi

echo
echo "Commands run (in order; the servers came from: bash $SERVERS_SH start $SRV_DIR):"
sed 's/^/  /' "$CMDLOG"
