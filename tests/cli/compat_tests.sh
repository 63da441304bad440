#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# sysbench 1.0.20 command-line compatibility (shared/LUA_COMPAT.md, section
# 1 "options as globals" and section 2 "Options" and "State and hooks"):
# options as globals, 1.0's option typing and validators, malformed
# declarations, sysbench.opt types, legacy names, --verbosity, a piped
# script, --version, the inferred --db-driver, and sysbench.tid and the
# sysbench.cmdline functions. Every expectation was measured on 1.0.20.
#
# Run by `make check`, or by hand: bash tests/cli/compat_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# show.lua: prepare prints "name<TAB>type<TAB>value" for globals named on
# the command line after --names= (tables as {a,b}).
write_show() {
    cat >show.lua <<'EOF'
local function fmt(v)
  if type(v) == "table" then return "{" .. table.concat(v, ",") .. "}" end
  return tostring(v)
end
function prepare()
  for n in string.gmatch(names, "[^,]+") do
    print(n, type(_G[n]), fmt(_G[n]))
  end
end
EOF
}

# optshow.lua: the same for sysbench.opt, with declared options.
write_optshow() {
    cat >optshow.lua <<'EOF'
sysbench.cmdline.options = {
  num = {"a number", 10},
  str = {"a string without default"},
  b = {"a boolean without default", nil, sysbench.cmdline.ARG_BOOL},
  l = {"a list", {1, 2}},
  s2 = {"a string", "x"},
  names = {"what to print", "num,str,b,l,s2"},
}
local function fmt(v)
  if type(v) == "table" then return "{" .. table.concat(v, ",") .. "}" end
  return tostring(v)
end
function prepare()
  for n in string.gmatch(sysbench.opt.names, "[^,]+") do
    print(n, type(sysbench.opt[n]), fmt(sysbench.opt[n]))
  end
end
EOF
}

# ---------------------------------------------------------------- globals

tcase "options are globals when the script declares none"
write_show
sb show.lua prepare --verbosity=0 --threads=3 --oltp-table-size=7 --foo-bar \
    --names=oltp_table_size,foo_bar,threads,num_threads,mysql_host,pgsql_port,percentile,mysql_ssl
assert_exit 0
assert_contains out $'oltp_table_size\tstring\t7'
assert_contains out $'foo_bar\tstring\t'
assert_contains out $'threads\tnumber\t3'
assert_contains out $'num_threads\tnumber\t3'
assert_contains out $'mysql_host\ttable\t{localhost}'
assert_contains out $'pgsql_port\tnumber\t5432'
assert_contains out $'percentile\tnumber\t95'
assert_contains out $'mysql_ssl\tboolean\tfalse'

tcase "option globals exist in worker states too"
cat >w.lua <<'EOF'
function thread_init() print("thread", sysbench.tid, foo, time) end
function event() end
EOF
sb w.lua run --events=1 --threads=2 --foo=bar --time=5 --verbosity=0
assert_exit 0
assert_contains out $'thread\t0\tbar\t5'
assert_contains out $'thread\t1\tbar\t5'

tcase "option globals do not replace a library (--debug)"
cat >d.lua <<'EOF'
function prepare() print(type(debug), type(debug.traceback)) end
EOF
sb d.lua prepare --verbosity=0
assert_exit 0
assert_contains out $'table\tfunction'

tcase "a script that declares options still rejects unknown ones"
write_optshow
sb optshow.lua prepare --no-such-option=1
assert_exit 1
assert_fatal "--no-such-option"

tcase "no globals for a script that declares options"
cat >g.lua <<'EOF'
sysbench.cmdline.options = {x = {"x", 1}}
function prepare() print("threads global:", tostring(threads)) end
EOF
sb g.lua prepare --verbosity=0
assert_exit 0
assert_contains out $'threads global:\tnil'

# ---------------------------------------------------------------- typing

