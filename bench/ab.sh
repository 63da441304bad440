#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# sysbench ab on labelled comparisons (issue 27): how often it is wrong
# when nothing differs, and how often it finds a difference that is there,
# within a budget, on two throwaway server instances that this script
# starts (tests/harness/servers.sh, twice: two MariaDB and two PostgreSQL
# servers, identical but for what an experiment sets).
#
#   bench/ab.sh EXPERIMENT [EXPERIMENT ...]
#
#   aa-duet         N A/A comparisons (two identical MariaDB instances),
#                   side by side: any better/worse is false
#   aa-interleaved  the same, one after the other
#   flush           N comparisons of innodb_flush_log_at_trx_commit 2 (a)
#                   against 1 (b) on oltp_write_only, closed loop (primary:
#                   throughput), each within a 3-minute budget
#   userstat-ref    the long reference of userstat=ON (b) against OFF (a)
#                   at a fixed rate (primary: server CPU per transaction):
#                   REF_ROUNDS rounds side by side and REF_ROUNDS rounds
#                   of each server alone (interleaved), each judged once
#                   at the end (--stop=end); the two estimates must agree
#   userstat        N comparisons of that effect, each within a 10-minute
#                   budget
#   pg-aa           N A/A comparisons of two PostgreSQL instances, duet
#   pg-effect       N comparisons of durable commits (fsync and
#                   synchronous_commit on) in a against the harness's
#                   off in b, on oltp_write_only, closed loop
#
# Env: SB_BIN (our binary), OUT (result directory, kept; default a new
# one under TMPDIR), N (comparisons; 40 for A/A, 20 for flush and
# pg-effect, 10 for userstat), ROUND (each round's --time), BUDGET (each
# comparison's --budget), THREADS (2 per target), RATE (per target, for
# userstat: 1500), REF_ROUNDS (20), US_SCRIPT (the userstat experiments'
# workload, default oltp_point_select: about +11% server CPU per
# transaction; oltp_read_only dilutes it), US_OPTS (more options of that
# workload, split on spaces, e.g. "--range-size=1000": longer statements
# dilute userstat's cost per transaction further), SET_A and SET_B (the
# statements that make the two servers differ in the userstat
# experiments, default userstat 0 and 1: any other global setting can be
# compared the same way, e.g. SET_B="SET GLOBAL tx_isolation =
# 'READ-COMMITTED'" with SET_A="SET GLOBAL tx_isolation =
# 'REPEATABLE-READ'"). The 3-5% effect of bench/README.md:
# US_SCRIPT=oltp_read_only US_OPTS=--range-size=500 RATE=100. HOG=1 (two busy loops at nice 0 for
# the experiment's whole length, the "loaded machine").
#
# Prints per experiment the verdicts, rounds and minutes; every ab
# document is kept in OUT/EXPERIMENT/cK.json for a second look.
set -euo pipefail
source "$(dirname "$0")/common.sh"

[[ -n "${SB_BIN:-}" && -x "$SB_BIN" ]] || { echo "set SB_BIN" >&2; exit 2; }
TOP=$(cd "$BENCH_DIR/.." && pwd)
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/sbab.XXXXXX")}
THREADS=${THREADS:-2}
RATE=${RATE:-1500}
REF_ROUNDS=${REF_ROUNDS:-20}
US_SCRIPT=${US_SCRIPT:-oltp_point_select}
SET_A=${SET_A:-SET GLOBAL userstat = 0}
SET_B=${SET_B:-SET GLOBAL userstat = 1}
read -r -a US_OPTS <<<"${US_OPTS:-}"
mkdir -p "$OUT"
chmod 755 "$OUT"

