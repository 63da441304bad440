#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Throwaway MariaDB and PostgreSQL servers for the driver and end-to-end
# tests. Everything (data, sockets, logs, PID files) lives in one directory,
# the servers listen only on a unix socket in that directory and on a free
# loopback port, and "stop" kills exactly the processes "start" recorded.
#
#   servers.sh start DIR         start both, create user sbtest/sbpass and
#                                database sbtest, write DIR/servers.env
#   servers.sh stop DIR          stop both and remove DIR
#   servers.sh stop-mysql DIR    stop one server, keeping its data, so a test
#   servers.sh start-mysql DIR   can take it away mid-run and bring it back
#   servers.sh stop-pgsql DIR    (same port and socket; the new PID is in
#   servers.sh start-pgsql DIR   DIR/mysql.pid or DIR/pgsql.pid)
#
# SB_MAX_CONNECTIONS=N at "start" raises both servers' connection limit
# (default 500 for MariaDB, 300 for PostgreSQL; bench/reliability.sh asks
# for thousands). It is kept in DIR/max_connections for later restarts.
#
# SB_SERVER_STATS=on at "start" turns on the servers' own statement
# statistics: MariaDB's performance_schema (events_statements_summary_by_
# digest, prepared_statements_instances) and PostgreSQL's pg_stat_statements
# (preloaded, the extension created in database sbtest), for the cases that
# check per-statement figures against the server's. Off by default: it costs
# the servers memory and time per statement. Kept in DIR/server_stats for
# later restarts.
#
# The packages (mariadb-server, postgresql) are assumed installed; when they
# are not, this says so in one line and fails: a test that needs a server
# must never pass without one.

set -euo pipefail

readonly WAIT_SECONDS=60
readonly SB_USER=sbtest
readonly SB_PASSWORD=sbpass
readonly SB_DB=sbtest
SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
readonly SELF

die() {
    echo "servers.sh: $*" >&2
    exit 1
}

usage() {
    echo "usage: servers.sh start|stop|start-mysql|stop-mysql|start-pgsql|stop-pgsql DIR" >&2
    exit 2
}

# PostgreSQL refuses to run as root, so as root it runs as "postgres".
as_pg_user() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

pg_bindir() {
    local d
    # The newest installed major version wins.
    d=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    if [ -n "$d" ] && [ -x "$d/initdb" ]; then
        echo "$d"
    elif command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
        pg_config --bindir
    fi
}

check_tools() {
    local missing=()
    local t
    for t in mariadbd mariadb-install-db mariadb; do
        if ! command -v "$t" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$t" ]; then
            missing+=("$t")
        fi
    done
    if [ -z "$(pg_bindir)" ]; then
        missing+=("PostgreSQL server (initdb)")
    fi
    if ! command -v psql >/dev/null 2>&1; then
        missing+=("psql")
    fi
    if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
        missing+=("user postgres")
    fi
    if [ "${#missing[@]}" -gt 0 ]; then
        die "database servers not installed (missing: ${missing[*]}); install mariadb-server and postgresql"
    fi
}

mariadbd_bin() {
    command -v mariadbd 2>/dev/null || echo /usr/sbin/mariadbd
}

# A port nobody listens on now. Another process could take it before the
# server binds it; the server then fails to start and says so in its log.
# It is drawn below the kernel's ephemeral range: a port in
# that range may be the local end of a client connection or of a socket
# in TIME_WAIT (thousands after a many-connection test), and the server's
# bind then fails with "Address already in use" although nothing listens.
free_port() {
    local p low
    low=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
    [ "${low:-0}" -gt 12000 ] 2>/dev/null || low=32768
    for _ in $(seq 1 200); do
        p=$(( 10000 + (RANDOM * 32768 + RANDOM) % (low - 10000) ))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return 0
        fi
    done
    die "no free loopback port found"
}

log_tail() {
    local f=$1
    if [ -f "$f" ]; then
        # The error lines first: mariadb-install-db ends every failure
        # with the same 25 lines of advice, which hid the cause.
        echo "---- error lines of $f ----" >&2
        grep -n -i -E 'error|fatal|abort|denied|no space|cannot|can.t' "$f" | head -n 15 >&2
        echo "---- last lines of $f ----" >&2
        tail -n 8 "$f" >&2
        echo "----" >&2
    fi
}

