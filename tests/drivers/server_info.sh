#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The server is part of the result, and logs are pgbench's:
#   - two runs on MariaDB with innodb_flush_log_at_trx_commit=1 and =2:
#     compare names that setting, with both values, as the only server
#     setting that differs (the rule that leaves out what changes between
#     runs by itself holds); the binary recorded is the server's own
#     (/proc/PID/exe, its build id as readelf reads it); against a file
#     without a server record compare lists that once;
#   - the same on PostgreSQL with synchronous_commit on and off;
#   - --log-aggregate-interval lines have exactly the fields pgbench writes
#     on this machine (pgbench run against the same server, with and
#     without a rate), and --log lines too.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

cat >work.lua <<'LUA'
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT 1") end
function thread_done() con:disconnect() end
LUA

# jv FILE EXPR: a value of a result file (python3; d is the document).
jv() {
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# check_binary FILE PID: the recorded binary is PID's executable, with its
# GNU build id as readelf prints it (or the file's SHA-256 without one).
check_binary() {
    local f=$1 pid=$2 path id want
    path=$(readlink "/proc/$pid/exe")
    [ "$(jv "$f" 'd["environment"]["server"]["binary"]["path"]')" = "$path" ] ||
        { sb_fail "binary path is not $path"; return 1; }
    id=$(readelf -n "$path" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
    if [ -n "$id" ]; then
        want="$id None"
    else
        want="None $(sha256sum "$path" | cut -d' ' -f1)"
    fi
    [ "$(jv "$f" '" ".join(str(d["environment"]["server"]["binary"][k]) for k in ("build_id", "sha256"))')" = "$want" ] ||
        { sb_fail "binary id is not '$want'"; return 1; }
}

# check_compare A B NAME VA VB: compare lists NAME with values VA and VB,
# marked as the server's, and no other server setting.
check_compare() {
    local a=$1 b=$2 name=$3 va=$4 vb=$5
    sb_run_ok "compare" cmp.txt cmp.err compare "$a" "$b" --labels=a,b || return 1
    cat cmp.txt
    grep -qx "  environment.server.settings.$name  (server)" cmp.txt ||
        { sb_fail "compare does not name $name"; return 1; }
    grep -A2 -x "  environment.server.settings.$name  (server)" cmp.txt | tail -n 2 >vals.txt
    printf '    %-12s %s\n    %-12s %s\n' a "$va" b "$vb" | diff -u - vals.txt ||
        { sb_fail "compare shows other values for $name"; return 1; }
    [ "$(grep -c '^  environment.server.settings.' cmp.txt)" = 1 ] ||
        { sb_fail "other server settings listed as differences"; return 1; }
    if grep -q '^WARNING: .* other than the server' cmp.txt; then
        sb_fail "a server setting was counted as a difference other than the server's"
        return 1
    fi
}

mysql_setting() {
    local old rc=0
    old=$(sb_cli mysql "SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")
    sb_cli mysql "SET GLOBAL innodb_flush_log_at_trx_commit = 1"
    # shellcheck disable=SC2046
    sb_run_ok "run with 1" r1.txt r1.err $(sb_driver_args mysql) --time=1 --json=f1.json \
        work.lua run || rc=1
    sb_cli mysql "SET GLOBAL innodb_flush_log_at_trx_commit = 2"
    # shellcheck disable=SC2046
    [ "$rc" = 0 ] && { sb_run_ok "run with 2" r2.txt r2.err $(sb_driver_args mysql) --time=1 \
        --json=f2.json work.lua run || rc=1; }
    sb_cli mysql "SET GLOBAL innodb_flush_log_at_trx_commit = $old"
    [ "$rc" = 0 ] || return 1
    [ "$(jv f1.json 'len(d["environment"]["server"]["settings"]) > 300')" = True ] ||
        { sb_fail "fewer than 300 settings recorded"; return 1; }
    # The rule: no gtid position, pid file or password is recorded.
    [ "$(jv f1.json '[k for k in d["environment"]["server"]["settings"] if k.endswith("_pos") or k == "pid_file" or "password" in k]')" = "[]" ] ||
        { sb_fail "a setting the rule leaves out was recorded"; return 1; }
    check_binary f1.json "$(head -n 1 "$SB_SERVERS_DIR/mysql.pid" 2>/dev/null || echo "$SB_MYSQL_PID")" ||
        return 1
    check_compare f1.json f2.json innodb_flush_log_at_trx_commit 1 2 || return 1
    # A file from before the server was recorded: one line, not one per
    # setting of the other file.
    python3 -c 'import json; d = json.load(open("f1.json")); del d["environment"]["server"]; json.dump(d, open("old.json", "w"))'
    sb_run_ok "compare with an old file" old.txt old.err compare old.json f2.json --labels=a,b ||
        return 1
    grep -qx '  environment.server  (server)' old.txt && grep -qx '    a            (not recorded)' old.txt ||
        { sb_show old.txt; sb_fail "the missing record is not listed"; return 1; }
    [ "$(grep -c '^  environment.server.settings.' old.txt)" = 0 ] ||
        { sb_fail "settings listed against a file without them"; return 1; }
}

# pg_sync VALUE: synchronous_commit for new sessions (ALTER SYSTEM
# overrides postgresql.conf; the reload reaches new sessions shortly).
pg_sync() {
    local i
    sb_cli pgsql "ALTER SYSTEM SET synchronous_commit = $1" >/dev/null
    sb_cli pgsql "SELECT pg_reload_conf()" >/dev/null
    for i in $(seq 50); do
        [ "$(sb_cli pgsql 'SHOW synchronous_commit')" = "$1" ] && return 0
        sleep 0.1
    done
    sb_fail "synchronous_commit did not become $1"
}

pgsql_setting() {
    local rc=0
    pg_sync on || return 1
    # shellcheck disable=SC2046
    sb_run_ok "run with on" r1.txt r1.err $(sb_driver_args pgsql) --time=1 --json=p1.json \
        work.lua run || rc=1
    pg_sync off || rc=1
    # shellcheck disable=SC2046
    [ "$rc" = 0 ] && { sb_run_ok "run with off" r2.txt r2.err $(sb_driver_args pgsql) --time=1 \
        --json=p2.json work.lua run || rc=1; }
    sb_cli pgsql "ALTER SYSTEM RESET synchronous_commit" >/dev/null
    sb_cli pgsql "SELECT pg_reload_conf()" >/dev/null
    [ "$rc" = 0 ] || return 1
    check_binary p1.json "$(head -n 1 "$SB_SERVERS_DIR/pgsql.pid" 2>/dev/null || echo "$SB_PGSQL_PID")" ||
        return 1
    check_compare p1.json p2.json synchronous_commit on off
}

# pgbench ARGS...: pgbench 15 (Debian's /usr/bin/pgbench) on the harness
# PostgreSQL, SELECT 1 per transaction, logs with prefix pgb.
pgbench_run() {
    echo "SELECT 1;" >pgb.sql
    rm -f pgb.*[0-9]
    PGPASSWORD=$SB_PGSQL_PASSWORD timeout -k 5 60 pgbench -n -h "$SB_PGSQL_HOST" \
        -p "$SB_PGSQL_PORT" -U "$SB_PGSQL_USER" -f pgb.sql --log --log-prefix=pgb "$@" \
        "$SB_PGSQL_DB" >pgb.out 2>&1 || { sb_show pgb.out; sb_fail "pgbench failed"; return 1; }
    cat pgb.[0-9]* >"$LOGOUT"
}

# shape FILE: the set of field counts of its lines, then per field
# whether any line has it non-zero ("15 111111110100000"). Field 9 of an
# aggregate line (min_lag) is shown as "-": whole microseconds, it may be
# 0 or not on any machine.
shape() {
    awk '{ nf[NF] = 1; for (i = 1; i <= NF; i++) if ($i + 0 != 0) nz[i] = 1; if (NF > m) m = NF }
         END { for (n in nf) printf "%s ", n
               for (i = 1; i <= m; i++) printf "%s", (i == 9 && m == 15) ? "-" : (i in nz) ? 1 : 0
               print "" }' "$1"
}

# same_shape MINE THEIRS WHAT: the field counts agree, and so does which
# columns are ever non-zero, except the first six (counts and latencies,
# which vary with the machine).
same_shape() {
    local a b
    a=$(shape "$1")
    b=$(shape "$2")
    echo "$3: sysbench '$a', pgbench '$b'"
    [ "${a%% *}" = "${b%% *}" ] || { sb_fail "$3: field counts differ"; return 1; }
    [ "$(echo "${a#* }" | cut -c7-)" = "$(echo "${b#* }" | cut -c7-)" ] ||
        { sb_fail "$3: other columns are in use"; return 1; }
}

pgbench_fields() {
    local ev
    command -v pgbench >/dev/null || { sb_fail "pgbench is not installed"; return 1; }
    pgbench --version
    # Closed loop, aggregate lines.
    LOGOUT=pg_agg.log pgbench_run -c 2 -T 3 --aggregate-interval=1 || return 1
    # shellcheck disable=SC2046
    sb_run_ok "sysbench aggregate" a.txt a.err $(sb_driver_args pgsql) --threads=2 --time=3 \
        --log=sb_agg.log --log-aggregate-interval=1 work.lua run || return 1
    same_shape sb_agg.log pg_agg.log "aggregate, closed loop" || return 1
    [ "$(awk 'NF != 15 { bad++ } END { print bad + 0 }' sb_agg.log)" = 0 ] ||
        { sb_fail "aggregate lines without 15 fields"; return 1; }
    # One line per interval, in time order, summing to the transactions.
    [ "$(awk '$1 <= last { bad++ } { last = $1 } END { print bad + 0 }' sb_agg.log)" = 0 ] ||
        { sb_fail "aggregate lines not in time order"; return 1; }
    ev=$(sb_text_report_num a.txt "total number of events:")
    [ "$(awk '{ s += $2 } END { print s }' sb_agg.log)" = "$ev" ] ||
        { sb_fail "num_transactions do not sum to $ev"; return 1; }
    # With a rate: the lag columns are filled in both.
    LOGOUT=pg_aggr.log pgbench_run -c 2 -T 3 -R 200 --aggregate-interval=1 || return 1
    # shellcheck disable=SC2046
    sb_run_ok "sysbench aggregate, rate" b.txt b.err $(sb_driver_args pgsql) --threads=2 \
        --time=3 --tx-rate=200 --log=sb_aggr.log --log-aggregate-interval=1 work.lua run ||
        return 1
    same_shape sb_aggr.log pg_aggr.log "aggregate, rate" || return 1
    # Per transaction, closed loop and with a rate.
    LOGOUT=pg_tx.log pgbench_run -c 2 -t 50 || return 1
    # shellcheck disable=SC2046
    sb_run_ok "sysbench per transaction" c.txt c.err $(sb_driver_args pgsql) --threads=2 \
        --events=100 --log=sb_tx.log work.lua run || return 1
    [ "$(shape sb_tx.log | cut -d' ' -f1)" = "$(shape pg_tx.log | cut -d' ' -f1)" ] ||
        { sb_fail "per-transaction field counts differ"; return 1; }
    LOGOUT=pg_txr.log pgbench_run -c 2 -t 50 -R 200 || return 1
    # shellcheck disable=SC2046
    sb_run_ok "sysbench per transaction, rate" d.txt d.err $(sb_driver_args pgsql) --threads=2 \
        --events=100 --tx-rate=200 --log=sb_txr.log work.lua run || return 1
    echo "per transaction: sysbench $(shape sb_txr.log | cut -d' ' -f1), pgbench $(shape pg_txr.log | cut -d' ' -f1)"
    [ "$(shape sb_txr.log | cut -d' ' -f1)" = "$(shape pg_txr.log | cut -d' ' -f1)" ] ||
        { sb_fail "per-transaction field counts with a rate differ"; return 1; }
}

sb_case server-settings-mysql mysql_setting
sb_case server-settings-pgsql pgsql_setting
sb_case pgbench-log-fields pgbench_fields
