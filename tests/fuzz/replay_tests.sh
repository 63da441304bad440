#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Replays the fuzz seed corpora and regression inputs (tests/fuzz/corpus/,
# tests/fuzz/regress/) through the harness entry points, built without
# libFuzzer (tests/fuzz/replay_*; see replay_main.c). Every input must run
# to completion: a crash, a sanitizer report (in a sanitizer build) or a
# hang fails the suite.
#
# Run by `make check`, or by hand: bash tests/fuzz/replay_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

for h in options config json script; do
    tcase "fuzz inputs of the $h harness replay cleanly"
    exe="$SB_BUILDDIR/tests/fuzz/replay_$h"
    [ -x "$exe" ] || { fail "$exe not built"; continue; }
    dirs=("$SB_SRCDIR/tests/fuzz/corpus/$h")
    [ -d "$SB_SRCDIR/tests/fuzz/regress/$h" ] && dirs+=("$SB_SRCDIR/tests/fuzz/regress/$h")
    SB_RC=0
    timeout -k 5 "$SB_TIMEOUT" "$exe" "${dirs[@]}" >out 2>err || SB_RC=$?
    assert_exit 0
    n=$(find "${dirs[@]}" -maxdepth 1 -type f ! -name '.*' | wc -l)
    assert_gt "$n" 0 "inputs in the corpus"
    assert_eq "$(grep -c '^replayed ' out)" "$n" "inputs replayed"
    assert_no_crash
done

finish