# True if PID is alive and is the program we started (a recycled PID that
# now belongs to something else must not be killed).
pid_is() {
    local pid=$1 name=$2 cmdline
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
    cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)
    [[ "$cmdline" == *"$name"* ]]
}

# Waits up to WAIT_SECONDS for PID to exit.
wait_gone() {
    local pid=$1
    for _ in $(seq 1 $(( WAIT_SECONDS * 10 ))); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    return 1
}

# server_stats DIR: true if the servers keep their statement statistics.
server_stats() {
    [ -f "$1/server_stats" ]
}

# max_connections DIR DEFAULT: the limit asked for at start, else DEFAULT.
max_connections() {
    local n
    n=$(cat "$1/max_connections" 2>/dev/null || true)
    echo "${n:-$2}"
}

# ------------------------------------------------------------- MariaDB

mysql_start() {
    local dir=$1 port pid
    port=$(cat "$dir/mysql.port")
    rm -f "$dir/mysql.sock"
    # A case may ask for more server options (TLS certificates) by writing
    # them, one per line, to DIR/mysql.extra-args before a restart.
    local -a extra=()
    [ -f "$dir/mysql.extra-args" ] && mapfile -t extra <"$dir/mysql.extra-args"
    server_stats "$dir" && extra+=(--performance-schema=ON)
    # --no-defaults keeps the machine's own my.cnf (port, socket, plugins)
    # out of the throwaway server.
    "$(mariadbd_bin)" --no-defaults \
        --datadir="$dir/mysql/data" \
        --tmpdir="$dir/mysql/tmp" \
        --socket="$dir/mysql.sock" \
        --port="$port" --bind-address=127.0.0.1 \
        --pid-file="$dir/mysql/mariadbd.pid" \
        --log-error="$dir/mysql/error.log" \
        --user="$(id -un)" \
        --skip-name-resolve --skip-log-bin \
        --innodb-buffer-pool-size=64M --innodb-log-file-size=48M \
        --innodb-flush-log-at-trx-commit=2 --innodb-use-native-aio=0 \
        --max-connections="$(max_connections "$dir" 500)" "${extra[@]}" \
        </dev/null >>"$dir/mysql/stdout.log" 2>&1 &
    pid=$!
    echo "$pid" >"$dir/mysql.pid"
    for _ in $(seq 1 $(( WAIT_SECONDS * 10 ))); do
        if ! kill -0 "$pid" 2>/dev/null; then
            log_tail "$dir/mysql/error.log"
            die "MariaDB exited while starting (log: $dir/mysql/error.log)"
        fi
        if mariadb --no-defaults -S "$dir/mysql.sock" -uroot -e 'SELECT 1' >/dev/null 2>&1; then
            return 0
        fi
        sleep 0.1
    done
    log_tail "$dir/mysql/error.log"
    die "MariaDB did not accept connections within ${WAIT_SECONDS}s (log: $dir/mysql/error.log)"
}

mysql_stop() {
    local dir=$1 pid
    pid=$(cat "$dir/mysql.pid" 2>/dev/null || true)
    if pid_is "$pid" mariadbd; then
        kill -TERM "$pid" 2>/dev/null || true
        if ! wait_gone "$pid"; then
            echo "servers.sh: MariaDB (pid $pid) did not stop in ${WAIT_SECONDS}s; killing it" >&2
            kill -KILL "$pid" 2>/dev/null || true
            wait_gone "$pid" || true
        fi
    fi
    rm -f "$dir/mysql.pid"
}

# mysql_install DIR: a new MariaDB data directory in DIR/mysql/data, the
# tool's output in DIR/mysql/install.log.
mysql_install() {
    mariadb-install-db --no-defaults --datadir="$1/mysql/data" \
        --user="$(id -un)" --auth-root-authentication-method=normal \
        --skip-name-resolve --skip-test-db >"$1/mysql/install.log" 2>&1
}