tcase "declared option defaults have 1.0's values"
write_optshow
sb optshow.lua prepare --verbosity=0
assert_exit 0
assert_contains out $'num\tnumber\t10'
assert_contains out $'str\tstring\t'
assert_contains out $'b\tboolean\ttrue'
assert_contains out $'l\ttable\t{1,2}'
assert_not_contains out "nil"

tcase "a number option takes a fraction; bare --list and --str are empty"
write_optshow
sb optshow.lua prepare --verbosity=0 --num=1.5 --l --s2 --b=off
assert_exit 0
assert_contains out $'num\tnumber\t1.5'
assert_contains out $'l\ttable\t{}'
assert_contains out $'s2\tstring\t'
assert_contains out $'b\tboolean\tfalse'

tcase "a validator rejects a value"
cat >v.lua <<'EOF'
sysbench.cmdline.options = {
  v = {"validated", 5, nil, function(name, value)
         io.stdout:write("validator ", name, " ", value, "\n")
         return tonumber(value) < 100 end},
}
function prepare() print("v is", sysbench.opt.v) end
EOF
sb v.lua prepare --v=200 --verbosity=0
assert_exit 1
assert_fatal "invalid option: --v=200"
assert_contains out "validator v 200"
assert_not_contains out "v is"

tcase "a validator accepts a value, and is not called for defaults"
cat >v.lua <<'EOF'
sysbench.cmdline.options = {
  v = {"validated", 5, nil, function(name, value) print("called"); return true end},
  w = {"validated", 5, nil, function(name, value) print("w called"); return false end},
}
function prepare() print("v is", sysbench.opt.v) end
EOF
sb v.lua prepare --v=50 --verbosity=0
assert_exit 0
assert_contains out $'v is\t50'
assert_count out '^called$' 1
assert_not_contains out "w called"

tcase "a validator that raises gives one FATAL line"
cat >v.lua <<'EOF'
sysbench.cmdline.options = {v = {"validated", 5, nil, function() error("no way") end}}
function prepare() end
EOF
sb v.lua prepare --v=1
assert_exit 1
assert_fatal "no way"

# Each entry: a first line for the script, then text the FATAL line must hold.
malformed=(
    'sysbench.cmdline.options = 5|must be a table'
    'sysbench.cmdline.options = {x = 5}|each entry'
    'sysbench.cmdline.options = {[1] = {"d", 1}}|number key'
    'sysbench.cmdline.options = {x = {nil, 1}}|no description'
    'sysbench.cmdline.options = {x = {"d", {1}, sysbench.cmdline.ARG_INT}}|list default'
    'sysbench.cmdline.options = {x = {"d", 1, 99}}|unknown type'
    'sysbench.cmdline.options = {x = {"d", function() end}}|unsupported type'
    'sysbench.cmdline.options = {x = {"d", 1, nil, 42}}|validator'
    'sysbench = 5|replaced the global'
    'sysbench.cmdline = 5|sysbench.cmdline'
)
for entry in "${malformed[@]}"; do
    tcase "malformed declaration: ${entry%%|*}"
    printf '%s\nfunction prepare() print("ran") end\n' "${entry%%|*}" >m.lua
    sb m.lua prepare
    assert_exit 1
    assert_fatal "${entry#*|}"
    assert_not_contains out "ran"
done

tcase "a strict-mode _G metatable does not upset the C side"
cat >s.lua <<'EOF'
setmetatable(_G, {__index = function(t, k) error("undefined global " .. k, 2) end})
function event() end
function prepare() print("ran") end
EOF
sb s.lua prepare --verbosity=0
assert_exit 0
assert_contains out "ran"
assert_no_crash

# ---------------------------------------------------------------- sysbench.opt

tcase "sysbench.opt keeps 1.0's types for widened options"
cat >o.lua <<'EOF'
sysbench.cmdline.options = {x = {"x", 1}}
function prepare()
  local o = sysbench.opt
  print(type(o.percentile), o.percentile, type(o.pgsql_host), o.pgsql_host,
        type(o.pgsql_port), o.pgsql_port, type(o.mysql_ssl), tostring(o.mysql_ssl),
        type(o.mysql_host), type(o.mysql_debug))
