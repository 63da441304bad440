#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Command-line behaviour of the sysbench binary: option parsing and every
# error path (one "FATAL: ..." line, exit status 1, never a crash), the
# informational options, legacy option names, config files, scripts from
# standard input and with a #! line, the bare Lua interpreter mode, signals
# during a run, and the run limits and latency report options.
#
# Run by `make check`, or by hand: bash tests/cli/cli_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# A script that opens a database connection in each thread, so that
# connection-time option errors show up.
write_con() {
    cat >con.lua <<'EOF'
function thread_init()
  con = sysbench.sql.driver():connect()
end
function event()
  con:query("SELECT 1")
end
EOF
}

# ---------------------------------------------------------------- unknown options
#
# A script that declares no options accepts any (sysbench 1.0; see
# compat_tests.sh), so these use one that declares an option.
write_decl() {
    printf 'sysbench.cmdline.options = {x = {"x", 1}}\nfunction event() end\n' >ev.lua
}

tcase "unknown general option"
write_decl
sb --no-such-option=1 ev.lua run --events=1
assert_exit 1
assert_fatal "--no-such-option"
assert_lines err 1

tcase "unknown option after the script"
write_decl
sb ev.lua run --events=1 --no-such-script-option=1
assert_exit 1
assert_fatal "--no-such-script-option"
assert_lines err 1

# ---------------------------------------------------------------- bad values
#
# Each entry: the option(s), then the text the FATAL line must contain.
bad_values=(
    "--threads=abc|--threads"
    "--threads=0|--threads"
    "--time=-1|--time"
    "--percentile=150|--percentile"
    "--rand-type=bogus|--rand-type"
    "--histogram=maybe|--histogram"
    "--events=-5|--events"
    "--tx-rate=-1|--tx-rate"
    "--tx-rate=abc|--tx-rate"
    "--tx-rate=10 --tx-jitter=200000|--tx-jitter"
    "--tx-late=bogus|--tx-late"
    "--rate=abc|--rate"
    "--report-interval=x|--report-interval"
    "--verbosity=9|--verbosity"
    "--warmup-time=abc|--warmup-time"
    "--thread-stack-size=lots|--thread-stack-size"
)
for entry in "${bad_values[@]}"; do
    args=${entry%%|*}
    want=${entry#*|}
    tcase "bad value: $args"
    write_ev
    # shellcheck disable=SC2086 # $args is a list of options on purpose.
    sb $args ev.lua run
    assert_exit 1
    assert_fatal "$want"
    assert_lines err 1
    # The value itself is quoted in the message where it is a word.
    case "$args" in
    *=abc|*=bogus|*=maybe|*=x) assert_contains err "${args##*=}" ;;
    esac
done

tcase "bad value: --db-ps-mode=bogus fails when the script connects"
write_con
sb --db-ps-mode=bogus con.lua run --events=10
assert_exit 1
assert_fatal "--db-ps-mode"
assert_contains err "bogus"
assert_lines err 1

tcase "bad value: --db-driver=nosuch fails when the script connects"
write_con
sb --db-driver=nosuch con.lua run --events=10
assert_exit 1
assert_fatal "nosuch"
assert_contains err "con.lua:2"
assert_lines err 1

tcase "--db-driver=nosuch is harmless for a script that never connects"
write_ev
sb --db-driver=nosuch ev.lua run --events=3
assert_exit 0
assert_match out "total number of events: +3$"

# ---------------------------------------------------------------- script errors

tcase "missing script file"
sb no_such_script.lua run
assert_exit 1
assert_fatal "no_such_script.lua"
assert_lines err 1

tcase "script with a syntax error names file and line"
printf 'function event()\n  local x = = 1\nend\n' >syn.lua
sb syn.lua run --events=1
assert_exit 1
assert_fatal "syn.lua:2:"
assert_lines err 1

tcase "runtime error in event() names file:line"
printf 'function event()\n  local t = nil\n  return t.x\nend\n' >rt.lua
sb rt.lua run --events=100 --threads=2
assert_exit 1
assert_fatal "rt.lua:3:"
assert_contains err "nil value"
assert_lines err 1

tcase "error() with a string in event()"
printf 'function event()\n  error("boom in event")\nend\n' >re.lua
sb re.lua run --events=100
assert_exit 1
assert_fatal "re.lua:2: boom in event"
assert_lines err 1

tcase "runtime error in thread_init()"
printf 'function thread_init()\n  error("no init")\nend\nfunction event() end\n' >ti.lua
sb ti.lua run --events=10 --threads=2
assert_exit 1
assert_fatal "ti.lua:2: no init"

tcase "runtime error in the script body"
printf 'local a = 1\nlocal b = a + nil\n' >body.lua
sb body.lua run
assert_exit 1
assert_fatal "body.lua:2:"
assert_lines err 1

