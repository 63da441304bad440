#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `sysbench ab` verdicts on labelled runs, under a background CPU load:
# two targets whose events cost exactly 1.00, 1.03 and 1.10 times each
# other (a probe script running a fixed number of iterations of an
# integer recurrence, --work), compared side by side on the client CPU
# per transaction, which is the events' cost. Each must get its verdict:
# 1.10 and 1.03 worse, 1.00 neither better nor worse (equivalent within
# the margin, or inconclusive), and the interval of a verdict must hold
# the true ratio.
#
# The comparison's chance of a false verdict is 5% by design (and of
# missing a 3% change, at this budget, well under that), so a case that
# gets the wrong verdict is run once more, and fails only when the
# second comparison is wrong too (at most 0.25% for the 1.00 case).
# The two background loops (nice 0, one per CPU) are the load a shared
# machine puts on the comparison.
#
# Run by `make check`, or by hand: bash tests/cli/ab_verdict_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read the JSON documents"

HOG=()
stop_hog() {
    [ "${#HOG[@]}" -gt 0 ] && kill "${HOG[@]}" 2>/dev/null
    HOG=()
}
trap stop_hog EXIT
for _ in 1 2; do
    (while :; do :; done) &
    HOG+=($!)
done

write_probe() {
    cat >probe.lua <<'LUA'
-- Each event runs --work iterations of an integer recurrence: the cost
-- of an event is proportional to --work (its fixed overhead is under
-- 0.1% of 20,000 iterations, about 100 us).
sysbench.cmdline.options = {work = {"iterations per event", 20000}}
local n
function thread_init() n = sysbench.opt.work end
function event()
    local x = 1
    for i = 1, n do x = (x * 1103515245 + i) % 2147483648 end
    probe_sink = x
end
LUA
}

# compare WORK_B ROUNDS: a against b (--work 20000 against WORK_B); the
# verdict and the interval are left in ./verdict.
compare() {
    # A round is 2 s of run and, on a loaded machine, about 4 s of
    # start-up: 40 rounds outlast the default 60-s guard (CI saw only 10
    # rounds done, "interrupted"). The guard is for a hang, not a bound.
    SB_TIMEOUT=600 sb ab --a=--work=20000 "--b=--work=$1" probe.lua --time=2 --rounds="$2" \
        --primary=client-cpu --margin=3% --json=ab.json run
    python3 -c 'import json; v=json.load(open("ab.json"))["verdict"]; print(v["verdict"], v["lo"], v["hi"])' \
        >verdict 2>/dev/null || echo "none" >verdict
}

# labelled WORK_B ROUNDS TRUE WANT...: the verdict is one of WANT and,
# for a difference, its interval holds TRUE; one more comparison when
# not.
labelled() {
    local work=$1 rounds=$2 truth=$3 try v lo hi ok
    shift 3
    for try in 1 2; do
        compare "$work" "$rounds"
        read -r v lo hi <verdict
        ok=0
        for want in "$@"; do
            [ "$v" = "$want" ] && ok=1
        done
        if [ "$ok" = 1 ] && { [ "$v" != worse ] && [ "$v" != better ] ||
            python3 -c "import sys; sys.exit(0 if $lo <= $truth <= $hi else 1)"; }; then
            return 0
        fi
        echo "  comparison $try: $v [$lo, $hi], expected $* holding $truth"
    done
    fail "b costs ${truth}x a: two comparisons wrong"
}

tcase "ab verdict: b costs 1.10x a per event: worse, the interval holds 1.10"
write_probe
labelled 22000 20 1.10 worse

tcase "ab verdict: b costs 1.03x a per event: worse, the interval holds 1.03"
write_probe
labelled 20600 40 1.03 worse

tcase "ab verdict: b costs the same as a: neither better nor worse"
write_probe
labelled 20000 20 1.00 equivalent inconclusive

stop_hog
finish
