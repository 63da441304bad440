#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# prepare at the server's bulk-load speed (issue 32): ours (--bulk-mode
# auto: COPY / LOAD DATA LOCAL), ours with --bulk-mode=insert (multi-row
# INSERTs, as 1.0), sysbench 1.0.20 and, on PostgreSQL, pgbench -i, on the
# same throwaway MariaDB and PostgreSQL servers (tests/harness/servers.sh,
# stopped on exit) and the same rows.
#
#   bench/prepare.sh [--quick]
#     default  SHAPES "4x1000000 1x4000000", ROUNDS 3
#     --quick  SHAPES "4x100000 1x400000",   ROUNDS 3
#
# Each round runs every tool once per shape (TABLESxROWS of
# oltp_read_write, --threads=THREADS, default 2), the order rotating from
# round to round; before each run the tables are dropped. Reported per
# tool: the median wall time, rows/s and MB/s of table data (PostgreSQL:
# pg_relation_size of the tables; MariaDB: data_length), the client's CPU
# (user+sys of the whole process, /usr/bin/time) and the server's (its
# processes' utime+stime from /proc, reaped PostgreSQL backends included),
# the client's share of the CPU the load took, and the client's peak RSS.
#
# pgbench -i -I dtgvp loads the scale whose pgbench_accounts holds about
# as many bytes as our tables. Like with like, in MB of table data (heap
# only, pg_relation_size) per second: pgbench's "client-side generate"
# phase (its COPY, one connection, no index yet) against our load phase
# (COPY; the "Prepare done" line's load time, summed over the threads,
# divided by --threads: the threads load side by side), column load_MB/s;
# and each tool's whole time (create, load, keys, indexes; pgbench's
# vacuum too), column MB/s.
#
# PGBENCH_SCALE=N loads pgbench at scale N instead (N x 100,000 rows;
# the shape's row count / 100,000 for the same number of rows).
#
# BASE_LUA=DIR adds the tool "ours-base": our binary running DIR's
# oltp_read_write.lua and oltp_common.lua (say, another commit's, from
# git show), for a before/after of the scripts in the same rounds.
#
# RSS_ROWS=N (default 0: off) also loads one table of N rows with ours on
# PostgreSQL under /usr/bin/time -v, for the client's peak RSS.
#
# TOOLS (default "ours ours-insert peer", with BASE_LUA "ours ours-base
# ours-insert peer") chooses the sysbench runs of each round; "ours peer"
# leaves out the INSERT path, a third of the time at the full sizes.
# "ours-text" is ours with --bulk-mode=copy-text: PostgreSQL's COPY in
# text format, where ours sends the generated rows in binary.
#
# Env: SB_BIN, PEER_BIN, PGBENCH, SHAPES, ROUNDS, THREADS, SERVERS ("mysql
# pgsql"), TOOLS, BASE_LUA, PGBENCH_SCALE, RSS_ROWS, KEEP=1 keeps the raw
# outputs.
set -euo pipefail
source "$(dirname "$0")/common.sh"

HARNESS=$BENCH_DIR/../tests/harness/servers.sh
SHAPES=${SHAPES:-"4x1000000 1x4000000"}
for a in "$@"; do
  case $a in
    --quick) SHAPES=${QUICK_SHAPES:-"4x100000 1x400000"} ;;
    -h|--help) sed -n '2,49p' "$0"; exit 0 ;;
    *) echo "unknown argument: $a (use --quick)" >&2; exit 2 ;;
  esac
done
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-2}
SERVERS=${SERVERS:-"mysql pgsql"}
RSS_ROWS=${RSS_ROWS:-0}
BASE_LUA=${BASE_LUA:-}
if [[ -n $BASE_LUA && ! -f $BASE_LUA/oltp_read_write.lua ]]; then
  echo "error: BASE_LUA=$BASE_LUA has no oltp_read_write.lua" >&2; exit 2
fi
PGBENCH=${PGBENCH:-$(ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V | tail -n 1)}

check_tools
make_workdir
chmod 755 "$WORK"
harness_setup

