#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What the client costs per transaction: ours and sysbench 1.0.20 taking
# turns on the same throwaway MariaDB and PostgreSQL servers
# (tests/harness/servers.sh, stopped on exit) and the same tables, each run
# with a fixed number of events.
#
#   bench/client_cpu.sh [--cpu | --rss | --all]
#     --cpu (default)  CPU per transaction, about 4 minutes
#     --rss            client peak RSS with many connections, a few minutes
#     --all            both
#
# --cpu: for each server, script (SCRIPTS) and connection count (THREADS),
# REPEAT rounds of one run per tool, the order swapping every round. Per
# run: client CPU (user+sys of the whole process, /usr/bin/time) and
# server CPU (the change in utime+stime of mysqld, or of the postmaster
# with its reaped backends: cutime+cstime, read after the backends exit),
# both divided by the transactions; TPS from the report. The table shows
# the median of the rounds per tool and ours/peer.
#
# --rss: for each server and each count in RSS_CONNS, one run per tool of
# oltp_point_select with that many connections at a low total rate
# (RSS_RATE) for RSS_TIME seconds; prints the client's peak RSS (ru_maxrss,
# /usr/bin/time %M). The servers' connection limits are raised first
# (MariaDB: SET GLOBAL; PostgreSQL: max_connections and a restart). A count
# the machine or a server cannot take shows as one "fail" line with the
# reason, never a crash of this script.
#
# Our binary runs with its default options, which multiplex the
# connections over few threads (--client-threads=auto); VARIANTS adds
# runs of it with other settings, each a row of its own against the same
# peer runs, e.g. VARIANTS="threads:--client-threads=0 k2:--client-threads=2"
# (NAME:ARGS, ARGS comma-separated).
#
# PGBENCH="1 N" (the default when pgbench is installed; "" for none) adds
# reference rows for PostgreSQL's oltp_point_select: pgbench, a client in
# C with no scripting, sending the same statement (SELECT c FROM sbtest1
# WHERE id = ?, prepared, random ids) over the same connections, with 1
# thread ("1") and with a thread per connection ("N"), measured like the
# others and set against the same peer runs. It shows how much of a
# client's cost per transaction is the kernel's and the server's, which no
# client can save.
#
# Env: SB_BIN, PEER_BIN, VARIANTS (""), PGBENCH, SCRIPTS ("oltp_point_select oltp_read_write"),
#      THREADS ("4 16"), REPEAT (3), EVENTS_oltp_point_select (40000),
#      EVENTS_oltp_read_write (4000), TABLES (4), TABLE_SIZE (10000),
#      SERVERS ("mysql pgsql"), RSS_CONNS ("1000 10000"), RSS_RATE (200),
#      RSS_TIME (5), RSS_GUARD (300: seconds one RSS run may take, set-up
#      of all connections included; a run past it shows as fail(124)),
#      KEEP=1 keeps the raw outputs.
set -euo pipefail
source "$(dirname "$0")/common.sh"

HARNESS=$BENCH_DIR/../tests/harness/servers.sh
MODE=cpu
for a in "$@"; do
  case $a in
    --cpu) MODE=cpu ;;
    --rss) MODE=rss ;;
    --all) MODE=all ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "unknown argument: $a (use --cpu, --rss or --all)" >&2; exit 2 ;;
  esac
done
SCRIPTS=${SCRIPTS:-"oltp_point_select oltp_read_write"}
THREADS=${THREADS:-"4 16"}
REPEAT=${REPEAT:-3}
EVENTS_oltp_point_select=${EVENTS_oltp_point_select:-40000}
EVENTS_oltp_read_write=${EVENTS_oltp_read_write:-4000}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}
SERVERS=${SERVERS:-"mysql pgsql"}
RSS_CONNS=${RSS_CONNS:-"1000 10000"}
RSS_RATE=${RSS_RATE:-200}
RSS_TIME=${RSS_TIME:-5}
RSS_GUARD=${RSS_GUARD:-300}

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
  if [[ $servers_started == 1 ]]; then bash "$HARNESS" stop "$SRV" >/dev/null 2>&1 || true; fi
  if [[ "${KEEP:-0}" != 1 ]]; then rm -rf "$WORK"; else echo "raw outputs kept in $WORK" >&2; fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== Client cost per transaction: ours vs sysbench 1.0.20 (mode $MODE)"
print_env
servers_started=1
bash "$HARNESS" start "$SRV" >"$WORK/servers.log" 2>&1 || {
  cat "$WORK/servers.log" >&2; echo "error: could not start the servers" >&2; exit 1; }
