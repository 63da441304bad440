#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Scale-out on one machine: three sysbench processes (--instance=I/3, one
# --start-at) against the same server, then `sysbench merge`. Checked
# against the server's own counters, not against the binary:
#   - MariaDB: the deltas of SHOW GLOBAL STATUS Com_commit and Com_insert
#     equal the merged transactions and writes;
#   - PostgreSQL: pg_stat_user_tables.n_tup_ins of the run's table and
#     the delta of pg_stat_database.xact_commit cover the merged
#     transactions;
#   - every global connection index 0..8 wrote its rows (the instances'
#     connections are distinct), the achieved rate is within 2% of the
#     global target, the merged histogram is the bucket-wise union of the
#     instances' and its percentiles are those rebuilt from that union;
#   - the bundled prepare with --instance splits the tables;
#   - a merge of files from another experiment is refused;
#   - the scale-out example (examples/pdsh/run.sh) run for real: pdsh's
#     exec module starts the three instances (LOCAL=1: bash on this
#     machine instead of ssh), and the merged result equals the server's
#     Com_commit/Com_insert deltas. Without pdsh the case prints SKIP
#     (scripts/deps.sh --servers installs it).

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

RATE=300
THREADS=3
# Seconds from the command to --start-at: every instance must have its
# connections by then. An ASan build on a loaded machine took over 4 s
# (instances starting 2.3-4.5 s late with a 3-s lead).
LEAD=4
[ -n "${SB_SANITIZER:-}" ] && LEAD=10

cat >work.lua <<'LUA'
-- One transaction: an INSERT of this connection's global index.
function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
end
function event()
  con:query("BEGIN")
  con:query(string.format("INSERT INTO scale_t (g) VALUES (%d)", sysbench.global_tid))
  con:query("COMMIT")
end
function thread_done()
  con:disconnect()
end
LUA

# check.py MERGED I0 I1 I2: the merged file against the instances' files.
cat >check.py <<'PY'
import json, math, os, sys
m = json.load(open(sys.argv[1]))
ins = [json.load(open(f)) for f in sys.argv[2:]]
mp, ps = m["points"][0], [d["points"][0] for d in ins]
bad = []
def check(ok, what):
    if not ok:
        bad.append(what)
ev = sum(p["final"]["events"] for p in ps)
check(mp["final"]["events"] == ev, "merged events %s != sum %s" % (mp["final"]["events"], ev))
# The union of the histograms, bucket by bucket.
union = {}
for p in ps:
    for lo, hi, c in p["histogram"]["buckets"]:
        union[(lo, hi)] = union.get((lo, hi), 0) + c
got = {(lo, hi): c for lo, hi, c in mp["histogram"]["buckets"]}
check(got == union, "merged buckets are not the union of the instances'")
count = sum(union.values())
mx = max(p["histogram"]["max_ns"] for p in ps)
check(mp["histogram"]["count"] == count == ev, "histogram count")
for key, v in mp["final"]["latency_ms"]["response"]["percentiles"].items():
    x = float(key) * count / 100  # the program's rank rule (sb_histogram.c)
    rank = min(count, max(1, math.ceil(x - x * 1e-12)))
    acc = 0
    for (lo, hi) in sorted(union):
        acc += union[(lo, hi)]
        if acc >= rank:
            want = min(hi, mx) / 1e6
            break
    check(abs(v - want) < 1e-9, "p%s: merged %s, rebuilt from the union %s" % (key, v, want))
r = mp["final"]["rate"]
# A late worker leaves its last due slots unrun at the deadline (a
# generator-bound run, which the self-check flags): sanitizer builds,
# several times slower, and the plain build on a loaded machine (2 of 900
# slots at load 20). 2%, then; a quiet machine holds 0.2% (300.000 of
# 300 tx/s seen). An instance its self-check flagged (held up by other
# processes, late: an ASan build beside a CPU hog and another suite made
# 286 of 300 tx/s) measured the machine, not the rate: the merge's checks
# above and below still hold for it, this one is not asked of it.
tol = 0.02
flagged = any(p.get("selfcheck", {}).get("flags") for p in ps)
check(flagged or abs(r["achieved_tps"] - r["target_tps"]) <= tol * r["target_tps"],
      "achieved %s vs target %s" % (r["achieved_tps"], r["target_tps"]))
check(r["target_tps"] == sum(p["target_tps"] for p in ps), "global target")
iv = sum(i["events"] for p in ps for i in p["intervals"])
check(sum(i["events"] for i in mp["intervals"]) == iv, "interval events lost in the alignment")
check(len(mp["intervals"]) == max(len(p["intervals"]) for p in ps), "intervals not aligned")
print("events %d, writes %d, achieved %.3f of %.3f tx/s" %
      (ev, mp["final"]["queries"]["writes"], r["achieved_tps"], r["target_tps"]))
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY

