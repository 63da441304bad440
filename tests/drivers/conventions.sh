#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The drivers' own conventions, on the harness servers: libpq's
# environment variables, ~/.pgpass and services when no --pgsql-* option
# says otherwise (options win; 1.0's defaults when neither gives a value);
# a MySQL option file group on request (--mysql-read-default-file/-group,
# the client library's MYSQL_READ_DEFAULT_FILE/GROUP); --mysql-socket; and
# the errors that say what to do (the server tried and what chose it, a
# missing table and the prepare to run).

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"
# shellcheck source=../harness/connect_lib.sh
. "${SB_CASE_LIB%/*}/connect_lib.sh"

# Nothing from the environment this runs in may choose a server here.
unset PGHOST PGHOSTADDR PGPORT PGUSER PGDATABASE PGPASSWORD PGPASSFILE PGSSLMODE \
    PGSERVICE PGSERVICEFILE PGCONNECT_TIMEOUT

# Prints who and where the connection is: user, database, and (pgsql) the
# server's port, so that each source of a setting can be seen to apply.
cat >who.lua <<'LUA'
local con = sysbench.sql.driver():connect()
local q = sysbench.sql.driver():name() == "pgsql"
    and "SELECT current_user, current_database(), current_setting('port')"
    or "SELECT current_user(), database(), @@port"
local user, db, port = con:query_row(q)
print(string.format("who=%s db=%s port=%s", user, db, port))
con:disconnect()
LUA

# expect_who OUT LINE: the who.lua line in OUT is LINE.
expect_who() {
    if ! grep -qx -- "$2" "$1"; then
        sb_show "$1"
        sb_fail "expected '$2'"
        return 1
    fi
}

# expect_fail_line ERR REGEX: one error line matching REGEX, without a
# Lua file:line prefix.
expect_fail_line() {
    sb_expect_one_line_error "$1" "$2" || return 1
    if grep -qE '\.lua:[0-9]+:' "$1"; then
        sb_show "$1"
        sb_fail "the error carries a script file:line prefix"
        return 1
    fi
}

# ------------------------------------------------------------- PostgreSQL

# PGHOST, PGPORT and PGUSER alone (the Unix socket, which the harness
# trusts): no --pgsql-* option at all. PGUSER=postgres and PGDATABASE
# differ from 1.0's defaults (sbtest), so the variables are seen to apply.
pg_env_alone() {
    PGHOST=$SB_PGSQL_SOCKET_DIR PGPORT=$SB_PGSQL_PORT PGUSER=postgres \
        sb_run_ok "env run" out.txt err.txt --db-driver=pgsql who.lua || return 1
    expect_who out.txt "who=postgres db=sbtest port=$SB_PGSQL_PORT" || return 1
    PGHOST=$SB_PGSQL_SOCKET_DIR PGPORT=$SB_PGSQL_PORT PGUSER=postgres PGDATABASE=postgres \
        sb_run_ok "env run" out.txt err.txt --db-driver=pgsql who.lua || return 1
    expect_who out.txt "who=postgres db=postgres port=$SB_PGSQL_PORT"
}

# Over TCP (scram): PGPASSWORD, then ~/.pgpass in a temporary HOME, and
# without either the password is missing (so the file was what worked).
pg_password_sources() {
    local home=$PWD/home rc=0
    mkdir -p "$home"
    PGHOST=127.0.0.1 PGPORT=$SB_PGSQL_PORT PGPASSWORD=$SB_PGSQL_PASSWORD HOME=$home \
        sb_run_ok "PGPASSWORD run" out.txt err.txt --db-driver=pgsql who.lua || return 1
    expect_who out.txt "who=sbtest db=sbtest port=$SB_PGSQL_PORT" || return 1
    PGHOST=127.0.0.1 PGPORT=$SB_PGSQL_PORT HOME=$home \
        sb_run out.txt err.txt --db-driver=pgsql who.lua || rc=$?
    [ "$rc" -eq 1 ] || { sb_show out.txt err.txt; sb_fail "no password: exit $rc, expected 1"; return 1; }
    expect_fail_line err.txt 'password' || return 1
    printf '127.0.0.1:%s:sbtest:sbtest:%s\n' "$SB_PGSQL_PORT" "$SB_PGSQL_PASSWORD" >"$home/.pgpass"
    chmod 600 "$home/.pgpass"
    PGHOST=127.0.0.1 PGPORT=$SB_PGSQL_PORT HOME=$home \
        sb_run_ok "~/.pgpass run" out.txt err.txt --db-driver=pgsql who.lua || return 1
    expect_who out.txt "who=sbtest db=sbtest port=$SB_PGSQL_PORT"
}

