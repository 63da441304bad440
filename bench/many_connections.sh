#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Many connections at a fixed rate (issue 18, item 4): oltp_point_select,
# 1 table of 1,000 rows, --threads=N at --tx-rate=TX_RATE for RUN_TIME s
# (sysbench 1.0.20: --rate, a thread per connection), for each N of CONNS
# on each server of SERVERS, one run per tool in each of ROUNDS rounds,
# the tools interleaved. A throwaway MariaDB and PostgreSQL
# (tests/harness/servers.sh) with max_connections = the largest N + 100,
# stopped on any exit; nofile raised to its hard limit.
#
#   bench/many_connections.sh                       # 1,000 and 4,000, both servers
#   CONNS=10000 SERVERS=mysql bench/many_connections.sh
#   BASE_BIN=/path/to/older/sysbench bench/many_connections.sh   # adds "base" rows
#
# One row a run: set-up (start to "Threads started!"), peak RSS (MB,
# /usr/bin/time), client CPU per transaction (user+sys of the process from
# "Threads started!" to its exit, read from /proc, over the transactions),
# the rate held (transactions per second of the report) and the exit
# code; then per N and server the medians, ours / 1.0.20.
#
# Env: SB_BIN, PEER_BIN (common.sh), BASE_BIN (none), CONNS ("1000 4000"),
#      SERVERS ("mysql pgsql"), TX_RATE (500), RUN_TIME (10), ROUNDS (1),
#      PEER_MAX (4000: 1.0.20 is not run above it on PostgreSQL, where it
#      takes many minutes), SERVERS_ENV (reuse running servers: their
#      servers.env), KEEP=1 keeps the outputs.
# Heavy: thousands of backends on the machine; run it alone.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"

CONNS=${CONNS:-"1000 4000"}
SERVERS=${SERVERS:-"mysql pgsql"}
TX_RATE=${TX_RATE:-500}
RUN_TIME=${RUN_TIME:-10}
ROUNDS=${ROUNDS:-1}
PEER_MAX=${PEER_MAX:-4000}
HARNESS=$BENCH_DIR/../tests/harness/servers.sh
case ${1:-} in -h|--help) sed -n '2,26p' "$0"; exit 0 ;; "") ;; *) echo "no arguments (see --help)" >&2; exit 2 ;; esac
check_tools

max=0
for n in $CONNS; do (( n > max )) && max=$n; done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sbmany.XXXXXX")
chmod 755 "$WORK"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if (( $(ulimit -n) < max + 1024 )); then
  echo "error: nofile $(ulimit -n) is below $((max + 1024)) (raise the hard limit)" >&2; exit 2
