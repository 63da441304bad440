#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A connection that cannot be made ends the program with status 1 and one
# clear line on stderr, promptly, and never prints the password.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"
# shellcheck source=../harness/connect_lib.sh
. "${SB_CASE_LIB%/*}/connect_lib.sh"

cat >connect.lua <<'LUA'
local con = sysbench.sql.driver():connect()
print("connected")
con:disconnect()
LUA

# expect_connect_failure PATTERN SECRET ARGS...
expect_connect_failure() {
    local pattern=$1 secret=$2 rc=0
    shift 2
    sb_run out.txt err.txt "$@" connect.lua || rc=$?
    expect_exit_1 "$rc" || return 1
    if grep -q '^connected' out.txt; then
        sb_fail "the script ran past connect()"
        return 1
    fi
    sb_expect_one_line_error err.txt "$pattern" || return 1
    if [ -n "$secret" ]; then
        sb_expect_absent "$secret" out.txt err.txt || return 1
    fi
}

mysql_common="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-user=sbtest --mysql-db=sbtest"
pgsql_common="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-user=sbtest --pgsql-db=sbtest"

connect_ok() {
    # shellcheck disable=SC2046
    sb_run_ok connect.lua out.txt err.txt $(sb_driver_args "$1") connect.lua || return 1
    grep -q '^connected' out.txt || { sb_show out.txt; sb_fail "no 'connected' line"; return 1; }
}

wrong_password() {
    local drv=$1 common port
    if [ "$drv" = mysql ]; then common=$mysql_common; port=$SB_MYSQL_PORT; else common=$pgsql_common; port=$SB_PGSQL_PORT; fi
    # The one line names the user and which options (or, for
    # PostgreSQL, variables) set the user and the password, as the
    # server-down error names the host and the port.
    # shellcheck disable=SC2086
    expect_connect_failure "([Aa]ccess denied|password authentication failed).*sbtest.* \(user set by --$drv-user, password by --$drv-password; change them with --$drv-user and --$drv-password" \
        "Wr0ngSecret" $common --"$drv"-port="$port" --"$drv"-password=Wr0ngSecret || return 1
    [ "$drv" = pgsql ] || return 0
    grep -q "or PGUSER and PGPASSWORD)" err.txt || { sb_show err.txt; sb_fail "PGUSER/PGPASSWORD not named"; return 1; }
    # Set by the variables: the line says so.
    # shellcheck disable=SC2086
    PGUSER=sbtest PGPASSWORD=Wr0ngSecret expect_connect_failure \
        "password authentication failed.* \(user set by PGUSER, password by PGPASSWORD;" "Wr0ngSecret" \
        --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-db=sbtest --pgsql-port="$port"
}

wrong_port() {
    local drv=$1 common
    if [ "$drv" = mysql ]; then common=$mysql_common; else common=$pgsql_common; fi
    # shellcheck disable=SC2086
    expect_connect_failure "[Cc]onnect|[Rr]efused" "sbpass" \
        $common --"$drv"-port="$(closed_port "$SB_MYSQL_PORT")" --"$drv"-password=sbpass
}

missing_database() {
    local drv=$1 port
    if [ "$drv" = mysql ]; then port=$SB_MYSQL_PORT; else port=$SB_PGSQL_PORT; fi
    expect_connect_failure "no_such_db" "sbpass" \
        --db-driver="$drv" --"$drv"-host=127.0.0.1 --"$drv"-port="$port" --"$drv"-user=sbtest \
        --"$drv"-password=sbpass --"$drv"-db=no_such_db
}

# The server's connection limit (max_connections).
server_limit() {
    if [ "$1" = mysql ]; then
        mariadb --no-defaults -S "$SB_MYSQL_SOCKET" -uroot -N -e "SELECT @@max_connections"
    else
        psql -X -q -A -t -h "$SB_PGSQL_SOCKET_DIR" -p "$SB_PGSQL_PORT" -U postgres -d postgres \
            -c "SHOW max_connections"
    fi
}

write_count_init_lua

# More connections than the server takes, opened by one client thread (in
# order): the refusal is one line and exit 1, and no connection is tried
# after it (before, every one of them built its state and connected, 95 s
# at 10,000). The first refused is at most the limit plus two (MariaDB
# keeps one more connection for a user with all privileges).
over_limit() {
    local drv=$1 limit n rc=0
    limit=$(server_limit "$drv") || { sb_fail "cannot read $drv's max_connections"; return 1; }
    n=$((limit + 100))
    rm -f inits.txt
    # shellcheck disable=SC2046
    sb_run out.txt err.txt $(sb_driver_args "$drv") --threads="$n" --client-threads=1 \
        --time=2 count_init.lua run || rc=$?
    expect_exit_1 "$rc" || return 1
    sb_expect_one_line_error err.txt "[Tt]oo many|connection slots" || return 1
    local tried
    tried=$(wc -l <inits.txt)
    if [ "$tried" -gt $((limit + 2)) ]; then
        sb_fail "$tried of $n connections tried after a refusal at limit $limit"
        return 1
    fi
}

for drv in mysql pgsql; do
    sb_case "$drv-more-connections-than-the-server-allows" over_limit "$drv"
    sb_case "$drv-connect-ok" connect_ok "$drv"
    sb_case "$drv-wrong-password" wrong_password "$drv"
    sb_case "$drv-wrong-port" wrong_port "$drv"
    sb_case "$drv-missing-database" missing_database "$drv"
done
