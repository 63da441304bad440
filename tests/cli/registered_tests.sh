#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every test file is registered in Makefile.am, and every registered one
# exists. automake cannot find the suites by itself: check_PROGRAMS must
# name each unit test when automake runs (it writes a link rule per
# program), and a $(wildcard) TESTS list is GNU make only and, in a VPATH
# build, names the files by their source path (logs land outside the build
# tree, `make check TESTS=tests/cli/x.sh` no longer matches). So the lists
# stay, and this suite fails when a file is missing from them.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

MK=$SB_SRCDIR/Makefile.am

# listed VAR: the words of Makefile.am's VAR (continuation lines joined).
listed() {
    awk -v var="$1" '
        $0 ~ "^" var " *=" { on = 1; sub(/^[^=]*=/, "") }
        on { line = $0; cont = sub(/\\$/, "", line); printf "%s ", line; if (!cont) on = 0 }
    ' "$MK" | tr -s ' \t' '\n' | sed '/^$/d'
}

# check_registered VAR FILE...: each FILE (a path under the source tree,
# written as in Makefile.am) is a word of VAR.
check_registered() {
    local var=$1 f words
    shift
    words=$(listed "$var")
    for f in "$@"; do
        grep -qxF -- "$f" <<<"$words" ||
            fail "$f is not in Makefile.am's $var: make check would never run it"
    done
}

# check_exists VAR [SUFFIX]: each word of VAR names a file (WORD.SUFFIX).
check_exists() {
    local w
    for w in $(listed "$1"); do
        [ -f "$SB_SRCDIR/$w${2:-}" ] || fail "Makefile.am's $1 names $w, which has no $w${2:-}"
    done
}

cd "$SB_SRCDIR" || exit 99

tcase "every tests/cli and tests/lua suite is in SH_TESTS"
cd "$SB_SRCDIR" || exit 99
# A suite's name ends in _tests.sh; other scripts there are tools the
# suites or the developers call (schema_same.sh, same_points.sh).
check_registered SH_TESTS tests/cli/*_tests.sh tests/lua/*_tests.sh tests/fuzz/*_tests.sh

tcase "every tests/unit/check_*.c is in UNIT_TESTS"
cd "$SB_SRCDIR" || exit 99
units=()
for f in tests/unit/check_*.c; do
    units+=("${f%.c}")
done
check_registered UNIT_TESTS "${units[@]}"

tcase "every SH_TESTS and UNIT_TESTS entry exists"
check_exists SH_TESTS
check_exists UNIT_TESTS .c

tcase "the list reader sees the lists (a broken reader would pass the cases above)"
assert_ge "$(listed SH_TESTS | wc -l)" 20 "SH_TESTS words"
assert_ge "$(listed UNIT_TESTS | wc -l)" 20 "UNIT_TESTS words"
assert_eq "$(listed SH_TESTS | grep -c '^tests/cli/registered_tests\.sh$')" 1 "this suite's entries"

tcase "a suite missing from the list fails the check"
# A Makefile.am copy without one entry: the check must name it.
sed '/tests\/cli\/cli_tests\.sh/s/tests\/cli\/cli_tests\.sh//' "$SB_SRCDIR/Makefile.am" >Makefile.am
out=$(MK=$PWD/Makefile.am; _T_BAD=0; cd "$SB_SRCDIR" && check_registered SH_TESTS tests/cli/cli_tests.sh; echo "bad=$_T_BAD")
assert_eq "${out##*bad=}" 1 "the check's verdict on a list without cli_tests.sh"
grep -qF "tests/cli/cli_tests.sh is not in Makefile.am's SH_TESTS" <<<"$out" ||
    fail "the check did not name the missing suite: $out"

finish