# A service (PGSERVICE in PGSERVICEFILE) gives everything.
pg_service() {
    cat >svc.conf <<EOF
[sbsvc]
host=127.0.0.1
port=$SB_PGSQL_PORT
user=sbtest
password=$SB_PGSQL_PASSWORD
dbname=postgres
EOF
    PGSERVICE=sbsvc PGSERVICEFILE=$PWD/svc.conf \
        sb_run_ok "service run" out.txt err.txt --db-driver=pgsql who.lua || return 1
    expect_who out.txt "who=sbtest db=postgres port=$SB_PGSQL_PORT"
}

# Options win over the variables; the error names what chose the server.
pg_options_win() {
    local closed rc=0
    closed=$(closed_port "$SB_MYSQL_PORT")
    PGHOST=127.0.0.1 PGPORT=$closed PGUSER=nobody PGDATABASE=nowhere \
        sb_run_ok "options over env" out.txt err.txt $SB_PGSQL_ARGS --db-driver=pgsql who.lua || return 1
    expect_who out.txt "who=sbtest db=sbtest port=$SB_PGSQL_PORT" || return 1
    # The port from PGPORT (closed), the host from --pgsql-host.
    PGPORT=$closed sb_run out.txt err.txt --db-driver=pgsql --pgsql-host=127.0.0.1 \
        --pgsql-password=sbpass who.lua || rc=$?
    [ "$rc" -eq 1 ] || { sb_show out.txt err.txt; sb_fail "exit $rc, expected 1"; return 1; }
    expect_fail_line err.txt "\"127\\.0\\.0\\.1\", port $closed failed: Connection refused \\(host set by --pgsql-host, port by PGPORT; change them with --pgsql-host and --pgsql-port, or PGHOST and PGPORT\\)"
}

# Neither option nor variable: 1.0's defaults (localhost, the port given).
pg_defaults() {
    local closed rc=0
    closed=$(closed_port "$SB_MYSQL_PORT")
    sb_run out.txt err.txt --db-driver=pgsql --pgsql-port="$closed" who.lua || rc=$?
    [ "$rc" -eq 1 ] || { sb_show out.txt err.txt; sb_fail "exit $rc, expected 1"; return 1; }
    expect_fail_line err.txt "\"localhost\" .*port $closed failed: .*\\(host set by the default, port by --pgsql-port;"
}

# PGSSLMODE applies: the harness server has no TLS, so require fails.
pg_sslmode_env() {
    local rc=0
    PGSSLMODE=require sb_run out.txt err.txt $SB_PGSQL_ARGS --db-driver=pgsql who.lua || rc=$?
    [ "$rc" -eq 1 ] || { sb_show out.txt err.txt; sb_fail "PGSSLMODE=require: exit $rc, expected 1"; return 1; }
    expect_fail_line err.txt "SSL" || return 1
    PGSSLMODE=disable sb_run_ok "PGSSLMODE=disable" out.txt err.txt $SB_PGSQL_ARGS --db-driver=pgsql who.lua
}

# ---------------------------------------------------------- MySQL/MariaDB

# The [client] group of a file named by --mysql-read-default-file; the
# user and database the file does not give are 1.0's (sbtest).
my_option_file() {
    printf '[client]\nhost=127.0.0.1\nport=%s\npassword=%s\n' "$SB_MYSQL_PORT" \
        "$SB_MYSQL_PASSWORD" >my.cnf
    sb_run_ok "option file run" out.txt err.txt --db-driver=mysql \
        --mysql-read-default-file=my.cnf who.lua || return 1
    expect_who out.txt "who=sbtest@127.0.0.1 db=sbtest port=$SB_MYSQL_PORT" || return 1
    # The file's database replaces 1.0's; an option replaces the file's.
    printf 'database=mysql\n' >>my.cnf
    sb_run_ok "option file db" out.txt err.txt --db-driver=mysql \
        --mysql-read-default-file=my.cnf who.lua || return 1
    expect_who out.txt "who=sbtest@127.0.0.1 db=mysql port=$SB_MYSQL_PORT" || return 1
    sb_run_ok "option over file" out.txt err.txt --db-driver=mysql \
        --mysql-read-default-file=my.cnf --mysql-db=sbtest who.lua || return 1
    expect_who out.txt "who=sbtest@127.0.0.1 db=sbtest port=$SB_MYSQL_PORT"
}

