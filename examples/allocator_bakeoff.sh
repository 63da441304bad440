#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Allocator bake-off: the same MariaDB server run twice, first with the C
# library's malloc, then with jemalloc preloaded (LD_PRELOAD), on the same
# data. For each build it sweeps oltp_read_write over 1, 2, 4 and 8
# threads and then holds a fixed transaction rate (half the first build's
# best throughput) to read the server's CPU cost per transaction at equal
# load; finally it compares the runs and draws the charts.
#
# Usage: examples/allocator_bakeoff.sh [--quick] [OUTDIR]
#
#   --quick   shorter runs (about 3 minutes instead of 5 on 2 cores)
#   OUTDIR    where the result files and charts go (default: ./bakeoff)
#
# Environment: SYSBENCH (the sysbench binary; default: this project's
# build/ from scripts/quickstart.sh, else one on PATH that has --json), JEMALLOC (the
# library to preload; default: Debian's libjemalloc2), THREADS (the sweep,
# default 1,2,4,8).
#
# Needs mariadb-server (mariadbd, mariadb-install-db, mariadb), libjemalloc2,
# python3 and gnuplot. The server is a throwaway one: its own data
# directory under a temporary directory, its own socket and loopback port,
# started and stopped by this script (also on Ctrl-C or an error).

set -euo pipefail

QUICK=0
OUT=bakeoff
for a in "$@"; do
    case "$a" in
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option: $a" >&2; exit 2 ;;
    *) OUT=$a ;;
    esac
done

if [ -z "${SYSBENCH:-}" ]; then
    # This project's binary: the quickstart build, then one on PATH that
    # knows --json (Debian's sysbench 1.0 does not).
    top=$(cd "$(dirname "$0")/.." && pwd)
    for cand in "$top/build/sysbench/sysbench" "$top/sysbench/sysbench" "$(command -v sysbench || true)"; do
        if [ -n "$cand" ] && [ -x "$cand" ] && "$cand" --help 2>/dev/null | grep -q -- '--json'; then
            SYSBENCH=$cand
            break
        fi
    done
    if [ -z "${SYSBENCH:-}" ]; then
        echo "allocator_bakeoff: no sysbench with --json found: build this project (scripts/quickstart.sh) or set SYSBENCH=" >&2
        exit 1
    fi
fi
JEMALLOC=${JEMALLOC:-/usr/lib/x86_64-linux-gnu/libjemalloc.so.2}
THREADS=${THREADS:-1,2,4,8}
MARIADBD=$(command -v mariadbd || echo /usr/sbin/mariadbd)

if [ "$QUICK" = 1 ]; then
    POINT_S=8; HOLD_S=15; WARMUP_S=2; COOLDOWN_S=1
else
    POINT_S=20; HOLD_S=30; WARMUP_S=5; COOLDOWN_S=2
fi
# Small tables and a buffer pool that holds them, so that the server is
# CPU-bound (as in the original bake-off) and the allocator matters.
TABLES=4
TABLE_SIZE=20000

die() { echo "allocator_bakeoff: $*" >&2; exit 1; }

for t in "$MARIADBD" mariadb-install-db mariadb python3 gnuplot; do
    command -v "$t" >/dev/null 2>&1 || [ -x "$t" ] || die "missing $t (apt-get install mariadb-server python3 gnuplot-nox)"
done
[ -x "$SYSBENCH" ] || die "sysbench binary not found: $SYSBENCH (set SYSBENCH=)"
[ -r "$JEMALLOC" ] || die "jemalloc not found at $JEMALLOC (apt-get install libjemalloc2, or set JEMALLOC=)"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bakeoff.XXXXXX")
SERVER_PID=

