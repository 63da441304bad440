#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The machine's wake-up tail, and the self-check on clean runs (issue 28
# item 4; figures in bench/README.md "wakeup.sh").
#
#   bench/wakeup.sh              both parts
#   RUNS=0 bench/wakeup.sh       the wake-up tail only
#
# 1. The wake-up tail: bench/wakeup.c (a bare C loop, no sysbench) sleeps
#    SAMPLES times to absolute deadlines PERIOD_US apart on an idle thread,
#    as the pacer does, and prints how late each wake-up came: p50, p90,
#    p99, p99.9, max. REPEAT such runs, one line each. The self-check's
#    late wake-ups threshold (sb_selfcheck.h SB_SELFCHECK_WAKE_P99_MS) is
#    set from this machine's quiet p99/p99.9.
# 2. RUNS clean runs of the issue's case, each checked for flags: an event
#    sleeping 1 ms, 2% of events stalling 50 ms, 2 threads at 200 tx/s,
#    TIME s (no server: the stalls are the "server's"). None may be
#    client-bound (the client is never short of CPU: its workers are about
#    1% busy); contention is right when others took the machine (the run's
#    own machine CPU says so), late wake-ups only when the wake-up delay
#    moves the figures (with 50 ms stalls in the response p99, it should
#    not). Prints one row per run and the counts.
#
# Needs a quiet machine for figures that mean anything: a shared one
# measures the other processes.
# Env: SB_BIN, SAMPLES (5000), PERIOD_US (1000), REPEAT (3), RUNS (20),
#      TIME (10), NICE (0: e.g. -10 to run at a higher priority, as root).
set -euo pipefail
source "$(dirname "$0")/common.sh"

SAMPLES=${SAMPLES:-5000}
PERIOD_US=${PERIOD_US:-1000}
REPEAT=${REPEAT:-3}
RUNS=${RUNS:-20}
TIME=${TIME:-10}
NICE=${NICE:-0}

make_workdir
CC=${CC:-cc}
"$CC" -O2 -o "$WORK/wakeup" "$BENCH_DIR/wakeup.c"

echo "== wake-up delay of an idle thread: $SAMPLES sleeps to deadlines ${PERIOD_US} us apart"
print_env
for i in $(seq "$REPEAT"); do
  nice -n "$NICE" "$WORK/wakeup" "$SAMPLES" "$PERIOD_US"
done
[[ "$RUNS" -gt 0 ]] || exit 0

if [[ -z "${SB_BIN:-}" || ! -x "$SB_BIN" ]]; then
  echo "error: our sysbench binary not found; set SB_BIN=/path/to/sysbench" >&2; exit 2
fi
cat >"$WORK/stall.lua" <<'LUA'
local ffi = require("ffi")
ffi.cdef[[ int usleep(unsigned int); ]]
local n = 0
function event()
  n = n + 1
  -- 2% of events stall 50 ms, spread over the run (1 in 50).
  ffi.C.usleep(n % 50 == 25 and 50000 or 1000)
end
LUA
echo
echo "== $RUNS clean runs: 1 ms events, 2% stalling 50 ms, --tx-rate=200 --threads=2 --time=$TIME"
printf '%-4s %-28s %9s %9s %9s %9s %9s %9s\n' run flags "late%" "wake p99" "resp p99" "machine%" "others%" "busy%"
for i in $(seq "$RUNS"); do
  (cd "$WORK" && nice -n "$NICE" "$SB_BIN" stall.lua run --tx-rate=200 --threads=2 --time="$TIME" \
     --json="r$i.json" >"r$i.out" 2>&1) || { echo "run $i failed:"; tail -5 "$WORK/r$i.out"; exit 1; }
  python3 - "$WORK/r$i.json" "$i" <<'PY'
import json, sys
sc = json.load(open(sys.argv[1]))["points"][0]["selfcheck"]
c, w, m = sc["client_bound"], sc["late_wakeups"], sc["contention"]
f = lambda v: "-" if v is None else "%.2f" % v
print("%-4s %-28s %9s %9s %9s %9s %9s %9s" % (sys.argv[2], ",".join(sc["flags"]) or "ok",
      f(c["client_late_pct"]), f(w["wake_p99_ms"]), f(w["response_p99_ms"]),
      f(m["machine_cpu_pct"]), f(m["other_cpu_pct"]), f(c["worker_busy_pct"])))
PY
done | tee "$WORK/table.txt"
echo
for flag in client-bound late-wakeups contention server-bound; do
  printf '%-14s %d of %d runs\n' "$flag:" "$(grep -c -- "$flag" "$WORK/table.txt" || true)" "$RUNS"
done
