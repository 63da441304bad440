#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What a new user reads (issue 19, items 1 and 2): reports short enough to
# read (sysbench 1.0's sections, then one Summary block; the full sections
# at --verbosity=4, every figure in the JSON), sweeps and repeats as a
# header and a one-line result per point, and progress on long work
# (prepare, connection set-up) on a terminal, plain lines otherwise.
#
# The line budgets are the issue's: a closed-loop report at most 45
# lines, a rate-mode report at most 55, a 4-point sweep at most 40 lines
# plus its table (before: 56, 98 and 259).
#
# Run by `make check`, or by hand: bash tests/cli/output_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read the JSON documents"
need_tool script "(util-linux) to give sysbench a terminal"

# A 1 ms event with one query, so that the SQL sections are printed.
write_q() {
    cat >q.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int);]]
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  con:query("SELECT 1")
  ffi.C.usleep(1000)
end
LUA
}

# A busy loop far over what one thread can do at the target rate.
write_busy() {
    cat >busy.lua <<'LUA'
function event()
  local x = 0
  for i = 1, 2000000 do x = x + i end
end
LUA
}

tcase "closed loop: 1.0's sections, then one Summary block, at most 45 lines"
write_q
sb --db-driver=sqlite --sqlite-db=a.db q.lua run --threads=2 --time=2 --json=r.json
assert_exit 0
assert_le "$(wc -l <out)" 45 "report lines"
# 1.0's sections in 1.0's order, then ours.
assert_eq "$(grep -E '^(SQL statistics|General statistics|Latency \(ms\)|Threads fairness|Summary \(.*\)):' out | cut -d' ' -f1-2 | tr '\n' ,)" \
    "SQL statistics:,General statistics:,Latency (ms):,Threads fairness:,Summary (the," "section order"
assert_match out '^    CPU per transaction \(us\): +client [0-9.]+, server n/a, machine [0-9.]+ \(use of [0-9]+ CPUs: [0-9.]+%, n/a, [0-9.]+%\)$'
assert_match out '^    server processes: not measured \(sqlite runs inside the client'
assert_match out '^    self-check: +(OK \(stationarity not tested: [12] of 10 samples of 1 s; run at least 10 s\)|FLAGGED \[)'
for s in "CPU cost per transaction" "Self-check:" "Rate (" "Start lag" "client workers:"; do
    assert_not_contains out "$s"
done
# Nothing is lost: the JSON has what the text no longer shows.
assert_eq "$(jget r.json 'len(d["points"][0]["final"]["cpu"]["threads"])')" 2 "per-thread CPU"
assert_eq "$(jget r.json 'sorted(d["points"][0]["selfcheck"]["client_bound"])[:3]')" \
    '["client_delay_mean_ms", "client_demand_pct", "client_late"]' "selfcheck details"

tcase "closed loop at --verbosity=4: the full sections instead of the Summary"
write_q
sb --db-driver=sqlite --sqlite-db=a.db q.lua run --threads=2 --time=1 --verbosity=4
assert_exit 0
assert_contains out "CPU cost per transaction (us of CPU; utilisation of all"
assert_match out '^Self-check:$'
assert_match out '^ +result: +(OK|FLAGGED)'
assert_match out 'worker threads: 2, CPU per thread min/avg/max'
assert_not_contains out "Summary (the full sections"

tcase "rate mode: rate, lag, CPU and verdict in the Summary, at most 55 lines"
write_q
sb --db-driver=sqlite --sqlite-db=a.db q.lua run --threads=2 --time=2 --tx-rate=100 --json=r.json
assert_exit 0
assert_le "$(wc -l <out)" 55 "report lines"
assert_match out '^    rate \(--tx-rate, fixed schedule\): +target 100\.00/s, achieved [0-9.]+/s \([0-9.]+%\)$'
assert_match out '^    late starts, skipped, max backlog: +[0-9]+ \([0-9.]+%\), 0, [0-9]+$'
assert_match out '^    service time avg/p95/max \(ms\): +[0-9.]+/[0-9.]+/[0-9.]+$'
assert_match out '^    start lag avg/p95/max \(ms\): +[0-9.]+/[0-9.]+/[0-9.]+$'
assert_not_contains out "Service time (ms, from actual start):"
# The figures are the JSON's: achieved events over the window.
ev=$(report_num out "total number of events:")
assert_eq "$(jget r.json 'd["points"][0]["final"]["events"]')" "$ev" "events"
assert_count out '^ +max backlog:' 0

