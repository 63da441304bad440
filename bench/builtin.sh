#!/usr/bin/env bash
# The compiled-in tests: events/s of ours against sysbench 1.0.20 with the
# same options, so the same work per event.
#
#   bench/builtin.sh                      # 5 s runs, 1 and 2 threads, 3 repeats
#   DURATION=10 REPEAT=5 THREADS="1 2 4" TESTS="cpu mutex" bench/builtin.sh
#
# Env: SB_BIN (ours), PEER_BIN (default /usr/bin/sysbench), DURATION (s, 5),
#      REPEAT (3), THREADS ("1 2"), TESTS (default: all of the cases below
#      but fileio's), KEEP=1 keeps the raw outputs. FIO_SIZE (1G): the
#      file set of the fileio cases, made once by ours in the scratch
#      directory (on the filesystem of TMPDIR) and used by both tools.
#
# Cases (one line each): cpu (--cpu-max-prime=10000, 1.0's default),
# memory sequential and random writes of 1 KiB blocks, threads (1.0's
# defaults), and mutex (1.0's defaults: one event per thread, so its
# figure is the time of that event; reported as events/s = threads / time).
# Not by default: fileio-rndrd and fileio-rndwr (4 KiB, O_DIRECT, no
# fsync: IOPS of the disk under TMPDIR; TESTS="fileio-rndrd fileio-rndwr").
# For each point the two tools run back to back (ours, peer, ours, peer,
# ...) so that load from other processes hits both alike; events/s is
# events / "total time"; CPU/event is the process's user+sys CPU time
# (/usr/bin/time) over its events, in microseconds (it includes start-up:
# compare it on runs of several seconds); the summary takes the median
# over the repeats.
set -euo pipefail
source "$(dirname "$0")/common.sh"

DURATION=${DURATION:-5}
REPEAT=${REPEAT:-3}
THREADS=${THREADS:-"1 2"}
TESTS=${TESTS:-"cpu memory-seq memory-rnd threads mutex"}

check_tools
make_workdir
FIO_OPTS="--file-num=16 --file-total-size=${FIO_SIZE:-1G}"
if [[ $TESTS == *fileio* ]]; then
  mkdir -p "$WORK/fio"
  # shellcheck disable=SC2086 # the options are words
  (cd "$WORK/fio" && "$SB_BIN" fileio $FIO_OPTS prepare >/dev/null)
fi

# args_of CASE: the test and its options (identical for both tools).
args_of() {
  case $1 in
  cpu) echo "cpu --cpu-max-prime=10000" ;;
  memory-seq) echo "memory --memory-block-size=1K --memory-access-mode=seq" ;;
  memory-rnd) echo "memory --memory-block-size=1K --memory-access-mode=rnd" ;;
  threads) echo "threads --thread-yields=1000 --thread-locks=8" ;;
  mutex) echo "mutex --mutex-num=4096 --mutex-locks=50000 --mutex-loops=10000" ;;
  fileio-rnd*) echo "fileio $FIO_OPTS --file-block-size=4096 --file-extra-flags=direct" \
    "--file-fsync-freq=0 --file-fsync-end=off --file-test-mode=${1#fileio-}" ;;
  *) echo "unknown case $1" >&2; exit 2 ;;
  esac
}

echo "== Compiled-in tests: ${DURATION} s per run, ${REPEAT} repeat(s), interleaved"
print_env
echo

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.6g\n", (a[NR/2]+a[NR/2+1])/2}'; }

declare -A EPS US
printf '%-11s %-4s %3s %-4s %12s %10s %14s %12s\n' case thr rep tool events "time (s)" "events/s" \
  "us CPU/ev"
for c in $TESTS; do
  for t in $THREADS; do
    for r in $(seq 1 "$REPEAT"); do
      for tool in ours peer; do
        name=$c-t$t-r$r-$tool
        [[ $c == fileio* ]] && cd "$WORK/fio"
        # shellcheck disable=SC2046 # the options are words
        run_one "$name" $((DURATION + 120)) "$(bin_of "$tool")" $(args_of "$c") \
          --threads="$t" --time="$DURATION" run
        cd "$WORK"
        ev=$(events_of "$name"); tt=$(ttime_of "$name")
        if [[ $RC -ne 0 || -z "$ev" || -z "$tt" ]]; then
          echo "FAILED: $tool $c, $t thread(s), exit code $RC; output:" >&2
          tail -n 20 "$WORK/$name.out" >&2
          exit 1
        fi
        eps=$(awk -v e="$ev" -v t="$tt" 'BEGIN {printf "%.2f", e/t}')
        us=$(awk -v e="$ev" -v c="$(cpu_of "$name")" 'BEGIN {printf "%.4g", c*1e6/e}')
        EPS[$c-$t-$tool]="${EPS[$c-$t-$tool]:-} $eps"; US[$c-$t-$tool]="${US[$c-$t-$tool]:-} $us"
        printf '%-11s %-4s %3s %-4s %12s %10s %14s %12s\n' "$c" "$t" "$r" "$tool" "$ev" "$tt" "$eps" \
          "$us"
      done
    done
  done
done

echo
echo "Summary (median of $REPEAT run(s)):"
printf '%-11s %-7s | %14s %14s %9s | %11s %11s %9s\n' case threads "ours ev/s" "1.0.20 ev/s" \
  "ours/1.0" "ours us/ev" "1.0 us/ev" "ours/1.0"
for c in $TESTS; do
  for t in $THREADS; do
    o=$(echo "${EPS[$c-$t-ours]}" | median); p=$(echo "${EPS[$c-$t-peer]}" | median)
    ou=$(echo "${US[$c-$t-ours]}" | median); pu=$(echo "${US[$c-$t-peer]}" | median)
    awk -v c="$c" -v t="$t" -v o="$o" -v p="$p" -v ou="$ou" -v pu="$pu" 'BEGIN {
      printf "%-11s %-7s | %14.2f %14.2f %9.2f | %11.4g %11.4g %9.2f\n", c, t, o, p, o/p, ou, pu, ou/pu }'
  done
done
print_commands
