#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Scale-out that fails honestly (issue 34), with the instances as
# processes on this machine against MariaDB, every merged figure checked
# against the server's own counters (Com_commit, and the rows each global
# connection index inserted: the script writes its index and the server's
# clock with every transaction):
#   - cut short: instance 1 of 3 gets SIGTERM mid-run; merge exits 3,
#     names it and when, its "ended" is the worst instance's, the window
#     runs from the common start to the last end and the rates are the
#     events over it;
#   - missing: instance 1 is SIGKILLed and leaves no file; merge refuses,
#     --allow-missing merges the others labelled partial, missing named;
#   - stop: SIGTERM to examples/pdsh/run.sh (ssh-loop path, LOCAL=1) stops
#     every instance and merges what ran as interrupted (exit 143); run.sh
#     killed outright (SIGKILL) stops them too: each session's standard
#     input ends and its watcher stops the instance, which still writes
#     its result;
#   - preflight: a database login that fails stops run.sh before anything
#     starts (no commit on the server, no result);
#   - the example run through with pdsh: prepare once (Com_create_table
#     +1), clock offsets measured and recorded in each instance's file,
#     hosts' directories removed, and item 7: each instance's measured
#     first dispatch precedes its connections' first statement on the
#     server, and merge's start spread is the one the files imply.

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

# run.sh's lead to --start-at; more under a sanitizer, whose start-up on
# a loaded machine took over 4 s (scale_out.sh).
SO_LEAD=4
[ -n "${SB_SANITIZER:-}" ] && SO_LEAD=10

RATE=300
THREADS=3

# One transaction: this connection's global index and the server's clock.
cat >ts.lua <<'LUA'
function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("CREATE TABLE scale_t (id INT AUTO_INCREMENT PRIMARY KEY, g INT, ts DECIMAL(17,6))")
  con:disconnect()
end
function thread_init()
  con = sysbench.sql.driver():connect()
end
function event()
  con:query("BEGIN")
  con:query(string.format("INSERT INTO scale_t (g, ts) VALUES (%d, UNIX_TIMESTAMP(NOW(6)))",
                          sysbench.global_tid))
  con:query("COMMIT")
end
function thread_done()
  con:disconnect()
end
LUA

# check.py MERGED I0 [I1 ...]: the window, rates, ended and cut_short of
# a merged file against the instance files given (those merged).
cat >check.py <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
ins = [json.load(open(f)) for f in sys.argv[2:]]
mp, ps = m["points"][0], [d["points"][0] for d in ins]
bad = []
def check(ok, what):
    if not ok:
        bad.append(what)
ev = sum(p["final"]["events"] for p in ps)
t0 = min(p["start_unix_s"] for p in ps)
t1 = max(p["start_unix_s"] + p["final"]["time_s"] for p in ps)
w = t1 - t0
f = mp["final"]
check(f["events"] == ev, "events %s != sum %s" % (f["events"], ev))
check(abs(f["time_s"] - w) < 1e-6, "time_s %s, window %s" % (f["time_s"], w))
check(abs(f["tps"] - ev / w) < 1e-6 * ev / w, "tps %s, events over the window %s" % (f["tps"], ev / w))
r = f["rate"]
check(abs(r["achieved_tps"] - ev / w) < 1e-6 * ev / w, "achieved_tps")
check(abs(r["achieved_pct"] - 100 * ev / w / r["target_tps"]) < 1e-6, "achieved_pct")
rank = {"completed": 0, "interrupted": 1, "failed": 2}
worst = max((d["ended"] for d in ins), key=lambda e: rank[e["status"]])
check(m["ended"]["status"] == worst["status"], "ended %s, worst %s" % (m["ended"]["status"], worst["status"]))
short = [d["instance"]["index"] for d in ins if d["ended"]["status"] != "completed"]
cut = m["merged"]["cut_short"]
check([c["index"] for c in cut] == short, "cut_short %s, expected %s" % (cut, short))
for c in cut:
    p = ps[[d["instance"]["index"] for d in ins].index(c["index"])]
    check(abs(c["at_s"] - (p["start_unix_s"] + p["final"]["time_s"] - t0)) < 1e-6, "cut_short at_s")
check(m["merged"]["complete"] == (not short and not m["merged"]["partial"]), "complete")
print("events %d over %.3f s: %.2f tx/s (%.1f%% of %.0f); ended %s; cut short %s" %
      (ev, w, ev / w, r["achieved_pct"], r["target_tps"], m["ended"]["status"], short))
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY

