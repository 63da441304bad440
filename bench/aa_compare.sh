#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A/A experiment for compare's verdicts: identical oltp_read_write runs on a
# throwaway MariaDB, compared pairwise. Every "better" or "worse" verdict is
# false (the runs differ only by chance), so the share of judged figures
# with such a verdict is compare's false-verdict rate.
#
#   bench/aa_compare.sh                 collect N single runs and N --repeat=3
#                                       groups (interleaved), then score
#   bench/aa_compare.sh --score DIR     score the result files kept in DIR
#                                       again (e.g. with another SB_BIN)
#
# Steps:
#   0. start MariaDB (and PostgreSQL, which the harness always starts) with
#      tests/harness/servers.sh in a scratch directory, stopped on exit;
#      prepare TABLES x TABLE_SIZE rows; one discarded warm-up run;
#   1. N times, alternating: a single run (sK.json) and a --repeat=3 group
#      (gK.json), each TIME s at THREADS threads, --report-interval=1 (the
#      interval series, which older builds judged single runs from), and
#      --server-pid so that the server's CPU is judged too;
#   2. AB pairs of --repeat=3 groups, one with innodb_flush_log_at_trx_commit
#      at 2 (the harness's setting) and one at 1 (SET GLOBAL), alternating
#      which goes first: a real change, to show what the verdicts find;
#   3. every pair i < j of the single runs and of the groups (N(N-1)/2
#      pairings each) goes through `sysbench compare`; each table row with a
#      verdict is one judged figure. Printed per mode: pairings, figures
#      judged, "better"/"worse" verdicts (false by construction) and their
#      share, "no significant difference", no verdict (single runs get
#      none: they show no run-to-run variation); then per figure. A row
#      is a figure when it has a ratio ("1.012x").
#      Then the AB pairs, verdicts counted the same way.
# Env: SB_BIN, N (10), AB (5), TIME (6), THREADS (4), TABLES (1),
#      TABLE_SIZE (10000), REPEAT (3), OUT (a new directory under TMPDIR;
#      the result files stay there for --score, which needs the same N and
#      AB as the collection).
set -euo pipefail
source "$(dirname "$0")/common.sh"

N=${N:-10}
TIME=${TIME:-6}
THREADS=${THREADS:-4}
TABLES=${TABLES:-1}
TABLE_SIZE=${TABLE_SIZE:-10000}
REPEAT=${REPEAT:-3}
AB=${AB:-5}
SERVERS_SH=$BENCH_DIR/../tests/harness/servers.sh
SCORE_ONLY=

case ${1:-} in
  --score) SCORE_ONLY=${2:?--score needs the directory of a previous run}; OUT=$SCORE_ONLY ;;
  -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
  '') ;;
  *) echo "unknown argument: $1 (use --score DIR)" >&2; exit 2 ;;
esac
if [[ -z "${SB_BIN:-}" || ! -x "$SB_BIN" ]]; then
  echo "error: our sysbench binary not found; set SB_BIN=/path/to/sysbench" >&2; exit 2
fi
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/sbaa.XXXXXX")}
mkdir -p "$OUT"

collect() {
  local srv k
  [[ -r $SERVERS_SH ]] || { echo "error: $SERVERS_SH not found" >&2; exit 2; }
  srv=$(mktemp -d "${TMPDIR:-/tmp}/sbaa-srv.XXXXXX")
  chmod 755 "$srv"
  # shellcheck disable=SC2064 # the directory is fixed now.
  trap "bash '$SERVERS_SH' stop '$srv' >/dev/null 2>&1 || true" EXIT
  trap 'exit 130' INT TERM
  if ! bash "$SERVERS_SH" start "$srv" >"$OUT/servers.log" 2>&1; then
    echo "FAILED: servers.sh start:" >&2; cat "$OUT/servers.log" >&2; exit 1
  fi
  # shellcheck disable=SC1091
  source "$srv/servers.env"
  read -r -a db <<<"--db-driver=mysql $SB_MYSQL_ARGS"
  local wl=(oltp_read_write "${db[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE"
            --threads="$THREADS" --server-pid="$SB_MYSQL_PID" --report-interval=1)
  {
    echo "MariaDB $SB_MYSQL_VERSION; $N single runs and $N groups of --repeat=$REPEAT (A/A);"
    echo "$AB A/B pairs of --repeat=$REPEAT groups: innodb_flush_log_at_trx_commit 2 against 1;"
    echo "oltp_read_write, $THREADS threads, $TIME s per run, $TABLES x $TABLE_SIZE rows"
    print_env_short
  } >"$OUT/setup.txt"
  "$SB_BIN" "${wl[@]}" prepare >"$OUT/prepare.out" 2>&1 ||
    { echo "FAILED: prepare" >&2; tail -n 20 "$OUT/prepare.out" >&2; exit 1; }
  "$SB_BIN" "${wl[@]}" --time="$TIME" run >"$OUT/warmup.out" 2>&1 || true
  for ((k = 1; k <= N; k++)); do
    echo "   run $k of $N ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))" >&2
    timeout -k 5 $((TIME + 120)) "$SB_BIN" "${wl[@]}" --time="$TIME" --json="$OUT/s$k.json" \
      run >"$OUT/s$k.out" 2>&1 || echo "   single run $k failed (exit $?)" >&2
    timeout -k 5 $((REPEAT * (TIME + 60) + 60)) "$SB_BIN" "${wl[@]}" --time="$TIME" \
      --repeat="$REPEAT" --json="$OUT/g$k.json" run >"$OUT/g$k.out" 2>&1 ||
      echo "   group $k failed (exit $?)" >&2
  done
  # A real change for contrast: innodb_flush_log_at_trx_commit 2 (the
  # harness's) against 1, the order alternating.
  for ((k = 1; k <= AB; k++)); do
    echo "   A/B pair $k of $AB ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))" >&2
    for v in $((k % 2 ? 1 : 2)) $((k % 2 ? 2 : 1)); do
      mariadb --no-defaults -S "$SB_MYSQL_SOCKET" -uroot \
        -e "SET GLOBAL innodb_flush_log_at_trx_commit=$v" || exit 1
      timeout -k 5 $((REPEAT * (TIME + 60) + 60)) "$SB_BIN" "${wl[@]}" --time="$TIME" \
        --repeat="$REPEAT" --json="$OUT/$([[ $v == 2 ]] && echo t || echo h)$k.json" run \
        >"$OUT/ab$k-$v.out" 2>&1 || echo "   A/B run $k ($v) failed (exit $?)" >&2
    done
  done
  mariadb --no-defaults -S "$SB_MYSQL_SOCKET" -uroot -e "SET GLOBAL innodb_flush_log_at_trx_commit=2"
  echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/setup.txt"
}