end
EOF
sb o.lua prepare --verbosity=0 --db-driver=sqlite --percentile=99,50 --pgsql-host=h1,h2 --pgsql-port=6000 --mysql-ssl=required
assert_exit 0
assert_contains out $'number\t99\tstring\th1\tnumber\t6000\tboolean\ttrue\ttable\tboolean'

# ---------------------------------------------------------------- legacy names

tcase "--mysql-debug is accepted"
cat >e.lua <<'EOF'
function prepare() print("debug is", sysbench.opt.mysql_debug) end
EOF
sb e.lua prepare --mysql-debug --db-driver=sqlite --verbosity=0
assert_exit 0
assert_contains out $'debug is\ttrue'

tcase "legacy option names print 1.0's warnings on stdout, in 1.0's order"
write_ev
sb --max-time=1 --max-requests=2 --num-threads=2 --test=ev.lua run
assert_exit 0
head -n 4 out >first4
assert_eq "$(sed -n 1p first4)" "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options." "line 1"
assert_eq "$(sed -n 2p first4)" "WARNING: --num-threads is deprecated, use --threads instead" "line 2"
assert_eq "$(sed -n 3p first4)" "WARNING: --max-requests is deprecated, use --events instead" "line 3"
assert_eq "$(sed -n 4p first4)" "WARNING: --max-time is deprecated, use --time instead" "line 4"
assert_not_contains err "deprecated"

tcase "no warning for the current names, nor for legacy names at 1.0's defaults"
write_ev
sb ev.lua run --threads=1 --events=2 --time=1
assert_exit 0
assert_not_contains out "deprecated"
sb ev.lua run --num-threads=1 --max-requests=0 --max-time=0 --events=2
assert_exit 0
assert_not_contains out "deprecated"

# ---------------------------------------------------------------- verbosity

cat_quiet_script() {
    cat >q.lua <<'EOF'
print("body")
function init() print("init") end
function event() end
function prepare() print("prep") end
EOF
}
for v in 0 1 2; do
    tcase "--verbosity=$v prints only the script's output (run)"
    cat_quiet_script
    sb q.lua run --events=5 --verbosity=$v
    assert_exit 0
    assert_eq "$(tr '\n' ' ' <out)" "body init body " "stdout"
    assert_lines err 0

    tcase "--verbosity=$v prints only the script's output (prepare)"
    cat_quiet_script
    sb q.lua prepare --verbosity=$v
    assert_exit 0
    assert_eq "$(tr '\n' ' ' <out)" "body prep " "stdout"
done

tcase "--verbosity=0 still prints a FATAL line"
printf 'function prepare() error("boom") end\n' >f.lua
sb f.lua prepare --verbosity=0
assert_exit 1
assert_fatal "boom"

tcase "--verbosity=0 still calls the script's report hook"
cat >r.lua <<'EOF'
function event() end
sysbench.hooks.report_cumulative = function(s) print("cumulative", s.events) end
EOF
sb r.lua run --events=3 --verbosity=0
assert_exit 0
assert_eq "$(cat out)" $'cumulative\t3' "stdout"

tcase "the default verbosity prints the banner and the report"
cat_quiet_script
sb q.lua run --events=5
assert_exit 0
assert_match out '^sysbench [0-9]'
assert_contains out "Threads started!"
assert_contains out "General statistics:"

# ---------------------------------------------------------------- stdin

tcase "a script piped in without '-' runs"
printf 'print("from stdin", type(sysbench.cmdline))\n' >in.lua
SB_STDIN=in.lua sb
assert_exit 0
assert_contains out $'from stdin\ttable'

tcase "a terminal on stdin without a script prints the usage"
need_tool script "to give sysbench a terminal"
script -qec "$SB_BIN" /dev/null </dev/null >out 2>err
rc=$?
assert_eq "$rc" 1 "exit status"
assert_contains out "Usage:"

# ---------------------------------------------------------------- --version

tcase "--version prints one line"
sb --version
assert_exit 0
assert_lines out 1
assert_match out '^sysbench [0-9]+\.[0-9]+\.[0-9]+$'

