#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cost of --report-per-statement in instructions: the client's
# instructions per transaction with the figures per statement on against
# off, counted by callgrind (issue 31: at most 1.02x). Instruction counts
# do not move with the machine's load, so this shows a 1% difference that
# bench/stmt_overhead.sh's CPU time (spread +-10% at load 20) cannot.
#
#   bench/stmt_instr.sh
#   DRIVERS=sqlite SCRIPTS="oltp_point_select:2000:42000" REPEAT=5 bench/stmt_instr.sh
#
# Env: SB_BIN (ours), DRIVERS (default "sqlite mysql pgsql"; mysql and
#      pgsql start the harness's throwaway servers and stop them after),
#      SCRIPTS (SCRIPT:N1:N2 ..., default "oltp_point_select:2000:22000
#      oltp_read_write:200:1200"), REPEAT (3: runs of each; the medians
#      are taken), TOP (functions listed per pair, 12),
#      KEEP=1 keeps the callgrind files.
# Each run is one client thread, fixed work (--events=N), under
# valgrind --tool=callgrind --separate-threads=yes; the figure is the
# worker thread's instructions (the reporter's ticks depend on the wall
# time, which valgrind stretches). Per
# transaction is the difference between the runs of N2 and N1
# transactions divided by N2 - N1, so start-up, prepare of statements
# and the end of the run (the JSON, the merge of the tables) drop out;
# LuaJIT's traces are not the same from run to run (a run of the same
# N differs by up to 500,000 instructions), hence the long N2 and the
# median of REPEAT differences;
# "whole" is the N2 run's instructions over all threads, divided by N2.
# The functions whose own instructions differ most between on and off
# (N2 runs, worker thread) are listed per pair: where the cost goes.
set -euo pipefail
export LC_ALL=C
source "$(dirname "$0")/common.sh"

DRIVERS=${DRIVERS:-"sqlite mysql pgsql"}
SCRIPTS=${SCRIPTS:-"oltp_point_select:2000:22000 oltp_read_write:200:1200"}
REPEAT=${REPEAT:-3}
TOP=${TOP:-12}
HARNESS=$BENCH_DIR/../tests/harness/servers.sh

if [[ -z "${SB_BIN:-}" || ! -x "$SB_BIN" ]]; then
  echo "error: our sysbench binary not found; set SB_BIN=/path/to/sysbench" >&2; exit 2
fi
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
  { echo "error: valgrind and callgrind_annotate are needed (apt-get install valgrind)" >&2; exit 2; }
make_workdir
chmod 755 "$WORK" # PostgreSQL runs as user postgres when we are root
harness_setup

# db_args DRIVER: the connection options (servers started on first use).
db_args() {
  case $1 in
    sqlite) echo "--db-driver=sqlite --sqlite-db=$WORK/b.db" ;;
    mysql|pgsql)
      if [[ $1 == mysql ]]; then echo "--db-driver=mysql $SB_MYSQL_ARGS"
      else echo "--db-driver=pgsql --pgsql-host=$SB_PGSQL_HOST --pgsql-port=$SB_PGSQL_PORT" \
        "--pgsql-user=$SB_PGSQL_USER --pgsql-password=$SB_PGSQL_PASSWORD --pgsql-db=$SB_PGSQL_DB"
      fi ;;
    *) echo "error: unknown driver $1" >&2; exit 2 ;;
  esac
}

# worker_file PREFIX: the worker thread's callgrind file of PREFIX-* (one
# per thread: the one that ran events; the reporter parses /proc on its
# ticks, which valgrind stretches, and may be larger); worker_ir: its
# instructions; all_ir: all threads' together.
thread_irs() { for f in "$1"-*; do awk '/^totals:/ {print $2}' "$f"; done; }
worker_file() { grep -l 'sb_worker_event_start' "$1"-* | head -n 1; }
worker_ir() { awk '/^totals:/ {print $2}' "$(worker_file "$1")"; }
all_ir() { thread_irs "$1" | awk '{s += $1} END {print s}'; }

# self_costs FILE: "instructions function" per function, own cost.
self_costs() {
  callgrind_annotate --auto=no --inclusive=no --threshold=100 "$1" 2>/dev/null |
    awk '/file:function/ {t = 1; next}
         t && /^-/ {if (seen) exit; next}
         t && /^ *[0-9,]+ / {
           seen = 1; v = $1; gsub(/,/, "", v); $1 = ""; sub(/^ +/, "")
           sub(/^\([^)]*\) +/, "")
           # LuaJIT and its traces have no symbols: one line for them.
           if ($0 ~ /^\?\?\?:/) {jit += v; next}
           print v "\t" $0 }
         END {print jit "\t(code without symbols: LuaJIT, its traces)"}'
}

