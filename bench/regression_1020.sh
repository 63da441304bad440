#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Runs sysbench 1.0.20's own regression suite (the cram files tests/t/*.t of
# its source tree, tag 1.0.20) against a given sysbench binary and prints
# PASS/FAIL/SKIP per file and a closing "N passed, N failed, N skipped".
#
#   bench/regression_1020.sh [options] TESTS_DIR BINARY [FILE.t ...]
#
#   TESTS_DIR   the tests/ directory of sysbench 1.0.20's source (this script
#               fetches nothing: get it with
#               git --git-dir=<clone> archive 1.0.20 tests | tar -x -C DIR)
#   BINARY      the sysbench to test (/usr/bin/sysbench, or sysbench/sysbench)
#   FILE.t      only these files (names as in TESTS_DIR/t); default all
#
#   --servers          start throwaway MariaDB and PostgreSQL servers
#                      (tests/harness/servers.sh) for the db files; without
#                      it those files are skipped (cram exit 80, as 1.0's own
#                      suite does when SBTEST_MYSQL_ARGS is unset)
#   --scriptdir DIR    the bundled Lua scripts (oltp_*.lua); default
#                      /usr/share/sysbench for /usr/bin/sysbench, else the
#                      lua/ directory beside BINARY
#   --keep DIR         keep the work copy (with cram's .err files) in DIR
#   --env VAR=VALUE    export this to the tests (e.g. SB_COMPAT=1.0 for ours)
#   --no-adapt         run the files exactly as they are (see adapt() below)
#
# The suite is run from a temporary copy, never from the repository; it needs
# Debian's python3-cram. The version string the suite expects is taken from
# "BINARY --version".

set -euo pipefail

usage() {
    sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

here=$(cd "$(dirname "$0")" && pwd)
servers=0
scriptdir=
keep=
envs=()
adapt=1
while [ $# -gt 0 ]; do
    case $1 in
    --servers) servers=1; shift ;;
    --scriptdir) scriptdir=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --no-adapt) adapt=0; shift ;;
    -h|--help) usage ;;
    --*) echo "regression_1020.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -ge 2 ] || usage
tests_dir=$(cd "$1" && pwd)
binary=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
[ -d "$tests_dir/t" ] || { echo "regression_1020.sh: no t/ in $tests_dir" >&2; exit 2; }
[ -x "$binary" ] || { echo "regression_1020.sh: $binary is not executable" >&2; exit 2; }
# Debian's python3-cram installs the runner as cram3.
cram=$(command -v cram3 || command -v cram || true)
[ -n "$cram" ] ||
    { echo "regression_1020.sh: cram not found (apt-get install python3-cram)" >&2; exit 2; }
if [ -z "$scriptdir" ]; then
    if [ "$binary" = /usr/bin/sysbench ]; then
        scriptdir=/usr/share/sysbench
    else
        scriptdir=$(dirname "$binary")/lua
    fi
fi

work=$(mktemp -d /tmp/sb1020.XXXXXX)
chmod 755 "$work"   # the PostgreSQL server runs as postgres and must reach its directory
srv=
cleanup() {
    if [ -n "$srv" ]; then
        bash "$here/../tests/harness/servers.sh" stop "$srv" >/dev/null 2>&1 || true
    fi
    if [ -z "$keep" ]; then
        rm -rf "$work"
    fi
}
trap cleanup EXIT
if [ -n "$keep" ]; then
    mkdir -p "$keep"
    rm -rf "$work"
    work=$(cd "$keep" && pwd)
fi

cp -r "$tests_dir" "$work/tests"