tcase "--version with a higher --verbosity prints the build details"
sb --version --verbosity=4
assert_exit 0
assert_match out '^sysbench [0-9]'
assert_contains out "LuaJIT"
assert_contains out "drivers:"

# ---------------------------------------------------------------- --db-driver

cat_driver_script() {
    echo 'function prepare() print("driver", sysbench.opt.db_driver) end function event() end' >dd.lua
}

tcase "--mysql-* options choose the mysql driver"
cat_driver_script
sb dd.lua prepare --mysql-host=127.0.0.1 --verbosity=0
assert_exit 0
assert_contains out $'driver\tmysql'

tcase "--pgsql-* options choose the pgsql driver"
cat_driver_script
sb dd.lua prepare --pgsql-port=5433 --verbosity=0
assert_exit 0
assert_contains out $'driver\tpgsql'

tcase "no driver option means sqlite"
cat_driver_script
sb dd.lua prepare --verbosity=0
assert_exit 0
assert_contains out $'driver\tsqlite'

tcase "driver options from a config file choose the driver"
cat_driver_script
printf 'mysql-user=bob\n' >c.cfg
sb dd.lua prepare --config-file=c.cfg --verbosity=0
assert_exit 0
assert_contains out $'driver\tmysql'

tcase "options of two drivers need --db-driver"
cat_driver_script
sb dd.lua prepare --mysql-host=h --pgsql-port=1
assert_exit 1
assert_fatal "--db-driver"

tcase "--db-driver wins over other drivers' options"
cat_driver_script
sb dd.lua prepare --mysql-host=h --pgsql-port=1 --db-driver=sqlite --verbosity=0
assert_exit 0
assert_contains out $'driver\tsqlite'

tcase "the run header says which driver runs and why"
write_ev
sb ev.lua run --events=1 --mysql-dry-run
assert_exit 0
assert_contains out "Number of threads: 1"
assert_contains out "Database driver: mysql (from --mysql-dry-run)"
sb ev.lua run --events=1
assert_contains out "Database driver: sqlite (default)"
sb ev.lua run --events=1 --db-driver=sqlite
assert_contains out "Database driver: sqlite (--db-driver)"

tcase "PGHOST, PGSERVICE or PGDATABASE and no driver option: pgsql, said in the header"
cat_driver_script
# No server is needed: the driver is chosen before any connection.
for v in PGHOST=127.0.0.1 PGSERVICE=nosuch PGDATABASE=bench; do
    env "$v" "$SB_BIN" dd.lua prepare --verbosity=0 >"$T/out" 2>"$T/err" || true
    assert_contains out $'driver\tpgsql'
done
write_ev
# ev.lua connects to nothing: the run ends well, and the header and the
# server probe say PostgreSQL, where PGHOST and PGPORT point.
PGHOST=127.0.0.1 PGPORT=1 sb ev.lua run --events=1
assert_exit 0
assert_contains out "Database driver: pgsql (from PGHOST; --db-driver chooses another)"
assert_contains out "(host set by PGHOST, port by PGPORT;"
# Another driver's option, or --db-driver, wins over the variables.
PGHOST=127.0.0.1 sb ev.lua run --events=1 --sqlite-db=x.db
assert_exit 0
assert_contains out "Database driver: sqlite (from --sqlite-db)"
PGHOST=127.0.0.1 sb ev.lua run --events=1 --db-driver=sqlite
assert_exit 0
assert_contains out "Database driver: sqlite (--db-driver)"
# Other libpq variables name no server: the default stays.
PGPORT=5433 PGUSER=bench sb ev.lua run --events=1
assert_exit 0
assert_contains out "Database driver: sqlite (default)"
# SB_COMPAT=1.0 keeps 1.0's default (mysql), which ignored them.
PGHOST=127.0.0.1 SB_COMPAT=1.0 sb dd.lua prepare --verbosity=0
assert_contains out $'driver\tmysql'

# ---------------------------------------------------------------- state, hooks

