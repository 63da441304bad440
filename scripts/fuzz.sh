#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the libFuzzer harnesses of tests/fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined) in build-fuzz/ and runs each for
# SECONDS (default 60) from its committed seed corpus (tests/fuzz/corpus/NAME).
# New inputs go to build-fuzz/corpus/NAME, crashes to build-fuzz/crashes/;
# a crash fails the run. A crash input becomes a regression test by
# committing it to tests/fuzz/regress/NAME/ (replayed by `make check`
# through tests/fuzz/replay_tests.sh and by this script).
#
#   scripts/fuzz.sh [SECONDS] [HARNESS...]     e.g. scripts/fuzz.sh 600 json
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
shift || true
harnesses=("$@")
[ "${#harnesses[@]}" -gt 0 ] || harnesses=(options config json script)
"$top/scripts/deps.sh" --servers
command -v clang >/dev/null || { echo "scripts/fuzz.sh needs clang (libFuzzer)" >&2; exit 1; }

cd "$top"
[ -x configure ] || ./autogen.sh >/dev/null 2>&1
b="$top/build-fuzz"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
if [ ! -f "$b/Makefile" ]; then
    mkdir -p "$b"
    (cd "$b" && ../configure --quiet CC=clang \
        CFLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $san" LDFLAGS="$san")
fi
# The core library and the drivers, and the link flags the program uses.
make -s -C "$b" -j2 sysbench/sysbench >/dev/null
printf 'print-libs:\n\t@echo $(SB_LIBS) $(LUAJIT_LIBS) $(ALLOCATOR_LIBS) $(PTHREAD_LIBS) -lm\n' >"$b/print-libs.mk"
libs=$(make -s -C "$b" -f Makefile -f print-libs.mk print-libs)
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$top/scripts/lsan.supp:print_suppressions=0"
status=0
for h in "${harnesses[@]}"; do
    exe="$b/tests/fuzz/fuzz_$h"
    mkdir -p "$b/tests/fuzz" "$b/corpus/$h" "$b/crashes"
    (cd "$b" && clang -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer $san \
        -I"$top/sysbench" -I"$b" -I"$b/sysbench" $(pkg-config --cflags luajit) \
        -Wl,--export-dynamic -o "$exe" "$top/tests/fuzz/fuzz_$h.c" \
        sysbench/engine/sb_ffi.o $libs)
    # Regression inputs first: each must run clean.
    if [ -d "$top/tests/fuzz/regress/$h" ] && [ -n "$(ls -A "$top/tests/fuzz/regress/$h")" ]; then
        "$exe" -runs=0 "$top/tests/fuzz/regress/$h"/* >"$b/regress-$h.log" 2>&1 || {
            echo "FAIL: fuzz_$h regression inputs (see $b/regress-$h.log)"; status=1; }
    fi
    [ "$secs" -gt 0 ] || continue
    log="$b/fuzz-$h.log"
    if "$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
            -artifact_prefix="$b/crashes/$h-" -print_final_stats=1 \
            "$b/corpus/$h" "$top/tests/fuzz/corpus/$h" >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        echo "fuzz_$h: ${runs:-?} inputs in ${secs}s, no crash"
    else
        echo "FAIL: fuzz_$h found a crash:"
        grep -m3 -E 'ERROR|SUMMARY|Test unit written' "$log" || tail -20 "$log"
        status=1
    fi
done
exit "$status"