mysql_setup() {
    local dir=$1
    mkdir -p "$dir/mysql/data" "$dir/mysql/tmp"
    # One retry on a fresh directory: a local CI run saw mariadb-install-db fail once
    # on a loaded machine with the cause out of view; the first log is
    # printed either way, so a second failure is not hidden.
    if ! mysql_install "$dir"; then
        log_tail "$dir/mysql/install.log"
        echo "servers.sh: mariadb-install-db failed; trying once more" >&2
        mv "$dir/mysql/install.log" "$dir/mysql/install.1.log"
        rm -rf "$dir/mysql/data" && mkdir -p "$dir/mysql/data"
        mysql_install "$dir" ||
            { log_tail "$dir/mysql/install.log"; die "mariadb-install-db failed (log: $dir/mysql/install.log)"; }
    fi
    mysql_start "$dir"
    # Both 'localhost' (unix socket) and '127.0.0.1' (TCP, names are not
    # resolved) are listed so that no other account shadows '%'.
    mariadb --no-defaults -S "$dir/mysql.sock" -uroot <<SQL
CREATE DATABASE IF NOT EXISTS $SB_DB;
CREATE USER '$SB_USER'@'localhost' IDENTIFIED BY '$SB_PASSWORD';
CREATE USER '$SB_USER'@'127.0.0.1' IDENTIFIED BY '$SB_PASSWORD';
CREATE USER '$SB_USER'@'%' IDENTIFIED BY '$SB_PASSWORD';
GRANT ALL PRIVILEGES ON *.* TO '$SB_USER'@'localhost';
GRANT ALL PRIVILEGES ON *.* TO '$SB_USER'@'127.0.0.1';
GRANT ALL PRIVILEGES ON *.* TO '$SB_USER'@'%';
SQL
}

# ---------------------------------------------------------- PostgreSQL

pgsql_start() {
    local dir=$1 port bindir pid
    port=$(cat "$dir/pgsql.port")
    bindir=$(pg_bindir)
    if ! as_pg_user "$bindir/pg_ctl" -D "$dir/pgsql/data" -l "$dir/pgsql/server.log" \
        -w -t "$WAIT_SECONDS" \
        -o "-p $port -k $dir/pgsql -c listen_addresses=127.0.0.1" start \
        >>"$dir/pgsql/pg_ctl.log" 2>&1; then
        log_tail "$dir/pgsql/server.log"
        die "PostgreSQL did not start within ${WAIT_SECONDS}s (log: $dir/pgsql/server.log)"
    fi
    pid=$(head -n 1 "$dir/pgsql/data/postmaster.pid")
    echo "$pid" >"$dir/pgsql.pid"
    # PostgreSQL starts with its unix socket alone when it cannot bind its
    # TCP port, and the runs, which connect by TCP, are then refused. A
    # restart can meet that: while the server was stopped another process
    # (a server of a suite run beside this one) may have taken the port.
    if grep -q 'could not bind IPv4 address "127.0.0.1"' "$dir/pgsql/server.log" 2>/dev/null &&
        ! "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" 2>/dev/null; then
        log_tail "$dir/pgsql/server.log"
        die "PostgreSQL started without its TCP port $port: another process took it"
    fi
}

pgsql_stop() {
    local dir=$1 pid bindir
    pid=$(cat "$dir/pgsql.pid" 2>/dev/null || true)
    if [ -z "$pid" ] && [ -f "$dir/pgsql/data/postmaster.pid" ]; then
        # pg_ctl gave up waiting but the postmaster may still be coming up.
        pid=$(head -n 1 "$dir/pgsql/data/postmaster.pid")
    fi
    if pid_is "$pid" postgres; then
        bindir=$(pg_bindir)
        as_pg_user "$bindir/pg_ctl" -D "$dir/pgsql/data" -m fast -w -t "$WAIT_SECONDS" stop \
            >>"$dir/pgsql/pg_ctl.log" 2>&1 || true
        if pid_is "$pid" postgres; then
            echo "servers.sh: PostgreSQL (pid $pid) did not stop; killing it" >&2
            kill -KILL "$pid" 2>/dev/null || true
            wait_gone "$pid" || true
        fi
    fi
    rm -f "$dir/pgsql.pid"
}