tcase "sysbench.tid is 0 in the main state"
cat >t.lua <<'EOF'
function init() print("init", sysbench.tid) end
function done() print("done", sysbench.tid) end
function prepare() print("prepare", sysbench.tid) end
function event() end
sysbench.hooks.report_cumulative = function() print("report", sysbench.tid) end
EOF
sb t.lua run --events=1 --verbosity=0
assert_exit 0
assert_contains out $'init\t0'
assert_contains out $'done\t0'
assert_contains out $'report\t0'
sb t.lua prepare --verbosity=0
assert_contains out $'prepare\t0'

tcase "sysbench.cmdline functions and constants"
cat >c.lua <<'EOF'
local c = sysbench.cmdline
function plain() end
c.commands = {
  one = {function() print("one ran") end},
  par = {function() return false end, c.PARALLEL_COMMAND},
}
function prepare()
  print(c.ARG_NULL, c.ARG_BOOL, c.ARG_FILE, c.ARG_MAX)
  print(c.command_defined("one"), c.command_defined("plain"), c.command_defined("none"))
  print(c.command_parallel("par"), c.command_parallel("one"), c.command_parallel("none"))
  print(c.call_command("one"), c.call_command("par"), c.call_command("none"))
  print(c.read_cmdline_options())
end
EOF
sb c.lua prepare --verbosity=0
assert_exit 0
assert_contains out $'0\t1\t7\t8'
assert_contains out $'true\tfalse\tfalse'
assert_contains out $'true\tfalse\tfalse'
assert_contains out "one ran"
assert_eq "$(sed -n 5p out)" $'true\tfalse\tfalse' "call_command results"
assert_eq "$(sed -n 6p out)" "true" "read_cmdline_options"

# ---------------------------------------------------------------- SB_COMPAT=1.0
# The 1.0-layout switch: 1.0.20's own regression suite (tests/t of its
# source, tag 1.0.20: cmdline.t, test_cpu.t, opt_histogram.t,
# opt_report_interval.t) expects these texts; each was also printed by
# /usr/bin/sysbench 1.0.20. Without the switch our own wordings stay.

tcase "SB_COMPAT=1.0: banner first, 1.0's wording for an unknown benchmark"
SB_COMPAT=1.0 sb foo bar
assert_exit 1
sed -n 1p out >banner
assert_match banner "^sysbench $(env -u SB_COMPAT "$SB_BIN" --version | cut -d' ' -f2) \(using system LuaJIT [^)]+\)\$"
assert_eq "$(sed -n 2p out)" "" "line after the banner"
# 1.0.20 logs a FATAL on standard output.
assert_eq "$(sed -n 3p out)" "FATAL: Cannot find benchmark 'foo': no such built-in test, file or module" "line 3"
assert_eq "$(cat err)" "" "stderr"
sb foo bar
assert_exit 1
assert_contains err "cannot find script 'foo'"
assert_not_contains out "using system LuaJIT"

tcase "SB_COMPAT=1.0: 1.0's plain messages (no FATAL prefix)"
SB_COMPAT=1.0 sb foo bar baz
assert_exit 1
assert_eq "$(cat err)" "Unrecognized command line argument: baz" "too many arguments"
SB_COMPAT=1.0 sb cpu prepare
assert_exit 1
assert_eq "$(cat err)" "'cpu' test does not implement the 'prepare' command." "builtin command"
SB_COMPAT=1.0 sb fileio
assert_exit 1
assert_eq "$(cat err)" "The 'fileio' test requires a command argument. See 'sysbench fileio help'" "no command"
printf 'function event() end\n' >s.lua
SB_COMPAT=1.0 sb s.lua prepare
assert_exit 1
assert_eq "$(cat err)" "'s.lua' test does not implement the 'prepare' command." "script command"
SB_COMPAT=1.0 sb s.lua help
assert_exit 1
assert_eq "$(cat err)" "'s.lua' test does not implement the 'help' command." "help without options"
printf 'sysbench.cmdline.options = {a = {"a", 1}}\nfunction event() end\n' >d.lua
SB_COMPAT=1.0 sb d.lua run --no-such=3
assert_exit 1
assert_eq "$(cat err)" "invalid option: --no-such=3" "unknown option"
printf 'x = 1\n' >n.lua
SB_COMPAT=1.0 sb n.lua run
assert_exit 1
assert_eq "$(sed -n 3p out)" "FATAL: cannot find the event() function in n.lua" "no event()"
SB_COMPAT=1.0 sb --test=s.lua --events=1 run
assert_contains err "WARNING: the --test option is deprecated."
assert_not_contains out "WARNING: the --test option"

