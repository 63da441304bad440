#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# CPU cost per transaction must measure the server, not just print a
# number: a transaction whose server work is ten times heavier must show
# about ten times the server CPU per transaction while the client's CPU per
# transaction stays put, the server processes must be the harness's own
# server, and no utilisation may exceed 100% of the machine.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

# The server burns CPU in proportion to --work; the client does the same
# small amount of work whatever --work is.
cat >work.lua <<'LUA'
sysbench.cmdline.options = {
  work = {"server-side iterations per transaction", 1000},
}
function thread_init()
  con = sysbench.sql.driver():connect()
  local n = sysbench.opt.work
  if sysbench.opt.db_driver == "mysql" then
    sql = string.format("SELECT BENCHMARK(%d, MD5('sysbench'))", n)
  else
    sql = string.format("SELECT count(*) FROM generate_series(1, %d)", n)
  end
end
function event()
  con:query_row(sql)
end
LUA

# cpu_total OUT ROW: the "total" column (us per transaction) of a row of
# the CPU section.
cpu_total() {
    awk -v row="$2:" '$1 == row { print $4 }' "$1"
}

check_utilisation() {
    local f=$1 u
    for u in $(awk '$1 ~ /^(client|server|machine):$/ && $5 ~ /%$/ { sub("%", "", $5); print $5 }' "$f"); do
        if awk -v u="$u" 'BEGIN { exit !(u > 100) }'; then
            sb_fail "utilisation $u% exceeds 100%"
            return 1
        fi
    done
}

heavier_work() {
    local drv=$1 light heavy pid
    if [ "$drv" = mysql ]; then light=50000; pid=$SB_MYSQL_PID; else light=200000; pid=$SB_PGSQL_PID; fi
    # A case file that restarted the server left its current pid here.
    pid=$(head -n 1 "$SB_SERVERS_DIR/$drv.pid" 2>/dev/null || echo "$pid")
    heavy=$((light * 10))
    # The two runs hold a fixed amount of server work (about 6 and 12 s
    # of CPU); at load 50 the server gets 2% of the machine and the heavy
    # run took over 240 s, killed at the 120 s bound. What is checked
    # are CPU ratios, not times: the bound here only catches a hang.
    local SB_CASE_TIMEOUT=$(( ${SB_CASE_TIMEOUT:-120} > 900 ? SB_CASE_TIMEOUT : 900 ))
    # Tenfold work must show as a server ratio between 3 and 30: CI saw
    # 4.72 on PostgreSQL with the machine 100% busy (47% of it system
    # time), the light run's 62 ms per transaction twice its work; a
    # server figure that did not follow the work would stay near 1.
    # The server's background work in the window (autovacuum workers
    # reaped as children, checkpoints after earlier cases) is a fixed
    # amount of CPU, up to about a second seen under load: the light run
    # has five times the events, so that it adds under a tenth of its work.
    # shellcheck disable=SC2046
    sb_run_ok "the light run" light.txt light.err $(sb_driver_args "$drv") --threads=1 --verbosity=4 \
        --events=200 --time=0 work.lua run --work="$light" || return 1
    # shellcheck disable=SC2046
    sb_run_ok "the heavy run" heavy.txt heavy.err $(sb_driver_args "$drv") --threads=1 --verbosity=4 \
        --events=40 --time=0 work.lua run --work="$heavy" || return 1
    sb_show light.txt heavy.txt | grep -A8 "CPU cost" || true
    grep -q "server processes: pid $pid" light.txt ||
        { sb_fail "the server processes are not the harness's server (pid $pid)"; return 1; }
    check_utilisation light.txt || return 1
    check_utilisation heavy.txt || return 1
    awk -v l="$(cpu_total light.txt server)" -v h="$(cpu_total heavy.txt server)" \
        'BEGIN { r = h / l; printf "server ratio %.2f\n", r; exit !(r >= 3 && r <= 30) }' ||
        { sb_fail "server CPU per transaction did not grow about tenfold"; return 1; }
    # The client's own cost is a few hundred microseconds per transaction,
    # near the resolution of process CPU times over 40 events, so its ratio
    # swings with machine load (3.2x seen on a busy machine). What must
    # hold is that the server's added work is not charged to the client:
    # the client's growth stays under 5% of the server's.
    awk -v cl="$(cpu_total light.txt client)" -v ch="$(cpu_total heavy.txt client)" \
        -v sl="$(cpu_total light.txt server)" -v sh="$(cpu_total heavy.txt server)" \
        'BEGIN { d = ch - cl; s = sh - sl
                 printf "client growth %.1f us against the server'"'"'s %.1f us\n", d, s
                 exit !(s > 0 && d < 0.05 * s) }' ||
        { sb_fail "client CPU per transaction grew with server work"; return 1; }
}

for drv in mysql pgsql; do
    sb_case "$drv-cpu-follows-server-work" heavier_work "$drv"
done