echo "== --report-per-statement off vs on, instructions (callgrind), 1 thread"
echo "date:    $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "host:    $(uname -srm), $(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ours:    $SB_BIN ($("$SB_BIN" --version 2>&1 | head -n 1))"
echo "valgrind: $(valgrind --version)"
echo

declare -A IR
for d in $DRIVERS; do
  # Started here, not in db_args' subshell: the exit trap must know.
  [[ $d == sqlite || -f $SRV/servers.env ]] || harness_start
  read -r -a DB <<<"$(db_args "$d")"
  COMMON=("${DB[@]}" --tables=1 --table-size=10000)
  "$SB_BIN" oltp_common "${COMMON[@]}" cleanup >/dev/null 2>&1 || true
  "$SB_BIN" oltp_common "${COMMON[@]}" prepare >"$WORK/prepare-$d.out" 2>&1 ||
    { echo "FAILED: prepare on $d" >&2; tail -n 20 "$WORK/prepare-$d.out" >&2; exit 1; }
  for se in $SCRIPTS; do
    IFS=: read -r s n1 n2 <<<"$se"
    for r in $(seq 1 "$REPEAT"); do
      for n in "$n1" "$n2"; do
        for mode in off on; do
          p=$WORK/cg-$d-$s-$mode-$n-r$r
          printf '%q ' valgrind --tool=callgrind --separate-threads=yes \
            --callgrind-out-file="$p" "$SB_BIN" "$s" "${COMMON[@]}" --threads=1 --events="$n" \
            --time=0 --report-per-statement="$mode" run >>"$CMDLOG"; echo >>"$CMDLOG"
          timeout -k 5 3600 valgrind --tool=callgrind --separate-threads=yes \
            --callgrind-out-file="$p" "$SB_BIN" "$s" "${COMMON[@]}" --threads=1 --events="$n" \
            --time=0 --report-per-statement="$mode" run >"$p.out" 2>"$p.err" ||
            { echo "FAILED: $d $s $mode $n" >&2; tail -n 20 "$p.out" "$p.err" >&2; exit 1; }
          IR[$d-$s-$mode-$n-r$r]=$(worker_ir "$p")
          IR[$d-$s-$mode-$n-r$r-all]=$(all_ir "$p")
        done
      done
      for mode in off on; do
        IR[$d-$s-$mode]="${IR[$d-$s-$mode]:-} $(awk -v a="${IR[$d-$s-$mode-$n1-r$r]}" \
          -v b="${IR[$d-$s-$mode-$n2-r$r]}" -v n="$((n2 - n1))" 'BEGIN {printf "%.0f", (b - a) / n}')"
        IR[$d-$s-$mode-all]="${IR[$d-$s-$mode-all]:-} ${IR[$d-$s-$mode-$n2-r$r-all]}"
      done
      printf '   %s %s run %s: off %s, on %s per transaction\n' "$d" "$s" "$r" \
        "${IR[$d-$s-off]##* }" "${IR[$d-$s-on]##* }"
    done
    echo "-- $d $s: own instructions per function, on minus off (the first runs of $n2"
    echo "   transactions, worker thread; LuaJIT's traces differ by chance)"
    join -j 2 -a 1 -a 2 -e 0 -o 0,1.1,2.1 \
      <(self_costs "$(worker_file "$WORK/cg-$d-$s-on-$n2-r1")" | sort -t$'\t' -k2,2) \
      <(self_costs "$(worker_file "$WORK/cg-$d-$s-off-$n2-r1")" | sort -t$'\t' -k2,2) \
      -t$'\t' 2>/dev/null |
      awk -F'\t' -v n="$n2" '{d = $2 - $3; if (d != 0) printf "%12.1f  %s\n", d / n, $1}' |
      sort -g -r -k1,1 | sed -n "1,${TOP}p" | sed 's/^/  /'
    echo "   (per transaction; negative: fewer with the figures on)"
    echo
  done
  "$SB_BIN" oltp_common "${COMMON[@]}" cleanup >/dev/null 2>&1 || true
done

echo "Summary: the worker thread's instructions per transaction (difference of the two runs,"
echo "median of $REPEAT); whole: all threads' instructions of the N2 runs (median)"
printf '%-7s %-18s %10s %10s %8s %12s\n' driver script off on on/off "whole on/off"
for d in $DRIVERS; do
  for se in $SCRIPTS; do
    IFS=: read -r s n1 n2 <<<"$se"
    awk -v d="$d" -v s="$s" -v a="$(echo "${IR[$d-$s-off]}" | median)" \
      -v b="$(echo "${IR[$d-$s-on]}" | median)" -v wa="$(echo "${IR[$d-$s-off-all]}" | median)" \
      -v wb="$(echo "${IR[$d-$s-on-all]}" | median)" \
      'BEGIN {printf "%-7s %-18s %10d %10d %8.4f %12.4f\n", d, s, a, b, b / a, wb / wa}'
  done
done
echo
echo "Commands run (in order):"
sed 's/^/  /' "$CMDLOG"