pgsql_setup() {
    local dir=$1 bindir
    bindir=$(pg_bindir)
    mkdir -p "$dir/pgsql"
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres "$dir/pgsql"
        if ! runuser -u postgres -- test -w "$dir/pgsql"; then
            die "user postgres cannot reach $dir/pgsql: every parent directory of $dir must be searchable by it (chmod o+x)"
        fi
    fi
    # Trust on the socket lets the harness administer; TCP demands the
    # password so that the wrong-password tests see a real refusal.
    as_pg_user "$bindir/initdb" -D "$dir/pgsql/data" -U postgres \
        --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 \
        >"$dir/pgsql/initdb.log" 2>&1 ||
        { log_tail "$dir/pgsql/initdb.log"; die "initdb failed (log: $dir/pgsql/initdb.log)"; }
    cat >>"$dir/pgsql/data/postgresql.conf" <<CONF
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = $(max_connections "$dir" 300)
shared_buffers = 64MB
CONF
    if server_stats "$dir"; then
        echo "shared_preload_libraries = 'pg_stat_statements'" >>"$dir/pgsql/data/postgresql.conf"
    fi
    pgsql_start "$dir"
    psql -X -q -v ON_ERROR_STOP=1 -h "$dir/pgsql" -p "$(cat "$dir/pgsql.port")" \
        -U postgres -d postgres >/dev/null <<SQL
CREATE ROLE $SB_USER LOGIN PASSWORD '$SB_PASSWORD';
CREATE DATABASE $SB_DB OWNER $SB_USER;
SQL
    if server_stats "$dir"; then
        psql -X -q -v ON_ERROR_STOP=1 -h "$dir/pgsql" -p "$(cat "$dir/pgsql.port")" \
            -U postgres -d "$SB_DB" -c 'CREATE EXTENSION pg_stat_statements' >/dev/null
    fi
}

# -------------------------------------------------------------- commands

write_env() {
    local dir=$1 myport pgport myver pgver
    myport=$(cat "$dir/mysql.port")
    pgport=$(cat "$dir/pgsql.port")
    myver=$(mariadb --no-defaults -S "$dir/mysql.sock" -uroot -N -e 'SELECT VERSION()')
    pgver=$(psql -X -A -t -h "$dir/pgsql" -p "$pgport" -U postgres -d postgres -c 'SHOW server_version')
    cat >"$dir/servers.env" <<ENV
# Written by servers.sh start; source it. The PIDs are those at start-up;
# after a stop/start helper the current ones are in $dir/mysql.pid and
# $dir/pgsql.pid.
SB_SERVERS_DIR='$dir'
SB_MYSQL_HOST=127.0.0.1
SB_MYSQL_PORT=$myport
SB_MYSQL_SOCKET='$dir/mysql.sock'
SB_MYSQL_USER=$SB_USER
SB_MYSQL_PASSWORD=$SB_PASSWORD
SB_MYSQL_DB=$SB_DB
SB_MYSQL_VERSION='$myver'
SB_MYSQL_PID=$(cat "$dir/mysql.pid")
SB_MYSQL_ARGS="--mysql-host=127.0.0.1 --mysql-port=$myport --mysql-user=$SB_USER --mysql-password=$SB_PASSWORD --mysql-db=$SB_DB"
SB_MYSQL_STOP="bash '$SELF' stop-mysql '$dir'"
SB_MYSQL_START="bash '$SELF' start-mysql '$dir'"
SB_PGSQL_HOST=127.0.0.1
SB_PGSQL_PORT=$pgport
SB_PGSQL_SOCKET_DIR='$dir/pgsql'
SB_PGSQL_USER=$SB_USER
SB_PGSQL_PASSWORD=$SB_PASSWORD
SB_PGSQL_DB=$SB_DB
SB_PGSQL_VERSION='$pgver'
SB_PGSQL_PID=$(cat "$dir/pgsql.pid")
SB_PGSQL_ARGS="--pgsql-host=127.0.0.1 --pgsql-port=$pgport --pgsql-user=$SB_USER --pgsql-password=$SB_PASSWORD --pgsql-db=$SB_DB"
SB_PGSQL_STOP="bash '$SELF' stop-pgsql '$dir'"
SB_PGSQL_START="bash '$SELF' start-pgsql '$dir'"
export SB_SERVERS_DIR SB_MYSQL_HOST SB_MYSQL_PORT SB_MYSQL_SOCKET SB_MYSQL_USER \\
    SB_MYSQL_PASSWORD SB_MYSQL_DB SB_MYSQL_VERSION SB_MYSQL_PID SB_MYSQL_ARGS \\
    SB_MYSQL_STOP SB_MYSQL_START SB_PGSQL_HOST SB_PGSQL_PORT SB_PGSQL_SOCKET_DIR \\
    SB_PGSQL_USER SB_PGSQL_PASSWORD SB_PGSQL_DB SB_PGSQL_VERSION SB_PGSQL_PID \\
    SB_PGSQL_ARGS SB_PGSQL_STOP SB_PGSQL_START
ENV
}