SRV1=$OUT/s1
SRV2=$OUT/s2
HOGS=()
cleanup() {
    [[ ${#HOGS[@]} -gt 0 ]] && kill "${HOGS[@]}" 2>/dev/null || true
    bash "$TOP/tests/harness/servers.sh" stop "$SRV1" >/dev/null 2>&1 || true
    bash "$TOP/tests/harness/servers.sh" stop "$SRV2" >/dev/null 2>&1 || true
}
trap cleanup EXIT

start_servers() {
    [[ -f $SRV1/servers.env ]] && return 0
    bash "$TOP/tests/harness/servers.sh" start "$SRV1" >"$OUT/s1.log" 2>&1
    bash "$TOP/tests/harness/servers.sh" start "$SRV2" >"$OUT/s2.log" 2>&1
    # shellcheck disable=SC1091
    MA=$(source "$SRV1/servers.env"; echo "--mysql-socket=$SB_MYSQL_SOCKET")
    MB=$(source "$SRV2/servers.env"; echo "--mysql-socket=$SB_MYSQL_SOCKET")
    PA=$(source "$SRV1/servers.env"; echo "--pgsql-host=$SB_PGSQL_SOCKET_DIR --pgsql-port=$SB_PGSQL_PORT")
    PB=$(source "$SRV2/servers.env"; echo "--pgsql-host=$SB_PGSQL_SOCKET_DIR --pgsql-port=$SB_PGSQL_PORT")
    MYCOMMON=(--db-driver=mysql --mysql-user=sbtest --mysql-password=sbpass --mysql-db=sbtest)
    PGCOMMON=(--db-driver=pgsql --pgsql-user=sbtest --pgsql-password=sbpass --pgsql-db=sbtest)
}

# sql SRV WHICH STATEMENT: run a statement on server set SRV's mysql or pgsql.
sql() {
    # shellcheck disable=SC1091
    (source "$1/servers.env"
     if [[ $2 == mysql ]]; then
         mariadb --no-defaults -S "$SB_MYSQL_SOCKET" -uroot -e "$3"
     else
         runuser -u postgres -- psql -q -h "$SB_PGSQL_SOCKET_DIR" -p "$SB_PGSQL_PORT" -d sbtest -U postgres -c "$3"
     fi)
}

prepare() { # DRIVER SCRIPT
    local a=$MA b=$MB common=("${MYCOMMON[@]}")
    if [[ $1 == pgsql ]]; then a=$PA; b=$PB; common=("${PGCOMMON[@]}"); fi
    "$SB_BIN" ab --a="$a" --b="$b" "${common[@]}" "$2" --tables=4 cleanup >/dev/null 2>&1 || true
    "$SB_BIN" ab --a="$a" --b="$b" "${common[@]}" "$2" --tables=4 --table-size=10000 \
        --threads=2 prepare >"$OUT/prepare-$1.log" 2>&1
}

hog_on() {
    [[ ${HOG:-0} == 1 ]] || return 0
    for _ in 1 2; do (while :; do :; done) & HOGS+=($!); done
}
hog_off() {
    [[ ${#HOGS[@]} -gt 0 ]] && kill "${HOGS[@]}" 2>/dev/null || true
    HOGS=()
}

# compare EXP K ARGS...: one ab comparison, its document OUT/EXP/cK.json.
compare() {
    local exp=$1 k=$2
    shift 2
    mkdir -p "$OUT/$exp"
    "$SB_BIN" ab "$@" --json="$OUT/$exp/c$k.json" >"$OUT/$exp/c$k.out" 2>&1 ||
        echo "comparison $k failed: $(tail -1 "$OUT/$exp/c$k.out")" >&2
    printf '%s %s: %s\n' "$exp" "$k" "$(grep '^Verdict' "$OUT/$exp/c$k.out" | head -1)"
}

# summary EXP: the verdicts of the experiment's documents.
summary() {
    python3 - "$OUT/$1" <<'PY'
import glob, json, statistics, sys
docs = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/c*.json"))]
if not docs:
    sys.exit(print("no comparisons"))
v = {}
for d in docs:
    v[d["verdict"]["verdict"]] = v.get(d["verdict"]["verdict"], 0) + 1
rounds = [d["rounds_run"] for d in docs]
mins = [sum(r["wall_s"] for r in d["rounds"]) / 60 for d in docs]
ratios = [d["verdict"]["ratio"] for d in docs]
det = [d["verdict"]["detectable"] for d in docs if d["verdict"]["detectable"] is not None]
bias = [f["position_bias"] for d in docs for f in d["figures"] if f["primary"]]
print(f"{len(docs)} comparisons, primary {docs[0]['primary']}: " +
      ", ".join(f"{k} {n}" for k, n in sorted(v.items())))
print(f"  rounds median {statistics.median(rounds)} (max {max(rounds)}), minutes median "
      f"{statistics.median(mins):.1f} (max {max(mins):.1f})")
print(f"  ratio median {statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})"
      + (f", detectable median {100 * statistics.median(det):.1f}%" if det else "")
      + (f", position bias median {100 * statistics.median(bias):+.1f}%" if bias else ""))
PY
}

aa() { # MODE
    local exp=aa-$1 n=${N:-40}
    start_servers
    prepare mysql oltp_point_select
    hog_on
    for k in $(seq 1 "$n"); do
        compare "$exp" "$k" --mode="$1" --a="$MA" --b="$MB" "${MYCOMMON[@]}" oltp_point_select \
            --tables=4 --table-size=10000 --threads="$THREADS" --time="${ROUND:-3}" \
            --budget="${BUDGET:-60s}"
    done
    hog_off
    summary "$exp"
}

flush() {
    local n=${N:-20}
    start_servers
    prepare mysql oltp_write_only
    sql "$SRV1" mysql "SET GLOBAL innodb_flush_log_at_trx_commit = 2"
    sql "$SRV2" mysql "SET GLOBAL innodb_flush_log_at_trx_commit = 1"
    hog_on
    for k in $(seq 1 "$n"); do
        compare flush "$k" --a="$MA" --b="$MB" "${MYCOMMON[@]}" oltp_write_only \
            --tables=4 --table-size=10000 --threads="$THREADS" --time="${ROUND:-5}" \
            --budget="${BUDGET:-3m}"
    done
    hog_off
    sql "$SRV2" mysql "SET GLOBAL innodb_flush_log_at_trx_commit = 2"
    summary flush
}

userstat_setup() {
    start_servers
    prepare mysql "$US_SCRIPT"
    sql "$SRV1" mysql "$SET_A"
    sql "$SRV2" mysql "$SET_B"
}

userstat_ref() {
    userstat_setup
    for mode in duet interleaved; do
        compare userstat-ref "$mode" --mode="$mode" --stop=end --rounds="$REF_ROUNDS" \
            --budget=2h --a="$MA" --b="$MB" "${MYCOMMON[@]}" "$US_SCRIPT" "${US_OPTS[@]}" \
            --tables=4 --table-size=10000 --threads="$THREADS" --tx-rate="$RATE" --time="${ROUND:-10}"
    done
    summary userstat-ref
}

userstat() {
    local n=${N:-10}
    userstat_setup
    hog_on
    for k in $(seq 1 "$n"); do
        compare userstat "$k" --a="$MA" --b="$MB" "${MYCOMMON[@]}" "$US_SCRIPT" "${US_OPTS[@]}" \
            --tables=4 --table-size=10000 --threads="$THREADS" --tx-rate="$RATE" \
            --time="${ROUND:-10}" --budget="${BUDGET:-10m}"
    done
    hog_off
    summary userstat
}

# pg_series NAME N SCRIPT ROUND BUDGET: N comparisons of the two PostgreSQL
# targets on SCRIPT, under the hog when HOG=1.
pg_series() {
    local k
    hog_on
    for k in $(seq 1 "$2"); do
        compare "$1" "$k" --a="$PA" --b="$PB" "${PGCOMMON[@]}" "$3" \
            --tables=4 --table-size=10000 --threads="$THREADS" --time="$4" --budget="$5"
    done
    hog_off
}

pg_aa() {
    local n=${N:-40}
    start_servers
    prepare pgsql oltp_point_select
    pg_series pg-aa "$n" oltp_point_select "${ROUND:-3}" "${BUDGET:-60s}"
    summary pg-aa
}

pg_effect() {
    local n=${N:-20}
    start_servers
    prepare pgsql oltp_write_only
    # The harness's servers run with fsync and synchronous_commit off
    # (tests/harness/servers.sh): a durable commit is turned on in A, B
    # keeps the harness's settings. (Setting only synchronous_commit off
    # in B compared two identical servers: an A/A run, kept as such.)
    sql "$SRV1" pgsql "ALTER SYSTEM SET fsync = on"
    sql "$SRV1" pgsql "ALTER SYSTEM SET synchronous_commit = on"
    sql "$SRV1" pgsql "SELECT pg_reload_conf()"
    pg_series pg-effect "$n" oltp_write_only "${ROUND:-5}" "${BUDGET:-3m}"
    sql "$SRV1" pgsql "ALTER SYSTEM RESET fsync"
    sql "$SRV1" pgsql "ALTER SYSTEM RESET synchronous_commit"
    sql "$SRV1" pgsql "SELECT pg_reload_conf()"
    summary pg-effect
}

[[ $# -gt 0 ]] || { sed -n '4,40p' "$0"; exit 2; }
echo "results in $OUT (load: $(cut -d' ' -f1-3 /proc/loadavg))"
for e in "$@"; do
    case $e in
        aa-duet) aa duet ;;
        aa-interleaved) aa interleaved ;;
        flush) flush ;;
        userstat-ref) userstat_ref ;;
        userstat) userstat ;;
        pg-aa) pg_aa ;;
        pg-effect) pg_effect ;;
        *) echo "unknown experiment: $e" >&2; exit 2 ;;
    esac
done
echo "done (load: $(cut -d' ' -f1-3 /proc/loadavg))"