# shellcheck source=/dev/null
source "$SRV/servers.env"
echo "servers: MariaDB $SB_MYSQL_VERSION, PostgreSQL $SB_PGSQL_VERSION (throwaway, tests/harness/servers.sh)"

conn_args() {
  case $1 in
    mysql) echo "--db-driver=mysql $SB_MYSQL_ARGS" ;;
    pgsql) echo "--db-driver=pgsql $SB_PGSQL_ARGS" ;;
  esac
}

# Server CPU so far, in clock ticks: mysqld's own (all its threads), or the
# postmaster's plus its reaped children's (the backends of finished runs).
server_ticks() {
  local pid
  if [[ $1 == mysql ]]; then pid=$(cat "$SRV/mysql.pid"); else pid=$(cat "$SRV/pgsql.pid"); fi
  awk '{ sub(/^.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$pid/stat"
}
TICK=$(getconf CLK_TCK)

# Waits until no backend of the sbtest user is left, so that their CPU has
# reached the postmaster's cutime/cstime (at most 10 s).
pg_settle() {
  local _ n
  for _ in $(seq 100); do
    n=$(psql -X -A -t -h "$SB_PGSQL_SOCKET_DIR" -p "$SB_PGSQL_PORT" -U postgres -d postgres \
          -c "SELECT count(*) FROM pg_stat_activity WHERE usename = '$SB_PGSQL_USER'" 2>/dev/null || echo 0)
    [[ "$n" == 0 ]] && return 0
    sleep 0.1
  done
}

trx_of() { awk '/^ *transactions:/ {print $2; exit}' "$WORK/$1.out"; }

VARIANTS=${VARIANTS:-}
if command -v pgbench >/dev/null 2>&1; then PGBENCH=${PGBENCH-"1 N"}; else PGBENCH=""; fi

# The extra arguments of a tool: "ours:NAME" is ours with VARIANTS' ARGS.
tool_args() {
  local v
  [[ $1 == ours:* ]] || return 0
  for v in $VARIANTS; do
    if [[ ${v%%:*} == "${1#ours:}" ]]; then echo "${v#*:}" | tr ',' ' '; fi
  done
}

# cpu_run NAME TOOL SERVER SCRIPT THREADS EVENTS: one run; appends
# "client_us server_us tps" per transaction to $WORK/NAME.fig.
cpu_run() {
  local name=$1 tool=$2 srv=$3 script=$4 thr=$5 ev=$6 s0 s1 trx
  s0=$(server_ticks "$srv")
  # shellcheck disable=SC2046
  run_one "$name" 600 "$(bin_of "$tool")" $(conn_args "$srv") "$script" $(tool_args "$tool") \
      --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$thr" --events="$ev" --time=0 run
  [[ $srv == pgsql ]] && pg_settle
  s1=$(server_ticks "$srv")
  trx=$(trx_of "$name")
  if [[ $RC -ne 0 || -z "$trx" || "$trx" == 0 ]]; then
    echo "fail($RC) $(grep -m1 -E 'FATAL|ALERT|rror' "$WORK/$name.out" || true)" >> "$WORK/fail.txt"
    return
  fi
  awk -v t="$trx" -v s="$((s1 - s0))" -v hz="$TICK" -v tps="$(tps_of "$name")" \
      '{printf "%.2f %.2f %s\n", ($1 + $2) * 1e6 / t, s * 1e6 / hz / t, tps}' \
      "$WORK/$name.time" >> "$WORK/${name%-r*}.fig"
}

# pgbench_run NAME JOBS THREADS EVENTS: one pgbench run of the point
# select (see PGBENCH); appends to $WORK/NAME.fig like cpu_run.
pgbench_run() {
  local name=$1 jobs=$2 thr=$3 ev=$4 s0 s1 trx tps
  [[ $jobs == N ]] && jobs=$thr
  printf '\\set id random(1, %d)\nSELECT c FROM sbtest1 WHERE id = :id;\n' "$TABLE_SIZE" \
      > "$WORK/point.pgb"
  s0=$(server_ticks pgsql)
  PGPASSWORD=$SB_PGSQL_PASSWORD run_one "$name" 600 pgbench -n -M prepared -f "$WORK/point.pgb" \
      -c "$thr" -j "$jobs" -t $(( ev / thr )) -h "$SB_PGSQL_HOST" -p "$SB_PGSQL_PORT" \
      -U "$SB_PGSQL_USER" "$SB_PGSQL_DB"
  pg_settle
  s1=$(server_ticks pgsql)
  trx=$(awk -F'[:/ ]+' '/actually processed/ {print $(NF-1); exit}' "$WORK/$name.out")
  tps=$(awk '/^tps = / {print $3; exit}' "$WORK/$name.out")
  if [[ $RC -ne 0 || -z "$trx" || "$trx" == 0 ]]; then
    echo "fail($RC) $(grep -m1 -E 'rror|FATAL' "$WORK/$name.out" || true)" >> "$WORK/fail.txt"
    return
  fi
  awk -v t="$trx" -v s="$((s1 - s0))" -v hz="$TICK" -v tps="$tps" \
      '{printf "%.2f %.2f %s\n", ($1 + $2) * 1e6 / t, s * 1e6 / hz / t, tps}' \
      "$WORK/$name.time" >> "$WORK/${name%-r*}.fig"
}