tcase "oltp_insert --auto-inc=off prepare makes empty tables (1.0.20)"
if need_tool sqlite3; then
    sb oltp_insert --sqlite-db=i.db --auto-inc=off --tables=1 --table-size=100 prepare
    assert_exit 0
    assert_not_contains out "Inserting"
    assert_eq "$(sqlite3 i.db 'SELECT COUNT(*) FROM sbtest1')" 0 "rows after prepare"
    sb oltp_insert --sqlite-db=i.db --auto-inc=off --tables=1 --table-size=100 --events=50 run
    assert_exit 0
    assert_eq "$(sqlite3 i.db 'SELECT COUNT(*) FROM sbtest1')" 50 "rows after 50 inserts"
    sb oltp_insert --sqlite-db=j.db --tables=1 --table-size=100 prepare
    assert_eq "$(sqlite3 j.db 'SELECT COUNT(*) FROM sbtest1')" 100 "rows with --auto-inc=on"
fi

tcase "SB_COMPAT=1.0: --help with an unknown script prints the usage, exit 0"
SB_COMPAT=1.0 sb --help nosuchscript
assert_exit 0
assert_contains out "Usage:"
sb --help nosuchscript
assert_exit 1

tcase "SB_COMPAT=1.0: parallel commands and unknown commands as 1.0"
cat >pc.lua <<'EOF'
sysbench.cmdline.commands = {
  cmd2 = {function() print("cmd2 " .. sysbench.tid) end, sysbench.cmdline.PARALLEL_COMMAND},
}
function event() end
EOF
SB_COMPAT=1.0 sb --threads=2 pc.lua cmd2
assert_exit 0
assert_eq "$(sed -n 3p out)" "Initializing worker threads..." "line 3"
assert_count out '^cmd2 [01]$' 2
SB_COMPAT=1.0 sb --threads=2 pc.lua cmd3
assert_exit 1
assert_eq "$(cat err)" "Unknown command: cmd3" "unknown command"
sb --threads=2 pc.lua cmd2
assert_not_contains out "Initializing worker threads..."
SB_COMPAT=1.0 sb --threads=1 pc.lua cmd2
assert_exit 0
assert_not_contains out "Initializing worker threads..."

tcase "SB_COMPAT=1.0: run report has only 1.0's sections and interval fields"
SB_COMPAT=1.0 sb cpu run --time=2 --report-interval=1 --threads=2 --cpu-max-prime=2000
assert_exit 0
assert_eq "$(sed -n 3p out)" "Running the test with following options:" "header after the banner"
assert_contains out "Initializing worker threads..."
assert_match out '^Initializing random number generator from current time$'
assert_match out '^\[ [0-9]+s \] thds: 2 eps: [0-9]+\.[0-9]{2} lat \(ms,95%\): [0-9]+\.[0-9]{2}$'
assert_contains out "CPU speed:"
assert_not_contains out "CPU cost per transaction"
assert_not_contains out "Self-check:"
sb cpu run --time=1 --threads=1 --cpu-max-prime=2000
assert_match out "^Summary \(the full sections: --verbosity=4"
assert_match out "^    CPU per transaction \(us\): +client [0-9.]+, server n/a"
assert_match out "^    self-check: +(OK|FLAGGED)"
sb cpu run --time=1 --threads=1 --cpu-max-prime=2000 --verbosity=4
assert_contains out "CPU cost per transaction"
assert_contains out "Self-check:"