jget() {
    python3 -c 'import json, sys; print(eval("d" + sys.argv[2], {"d": json.load(open(sys.argv[1]))}))' "$1" "$2"
}

commits() {
    sb_cli mysql "SHOW GLOBAL STATUS LIKE 'Com_commit'" | awk '{ print $2 }'
}

# rows LO HI: rows the global connections LO..HI inserted.
rows() {
    sb_cli mysql "SELECT COUNT(*) FROM scale_t WHERE g BETWEEN $1 AND $2"
}

fresh_table() {
    sb_cli mysql "DROP TABLE IF EXISTS scale_t; CREATE TABLE scale_t (id INT AUTO_INCREMENT PRIMARY KEY, g INT, ts DECIMAL(17,6))"
}

# start_three TIME: instances 0..2 of 3, --time=TIME, starting in 3 s;
# their PIDs in pids[], the start in $at.
start_three() {
    local i
    rm -f i?.json i?.txt all.json
    at=$(( $(date +%s) + SO_LEAD ))
    pids=()
    for i in 0 1 2; do
        # shellcheck disable=SC2046
        timeout -k 5 60 "$SB_BIN" $(sb_driver_args mysql) --threads=$THREADS --tx-rate=$RATE \
            --time="$1" --report-interval=1 --rand-seed=11 --instance=$i/3 --start-at="$at" \
            --json=i$i.json ts.lua run >i$i.txt 2>&1 &
        pids+=($!)
    done
}

# The per-instance rows against the instances' files: a completed
# instance's events are exactly its connections' rows; an interrupted
# one's may miss the transactions whose COMMIT the signal caught in
# flight (committed by the server, not completed here), at most one per
# connection.
rows_match() {
    local i ev n st
    for i in "$@"; do
        ev=$(jget i$i.json '["points"][0]["final"]["events"]')
        st=$(jget i$i.json '["ended"]["status"]')
        n=$(rows $((i * THREADS)) $((i * THREADS + THREADS - 1)))
        echo "instance $i ($st): $ev events, server rows $n"
        if [ "$st" = completed ]; then
            [ "$n" = "$ev" ] || { sb_fail "instance $i: rows $n != events $ev"; return 1; }
        else
            [ "$n" -ge "$ev" ] && [ "$n" -le $((ev + THREADS)) ] ||
                { sb_fail "instance $i: rows $n not within events $ev + $THREADS"; return 1; }
        fi
    done
}

# in_run FILE: waits (30 s at most) for an instance's first report, so
# that a signal lands mid-run however late a loaded machine started it
# (a fixed 2 s after --start-at was not enough for an ASan build).
in_run() {
    for _ in $(seq 1 300); do
        grep -Eq "$REPORT_LINE" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
}

cut_short() {
    local c0 c1 rc=0 ev
    fresh_table
    c0=$(commits)
    # 10 s: the signal must land inside the run; beside an ASan suite a
    # 5-s instance held up 10 s printed its first report only near its end.
    start_three 10
    in_run i1.txt
    kill -TERM "$(pgrep -P "${pids[1]}")"   # sysbench, under timeout
    wait "${pids[0]}" || { sb_show i0.txt; sb_fail "instance 0 failed"; return 1; }
    wait "${pids[1]}" || rc=$?
    [ "$rc" = 143 ] || { sb_show i1.txt; sb_fail "instance 1 exited $rc, expected 143"; return 1; }
    wait "${pids[2]}" || { sb_show i2.txt; sb_fail "instance 2 failed"; return 1; }
    c1=$(commits)
    rc=0
    sb_run out.txt err.txt merge i0.json i1.json i2.json --json=all.json || rc=$?
    cat out.txt
    [ "$rc" = 3 ] || { sb_show err.txt; sb_fail "merge of a cut-short run exited $rc, expected 3"; return 1; }
    [ ! -s err.txt ] || { sb_show err.txt; sb_fail "merge wrote on stderr"; return 1; }
    python3 check.py all.json i0.json i1.json i2.json || { sb_fail "merged result"; return 1; }
    grep -Eq "^CUT SHORT: instance 1 \(host [^)]*\) interrupted by signal 15 at [0-9.]+ s of the [0-9.]+ s window \(20[0-9-]+T" out.txt ||
        { sb_fail "the text does not name instance 1 and when"; return 1; }
    grep -q "^NOT A COMPLETE RUN: the worst instance ended interrupted" out.txt ||
        { sb_fail "no NOT A COMPLETE RUN line"; return 1; }
    [ "$(jget all.json '["ended"]["deadline"]')" = None ] || { sb_fail "deadline not null"; return 1; }
    # The server: every commit is a row, the merged events within the
    # in-flight allowance of the interrupted instance.
    ev=$(jget all.json '["points"][0]["final"]["events"]')
    echo "server: Com_commit +$((c1 - c0)); merged events $ev"
    [ "$((c1 - c0))" = "$(sb_cli mysql 'SELECT COUNT(*) FROM scale_t')" ] || { sb_fail "commits != rows"; return 1; }
    rows_match 0 1 2
}

