#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Conformance suite (one automake test): runs the scripts that ship with
# sysbench 1.0.20 (Debian's "sysbench" package installs them in
# /usr/share/sysbench), unmodified, against throwaway MariaDB and
# PostgreSQL servers, with the command lines a 1.0 user types, and checks
# the exit status, the 1.0 report and the tables the scripts leave behind.
# One PASS/FAIL line per script and server, then "N passed, M failed".
#
# Nothing of sysbench 1.0 is kept in this repository: the scripts are
# copied at test time into a temporary directory that is removed afterwards.
# Without them the suite fails (it never passes without having run them).
#
#   conformance_tests.sh           run this project's binary ($SB_BIN)
#   conformance_tests.sh --peer    run /usr/bin/sysbench 1.0.20 itself (the
#                                  reference; not part of make check)
#   conformance_tests.sh --both    both, one after the other, then a table
#                                  of the two results side by side
#
# Environment: SB_BIN, SB_SRCDIR, SB_BUILDDIR as for the other suites;
# SB_CONF_SCRIPTS the directory of 1.0's scripts (/usr/share/sysbench);
# SB_CONF_PEER the reference binary (/usr/bin/sysbench); SB_CASE_TIMEOUT
# the time budget in seconds of one sysbench invocation (60);
# SB_CONF_RUN_ARGS options added to every run step of this binary, e.g.
# "--client-threads=2" for the connections multiplexed over client
# threads that share a Lua state (not with --peer: 1.0 has no such option).

if [ -z "${BASH_VERSION:-}" ]; then
    exec bash "$0" "$@"
fi

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SB_SRCDIR=${SB_SRCDIR:-$(cd "$HERE/../.." && pwd)}
SB_BUILDDIR=${SB_BUILDDIR:-$SB_SRCDIR}
SB_BIN=${SB_BIN:-$SB_BUILDDIR/sysbench/sysbench}
SB_CONF_SCRIPTS=${SB_CONF_SCRIPTS:-/usr/share/sysbench}
SB_CONF_PEER=${SB_CONF_PEER:-/usr/bin/sysbench}
SB_CASE_TIMEOUT=${SB_CASE_TIMEOUT:-60}
export SB_SRCDIR SB_BUILDDIR SB_CONF_SCRIPTS SB_CASE_TIMEOUT

# The scripts of sysbench 1.0.20 this suite runs; the case file has the
# options each one needs.
SB_CONF_NAMES="oltp_read_write oltp_read_only oltp_write_only oltp_point_select
oltp_insert oltp_delete oltp_update_index oltp_update_non_index
select_random_points select_random_ranges bulk_insert"
export SB_CONF_NAMES

fail_early() {
    echo "FAIL: $*"
    echo "0 passed, 1 failed"
    exit 1
}

mode=self
case "${1:-}" in
"") ;;
--peer) mode=peer ;;
--both) mode=both ;;
*) echo "usage: conformance_tests.sh [--peer|--both]" >&2; exit 2 ;;
esac

missing=()
for n in $SB_CONF_NAMES oltp_common; do
    [ -r "$SB_CONF_SCRIPTS/$n.lua" ] || missing+=("$n.lua")
done
if [ "${#missing[@]}" -gt 0 ]; then
    fail_early "sysbench 1.0.20's scripts not found in $SB_CONF_SCRIPTS (missing ${missing[*]}; install Debian's sysbench package: scripts/deps.sh --servers)"
fi

run_suite() {
    SB_BIN=$1 SB_CASE_DIR="$HERE/cases" bash "$SB_SRCDIR/tests/harness/server_tests.sh"
}

check_peer() {
    if [ ! -x "$SB_CONF_PEER" ]; then
        fail_early "reference binary $SB_CONF_PEER not found (install Debian's sysbench package)"
    fi
    if ! "$SB_CONF_PEER" --version 2>/dev/null | grep -q '^sysbench 1\.0\.'; then
        fail_early "$SB_CONF_PEER is not sysbench 1.0 ($("$SB_CONF_PEER" --version 2>&1 | head -n 1))"
    fi
}

case $mode in
self)
    exec env SB_BIN="$SB_BIN" SB_CASE_DIR="$HERE/cases" \
        bash "$SB_SRCDIR/tests/harness/server_tests.sh"
    ;;
peer)
    check_peer
    exec env SB_BIN="$SB_CONF_PEER" SB_CASE_DIR="$HERE/cases" \
        bash "$SB_SRCDIR/tests/harness/server_tests.sh"
    ;;
both)
    check_peer
    tmp=$(mktemp -d /tmp/sbconf.XXXXXX)
    trap 'rm -rf -- "$tmp"' EXIT
    rc=0
    echo "# this binary: $SB_BIN"
    run_suite "$SB_BIN" | tee "$tmp/self" || rc=$?
    echo "# sysbench 1.0.20: $SB_CONF_PEER"
    run_suite "$SB_CONF_PEER" | tee "$tmp/peer" || true
    echo
    printf '%-34s %-6s %-6s\n' "case" "ours" "1.0.20"
    grep -h -E '^(PASS|FAIL): ' "$tmp/self" "$tmp/peer" | sed 's/^[A-Z]*: //' |
        awk '{ print $1 }' | awk '!seen[$0]++' | while read -r c; do
            o=$(grep -E "^(PASS|FAIL): $c( |$)" "$tmp/self" | head -n 1 | cut -d: -f1)
            p=$(grep -E "^(PASS|FAIL): $c( |$)" "$tmp/peer" | head -n 1 | cut -d: -f1)
            printf '%-34s %-6s %-6s\n' "$c" "${o:--}" "${p:--}"
        done
    exit "$rc"
    ;;
esac