tcase "SB_COMPAT=1.0: --histogram before the test's own section, then ' '"
SB_COMPAT=1.0 sb cpu run --time=1 --histogram --cpu-max-prime=2000
assert_exit 0
h=$(grep -n '^Latency histogram (values are in milliseconds)$' out | cut -d: -f1)
c=$(grep -n '^CPU speed:$' out | cut -d: -f1)
assert_lt "${h:-0}" "${c:-0}" "histogram line"
assert_ge "${h:-0}" 1 "histogram line"
assert_eq "$(sed -n "$((c - 1))p" out)" " " "line before CPU speed"
assert_count out '^Latency histogram' 1

tcase "SB_COMPAT=1.0: help aligned one space past the longest option"
SB_COMPAT=1.0 sb mutex help
assert_exit 0
assert_contains out "  --mutex-num=N   total size of mutex array [4096]"
assert_contains out "  --mutex-locks=N number of mutex locks to do per thread [50000]"
cat >o.lua <<'EOF'
sysbench.cmdline.options = {
  ab = {"ab description", 1},
  longer_name = {"longer description", "x"},
}
function event() end
EOF
SB_COMPAT=1.0 sb o.lua help
assert_exit 0
assert_contains out "  --ab=N               ab description [1]"
assert_contains out "  --longer_name=STRING longer description [x]"
assert_eq "$(tail -c 2 out | od -An -c | tr -d ' ')" '\n\n' "blank line after the list"

# The texts below are facts from 1.0.20's regression suite (tests/t of its
# source, tag 1.0.20: opt_help.t, help_drv_mysql.t, help_drv_pgsql.t,
# drivers.t, script_oltp_help.t, test_memory.t, script_bulk_insert_*.t,
# script_oltp_*_pgsql.t); SQLite stands in for the servers here.

tcase "SB_COMPAT=1.0: --help is 1.0.20's (groups, wordings, defaults; sqlite apart)"
SB_COMPAT=1.0 sb --help
assert_exit 0
assert_eq "$(sed -n 2p out)" "  sysbench [options]... [testname] [command]" "usage line"
assert_contains out "  --thread-stack-size=SIZE        size of stack per thread [64K]"
assert_contains out "  --tx-rate=N                     deprecated alias for --rate [0]"
assert_contains out "  --rand-pareto-h=N  parameter h for pareto distribution [0.2]"
assert_contains out "  --db-driver=STRING  specifies database driver to use ('help' to get list of available drivers) [mysql]"
assert_contains out "  --pgsql-port=N          PostgreSQL server port [5432]"
assert_contains out "  --mysql-ssl[=on|off]             use SSL connections, if available in the client library [off]"
# drivers.t and opt_help.t read the names up to the first blank line.
sed -n '/^Compiled-in database drivers:/,/^$/p' out >drvlist
assert_eq "$(tail -n +2 drvlist | cut -d' ' -f3 | grep -c .)" 2 "drivers 1.0 lists"
assert_not_contains drvlist sqlite
assert_contains out "  sqlite - SQLite driver (embedded)"
assert_contains out "  --sqlite-db=FILENAME"
assert_eq "$(tail -n 2 out | head -n 1)" "See 'sysbench <testname> help' for a list of options for each test." "last line"
sb --help
assert_not_contains out "[testname]"
assert_contains out "  --tx-rate=[LIST,...]"

tcase "SB_COMPAT=1.0: bundled OLTP help as 1.0.20 (file name, descriptions)"
SB_COMPAT=1.0 sb "$SB_SRCDIR/sysbench/lua/oltp_read_write.lua" help
assert_exit 0
assert_eq "$(sed -n 3p out)" "oltp_read_write.lua options:" "header"
assert_contains out "  --tables=N                    Number of tables [1]"
assert_contains out "  --skip_trx[=on|off]           Don't start explicit transactions and execute all queries in the AUTOCOMMIT mode [off]"
assert_not_contains out "create_table_options"
sb oltp_read_write help
assert_contains out "--create-table-options=STRING"