missing() {
    local c0 c1 rc=0 ev lost
    fresh_table
    c0=$(commits)
    start_three 8   # long enough for the kill to land inside it (above)
    in_run i1.txt
    kill -KILL "$(pgrep -P "${pids[1]}")"   # sysbench, under timeout
    wait "${pids[0]}" || { sb_show i0.txt; sb_fail "instance 0 failed"; return 1; }
    wait "${pids[1]}" || true
    wait "${pids[2]}" || { sb_show i2.txt; sb_fail "instance 2 failed"; return 1; }
    c1=$(commits)
    [ ! -s i1.json ] || { sb_fail "the SIGKILLed instance left a result"; return 1; }
    sb_run out.txt err.txt merge i0.json i2.json --json=all.json || rc=$?
    [ "$rc" = 1 ] || { sb_fail "merge without instance 1 exited $rc, expected 1"; return 1; }
    sb_expect_one_line_error err.txt "^FATAL: cannot merge: instance 1 of 3 is missing \(--allow-missing" || return 1
    rc=0
    sb_run out.txt err.txt merge --allow-missing i0.json i2.json --json=all.json || rc=$?
    cat out.txt
    [ "$rc" = 3 ] || { sb_show err.txt; sb_fail "partial merge exited $rc, expected 3"; return 1; }
    python3 check.py all.json i0.json i2.json || { sb_fail "merged result"; return 1; }
    grep -q "^Merged result of 2 of 3 instances" out.txt || { sb_fail "not labelled 2 of 3"; return 1; }
    grep -q "^PARTIAL (--allow-missing): instance 1 of 3 left no result" out.txt ||
        { sb_fail "the missing instance is not named"; return 1; }
    [ "$(jget all.json '["merged"]["partial"]') $(jget all.json '["merged"]["missing"]') $(jget all.json '["merged"]["complete"]')" = "True [1] False" ] ||
        { sb_fail "merged: partial, missing, complete: $(jget all.json '["merged"]')"; return 1; }
    [ "$(jget all.json '["points"][0]["final"]["rate"]["target_tps"]')" = 200 ] ||
        { sb_fail "the partial target is not the present instances' 200"; return 1; }
    # The server ran all three; the merge holds exactly instances 0 and 2.
    ev=$(jget all.json '["points"][0]["final"]["events"]')
    lost=$(rows 3 5)
    echo "server: Com_commit +$((c1 - c0)); merged events $ev; the killed instance's rows $lost"
    [ "$((c1 - c0))" = "$((ev + lost))" ] || { sb_fail "Com_commit delta != merged + killed instance's rows"; return 1; }
    [ "$lost" -gt 0 ] || { sb_fail "the killed instance committed nothing: not killed mid-run"; return 1; }
    rows_match 0 2
}

# run_example OUT_DIR TIME [VAR=VALUE...]: examples/pdsh/run.sh with
# LOCAL=1, --time=TIME and the variables given, in the background; its
# PID (that of timeout, run.sh's parent) in $ex_pid.
run_example() {
    local out=$1 time=$2
    shift 2
    # shellcheck disable=SC2046
    env HOSTS="gen0 gen1 gen2" LOCAL=1 LEAD=$SO_LEAD SEED=11 OUT="$out" SYSBENCH="$SB_BIN" \
        METRICS_PORT=0 "$@" timeout -k 5 90 bash "$SB_SRCDIR/examples/pdsh/run.sh" "$PWD/ts.lua" \
        $(sb_driver_args mysql) --threads=$THREADS --tx-rate=$RATE --report-interval=1 \
        --time="$time" >"$out.txt" 2>&1 &
    ex_pid=$!
}

