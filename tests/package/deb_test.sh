#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Builds the Debian package, installs it with apt into a fresh Debian 12
# chroot (scripts/chroot.sh), and runs `sysbench cpu run` and a SQLite
# oltp prepare/run/cleanup from the installed files. Needs root,
# debootstrap, dpkg-dev, debhelper and lintian (scripts/deps.sh --package)
# and a few minutes; run by hand or by CI, not by make check.
#
#   tests/package/deb_test.sh [--keep]    --keep leaves the chroot in place
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/sb-deb.XXXXXX)
root=$work/root
keep=0
[ "${1:-}" = "--keep" ] && keep=1
fails=0 passes=0

cleanup() {
    if [ $keep -eq 0 ]; then
        "$top/scripts/chroot.sh" destroy "$root" || true
        rm -rf "$work"
    else
        echo "chroot kept in $root"
    fi
}
trap cleanup EXIT

check() { # NAME CMD...: one case
    local name=$1; shift
    if "$@" >"$work/case.log" 2>&1; then
        echo "PASS: $name"; passes=$((passes + 1))
    else
        echo "FAIL: $name"; sed 's/^/  /' "$work/case.log" | tail -20
        fails=$((fails + 1))
    fi
}

# Build from a clean export of the committed tree, so stray build
# directories do not end up in the package.
mkdir -p "$work/src"
git -C "$top" archive HEAD | tar -x -C "$work/src"
(cd "$work/src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 ||
    { tail -40 "$work/build.log"; echo "FAIL: dpkg-buildpackage"; exit 1; }
deb=$(ls "$work"/sysbench_*.deb)
echo "PASS: dpkg-buildpackage built $(basename "$deb")"; passes=$((passes + 1))

lintian_errors() { ! lintian "$deb" | grep '^E:'; }
check "lintian reports no error" lintian_errors

"$top/scripts/chroot.sh" create "$root"
cp "$deb" "$root/tmp/"
in_root() { SB_CHROOT_SRC=$work "$top/scripts/chroot.sh" run "$root" -- "$@"; }

check "apt installs the package and its dependencies" \
    in_root sh -c "apt-get update -qq && apt-get install -y -qq /tmp/$(basename "$deb")"
check "the binary is the installed one" in_root sh -c 'test "$(command -v sysbench)" = /usr/bin/sysbench && sysbench --version'
check "the man page, scripts and plot templates are installed" \
    in_root sh -c 'test -s /usr/share/man/man1/sysbench.1.gz &&
                   test -s /usr/share/sysbench/oltp_read_write.lua &&
                   test -s /usr/share/sysbench/plot/common.gp'
cpu_run() { in_root sh -c 'cd /tmp && sysbench cpu --time=1 run' | tee /dev/stderr | grep -q 'total number of events'; }
check "sysbench cpu run" cpu_run
check "SQLite oltp prepare" in_root sh -c 'cd /tmp && sysbench oltp_read_write --tables=2 --table-size=1000 prepare'
oltp_run() {
    in_root sh -c 'cd /tmp && sysbench oltp_read_write --tables=2 --table-size=1000 --time=2 --rand-seed=1 run' |
        tee /dev/stderr | grep -Eq 'transactions: +[1-9]'
}
check "SQLite oltp run from /usr/share/sysbench" oltp_run
# Cleanup drops the tables and leaves the database file (--sqlite-db):
# the tables are gone when a prepare, which refuses existing tables,
# succeeds again.
check "SQLite oltp cleanup" in_root sh -c 'cd /tmp && sysbench oltp_read_write --tables=2 cleanup &&
    sysbench oltp_read_write --tables=2 --table-size=10 prepare && sysbench oltp_read_write --tables=2 cleanup'

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
