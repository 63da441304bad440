#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The server test suite (one automake test): starts throwaway MariaDB and
# PostgreSQL servers once, runs every case file in tests/drivers/*.sh (or
# in SB_CASE_DIR, which other suites such as tests/conformance set) against
# them, prints one PASS/FAIL/SKIP line per case and "N passed, M failed,
# K skipped" (a SKIP is never counted as a pass), and stops the servers
# on any exit, including failures and interrupts.
#
# Environment (set by "make check"): SB_BIN the built binary, SB_SRCDIR the
# source tree, SB_BUILDDIR the build tree. Without installed servers or
# without the binary this fails: a server test never passes by default.

# automake may start us with a plain sh; everything below is bash.
if [ -z "${BASH_VERSION:-}" ]; then
    exec bash "$0" "$@"
fi

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SB_SRCDIR=${SB_SRCDIR:-$(cd "$HERE/../.." && pwd)}
SB_BUILDDIR=${SB_BUILDDIR:-$SB_SRCDIR}
SB_BIN=${SB_BIN:-$SB_BUILDDIR/sysbench/sysbench}
export SB_SRCDIR SB_BUILDDIR SB_BIN

if [ ! -x "$SB_BIN" ]; then
    echo "FAIL: sysbench binary not found at $SB_BIN"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi

# Short paths: unix socket paths are limited to about 100 bytes.
WORK=$(mktemp -d /tmp/sbtest.XXXXXX)
# PostgreSQL runs as user postgres and must reach its data inside WORK.
chmod 755 "$WORK"
SERVERS="$WORK/srv"

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    bash "$HERE/servers.sh" stop "$SERVERS" || true
    rm -rf -- "$WORK"
    exit "$rc"
}
# The running case file, in a process group of its own so that an
# interrupt can stop it and whatever it started.
child=

on_signal() {
    if [ -n "$child" ]; then
        kill -TERM -- "-$child" 2>/dev/null || kill -TERM "$child" 2>/dev/null || true
    fi
    exit "$1"
}
trap cleanup EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM

if ! bash "$HERE/servers.sh" start "$SERVERS"; then
    echo "FAIL: could not start the test servers"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
set -a
# shellcheck source=/dev/null
. "$SERVERS/servers.env"
set +a
export SB_CASE_LIB="$HERE/case_lib.sh"
echo "# MariaDB $SB_MYSQL_VERSION, PostgreSQL $SB_PGSQL_VERSION"

passed=0
failed=0
skipped=0
shopt -s nullglob
SB_CASE_DIR=${SB_CASE_DIR:-$SB_SRCDIR/tests/drivers}
# SB_DRIVER_CASES="api deadlock" runs only those case files of SB_CASE_DIR
# (the sanitizer modes of scripts/test.sh choose a subset that fits their
# time budget).
if [ -n "${SB_DRIVER_CASES:-}" ]; then
    files=()
    for c in $SB_DRIVER_CASES; do
        files+=("$SB_CASE_DIR/$c.sh")
    done
else
    files=("$SB_CASE_DIR"/*.sh)
fi
if [ "${#files[@]}" -eq 0 ]; then
    echo "FAIL: no case files in $SB_CASE_DIR"
    failed=1
fi

for f in "${files[@]}"; do
    base=$(basename "$f" .sh)
    dir="$WORK/cases/$base"
    mkdir -p "$dir"
    out="$dir/.results"
    rc=0
    # Each file runs in its own process and directory, so one case file
    # cannot break another's environment.
    # Waiting on a background child keeps this shell responsive to signals.
    # shellcheck disable=SC2016
    setsid bash -c 'cd "$1" && exec bash "$2"' sb_case_file "$dir" "$f" >"$out" 2>&1 &
    child=$!
    wait "$child" || rc=$?
    child=
    cat "$out"
    p=$(grep -c '^PASS: ' "$out" || true)
    m=$(grep -c '^FAIL: ' "$out" || true)
    s=$(grep -c '^SKIP: ' "$out" || true)
    if [ "$rc" -ne 0 ] && [ "$m" -eq 0 ]; then
        echo "FAIL: $base (the case file exited with status $rc)"
        m=1
    elif [ "$p" -eq 0 ] && [ "$m" -eq 0 ] && [ "$s" -eq 0 ]; then
        echo "FAIL: $base (the case file ran no cases)"
        m=1
    fi
    passed=$((passed + p))
    failed=$((failed + m))
    skipped=$((skipped + s))
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] || exit 1
# Every case skipped: automake's SKIP, not a pass.
[ "$passed" -eq 0 ] && [ "$skipped" -gt 0 ] && exit 77
exit 0