tcase "SB_COMPAT=1.0: --tx-rate is 1.0.20's alias of --rate"
SB_COMPAT=1.0 sb cpu --tx-rate=50 --time=1 --cpu-max-prime=2000 run
assert_exit 0
assert_contains out "Target transaction rate: 50.00 per second (Poisson arrivals)"

tcase "SB_COMPAT=1.0: memory ignores --events; 1.0's value errors"
SB_COMPAT=1.0 sb memory --memory-block-size=4K --memory-total-size=1M --events=1 --time=0 run
assert_exit 0
assert_match out '^    total number of events: +256$'
sb memory --memory-block-size=4K --memory-total-size=1M --events=1 --time=0 run
assert_match out '^    total number of events: +1$'
SB_COMPAT=1.0 sb memory --memory-block-size=3 run
assert_exit 1
assert_eq "$(sed -n 3p out)" "FATAL: Invalid value for memory-block-size: 3" "bad block size"
SB_COMPAT=1.0 sb memory --memory-block-size=-1 run
assert_exit 1
assert_eq "$(sed -n 3p out)" "FATAL: Invalid value for memory-block-size: -1" "negative size"

tcase "SB_COMPAT=1.0: unknown --db-driver reported as 1.0.20 does"
SB_COMPAT=1.0 sb --db-driver=nonexisting oltp_read_write cleanup
assert_exit 1
assert_eq "$(sed -n 3p out)" "FATAL: invalid database driver name: 'nonexisting'" "reason"
assert_match out "^FATAL: \`cleanup' function failed: .*: failed to initialize the DB driver$"

tcase "prewarm: ours on any driver; SB_COMPAT=1.0 refuses non-MySQL as 1.0.20"
sb oltp_read_write --sqlite-db=pw.db --tables=1 --table-size=100 prepare
assert_exit 0
sb oltp_read_write --sqlite-db=pw.db --tables=1 --table-size=100 prewarm
assert_exit 0
assert_contains out "Prewarming table sbtest1"
SB_COMPAT=1.0 sb oltp_read_write --db-driver=sqlite --sqlite-db=pw.db --tables=1 --table-size=100 prewarm
assert_exit 1
assert_match out '^FATAL: .*prewarm is currently MySQL only$'

tcase "bulk_insert: ours continues after MAX(id); SB_COMPAT=1.0 starts at 1, no read"
sb bulk_insert --sqlite-db=bi.db prepare
assert_exit 0
sb bulk_insert --sqlite-db=bi.db --events=100 run
assert_exit 0
assert_match out '^        read: +1$'
sb bulk_insert --sqlite-db=bi.db --events=100 run
assert_exit 0
if need_tool sqlite3; then
    assert_eq "$(sqlite3 bi.db 'SELECT COUNT(*), MAX(id) FROM sbtest1')" "200|200" "rows after two runs"
fi
sb bulk_insert --sqlite-db=bc.db prepare
SB_COMPAT=1.0 sb bulk_insert --db-driver=sqlite --sqlite-db=bc.db --events=100 run
assert_exit 0
assert_match out '^        read: +0$'

# Kept on purpose (doc/compat.md, "sysbench 1.0.20's own regression suite").
tcase "kept: defaults, '-' with a command, help without options, --rate beyond capacity"
cat >k.lua <<'EOF'
print("max_time " .. sysbench.opt.max_time .. " tss " .. sysbench.opt.thread_stack_size)
function prepare() print("prepare called") end
function event() end
EOF
sb k.lua
assert_contains out "max_time 10 tss 0"
SB_STDIN=k.lua sb - prepare
assert_exit 0
assert_contains out "prepare called"
printf 'function event() end\n' >h.lua
sb h.lua help
assert_exit 0
assert_contains out "h.lua options:"
sb cpu --rate=1000000 --time=1 --cpu-max-prime=20000 run
assert_exit 0
assert_match out '^    total number of events: +[1-9][0-9]*$'
assert_not_contains out "event queue is full"

finish