# A named group of ~/.my.cnf (temporary HOME) with --mysql-read-default-group
# alone; its password is wrong in [client] and right in the group, so the
# group is seen to be read (after [client]).
my_option_group() {
    local home=$PWD/home rc=0
    mkdir -p "$home"
    printf '[client]\nhost=127.0.0.1\nport=%s\npassword=wrong\n[sbbench]\npassword=%s\n' \
        "$SB_MYSQL_PORT" "$SB_MYSQL_PASSWORD" >"$home/.my.cnf"
    HOME=$home sb_run_ok "group run" out.txt err.txt --db-driver=mysql \
        --mysql-read-default-group=sbbench who.lua || return 1
    expect_who out.txt "who=sbtest@127.0.0.1 db=sbtest port=$SB_MYSQL_PORT" || return 1
    HOME=$home sb_run out.txt err.txt --db-driver=mysql \
        --mysql-read-default-group=client who.lua || rc=$?
    [ "$rc" -eq 1 ] || { sb_show out.txt err.txt; sb_fail "[client] only: exit $rc, expected 1"; return 1; }
    expect_fail_line err.txt "Access denied" || return 1
    # Without the option, no option file is read (1.0's behaviour).
    rc=0
    HOME=$home sb_run out.txt err.txt --db-driver=mysql --mysql-host=127.0.0.1 \
        --mysql-port="$SB_MYSQL_PORT" who.lua || rc=$?
    [ "$rc" -eq 1 ] || { sb_show out.txt err.txt; sb_fail "no option: exit $rc, expected 1 (no password)"; return 1; }
    # An option file that cannot be read is one clear error.
    rc=0
    sb_run out.txt err.txt --db-driver=mysql --mysql-read-default-file=nonexistent.cnf who.lua || rc=$?
    [ "$rc" -eq 1 ] || { sb_fail "missing file: exit $rc, expected 1"; return 1; }
    sb_expect_one_line_error err.txt "cannot read the --mysql-read-default-file file 'nonexistent.cnf'"
}

# --mysql-socket, as in 1.0: the server's Unix socket, host left as is.
my_socket() {
    sb_run_ok "socket run" out.txt err.txt --db-driver=mysql --mysql-socket="$SB_MYSQL_SOCKET" \
        --mysql-password="$SB_MYSQL_PASSWORD" who.lua || return 1
    expect_who out.txt "who=sbtest@localhost db=sbtest port=$SB_MYSQL_PORT"
}

my_refused() {
    local closed rc=0
    closed=$(closed_port "$SB_MYSQL_PORT")
    sb_run out.txt err.txt --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$closed" \
        --mysql-password=sbpass who.lua || rc=$?
    [ "$rc" -eq 1 ] || { sb_show out.txt err.txt; sb_fail "exit $rc, expected 1"; return 1; }
    expect_fail_line err.txt "Can't connect to server on '127\\.0\\.0\\.1'.* \\(host '127\\.0\\.0\\.1' set by --mysql-host, port $closed by --mysql-port; change them with --mysql-host and --mysql-port\\)" || return 1
    rc=0
    sb_run out.txt err.txt --db-driver=mysql --mysql-socket=/nonexistent/mysql.sock who.lua || rc=$?
    [ "$rc" -eq 1 ] || { sb_fail "exit $rc, expected 1"; return 1; }
    expect_fail_line err.txt "\\(socket '/nonexistent/mysql\\.sock' set by --mysql-socket\\)"
}

# ------------------------------------------------------------ both drivers

# A table not prepared: the error names the prepare command to run. The
# tables are numbered past any other case's.
missing_table() {
    local drv=$1 rc=0
    # shellcheck disable=SC2046
    sb_run out.txt err.txt $(sb_driver_args "$drv") --tables=97 --table-size=10 --time=1 \
        oltp_point_select run || rc=$?
    [ "$rc" -eq 1 ] || { sb_show out.txt err.txt; sb_fail "exit $rc, expected 1"; return 1; }
    # The hint repeats the driver and connection options, all but the
    # password (issue 28): pasted, it reaches the same server.
    local want
    # shellcheck disable=SC2046
    want=$(printf '%s ' $(sb_driver_args "$drv") | sed -E 's/--[a-z]+-password=[^ ]* //')
    expect_fail_line err.txt "^FATAL: table sbtest[0-9]+ does not exist: run 'sysbench oltp_point_select ${want}--tables=97 --table-size=10 prepare' first" || return 1
    sb_expect_absent "$SB_MYSQL_PASSWORD" err.txt
}

