#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Database drivers side by side: ours and sysbench 1.0.20 running the same
# bundled scripts against the same tables on throwaway MariaDB and
# PostgreSQL servers (tests/harness/servers.sh, stopped on exit).
#
#   bench/drivers.sh [--quick]
#     default   10 s per run   (about 5 minutes)
#     --quick    5 s per run   (about 3 minutes)
#
# Per server: the tables are prepared once by our binary (TABLES x
# TABLE_SIZE; sysbench 1.0.20 creates the same schema, sbtestN(id, k, c,
# pad) with the k_N index, so it runs on them unchanged) and read once with
# our "prewarm" command. Then, for each script in SCRIPTS and each thread
# count in THREADS, one run of each tool, the order swapping from point to
# point. Both tools connect over TCP to 127.0.0.1 with the same options.
#
# The table: TPS (transactions per second from the report), ours/peer, the
# client's CPU per transaction (user+sys of the whole process from
# /usr/bin/time, in microseconds), ignored errors per tool and exit codes.
# A run that fails shows "fail(rc)" in place of its TPS.
#
# Env: SB_BIN, PEER_BIN, SCRIPTS ("oltp_read_write oltp_point_select"),
#      THREADS ("1 4 16"), TABLES (4), TABLE_SIZE (10000), DURATION,
#      SERVERS ("mysql pgsql"), KEEP=1 keeps the raw outputs and leaves the
#      servers' logs in the scratch directory (the servers are still stopped).
set -euo pipefail
source "$(dirname "$0")/common.sh"

HARNESS=$BENCH_DIR/../tests/harness/servers.sh
DURATION=${DURATION:-10}
for a in "$@"; do
  case $a in
    --quick) DURATION=5 ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "unknown argument: $a (use --quick)" >&2; exit 2 ;;
  esac
done
SCRIPTS=${SCRIPTS:-"oltp_read_write oltp_point_select"}
THREADS=${THREADS:-"1 4 16"}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}
SERVERS=${SERVERS:-"mysql pgsql"}

check_tools
make_workdir
# Unix socket paths are limited to about 100 bytes: keep the servers'
# directory short, and reachable by the postgres user.
chmod 755 "$WORK"
SRV=$WORK/srv
servers_started=0

finish() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ $servers_started == 1 ]]; then
    if [[ "${KEEP:-0}" == 1 ]]; then
      # Stop the servers but keep their directory (and logs).
      bash "$HARNESS" stop-mysql "$SRV" || true
      bash "$HARNESS" stop-pgsql "$SRV" || true
    else
      bash "$HARNESS" stop "$SRV" || true
    fi
  fi
  if [[ "${KEEP:-0}" != 1 ]]; then rm -rf "$WORK"; else echo "raw outputs kept in $WORK" >&2; fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== Drivers: ours vs sysbench 1.0.20, $DURATION s per run, tables $TABLES x $TABLE_SIZE"
print_env
servers_started=1
bash "$HARNESS" start "$SRV" >"$WORK/servers.log" 2>&1 || {
  cat "$WORK/servers.log" >&2; echo "error: could not start the servers" >&2; exit 1; }
# shellcheck source=/dev/null
source "$SRV/servers.env"
echo "servers: MariaDB $SB_MYSQL_VERSION, PostgreSQL $SB_PGSQL_VERSION (throwaway, tests/harness/servers.sh)"
echo

# The same connection options serve both tools.
conn_args() {
  case $1 in
    mysql) echo "--db-driver=mysql $SB_MYSQL_ARGS" ;;
    pgsql) echo "--db-driver=pgsql $SB_PGSQL_ARGS" ;;
  esac
}

trx_of()    { awk '/^ *transactions:/ {print $2; exit}' "$WORK/$1.out"; }
ignored_of(){ awk '/^ *ignored errors:/ {print $3; exit}' "$WORK/$1.out"; }
# Client CPU per transaction, in microseconds.
cpu_us_of() {
  local trx; trx=$(trx_of "$1")
  if [[ -z "$trx" || "$trx" == 0 ]]; then echo "-"; return; fi
  awk -v t="$trx" '{printf "%.1f", ($1 + $2) * 1e6 / t}' "$WORK/$1.time"
}

# run_tool NAME TOOL SERVER SCRIPT THREADS
run_tool() {
  local name=$1 tool=$2 srv=$3 script=$4 thr=$5
  # shellcheck disable=SC2046
  run_one "$name" $((DURATION + 60)) "$(bin_of "$tool")" $(conn_args "$srv") "$script" \
      --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$thr" --time="$DURATION" run
  TOOL_RC[$tool]=$RC
}

declare -A TOOL_RC
ROWS=()
point=0
for srv in $SERVERS; do
  # shellcheck disable=SC2046
  run_one "prepare-$srv" 600 "$SB_BIN" $(conn_args "$srv") oltp_read_write \
      --tables="$TABLES" --table-size="$TABLE_SIZE" --threads=2 prepare
  if [[ $RC -ne 0 ]]; then
    echo "error: prepare on $srv failed (exit $RC)" >&2; tail -n 20 "$WORK/prepare-$srv.out" >&2; exit 1
  fi
  # shellcheck disable=SC2046
  run_one "prewarm-$srv" 600 "$SB_BIN" $(conn_args "$srv") oltp_read_write \
      --tables="$TABLES" --table-size="$TABLE_SIZE" --threads=2 prewarm
  for script in $SCRIPTS; do
    for thr in $THREADS; do
      order="ours peer"
      (( point % 2 == 1 )) && order="peer ours"
      point=$((point + 1))
      for tool in $order; do
        run_tool "$srv-$script-$thr-$tool" "$tool" "$srv" "$script" "$thr"
      done
      o=$srv-$script-$thr-ours p=$srv-$script-$thr-peer
      ot=$(tps_of "$o"); pt=$(tps_of "$p")
      [[ ${TOOL_RC[ours]} -eq 0 && -n "$ot" ]] || ot="fail(${TOOL_RC[ours]})"
      [[ ${TOOL_RC[peer]} -eq 0 && -n "$pt" ]] || pt="fail(${TOOL_RC[peer]})"
      ratio=$(awk -v a="$ot" -v b="$pt" 'BEGIN {
        if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2f", a / b; else print "-" }')
      row=$(printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |' "$srv" "$script" "$thr" \
        "$ot" "$pt" "$ratio" "$(cpu_us_of "$o")" "$(cpu_us_of "$p")" \
        "$(ignored_of "$o")" "$(ignored_of "$p")")
      ROWS+=("$row")
      echo "$row"
    done
  done
  # The tables go with the servers; nothing else to clean.
done

echo
echo "| server | script | threads | ours TPS | peer TPS | ours/peer | ours CPU us/trx | peer CPU us/trx | ignored errors ours / peer |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${ROWS[@]}"

# What failed, if anything: the lines that say why.
for f in "$WORK"/*-ours.out "$WORK"/*-peer.out; do
  if grep -q -E 'FATAL|ALERT' "$f"; then
    echo
    echo "$(basename "$f" .out): $(grep -m 3 -E 'FATAL|ALERT' "$f" | tr '\n' ' ')"
  fi
done

echo
echo "Commands run (in order):"
sed "s|$WORK|\$WORK|g; s/^/  /" "$CMDLOG"