tcase "a labelled client-bound run: the verdict and its advice in the Summary"
write_busy
sb busy.lua run --tx-rate=1000 --time=2 --json=r.json
assert_exit 0
assert_match out '^    self-check: +FLAGGED \[client-bound'
assert_contains out "=> client-bound: the client was short of CPU"
assert_eq "$(jget r.json '"client-bound" in d["points"][0]["selfcheck"]["flags"]')" true "flag"

tcase "a 4-point sweep: a header and a result line per point, then the table"
write_q
sb --db-driver=sqlite --sqlite-db=a.db q.lua run --threads=1,2,3,4 --time=1 --json=r.json
assert_exit 0
n=$(grep -n '^Sweep summary' out | cut -d: -f1)
assert_ne "$n" "" "sweep table"
assert_le "$((${n:-999} - 1))" 40 "lines before the table"
assert_count out '^point [1-4] of 4: threads=[1-4]' 4
assert_match out '^point 2 of 4: threads=2'
assert_count out '^    => tps [0-9.]+, qps [0-9.]+, p95 [0-9.]+ ms, p99 [0-9.]+ ms, CPU us/tx client [0-9.]+, self-check (OK|FLAGGED \[[a-z, -]+\])$' 4
assert_count out '^Running the test with following options:$' 1
assert_not_contains out "General statistics:"
assert_not_contains out "Number of threads:"
assert_eq "$(jget r.json '[len(p["intervals"]) >= 0 and p["final"]["events"] > 0 for p in d["points"]]')" \
    "[true, true, true, true]" "every point in the JSON"

tcase "a rate sweep with --repeat: the run in the header, the repeat summary per point"
write_q
sb --db-driver=sqlite --sqlite-db=a.db q.lua run --tx-rate=50,100 --repeat=2 --time=1
assert_exit 0
assert_count out '^point [12] of 2: threads=1, tx-rate=(50|100), run [12] of 2' 4
assert_count out '^    => tps [0-9.]+ \([0-9.]+% of (50|100)\.00\), qps .*, lag p99 [0-9.]+ ms, ' 4
assert_count out '^Repeat summary: 2 runs of 1 thread at (50|100) tx/s' 2
assert_match out '^Transaction rate: each thread on a fixed schedule \(late policy catchup\)$'

tcase "prepare of 1M rows on a terminal: progress, then the time and its parts"
# script(1) runs it on a pseudo-terminal: standard error is a terminal.
SB_RC=0
# The timeout only guards against a hang: 1M rows take 10 s on a quiet
# 2-CPU machine and a minute or more beside other work. The two threads
# take SQLite's one write lock in turn; beside a sanitizer suite one held
# it past the default 5-s busy timeout (a 500,000-row index, commits
# waiting for the disk), which is not what this case is about.
timeout -k 5 600 script -qec "'$SB_BIN' --db-driver=sqlite --sqlite-db=p.db --sqlite-busy-timeout=120000 \
    oltp_read_only --tables=2 --table-size=500000 --threads=2 prepare" /dev/null >tty.txt 2>&1 </dev/null || SB_RC=$?
tr '\r' '\n' <tty.txt | sed $'s/\033\\[K//g' >lines.txt
if [ "$SB_RC" != 0 ]; then
    grep -v '^prepare: ' lines.txt | tail -n 5 | sed 's/^/    | /'
