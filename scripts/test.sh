#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds with warnings as errors and runs the test suite.
#
#   scripts/test.sh          the whole suite: Check unit tests, command-line
#                            and Lua scenario tests on SQLite, and the driver
#                            tests against throwaway MariaDB and PostgreSQL
#                            servers that the suite starts and stops itself
#                            (build dir build-test/).
#   scripts/test.sh --asan   the same whole suite built with AddressSanitizer
#                            and UndefinedBehaviorSanitizer (build-asan/),
#                            but SB_SAN_SKIP's static, Python-only and
#                            hog-timing suites (as for --tsan); any report
#                            fails the run.
#   scripts/test.sh --tsan   ThreadSanitizer build (build-tsan/), the threaded
#                            tests only: unit tests, the CLI and Lua suites
#                            (several threads, SQLite; but SB_SAN_SKIP's
#                            static, Python-only and hog-timing suites) and
#                            the server case
#                            files in SB_TSAN_DRIVER_CASES (default: api
#                            sql_basic deadlock reconnect mux).
#   scripts/test.sh --fuzz [SECONDS]
#                            libFuzzer harnesses (tests/fuzz/, build-fuzz/),
#                            each for SECONDS (default 60) from its seed
#                            corpus; see scripts/fuzz.sh.
#
# Sanitizer reports are written to files under <build dir>/sanitizer-logs
# (log_path) and printed at the end, because the shell suites keep only the
# last lines of a failing command's stderr.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mode=default
case "${1:-}" in
    "") ;;
    --asan) mode=asan ;;
    --tsan) mode=tsan ;;
    --fuzz) exec "$top/scripts/fuzz.sh" "${2:-60}" ;;
    *) echo "usage: scripts/test.sh [--asan | --tsan | --fuzz [SECONDS]]" >&2; exit 2 ;;
esac

"$top/scripts/deps.sh" --servers
cd "$top"
./autogen.sh >/dev/null 2>&1

# A compiler with the sanitizers: clang when installed, else gcc.
sanitizer_cc() {
    if command -v clang >/dev/null 2>&1; then echo clang; else echo gcc; fi
}

build=build-test
configure_args=(--quiet --enable-werror)
tests=
case "$mode" in
asan)
    build=build-asan
    san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
    configure_args+=(CC="$(sanitizer_cc)" CFLAGS="-g -O1 -fno-omit-frame-pointer $san"
                     LDFLAGS="$san")
    logs="$top/$build/sanitizer-logs"
    # LuaJIT allocates with its own allocator on mmap'd pages, which ASan
    # neither sees nor poisons: Lua objects are not checked, our C code and
    # the client libraries are. Leak checking is on (SB_ASAN_LEAKS=0 turns
    # it off); suppressions name third-party libraries only
    # (scripts/lsan.supp).
    export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:exitcode=23:detect_leaks=${SB_ASAN_LEAKS:-1}:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:log_path=$logs/asan"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=24:log_path=$logs/ubsan"
    export LSAN_OPTIONS="suppressions=$top/scripts/lsan.supp:print_suppressions=0"
    export SB_TIMEOUT=${SB_TIMEOUT:-180}
    # Tests may relax bounds that a slower build cannot hold (they say so).
    export SB_SANITIZER=asan
    tests="UNIT SH tests/harness/server_tests.sh tests/conformance/conformance_tests.sh"
    ;;
tsan)
    build=build-tsan
    configure_args+=(CC="$(sanitizer_cc)" CFLAGS="-g -O1 -fsanitize=thread"
                     LDFLAGS="-fsanitize=thread")
    logs="$top/$build/sanitizer-logs"
    export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:log_path=$logs/tsan"
    # Threaded server cases, chosen by their cost under TSan (see
    # /work/notes/harden.md for the measured times). mux runs the
    # connection loops (sb_loop.c: several loop threads, several
    # connections each, MariaDB and PostgreSQL) with the reporter reading
    # their statistics; about 20-25 s under TSan on 2 busy CPUs.
    export SB_TIMEOUT=${SB_TIMEOUT:-240}
    export SB_SANITIZER=tsan
    export SB_DRIVER_CASES="${SB_TSAN_DRIVER_CASES-api sql_basic deadlock reconnect mux}"
    tests="UNIT SH tests/harness/server_tests.sh"
    ;;
