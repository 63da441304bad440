#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What a thread costs (issue 29, item 9): the peak RSS of
# `sysbench cpu --time=2 run` at 1, 64 and 1,000 threads and of a script
# whose event() is empty at 1,000 threads, ours against sysbench 1.0.20
# and, with BASE_BIN, another build of ours; and, with INSTR=1, what the
# statistics cost per event: the worker thread's instructions per empty
# event under callgrind, ours against BASE_BIN (an empty event is where
# the bookkeeping weighs most; a cpu event's 200 us of primes hides it).
#
#   bench/thread_memory.sh
#   BASE_BIN=/path/to/old/sysbench INSTR=1 REPEAT=5 bench/thread_memory.sh
#
# Env: SB_BIN (ours), PEER_BIN (1.0.20, /usr/bin/sysbench), BASE_BIN
#      (optional), REPEAT (5 runs of each case; medians), CASES (default
#      "cpu:1 cpu:64 cpu:1000 lua:1000"), INSTR=1 (callgrind, needs
#      BASE_BIN), EVENTS ("20000:220000": the two runs' events), KEEP=1.
# The tools take turns within each round (ours, base, peer, ours, ...), so
# that whatever else loads the machine hits them alike. Peak RSS is
# /usr/bin/time's %M (the largest resident set of the process). Memory,
# unlike time, hardly moves with load, but how many threads have started
# when the first events end does, hence the medians.
# Instructions per event: one thread, fixed work (--events=N, --time=0),
# valgrind --tool=callgrind --separate-threads=yes; the worker thread's
# instructions of the N2 run minus those of the N1 run over N2 - N1, so
# start-up and the end drop out; LuaJIT's traces vary from run to run,
# hence the long N2 and the median of REPEAT.
set -euo pipefail
export LC_ALL=C
source "$(dirname "$0")/common.sh"

REPEAT=${REPEAT:-5}
CASES=${CASES:-"cpu:1 cpu:64 cpu:1000 lua:1000"}
EVENTS=${EVENTS:-"20000:220000"}
INSTR=${INSTR:-0}
BASE_BIN=${BASE_BIN:-}

check_tools
[[ -z "$BASE_BIN" || -x "$BASE_BIN" ]] || { echo "error: BASE_BIN=$BASE_BIN is not executable" >&2; exit 2; }
if [[ $INSTR == 1 ]]; then
  [[ -n "$BASE_BIN" ]] || { echo "error: INSTR=1 needs BASE_BIN (the build to compare with)" >&2; exit 2; }
  command -v valgrind >/dev/null || { echo "error: valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
fi
make_workdir

TOOLS="ours"
[[ -n "$BASE_BIN" ]] && TOOLS="$TOOLS base"
TOOLS="$TOOLS peer"
tool_bin() { case $1 in ours) echo "$SB_BIN" ;; base) echo "$BASE_BIN" ;; peer) echo "$PEER_BIN" ;; esac; }

# case_args KIND: the command's test and its options.
case_args() {
  case $1 in
    cpu) echo "cpu" ;;
    lua) echo "$EMPTY_LUA" ;;
    *) echo "error: unknown case $1" >&2; exit 2 ;;
  esac
}

echo "== Peak RSS per thread count (MB), medians of $REPEAT alternating runs"
echo "date:    $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "host:    $(uname -srm), $(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ours:    $SB_BIN"
[[ -n "$BASE_BIN" ]] && echo "base:    $BASE_BIN"
echo "peer:    $PEER_BIN ($("$PEER_BIN" --version 2>&1 | head -n 1))"
echo

declare -A RSS
for c in $CASES; do
  IFS=: read -r kind n <<<"$c"
  for r in $(seq 1 "$REPEAT"); do
    for tool in $TOOLS; do
      name=rss-$kind-$n-$tool-r$r
      printf '%q ' "$(tool_bin "$tool")" "$(case_args "$kind")" --threads="$n" --time=2 run >>"$CMDLOG"
      echo >>"$CMDLOG"
      set +e
      "$TIME_BIN" -f "%M" -o "$WORK/$name.rss" timeout -k 5 120 \
        "$(tool_bin "$tool")" "$(case_args "$kind")" --threads="$n" --time=2 run >"$WORK/$name.out" 2>&1
      rc=$?
      set -e
      if [[ $rc -ne 0 ]]; then
        echo "FAILED: $tool $kind --threads=$n (exit $rc):" >&2; tail -n 20 "$WORK/$name.out" >&2; exit 1
      fi
      RSS[$kind-$n-$tool]="${RSS[$kind-$n-$tool]:-} $(tail -n 1 "$WORK/$name.rss")"
    done
  done
done

printf '%-22s' case
for tool in $TOOLS; do printf ' %10s' "$tool"; done
printf ' %10s   %s\n' "ours/peer" "runs (KB)"
for c in $CASES; do
  IFS=: read -r kind n <<<"$c"
  printf '%-22s' "$kind, $n thread(s)"
  for tool in $TOOLS; do
    printf ' %10.1f' "$(echo "${RSS[$kind-$n-$tool]}" | median | awk '{print $1 / 1024}')"
  done
  awk -v a="$(echo "${RSS[$kind-$n-ours]}" | median)" -v b="$(echo "${RSS[$kind-$n-peer]}" | median)" \
    'BEGIN {printf " %10.3f", a / b}'
  for tool in $TOOLS; do printf '   %s:%s' "$tool" "$(echo "${RSS[$kind-$n-$tool]}" | xargs | tr ' ' ',')"; done
  echo
done

if [[ $INSTR == 1 ]]; then
  worker_ir() { awk '/^totals:/ {print $2}' "$(grep -l 'sb_worker_event_start' "$1"-* | head -n 1)"; }
  IFS=: read -r n1 n2 <<<"$EVENTS"
  echo
  echo "== Worker thread's instructions per event (callgrind), 1 thread, medians of $REPEAT"
  declare -A IR
  for kind in lua; do
    a=$n1 b=$n2
    for r in $(seq 1 "$REPEAT"); do
      for tool in ours base; do
        for n in "$a" "$b"; do
          p=$WORK/cg-$kind-$tool-$n-r$r
          printf '%q ' valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$p" \
            "$(tool_bin "$tool")" "$(case_args "$kind")" --threads=1 --events="$n" --time=0 run >>"$CMDLOG"
          echo >>"$CMDLOG"
          timeout -k 5 3600 valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$p" \
            "$(tool_bin "$tool")" "$(case_args "$kind")" --threads=1 --events="$n" --time=0 run \
            >"$p.out" 2>"$p.err" || { echo "FAILED: callgrind $tool $kind $n" >&2; tail -n 20 "$p.err" >&2; exit 1; }
        done
        IR[$kind-$tool]="${IR[$kind-$tool]:-} $(awk -v x="$(worker_ir "$WORK/cg-$kind-$tool-$a-r$r")" \
          -v y="$(worker_ir "$WORK/cg-$kind-$tool-$b-r$r")" -v n=$((b - a)) 'BEGIN {printf "%.1f", (y - x) / n}')"
      done
    done
    awk -v k="$kind" -v o="$(echo "${IR[$kind-ours]}" | median)" -v s="$(echo "${IR[$kind-base]}" | median)" \
      -v ro="${IR[$kind-ours]}" -v rb="${IR[$kind-base]}" \
      'BEGIN {printf "%-4s ours %10.1f  base %10.1f  ours/base %.4f   (ours:%s; base:%s)\n", k, o, s, o / s, ro, rb}'
  done
fi
echo
echo "Commands run (in order):"
sed 's/^/  /' "$CMDLOG"