echo "== prepare: ours vs sysbench 1.0.20 vs pgbench -i; shapes $SHAPES, --threads=$THREADS, $ROUNDS rounds"
print_env
harness_start
echo "servers: MariaDB $SB_MYSQL_VERSION, PostgreSQL $SB_PGSQL_VERSION (throwaway, tests/harness/servers.sh)"
echo "pgbench: ${PGBENCH:-none}"

db_args() {
  if [[ $1 == mysql ]]; then echo "--db-driver=mysql $SB_MYSQL_ARGS"; else echo "--db-driver=pgsql $SB_PGSQL_ARGS"; fi
}
admin() { # SERVER SQL
  if [[ $1 == mysql ]]; then
    mariadb --no-defaults -S "$SB_MYSQL_SOCKET" -uroot -N -B -D "$SB_MYSQL_DB" -e "$2"
  else
    psql -X -q -A -t -h "$SB_PGSQL_SOCKET_DIR" -p "$SB_PGSQL_PORT" -U postgres -d "$SB_PGSQL_DB" -c "$2"
  fi
}
# The server's CPU seconds so far: MariaDB's process; PostgreSQL's
# postmaster, its live children and the children it reaped.
server_cpu() { server_cpu_of "$SRV" "$1"; }
table_bytes() { # SERVER TABLES: bytes of table data (no indexes)
  local n list=""
  if [[ $1 == mysql ]]; then
    admin mysql "SELECT SUM(data_length) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'sbtest%'"
  else
    for n in $(seq "$2"); do list="$list${list:+ + }pg_relation_size('sbtest$n')"; done
    admin pgsql "SELECT $list"
  fi
}

# One run: TOOL in ours, ours-base, ours-text, ours-insert, peer. Leaves NAME.out, NAME.stat
# ("wall user sys rss_kb"), NAME.srv (server CPU seconds).
run_tool() { # SERVER TABLES ROWS TOOL NAME
  local srv=$1 t=$2 r=$3 tool=$4 name=$5 bin=$SB_BIN s0 s1
  local -a args extra=()
  local script=oltp_read_write
  [[ $tool == ours-base ]] && script=$BASE_LUA/oltp_read_write.lua
  # shellcheck disable=SC2207
  args=($(db_args "$srv") "$script" --tables="$t" --table-size="$r")
  "$SB_BIN" "${args[@]}" cleanup >/dev/null 2>&1 || true
  case $tool in
    ours-insert) extra=(--bulk-mode=insert) ;;
    ours-text) extra=(--bulk-mode=copy-text) ;;
    peer) bin=$PEER_BIN ;;
  esac
  printf '%q ' "$bin" "${args[@]}" --threads="$THREADS" "${extra[@]}" prepare >>"$CMDLOG"; echo >>"$CMDLOG"
  s0=$(server_cpu "$srv")
  "$TIME_BIN" -f "%e %U %S %M" -o "$WORK/$name.stat" \
    env SB_PROGRESS=off "$bin" "${args[@]}" --threads="$THREADS" "${extra[@]}" prepare \
    >"$WORK/$name.out" 2>&1 || { echo "FAILED: $name" >&2; tail -n 5 "$WORK/$name.out" >&2; }
  sleep 1 # PostgreSQL reaps the backends
  s1=$(server_cpu "$srv")
  tail -n 1 "$WORK/$name.stat" >"$WORK/$name.stat.1" && mv "$WORK/$name.stat.1" "$WORK/$name.stat"
  awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.2f\n", b - a }' >"$WORK/$name.srv"
  table_bytes "$srv" "$t" >"$WORK/$name.bytes"
}

