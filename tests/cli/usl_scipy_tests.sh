#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Universal Scalability Law fit checked against an independent one:
# scipy's curve_fit on the same points must give the same lambda, sigma
# and kappa within 1% (tests/cli/usl_scipy.py). The points are the unit
# test's synthetic sweeps (tests/unit/check_sb_usl.c writes them with
# their fits to $SB_USL_DUMP) and a real thread sweep's JSON.
#
# Run by `make check`, or by hand: bash tests/cli/usl_scipy_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# The Python with scipy (Debian's python3-scipy is for /usr/bin/python3,
# which a developer's PATH may put behind another Python).
PY=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import scipy' 2>/dev/null; then
        PY=$p
        break
    fi
done
if [ -z "$PY" ]; then
    echo "python3 with scipy (python3-scipy) is needed for the independent USL fit" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
CHECK_USL=$SB_BUILDDIR/tests/unit/check_sb_usl

tcase "USL fit of the unit test's sweeps agrees with scipy's curve_fit within 1%"
if [ ! -x "$CHECK_USL" ]; then
    fail "$CHECK_USL not built (make check builds it)"
else
    SB_USL_DUMP=$PWD/points CK_FORK=no "$CHECK_USL" >out 2>err
    assert_eq "$?" 0 "check_sb_usl's status"
    "$PY" "$SB_SRCDIR/tests/cli/usl_scipy.py" points >cmp 2>&1
    assert_eq "$?" 0 "scipy comparison's status: $(cat cmp)"
    assert_contains cmp "5 agree, 0 disagree"
fi

tcase "the comparison fails on a fit 2% off"
if [ -x "$CHECK_USL" ]; then
    SB_USL_DUMP=$PWD/points CK_FORK=no "$CHECK_USL" >out 2>err
    # sigma of the first block 2% higher than sysbench found
    awk '!done && $1 == "fit" { $3 = $3 * 1.02; done = 1 } { print }' points >off
    "$PY" "$SB_SRCDIR/tests/cli/usl_scipy.py" off >cmp 2>&1
    assert_eq "$?" 1 "scipy comparison's status"
    assert_contains cmp "4 agree, 1 disagree"
fi

tcase "USL fit of a real thread sweep's JSON agrees with scipy's curve_fit within 1%"
# Events that hold one lock shared by all threads for 2 ms of their 6.
fixture lock.lua
SB_TIMEOUT=120 PERIOD_MS=6 HOLD_MS=2 sb lock.lua --threads=1,2,3,4,6 --time=0.5 --json=s.json run
assert_exit 0
"$PY" - s.json >points <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    print(p["threads"], p["final"]["tps"])
u = d["usl"]
print("fit", repr(u["lambda"]), repr(u["sigma"]), repr(u["kappa"]))
PY
"$PY" "$SB_SRCDIR/tests/cli/usl_scipy.py" points >cmp 2>&1
assert_eq "$?" 0 "scipy comparison's status: $(cat cmp)"
assert_contains cmp "1 agree, 0 disagree"

finish
