#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The --metrics-listen endpoint under abusive clients (issue 30, items 4
# and 5), this build ($SB_BIN) against another ($BASE_BIN, e.g. a build of
# the commit before the change), taking turns, on the empty-event script
# at 300 tx/s (no database):
#   scrape  a scraper (curl, 1 s timeout as Prometheus' default scrape
#           timeout of a 1 s interval) asks 20 times, every 0.5 s, while N
#           clients (5, 50, 100) trickle a request a byte every 0.5 s;
#           successes, median and slowest answer;
#   storm   300 clients connect at once, then each sends GET /metrics:
#           answered in full, reset, refused, other; the slowest;
#   end     --time=5 with 50 silent clients connected: seconds from the
#           report's last line to the exit, and the whole run;
#   sigint  SIGINT to a run with 50 silent clients: seconds to the exit.
# Medians of REPEAT (3) turns. The clients are tests/cli/http_clients.py.
#
#   BASE_BIN=/tmp/base/sysbench/sysbench bench/metrics_http.sh
#   REPEAT=5 TRICKLE="100" BASE_BIN=... bench/metrics_http.sh

set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

CLIENTS=$BENCH_DIR/../tests/cli/http_clients.py
REPEAT=${REPEAT:-3}
TRICKLE=${TRICKLE:-5 50 100}
if [[ -z "${BASE_BIN:-}" || ! -x "$BASE_BIN" || -z "${SB_BIN:-}" || ! -x "$SB_BIN" ]]; then
  echo "error: set SB_BIN and BASE_BIN to the two builds to compare" >&2
  exit 2
fi
make_workdir
cd "$WORK"
RUN=(ev.lua run --threads=2 --tx-rate=300 --report-interval=1)
printf 'function event() end\n' >ev.lua

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_line FILE TEXT: until FILE has TEXT (30 s at most).
wait_line() {
  local i
  for i in $(seq 300); do grep -qF -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}

