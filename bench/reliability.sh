#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Reliability suite: what happens to a run at thousands of connections, when
# the server is killed or gone, under TLS, and whether a password is ever
# printed. Throwaway MariaDB and PostgreSQL servers (tests/harness/servers.sh,
# started with SB_MAX_CONNECTIONS, stopped on any exit).
#
#   bench/reliability.sh            # all cases, 15-25 minutes on 2 cores
#   CONNS=1000 bench/reliability.sh # without the 4,000-connection runs
#
# Cases, each on MariaDB and PostgreSQL:
#   conns-N        oltp_point_select, 1 table of 1,000 rows, --threads=N,
#                  --tx-rate=TX_RATE (sysbench 1.0: --rate), --time=RUN_TIME:
#                  connect time (start to "Threads started!"), achieved rate,
#                  errors, peak client RSS, exit code (guard 60 + N/10 s: a
#                  set-up that takes longer shows exit 124). Ours passes with exit 0,
#                  transactions and no FATAL line; sysbench 1.0 is a comparison
#                  row ("info").
#   sigint-N       SIGINT once N/10 sessions are connected (largest N of
#                  CONNS): ours must exit 130 within SIGINT_LIMIT s and print
#                  its report.
#   kill9          the server SIGKILLed (PostgreSQL: postmaster and backends)
#                  KILL_AT s into a 20 s run, restarted 1 s later: ours must
#                  finish with exit 0, reconnects counted, transactions after
#                  the restart, JSON "ended" completed.
#   down           the server stopped 2 s into a RUN_TIME run and not back
#                  before its end: ours must end within RUN_TIME + GRACE s,
#                  print the report, and mark the JSON and CSV as ended.
#   tls            --mysql-ssl=on / --pgsql-sslmode=require: the server's own
#                  view (Ssl_version/Ssl_cipher, pg_stat_ssl) shows TLS.
#   password       a distinctive password through a run at --verbosity=5 with
#                  --db-debug, --json, --csv, --log, --hgrm; a refused password;
#                  a refused connection; a config file (NAME=VALUE and the
#                  mistaken "NAME VALUE"): no output or file may contain it.
#
# Prints one table (case, server, figure, result) and exits 1 if a case of
# ours fails. Not part of "make check".
#
# Env: SB_BIN, PEER_BIN (common.sh), CONNS ("1000 4000"), PEER_CONNS
#      (MariaDB: CONNS; PostgreSQL: "1000": 1.0 at 4,000 takes 5+ minutes),
#      TX_RATE (500), RUN_TIME (5), GRACE (10), SIGINT_LIMIT (10),
#      SERVERS ("mysql pgsql"), KEEP=1 keeps the raw outputs.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"

HARNESS=$BENCH_DIR/../tests/harness/servers.sh
CONNS=${CONNS:-"1000 4000"}
TX_RATE=${TX_RATE:-500}
RUN_TIME=${RUN_TIME:-5}
GRACE=${GRACE:-10}
SIGINT_LIMIT=${SIGINT_LIMIT:-10}
SERVERS=${SERVERS:-"mysql pgsql"}
KILL_AT=4
PW='Rel-Sv7q2Xk9'      # the distinctive password of the password case
PW_BAD='Bad-Zp4w8Rm3'  # a wrong one, also never to be printed
case ${1:-} in -h|--help) sed -n '2,40p' "$0"; exit 0 ;; "") ;; *) echo "no arguments (see --help)" >&2; exit 2 ;; esac

max_conns=0
for n in $CONNS; do (( n > max_conns )) && max_conns=$n; done

check_tools
command -v openssl >/dev/null || { echo "error: openssl is needed for the TLS case" >&2; exit 2; }
command -v python3 >/dev/null || { echo "error: python3 is needed to read the JSON results" >&2; exit 2; }
make_workdir
chmod 755 "$WORK"
SRV=$WORK/srv
servers_started=0