# three_instances DRIVER: runs three instances starting together, merges them.
three_instances() {
    local drv=$1 at i pids=()
    at=$(( $(date +%s) + LEAD ))
    for i in 0 1 2; do
        # shellcheck disable=SC2046
        timeout -k 5 60 "$SB_BIN" $(sb_driver_args "$drv") --threads=$THREADS --tx-rate=$RATE \
            --time=3 --report-interval=1 --rand-seed=11 --instance=$i/3 --start-at="$at" \
            --json=i$i.json work.lua run >i$i.txt 2>&1 &
        pids+=($!)
    done
    for i in 0 1 2; do
        wait "${pids[$i]}" || { sb_show i$i.txt; sb_fail "instance $i failed"; return 1; }
    done
    sb_run_ok "merge" merged.txt merge.err merge i0.json i1.json i2.json --json=all.json ||
        return 1
    python3 check.py all.json i0.json i1.json i2.json || { sb_fail "merged result"; return 1; }
}

# merged PATH: a value of the merged file, PATH a Python subscript of the
# document (python3, which deps.sh installs; jq is not).
merged() {
    python3 -c 'import json, sys; print(eval("d" + sys.argv[1], {"d": json.load(open("all.json"))}))' "$1"
}

# Each of the 9 global connections wrote rows, and no other ones.
per_connection() {
    local drv=$1 n
    n=$(sb_cli "$drv" "SELECT COUNT(DISTINCT g), MIN(g), MAX(g) FROM scale_t" | tr '\t' ' ')
    [ "$n" = "9 0 8" ] || { sb_fail "connections seen by the server: $n, expected 9 0 8"; return 1; }
}

mysql_status() {
    sb_cli mysql "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit','Com_insert')" |
        awk '{ printf "%s ", $2 }'
}

mysql_counts() {
    local c0 i0 c1 i1 ev wr
    sb_cli mysql "DROP TABLE IF EXISTS scale_t; CREATE TABLE scale_t (id INT AUTO_INCREMENT PRIMARY KEY, g INT)"
    read -r c0 i0 < <(mysql_status)
    three_instances mysql || return 1
    read -r c1 i1 < <(mysql_status)
    ev=$(merged '["points"][0]["final"]["events"]')
    wr=$(merged '["points"][0]["final"]["queries"]["writes"]')
    echo "server: Com_commit +$((c1 - c0)), Com_insert +$((i1 - i0)); merged: events $ev, writes $wr"
    [ "$((c1 - c0))" = "$ev" ] || { sb_fail "Com_commit delta $((c1 - c0)) != merged events $ev"; return 1; }
    [ "$((i1 - i0))" = "$wr" ] || { sb_fail "Com_insert delta $((i1 - i0)) != merged writes $wr"; return 1; }
    [ "$(sb_cli mysql 'SELECT COUNT(*) FROM scale_t')" = "$ev" ] || { sb_fail "row count"; return 1; }
    per_connection mysql
}

