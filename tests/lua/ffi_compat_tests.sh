#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# sysbench 1.0's FFI surface (shared/LUA_COMPAT.md section 3): scripts that
# declare 1.0's prototypes and call the exported sb_rand_*, sb_histogram_*
# and counter functions, in worker threads and in the main state, on SQLite.
# ffi_compat.lua checks the details itself (tlib.lua "not ok" lines).
#
# Run by `make check`, or by hand: bash tests/lua/ffi_compat_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

L="$SB_SRCDIR/tests/lua"

assert_clean() {
    if grep -q '^not ok' out; then
        fail "script checks failed: $(grep '^not ok' out | head -5 | tr '\n' ';')"
    fi
}

tcase "1.0 prototypes called from worker threads"
sb "$L/ffi_compat.lua" run --threads=2 --events=200
assert_exit 0
assert_clean
n0=$(kv out checks_thread0)
assert_gt "${n0:-0}" 100 "checks run in thread 0"
assert_eq "$(kv out checks_thread1)" "$n0" "checks run in thread 1"
assert_match out "total number of events: +200$"
assert_match out "^ +read: +200$"

tcase "1.0 prototypes called from the main state; histogram print format"
sb "$L/ffi_compat.lua" check
assert_exit 0
assert_clean
assert_eq "$(kv out checks_main)" "$n0" "checks run in the main state"
assert_contains out "printed"
assert_contains out "       value  ------------- distribution ------------- count"
# 10 buckets over [1, 100]: 1 and 1000 (clamped to 100) are the first and
# last bucket; the bar is scaled to the fullest one (40 stars).
assert_match out '^ +1\.000 \|\*{40} 40$'
assert_match out '^ +100\.000 \|\*{20} {21}20$'
assert_match out '^ +2\.783 \|\* {40}1$'

tcase "--rand-type=uniform: sb_rand_default wraps with the uniform rule"
sb --rand-type=uniform "$L/ffi_compat.lua" check
assert_exit 0
assert_clean

tcase "thread-own generators: same --rand-seed, same sequences"
sb --rand-seed=7 --threads=2 "$L/ffi_compat.lua" draw
assert_exit 0
grep '^t[0-9]' out | sort >s7a
assert_lines s7a 20
sb --rand-seed=7 --threads=2 "$L/ffi_compat.lua" draw
grep '^t[0-9]' out | sort | cmp -s - s7a || fail "two runs with --rand-seed=7 differ"
sb --rand-seed=8 --threads=2 "$L/ffi_compat.lua" draw
grep '^t[0-9]' out | sort | cmp -s - s7a && fail "--rand-seed=7 and 8 give the same sequences"
grep '^t0 ' s7a | cut -d' ' -f2- >t0
grep '^t1 ' s7a | cut -d' ' -f2- >t1
cmp -s t0 t1 && fail "threads 0 and 1 draw the same sequence"
# Thread 0's sequence does not depend on other threads drawing.
sb --rand-seed=7 --threads=1 "$L/ffi_compat.lua" draw
grep '^t0 ' out | cmp -s - <(grep '^t0 ' s7a) || fail "thread 0 differs between --threads=1 and 2"
# The main state has its own generator, seeded too.
sb --rand-seed=7 "$L/ffi_compat.lua" maindraw
assert_exit 0
grep '^t' out >m7a
assert_lines m7a 10
sb --rand-seed=7 "$L/ffi_compat.lua" maindraw
grep '^t' out | cmp -s - m7a || fail "two main-state runs with --rand-seed=7 differ"

tcase "unique() never repeats across threads; same seed, same set"
sb --rand-seed=3 --threads=2 "$L/ffi_compat.lua" uniq
assert_exit 0
assert_contains out "uniq_done_0"
assert_contains out "uniq_done_1"
awk '$1 == "u" { print $2; print $3 }' out | sort >u3a
assert_lines u3a 20000
assert_eq "$(uniq -d u3a | wc -l)" 0 "values drawn twice"
# The interleaving between threads varies, the set drawn does not.
sb --rand-seed=3 --threads=2 "$L/ffi_compat.lua" uniq
awk '$1 == "u" { print $2; print $3 }' out | sort | cmp -s - u3a ||
    fail "two runs with --rand-seed=3 drew different sets"
sb --rand-seed=4 --threads=2 "$L/ffi_compat.lua" uniq
awk '$1 == "u" { print $2; print $3 }' out | sort | cmp -s - u3a &&
    fail "--rand-seed=3 and 4 drew the same set"

tcase "redeclaring a 1.0 enum is refused as in 1.0; a typedef is accepted"
cat >redecl.lua <<'EOF2'
local ffi = require("ffi")
ffi.cdef[[ typedef struct histogram sb_histogram_t; ]]
ffi.cdef[[ uint32_t sb_rand_uniform(uint32_t, uint32_t); ]]
io.write("typedef ok\n")
ffi.cdef[[ typedef enum { SQL_TYPE_NONE } my_type_t; ]]
EOF2
sb redecl.lua
assert_ne "$SB_RC" 0 "exit status"
assert_contains out "typedef ok"
assert_fatal "attempt to redefine 'SQL_TYPE_NONE'"

finish