stop_server() {
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID"
        for _ in $(seq 1 300); do
            kill -0 "$SERVER_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -0 "$SERVER_PID" 2>/dev/null && kill -KILL "$SERVER_PID"
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    SERVER_PID=
}
cleanup() {
    stop_server
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A loopback port nobody listens on now.
free_port() {
    local p
    for _ in $(seq 1 200); do
        p=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return 0
        fi
    done
    die "no free loopback port"
}
PORT=$(free_port)

# start_server NAME [PRELOAD]: starts mariadbd on the shared data
# directory, with PRELOAD in LD_PRELOAD when given, and waits until it
# answers. --no-defaults keeps the machine's my.cnf out.
start_server() {
    local name=$1 preload=${2:-} up=0
    rm -f "$WORK/mysql.sock"
    env ${preload:+LD_PRELOAD="$preload"} "$MARIADBD" --no-defaults \
        --datadir="$WORK/data" --tmpdir="$WORK/tmp" \
        --socket="$WORK/mysql.sock" --port="$PORT" --bind-address=127.0.0.1 \
        --pid-file="$WORK/mariadbd.pid" --log-error="$WORK/error-$name.log" \
        --user="$(id -un)" --skip-name-resolve --skip-log-bin \
        --innodb-buffer-pool-size=256M --innodb-log-file-size=128M \
        --innodb-flush-log-at-trx-commit=2 --innodb-use-native-aio=0 \
        --max-connections=200 </dev/null >>"$WORK/stdout.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 300); do
        kill -0 "$SERVER_PID" 2>/dev/null || { tail -n 20 "$WORK/error-$name.log" >&2; die "mariadbd exited while starting"; }
        if mariadb --no-defaults -S "$WORK/mysql.sock" -uroot -e 'SELECT 1' >/dev/null 2>&1; then
            up=1
            break
        fi
        sleep 0.1
    done
    [ "$up" = 1 ] || { tail -n 20 "$WORK/error-$name.log" >&2; die "mariadbd did not accept connections within 30 s"; }
    # Show which allocator the server really runs with.
    if grep -q jemalloc "/proc/$SERVER_PID/maps"; then
        echo "== $name: mariadbd pid $SERVER_PID, jemalloc mapped ($(grep -m1 -o '/[^ ]*jemalloc[^ ]*' "/proc/$SERVER_PID/maps"))"
    else
        echo "== $name: mariadbd pid $SERVER_PID, no jemalloc mapped (C library malloc)"
    fi
    [ -z "$preload" ] || grep -q jemalloc "/proc/$SERVER_PID/maps" || die "LD_PRELOAD=$preload did not take effect"
}

# warm_up: an unmeasured run after each start, so that both builds begin
# their measurements with the same warm buffer pool and LuaJIT traces.
warm_up() {
    run oltp_read_write run "${SB_ARGS[@]}" --threads=2 --time=$WARMUP_S >/dev/null
}

SB_ARGS=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$PORT"
         --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest
         --tables=$TABLES --table-size=$TABLE_SIZE --rand-seed=42)

run() {
    echo "+ sysbench $*" | sed "s|--mysql-port=$PORT|--mysql-port=PORT|" >&2
    "$SYSBENCH" "$@"
}

# ---------------------------------------------------------------- setup
echo "== creating a throwaway MariaDB in $WORK"
mkdir -p "$WORK/data" "$WORK/tmp"
mariadb-install-db --no-defaults --datadir="$WORK/data" --user="$(id -un)" \
    --auth-root-authentication-method=normal --skip-name-resolve --skip-test-db \
    >"$WORK/install.log" 2>&1 || { tail -n 20 "$WORK/install.log" >&2; die "mariadb-install-db failed"; }

start_server system
mariadb --no-defaults -S "$WORK/mysql.sock" -uroot <<'SQL'
CREATE DATABASE sbtest;
CREATE USER 'sbtest'@'127.0.0.1' IDENTIFIED BY 'sbtest';
GRANT ALL PRIVILEGES ON sbtest.* TO 'sbtest'@'127.0.0.1';
SQL
run oltp_read_write prepare "${SB_ARGS[@]}" --threads=2 >"$WORK/prepare.log"
cd "$OUT"
warm_up

# ------------------------------------------------------ build 1: system
# The sweep first: its best throughput sets the rate both builds hold.
run oltp_read_write run "${SB_ARGS[@]}" --threads="$THREADS" --time=$POINT_S \
    --warmup-time=$WARMUP_S --sweep-cooldown=$COOLDOWN_S --percentile=95,99 \
    --json=system.json >system-sweep.txt
sed -n '/^Sweep summary/,$p' system-sweep.txt
RATE=$(python3 - <<'EOF'
import json
d = json.load(open("system.json"))
best = max(p["final"]["tps"] for p in d["points"] if p["final"])
print(int(best * 0.5))
EOF
)
echo "== holding both builds at $RATE tx/s (half of the system build's best)"
run oltp_read_write run "${SB_ARGS[@]}" --threads=4 --tx-rate="$RATE" --time=$HOLD_S \
    --warmup-time=$WARMUP_S --json=hold-system.json >hold-system.txt
stop_server

# ---------------------------------------------------- build 2: jemalloc
start_server jemalloc "$JEMALLOC"
warm_up
run oltp_read_write run "${SB_ARGS[@]}" --threads="$THREADS" --time=$POINT_S \
    --warmup-time=$WARMUP_S --sweep-cooldown=$COOLDOWN_S --percentile=95,99 \
    --json=jemalloc.json >jemalloc-sweep.txt
sed -n '/^Sweep summary/,$p' jemalloc-sweep.txt
run oltp_read_write run "${SB_ARGS[@]}" --threads=4 --tx-rate="$RATE" --time=$HOLD_S \
    --warmup-time=$WARMUP_S --json=hold-jemalloc.json >hold-jemalloc.txt
stop_server

# ------------------------------------------------------------- results
echo "== server CPU per transaction at $RATE tx/s"
run compare hold-system.json hold-jemalloc.json --labels=system,jemalloc | tee hold-compare.txt
echo "== the sweeps"
run compare system.json jemalloc.json --plot=bakeoff.png | tee compare.txt
echo "== results in $OUT"
