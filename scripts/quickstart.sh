#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# First run on a fresh Debian 12 machine: install the build dependencies,
# build, and hold a 10-second oltp_read_write at a steady rate on the
# embedded SQLite database (no server needed), printing its report.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
cd "$top"
[ -x configure ] || ./autogen.sh >/dev/null
mkdir -p build
cd build
[ -f Makefile ] || ../configure --quiet
make -s -j"$(nproc)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
sb="$top/build/sysbench/sysbench"
"$sb" oltp_read_write --tables=2 --table-size=10000 prepare >/dev/null
"$sb" oltp_read_write --tables=2 --table-size=10000 --threads=2 --time=10 \
    --tx-rate=200 --report-interval=1 --percentile=50,95,99 run
"$sb" oltp_read_write --tables=2 cleanup >/dev/null
