#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The compiled-in tests: events/s of ours against sysbench 1.0.20 with the
# same options (so the same work per event) and, for fileio, against fio
# on the same file set. Fixed work, interleaved runs, medians.
#
#   bench/builtin.sh                              # cpu memory threads mutex, 1 and 2 threads
#   TESTS="fileio-rndrd fileio-rndwr fileio-async-rndrd fileio-async-rndwr" bench/builtin.sh
#   REPEAT=7 THREADS="1 2 4" SCALE=2 TESTS="cpu mutex" bench/builtin.sh
#
# Env: SB_BIN (ours), PEER_BIN (default /usr/bin/sysbench), FIO_BIN (fio),
#      REPEAT (5 rounds), THREADS ("1 2"), TESTS (default: every case but
#      fileio's), SCALE (1: multiplies the work of every run), KEEP=1 keeps
#      the raw outputs, FIO_SIZE (1G): the file set of the fileio cases (16
#      files made once by ours in a scratch directory on the filesystem of
#      TMPDIR, used by all three tools). NICE (unset): run every tool under
#      `nice -n NICE` (root: NICE=-20 gives both tools the same larger
#      share of a machine other work keeps busy).
#
# Work: every run does a fixed amount of work per thread, not a fixed time
# (the total grows with the thread count):
#   cpu           --events (3,000 per thread; --cpu-max-prime=10000, 1.0's default)
#   memory-seq    --memory-total-size (4 GiB per thread of 1 KiB sequential writes)
#   memory-rnd    --memory-total-size (2 GiB per thread of 1 KiB random writes)
#   threads       --events (1,000 per thread; 1.0's defaults, 1000 yields, 8 locks)
#   mutex         one event per thread (1.0's defines it so), 200,000 locks
#   fileio-*      --events (10,000 per thread; async: 50,000), 4 KiB, O_DIRECT, no fsync;
#                 fio: --number_ios per job, psync (sync) or io_uring at
#                 --iodepth 32 (async: ours --file-async-backlog=32, 1.0.20's
#                 libaio with the same backlog), random files, no random map.
# Rounds: each round runs every tool once; the order turns round by round
# (ours first, then the peer first, ...) so that a drift of the machine's
# load hits both alike. Per round the ratio ours/peer is taken; the
# summary gives the medians of events/s, the median ratio of the rounds
# and its spread (the smallest and largest round ratio), and the median
# CPU per event (/usr/bin/time's user+sys, start-up included) with the
# median and spread of the rounds' CPU ratios: the figure that load from
# other processes moves least (it does not count the time a run waited
# for a CPU).
set -euo pipefail
source "$(dirname "$0")/common.sh"

REPEAT=${REPEAT:-5}
THREADS=${THREADS:-"1 2"}
TESTS=${TESTS:-"cpu memory-seq memory-rnd threads mutex"}
SCALE=${SCALE:-1}
FIO_BIN=${FIO_BIN:-$(command -v fio || echo fio)}
NFILES=16

check_tools
make_workdir
NICE_CMD=()
[[ -z "${NICE:-}" ]] || NICE_CMD=(nice -n "$NICE")
FIO_OPTS="--file-num=$NFILES --file-total-size=${FIO_SIZE:-1G}"
if [[ $TESTS == *fileio* ]]; then
  if ! command -v "$FIO_BIN" >/dev/null; then
    echo "error: fio not found (apt-get install -y fio); set FIO_BIN" >&2; exit 2
  fi
  mkdir -p "$WORK/fio"
  # shellcheck disable=SC2086 # the options are words
  (cd "$WORK/fio" && "$SB_BIN" fileio $FIO_OPTS prepare >/dev/null)
fi

# work_of CASE THREADS: the options that fix the work of a run.
work_of() {
  local t=$2
  case $1 in
  cpu) echo "--events=$((3000 * SCALE * t)) --time=0" ;;
  memory-seq) echo "--memory-total-size=$((4 * SCALE * t))G --time=0" ;;
  memory-rnd) echo "--memory-total-size=$((2 * SCALE * t))G --time=0" ;;
  threads) echo "--events=$((1000 * SCALE * t)) --time=0" ;;
  mutex) echo "--mutex-locks=$((200000 * SCALE)) --time=0" ;;
  fileio-async-*) echo "--events=$((50000 * SCALE * t)) --time=0" ;;
  fileio-*) echo "--events=$((10000 * SCALE * t)) --time=0" ;;
  esac
}