# instances_gone DIR: no sysbench process runs a script of DIR.
instances_gone() {
    for _ in $(seq 1 50); do
        pgrep -f "$1/\.host[0-9]/ts\.lua" >/dev/null || return 0
        sleep 0.2
    done
    sb_fail "instances of $1 still run: $(pgrep -af "$1/\.host[0-9]/ts\.lua")"
}

stop_example() {
    local c0 c1 c2 rc=0 ev
    fresh_table
    c0=$(commits)
    run_example "$PWD/st" 20 USE_PDSH=0
    # Into the run: the example's instances write their reports.
    for _ in $(seq 1 100); do
        grep -qs "Threads started" st/.host2/*.txt && break
        sleep 0.2
    done
    sleep 5
    kill -TERM "$(pgrep -P "$ex_pid")"   # run.sh, under timeout
    wait "$ex_pid" || rc=$?
    cat st.txt
    [ "$rc" = 143 ] || { sb_fail "run.sh stopped by SIGTERM exited $rc, expected 143"; return 1; }
    instances_gone "$PWD/st" || return 1
    c1=$(commits)
    sleep 1
    c2=$(commits)
    [ "$c1" = "$c2" ] || { sb_fail "commits go on after the stop ($c1, then $c2)"; return 1; }
    grep -q "signal 15: stopping every instance" st.txt || { sb_fail "no stop line"; return 1; }
    python3 check.py st/merged.json st/sb-*-0.json st/sb-*-1.json st/sb-*-2.json ||
        { sb_fail "merged result"; return 1; }
    [ "$(jget st/merged.json '["ended"]["status"]')" = interrupted ] || { sb_fail "merged not interrupted"; return 1; }
    [ "$(jget st/merged.json '["merged"]["cut_short"].__len__()')" = 3 ] || { sb_fail "not all three cut short"; return 1; }
    ev=$(jget st/merged.json '["points"][0]["final"]["events"]')
    echo "server: Com_commit +$((c1 - c0)); merged events $ev"
    [ "$((c1 - c0))" -ge "$ev" ] && [ "$((c1 - c0))" -le $((ev + 3 * THREADS)) ] ||
        { sb_fail "Com_commit delta not within the in-flight allowance of the merged events"; return 1; }
    [ -z "$(ls -d st/.host* 2>/dev/null)" ] || { sb_fail "the hosts' directories were left"; return 1; }

    # run.sh killed outright: nothing of it runs a trap, yet its sessions'
    # standard input ends and every instance stops, writing its result.
    rc=0
    run_example "$PWD/kl" 20 USE_PDSH=0
    for _ in $(seq 1 100); do
        grep -qs "Threads started" kl/.host2/*.txt && break
        sleep 0.2
    done
    sleep 3
    kill -KILL "$(pgrep -P "$ex_pid")"
    wait "$ex_pid" || true
    instances_gone "$PWD/kl" || return 1
    for i in 0 1 2; do
        [ "$(jget kl/.host$i/sb-*-$i.json '["ended"]["status"]' 2>/dev/null)" = interrupted ] ||
            { sb_show kl/.host$i/*.txt; sb_fail "instance $i did not end interrupted"; return 1; }
    done
    echo "run.sh SIGKILLed: the three instances stopped, interrupted"
}

preflight_login() {
    local c0 c1 rc=0
    fresh_table
    c0=$(commits)
    # shellcheck disable=SC2046
    HOSTS="gen0 gen1 gen2" LOCAL=1 LEAD=$SO_LEAD SEED=11 OUT="$PWD/pf" SYSBENCH="$SB_BIN" METRICS_PORT=0 \
        timeout -k 5 60 bash "$SB_SRCDIR/examples/pdsh/run.sh" "$PWD/ts.lua" \
        $(sb_driver_args mysql) --mysql-password=wrong --threads=$THREADS --tx-rate=$RATE \
        --time=3 >pf.txt 2>&1 || rc=$?
    c1=$(commits)
    cat pf.txt
    [ "$rc" = 1 ] || { sb_fail "run.sh with a wrong password exited $rc, expected 1"; return 1; }
    grep -Eq "^run.sh: preflight: host gen[0-2] \(instance [0-2]\): cannot log in to the database: FATAL: .*; nothing was started" pf.txt ||
        { sb_fail "no preflight line naming the host and the login"; return 1; }
    ! grep -q "instances, start at" pf.txt || { sb_fail "a start time was chosen"; return 1; }
    [ "$c0" = "$c1" ] || { sb_fail "the server committed $((c1 - c0)) transactions"; return 1; }
    [ -z "$(ls pf/*.json pf/.host* 2>/dev/null)" ] || { sb_fail "files were left: $(ls -a pf)"; return 1; }
}

example_through() {
    local k0 k1 ev
    sb_cli mysql "DROP TABLE IF EXISTS scale_t"
    k0=$(sb_cli mysql "SHOW GLOBAL STATUS LIKE 'Com_create_table'" | awk '{ print $2 }')
    run_example "$PWD/ok" 3 USE_PDSH=1 PREPARE=1
    wait "$ex_pid" || { cat ok.txt; sb_fail "run.sh exited with $?"; return 1; }
    cat ok.txt
    k1=$(sb_cli mysql "SHOW GLOBAL STATUS LIKE 'Com_create_table'" | awk '{ print $2 }')
    grep -q "starting the instances with pdsh -R exec" ok.txt || { sb_fail "pdsh was not used"; return 1; }
    [ "$((k1 - k0))" = 1 ] || { sb_fail "prepare created $((k1 - k0)) tables, expected 1"; return 1; }
    python3 check.py ok/merged.json ok/sb-*-0.json ok/sb-*-1.json ok/sb-*-2.json ||
        { sb_fail "merged result"; return 1; }
    [ "$(jget ok/merged.json '["merged"]["complete"]')" = True ] || { sb_fail "not complete"; return 1; }
    [ -z "$(ls -d ok/.host* 2>/dev/null)" ] || { sb_fail "the hosts' directories were left"; return 1; }
    ev=$(jget ok/merged.json '["points"][0]["final"]["events"]')
    [ "$(sb_cli mysql 'SELECT COUNT(*) FROM scale_t')" = "$ev" ] || { sb_fail "rows != merged events $ev"; return 1; }
    # The clock offsets measured by the preflight are in the instances'
    # files (the same clock here: small), and item 7 against the server.
    python3 - ok/merged.json ok/sb-*-0.json ok/sb-*-1.json ok/sb-*-2.json <<'PY' >spread.py
import json, sys
m = json.load(open(sys.argv[1]))
ins = [json.load(open(f)) for f in sys.argv[2:]]
bad = []
eff = []
for d in ins:
    off = d["instance"]["clock_offset_s"]
    if off is None or abs(off) > 0.5:
        bad.append("instance %d: clock_offset_s %s" % (d["instance"]["index"], off))
        continue
    p = d["points"][0]
    eff.append(p["start_unix_s"] - off + max(0, p["first_dispatch_unix_s"] - p["first_due_unix_s"]))
s = m["merged"]["start_spread"]
if abs(s["spread_s"] - (max(eff) - min(eff))) > 1e-6 or not s["clock_corrected"]:
    bad.append("start_spread %s, from the files %s" % (s, max(eff) - min(eff)))
for d in ins:
    p = d["points"][0]
    print("%d %.6f" % (d["instance"]["index"], p["first_dispatch_unix_s"]))
if bad:
    print("BAD " + "; ".join(bad))
PY
    cat spread.py
    ! grep -q "^BAD" spread.py || { sb_fail "$(grep BAD spread.py)"; return 1; }
    # Each instance's first dispatch precedes the first statement of its
    # connections on the server (same machine, same clock), by less than
    # the allowance of a loaded machine.
    # (Under a sanitizer on a loaded machine the first statement reached
    # the server 1.7 s after the dispatch: 5 s there.)
    local allow=1.0
    [ -n "${SB_SANITIZER:-}" ] && allow=5.0
    while read -r i fd; do
        first=$(sb_cli mysql "SELECT MIN(ts) FROM scale_t WHERE g BETWEEN $((i * THREADS)) AND $((i * THREADS + THREADS - 1))")
        echo "instance $i: first dispatch $fd, first row on the server $first"
        python3 -c "import sys; d = float(sys.argv[2]) - float(sys.argv[1]); sys.exit(not (-0.002 <= d <= float(sys.argv[3])))" "$fd" "$first" "$allow" ||
            { sb_fail "instance $i: the server's first row is not just after the recorded first dispatch"; return 1; }
    done <spread.py
}

sb_case scale-out-cut-short cut_short
sb_case scale-out-missing-instance missing
sb_case scale-out-preflight-login preflight_login
sb_case scale-out-stop stop_example
if command -v pdsh >/dev/null 2>&1; then
    sb_case scale-out-example-prepare-spread example_through
else
    echo "SKIP: scale-out-example-prepare-spread (pdsh is not installed; scripts/deps.sh --servers installs it)"
fi
