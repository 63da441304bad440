#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A password is never printed: not at --verbosity=5 with --db-debug, not in
# --json, --csv, --log or --hgrm files, not when the server refuses it, not
# when no server answers, not from a config file (NAME=VALUE, or the
# mistaken "NAME VALUE" that makes the whole line an unknown option). Every
# output and file of the runs is searched for two distinctive passwords.
#
# Nor is it shown to other users of the machine (issue 30, item 8): the
# /proc/PID/cmdline of a running sysbench (what ps shows) has the
# --DRV-password value overwritten, and the run still logs in with it;
# --DRV-password-file reads it from a file (both given, a missing or an
# empty file: one error line); the client libraries' own routes work
# without any password option: PGPASSWORD and ~/.pgpass for PostgreSQL,
# an option file's [client] group (--mysql-read-default-file) for MySQL.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

readonly PW='Sec-Tq5mVw8K' PW_BAD='Bad-Hn3rJx6P'

fixture select1.lua

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

# make_user DRV: the user pwuser with password $PW, allowed to read sbtest.
make_user() {
    if [ "$1" = mysql ]; then
        sb_cli mysql "CREATE USER IF NOT EXISTS 'pwuser'@'127.0.0.1' IDENTIFIED BY '$PW'; GRANT SELECT ON sbtest.* TO 'pwuser'@'127.0.0.1'"
    else
        sb_cli pgsql "DROP ROLE IF EXISTS pwuser; CREATE ROLE pwuser LOGIN PASSWORD '$PW'" >/dev/null
    fi
}

# conn_args DRV: the connection options of pwuser, without a password.
conn_args() {
    local port=$SB_PGSQL_PORT
    [ "$1" = mysql ] && port=$SB_MYSQL_PORT
    echo "--db-driver=$1 --$1-host=127.0.0.1 --$1-port=$port --$1-user=pwuser --$1-db=sbtest"
}

not_in_cmdline() {
    local drv=$1 pid sbpid rc=0 i cmdline
    local -a conn
    make_user "$drv" || return 1
    # shellcheck disable=SC2207
    conn=($(conn_args "$drv"))
    rm -f out.txt err.txt  # a previous case's output must not be read as this run's
    timeout -k 5 "$SB_CASE_TIMEOUT" "$SB_BIN" "${conn[@]}" --"$drv"-password="$PW" --threads=1 \
        --time=60 --report-interval=1 --json=r.json select1.lua run >out.txt 2>err.txt &
    pid=$!
    for i in $(seq 200); do
        grep -Eq "$REPORT_LINE" out.txt && break
        sleep 0.1
    done
    # The process of sysbench itself, under timeout(1).
    sbpid=$(pgrep -P "$pid" -x sysbench || echo "$pid")
    cmdline=$(tr '\0' ' ' <"/proc/$sbpid/cmdline")
    ps -o args= -p "$sbpid" >ps.txt || true
    kill -INT "$pid"
    wait "$pid" || rc=$?
    echo "+ /proc/$sbpid/cmdline: $cmdline"
    [ "$rc" -eq 130 ] || { sb_show out.txt err.txt; sb_fail "exit $rc, expected 130"; return 1; }
    # It connected with the password, which was copied before argv was
    # overwritten.
    sb_expect_positive out.txt "transactions:" || return 1
    case "$cmdline" in
    *"$PW"*) sb_fail "the password is in /proc/PID/cmdline"; return 1 ;;
    *"--$drv-password=xxxxxxxxxxxx "*) ;;
    *) sb_fail "no overwritten --$drv-password= in /proc/PID/cmdline"; return 1 ;;
    esac
    sb_expect_absent "$PW" ps.txt out.txt err.txt r.json || return 1
    grep -q -F -- "\"--$drv-password=<redacted>\"" r.json || {
        sb_fail "the JSON command line does not show the option as redacted"
        return 1
    }
}

password_file() {
    local drv=$1 rc
    local -a conn
    make_user "$drv" || return 1
    # shellcheck disable=SC2207
    conn=($(conn_args "$drv"))
    (umask 077 && printf '%s\n' "$PW" >pw.txt)
    sb_run_ok "the run with --$drv-password-file" out.txt err.txt "${conn[@]}" \
        --"$drv"-password-file=pw.txt --events=5 --json=r.json select1.lua run || return 1
    sb_expect_positive out.txt "transactions:" || return 1
    # The file's name is no secret: the JSON keeps it; the password is not there.
    grep -q -F "\"$drv-password-file\": \"pw.txt\"" r.json ||
        { sb_fail "the JSON options lack --$drv-password-file"; return 1; }
    sb_expect_absent "$PW" out.txt err.txt r.json || return 1
    rc=0
    sb_run both.out both.err "${conn[@]}" --"$drv"-password-file=pw.txt --"$drv"-password="$PW" \
        --events=1 select1.lua run || rc=$?
    [ "$rc" -eq 1 ] || { sb_fail "both given: exit $rc, expected 1"; return 1; }
    sb_expect_one_line_error both.err \
        "^FATAL: .*both --$drv-password and --$drv-password-file given: give one$" || return 1
    rc=0
    sb_run missing.out missing.err "${conn[@]}" --"$drv"-password-file=missing.txt --events=1 \
        select1.lua run || rc=$?
    [ "$rc" -eq 1 ] || { sb_fail "a missing file: exit $rc, expected 1"; return 1; }
    sb_expect_one_line_error missing.err \
        "^FATAL: .*--$drv-password-file=missing.txt: cannot open: No such file or directory$" || return 1
    : >empty.txt
    rc=0
    sb_run empty.out empty.err "${conn[@]}" --"$drv"-password-file=empty.txt --events=1 \
        select1.lua run || rc=$?
    [ "$rc" -eq 1 ] || { sb_fail "an empty file: exit $rc, expected 1"; return 1; }
    sb_expect_one_line_error empty.err "^FATAL: .*--$drv-password-file=empty.txt: is empty$" ||
        return 1
    sb_expect_absent "$PW" both.out both.err missing.err empty.err || return 1
}

library_routes() {
    local drv=$1
    local -a conn
    make_user "$drv" || return 1
    # shellcheck disable=SC2207
    conn=($(conn_args "$drv"))
    if [ "$drv" = pgsql ]; then
        PGPASSWORD=$PW sb_run_ok "the run with PGPASSWORD" env.out env.err "${conn[@]}" \
            --events=5 select1.lua run || return 1
        mkdir -p home
        (umask 077 && printf '127.0.0.1:%s:sbtest:pwuser:%s\n' "$SB_PGSQL_PORT" "$PW" >home/.pgpass)
        HOME=$PWD/home sb_run_ok "the run with ~/.pgpass" pgpass.out pgpass.err "${conn[@]}" \
            --events=5 select1.lua run || return 1
        sb_expect_positive pgpass.out "transactions:" || return 1
    else
        (umask 077 && printf '[client]\npassword=%s\n' "$PW" >my.cnf)
        sb_run_ok "the run with an option file" cnf.out cnf.err "${conn[@]}" \
            --mysql-read-default-file=my.cnf --events=5 select1.lua run || return 1
        sb_expect_positive cnf.out "transactions:" || return 1
    fi
}

for drv in mysql pgsql; do
    sb_case "$drv-password-never-printed" never_printed "$drv"
    sb_case "$drv-password-not-in-proc-cmdline" not_in_cmdline "$drv"
    sb_case "$drv-password-file" password_file "$drv"
    sb_case "$drv-password-from-the-client-library" library_routes "$drv"
done