# PGHOST (or PGSERVICE, PGDATABASE) set and no driver option: the run
# uses PostgreSQL, and the header says why (issue 28).
pg_env_chooses_driver() {
    # who.lua's connection, made by a run's thread (the header is a run's).
    cat >runwho.lua <<'LUA'
function thread_init() dofile("who.lua") end
function event() end
LUA
    PGHOST=$SB_PGSQL_SOCKET_DIR PGPORT=$SB_PGSQL_PORT PGUSER=postgres \
        sb_run_ok "env run" out.txt err.txt --events=1 runwho.lua run || return 1
    expect_who out.txt "who=postgres db=sbtest port=$SB_PGSQL_PORT" || return 1
    grep -q "^Database driver: pgsql (from PGHOST; --db-driver chooses another)$" out.txt ||
        { sb_show out.txt; sb_fail "the header does not say pgsql from PGHOST"; return 1; }
    # PGDATABASE alone names a database: PostgreSQL too.
    PGHOST=$SB_PGSQL_SOCKET_DIR PGPORT=$SB_PGSQL_PORT PGUSER=postgres PGDATABASE=postgres \
        sb_run_ok "env run" out.txt err.txt --events=1 runwho.lua run || return 1
    expect_who out.txt "who=postgres db=postgres port=$SB_PGSQL_PORT"
}

# A rate no thread can keep with one statement per transaction (10M/s on
# one thread: 0.1 us each, under any round trip): warned about before the
# run from the probe connection's round trips, and not again after the
# first second; a rate well within reach gets no warning.
rate_warning() {
    local drv=$1 w r
    # shellcheck disable=SC2046
    timeout -k 5 60 "$SB_BIN" $(sb_driver_args "$drv") --tx-rate=10000000 --time=2 \
        --report-interval=1 cpu.lua run >both.txt 2>&1 || true
    echo "+ rate 10M/s on 1 thread"
    grep -nE "^WARNING: --tx-rate=10000000 over 1 thread\(s\) leaves each thread 0\.1 us per transaction, but the quickest of 5 'SELECT 1' round trips to the server took [0-9.]+ us: transactions that send a statement cannot keep this schedule" both.txt >w.txt || true
    w=$(head -n 1 w.txt | cut -d: -f1)
    r=$(grep -nE "$REPORT_LINE" both.txt | head -n 1 | cut -d: -f1)
    if [ -z "$w" ] || [ -z "$r" ] || [ "$w" -ge "$r" ]; then
        sb_show both.txt
        sb_fail "no warning before the first interval line (warning at line '${w}', first interval at '${r}')"
        return 1
    fi
    if grep -q "out of reach so far" both.txt; then
        sb_show both.txt
        sb_fail "the first second's check repeated the warning"
        return 1
    fi
    # 5/s leaves 200 ms per transaction, far above any round trip even on a
    # loaded machine (at 50/s, 20 ms, the quickest of the probe's round
    # trips was above it when the load average was near 50).
    # shellcheck disable=SC2046
    sb_run_ok "a reachable rate" out.txt err.txt $(sb_driver_args "$drv") --tx-rate=5 \
        --time=1 cpu.lua run || return 1
    if grep -q "WARNING" out.txt err.txt; then
        sb_show out.txt err.txt
        sb_fail "a warning at 5/s"
        return 1
    fi
}

cat >cpu.lua <<'LUA'
local con
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT 1") end
LUA

sb_case pgsql-env-vars-alone pg_env_alone
sb_case pgsql-env-vars-choose-the-driver pg_env_chooses_driver
sb_case pgsql-pgpassword-and-pgpass pg_password_sources
sb_case pgsql-service pg_service
sb_case pgsql-options-win-over-env pg_options_win
sb_case pgsql-defaults-when-nothing-set pg_defaults
sb_case pgsql-sslmode-env pg_sslmode_env
sb_case mysql-read-default-file my_option_file
sb_case mysql-read-default-group my_option_group
sb_case mysql-socket my_socket
sb_case mysql-refused-names-the-server my_refused
sb_case mysql-missing-table-hint missing_table mysql
sb_case pgsql-missing-table-hint missing_table pgsql
sb_case mysql-unreachable-rate-warned-before-the-run rate_warning mysql
sb_case pgsql-unreachable-rate-warned-before-the-run rate_warning pgsql