tcase "run without event() is an error"
echo 'x = 1' >noev.lua
sb noev.lua run --events=1
assert_exit 1
assert_fatal "event"

tcase "unknown command of a script"
write_ev
sb ev.lua frobnicate
assert_exit 1
assert_fatal "frobnicate"
assert_lines err 1

# ---------------------------------------------------------------- information

tcase "--version"
sb --version --verbosity=4
assert_exit 0
assert_match out "^sysbench [0-9]+\.[0-9]+\.[0-9]+"
assert_contains out "LuaJIT"
assert_match out "drivers:.*sqlite"
assert_match out "allocator: (system|jemalloc|tcmalloc|mimalloc)"
assert_lines err 0

tcase "--help"
sb --help
assert_exit 0
assert_contains out "Usage:"
assert_contains out "--threads="
assert_contains out "--tx-rate="
assert_contains out "sqlite options:"
assert_contains out "--sqlite-db="
assert_lines err 0

tcase "--help: grouped, 80 columns, examples and the bundled scripts"
sb --help
assert_exit 0
# The groups, in order.
assert_eq "$(grep -E '^[A-Z][a-z ,/-]*options:$' out | head -n 6 | tr '\n' '|')" \
    "General options:|Rate options:|Result options:|Repeat, compare and find-max options:|Scale-out options:|Driver options:|" \
    "group headings"
