#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Transaction mixes (SCRIPT@WEIGHT ...) against real servers: the three
# bundled scripts at 70/20/10 over 10,000 transactions, each type's share
# within 1% of its weight, and each type's count equal to what the server
# itself counted (MariaDB: Com_select, Com_update, Com_insert;
# PostgreSQL: pg_stat_user_tables' idx_scan, n_tup_upd, n_tup_ins on the
# tables), with a thread per connection and with connections multiplexed
# over one client thread (--client-threads, one Lua state for all).

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

MIX="oltp_point_select@70 oltp_update_index@20 oltp_insert@10 --tables=2 --table-size=1000"

# The server's counters, as "select update insert". MariaDB's count
# statements of every session (the administrator's SHOW is none of
# them); PostgreSQL's count index scans (a point select and an update by
# id are one each), rows updated and rows inserted on the tables.
server_counts() {
    case "$1" in
    mysql)
        sb_cli mysql "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_select','Com_update','Com_insert')" |
            awk '{ v[$1] = $2 } END { print v["Com_select"], v["Com_update"], v["Com_insert"] }'
        ;;
    pgsql)
        sb_cli pgsql "SELECT COALESCE(sum(idx_scan), 0), sum(n_tup_upd), sum(n_tup_ins)
                      FROM pg_stat_user_tables WHERE relname LIKE 'sbtest%'" | tr '\t' ' '
        ;;
    esac
}

# types JSON: "select update insert" events of the run's types, as the
# server counts them (PostgreSQL: an update is also an index scan).
expected_counts() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
ev = {t["name"]: t["events"] for t in p["types"]}
s, u, i = ev["oltp_point_select"], ev["oltp_update_index"], ev["oltp_insert"]
print(s + u if sys.argv[2] == "pgsql" else s, u, i)
EOF
}

# One run of the mix with ARGS, checked against the server's counters.
# PostgreSQL publishes a backend's counts when it ends, shortly after the
# client has gone: up to 10 s are given for them to arrive.
run_against_server() {
    local drv=$1 tag=$2 before after want d
    shift 2
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv"))
    before=$(server_counts "$drv")
    sb_run_ok "the run" "$tag.txt" "$tag.err" "${args[@]}" $MIX --json="$tag.json" "$@" run ||
        return 1
    want=$(expected_counts "$tag.json" "$drv")
    for _ in $(seq 20); do
        after=$(server_counts "$drv")
        d=$(awk -v a="$after" -v b="$before" 'BEGIN { split(a, x, " "); split(b, y, " ");
            print x[1] - y[1], x[2] - y[2], x[3] - y[3] }')
        [ "$d" = "$want" ] && break
        sleep 0.5
    done
    if [ "$d" != "$want" ]; then
        sb_show "$tag.txt"
        sb_fail "$tag: the server counted '$d' (select update insert), the run's types '$want'"
        return 1
    fi
    echo "$tag: server $d, types $want"
}

mix_against_server() {
    local drv=$1
    local -a args
    # shellcheck disable=SC2207
    args=($(sb_driver_args "$drv"))
    sb_run "c0.txt" "c0.err" "${args[@]}" $MIX cleanup || true
    sb_run_ok prepare p.txt p.err "${args[@]}" $MIX prepare || return 1
    # One connection, one seed: a fixed sequence of 10,000 types.
    run_against_server "$drv" single --threads=1 --events=10000 --time=0 --rand-seed=5 || return 1
    python3 - single.json <<'EOF' || { sb_fail "shares off their weights"; return 1; }
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
ev = {t["name"]: t["events"] for t in p["types"]}
assert sum(ev.values()) == p["final"]["events"] == 10000, ev
for name, w in (("oltp_point_select", 70), ("oltp_update_index", 20), ("oltp_insert", 10)):
    assert abs(100.0 * ev[name] / 10000 - w) < 1.0, ev
print("shares", ev)
EOF
    # Six connections on one client thread: one Lua state, each
    # connection with its three scripts' globals and statements.
    run_against_server "$drv" mux --threads=6 --client-threads=1 --events=3000 --time=0 || return 1
    grep -q '^Client threads: 1 ' mux.txt || { sb_show mux.txt; sb_fail "the run was not multiplexed"; return 1; }
    sb_run c1.txt c1.err "${args[@]}" $MIX cleanup || true
}

sb_case mysql-mix-against-server mix_against_server mysql
sb_case pgsql-mix-against-server mix_against_server pgsql