# median COLUMN FILE
median() {
  [[ -s $2 ]] || { echo "-"; return; }
  awk -v c="$1" '{print $c}' "$2" | sort -g | awk '{v[NR]=$1} END {
    if (NR % 2) print v[(NR+1)/2]; else printf "%.2f\n", (v[NR/2] + v[NR/2+1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a+0 > 0 && b+0 > 0) printf "%.2f", a / b; else print "-" }'; }

run_cpu() {
  local srv script thr r tool ev order base rows=()
  for srv in $SERVERS; do
    # shellcheck disable=SC2046
    run_one "prepare-$srv" 600 "$SB_BIN" $(conn_args "$srv") oltp_read_write \
        --tables="$TABLES" --table-size="$TABLE_SIZE" --threads=2 prepare
    if [[ $RC -ne 0 ]]; then
      echo "error: prepare on $srv failed (exit $RC)" >&2; tail -n 5 "$WORK/prepare-$srv.out" >&2; exit 1
    fi
    # shellcheck disable=SC2046
    run_one "prewarm-$srv" 600 "$SB_BIN" $(conn_args "$srv") oltp_read_write \
        --tables="$TABLES" --table-size="$TABLE_SIZE" --threads=2 prewarm
    for script in $SCRIPTS; do
      ev=EVENTS_$script; ev=${!ev:-4000}
      for thr in $THREADS; do
        base=$srv-$script-$thr
        local tools="ours" v
        for v in $VARIANTS; do tools+=" ours:${v%%:*}"; done
        if [[ $srv == pgsql && $script == oltp_point_select ]]; then
          for v in $PGBENCH; do tools+=" pgbench:j$v"; done
        fi
        for r in $(seq "$REPEAT"); do
          order="$tools peer"; (( r % 2 == 0 )) && order="peer $tools"
          for tool in $order; do
            if [[ $tool == pgbench:* ]]; then
              pgbench_run "$base-${tool/:/_}-r$r" "${tool#pgbench:j}" "$thr" "$ev"
            else
              cpu_run "$base-${tool/:/_}-r$r" "$tool" "$srv" "$script" "$thr" "$ev"
            fi
          done
        done
        for tool in $tools; do
          local o=$WORK/$base-${tool/:/_}.fig p=$WORK/$base-peer.fig oc pc os ps ot pt
          oc=$(median 1 "$o"); pc=$(median 1 "$p"); os=$(median 2 "$o"); ps=$(median 2 "$p")
          ot=$(median 3 "$o"); pt=$(median 3 "$p")
          rows+=("$(printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' \
            "$srv" "$script" "$thr" "$tool" "$oc" "$pc" "$(ratio "$oc" "$pc")" "$os" "$ps" \
            "$(ratio "$os" "$ps")" "$ot" "$pt" "$(ratio "$ot" "$pt")")")
          echo "${rows[-1]}"
        done
      done
    done
  done
  echo
  echo "Medians of $REPEAT interleaved runs; CPU in microseconds per transaction."
  echo "| server | script | conns | ours | client us ours | peer | ours/peer | server us ours | peer | ours/peer | TPS ours | peer | ours/peer |"
  echo "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
}

# Raises the servers' connection limits to N (+ headroom); one line and
# non-zero when it cannot.
raise_limits() {
  local n=$1 want=$(( $1 + 50 ))
  mariadb --no-defaults -S "$SB_MYSQL_SOCKET" -uroot -e "SET GLOBAL max_connections = $want" \
      >/dev/null 2>&1 || { echo "MariaDB refused max_connections = $want"; return 1; }
  if [[ " $SERVERS " == *" pgsql "* ]]; then
    echo "max_connections = $want" >> "$SRV/pgsql/data/postgresql.conf"
    { eval "$SB_PGSQL_STOP" && eval "$SB_PGSQL_START"; } >"$WORK/pg-restart-$n.log" 2>&1 ||
      { echo "PostgreSQL did not restart with max_connections = $want: $(grep -m1 -E 'FATAL|could not' "$SRV"/pgsql/*.log 2>/dev/null || tail -n1 "$WORK/pg-restart-$n.log")"; return 1; }
  fi
  # Both tools need a descriptor per connection.
  if (( $(ulimit -n) < n + 100 )); then
    ulimit -n $((n + 100)) 2>/dev/null || { echo "cannot raise the open-files limit to $((n + 100)) (hard limit $(ulimit -Hn))"; return 1; }
  fi
}

run_rss() {
  local n srv tool rows=() why
  # The tables of the --cpu part, or one small table of our own.
  for srv in $SERVERS; do
    if [[ $MODE == rss ]]; then
      # shellcheck disable=SC2046
      run_one "prepare-rss-$srv" 600 "$SB_BIN" $(conn_args "$srv") oltp_point_select \
          --tables=1 --table-size=1000 prepare
    fi
  done
  for n in $RSS_CONNS; do
    if ! why=$(raise_limits "$n"); then
      rows+=("| all | $n | fail | fail | - | $why |"); echo "${rows[-1]}"; continue
    fi
    for srv in $SERVERS; do
      local res=()
      for tool in ours peer; do
        # Ours gives up on a connection after 10 s by default; sysbench 1.0
        # waits as long as the server takes to accept thousands of them.
        local extra=()
        [[ $tool == ours ]] && extra=(--"$srv"-connect-timeout="$RSS_GUARD")
        # shellcheck disable=SC2046
        run_one "rss-$srv-$n-$tool" "$RSS_GUARD" "$(bin_of "$tool")" $(conn_args "$srv") \
            "${extra[@]}" oltp_point_select --tables=1 --table-size=1000 --threads="$n" \
            --rate="$RSS_RATE" --time="$RSS_TIME" run
        [[ $srv == pgsql ]] && pg_settle
        if [[ $RC -eq 0 ]]; then
          res+=("$(awk '{print $NF}' "$WORK/rss-$srv-$n-$tool.maxrss")")
        else
          res+=("fail($RC)")
          if [[ $RC -eq 124 || $RC -eq 137 ]]; then
            why="$tool: did not finish within RSS_GUARD=$RSS_GUARD s"; continue
          fi
          why="$tool: $(grep -m1 -E 'FATAL|ALERT|rror|fail' "$WORK/rss-$srv-$n-$tool.out" | cut -c1-150 || true)"
        fi
      done
      local note=""; [[ ${res[0]} == fail* || ${res[1]} == fail* ]] && note=$why
      rows+=("| $srv | $n | ${res[0]} | ${res[1]} | $(ratio "${res[0]}" "${res[1]}") | $note |")
      echo "${rows[-1]}"
    done
  done
  echo
  echo "Client peak RSS (KiB, ru_maxrss) with N connections, --rate=$RSS_RATE for $RSS_TIME s."
  echo "| server | conns | ours KiB | peer KiB | ours/peer | note |"
  echo "|---|---:|---:|---:|---:|---|"
  printf '%s\n' "${rows[@]}"
}

if [[ $MODE != cpu ]]; then
  # Wrap TIME_BIN so that run_one also records %M.
  REAL_TIME=$TIME_BIN
  TIME_BIN=$WORK/time-with-rss
  cat > "$TIME_BIN" <<EOF
#!/usr/bin/env bash
# $REAL_TIME -f FMT -o OUT CMD... -> also the peak RSS into OUT's .maxrss twin.
fmt=\$2 out=\$4; shift 4
"$REAL_TIME" -f "\$fmt %M" -o "\$out.raw" "\$@"; rc=\$?
tail -n 1 "\$out.raw" | awk '{print \$1, \$2, \$3}' > "\$out"
tail -n 1 "\$out.raw" | awk '{print \$4}' > "\${out%.time}.maxrss"
exit \$rc
EOF
  chmod +x "$TIME_BIN"
fi

echo
[[ $MODE == cpu || $MODE == all ]] && run_cpu
echo
[[ $MODE == rss || $MODE == all ]] && run_rss
if [[ -s $WORK/fail.txt ]]; then echo; echo "Failed runs:"; sort "$WORK/fail.txt" | uniq -c | head; fi

echo
echo "Commands run (in order):"
sed "s|$WORK|\$WORK|g; s/^/  /" "$CMDLOG"