# args_of CASE: the test and its options (identical for both sysbenches).
args_of() {
  case $1 in
  cpu) echo "cpu --cpu-max-prime=10000" ;;
  memory-seq) echo "memory --memory-block-size=1K --memory-access-mode=seq" ;;
  memory-rnd) echo "memory --memory-block-size=1K --memory-access-mode=rnd" ;;
  threads) echo "threads --thread-yields=1000 --thread-locks=8" ;;
  mutex) echo "mutex --mutex-num=4096 --mutex-loops=10000" ;;
  fileio-*)
    local io=sync m=${1#fileio-}
    if [[ $m == async-* ]]; then io="async --file-async-backlog=32"; m=${m#async-}; fi
    echo "fileio $FIO_OPTS --file-block-size=4096 --file-extra-flags=direct" \
      "--file-fsync-freq=0 --file-fsync-end=off --file-test-mode=$m --file-io-mode=$io" ;;
  *) echo "unknown case $1" >&2; exit 2 ;;
  esac
}

# fio_args CASE THREADS: fio's job on the same file set, the same work.
fio_args() {
  local m=${1#fileio-} eng="--ioengine=psync" files
  local n=$((10000 * SCALE))
  if [[ $m == async-* ]]; then
    eng="--ioengine=io_uring --iodepth=32"; m=${m#async-}; n=$((50000 * SCALE))
  fi
  files=$(seq -s: -f 'test_file.%g' 0 $((NFILES - 1)))
  case $m in rndrd) m=randread ;; rndwr) m=randwrite ;; *) echo "no fio job for $1" >&2; exit 2 ;; esac
  # shellcheck disable=SC2086 # $eng holds words
  echo "--name=sb --filename=$files --rw=$m --bs=4k --direct=1 $eng" \
    "--numjobs=$2 --thread --group_reporting --number_ios=$n" \
    "--file_service_type=random --norandommap --randrepeat=0 --output-format=json"
}

# fio's IOPS (read or write: the job does one of them) from its JSON.
fio_iops() {
  python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
d = j["read"] if j["read"]["total_ios"] > 0 else j["write"]
print(d["total_ios"], "%.4f" % (d["runtime"] / 1000.0))' "$WORK/$1.out"
}

echo "== Compiled-in tests: fixed work, $REPEAT round(s), interleaved (order turns each round)"
print_env
[[ $TESTS == *fileio* ]] && echo "fio:     $FIO_BIN ($("$FIO_BIN" --version))"
echo

minmax() { tr ' ' '\n' | grep -v '^$' | sort -g | awk 'NR==1 {a=$1} {b=$1} END {printf "%.2f-%.2f", a, b}'; }

# run_tool CASE THREADS ROUND TOOL: one run; appends to EPS/US/RAT maps.
declare -A EPS US ROUND ROUNDUS
run_tool() {
  local c=$1 t=$2 r=$3 tool=$4 name=$1-t$2-r$3-$4 ev tt eps us
  [[ $c == fileio* ]] && cd "$WORK/fio"
  if [[ $tool == fio ]]; then
    # shellcheck disable=SC2046 # the options are words
    run_one "$name" 300 "${NICE_CMD[@]}" "$FIO_BIN" $(fio_args "$c" "$t")
    read -r ev tt < <(fio_iops "$name" 2>/dev/null) || true
  else
    # shellcheck disable=SC2046 # the options are words
    run_one "$name" 300 "${NICE_CMD[@]}" "$(bin_of "$tool")" $(args_of "$c") $(work_of "$c" "$t") \
      --threads="$t" run
    ev=$(events_of "$name"); tt=$(ttime_of "$name")
  fi
  cd "$WORK"
  if [[ $RC -ne 0 || -z "${ev:-}" || -z "${tt:-}" ]]; then
    echo "FAILED: $tool $c, $t thread(s), exit code $RC; output:" >&2
    tail -n 20 "$WORK/$name.out" >&2
    exit 1
  fi
  eps=$(awk -v e="$ev" -v t="$tt" 'BEGIN {printf "%.2f", e/t}')
  us=$(awk -v e="$ev" -v c="$(cpu_of "$name")" 'BEGIN {printf "%.4g", c*1e6/e}')
  EPS[$c-$t-$tool]="${EPS[$c-$t-$tool]:-} $eps"; US[$c-$t-$tool]="${US[$c-$t-$tool]:-} $us"
  ROUND[$c-$t-$r-$tool]=$eps; ROUNDUS[$c-$t-$r-$tool]=$us
  printf '%-18s %-4s %3s %-5s %12s %10s %14s %12s\n' "$c" "$t" "$r" "$tool" "$ev" "$tt" "$eps" "$us"
}

