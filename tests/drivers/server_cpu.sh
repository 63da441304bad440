#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# PostgreSQL's server CPU must be all of it: backends that exit at the end
# of a run (after the last sample) and are reaped by the postmaster still
# count. The run's figure is checked against the server's own accounting,
# read from /proc: utime + stime + cutime + cstime of the postmaster and
# every live descendant, before the run and once its backends are gone.
# The script connects inside its first event and disconnects in
# thread_done, so connection start-up and exit both fall inside what the
# run measures, and the two figures must agree. Each backend has temporary
# tables to drop when it exits, after its client has gone.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

cat >work.lua <<'LUA'
function event()
  if not con then
    con = sysbench.sql.driver():connect()
    -- Work for the backend's exit: it drops these after the client left.
    for i = 1, 20 do
      con:query(string.format("CREATE TEMP TABLE t%d (a int PRIMARY KEY, b text)", i))
    end
  end
  con:query_row("SELECT count(*) FROM generate_series(1, 3000)")
end
function thread_done()
  if con then con:disconnect() end
end
LUA

# tree_cpu PID: CPU seconds of PID's process tree (reaped children
# included), after waiting (up to 5 s) until the tree has no more
# processes than MAXPROCS.
cat >tree_cpu.py <<'PY'
import os, sys, time
root, maxprocs = int(sys.argv[1]), int(sys.argv[2])
hz = os.sysconf("SC_CLK_TCK")
def scan():
    procs = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            t = open("/proc/%s/stat" % d).read()
        except OSError:
            continue
        f = t[t.rindex(")") + 2:].split()
        procs[int(d)] = (int(f[1]), sum(int(x) for x in f[11:15]))
    tree, grew = {root}, True
    while grew:
        grew = False
        for p, (pp, _) in procs.items():
            if p not in tree and pp in tree:
                tree.add(p)
                grew = True
    return len(tree), sum(procs[p][1] for p in tree if p in procs) / hz
end = time.time() + 5
n, cpu = scan()
while n > maxprocs and time.time() < end:
    time.sleep(0.05)
    n, cpu = scan()
print("%d %.3f" % (n, cpu))
PY

# The server's accounting spans more than the run: sysbench's start-up
# and exit, and the wait for the backends to go. What the server's own
# processes (checkpointer, autovacuum, walwriter) spend there is not the
# run's; on a busy machine it was 5% of the run's figure. So the bound is
# 4% plus the server's idle rate, measured over 1 s before the run, times
# that outside time.
reaped_backends() {
    local pid n0 cpu0 n0b cpu0b n1 cpu1 got t0 t1 run_s
    pid=$(head -n 1 "$SB_SERVERS_DIR/pgsql.pid" 2>/dev/null || echo "$SB_PGSQL_PID")
    read -r n0 cpu0 < <(python3 tree_cpu.py "$pid" 1000)
    sleep 1
    read -r n0b cpu0b < <(python3 tree_cpu.py "$pid" 1000)
    t0=$(date +%s.%N)
    # shellcheck disable=SC2046
    sb_run_ok "the run" run.txt run.err $(sb_driver_args pgsql) --threads=16 --time=3 \
        --json=r.json work.lua run || return 1
    read -r n1 cpu1 < <(python3 tree_cpu.py "$pid" "$n0b")
    t1=$(date +%s.%N)
    got=$(python3 -c 'import json; print(json.load(open("r.json"))["points"][0]["final"]["cpu"]["server"]["cpu_s"])')
    run_s=$(python3 -c 'import json; print(json.load(open("r.json"))["points"][0]["final"]["time_s"])')
    awk -v g="$got" -v a="$cpu0b" -v b="$cpu1" -v i0="$cpu0" -v t0="$t0" -v t1="$t1" -v r="$run_s" 'BEGIN {
            e = b - a; idle = (a - i0) * (t1 - t0 - r); if (idle < 0) idle = 0
            printf "server CPU: run %.3f s, server accounting %.3f s (%+.1f%%); idle allowance %.3f s\n",
                g, e, (g - e) / e * 100, idle
            exit !(e > 0.5 && g >= e * 0.96 - idle && g <= e * 1.04 + idle) }' ||
        { sb_fail "the run's server CPU is not within 4% (plus the idle allowance) of the server's accounting"; return 1; }
}

sb_case pgsql-cpu-counts-reaped-backends reaped_backends
