#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The result schema as this build writes, reads back and merges it,
# against tests/cli/schema/expected (issue 29 item 1: one field table for
# the writer, the reader and merge; "behaviour unchanged"): fixed-seed
# SQLite runs' JSON, CSV and report with figures masked, and `sysbench
# merge` of the fixed inputs in tests/cli/schema/in byte for byte. A
# change here is a change of the result files: when it is meant, remake
# the expected outputs (tests/cli/schema_same.sh says how) and say so in
# doc/results.md.
#
# Run by `make check`, or by hand: bash tests/cli/schema_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to mask the JSON documents"

EXP=$SB_SRCDIR/tests/cli/schema/expected
OUT=$_T_ROOT/schema_out
bash "$SB_SRCDIR/tests/cli/schema_same.sh" produce "$SB_BIN" "$OUT" >"$_T_ROOT/produce.log" 2>&1

# same_as_expected GLOB WHAT: the outputs GLOB as expected.
same_as_expected() {
    local f n=0
    for f in "$EXP"/$1; do
        n=$((n + 1))
        if ! diff -u "$f" "$OUT/${f##*/}" >"$T/diff"; then
            head -40 "$T/diff" >&2
            fail "$2: ${f##*/} differs from tests/cli/schema/expected"
        fi
    done
    [ "$n" -gt 0 ] || fail "$2: no expected outputs"
}

tcase "runs: JSON, CSV, report and exit status as expected (figures masked)"
for run in closed rated mix cpu sweep repeat; do
    same_as_expected "$run.*" "$run run"
done

tcase "merge of fixed inputs: report, JSON, exit status and FATAL lines byte for byte"
same_as_expected "merge_*" "merge"
[ ! -e "$OUT/merge_bad.json" ] || fail "a refused merge wrote its --json file"

tcase "compare of fixed inputs (the reader): report, JSON and exit status byte for byte"
same_as_expected "compare_*" "compare"

tcase "the check catches a changed figure of a merge"
# The comparison must be able to fail: one merged count off by one.
sed -i '0,/"events": \([0-9]*\)/s//"events": 1\1/' "$OUT/merge_all.json"
if diff -q "$EXP/merge_all.json" "$OUT/merge_all.json" >/dev/null; then
    fail "an edited merged figure went unnoticed"
fi

finish