# Every connection is a socket on both sides; the servers inherit the limit.
need_fds=$(( 2 * max_conns + 1024 ))
if (( $(ulimit -n) < need_fds )); then
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  (( $(ulimit -n) >= need_fds )) ||
    echo "warning: open files limit $(ulimit -n) < $need_fds; the largest runs may fail" >&2
fi

finish() {
  local rc=$?
  trap - EXIT INT TERM
  # Whatever of ours is still running (a case interrupted half-way).
  [[ -n "${BG_PID:-}" ]] && kill -KILL "$BG_PID" 2>/dev/null
  if [[ $servers_started == 1 ]]; then bash "$HARNESS" stop "$SRV" >/dev/null 2>&1 || true; fi
  if [[ "${KEEP:-0}" != 1 ]]; then rm -rf "$WORK"; else echo "raw outputs kept in $WORK" >&2; fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== Reliability: connections $CONNS, --tx-rate=$TX_RATE, --time=$RUN_TIME; open files limit $(ulimit -n)"
print_env
servers_started=1
SB_MAX_CONNECTIONS=$(( max_conns + 100 )) bash "$HARNESS" start "$SRV" >"$WORK/servers.log" 2>&1 || {
  cat "$WORK/servers.log" >&2; echo "error: could not start the servers" >&2; exit 1; }
# shellcheck source=/dev/null
source "$SRV/servers.env"
echo "servers: MariaDB $SB_MYSQL_VERSION, PostgreSQL $SB_PGSQL_VERSION, max_connections $(( max_conns + 100 ))"

# ------------------------------------------------------------------ helpers

ROWS=()
FAILS=0
row() { # CASE SERVER FIGURE RESULT
  ROWS+=("$(printf '%-12s | %-6s | %-78s | %s' "$1" "$2" "$3" "$4")")
  [[ $4 == FAIL* ]] && FAILS=$((FAILS + 1))
  printf '  %-12s %-6s %s  [%s]\n' "$1" "$2" "$3" "$4"
}

conn_args() {
  case $1 in
    mysql) echo "--db-driver=mysql $SB_MYSQL_ARGS" ;;
    pgsql) echo "--db-driver=pgsql $SB_PGSQL_ARGS" ;;
  esac
}
admin() { # SERVER SQL: one value, as the administrator over the socket
  case $1 in
    mysql) mariadb --no-defaults -S "$SB_MYSQL_SOCKET" -uroot -N -B -e "$2" ;;
    pgsql) psql -X -q -A -t -h "$SB_PGSQL_SOCKET_DIR" -p "$SB_PGSQL_PORT" -U postgres -d sbtest -c "$2" ;;
  esac
}
sessions() {
  case $1 in
    mysql) admin mysql "SELECT COUNT(*) FROM information_schema.processlist WHERE user = 'sbtest'" ;;
    pgsql) admin pgsql "SELECT count(*) FROM pg_stat_activity WHERE usename = 'sbtest'" ;;
  esac 2>/dev/null || echo 0
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.1f", b - a}'; }