# The suite was written against MySQL 5.x and PostgreSQL 9/10; this machine's
# servers print two things differently, whoever the client is: MariaDB 10.2+
# shows an integer default unquoted (DEFAULT 0, not DEFAULT '0'), and
# PostgreSQL 15 returns the columns of the suite's own pg_attribute query
# (which has no ORDER BY) in another order, and names the relation in its
# NOT NULL error. Only the copy is changed.
adapt() {
    sed -i "s/DEFAULT '0'/DEFAULT 0/" "$work"/tests/t/*.t
    sed -i 's/null value in column "a" violates/null value in column "a" of relation "t" violates/' \
        "$work/tests/t/api_sql_pgsql.t"
    sed -i 's/^    AND f.attnum > 0$/    AND f.attnum > 0 ORDER BY f.attnum/' \
        "$work/tests/include/pgsql_common.sh"
}
if [ "$adapt" -eq 1 ]; then
    adapt
fi
mkdir -p "$work/bin"
ln -sf "$binary" "$work/bin/sysbench"

# "sysbench 1.0.20" or "sysbench 1.0.20-<sha>"; the suite compares the first
# line of --version with SBTEST_VERSION_STRING.
vstring=$("$binary" --version 2>/dev/null | head -n 1)
version=${vstring#sysbench }
version=${version%% *}

export SBTEST_ROOTDIR="$work/tests"
export SBTEST_SCRIPTDIR="$scriptdir"
export SBTEST_SUITEDIR="$work/tests/t"
export SBTEST_INCDIR="$work/tests/include"
export SBTEST_CONFIG="$SBTEST_INCDIR/config.sh"
export PATH="$work/bin:$PATH"
export LUA_PATH="$scriptdir/?;$scriptdir/?.lua;$SBTEST_INCDIR/?;$SBTEST_INCDIR/?.lua"

has_db=0
if [ "$servers" -eq 1 ]; then
    srv=$work/servers
    bash "$here/../tests/harness/servers.sh" start "$srv" >/dev/null
    # shellcheck disable=SC1091
    . "$srv/servers.env"
    has_db=1
    export SBTEST_MYSQL_ARGS="$SB_MYSQL_ARGS"
    export SBTEST_PGSQL_ARGS="$SB_PGSQL_ARGS"
    # The suite inspects tables with "mysql -uroot sbtest" and "psql sbtest".
    # The client ignores MYSQL_UNIX_PORT when my.cnf names a socket, so a
    # wrapper points it at the throwaway server.
    # MariaDB's client also echoes a failed statement between dashes on
    # stderr, which the MySQL 5.x client did not.
    cat >"$work/bin/mysql" <<WRAP
#!/bin/sh
err=\$(mktemp)
mariadb --no-defaults -S '$SB_MYSQL_SOCKET' "\$@" 2>"\$err"
rc=\$?
sed -e '/^--------------\$/,/^--------------\$/d' -e '/^\$/d' "\$err" >&2
rm -f "\$err"
exit \$rc
WRAP
    chmod +x "$work/bin/mysql"
    export PGHOST="$SB_PGSQL_HOST" PGPORT="$SB_PGSQL_PORT"
    export PGUSER="$SB_PGSQL_USER" PGPASSWORD="$SB_PGSQL_PASSWORD"
else
    unset SBTEST_MYSQL_ARGS SBTEST_PGSQL_ARGS || true
fi
cat >"$SBTEST_CONFIG" <<EOF
export SBTEST_VERSION_STRING="$vstring"
export SBTEST_VERSION="$version"
export SBTEST_HAS_MYSQL=$has_db
export SBTEST_HAS_PGSQL=$has_db
EOF
# shellcheck disable=SC1090
. "$SBTEST_CONFIG"
for e in "${envs[@]+"${envs[@]}"}"; do
    export "${e?}"
done

if [ $# -gt 0 ]; then
    files=("$@")
else
    files=()
    for f in "$work"/tests/t/*.t; do
        files+=("$(basename "$f")")
    done
fi

pass=0 fail=0 skip=0
cd "$work/tests"
for f in "${files[@]}"; do
    rc=0
    out=$(timeout 600 "$cram" --shell=/bin/bash "t/$f" 2>&1) || rc=$?
    mkdir -p "$work/out"
    printf '%s\n' "$out" >"$work/out/$f.diff"
    # cram exits 0 for a file that exits 80 (skipped) and says so.
    if [ "$rc" -eq 0 ] && grep -q ' 1 skipped' <<<"$out"; then
        echo "SKIP $f"; skip=$((skip + 1))
    elif [ "$rc" -eq 0 ]; then
        echo "PASS $f"; pass=$((pass + 1))
    else
        echo "FAIL $f"; fail=$((fail + 1))
    fi
done
if [ -n "$keep" ]; then
    echo "diffs: $work/out/*.t.diff"
fi
echo "regression_1020: $pass passed, $fail failed, $skip skipped"