esac

rm -rf "$build"
mkdir "$build"
cd "$build"
[ -n "${logs:-}" ] && mkdir -p "$logs"
../configure "${configure_args[@]}"
make -s -j"$(nproc)"
status=0
if [ -n "$tests" ]; then
    # The unit and shell test lists come from the Makefile itself.
    printf 'print-tests:\n\t@echo $(UNIT_TESTS) $(SH_TESTS)\n' >print-tests.mk
    list=$(make -s -f Makefile -f print-tests.mk print-tests)
    # Under a sanitizer, suites that run none of our C code worth checking
    # (static checks of the source, Python-only examples and fits) or only
    # judge timing under a hog (which a sanitizer's slowdown makes
    # meaningless, and whose own busy loops slow every suite beside them)
    # are left to the default stage, to keep CI well under 90 minutes.
    # Their C paths stay covered under the sanitizers by the unit tests
    # (check_sb_usl, check_sb_verdict) and ab_tests/findmax_tests.
    for skip in ${SB_SAN_SKIP-${SB_TSAN_SKIP-tests/cli/layout_tests.sh tests/cli/k8s_example_tests.sh \
                tests/cli/usl_scipy_tests.sh tests/cli/ab_verdict_tests.sh \
                tests/cli/auto_tests.sh}}; do
        list=$(printf '%s\n' $list | grep -vxF "$skip" | tr '\n' ' ')
        echo "$mode: $skip runs in the default stage only"
    done
    # The server suites first: they are the longest, and -j2 runs the
    # short suites beside them.
    servers=${tests#UNIT SH }
    make -s check -j2 TESTS="$servers $list" || status=$?
else
    make -s check -j2 || status=$?
fi
if [ "$status" -ne 0 ]; then
    for trs in $(find tests -name '*.trs'); do
        if grep -q ':test-result: \(FAIL\|ERROR\)' "$trs"; then
            # Only what explains the failure: for each of the first three
            # FAIL lines the non-PASS lines before it (a tcase's messages)
            # and the indented log tail after it (an sb_case's), so that a
            # long suite's PASS lines cannot push them out of CI's excerpt.
            echo "=== ${trs%.trs}.log (failures only)"
            awk 'after && /^(PASS|FAIL|SKIP): / {after = 0}
                 after && after++ <= 35 {print; next}
                 /^FAIL: /{n++; if (n <= 3) {from = NR - 30 > last ? NR - 30 : last + 1
                     for (k = from; k < NR; k++) if (k in buf) print buf[k]
                     print ">> " $0; last = NR; after = 1}; next}
                 !/^PASS: /{buf[NR] = $0} END {print ">> " n + 0 " FAIL line(s)"}' \
                "${trs%.trs}.log"
            grep -v '^PASS: ' "${trs%.trs}.log" | tail -5
        fi
    done
fi
if [ -n "${logs:-}" ]; then
    reports=$(find "$logs" -type f | wc -l)
    if [ "$reports" -gt 0 ]; then
        echo "=== $reports sanitizer report(s) in $logs; the first ones:"
        find "$logs" -type f | head -3 | xargs cat
        status=1
    else
        echo "no sanitizer reports ($mode)"
    fi
fi
# One closing line for CI, counted from the per-program results.
pass=$(cat $(find tests -name '*.trs') | grep -c ':test-result: PASS' || true)
fail=$(cat $(find tests -name '*.trs') | grep -c ':test-result: \(FAIL\|ERROR\)' || true)
skip=$(cat $(find tests -name '*.trs') | grep -c ':test-result: SKIP' || true)
echo "$pass passed, $fail failed, $skip skipped"
exit "$status"
