#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --threads=auto (issue 33) against what it must find.
#
#   bench/peak.sh [--synthetic-only]
#
# (a) A synthetic workload of known scalability, no server: every event
#     sleeps PERIOD_MS - HOLD_MS, then holds one lock shared by all
#     threads (flock on one file) for HOLD_MS, so no count of threads
#     passes X_max = 1000 / HOLD_MS events per second, reached from
#     PERIOD_MS / HOLD_MS threads on. --threads=auto:AUTO_MAX runs REPS
#     times; per run: the peak it found (its median tps) against X_max
#     (the issue: within 5%) and the USL fit's X(N*) against X_max (within
#     10%).
# (b) MariaDB (a throwaway server, tests/harness/servers.sh, stopped on
#     exit), for each of WORKLOADS: --threads=auto:64 against an
#     exhaustive sweep of COUNTS, REPS rounds, interleaved (the order of
#     the two alternates from round to round), every run --time=TIME.
#     Reported: the exhaustive sweep's median tps per count and its best;
#     per auto search its answer (threads and its own median tps) and the
#     exhaustive median at that count when measured; the ratio of auto's
#     answer to the exhaustive best (the issue: within 5%, i.e. >= 0.95)
#     and of the median wall times of one auto search and one exhaustive
#     pass (the issue: at most 0.40).
#
# Env: SB_BIN, REPS (3), TIME (2 s per run), PERIOD_MS (10), HOLD_MS (2),
# AUTO_MAX (16), COUNTS ("1 2 3 4 6 8 12 16 24 32 48 64"), WORKLOADS
# ("oltp_read_only oltp_point_select"), TABLES (4), TABLE_SIZE (10000),
# KEEP=1 keeps the raw outputs.
set -euo pipefail
source "$(dirname "$0")/common.sh"

HARNESS=$BENCH_DIR/../tests/harness/servers.sh
SYNTH_ONLY=0
for a in "$@"; do
  case $a in
    --synthetic-only) SYNTH_ONLY=1 ;;
    -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
    *) echo "unknown argument: $a (use --synthetic-only)" >&2; exit 2 ;;
  esac
done
REPS=${REPS:-3}
TIME=${TIME:-2}
PERIOD_MS=${PERIOD_MS:-10}
HOLD_MS=${HOLD_MS:-2}
AUTO_MAX=${AUTO_MAX:-16}
COUNTS=${COUNTS:-"1 2 3 4 6 8 12 16 24 32 48 64"}
WORKLOADS=${WORKLOADS:-"oltp_read_only oltp_point_select"}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}

if [[ -z "${SB_BIN:-}" || ! -x "$SB_BIN" ]]; then
  echo "error: our sysbench binary not found; set SB_BIN=/path/to/sysbench" >&2; exit 2
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sbpeak.XXXXXX")
# The servers' users must reach their directories under it.
chmod 755 "$WORK"
# The synthetic workload's truth is in its sleeps: at the real-time
# priority when granted (as tests/lib.sh's timing cases), so that late
# wake-ups on a loaded machine stretch them less.
PRIO=()
if chrt -f 10 true 2>/dev/null; then PRIO=(chrt -f 10); fi
harness_setup

echo "== --threads=auto: the peak it finds against the truth ($(date -u +%FT%TZ))"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"

# ------------------------------------------------------------- (a) synthetic
# The workload is the suites' own: tests/fixtures/lock.lua.
LOCK_LUA=$BENCH_DIR/../tests/fixtures/lock.lua
XMAX=$(awk -v h="$HOLD_MS" 'BEGIN { printf "%.2f", 1000 / h }')
echo
echo "(a) synthetic: events of $PERIOD_MS ms holding one shared lock for $HOLD_MS ms: X_max = $XMAX/s; --threads=auto:$AUTO_MAX --time=$TIME${PRIO:+ (chrt -f 10)}"
printf '%4s %8s %10s %8s %7s %10s %8s %8s %6s %8s\n' run threads "tps" "/X_max" runs "X(N*)" "/X_max" "N*" "R^2" "wall s"
for r in $(seq 1 "$REPS"); do
  s=$(date +%s.%N)
  ( cd "$WORK" && LOCK_FILE=$WORK/lock PERIOD_MS=$PERIOD_MS HOLD_MS=$HOLD_MS timeout 900 "${PRIO[@]}" "$SB_BIN" \
      "$LOCK_LUA" --threads=auto:"$AUTO_MAX" --time="$TIME" --json="$WORK/syn$r.json" run \
      >"$WORK/syn$r.out" 2>&1 ) || { echo "run $r failed:"; tail -5 "$WORK/syn$r.out"; continue; }
  wall=$(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  python3 - "$WORK/syn$r.json" "$XMAX" "$r" "$wall" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); x = float(sys.argv[2])