# pgbench -i -I dtgvp at SCALE: NAME.out, NAME.stat, NAME.bytes.
run_pgbench() { # SCALE NAME
  local s=$1 name=$2 s0 s1
  printf '%q ' "$PGBENCH" -i -I dtgvp -s "$s" >>"$CMDLOG"; echo >>"$CMDLOG"
  s0=$(server_cpu pgsql)
  PGPASSWORD=$SB_PGSQL_PASSWORD "$TIME_BIN" -f "%e %U %S %M" -o "$WORK/$name.stat" \
    "$PGBENCH" -i -I dtgvp -s "$s" -h "$SB_PGSQL_HOST" -p "$SB_PGSQL_PORT" -U "$SB_PGSQL_USER" \
    "$SB_PGSQL_DB" >"$WORK/$name.out" 2>&1 || { echo "FAILED: $name" >&2; tail -n 5 "$WORK/$name.out" >&2; }
  sleep 1
  s1=$(server_cpu pgsql)
  tail -n 1 "$WORK/$name.stat" >"$WORK/$name.stat.1" && mv "$WORK/$name.stat.1" "$WORK/$name.stat"
  awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.2f\n", b - a }' >"$WORK/$name.srv"
  admin pgsql "SELECT pg_relation_size('pgbench_accounts')" >"$WORK/$name.bytes"
}

# The seconds of a run's COPY: pgbench's "client-side generate" phase;
# ours, the "Prepare done" line's load phase over its threads. Empty for
# 1.0.20, which times no phase.
load_seconds() { # FILE
  sed -n -e 's/.*client-side generate \([0-9.]*\) s.*/\1/p' \
    -e '/^Prepare done/{s/.*[(,] load \([0-9.]*\) s.*summed over \([0-9]*\) threads.*/\1 \2/p;s/.*[(,] load \([0-9.]*\) s[,;)].*/\1 1/p;}' "$1" |
    head -n 1 | awk 'NF == 2 { printf "%.3f", $1 / $2 } NF == 1 { print $1 }'
}


# The median of field F (wall, cpu, srv, rss, share, mb, mbs, loadmbs:
# pgbench's generate phase or our load phase per thread) of the runs
# NAME-r1..rROUNDS.
med() { # PREFIX EXPR
  local r
  for r in $(seq "$ROUNDS"); do
    local n=$WORK/$1-r$r
    [[ -s $n.stat ]] || continue
    awk -v e="$2" -v srv="$(cat "$n.srv")" -v bytes="$(cat "$n.bytes" 2>/dev/null || echo 0)" \
        -v gen="$(load_seconds "$n.out")" '
      { wall = $1; user = $2; sys = $3; rss = $4; cpu = user + sys
        v["wall"] = wall; v["cpu"] = cpu; v["srv"] = srv; v["rss"] = rss / 1024
        v["share"] = cpu + srv > 0 ? 100 * cpu / (cpu + srv) : 0
        v["mb"] = bytes / 1e6; v["mbs"] = wall > 0 ? bytes / 1e6 / wall : 0
        v["loadmbs"] = gen > 0 ? bytes / 1e6 / gen : 0
        print v[e] }' "$n.stat"
  done | median_or_dash
}