fi
assert_eq "$SB_RC" 0 "exit status"
assert_match lines.txt 'prepare: [0-9]+ of 1000000 rows \([0-9]+%\), [0-9]+ rows/s, [0-9.]+ MB/s, (about [0-9]+ (s|min [0-9]+ s|h [0-9]+ min)|under 1 s) left'
assert_match lines.txt '^Prepare done in [0-9.]+ s \(create [0-9.]+ s, load [0-9.]+ s, index [0-9.]+ s; summed over 2 threads\): 1000000 rows, [0-9]+ rows/s'
# The line is rewritten in place and erased: ESC [ K before each.
assert_gt "$(grep -c $'\033\\[K' tty.txt)" 0 "line erased"

tcase "prepare off a terminal: plain lines only for long work; none for short"
# Short is shorter than the period between lines (10 s by default; a
# loaded machine can take that long for 10,000 rows): a period of an hour
# keeps the work short, however slow the machine.
SB_PROGRESS_EVERY=3600 sb --db-driver=sqlite --sqlite-db=s.db oltp_read_only --table-size=10000 prepare
assert_exit 0
assert_eq "$(wc -c <err)" 0 "nothing on standard error"
assert_match out '^Prepare done in [0-9.]+ s \(create [0-9.]+ s, load [0-9.]+ s, index [0-9.]+ s\): 10000 rows'
# A period shorter than the work: plain lines, no terminal codes.
SB_PROGRESS_EVERY=0.2 sb --db-driver=sqlite --sqlite-db=l.db oltp_read_only \
    --table-size=300000 prepare
assert_exit 0
assert_match err '^prepare: [0-9]+ of 300000 rows \([0-9]+%\), [0-9]+ rows/s'
assert_eq "$(grep -c $'\033' err)" 0 "no terminal codes"
SB_COMPAT=1.0 sb --db-driver=sqlite --sqlite-db=c.db oltp_read_only --table-size=1000 prepare
assert_exit 0
assert_not_contains out "Prepare done"

tcase "sysbench.progress: a script's own rows and phases"
cat >p.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int);]]
function load()
  sysbench.progress.expect(30)
  sysbench.progress.phase("fetch")
  for i = 1, 3 do
    ffi.C.usleep(100000)
    sysbench.progress.add(10)
  end
  sysbench.progress.phase("check")
  ffi.C.usleep(50000)
end
sysbench.cmdline.commands = { load = { load } }
LUA
SB_PROGRESS_EVERY=0.15 sb p.lua load
assert_exit 0
assert_match out '^Load done in [0-9]+\.[0-9]{2} s \(fetch [0-9]+\.[0-9]{2} s, check [0-9]+\.[0-9]{2} s\): 30 rows, [0-9]+ rows/s$'
# The sleeps set the least each part takes (a loaded machine adds to
# them, never takes away): 0.35 s in all, 0.3 s fetching, 0.05 s checking.
read -r total fetch check <<<"$(sed -n 's/^Load done in \([0-9.]*\) s (fetch \([0-9.]*\) s, check \([0-9.]*\) s).*/\1 \2 \3/p' out)"
assert_ge "${total:-0}" 0.35 "load time"
assert_ge "${fetch:-0}" 0.3 "fetch time"
assert_ge "${check:-0}" 0.05 "check time"
assert_le "$(awk -v t="${total:-0}" -v f="${fetch:-0}" -v c="${check:-0}" 'BEGIN { printf "%.2f", f + c - t }')" 0.02 \
    "phases summed beyond the total"
assert_match err '^load: [0-9]+ of 30 rows \([0-9]+%\)'
# In "run" the calls do nothing and print nothing.
cat >r.lua <<'LUA'
function event() sysbench.progress.add(1); sysbench.progress.phase("x") end
LUA
sb r.lua run --events=100 --time=0
assert_exit 0
assert_not_contains out "done in"

tcase "setting up connections: progress while the workers connect"
cat >slow.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int);]]
-- Connection i is ready after i x 60 ms: the count rises over 0.6 s.
function thread_init() ffi.C.usleep(60000 * sysbench.tid) end
function event() end
LUA
SB_PROGRESS_EVERY=0.1 sb slow.lua run --threads=10 --events=10 --time=0
assert_exit 0
assert_match err '^connecting: [0-9]+ of 10 connections \([0-9]+%\)'

finish