# wait_open STATUS N: until http_clients.py says N connections are open.
wait_open() {
  local i
  for i in $(seq 300); do
    [[ "$(awk '{ print $2 }' "$1" 2>/dev/null || echo 0)" -ge "$2" ]] 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# scrape_run BIN N: prints "successes median_s max_s".
scrape_run() {
  local bin=$1 n=$2 port pid tp i
  port=$(free_port)
  "$bin" "${RUN[@]}" --time=600 --metrics-listen="127.0.0.1:$port" >sb.out 2>&1 &
  pid=$!
  wait_line sb.out "[ 1s ]"
  python3 "$CLIENTS" trickle "$port" "$n" 60 --status tr.st >tr.out &
  tp=$!
  wait_open tr.st "$((n < 10 ? n : 10))" || true
  sleep 2
  : >lat.txt
  for i in $(seq 20); do
    curl -s -o /dev/null -w '%{http_code} %{time_total}\n' --max-time 1 \
      "http://127.0.0.1:$port/metrics" >>lat.txt || true
    sleep 0.5
  done
  kill "$tp" 2>/dev/null; wait "$tp" 2>/dev/null || true
  kill -INT "$pid"; wait "$pid" 2>/dev/null || true
  echo "$(awk '$1 == 200' lat.txt | wc -l)" \
    "$(awk '$1 == 200 { print $2 }' lat.txt | median)" \
    "$(awk '$1 == 200 { print $2 }' lat.txt | sort -g | tail -n 1)"
}

# storm_run BIN: prints "ok reset refused other slowest_s".
storm_run() {
  local bin=$1 port pid
  port=$(free_port)
  "$bin" "${RUN[@]}" --time=600 --metrics-listen="127.0.0.1:$port" >sb.out 2>&1 &
  pid=$!
  wait_line sb.out "[ 1s ]"
  python3 "$CLIENTS" storm "$port" 300 --timeout 30 >storm.json
  kill -INT "$pid"; wait "$pid" 2>/dev/null || true
  python3 -c 'import json, sys; d = json.load(open("storm.json"))
print(d["ok"], d["reset"], d["refused"], d["other"] + d["timeout"], "%.2f" % d["slowest_s"])'
}

# end_run BIN: prints "after_last_line_s total_s" for --time=5 with 50
# silent clients.
end_run() {
  local bin=$1 port sp
  port=$(free_port)
  python3 "$CLIENTS" silent "$port" 50 60 --status si.st >si.out &
  sp=$!
  python3 - "$bin" "$port" <<'PY'
import subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen([sys.argv[1], "ev.lua", "run", "--threads=2", "--tx-rate=300", "--time=5",
                      "--report-interval=1", "--metrics-listen=127.0.0.1:" + sys.argv[2]],
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
last = 0.0
for line in p.stdout:
    if line.strip():
        last = time.monotonic() - t0
p.wait()
end = time.monotonic() - t0
print("%.3f %.3f" % (end - last, end))
PY
  kill "$sp" 2>/dev/null; wait "$sp" 2>/dev/null || true
}

# sigint_run BIN: seconds from SIGINT to the exit with 50 silent clients.
sigint_run() {
  local bin=$1 port pid sp t0 t1
  port=$(free_port)
  "$bin" "${RUN[@]}" --time=600 --metrics-listen="127.0.0.1:$port" >sb.out 2>&1 &
  pid=$!
  wait_line sb.out "[ 1s ]"
  python3 "$CLIENTS" silent "$port" 50 60 --status si.st >si.out &
  sp=$!
  # The earlier build holds one connection and a short queue: not all 50
  # get in there.
  wait_open si.st 10 || true
  sleep 2
  kill -INT "$pid"
  t0=$(date +%s.%N)
  wait "$pid" 2>/dev/null || true
  t1=$(date +%s.%N)
  kill "$sp" 2>/dev/null; wait "$sp" 2>/dev/null || true
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}


echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# base: $BASE_BIN"
echo "# ours: $SB_BIN"
for rep in $(seq "$REPEAT"); do
  for tool in base ours; do
    bin=$BASE_BIN; [[ $tool == ours ]] && bin=$SB_BIN
    for n in $TRICKLE; do
      echo "scrape $tool $n $(scrape_run "$bin" "$n")" | tee -a raw.txt
    done
    echo "storm $tool $(storm_run "$bin")" | tee -a raw.txt
    echo "end $tool $(end_run "$bin")" | tee -a raw.txt
    echo "sigint $tool $(sigint_run "$bin")" | tee -a raw.txt
  done
done

echo
echo "| scraper behind N trickling clients | base: scrapes answered of 20 | ours | base: median s | ours | base: slowest s | ours |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for n in $TRICKLE; do
  row="| $n"
  for col in 4 5 6; do
    for tool in base ours; do
      row="$row | $(awk -v t="$tool" -v n="$n" -v c="$col" '$1 == "scrape" && $2 == t && $3 == n { print $c }' raw.txt | median)"
    done
  done
  echo "$row |"
done
echo
echo "| 300 clients at once | answered in full | reset | refused | other | slowest s |"
echo "|---|---:|---:|---:|---:|---:|"
for tool in base ours; do
  row="| $tool"
  for col in 3 4 5 6 7; do
    row="$row | $(awk -v t="$tool" -v c="$col" '$1 == "storm" && $2 == t { print $c }' raw.txt | median)"
  done
  echo "$row |"
done
echo
echo "| 50 silent clients | last line to exit, s | --time=5 run, s | SIGINT to exit, s |"
echo "|---|---:|---:|---:|"
for tool in base ours; do
  echo "| $tool | $(awk -v t="$tool" '$1 == "end" && $2 == t { print $3 }' raw.txt | median) |" \
       "$(awk -v t="$tool" '$1 == "end" && $2 == t { print $4 }' raw.txt | median) |" \
       "$(awk -v t="$tool" '$1 == "sigint" && $2 == t { print $3 }' raw.txt | median) |"
done