report() { # SERVER SHAPE TOOLS...
  local srv=$1 shape=$2 t=${2%x*} r=${2#*x} tool rows peer_rate rate
  shift 2
  rows=$((t * r))
  printf '\n%s, %s tables x %s rows (%s rows), --threads=%s: medians of %s rounds\n' \
    "$srv" "$t" "$r" "$rows" "$THREADS" "$ROUNDS"
  printf '  %-12s %8s %10s %8s %8s %9s %10s %9s %8s %8s %7s\n' tool wall_s rows/s vs_1.0 data_MB MB/s \
    load_MB/s client_s server_s client% rss_MB
  peer_rate=$(awk -v w="$(med "$srv-$shape-peer" wall)" -v n="$rows" 'BEGIN { if (w > 0) print n / w; else print 0 }')
  for tool in "$@"; do
    local p=$srv-$shape-$tool w
    w=$(med "$p" wall)
    if [[ $tool == pgbench ]]; then
      printf '  %-12s %8s %10s %8s %8.1f %9.1f %10.1f %9s %8s %8.1f %7.1f\n' \
        "$tool" "$w" - - "$(med "$p" mb)" "$(med "$p" mbs)" "$(med "$p" loadmbs)" "$(med "$p" cpu)" \
        "$(med "$p" srv)" "$(med "$p" share)" "$(med "$p" rss)"
      continue
    fi
    rate=$(awk -v w="$w" -v n="$rows" 'BEGIN { if (w > 0) printf "%.0f", n / w; else print 0 }')
    printf '  %-12s %8s %10s %8s %8.1f %9.1f %10s %9s %8s %8.1f %7.1f\n' "$tool" "$w" "$rate" \
      "$(awk -v a="$rate" -v b="$peer_rate" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }')" \
      "$(med "$p" mb)" "$(med "$p" mbs)" \
      "$(if [[ $tool == peer ]]; then echo -; else printf '%.1f' "$(med "$p" loadmbs)"; fi)" \
      "$(med "$p" cpu)" "$(med "$p" srv)" "$(med "$p" share)" "$(med "$p" rss)"
  done
}

# pgbench's scale for about BYTES of pgbench_accounts, from one scale-1 load.
pgbench_scale() { # BYTES
  local per
  run_pgbench 1 pgbench-probe
  per=$(cat "$WORK/pgbench-probe.bytes")
  awk -v b="$1" -v p="$per" 'BEGIN { s = int(b / p + 0.5); print (s < 1 ? 1 : s) }'
}

for srv in $SERVERS; do
  tools=${TOOLS:-"ours${BASE_LUA:+ ours-base} ours-insert peer"}
  for shape in $SHAPES; do
    t=${shape%x*}; r=${shape#*x}
    scale=${PGBENCH_SCALE:-}
    for round in $(seq "$ROUNDS"); do
      echo "# $srv $shape round $round ($(cut -d' ' -f1-3 /proc/loadavg))" >&2
      # Rotate the order from round to round.
      set -- $tools
      for _ in $(seq $(((round - 1) % $#))); do set -- "${@:2}" "$1"; done
      for tool in "$@"; do
        run_tool "$srv" "$t" "$r" "$tool" "$srv-$shape-$tool-r$round"
      done
      if [[ $srv == pgsql && -n $PGBENCH ]]; then
        [[ -n $scale ]] || scale=$(pgbench_scale "$(cat "$WORK/$srv-$shape-ours-r$round.bytes")")
        run_pgbench "$scale" "$srv-$shape-pgbench-r$round"
      fi
    done
    # shellcheck disable=SC2046 # db_args is several words
    "$SB_BIN" $(db_args "$srv") oltp_read_write --tables="$t" cleanup >/dev/null 2>&1 || true
    if [[ $srv == pgsql && -n $PGBENCH ]]; then
      report "$srv" "$shape" $tools pgbench
      echo "  (pgbench -i -I dtgvp -s $scale: $((scale * 100000)) rows of pgbench_accounts)"
    else
      report "$srv" "$shape" $tools
    fi
  done
done

if [[ $RSS_ROWS -gt 0 ]]; then
  # shellcheck disable=SC2207
  args=($(db_args pgsql) oltp_read_write --tables=1 --table-size="$RSS_ROWS")
  "$SB_BIN" "${args[@]}" cleanup >/dev/null 2>&1 || true
  printf '%q ' "$TIME_BIN" -v "$SB_BIN" "${args[@]}" --threads="$THREADS" prepare >>"$CMDLOG"; echo >>"$CMDLOG"
  "$TIME_BIN" -v env SB_PROGRESS=off "$SB_BIN" "${args[@]}" --threads="$THREADS" prepare \
    >"$WORK/rss.out" 2>"$WORK/rss.time" || true
  echo
  echo "Peak RSS loading 1 table x $RSS_ROWS rows on PostgreSQL, --threads=$THREADS:"
  grep -E 'Maximum resident|Elapsed' "$WORK/rss.time" | sed 's/^\s*/  /'
  grep '^Prepare done' "$WORK/rss.out" | sed 's/^/  /'
  "$SB_BIN" "${args[@]}" cleanup >/dev/null 2>&1 || true
fi

echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
print_commands
