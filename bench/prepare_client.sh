#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The client's CPU per loaded row of two sysbench builds (issue 32): the
# same oltp_read_write prepare on one throwaway PostgreSQL
# (tests/harness/servers.sh, stopped on exit), the two binaries in
# alternating order round by round, the table dropped before each run.
#
#   BASE_BIN=/path/to/old/sysbench bench/prepare_client.sh
#
# Reported per binary: each round's client CPU (user+sys of the whole
# process, /usr/bin/time) per row in microseconds, the median, and the
# median's ratio (SB_BIN / BASE_BIN). Both read the source tree's
# scripts, so only the C code differs. CPU seconds rather than wall time:
# the figure that holds on a loaded machine.
#
# Env: SB_BIN, BASE_BIN (required), ROWS (1000000), TABLES (1), ROUNDS
# (5), THREADS (2), KEEP=1 keeps the raw outputs.
set -euo pipefail
source "$(dirname "$0")/common.sh"

HARNESS=$BENCH_DIR/../tests/harness/servers.sh
SCRIPT=$BENCH_DIR/../sysbench/lua/oltp_read_write.lua
ROWS=${ROWS:-1000000}
TABLES=${TABLES:-1}
ROUNDS=${ROUNDS:-5}
THREADS=${THREADS:-2}
case ${1:-} in
  -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
  "") ;;
  *) echo "unknown argument: $1" >&2; exit 2 ;;
esac
[[ -x "${BASE_BIN:-}" ]] || { echo "error: set BASE_BIN to the sysbench binary to compare against" >&2; exit 2; }

check_tools
make_workdir
chmod 755 "$WORK"
harness_setup

echo "== prepare's client CPU per row: $SB_BIN against $BASE_BIN; $TABLES x $ROWS rows, --threads=$THREADS, $ROUNDS rounds"
print_env
harness_start
# shellcheck disable=SC2206
ARGS=(--db-driver=pgsql $SB_PGSQL_ARGS "$SCRIPT" --tables="$TABLES")

for round in $(seq "$ROUNDS"); do
  order="base ours"; (( round % 2 == 0 )) && order="ours base"
  for v in $order; do
    bin=$SB_BIN; [[ $v == base ]] && bin=$BASE_BIN
    "$bin" "${ARGS[@]}" cleanup >/dev/null 2>&1 || true
    "$TIME_BIN" -f "%U %S" -o "$WORK/$v.$round.time" env SB_PROGRESS=off "$bin" "${ARGS[@]}" \
      --table-size="$ROWS" --threads="$THREADS" prepare >"$WORK/$v.$round.out" 2>&1 ||
      { echo "FAILED: $v round $round" >&2; tail -n 5 "$WORK/$v.$round.out" >&2; exit 1; }
    awk -v n=$((ROWS * TABLES)) '{ printf "%.3f\n", ($1 + $2) * 1e6 / n }' \
      "$WORK/$v.$round.time" >>"$WORK/$v.us"
    echo "round $round $v: $(tail -n 1 "$WORK/$v.us") us/row (load $(cut -d' ' -f1 /proc/loadavg))"
  done
done
"$SB_BIN" "${ARGS[@]}" cleanup >/dev/null 2>&1 || true

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
b=$(median "$WORK/base.us")
o=$(median "$WORK/ours.us")
printf '\nclient CPU us/row, medians of %s rounds: base %.3f, ours %.3f, ours/base %.2fx\n' \
  "$ROUNDS" "$b" "$o" "$(awk -v a="$o" -v b="$b" 'BEGIN { print a / b }')"