# start_bg NAME LIMIT CMD...: CMD under /usr/bin/time -v and timeout, in
# the background; BG_PID is the tool's own PID (for signals), BG_T0 the
# start time. /usr/bin/time ignores SIGINT, so the tool gets it directly.
start_bg() {
  local name=$1 limit=$2 tpid; shift 2
  printf '%q ' "$@" >>"$CMDLOG"; echo >>"$CMDLOG"
  BG_T0=$(now)
  "$TIME_BIN" -v -o "$WORK/$name.time" timeout -k 5 "$limit" "$@" \
      >"$WORK/$name.out" 2>"$WORK/$name.err" &
  BG_WAIT=$!
  BG_PID=
  for _ in $(seq 50); do
    tpid=$(pgrep -P "$BG_WAIT" | head -n 1 || true)
    [[ -n $tpid ]] && BG_PID=$(pgrep -P "$tpid" | head -n 1 || true)
    [[ -n $BG_PID ]] && break
    sleep 0.1
  done
}
# wait_bg: waits for the background run; sets RC and WALL (s since start).
wait_bg() {
  RC=0
  wait "$BG_WAIT" || RC=$?
  WALL=$(since "$BG_T0")
  BG_PID=
}
# wait_started NAME: the seconds until "Threads started!", or "-".
wait_started() {
  STARTED=-
  while kill -0 "$BG_WAIT" 2>/dev/null; do
    if grep -q 'Threads started!' "$WORK/$1.out"; then STARTED=$(since "$BG_T0"); return; fi
    sleep 0.2
  done
  # It ended between two looks: only a bound is known.
  grep -q 'Threads started!' "$WORK/$1.out" && STARTED="<$(since "$BG_T0")"
  return 0
}
rss_mb() { awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$WORK/$1.time"; }
trx_of() { awk '/^ *transactions:/ {print $2; exit}' "$WORK/$1.out"; }
tps_of() { awk '/^ *transactions:/ {gsub(/\(/, "", $3); print $3; exit}' "$WORK/$1.out"; }
num_of() { awk -v k="$2" 'index($0, k) {for (i = 1; i <= NF; i++) if ($i == k) {print $(i + 1); exit}}' "$WORK/$1.out"; }
fatal_of() { grep -c '^FATAL' "$WORK/$1.err" "$WORK/$1.out" | awk -F: '{s += $2} END {print s + 0}'; }
json_ended() {
  python3 -c 'import json, sys
try:
    e = json.load(open(sys.argv[1])).get("ended") or {}
    print(e.get("status", "none"))
except Exception as x:
    print("invalid")' "$1" 2>/dev/null || echo missing
}
# Transactions in the interval lines up to second A, and after second B.
trx_before() { awk -v t="$2" '/^\[ *[0-9]+s \]/ {s = $2 + 0; for (i = 1; i <= NF; i++) if ($i == "tps:" && s <= t) n += $(i + 1)} END {printf "%.0f", n}' "$WORK/$1.out"; }
trx_after()  { awk -v t="$2" '/^\[ *[0-9]+s \]/ {s = $2 + 0; for (i = 1; i <= NF; i++) if ($i == "tps:" && s > t) n += $(i + 1)} END {printf "%.0f", n}' "$WORK/$1.out"; }
# Seconds since the run's start, as a whole number (for the interval lines).
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%d", b - a}'; }

srv_pids() { # SERVER: the server's processes (PostgreSQL: postmaster and children)
  local pid; pid=$(cat "$SRV/$1.pid")
  echo "$pid"
  if [[ $1 == pgsql ]]; then pgrep -P "$pid" || true; fi
}
srv_stop()  { bash "$HARNESS" "stop-$1" "$SRV" >>"$WORK/servers.log" 2>&1; }
srv_start() { bash "$HARNESS" "start-$1" "$SRV" >>"$WORK/servers.log" 2>&1; }
srv_kill9() {
  local pids p
  pids=$(srv_pids "$1")
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null || true
  for p in $pids; do while kill -0 "$p" 2>/dev/null; do sleep 0.1; done; done
}

PREP="oltp_point_select --tables=1 --table-size=1000"
for srv in $SERVERS; do
  # shellcheck disable=SC2046,SC2086
  run_one "prepare-$srv" 300 "$SB_BIN" $(conn_args "$srv") $PREP prepare
  [[ $RC -eq 0 ]] || { tail -n 20 "$WORK/prepare-$srv.out" >&2; echo "error: prepare on $srv failed" >&2; exit 1; }
done

# ------------------------------------------------------- conns-N, sigint-N

peer_conns() {
  if [[ -n "${PEER_CONNS:-}" ]]; then echo "$PEER_CONNS"
  elif [[ $1 == pgsql ]]; then echo 1000
  else echo "$CONNS"; fi
}

conns_case() { # SERVER N TOOL
  local srv=$1 n=$2 tool=$3 name="conns-$1-$2-$3" rate extra res mem
  mem=$(awk '/MemAvailable/ {printf "%d", $2 / 1024}' /proc/meminfo)
  # A PostgreSQL backend holds a few MB; keep the machine out of swap.
  if [[ $srv == pgsql ]] && (( mem < n * 4 + 2048 )); then
    row "conns-$n" "$srv" "$tool: skipped, $mem MB available" "n/a"; return
  fi
  if [[ $tool == ours ]]; then
    rate="--tx-rate=$TX_RATE"; extra="--$srv-connect-timeout=0"
  else
    rate="--rate=$TX_RATE"; extra=
  fi
  # shellcheck disable=SC2046,SC2086
  start_bg "$name" $(( 60 + n / 10 )) "$(bin_of "$tool")" $(conn_args "$srv") $extra $PREP \
      --threads="$n" $rate --time="$RUN_TIME" --report-interval=1 run
  wait_started "$name"
  wait_bg
  local tps err; tps=$(tps_of "$name"); err=$(num_of "$name" errors:)
  local fig; fig="connect ${STARTED} s, ${tps:--}/s, errors ${err:--}+$(fatal_of "$name") fatal, RSS $(rss_mb "$name") MB, exit $RC, wall $WALL s"
  if [[ $tool == peer ]]; then res=info
  elif [[ $RC -eq 0 && "$(trx_of "$name")" -gt 0 && "$(fatal_of "$name")" -eq 0 ]]; then res=PASS
  else res="FAIL"; fi
  row "conns-$n" "$srv" "$tool: $fig" "$res"
  if [[ $res == FAIL ]]; then tail -n 5 "$WORK/$name.err" "$WORK/$name.out" | sed 's/^/      /'; fi
}

sigint_case() { # SERVER N TOOL
  local srv=$1 n=$2 tool=$3 name="sigint-$1-$2-$3" extra='' k=0 t_sig res report=no t_end
  [[ $tool == ours ]] && extra="--$srv-connect-timeout=0"
  # shellcheck disable=SC2046,SC2086
  start_bg "$name" $(( 120 + n / 5 )) "$(bin_of "$tool")" $(conn_args "$srv") $extra $PREP \
      --threads="$n" --time=60 run
  for _ in $(seq 600); do
    k=$(sessions "$srv")
    (( k >= n / 10 )) && break
    kill -0 "$BG_WAIT" 2>/dev/null || break
    sleep 0.2
  done
  t_sig=$(now)
  [[ -n $BG_PID ]] && kill -INT "$BG_PID" 2>/dev/null
  # Give it SIGINT_LIMIT s (the peer 60 s), then end it.
  t_end=$SIGINT_LIMIT; [[ $tool == peer ]] && t_end=60
  for _ in $(seq $(( t_end * 10 ))); do kill -0 "$BG_WAIT" 2>/dev/null || break; sleep 0.1; done
  local late=
  if kill -0 "$BG_WAIT" 2>/dev/null; then late=" (still running after $t_end s: SIGKILL)"; kill -KILL "$BG_PID" 2>/dev/null || true; fi
  wait_bg
  grep -q -E 'SQL statistics:|General statistics:' "$WORK/$name.out" && report=yes
  # Interrupted before any thread ran: nothing to report, and it says so.
  grep -q 'before the run started' "$WORK/$name.out" && report="'before the run started'"
  local fig; fig="SIGINT at $k/$n sessions: exit $RC after $(since "$t_sig") s$late, report $report"
  if [[ $tool == peer ]]; then res=info
  elif [[ $RC -eq 130 && -z $late && $report != no ]]; then res=PASS
  else res=FAIL; fi
  row "sigint-$n" "$srv" "$tool: $fig" "$res"
  # Let the server reap the sessions before the next case.
  for _ in $(seq 300); do (( $(sessions "$srv") == 0 )) && break; sleep 0.2; done
}

echo
echo "-- connections (the figures as they come)"
for srv in $SERVERS; do
  for n in $CONNS; do
    conns_case "$srv" "$n" ours
    if [[ " $(peer_conns "$srv") " == *" $n "* ]]; then conns_case "$srv" "$n" peer; fi
  done
  sigint_case "$srv" "$max_conns" ours
  if [[ " $(peer_conns "$srv") " == *" $max_conns "* ]]; then sigint_case "$srv" "$max_conns" peer; fi
done

# --------------------------------------------------------------- kill9, down

kill9_case() { # SERVER TOOL
  local srv=$1 tool=$2 name="kill9-$1-$2" rate t_kill t_back ended res extra=
  if [[ $tool == ours ]]; then rate="--tx-rate=1000"; extra="--json=$WORK/$name.json --csv=$WORK/$name.csv"
  else rate="--rate=1000"; fi
  # shellcheck disable=SC2046,SC2086
  start_bg "$name" 120 "$(bin_of "$tool")" $(conn_args "$srv") $PREP --threads=4 $rate \
      --time=20 --report-interval=1 $extra run
  sleep "$KILL_AT"
  t_kill=$(secs "$BG_T0")
  srv_kill9 "$srv"
  sleep 1
  srv_start "$srv" || { row kill9 "$srv" "$tool: the server did not restart" FAIL; wait_bg; return; }
  t_back=$(( $(secs "$BG_T0") + 1 ))
  local down; down=$(( t_back - 1 - t_kill ))
  wait_bg
  ended=-; [[ $tool == ours ]] && ended=$(json_ended "$WORK/$name.json")
  local before after rec
  before=$(trx_before "$name" "$((t_kill - 1))"); after=$(trx_after "$name" "$t_back")
  rec=$(num_of "$name" reconnects:)
  local fig; fig="trx before ${before}, after ${after} (s<=$((t_kill - 1)) / s>$t_back; down ${down} s), reconnects ${rec:-n/a}, exit $RC, ended $ended"
  if [[ $tool == peer ]]; then res=info
  elif [[ $RC -eq 0 && ${rec:-0} -ge 1 && $after -gt 0 && $ended == completed ]]; then res=PASS
  else res=FAIL; fi
  row kill9 "$srv" "$tool: $fig" "$res"
}

down_case() { # SERVER TOOL
  local srv=$1 tool=$2 name="down-$1-$2" res extra="--rate=1000" ended=- csv=- report=no
  # The peer has no --tx-rate: the same load as Poisson arrivals.
  [[ $tool == ours ]] && extra="--tx-rate=1000 --json=$WORK/$name.json --csv=$WORK/$name.csv"
  # shellcheck disable=SC2046,SC2086
  start_bg "$name" 120 "$(bin_of "$tool")" $(conn_args "$srv") $PREP --threads=4 \
      --time="$RUN_TIME" --report-interval=1 $extra run
  sleep 2
  srv_stop "$srv"
  wait_bg
  srv_start "$srv"
  grep -q -E 'SQL statistics:' "$WORK/$name.out" && report=yes
  if [[ $tool == ours ]]; then
    ended=$(json_ended "$WORK/$name.json")
    csv=$(python3 -c 'import csv, sys; print(list(csv.DictReader(open(sys.argv[1], newline="")))[-1]["ended"])' \
      "$WORK/$name.csv" 2>/dev/null | cut -c1-24)
  fi
  local fig; fig="wall $WALL s (--time=$RUN_TIME), exit $RC, report $report, trx $(trx_of "$name"), JSON ended $ended, CSV '${csv}'"
  if [[ $tool == peer ]]; then res=info
  elif awk -v w="$WALL" -v l="$((RUN_TIME + GRACE))" 'BEGIN {exit !(w <= l)}' && [[ $report == yes &&
       ( $ended == failed || $ended == completed ) && ( $csv == failed* || $csv == completed* ) ]]; then res=PASS
  else res=FAIL; fi
  row down "$srv" "$tool: $fig" "$res"
}

echo
echo "-- server killed (SIGKILL) and restarted; server stopped past the end of the run"
for srv in $SERVERS; do
  for tool in ours peer; do kill9_case "$srv" "$tool"; done
  for tool in ours peer; do down_case "$srv" "$tool"; done
done

# ----------------------------------------------------------- tls, password

tls=$SRV/tls
mkdir -p "$tls"; chmod 755 "$tls"
(
  cd "$tls"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=sbtest CA" -keyout ca.key -out ca.pem
  openssl req -newkey rsa:2048 -nodes -subj "/CN=sbtest-server" -keyout server.key -out server.csr
  openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -out server.pem
  # sysbench 1.0's --mysql-ssl=on reads these three names from its working directory.
  openssl req -newkey rsa:2048 -nodes -subj "/CN=sbtest-client" -keyout client-key.pem -out client.csr
  openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -out client-cert.pem
  cp ca.pem cacert.pem
  chmod 644 ./*.pem server.key
  cp server.key pg.key; chmod 600 pg.key
  if [[ $(id -u) -eq 0 ]]; then chown postgres pg.key; fi
) >"$WORK/openssl.log" 2>&1 || { echo "error: openssl failed ($WORK/openssl.log)" >&2; exit 1; }
printf -- '--ssl-ca=%s\n--ssl-cert=%s\n--ssl-key=%s\n' "$tls/ca.pem" "$tls/server.pem" "$tls/server.key" \
    >"$SRV/mysql.extra-args"
srv_stop mysql; srv_start mysql
admin pgsql "ALTER SYSTEM SET ssl = on" >/dev/null
admin pgsql "ALTER SYSTEM SET ssl_cert_file = '$tls/server.pem'" >/dev/null
admin pgsql "ALTER SYSTEM SET ssl_key_file = '$tls/pg.key'" >/dev/null
admin pgsql "SELECT pg_reload_conf()" >/dev/null
sleep 1

# The session's TLS as the server sees it (the same script for both tools).
cat >"$WORK/tls_mysql.lua" <<'LUA'
function prepare()
  local con = sysbench.sql.driver():connect()
  local rs = con:query("SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS" ..
    " WHERE VARIABLE_NAME IN ('Ssl_version', 'Ssl_cipher') ORDER BY VARIABLE_NAME DESC")
  local out = {}
  for _ = 1, rs.nrows do out[#out + 1] = tostring(rs:fetch_row()[1]) end
  print("TLS: " .. table.concat(out, " "))
end
LUA
cat >"$WORK/tls_pgsql.lua" <<'LUA'
function prepare()
  local con = sysbench.sql.driver():connect()
  local rs = con:query("SELECT coalesce(version, 'none') || ' ' || coalesce(cipher, 'none')" ..
    " FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
  print("TLS: " .. tostring(rs:fetch_row()[1]))
end
LUA

tls_case() { # SERVER TOOL
  local srv=$1 tool=$2 name="tls-$1-$2" opt line res
  if [[ $srv == mysql ]]; then opt="--mysql-ssl=on"; else opt="--pgsql-sslmode=require"; fi
  # sysbench 1.0 has no --pgsql-sslmode: libpq's PGSSLMODE asks for it.
  [[ $tool == peer && $srv == pgsql ]] && opt=
  cd "$tls"
  # shellcheck disable=SC2046
  PGSSLMODE=require HOME=$WORK run_one "$name" 60 "$(bin_of "$tool")" $(conn_args "$srv") $opt \
      "$WORK/tls_$srv.lua" prepare
  cd "$WORK"
  line=$(sed -n 's/^TLS: //p' "$WORK/$name.out")
  if [[ $line =~ ^TLSv1\.[23]\ [A-Z0-9_-]+$ ]]; then res=PASS; else res=FAIL; fi
  [[ $tool == peer ]] && res="info"
  row tls "$srv" "$tool ${opt:-PGSSLMODE=require}: server sees '${line:-nothing}', exit $RC" "$res"
}

pw_case() { # SERVER
  local srv=$1 d=$WORK/pw-$1 port conn hits res
  mkdir -p "$d"
  if [[ $srv == mysql ]]; then
    port=$SB_MYSQL_PORT
    admin mysql "CREATE USER 'pwuser'@'127.0.0.1' IDENTIFIED BY '$PW'; GRANT ALL ON sbtest.* TO 'pwuser'@'127.0.0.1'"
  else
    port=$SB_PGSQL_PORT
    admin pgsql "CREATE ROLE pwuser LOGIN PASSWORD '$PW'; GRANT ALL ON ALL TABLES IN SCHEMA public TO pwuser" >/dev/null
  fi
  conn="--db-driver=$srv --$srv-host=127.0.0.1 --$srv-port=$port --$srv-user=pwuser --$srv-db=sbtest"
  local -a runs=(
    "ok|--$srv-password=$PW $PREP --threads=2 --time=2 --report-interval=1 --verbosity=5 --db-debug --json=$d/ok.json --csv=$d/ok.csv --log=$d/ok.log --hgrm=$d/ok.hgrm run"
    "refused|--$srv-password=$PW_BAD $PREP --threads=2 --time=2 --verbosity=5 --db-debug --json=$d/refused.json --csv=$d/refused.csv run"
    "noserver|--$srv-password=$PW --$srv-port=1 $PREP --time=1 --verbosity=5 --db-debug --json=$d/noserver.json run"
    "config|--config-file=$d/good.cfg $PREP --time=1 --verbosity=5 --db-debug run"
    "badconfig|--config-file=$d/bad.cfg $PREP --time=1 run"
  )
  printf '%s-password=%s\n' "$srv" "$PW" >"$d/good.cfg"
  printf '%s-password %s\n' "$srv" "$PW" >"$d/bad.cfg"
  local r label args rcs=""
  for r in "${runs[@]}"; do
    label=${r%%|*}; args=${r#*|}
    # shellcheck disable=SC2086
    run_one "pw-$srv-$label" 60 "$SB_BIN" $conn $args
    rcs+="$label=$RC "
  done
  # Every output and every file the runs wrote.
  hits=$(grep -rlF -e "$PW" -e "$PW_BAD" "$d" "$WORK"/pw-"$srv"-*.out 2>/dev/null |
         grep -v -e '\.cfg$' | xargs -r -n1 basename | tr '\n' ' ' || true)
  local nfiles; nfiles=$(find "$d" -type f ! -name '*.cfg' | wc -l)
  if [[ -z $hits ]]; then res=PASS; else res=FAIL; fi
  # The command list printed at the end is the bench's own text: masked.
  sed -i -e "s/$PW/***/g" -e "s/$PW_BAD/***/g" "$CMDLOG"
  row password "$srv" "ours: 5 runs (${rcs% }), $((nfiles + 5)) outputs/files, password in: ${hits:-none}" "$res"
}

echo
echo "-- TLS (server side) and passwords"
for srv in $SERVERS; do
  tls_case "$srv" ours
  tls_case "$srv" peer
  pw_case "$srv"
done

# -------------------------------------------------------------------- table
echo
echo "case         | server | figure                                                                         | result"
echo "-------------|--------|--------------------------------------------------------------------------------|-------"
printf '%s\n' "${ROWS[@]}"
echo
echo "$FAILS case(s) of ours failed."
print_commands
[[ $FAILS -eq 0 ]]