printf '%-18s %-4s %3s %-5s %12s %10s %14s %12s\n' case thr rnd tool events "time (s)" "events/s" \
  "us CPU/ev"
for c in $TESTS; do
  tools="ours peer"
  [[ $c == fileio* ]] && tools="ours peer fio"
  for t in $THREADS; do
    for r in $(seq 1 "$REPEAT"); do
      # The order turns: ours peer fio, peer fio ours, fio ours peer, ...
      # shellcheck disable=SC2086 # the tools are words
      set -- $tools
      for _ in $(seq 2 "$r"); do set -- "${@:2}" "$1"; done
      for tool in "$@"; do run_tool "$c" "$t" "$r" "$tool"; done
    done
  done
done

# ratios BASE CASE THREADS [us]: the round ratios ours/BASE of events/s
# (with "us": of CPU per event).
ratios() {
  local r
  for r in $(seq 1 "$REPEAT"); do
    if [[ ${4:-} == us ]]; then
      awk -v o="${ROUNDUS[$2-$3-$r-ours]}" -v p="${ROUNDUS[$2-$3-$r-$1]}" 'BEGIN {printf "%.4f ", o/p}'
    else
      awk -v o="${ROUND[$2-$3-$r-ours]}" -v p="${ROUND[$2-$3-$r-$1]}" 'BEGIN {printf "%.4f ", o/p}'
    fi
  done
}

echo
echo "Summary (medians of $REPEAT round(s); ratio = median of the rounds' ours/peer, [smallest-largest]):"
printf '%-18s %-3s | %12s %12s %22s | %10s %10s %22s' case thr "ours ev/s" "1.0.20 ev/s" \
  "ours/1.0.20 [spread]" "ours us/ev" "1.0 us/ev" "CPU ours/1.0 [spread]"
[[ $TESTS == *fileio* ]] && printf ' | %12s %22s %10s' "fio IOPS" "ours/fio [spread]" "fio us/ev"
echo
for c in $TESTS; do
  for t in $THREADS; do
    o=$(echo "${EPS[$c-$t-ours]}" | median); p=$(echo "${EPS[$c-$t-peer]}" | median)
    rp=$(ratios peer "$c" "$t"); ru=$(ratios peer "$c" "$t" us)
    printf '%-18s %-3s | %12.2f %12.2f %8.3f [%s] | %10.4g %10.4g %8.3f [%s]' "$c" "$t" "$o" \
      "$p" "$(echo "$rp" | median)" "$(echo "$rp" | minmax)" \
      "$(echo "${US[$c-$t-ours]}" | median)" "$(echo "${US[$c-$t-peer]}" | median)" \
      "$(echo "$ru" | median)" "$(echo "$ru" | minmax)"
    if [[ $c == fileio* ]]; then
      rf=$(ratios fio "$c" "$t")
      printf ' | %12.2f %8.3f [%s] %10.4g' "$(echo "${EPS[$c-$t-fio]}" | median)" \
        "$(echo "$rf" | median)" "$(echo "$rf" | minmax)" "$(echo "${US[$c-$t-fio]}" | median)"
    fi
    echo
  done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
print_commands