fi
own_servers=0
finish() {
  local rc=$?
  trap - EXIT INT TERM
  if (( own_servers )); then bash "$HARNESS" stop "$WORK/srv" >/dev/null 2>&1 || true; fi
  [[ "${KEEP:-0}" == 1 ]] && echo "outputs kept in $WORK" || rm -rf "$WORK"
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [[ -n "${SERVERS_ENV:-}" ]]; then
  # shellcheck source=/dev/null
  source "$SERVERS_ENV"
else
  own_servers=1
  SB_MAX_CONNECTIONS=$(( max + 100 )) bash "$HARNESS" start "$WORK/srv" >"$WORK/servers.log" 2>&1 || {
    cat "$WORK/servers.log" >&2; exit 1; }
  # shellcheck source=/dev/null
  source "$WORK/srv/servers.env"
fi

args_of() { if [[ $1 == pgsql ]]; then echo "--db-driver=pgsql $SB_PGSQL_ARGS"; else echo "--db-driver=mysql $SB_MYSQL_ARGS"; fi; }
for s in $SERVERS; do
  # shellcheck disable=SC2046
  "$SB_BIN" $(args_of "$s") oltp_point_select --tables=1 --table-size=1000 prepare >"$WORK/prepare.$s" 2>&1 || true
done

# CPU seconds (user+sys) of a live process, from /proc/PID/stat.
proc_cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.3f", ($14 + $15) / hz}' "/proc/$1/stat" 2>/dev/null || echo ""; }

# run_tool TOOL SERVER N ROUND: one run; appends a row to $WORK/rows.
run_tool() {
  local tool=$1 srv=$2 n=$3 r=$4 bin rate out pid child t0 started=- cpu0='' rc=0
  case $tool in ours) bin=$SB_BIN ;; base) bin=$BASE_BIN ;; peer) bin=$PEER_BIN ;; esac
  if [[ $tool == peer ]]; then rate=--rate=$TX_RATE; else rate=--tx-rate=$TX_RATE; fi
  out=$WORK/$tool.$srv.$n.$r
  t0=$(date +%s.%N)
  # shellcheck disable=SC2046
  timeout -k 5 $(( 120 + RUN_TIME + n / 20 )) "$TIME_BIN" -f '%U %S %e %M' -o "$out.time" \
    "$bin" $(args_of "$srv") oltp_point_select --tables=1 --table-size=1000 --threads="$n" \
    "$rate" --time="$RUN_TIME" run >"$out.out" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    if [[ $started == - ]] && grep -q 'Threads started!' "$out.out" 2>/dev/null; then
      started=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
      child=$(pgrep -P "$(pgrep -P "$pid" | head -n 1)" | head -n 1 || true)
      [[ -n $child ]] && cpu0=$(proc_cpu "$child")
    fi
    sleep 0.1
  done
  wait "$pid" || rc=$?
  local trx tps cpu rss
  trx=$(awk '/^ *transactions:/ {print $2; exit}' "$out.out")
  tps=$(awk '/^ *transactions:/ {gsub(/\(/,"",$3); print $3; exit}' "$out.out")
  # time(1) puts "Command exited with non-zero status N" (or "terminated
  # by signal") before its line: the figures are on the last line.
  cpu=$(tail -n 1 "$out.time" | awk -v c0="${cpu0:-}" -v t="${trx:-0}" '{ if (c0 == "" || t == 0) print "n/a";
        else printf "%.0f", ($1 + $2 - c0) / t * 1e6 }' 2>/dev/null || echo n/a)
  rss=$(tail -n 1 "$out.time" | awk '{printf "%.0f", $4 / 1024}' 2>/dev/null || echo n/a)
  printf '%s %s %s %s %s %s %s %s %s\n' "$srv" "$n" "$tool" "$r" "$started" "$rss" "$cpu" \
    "${tps:-0}" "$rc" >>"$WORK/rows"
  printf '%-6s %6s %-5s round %d: set-up %s s, RSS %s MB, CPU/trx %s us, %s trx/s, exit %d\n' \
    "$srv" "$n" "$tool" "$r" "$started" "$rss" "$cpu" "${tps:-0}" "$rc"
  sleep 3  # the server's sessions of this run go away
}

echo "many_connections: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), rate $TX_RATE/s, $RUN_TIME s"
: >"$WORK/rows"
tools="ours peer"
[[ -n "${BASE_BIN:-}" ]] && tools="ours base peer"
for srv in $SERVERS; do
  for n in $CONNS; do
    for r in $(seq "$ROUNDS"); do
      for t in $tools; do
        if [[ $t == peer && $srv == pgsql && $n -gt $PEER_MAX ]]; then continue; fi
        run_tool "$t" "$srv" "$n" "$r"
      done
    done
  done
done

echo
echo "| server | connections | tool | set-up s | peak RSS MB | client CPU us/trx | trx/s |"
echo "|---|---|---|---|---|---|---|"
awk '
function median(list,   a, n, i, j, t) {
  n = split(list, a, " ")
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
  if (n == 0) return "n/a"
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ k = $1 " " $2 " " $3; keys[k] = 1
  if ($5 != "-") su[k] = su[k] " " $5
  if ($6 != "n/a") rs[k] = rs[k] " " $6
  if ($7 != "n/a") cp[k] = cp[k] " " $7
  tp[k] = tp[k] " " $8 }
END { for (k in keys) { split(k, f, " ")
        printf "| %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], f[3], median(su[k]), median(rs[k]), median(cp[k]), median(tp[k]) } }
' "$WORK/rows" | sort -t'|' -k2,2 -k3,3n -k4,4
