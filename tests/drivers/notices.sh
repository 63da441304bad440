#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What the PostgreSQL server says outside a statement's result goes
# through sysbench's log (issue 30, item 9), so that only sysbench's own
# lines say FATAL, and only when the run fails:
#   - messages the server sends while a connection starts (here DEBUG
#     lines asked for with PGOPTIONS, the same route as the "FATAL:
#     terminating connection" of a session killed as it starts) never
#     reach stderr as libpq's own "DEBUG:  ..." lines; at --verbosity=4
#     they are sysbench lines, "pgsql: notice from the server: ...";
#     RAISE NOTICE and RAISE WARNING in a statement the same;
#   - sessions killed again and again while --reconnect=1 connects in
#     every event: the run ends 0 and no line of its output says FATAL;
#   - a run that fails (a wrong password): one FATAL line, sysbench's,
#     with libpq's "FATAL:  " taken out of the server's message.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

cat >connect.lua <<'LUA'
function event()
  local con = sysbench.sql.driver():connect()
  con:disconnect()
end
LUA

cat >raise.lua <<'LUA'
function event()
  local con = sysbench.sql.driver():connect()
  con:query("DO $$ BEGIN RAISE NOTICE 'note-%', 41 + 1; RAISE WARNING 'warn-%', 6 * 7; END $$")
  con:disconnect()
end
LUA

# not_libpq FILE...: no line is one of libpq's own (a severity word, a
# colon and two spaces).
not_libpq() {
    if grep -E -n '^(DEBUG|LOG|INFO|NOTICE|WARNING|ERROR|FATAL|PANIC):  ' "$@"; then
        sb_fail "libpq's own lines reached the output"
        return 1
    fi
}

startup_messages() {
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args pgsql))
    PGOPTIONS='-c client_min_messages=debug5' sb_run_ok "the run" out.txt err.txt "${args[@]}" \
        connect.lua --events=2 run || return 1
    not_libpq out.txt err.txt || return 1
    sb_expect_absent "CommitTransaction" out.txt err.txt || return 1
    PGOPTIONS='-c client_min_messages=debug5' sb_run_ok "the run at --verbosity=4" out4.txt \
        err4.txt "${args[@]}" connect.lua --events=1 --verbosity=4 run || return 1
    not_libpq out4.txt err4.txt || return 1
    grep -E '^pgsql: notice from the server: (Start|Commit)Transaction' out4.txt | head -n 2
    if ! grep -q -E '^pgsql: notice from the server: (Start|Commit)Transaction' out4.txt; then
        sb_show out4.txt
        sb_fail "no server notice in sysbench's log at --verbosity=4"
        return 1
    fi
    sb_run_ok "RAISE" rout.txt rerr.txt "${args[@]}" raise.lua --events=1 run || return 1
    sb_expect_absent "note-42" rout.txt rerr.txt || return 1
    sb_run_ok "RAISE at --verbosity=4" rout4.txt rerr4.txt "${args[@]}" raise.lua --events=1 \
        --verbosity=4 run || return 1
    not_libpq rout4.txt rerr4.txt || return 1
    grep -q -x 'pgsql: notice from the server: note-42' rout4.txt &&
        grep -q -x 'pgsql: warning from the server: warn-42' rout4.txt || {
        sb_show rout4.txt rerr4.txt
        sb_fail "RAISE NOTICE and WARNING are not sysbench lines at --verbosity=4"
        return 1
    }
}

killed_sessions() {
    local i rc pid total
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args pgsql) oltp_point_select --tables=1 --table-size=1000)
    sb_run clean0.txt clean0.err "${args[@]}" cleanup || true
    sb_run_ok prepare prep.txt prep.err "${args[@]}" prepare || return 1
    for i in 1 2; do
        rc=0
        rm -f "out$i.txt" "err$i.txt"  # a previous case's output must not be read as this run's
        timeout -k 5 "$SB_CASE_TIMEOUT" "$SB_BIN" "${args[@]}" --threads=4 --time=10 \
            --reconnect=1 run >"out$i.txt" 2>"err$i.txt" &
        pid=$!
        # Kills start once the run does: a session killed in thread_init
        # (before any event) ends the run, as it always did.
        for _ in $(seq 600); do
            grep -q '^Threads started!' "out$i.txt" && break
            sleep 0.1
        done
        # 5 s of kills from one session (sb_pg_kill_for), well inside the
        # 10-s run: 24 psql calls took longer than the run at load 30-56
        # and found no session in 2 of 3 tries.
        total=$(sb_pg_kill_for 5)
        wait "$pid" || rc=$?
        echo "+ run $i: killed $total sessions; exit $rc"
        [ "$rc" -eq 0 ] || { sb_show "out$i.txt" "err$i.txt"; sb_fail "run $i exited with $rc"; return 1; }
        [ "$total" -ge 1 ] || { sb_fail "run $i: the killer found no sessions"; return 1; }
        if grep -n FATAL "out$i.txt" "err$i.txt"; then
            sb_fail "run $i succeeded, yet its output says FATAL"
            return 1
        fi
    done
    sb_run clean.txt clean.err "${args[@]}" cleanup || true
}

failed_run() {
    local rc=0
    sb_run out.txt err.txt --db-driver=pgsql --pgsql-host="$SB_PGSQL_HOST" \
        --pgsql-port="$SB_PGSQL_PORT" --pgsql-user=sbtest --pgsql-password=wrong-Pw-7 \
        --pgsql-db=sbtest connect.lua --events=1 run || rc=$?
    [ "$rc" -eq 1 ] || { sb_show out.txt err.txt; sb_fail "exit $rc, expected 1"; return 1; }
    # The server's words, then where the user and password came from
    # (the access-denied hint), on one line.
    sb_expect_one_line_error err.txt \
        '^FATAL: connection to the database failed: pgsql: error 0 \(28P01\): connection to server at .* failed: password authentication failed for user "sbtest" \(user set by --pgsql-user, password by --pgsql-password; .*\)$' ||
        return 1
    [ "$(grep -o FATAL out.txt err.txt | wc -l)" -eq 1 ] || {
        sb_show out.txt err.txt
        sb_fail "FATAL appears more than once"
        return 1
    }
}

sb_case "pgsql-server-messages-go-through-our-log" startup_messages
sb_case "pgsql-killed-sessions-print-no-FATAL-in-a-run-that-succeeds" killed_sessions
sb_case "pgsql-a-failed-run-has-one-FATAL-line-its-own" failed_run
