#!/usr/bin/env bash
# Builds with warnings as errors and runs the whole test suite: Check unit
# tests, command-line and Lua scenario tests on SQLite, and the driver
# tests against throwaway MariaDB and PostgreSQL servers that the suite
# starts and stops itself.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" --servers
cd "$top"
./autogen.sh >/dev/null 2>&1
rm -rf build-test
mkdir build-test
cd build-test
../configure --quiet --enable-werror
make -s -j"$(nproc)"
status=0
make -s check -j2 || status=$?
if [ "$status" -ne 0 ]; then
    for trs in $(find tests -name '*.trs'); do
        if grep -q ':test-result: \(FAIL\|ERROR\)' "$trs"; then
            echo "=== ${trs%.trs}.log"
            tail -80 "${trs%.trs}.log"
        fi
    done
fi
# One closing line for CI, counted from the per-program results.
pass=$(cat $(find tests -name '*.trs') | grep -c ':test-result: PASS' || true)
fail=$(cat $(find tests -name '*.trs') | grep -c ':test-result: \(FAIL\|ERROR\)' || true)
echo "$pass passed, $fail failed"
exit "$status"
