#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A password is never printed: not at --verbosity=5 with --db-debug, not in
# --json, --csv, --log or --hgrm files, not when the server refuses it, not
# when no server answers, not from a config file (NAME=VALUE, or the
# mistaken "NAME VALUE" that makes the whole line an unknown option). Every
# output and file of the runs is searched for two distinctive passwords.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

readonly PW='Sec-Tq5mVw8K' PW_BAD='Bad-Hn3rJx6P'

cat >select1.lua <<'LUA'
function thread_init()
  con = sysbench.sql.driver():connect()
end
function event()
  con:query("SELECT 1")
end
function thread_done()
  con:disconnect()
end
LUA

never_printed() {
    local drv=$1 port conn rc d="out-$1"
    if [ "$drv" = mysql ]; then
        port=$SB_MYSQL_PORT
        sb_cli mysql "CREATE USER IF NOT EXISTS 'pwuser'@'127.0.0.1' IDENTIFIED BY '$PW'; GRANT SELECT ON sbtest.* TO 'pwuser'@'127.0.0.1'" || return 1
    else
        port=$SB_PGSQL_PORT
        sb_cli pgsql "DROP ROLE IF EXISTS pwuser; CREATE ROLE pwuser LOGIN PASSWORD '$PW'" >/dev/null || return 1
    fi
    mkdir -p "$d"
    conn="--db-driver=$drv --$drv-host=127.0.0.1 --$drv-port=$port --$drv-user=pwuser --$drv-db=sbtest"
    # shellcheck disable=SC2086
    sb_run_ok "the run" "$d/ok.out" "$d/ok.err" $conn --$drv-password="$PW" --threads=2 --time=1 \
        --report-interval=1 --verbosity=5 --db-debug --json="$d/ok.json" --csv="$d/ok.csv" \
        --log="$d/ok.log" --hgrm="$d/ok.hgrm" select1.lua run || return 1
    if [ ! -s "$d/ok.log" ] || [ ! -s "$d/ok.json" ]; then sb_fail "the run wrote no --log or --json"; return 1; fi
    rc=0
    # shellcheck disable=SC2086
    sb_run "$d/refused.out" "$d/refused.err" $conn --$drv-password="$PW_BAD" --threads=2 --time=1 \
        --verbosity=5 --db-debug --json="$d/refused.json" --csv="$d/refused.csv" select1.lua run || rc=$?
    [ "$rc" -eq 1 ] || { sb_show "$d/refused.err"; sb_fail "a refused password: exit $rc, expected 1"; return 1; }
    rc=0
    # shellcheck disable=SC2086
    sb_run "$d/noserver.out" "$d/noserver.err" $conn --$drv-port=1 --$drv-password="$PW" \
        --verbosity=5 --db-debug --json="$d/noserver.json" select1.lua run || rc=$?
    [ "$rc" -eq 1 ] || { sb_show "$d/noserver.err"; sb_fail "no server: exit $rc, expected 1"; return 1; }
    printf '%s-password=%s\ndb-debug=on\nverbosity=5\n' "$drv" "$PW" >good.cfg
    # shellcheck disable=SC2086
    sb_run_ok "the run with a config file" "$d/cfg.out" "$d/cfg.err" $conn --config-file=good.cfg \
        --time=1 select1.lua run || return 1
    printf '%s-password %s\n' "$drv" "$PW" >bad.cfg
    rc=0
    # shellcheck disable=SC2086
    sb_run "$d/badcfg.out" "$d/badcfg.err" $conn --config-file=bad.cfg select1.lua run || rc=$?
    [ "$rc" -eq 1 ] || { sb_fail "'NAME VALUE' in a config file: exit $rc, expected 1"; return 1; }
    echo "+ $(find "$d" -type f | wc -l) files searched"
    sb_expect_absent "$PW" "$d"/* || return 1
    sb_expect_absent "$PW_BAD" "$d"/* || return 1
}

for drv in mysql pgsql; do
    sb_case "$drv-password-never-printed" never_printed "$drv"
done