START_DIR=

start_failed() {
    local rc=$?
    mysql_stop "$START_DIR" || true
    pgsql_stop "$START_DIR" || true
    echo "servers.sh: start failed; logs are in $START_DIR (remove with: servers.sh stop $START_DIR)" >&2
    exit "$rc"
}

cmd_start() {
    local dir=$1
    check_tools
    if [ -n "${SB_MAX_CONNECTIONS:-}" ] && ! [[ $SB_MAX_CONNECTIONS =~ ^[1-9][0-9]{0,5}$ ]]; then
        die "SB_MAX_CONNECTIONS must be a positive number, not '$SB_MAX_CONNECTIONS'"
    fi
    case "${SB_SERVER_STATS:-off}" in
    on|off) ;;
    *) die "SB_SERVER_STATS must be on or off, not '$SB_SERVER_STATS'" ;;
    esac
    if [ -e "$dir/servers.env" ] || [ -e "$dir/.sb_servers" ]; then
        die "$dir already holds servers; run 'servers.sh stop $dir' first"
    fi
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    # The postgres user must reach its data directory inside DIR.
    chmod 755 "$dir"
    : >"$dir/.sb_servers"
    if [ -n "${SB_MAX_CONNECTIONS:-}" ]; then
        echo "$SB_MAX_CONNECTIONS" >"$dir/max_connections"
    fi
    if [ "${SB_SERVER_STATS:-off}" = on ]; then
        : >"$dir/server_stats"
    fi
    free_port >"$dir/mysql.port"
    free_port >"$dir/pgsql.port"
    while [ "$(cat "$dir/pgsql.port")" = "$(cat "$dir/mysql.port")" ]; do
        free_port >"$dir/pgsql.port"
    done
    # A failure part-way (die, or any failing command under set -e) leaves
    # nothing running; the logs stay in DIR.
    START_DIR=$dir
    trap start_failed EXIT
    mysql_setup "$dir"
    pgsql_setup "$dir"
    write_env "$dir"
    trap - EXIT
    echo "servers.sh: MariaDB on port $(cat "$dir/mysql.port") (pid $(cat "$dir/mysql.pid")), PostgreSQL on port $(cat "$dir/pgsql.port") (pid $(cat "$dir/pgsql.pid")); env in $dir/servers.env"
}

cmd_stop() {
    local dir=$1
    if [ ! -d "$dir" ]; then
        return 0
    fi
    if [ ! -e "$dir/.sb_servers" ]; then
        die "$dir was not created by servers.sh; not touching it"
    fi
    mysql_stop "$dir"
    pgsql_stop "$dir"
    rm -rf -- "$dir"
}

main() {
    [ "$#" -eq 2 ] || usage
    local cmd=$1 dir=$2
    [ -n "$dir" ] || usage
    case "$cmd" in
    start) cmd_start "$dir" ;;
    stop) cmd_stop "$dir" ;;
    start-mysql|start-pgsql|stop-mysql|stop-pgsql)
        [ -e "$dir/.sb_servers" ] || die "$dir holds no servers started by servers.sh"
        dir=$(cd "$dir" && pwd)
        case "$cmd" in
        start-mysql) pid_is "$(cat "$dir/mysql.pid" 2>/dev/null || true)" mariadbd || mysql_start "$dir" ;;
        start-pgsql) pid_is "$(cat "$dir/pgsql.pid" 2>/dev/null || true)" postgres || pgsql_start "$dir" ;;
        stop-mysql) mysql_stop "$dir" ;;
        stop-pgsql) pgsql_stop "$dir" ;;
        esac
        ;;
    *) usage ;;
    esac
}

main "$@"
