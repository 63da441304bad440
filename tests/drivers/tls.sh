#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# TLS to both servers, checked on the server side (MariaDB's Ssl_version
# and Ssl_cipher session status, PostgreSQL's pg_stat_ssl): --mysql-ssl
# preferred uses TLS when offered and plain text when not; verify_ca checks
# the CA but not the host name, verify_identity both; --mysql-ssl-cipher
# applies with TLS 1.2 names and TLS 1.3 suites; --pgsql-sslrootcert and
# friends reach libpq. A throwaway CA and a server certificate for the
# name "sbtest-server" (not 127.0.0.1, so host name checks fail) are made
# with openssl here; the servers get them for this file only.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

command -v openssl >/dev/null || { echo "FAIL: tls needs openssl"; exit 0; }

tls="$SB_SERVERS_DIR/tls"
mkdir -p "$tls"
chmod 755 "$tls"
(
    cd "$tls"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=sbtest CA" \
        -keyout ca.key -out ca.pem
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=other CA" \
        -keyout other.key -out other.pem
    openssl req -newkey rsa:2048 -nodes -subj "/CN=sbtest-server" \
        -keyout server.key -out server.csr
    printf 'subjectAltName=DNS:sbtest-server\n' >ext.cnf
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
        -extfile ext.cnf -out server.pem
    chmod 644 ./*.pem server.key
    cp server.key pg.key
    chmod 600 pg.key
    if [ "$(id -u)" -eq 0 ]; then chown postgres pg.key; fi
) >"$PWD/openssl.log" 2>&1 || { echo "FAIL: tls certificates (openssl.log)"; exit 0; }

pg_admin() {
    psql -X -q -A -t -v ON_ERROR_STOP=1 -h "$SB_PGSQL_SOCKET_DIR" -p "$SB_PGSQL_PORT" \
        -U postgres -d postgres "$@"
}
mysql_restart() {
    eval "$SB_MYSQL_STOP" >/dev/null 2>&1 || true
    eval "$SB_MYSQL_START" >/dev/null 2>&1
}
tls_on() {
    printf -- '--ssl-ca=%s\n--ssl-cert=%s\n--ssl-key=%s\n' \
        "$tls/ca.pem" "$tls/server.pem" "$tls/server.key" >"$SB_SERVERS_DIR/mysql.extra-args"
    mysql_restart
    pg_admin -c "ALTER SYSTEM SET ssl = on" -c "ALTER SYSTEM SET ssl_cert_file = '$tls/server.pem'" \
        -c "ALTER SYSTEM SET ssl_key_file = '$tls/pg.key'" -c "SELECT pg_reload_conf()" >/dev/null
    sleep 1
}
tls_off() {
    rm -f "$SB_SERVERS_DIR/mysql.extra-args"
    mysql_restart
    pg_admin -c "ALTER SYSTEM RESET ssl" -c "ALTER SYSTEM RESET ssl_cert_file" \
        -c "ALTER SYSTEM RESET ssl_key_file" -c "SELECT pg_reload_conf()" >/dev/null
    sleep 1
}
trap tls_off EXIT

# The session's TLS as the server sees it: "VERSION CIPHER", or "none none".
cat >tlsq.lua <<'LUA'
function prepare()
  local con = sysbench.sql.driver():connect()
  local q
  if sysbench.opt.db_driver == "mysql" then
    q = "SELECT IF(VARIABLE_VALUE = '', 'none', VARIABLE_VALUE) FROM information_schema.SESSION_STATUS" ..
        " WHERE VARIABLE_NAME IN ('Ssl_version', 'Ssl_cipher') ORDER BY VARIABLE_NAME DESC"
  else
    q = "SELECT coalesce(version, 'none') FROM pg_stat_ssl WHERE pid = pg_backend_pid()" ..
        " UNION ALL SELECT coalesce(cipher, 'none') FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
  end
  local rs = con:query(q)
  local out = {}
  for _ = 1, rs.nrows do out[#out + 1] = tostring(rs:fetch_row()[1]) end
  print("TLS: " .. table.concat(out, " "))
end
LUA

# expect_tls DRIVER PATTERN ARGS...: connects and the server reports a
# session whose "VERSION CIPHER" matches the extended regex PATTERN.
expect_tls() {
    local drv=$1 pattern=$2 line
    shift 2
    # shellcheck disable=SC2046
    sb_run_ok "sysbench" out.txt err.txt $(sb_driver_args "$drv") "$@" tlsq.lua prepare || return 1
    line=$(sed -n 's/^TLS: //p' out.txt)
    [[ $line =~ ^($pattern)$ ]] || { sb_fail "server reports TLS '$line', expected /$pattern/"; return 1; }
}
# expect_refused DRIVER PATTERN ARGS...: exit 1 with one FATAL line
# matching PATTERN.
expect_refused() {
    local drv=$1 pattern=$2 rc=0
    shift 2
    # shellcheck disable=SC2046
    sb_run out.txt err.txt $(sb_driver_args "$drv") "$@" tlsq.lua prepare || rc=$?
    [ "$rc" -eq 1 ] || { sb_show out.txt err.txt; sb_fail "exit $rc, expected 1"; return 1; }
    sb_expect_one_line_error err.txt "$pattern"
}

# Connections a client thread sets up together (sb_db_preconnect.h) do
# their handshake in the driver's non-blocking connect: every one of them
# must come up with TLS.
cat >tlsmux.lua <<'LUA'
function thread_init()
  con = sysbench.sql.driver():connect()
  local q
  if sysbench.opt.db_driver == "mysql" then
    q = "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS" ..
        " WHERE VARIABLE_NAME = 'Ssl_version'"
  else
    q = "SELECT coalesce(version, 'none') FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
  end
  local f = assert(io.open("tlsmux.txt", "a"))
  f:write("TLS: ", tostring(con:query(q):fetch_row()[1]), "\n")
  f:close()
end
function event() con:query("SELECT 1") end
LUA

# expect_tls_set_up DRIVER ARGS...: 60 connections on one client thread,
# each with TLS 1.2 or 1.3.
expect_tls_set_up() {
    local drv=$1 n
    shift
    rm -f tlsmux.txt
    # shellcheck disable=SC2046
    sb_run_ok "sysbench" out.txt err.txt $(sb_driver_args "$drv") "$@" --threads=60 \
        --client-threads=1 --tx-rate=60 --time=1 tlsmux.lua run || return 1
    n=$(grep -c -E '^TLS: TLSv1\.[23]$' tlsmux.txt || true)
    [ "$n" -eq 60 ] || { sb_show tlsmux.txt; sb_fail "$n of 60 connections with TLS"; return 1; }
}

tls_on
sb_case mysql-ssl-off-is-plain expect_tls mysql "none none" --mysql-ssl=off
sb_case mysql-ssl-preferred-uses-tls expect_tls mysql "TLSv1\.[23] .+" --mysql-ssl=preferred
sb_case mysql-ssl-on-uses-tls expect_tls mysql "TLSv1\.[23] .+" --mysql-ssl=on
sb_case mysql-verify-ca-accepts-the-ca-whatever-the-host expect_tls mysql "TLSv1\.[23] .+" \
    --mysql-ssl=verify_ca --mysql-ssl-ca="$tls/ca.pem"
sb_case mysql-verify-ca-refuses-another-ca expect_refused mysql "certificate" \
    --mysql-ssl=verify_ca --mysql-ssl-ca="$tls/other.pem"
sb_case mysql-verify-ca-needs-a-ca expect_refused mysql "needs --mysql-ssl-ca" --mysql-ssl=verify_ca
sb_case mysql-verify-identity-checks-the-host-name expect_refused mysql "certificate" \
    --mysql-ssl=verify_identity --mysql-ssl-ca="$tls/ca.pem"
sb_case mysql-tls12-cipher-is-used expect_tls mysql "TLSv1\.2 ECDHE-RSA-AES128-GCM-SHA256" \
    --mysql-ssl=on --mysql-ssl-cipher=ECDHE-RSA-AES128-GCM-SHA256
# Over the Unix socket, a server with TLS gives TLS (so --mysql-ssl=on,
# which refuses a socket without it, still works there).
sb_case mysql-ssl-on-over-the-socket-uses-tls expect_tls mysql "TLSv1\.[23] .+" \
    --mysql-ssl=on --mysql-socket="$SB_MYSQL_SOCKET"
sb_case mysql-tls13-suite-is-used expect_tls mysql "TLSv1\.3 TLS_AES_128_GCM_SHA256" \
    --mysql-ssl=on --mysql-ssl-cipher=TLS_AES_128_GCM_SHA256
sb_case mysql-ssl-on-connections-set-up-together expect_tls_set_up mysql --mysql-ssl=on

export HOME="$PWD" # no ~/.postgresql of the machine's user
sb_case pgsql-require-connections-set-up-together expect_tls_set_up pgsql --pgsql-sslmode=require
sb_case pgsql-disable-is-plain expect_tls pgsql "none none" --pgsql-sslmode=disable
sb_case pgsql-prefer-uses-tls expect_tls pgsql "TLSv1\.[23] .+" --pgsql-sslmode=prefer
sb_case pgsql-verify-ca-with-sslrootcert expect_tls pgsql "TLSv1\.[23] .+" \
    --pgsql-sslmode=verify-ca --pgsql-sslrootcert="$tls/ca.pem"
sb_case pgsql-verify-ca-refuses-another-ca expect_refused pgsql "certificate verify failed" \
    --pgsql-sslmode=verify-ca --pgsql-sslrootcert="$tls/other.pem"
sb_case pgsql-verify-full-checks-the-host-name expect_refused pgsql "does not match host name" \
    --pgsql-sslmode=verify-full --pgsql-sslrootcert="$tls/ca.pem"
sb_case pgsql-missing-client-cert-is-an-error expect_refused pgsql "cannot read the --pgsql-sslcert file" \
    --pgsql-sslmode=require --pgsql-sslcert="$PWD/nonexistent.pem"

tls_off
trap - EXIT
sb_case mysql-ssl-preferred-falls-back-to-plain expect_tls mysql "none none" --mysql-ssl=preferred
sb_case mysql-ssl-on-refuses-a-server-without-tls expect_refused mysql "SSL|TLS" --mysql-ssl=on