print_env_short() {
  echo "date:    $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "host:    $(uname -srm), $(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# compare_rows A B: "PAIR", then one "figure<TAB>verdict" line per table
# row of `compare A B` (a row is a figure when it has a ratio, "1.012x").
compare_rows() {
  echo "PAIR"
  "$SB_BIN" compare "$1" "$2" --labels=a,b 2>&1 | awk '
    /^(Throughput|Response time|CPU per transaction).*:$/ { fig = $0; sub(/ \(.*/, "", fig); next }
    NF == 0 { fig = "" }
    fig != "" && $0 ~ / [0-9.]+x( |$)/ {
      v = "none"
      if ($0 ~ / better$/) v = "better"
      else if ($0 ~ / worse$/) v = "worse"
      else if ($0 ~ / no significant difference$/) v = "same"
      print fig "\t" v
    }'
}

# score_ab: compare each A/B pair tK (flush at commit 2) against hK (1).
score_ab() {
  local k
  for ((k = 1; k <= AB; k++)); do
    [[ -s "$OUT/t$k.json" && -s "$OUT/h$k.json" ]] && compare_rows "$OUT/t$k.json" "$OUT/h$k.json"
  done
}

# score PREFIX: compare every pair of PREFIX*.json; prints one line per
# pairing's verdict rows ("figure<TAB>verdict") to stdout.
score_rows() {
  local prefix=$1 files=() i j
  for ((i = 1; i <= N; i++)); do
    [[ -s "$OUT/$prefix$i.json" ]] && files+=("$OUT/$prefix$i.json")
  done
  for ((i = 0; i < ${#files[@]}; i++)); do
    for ((j = i + 1; j < ${#files[@]}; j++)); do
      compare_rows "${files[i]}" "${files[j]}"
    done
  done
}

summarize() {
  local mode=$1
  awk -F'\t' -v mode="$mode" '
    $0 == "PAIR" { pairs++; anyf += cur; cur = 0; next }
    { n++; c[$2]++; f[$1]++; fv[$1, $2]++; if ($2 == "better" || $2 == "worse") cur = 1 }
    END {
      anyf += cur
      printf "%-22s %8d %8d %8d %8d %8d %9s %8d %8d\n", mode, pairs, n, c["better"], c["worse"],
             c["same"], n ? sprintf("%.1f%%", 100 * (c["better"] + c["worse"]) / n) : "-",
             c["none"], anyf
      for (k in f)
        printf "    %-34s %5d figures: %3d better, %3d worse, %4d same, %4d no verdict\n", k, f[k],
               fv[k, "better"], fv[k, "worse"], fv[k, "same"], fv[k, "none"] | "sort"
      close("sort")
    }'
}

if [[ -z $SCORE_ONLY ]]; then
  echo "== A/A compare on MariaDB: collecting into $OUT" >&2
  collect
fi
cat "$OUT/setup.txt"
echo "compare: $SB_BIN ($("$SB_BIN" --version 2>&1 | head -n 1))"
echo
printf '%-22s %8s %8s %8s %8s %8s %9s %8s %8s\n' mode pairings figures better worse same "false" "no verd." "any"
score_rows s >"$OUT/score-single.txt"
summarize "single runs" <"$OUT/score-single.txt"
score_rows g >"$OUT/score-repeat.txt"
summarize "--repeat=$REPEAT" <"$OUT/score-repeat.txt"
echo
echo "false = (better + worse) / figures: every verdict other than 'no significant"
echo "difference' or 'no verdict' is false here, since both sides ran the same thing;"
echo "any = pairings with at least one false verdict."
echo
echo "A/B, a real change: flush at commit 2 (a) against 1 (b), --repeat=$REPEAT each"
printf '%-22s %8s %8s %8s %8s %8s %9s %8s %8s\n' mode pairings figures better worse same "b|w" "no verd." "any"
score_ab >"$OUT/score-ab.txt"
summarize "A/B --repeat=$REPEAT" <"$OUT/score-ab.txt"
echo
echo "Result files kept in $OUT (re-score with: bench/aa_compare.sh --score $OUT)"
