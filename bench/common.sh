# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Shared helpers for the bench/*.sh scripts.  Sourced, not run.
# Needs: bash, awk, /usr/bin/time (Debian package "time"), coreutils timeout.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Our binary: $SB_BIN, else the out-of-tree build, else the in-tree build.
if [[ -z "${SB_BIN:-}" ]]; then
  for c in /tmp/b/sysbench/sysbench "$BENCH_DIR/../sysbench/sysbench"; do
    if [[ -x "$c" ]]; then SB_BIN=$c; break; fi
  done
fi
PEER_BIN=${PEER_BIN:-/usr/bin/sysbench}
TIME_BIN=${TIME_BIN:-/usr/bin/time}

check_tools() {
  if [[ -z "${SB_BIN:-}" || ! -x "$SB_BIN" ]]; then
    echo "error: our sysbench binary not found; set SB_BIN=/path/to/sysbench" >&2; exit 2
  fi
  if [[ ! -x "$PEER_BIN" ]]; then
    echo "error: peer binary $PEER_BIN not found; set PEER_BIN (apt-get install sysbench)" >&2; exit 2
  fi
  if [[ ! -x "$TIME_BIN" ]]; then
    echo "error: $TIME_BIN not found (apt-get install -y time)" >&2; exit 2
  fi
}

# Scratch directory with the empty-event script; removed on exit unless KEEP=1.
make_workdir() {
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/sbbench.XXXXXX")
  if [[ "${KEEP:-0}" != 1 ]]; then trap 'rm -rf "$WORK"' EXIT; fi
  EMPTY_LUA=$WORK/empty.lua
  printf 'function event() end\n' > "$EMPTY_LUA"
  CMDLOG=$WORK/commands.txt
  : > "$CMDLOG"
}

# run_one NAME WALL_LIMIT CMD...
#   Runs CMD under /usr/bin/time (client user+sys CPU of the whole process),
#   guarded by timeout WALL_LIMIT seconds (a hang shows as rc 124/137).
#   Leaves $WORK/NAME.out (stdout+stderr), $WORK/NAME.time ("user sys wall")
#   and sets RC.  The command line is appended to $CMDLOG.
run_one() {
  local name=$1 limit=$2; shift 2
  printf '%q ' "$@" >> "$CMDLOG"; echo >> "$CMDLOG"
  set +e
  "$TIME_BIN" -f "%U %S %e" -o "$WORK/$name.time" \
      timeout -k 5 "$limit" "$@" > "$WORK/$name.out" 2>&1
  RC=$?
  set -e
  [[ -s "$WORK/$name.time" ]] || echo "0 0 0" > "$WORK/$name.time"
  # time(1) writes "Command exited with non-zero status N" first on failure.
  tail -n 1 "$WORK/$name.time" > "$WORK/$name.time.tmp" && mv "$WORK/$name.time.tmp" "$WORK/$name.time"
}

# bin_of TOOL: the binary of "ours" or "peer" (also "ours:MODE", "peer:MODE").
bin_of() { if [[ ${1%%:*} == ours ]]; then echo "$SB_BIN"; else echo "$PEER_BIN"; fi; }

# Field extractors (print "" when absent).
events_of()  { awk -F: '/total number of events:/ {gsub(/ /,"",$2); print $2; exit}' "$WORK/$1.out"; }
ttime_of()   { awk -F: '/total time:/ {gsub(/[ s]/,"",$2); print $2; exit}' "$WORK/$1.out"; }
cpu_of()     { awk '{printf "%.2f", $1+$2}' "$WORK/$1.time"; }
wall_of()    { awk '{print $3}' "$WORK/$1.time"; }
# "transactions: N (X per sec.)" -> X
tps_of()     { awk '/^ *transactions:/ {gsub(/\(/,"",$3); print $3; exit}' "$WORK/$1.out"; }

# Percentile P (e.g. 99.9) from the section whose heading matches REGEX.
pct_in_section() { # NAME REGEX P
  awk -v re="$2" -v p="$3" '
    $0 ~ re {s=1; next}
    s && /^[^ ]/ {s=0}
    s && /^ *$/ {s=0}
    s && index($0, p "th percentile:") {print $NF; exit}' "$WORK/$1.out"
}

# Rate-mode figures (n/a when the run does not report them; sysbench 1.0
# reports none of them but its "queue length").
# Start-lag percentile P of our "Start lag" section.
lag_of()  { local v; v=$(pct_in_section "$1" '^Start lag' "$2"); echo "${v:-n/a}"; }
# Our late-start share.
late_of() { awk '/^ *late starts:/ {gsub(/[()]/,"",$4); print $4; f=1; exit} END {if (!f) print "n/a"}' "$WORK/$1.out"; }
# Ours: "max backlog:"; the peer: "qN", its largest interval "queue length".
backlog_of() {
  awk '/^ *max backlog:/ {print $3; f=1; exit}
       /queue length:/ {for (i=1;i<=NF;i++) if ($i=="length:") {v=$(i+1)+0; if (v>m) m=v; q=1}}
       END {if (!f) print (q ? "q" (m+0) : "n/a")}' "$WORK/$1.out"
}

