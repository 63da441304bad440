#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The JSON reader's memory and time (issue 30 item 3): peak RSS and wall
# time of `sysbench merge` on
#   zeros   a 50 MB array of zeros, "[0,0,...]" (refused: not a result)
#   day     three instances' files of a 24-hour run at 1 s intervals
#           (86,400 intervals each, about 66 MB each; made from a real
#           4-second run's files by repeating its last interval)
# for two builds, interleaved (A B A B ...), medians of REPEAT runs.
#
#   BEFORE=/path/to/old/sysbench AFTER=/path/to/new/sysbench bench/json_memory.sh
#   REPEAT=3 (default)  KEEP=1 keeps the scratch directory
#
# Needs python3 (to write the inputs) and /usr/bin/time.

set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

AFTER=${AFTER:-${SB_BIN:-}}
BEFORE=${BEFORE:-}
REPEAT=${REPEAT:-3}
if [[ -z "$BEFORE" || ! -x "$BEFORE" || -z "$AFTER" || ! -x "$AFTER" ]]; then
  echo "error: set BEFORE and AFTER to two sysbench binaries" >&2; exit 2
fi
make_workdir
cd "$WORK" || exit 2

python3 -c "
import sys
n = 25 * 1024 * 1024
sys.stdout.write('[' + '0,' * (n - 1) + '0]')" >zeros.json

# Three instances of a short rated run, then each stretched to a day.
at=$(( $(date +%s) + 2 ))
for i in 0 1 2; do
  timeout 60 "$AFTER" "$EMPTY_LUA" run --threads=2 --tx-rate=3000 --time=4 \
    --report-interval=1 --rand-seed=9 --instance=$i/3 --start-at=$at \
    --json=s$i.json >/dev/null 2>&1 &
done
wait
python3 - <<'EOF'
import json
for i in range(3):
    d = json.load(open('s%d.json' % i))
    p = d['points'][0]
    last = p['intervals'][-1]
    p['intervals'] = [dict(last, time_s=k, epoch_s=round(p['start_unix_s'] + k, 3))
                      for k in range(1, 86401)]
    d['options']['general']['time'] = 86400
    json.dump(d, open('day%d.json' % i, 'w'), indent=2)
EOF

# one BIN CASE: "seconds KB exit" of one merge.
one() {
  local args
  case $2 in
    zeros) args=(merge zeros.json) ;;
    day) args=(merge day0.json day1.json day2.json --json=out.json) ;;
  esac
  echo "$1 ${args[*]}" >>"$CMDLOG"
  timeout 600 "$TIME_BIN" -f "%e %M %x" -o t.txt "$1" "${args[@]}" >/dev/null 2>err.txt
  tail -1 t.txt
}

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

printf '%-6s %-7s %10s %12s %5s  %s\n' case build "time (s)" "peak RSS (MB)" exit "input (MB)"
for c in zeros day; do
  : >A.txt; : >B.txt
  for _ in $(seq "$REPEAT"); do
    one "$BEFORE" $c >>A.txt
    one "$AFTER" $c >>B.txt
  done
  case $c in
    zeros) in_mb=$(du -m --apparent-size zeros.json | cut -f1) ;;
    day) in_mb=$(cat day?.json | wc -c | awk '{printf "%d", $1 / 1048576}') ;;
  esac
  for b in A B; do
    name=before; [[ $b == B ]] && name=after
    printf '%-6s %-7s %10s %12s %5s  %s\n' $c $name \
      "$(cut -d' ' -f1 $b.txt | median)" \
      "$(cut -d' ' -f2 $b.txt | median | awk '{printf "%d", $1 / 1024}')" \
      "$(cut -d' ' -f3 $b.txt | sort -u | tr '\n' ' ')" "$in_mb"
  done
done
echo
echo "commands:"
sort -u "$CMDLOG"
