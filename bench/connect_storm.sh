#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Thousands of PostgreSQL connections set up at once with the default
# options (issue 22, item 7): oltp_point_select, 1 table of 1,000 rows,
# --threads=CONNS, --tx-rate=TX_RATE, --time=RUN_TIME and nothing else about
# connecting (so --pgsql-connect-timeout is its default, 10 s), RUNS times
# for each VARIANT of client threading. A throwaway PostgreSQL (and
# MariaDB, which the harness starts too) with max_connections CONNS + 100
# (tests/harness/servers.sh), stopped on any exit.
#
#   bench/connect_storm.sh                  # 5 runs of 4,000, both variants
#   RUNS=1 VARIANTS="threads" bench/connect_storm.sh
#
# Prints one line a run (variant, exit code, seconds until "Threads
# started!", transactions, FATAL lines) and "N of RUNS set up" per variant;
# exits 1 when a run of ours did not set up every connection.
#
# Env: SB_BIN (common.sh), CONNS (4000), RUNS (5), TX_RATE (500),
#      RUN_TIME (5), VARIANTS ("threads auto": --client-threads=0 and the
#      default), SERVER (pgsql; mysql works too), KEEP=1 keeps the outputs.
# Heavy: CONNS backends on the machine; run it alone.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"

CONNS=${CONNS:-4000}
RUNS=${RUNS:-5}
TX_RATE=${TX_RATE:-500}
RUN_TIME=${RUN_TIME:-5}
VARIANTS=${VARIANTS:-"threads auto"}
SERVER=${SERVER:-pgsql}
HARNESS=$BENCH_DIR/../tests/harness/servers.sh
case ${1:-} in -h|--help) sed -n '2,21p' "$0"; exit 0 ;; "") ;; *) echo "no arguments (see --help)" >&2; exit 2 ;; esac

[[ -n "${SB_BIN:-}" && -x "$SB_BIN" ]] || { echo "error: set SB_BIN" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sbstorm.XXXXXX")
chmod 755 "$WORK"
SRV=$WORK/srv
need_fds=$(( 2 * CONNS + 1024 ))
if (( $(ulimit -n) < need_fds )); then ulimit -n "$(ulimit -Hn)" 2>/dev/null || true; fi
finish() {
  local rc=$?
  trap - EXIT INT TERM
  bash "$HARNESS" stop "$SRV" >/dev/null 2>&1 || true
  [[ "${KEEP:-0}" == 1 ]] && echo "outputs kept in $WORK" || rm -rf "$WORK"
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

SB_MAX_CONNECTIONS=$(( CONNS + 100 )) bash "$HARNESS" start "$SRV" >"$WORK/servers.log" 2>&1 || {
  cat "$WORK/servers.log" >&2; exit 1; }
# shellcheck source=/dev/null
source "$SRV/servers.env"
if [[ $SERVER == pgsql ]]; then ARGS="--db-driver=pgsql $SB_PGSQL_ARGS"; else ARGS="--db-driver=mysql $SB_MYSQL_ARGS"; fi
# shellcheck disable=SC2086
"$SB_BIN" $ARGS oltp_point_select --tables=1 --table-size=1000 prepare >"$WORK/prepare.out" 2>&1
echo "$SERVER, $CONNS connections, max_connections $(( CONNS + 100 )), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

failed=0
for v in $VARIANTS; do
  case $v in
    threads) extra=--client-threads=0 ;;
    auto) extra= ;;
    *) echo "unknown variant $v" >&2; exit 2 ;;
  esac
  ok=0
  for i in $(seq "$RUNS"); do
    out=$WORK/$v.$i.out
    t0=$(date +%s.%N)
    rc=0
    # shellcheck disable=SC2086
    timeout -k 5 $(( 120 + CONNS / 20 )) "$SB_BIN" $ARGS oltp_point_select --tables=1 \
      --table-size=1000 --threads="$CONNS" --tx-rate="$TX_RATE" --time="$RUN_TIME" $extra run \
      >"$out" 2>&1 &
    pid=$!
    started=-
    while kill -0 "$pid" 2>/dev/null; do
      if [[ $started == - ]] && grep -q 'Threads started!' "$out" 2>/dev/null; then
        started=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
      fi
      sleep 0.2
    done
    wait "$pid" || rc=$?
    trx=$(awk '/^ *transactions:/ {print $2; exit}' "$out")
    fatal=$(grep -c '^FATAL' "$out" || true)
    printf '%-8s run %d: exit %d, connected in %s s, %s transactions, %d FATAL lines\n' \
      "$v" "$i" "$rc" "$started" "${trx:-0}" "$fatal"
    [[ $fatal -gt 0 ]] && grep -m 2 '^FATAL' "$out" | cut -c1-200
    if [[ $rc -eq 0 && $started != - && $fatal -eq 0 && ${trx:-0} -gt 0 ]]; then ok=$((ok + 1)); fi
    sleep 2  # backends of the last run exit
  done
  echo "$v: $ok of $RUNS runs set up $CONNS connections"
  (( ok == RUNS )) || failed=1
done
exit "$failed"