# interval_stats NAME [SKIP [DECIMALS]]: statistics of the per-second
# figure of the "[ Ns ] ... eps: X" (or tps:) lines, the first SKIP (0 or
# 1, default 0) lines left out, printed with DECIMALS (default 0)
# decimals: "n mean stddev min max".
interval_stats() {
  awk -v skip="${2:-0}" -v dec="${3:-0}" '/^\[ *[0-9]+s \]/ {
         for (i = 1; i <= NF; i++) if ($i == "eps:" || $i == "tps:") {
           if (skip && !skipped) { skipped = 1; break }
           v = $(i+1) + 0; n++; s += v; ss += v*v
           if (n == 1 || v < mn) mn = v; if (n == 1 || v > mx) mx = v }
       }
       END { if (n == 0) { print "0 - - - -"; exit }
             m = s/n; var = ss/n - m*m; if (var < 0) var = 0
             f = "%." dec "f"
             printf "%d " f " " f " " f " " f "\n", n, m, sqrt(var), mn, mx }' "$WORK/$1.out"
}

# print_intervals PREFIX MODES...: the interval lines of the runs named
# PREFIX-TOOL-OPTION, one block per mode (MODE = ours:tx-rate and so on).
print_intervals() {
  local prefix=$1 m; shift
  for m in "$@"; do
    echo "   ${m/:/ --}:"
    grep -E '^\[' "$WORK/$prefix-${m/:/-}.out" | sed 's/^/     /' || echo "     (none)"
  done
}

print_commands() {
  echo
  echo "Commands run (in order; $EMPTY_LUA contains 'function event() end'):"
  sed 's/^/  /' "$CMDLOG"
}

print_env() {
  echo "date:    $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "host:    $(uname -srm), $(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "ours:    $SB_BIN ($("$SB_BIN" --version 2>&1 | head -n 1))"
  echo "peer:    $PEER_BIN ($("$PEER_BIN" --version 2>&1 | head -n 1))"
}

# harness_setup: the harness's servers under $WORK/srv (SRV), and traps
# that stop them if harness_start started them and remove WORK on exit
# (KEEP=1 keeps it). Needs HARNESS and WORK (make_workdir).
harness_setup() {
    SRV=$WORK/srv
    servers_started=0
    trap harness_finish EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

harness_finish() {
    local rc=$?
    trap - EXIT INT TERM
    [[ $servers_started == 1 ]] && { bash "$HARNESS" stop "$SRV" >/dev/null 2>&1 || true; }
    if [[ "${KEEP:-0}" != 1 ]]; then rm -rf "$WORK"; else echo "raw outputs kept in $WORK" >&2; fi
    exit "$rc"
}

# harness_start: starts the servers (exits with their log on failure) and
# reads their settings (SB_MYSQL_ARGS, SB_PGSQL_ARGS, ...) from servers.env.
harness_start() {
    servers_started=1
    bash "$HARNESS" start "$SRV" >"$WORK/servers.log" 2>&1 || {
        cat "$WORK/servers.log" >&2; echo "error: could not start the servers" >&2; exit 1; }
    # shellcheck source=/dev/null
    source "$SRV/servers.env"
}

# median: the median of the numbers on stdin (spaces or newlines), %.6g.
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.6g\n", (a[NR/2]+a[NR/2+1])/2}'; }

# median_or_dash: the median of the numbers on stdin, one a line, as awk
# prints it; "-" when there are none.
median_or_dash() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# server_cpu_of DIR mysql|pgsql: CPU seconds (user + system) so far of the
# throwaway server in DIR (tests/harness/servers.sh): MariaDB's process;
# PostgreSQL's postmaster with its reaped children and its live backends.
server_cpu_of() {
  local pid hz
  hz=$(getconf CLK_TCK)
  if [[ $2 == mysql ]]; then
    pid=$(cat "$1/mysql.pid")
    awk -v hz="$hz" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$pid/stat"
  else
    pid=$(cat "$1/pgsql.pid")
    { cat "/proc/$pid/stat"; for c in $(pgrep -P "$pid"); do cat "/proc/$c/stat" 2>/dev/null || true; done; } |
      awk -v hz="$hz" -v p="$pid" '{ s += $14 + $15; if ($1 == p) s += $16 + $17 } END { printf "%.2f", s / hz }'
  fi
}