a, u = d["threads_auto"], d.get("usl") or {}
pt = u.get("peak_tps")
print("%4s %8s %10.2f %8.3f %7d %10s %8s %8s %6s %8s" % (
    sys.argv[3], a["best_threads"], a["best_tps"], a["best_tps"] / x, a["runs"],
    "%.2f" % pt if pt is not None else "none", "%.3f" % (pt / x) if pt is not None else "-",
    "%.1f" % u["peak_threads"] if u.get("peak_threads") is not None else "none",
    "%.3f" % u["r2"] if "r2" in u else "-", sys.argv[4]))
PY
done
[[ $SYNTH_ONLY == 1 ]] && { echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"; exit 0; }

# ------------------------------------------------------------- (b) MariaDB
echo
harness_start
read -r -a MY <<<"--db-driver=mysql $SB_MYSQL_ARGS"
LIST=$(echo "$COUNTS" | tr ' ' ',')
AMAX=${COUNTS##* }
echo "(b) MariaDB $SB_MYSQL_VERSION (throwaway): --threads=auto:$AMAX vs --threads=$LIST, $REPS rounds interleaved, --time=$TIME, $TABLES tables x $TABLE_SIZE rows"
"$SB_BIN" oltp_read_only "${MY[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE" prepare \
  >"$WORK/prepare.out" 2>&1 || { tail -5 "$WORK/prepare.out"; exit 1; }
for w in $WORKLOADS; do
  for r in $(seq 1 "$REPS"); do
    if (( r % 2 )); then order="full auto"; else order="auto full"; fi
    for k in $order; do
      if [[ $k == full ]]; then th=$LIST; else th=auto:$AMAX; fi
      s=$(date +%s.%N)
      timeout 3600 "$SB_BIN" "$w" "${MY[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE" \
        --threads="$th" --time="$TIME" --json="$WORK/$w.$k.$r.json" run >"$WORK/$w.$k.$r.out" 2>&1 ||
        { echo "$w $k round $r failed:"; tail -5 "$WORK/$w.$k.$r.out"; exit 1; }
      awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f\n", e - s }' >"$WORK/$w.$k.$r.wall"
    done
  done
  python3 - "$WORK" "$w" "$REPS" <<'PY'
import json, statistics as st, sys
work, w, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
def doc(k, r): return json.load(open("%s/%s.%s.%d.json" % (work, w, k, r)))
def wall(k, r): return float(open("%s/%s.%s.%d.wall" % (work, w, k, r)).read())
full = {}
for r in range(1, reps + 1):
    for p in doc("full", r)["points"]:
        full.setdefault(p["threads"], []).append(p["final"]["tps"])
med = {n: st.median(v) for n, v in sorted(full.items())}
best_n = max(med, key=med.get); best = med[best_n]
print("\n%s: exhaustive sweep, median tps of %d runs per count:" % (w, reps))
print("  " + "  ".join("%d:%.0f" % (n, v) for n, v in med.items()))
print("  best: %d threads, %.1f tps" % (best_n, best))
ans = []
for r in range(1, reps + 1):
    a = doc("auto", r)["threads_auto"]
    at = med.get(a["best_threads"])
    ans.append(a["best_tps"])
    print("  auto round %d: %d threads, its median %.1f tps (%.3f of the best); exhaustive median there %s; %d runs, %.1f s (exhaustive pass %.1f s)" % (
        r, a["best_threads"], a["best_tps"], a["best_tps"] / best,
        "%.1f tps (%.3f)" % (at, at / best) if at is not None else "not measured",
        a["runs"], wall("auto", r), wall("full", r)))
tr = st.median([wall("auto", r) for r in range(1, reps + 1)]) / st.median([wall("full", r) for r in range(1, reps + 1)])
print("  %s: auto's answer / exhaustive best = %.3f (median of %d; issue: >= 0.95); time auto / exhaustive = %.2f (medians; issue: <= 0.40)" % (
    w, st.median(ans) / best, reps, tr))
PY
done
echo
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