# Options in their group: --tx-rate under Rate, --repeat under Repeat.
assert_eq "$(awk '/^[A-Z].*options:$/ { g = $1 } /^  --tx-rate=/ { print g }' out)" "Rate" "--tx-rate's group"
assert_eq "$(awk '/^[A-Z].*options:$/ { g = $1 } /^  --repeat=/ { print g }' out)" "Repeat," "--repeat's group"
assert_eq "$(awk '/^[A-Z].*options:$/ { g = $1 } /^  --start-at=/ { print g }' out)" "Scale-out" "--start-at's group"
# Every line fits 80 columns (the scripts' folder, printed whole, may not).
dir=$(sed -n 's/^Bundled scripts (SCRIPT by name), in \(.*\)$/\1/p' out)
[ -n "$dir" ] || dir=$(awk '/^Bundled scripts/ { getline; print; exit }' out | sed 's/^  //')
assert_eq "$(grep -v -F -- "$dir" out | awk 'length > 80' | head -n 3)" "" "lines wider than 80 columns"
# Every general option is listed once.
for o in threads time tx-rate rate percentile json plot repeat find-max sla instance \
    start-at db-driver server-pid client-threads; do
    assert_eq "$(grep -c -- "^  --$o[=[]" out)" 1 "--$o listed"
done
# Three examples, and the bundled scripts by name with their folder.
assert_contains out "Examples:"
assert_eq "$(sed -n '/^Examples:/,/^$/p' out | grep -c '^  # ')" 3 "examples"
assert_contains out "  sysbench compare a.json b.json --plot=ab.png"
[ -d "$dir" ] || fail "the scripts' folder '$dir' is not a folder"
for s in oltp_read_write oltp_point_select bulk_insert select_random_ranges; do
    [ -f "$dir/$s.lua" ] || fail "$s.lua is not in $dir"
    sed -n '/^Bundled scripts/,$p' out | grep -qw "$s" || fail "$s not listed"
done
sed -n '/^Bundled scripts/,$p' out | grep -qw oltp_common && fail "oltp_common (a library) listed"
# The --repeat help says what the Repeat summary reports.
assert_contains out "report the geometric mean"
assert_not_contains out "report the median"

tcase "script help command lists script options"
cat >opts.lua <<'EOF'
sysbench.cmdline.options = {
  table_count = {"number of widgets to frob", 7},
}
function event() end
EOF
sb opts.lua help
assert_exit 0
# Shown with dashes, as every other option; --table_count still works.
assert_contains out "--table-count=N"
assert_not_contains out "--table_count"
assert_contains out "number of widgets to frob"
assert_contains out "[7]"
SB_COMPAT=1.0 sb opts.lua help
assert_contains out "--table_count=N"

cp opts.lua "$_T_ROOT/opts.lua"

tcase "a script option's value error names it with dashes"
sb "$_T_ROOT/opts.lua" --table_count=abc run
assert_exit 1
assert_fatal "invalid value 'abc' for --table-count: expected a number"

tcase "an unknown option suggests the closest one"
sb cpu --tx-rat=5 --time=1 run
assert_exit 1
assert_fatal "unknown option: --tx-rat: did you mean --tx-rate?"
sb "$_T_ROOT/opts.lua" --table-cuont=3 run
assert_exit 1
assert_fatal "unknown option: --table-cuont: did you mean --table-count?"
sb "$_T_ROOT/opts.lua" --mysql-pass=x run
assert_exit 1
assert_fatal "unknown option: --mysql-pass: did you mean --mysql-password?"
sb cpu --frobnicate=1 run
assert_exit 1
assert_fatal "unknown option: --frobnicate"
assert_not_contains err "did you mean"

# ---------------------------------------------------------------- option spelling

cat >"$_T_ROOT/optshow.lua" <<'EOF'
sysbench.cmdline.options = {
  my_opt = {"a script option", 1},
}
function event() end
function done()
  print("threads=" .. sysbench.opt.threads)
  print("events=" .. sysbench.opt.events)
  print("time=" .. sysbench.opt.time)
  print("rand_type=" .. sysbench.opt.rand_type)
  print("report_interval=" .. sysbench.opt.report_interval)
  print("my_opt=" .. sysbench.opt.my_opt)
end
EOF

tcase "legacy option names"
cp "$_T_ROOT/optshow.lua" .
sb --num-threads=2 --max-requests=7 --max-time=5 --test=optshow.lua run
assert_exit 0
assert_kv out threads 2
assert_kv out events 7
assert_kv out time 5
assert_match out "total number of events: +7$"
assert_contains out "Number of threads: 2"

tcase "'-' and '_' are the same in option names"
cp "$_T_ROOT/optshow.lua" .
sb --rand_type=uniform --report_interval=0 optshow.lua run --events=2 --my-opt=5
assert_exit 0
assert_kv out rand_type uniform
assert_kv out my_opt 5
sb --rand-type=pareto optshow.lua run --events=2 --my_opt=6
assert_exit 0
assert_kv out rand_type pareto
assert_kv out my_opt 6

tcase "--config-file and command-line precedence"
cp "$_T_ROOT/optshow.lua" .
printf '# a comment\nthreads=3\nevents=11\n\nrand-type=gaussian\nmy_opt=9\n' >cfg
sb --config-file=cfg optshow.lua run
assert_exit 0
assert_kv out threads 3
assert_kv out events 11
assert_kv out rand_type gaussian
assert_kv out my_opt 9
assert_match out "total number of events: +11$"
sb --config-file=cfg --events=4 optshow.lua run --my-opt=2
assert_exit 0
assert_kv out threads 3
assert_kv out events 4
assert_kv out my_opt 2

tcase "--config-file that does not exist"
write_ev
sb --config-file=nonexistent.cfg ev.lua run
assert_exit 1
assert_fatal "nonexistent.cfg"
assert_lines err 1

tcase "--config-file with an unknown option"
write_decl
printf 'threads=2\nno_such_thing=1\n' >bad.cfg
sb --config-file=bad.cfg ev.lua run --events=1
assert_exit 1
assert_fatal "no_such_thing"

# ---------------------------------------------------------------- script sources

tcase "script read from standard input with '-'"
echo 'print("from stdin " .. (40 + 2))' >stdin.lua
SB_STDIN=stdin.lua sb -
assert_exit 0
assert_lines out 1
assert_contains out "from stdin 42"
echo 'function event() end' >stdin2.lua
SB_STDIN=stdin2.lua sb - run --events=5
assert_exit 0
assert_match out "total number of events: +5$"

tcase "script starting with #!/usr/bin/env sysbench"
printf '#!/usr/bin/env sysbench\nfunction event() end\nprint("shebang body ran")\n' >sh.lua
sb sh.lua
assert_exit 0
assert_contains out "shebang body ran"
sb sh.lua run --events=3
assert_exit 0
assert_match out "total number of events: +3$"
# Executed directly through env, with the binary first on PATH.
mkdir bin && ln -s "$SB_BIN" bin/sysbench && chmod +x sh.lua
rc=0
PATH="$T/bin:$PATH" ./sh.lua >direct.out 2>&1 || rc=$?
assert_eq "$rc" 0 "exit status of ./sh.lua"
assert_contains direct.out "shebang body ran"

tcase "no command: the script body runs as a Lua interpreter"
cat >interp.lua <<'EOF'
print("command=" .. tostring(sysbench.cmdline.command))
print("sum=" .. (function() local s = 0 for i = 1, 100 do s = s + i end return s end)())
print("jit=" .. tostring(jit ~= nil))
os.exit(3)
EOF
sb interp.lua
assert_exit 3
assert_kv out command nil
assert_kv out sum 5050
assert_kv out jit true
assert_lines out 3
assert_lines err 0

# ---------------------------------------------------------------- signals

for sig in INT:130 TERM:143; do
    name=${sig%%:*}
    code=${sig#*:}
    tcase "SIG$name during run prints the report and exits $code"
    write_ev
    # The signal comes once the run is under way (an interval line), not
    # after a fixed sleep: set-up on a loaded machine can take longer.
    sb_bg ev.lua run --time=30 --threads=2 --report-interval=1
    wait_for_report out
    start=$(date +%s)
    kill -"$name" "$SB_PID"
    sb_wait
    end=$(date +%s)
    assert_exit "$code"
    assert_lt $((end - start)) 10 "seconds until exit"
    assert_contains out "General statistics:"
    assert_contains out "Threads fairness:"
    ev=$(report_num out "total number of events:")
    assert_gt "${ev:-0}" 0 "events before the signal"
    tt=$(report_num out "total time:")
    assert_lt "${tt:-99}" 8 "reported total time"
    assert_no_crash
done

# ---------------------------------------------------------------- run limits

tcase "--events stops at exactly N events"
cat >calls.lua <<'EOF'
local n = 0
function event() n = n + 1 end
function thread_done() print(string.format("calls%d=%d", sysbench.tid, n)) end
EOF
sb calls.lua run --events=1000 --threads=2 --time=0
assert_exit 0
assert_match out "total number of events: +1000$"
assert_eq "$(sum_kv out calls)" 1000 "event() calls over both threads"

tcase "--time ends the run near the limit"
write_ev
start=$(date +%s%N)
sb ev.lua run --time=2 --threads=2
end=$(date +%s%N)
assert_exit 0
tt=$(report_num out "total time:")
assert_between "${tt:-0}" 1.9 2.5 "total time"
# The whole process, set-up and teardown included, which a loaded machine
# stretches (4.7 s seen beside two CPU hogs): it ends, and not after
# another --time.
assert_le $(( (end - start) / 1000000 )) 12000 "wall-clock milliseconds"

tcase "--percentile=50,99,99.9"
write_ev
sb ev.lua run --events=2000 --percentile=50,99,99.9
assert_exit 0
assert_match out "^ +50th percentile: +[0-9.]+$"
assert_match out "^ +99th percentile: +[0-9.]+$"
assert_match out "^ +99\.9th percentile: +[0-9.]+$"
assert_not_contains out "95th percentile"

tcase "--percentile default is 95"
write_ev
sb ev.lua run --events=100
assert_exit 0
assert_match out "^ +95th percentile: +[0-9.]+$"

tcase "--histogram prints a histogram of all events"
write_ev
sb ev.lua run --events=5000 --histogram
assert_exit 0
assert_contains out "Latency histogram"
# The counts in the last column add up to the number of events.
total=$(awk '/Latency histogram/ { h = 1; next }
    h && /\|/ { s += $NF } h && /^$/ { h = 0 } END { print s + 0 }' out)
assert_eq "$total" 5000 "sum of histogram counts"
sb ev.lua run --events=10
assert_not_contains out "Latency histogram"

tcase "--warmup-time runs events before the measured run"
cat >warm.lua <<'EOF'
local n = 0
function event() n = n + 1 end
function thread_done() print("calls=" .. n) end
EOF
start=$(date +%s%N)
sb warm.lua run --warmup-time=1 --time=1
end=$(date +%s%N)
assert_exit 0
assert_contains out "Warming up"
calls=$(kv out calls)
ev=$(report_num out "total number of events:")
assert_gt "${ev:-0}" 0 "measured events"
# Warm-up events ran but are not in the statistics.
assert_gt "${calls:-0}" "${ev:-0}" "event() calls vs measured events"
tt=$(report_num out "total time:")
assert_le "${tt:-99}" 1.5 "measured total time"
assert_ge $(( (end - start) / 1000000 )) 1900 "wall-clock milliseconds"

tcase "every interval line is printed, the last one too, in rate modes"
cat >empty.lua <<'EOF'
function event() end
EOF
sb empty.lua run --threads=2 --time=3 --report-interval=1 --tx-rate=500
assert_exit 0
assert_eq "$(grep -oE '^\[ [0-9]+s \]' out | tr -d '[] ' | tr '\n' ' ')" "1s 2s 3s " "interval labels"
sb empty.lua run --threads=2 --time=2 --report-interval=1
assert_exit 0
assert_eq "$(grep -oE '^\[ [0-9]+s \]' out | tr -d '[] ' | tr '\n' ' ')" "1s 2s " "interval labels, closed loop"

tcase "--server-pid that is malformed or names no process: one line, exit 1"
cat >empty.lua <<'EOF'
function event() end
EOF
sb empty.lua run --time=1 --server-pid=abc
assert_exit 1
assert_fatal "--server-pid: expected a pid at 'abc'"
sb empty.lua run --time=1 --server-pid=999999999
assert_exit 1
assert_fatal "--server-pid: no process with pid 999999999"
sb empty.lua run --time=1 --server-pid=$$
assert_exit 0
assert_contains out "server processes: --server-pid=$$"

finish