pgsql_counts() {
    local x0 x1 ev ins
    sb_cli pgsql "DROP TABLE IF EXISTS scale_t; CREATE TABLE scale_t (id serial PRIMARY KEY, g int);
        GRANT ALL ON scale_t TO $SB_PGSQL_USER; GRANT ALL ON SEQUENCE scale_t_id_seq TO $SB_PGSQL_USER"
    x0=$(sb_cli pgsql "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
    three_instances pgsql || return 1
    # Backends report their counters when they exit; wait for them.
    sleep 1.5
    x1=$(sb_cli pgsql "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
    ins=$(sb_cli pgsql "SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'scale_t'")
    ev=$(merged '["points"][0]["final"]["events"]')
    echo "server: n_tup_ins $ins, xact_commit +$((x1 - x0)); merged: events $ev"
    [ "$ins" = "$ev" ] || { sb_fail "n_tup_ins $ins != merged events $ev"; return 1; }
    [ "$((x1 - x0))" -ge "$ev" ] || { sb_fail "xact_commit delta below the merged events"; return 1; }
    [ "$(sb_cli pgsql 'SELECT COUNT(*) FROM scale_t')" = "$ev" ] || { sb_fail "row count"; return 1; }
    per_connection pgsql
}

# The bundled prepare: instance I of 3 with one thread creates sbtest(I+1).
prepare_split() {
    local i t
    sb_cli mysql "DROP TABLE IF EXISTS sbtest1, sbtest2, sbtest3"
    # shellcheck disable=SC2046
    sb_run_ok "prepare 1/3" p1.txt p1.err $(sb_driver_args mysql) --tables=3 --table-size=10 \
        --instance=1/3 --rand-seed=3 oltp_read_only prepare || return 1
    t=$(sb_cli mysql "SHOW TABLES LIKE 'sbtest%'" | tr '\n' ' ')
    [ "$t" = "sbtest2 " ] || { sb_fail "instance 1 of 3 created: $t"; return 1; }
    for i in 0 2; do
        # shellcheck disable=SC2046
        sb_run_ok "prepare $i/3" p$i.txt p$i.err $(sb_driver_args mysql) --tables=3 \
            --table-size=10 --instance=$i/3 --rand-seed=3 oltp_read_only prepare || return 1
    done
    t=$(sb_cli mysql "SHOW TABLES LIKE 'sbtest%'" | sort | tr '\n' ' ')
    [ "$t" = "sbtest1 sbtest2 sbtest3 " ] || { sb_fail "all instances created: $t"; return 1; }
    sb_cli mysql "DROP TABLE IF EXISTS sbtest1, sbtest2, sbtest3"
}

# A file of another experiment (another seed) is refused, one line.
mismatch_refused() {
    local rc=0
    [ -s i0.json ] || { three_instances mysql || return 1; }
    python3 - <<'PY'
import json
d = json.load(open("i2.json"))
d["options"]["general"]["rand-seed"] = 12
json.dump(d, open("other.json", "w"))
PY
    sb_run out.txt err.txt merge i0.json i1.json other.json || rc=$?
    [ "$rc" = 1 ] || { sb_fail "merge of mismatched files exited $rc"; return 1; }
    sb_expect_one_line_error err.txt "^FATAL: cannot merge: .*different --rand-seed"
}

# The example as a user runs it, with pdsh, against MariaDB.
pdsh_example() {
    local c0 i0 c1 i1 ev wr rc=0
    sb_cli mysql "DROP TABLE IF EXISTS scale_t; CREATE TABLE scale_t (id INT AUTO_INCREMENT PRIMARY KEY, g INT)"
    read -r c0 i0 < <(mysql_status)
    # shellcheck disable=SC2046
    HOSTS="gen0 gen1 gen2" LOCAL=1 USE_PDSH=1 LEAD=$LEAD SEED=11 OUT=pd SYSBENCH="$SB_BIN" METRICS_PORT=0 \
        timeout -k 5 90 bash "$SB_SRCDIR/examples/pdsh/run.sh" "$PWD/work.lua" \
        $(sb_driver_args mysql) --threads=$THREADS --tx-rate=$RATE --time=3 \
        --report-interval=1 >pd.txt 2>&1 || rc=$?
    read -r c1 i1 < <(mysql_status)
    cat pd.txt
    [ "$rc" = 0 ] || { sb_fail "examples/pdsh/run.sh exited with $rc"; return 1; }
    grep -q "starting the instances with pdsh -R exec" pd.txt || { sb_fail "pdsh was not used"; return 1; }
    python3 check.py pd/merged.json pd/sb-*-0.json pd/sb-*-1.json pd/sb-*-2.json ||
        { sb_fail "merged result"; return 1; }
    ev=$(python3 -c 'import json; print(json.load(open("pd/merged.json"))["points"][0]["final"]["events"])')
    wr=$(python3 -c 'import json; print(json.load(open("pd/merged.json"))["points"][0]["final"]["queries"]["writes"])')
    echo "server: Com_commit +$((c1 - c0)), Com_insert +$((i1 - i0)); merged: events $ev, writes $wr"
    [ "$ev" -gt 0 ] || { sb_fail "no events"; return 1; }
    [ "$((c1 - c0))" = "$ev" ] || { sb_fail "Com_commit delta $((c1 - c0)) != merged events $ev"; return 1; }
    [ "$((i1 - i0))" = "$wr" ] || { sb_fail "Com_insert delta $((i1 - i0)) != merged writes $wr"; return 1; }
    [ "$(sb_cli mysql 'SELECT COUNT(*) FROM scale_t')" = "$ev" ] || { sb_fail "row count"; return 1; }
    per_connection mysql
}

sb_case scale-out-mysql-counts mysql_counts
sb_case scale-out-pgsql-counts pgsql_counts
sb_case scale-out-prepare-split prepare_split
sb_case scale-out-mismatch-refused mismatch_refused
if command -v pdsh >/dev/null 2>&1; then
    sb_case scale-out-pdsh-example pdsh_example
else
    echo "SKIP: scale-out-pdsh-example (pdsh is not installed; scripts/deps.sh --servers installs it)"
fi
