#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Transaction mixes (SCRIPT@WEIGHT ..., pure/sb_mix.h, sysbench.mix), on
# the embedded SQLite driver: each type's share follows its weight and
# matches what the database executed; a seed reproduces the sequence of
# types; every script keeps its own globals, modules and hooks; the
# figures per type add up to the totals, in the report, the JSON, the
# CSV and the metrics (live and --metrics-file);
# prepare and cleanup; rate mode and --tx-rate-per-type; bad input is
# one line.
#
# Run by `make check`, or by hand: bash tests/cli/mix_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read the result files"

# A JSON check: python3 - FILE <<EOF ... with the point as p.
py_point() {
    python3 - "$@" || fail "the JSON check failed"
}

# Three empty scripts: the cheapest events, for large counts.
write_empty() {
    local s
    for s in "$@"; do echo 'function event() end' >"$s.lua"; done
}

# ---------------------------------------------------------------- shares

tcase "bundled oltp_* at 70/20/10: shares within 1% over 10,000 transactions, equal to the statements run"
sb oltp_point_select@70 oltp_update_index@20 oltp_insert@10 --tables=2 --table-size=500 prepare
assert_exit 0
# Tables are made once: the three scripts' prepare is oltp_common's.
assert_count out "^Creating table 'sbtest1'" 1
# One thread and a seed: one fixed sequence (the spread over seeds is the
# next case's); at 10,000 draws a 70% share has a standard deviation of
# 0.46 points.
sb oltp_point_select@70 oltp_update_index@20 oltp_insert@10 --tables=2 --table-size=500 \
    --threads=1 --events=10000 --time=0 --rand-seed=11 --json=r.json run
assert_exit 0
assert_contains out "Transaction types (response time in ms):"
assert_match out "^    oltp_point_select +70 "
py_point r.json <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
f, ty = p["final"], {t["name"]: t for t in p["types"]}
assert [t["name"] for t in p["types"]] == ["oltp_point_select", "oltp_update_index", "oltp_insert"]
ev = {k: t["events"] for k, t in ty.items()}
assert f["events"] == 10000 and sum(ev.values()) == 10000, ev
for name, w in (("oltp_point_select", 70), ("oltp_update_index", 20), ("oltp_insert", 10)):
    share = 100.0 * ev[name] / 10000
    assert abs(share - w) < 1.0, (name, share)
    assert ty[name]["weight"] == w
    # the histogram of a type holds its events, mergeable like the point's
    h = ty[name]["histogram"]
    assert sum(b[2] for b in h["buckets"]) == ev[name], (name, h.keys())
# each point select is one read, each update and insert one write
assert f["queries"]["reads"] == ev["oltp_point_select"], (f["queries"], ev)
assert f["queries"]["writes"] == ev["oltp_update_index"] + ev["oltp_insert"], (f["queries"], ev)
EOF
# The database's own count: the inserts are the new rows.
rows=$(sqlite3 sbtest.db "SELECT (SELECT COUNT(*) FROM sbtest1) + (SELECT COUNT(*) FROM sbtest2)")
ins=$(python3 -c "import json,sys; p=json.load(open('r.json'))['points'][0]; print([t['events'] for t in p['types'] if t['name']=='oltp_insert'][0])")
assert_eq "$rows" "$((1000 + ins))" "rows in the tables"
sb oltp_point_select@70 oltp_update_index@20 oltp_insert@10 --tables=2 cleanup
assert_exit 0
assert_count out "^Dropping table 'sbtest1'" 1

tcase "shares within 0.5% of the weights over 300,000 events, any seed"
write_empty a b c
sb a@70 b@20 c@10 --threads=2 --events=300000 --time=0 --json=r.json run
assert_exit 0
# Binomial: a 70% share over 300,000 draws has a standard deviation of
# 0.08 points, so 0.5 is six of them.
py_point r.json <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
ev = [t["events"] for t in p["types"]]
assert sum(ev) == p["final"]["events"] == 300000, ev
for e, w in zip(ev, (70, 20, 10)):
    assert abs(100.0 * e / 300000 - w) < 0.5, ev
EOF

tcase "a seed reproduces the sequence of types; another seed gives another"
for s in a b; do
    printf 'function event() io.write("%s") end\nfunction thread_done() io.write("\\n") end\n' "$s" >"$s.lua"
done
sb a@3 b@1 --events=2000 --time=0 --rand-seed=42 run
assert_exit 0
grep -E '^[ab]{100,}$' out >seq1 || fail "no sequence of types printed"
sb a@3 b@1 --events=2000 --time=0 --rand-seed=42 run
grep -E '^[ab]{100,}$' out >seq2
sb a@3 b@1 --events=2000 --time=0 --rand-seed=43 run
grep -E '^[ab]{100,}$' out >seq3
assert_eq "$(wc -c <seq1)" 2001 "characters in the sequence"
cmp -s seq1 seq2 || fail "the same seed gave another sequence"
if cmp -s seq1 seq3; then fail "another seed gave the same sequence"; fi

# ---------------------------------------------------------------- per script

tcase "each script has its own globals, modules and hooks"
cat >m.lua <<'EOF'
local M = { n = 0 }
function M.bump() M.n = M.n + 1 return M.n end
return M
EOF
for s in a b; do
    cat >"$s.lua" <<EOF
local m = require("m")
function thread_init() who = "$s" print("init $s " .. sysbench.tid) end
function event()
  assert(who == "$s", "globals of another script: " .. tostring(who))
  m.bump()
end
function thread_done() print("done $s " .. sysbench.tid .. " " .. m.n) end
EOF
done
sb a@1 b@1 --threads=2 --events=400 --time=0 run
assert_exit 0
assert_no_crash
for s in a b; do
    assert_count out "^init $s [01]$" 2
    assert_count out "^done $s [01] [0-9]+$" 2
done
# Each script's module counted that script's events only.
sum=$(awk '/^done / { s += $4 } END { print s }' out)
assert_eq "$sum" 400 "events the modules counted"
a_rep=$(awk '$1 == "a" && $2 == 1 { print $4 }' out)
a_mod=$(awk '/^done a / { s += $4 } END { print s }' out)
assert_eq "$a_rep" "$a_mod" "a's events in the report (its module counted $a_mod)"

tcase "init and done run once per script; a command runs only where defined"
printf 'function init() print("init A") end\nfunction done() print("done A") end\nfunction event() end\n' >a.lua
printf 'function init() print("init B") end\nfunction done() print("done B") end\nfunction event() end\nfunction prepare() print("prepare B") end\n' >b.lua
sb a@1 b@1 --threads=2 --events=10 --time=0 run
assert_exit 0
for s in A B; do
    assert_count out "^init $s$" 1
    assert_count out "^done $s$" 1
done
sb a@1 b@1 prepare
assert_exit 0
assert_count out "^prepare B$" 1
sb a@1 b@1 nosuchcmd
assert_exit 1
assert_fatal "command 'nosuchcmd' is not implemented by script a@1 b@1"

tcase "ignored errors per type add up to the run's"
cat >e.lua <<'EOF'
local ffi = require("ffi")
local n = 0
function event(tid)
  n = n + 1
  if n % 4 == 0 then
    ffi.C.sb_counter_inc(tid, ffi.C.SB_CNT_ERROR)
    error({ errcode = sysbench.error.RESTART_EVENT })
  end
end
EOF
write_empty ok
sb e@1 ok@1 --events=2000 --time=0 --json=r.json run
assert_exit 0
py_point r.json <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
ty = {t["name"]: t for t in p["types"]}
total = p["final"]["errors"]["ignored"]
assert total > 100 and ty["e"]["errors"] == total and ty["ok"]["errors"] == 0, (total, ty["e"]["errors"])
assert ty["e"]["events"] + ty["ok"]["events"] == p["final"]["events"] == 2000
EOF

tcase "--tx-rate: one schedule for the mix, service time per type in the JSON"
write_empty a b
sb a@1 b@3 --threads=2 --tx-rate=400 --time=2 --json=r.json run
assert_exit 0
py_point r.json <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
ev = [t["events"] for t in p["types"]]
assert sum(ev) == p["final"]["events"] and 600 <= sum(ev) <= 800, ev
assert ev[1] > 2 * ev[0], ev
for t in p["types"]:
    assert t["latency_ms"]["service"]["count"] == t["events"], t["latency_ms"]["service"]
    assert "service" in t["histograms"] and "lag" in t["histograms"]
EOF

tcase "--tx-rate-per-type: each type's achieved rate is its own, not the weights' share"
write_empty a b
# Weights 1:1 but rates 120:40: the rates decide. 640 transactions over
# 4 s: a's share has a standard deviation of 1.7 points; 75% +- 8 is
# more than 4 of them, and the weights' 50% is 25 points away.
sb a@1 b@1 --threads=2 --tx-rate=160 --tx-rate-per-type=a:120,b:40 --time=4 --json=r.json run
assert_exit 0
py_point r.json <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
ev = {t["name"]: t["events"] for t in p["types"]}
assert sum(ev.values()) == p["final"]["events"] and 500 <= sum(ev.values()) <= 700, ev
share = 100.0 * ev["a"] / sum(ev.values())
assert 67 <= share <= 83, (share, ev)
# each type's rate within 25% of its own
assert 90 <= ev["a"] / 4 <= 150 and 30 <= ev["b"] / 4 <= 50, ev
EOF
# --rate (Poisson arrivals) takes the rates too.
sb a@1 b@1 --threads=2 --rate=160 --tx-rate-per-type=a:40,b:120 --time=3 --json=r.json run
assert_exit 0
py_point r.json <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
ev = {t["name"]: t["events"] for t in p["types"]}
assert ev["b"] > 2 * ev["a"] > 0, ev
EOF

tcase "a sweep and --repeat: types in every point, adding up"
write_empty a b
sb a@1 b@2 --threads=1,2 --repeat=2 --events=3000 --time=0 --json=r.json run
assert_exit 0
py_point r.json <<'EOF'
import json, sys
pts = json.load(open(sys.argv[1]))["points"]
assert len(pts) == 4, len(pts)
for p in pts:
    ev = [t["events"] for t in p["types"]]
    assert sum(ev) == p["final"]["events"] == 3000 and ev[1] > ev[0], ev
EOF

tcase "--report-checkpoints: no types (they would not add up)"
write_empty a b
sb a@1 b@1 --time=3 --report-checkpoints=1 --json=r.json run
assert_exit 0
assert_not_contains out "Transaction types"
py_point r.json <<'EOF'
import json, sys
assert "types" not in json.load(open(sys.argv[1]))["points"][0]
EOF

tcase "merge: each type's events, errors and histograms add up over the instances"
write_empty a b
at=$(( $(date +%s) + 2 ))
for i in 0 1; do
    "$SB_BIN" a@1 b@1 run --threads=1 --tx-rate=100 --time=1 --rand-seed=3 --instance=$i/2 \
        --start-at="$at" --json=i$i.json >i$i.out 2>&1 &
done
wait
sb merge i0.json i1.json --json=all.json
assert_exit 0
py_point all.json <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
ins = [json.load(open("i%d.json" % i))["points"][0] for i in (0, 1)]
assert [t["name"] for t in p["types"]] == ["a", "b"], p["types"]
for k in (0, 1):
    t = p["types"][k]
    assert t["events"] == sum(q["types"][k]["events"] for q in ins) > 0, t
    assert t["errors"] == sum(q["types"][k]["errors"] for q in ins)
    h = t["histogram"]
    assert h["count"] == t["events"] == sum(b[2] for b in h["buckets"])
    assert h["sum_ns"] == sum(q["types"][k]["histogram"]["sum_ns"] for q in ins)
    assert h["max_ns"] == max(q["types"][k]["histogram"]["max_ns"] for q in ins)
    assert t["latency_ms"]["response"]["count"] == t["events"]
assert sum(t["events"] for t in p["types"]) == p["final"]["events"]
EOF

tcase "one script without a weight: no table, no types"
write_empty a
sb a.lua --events=100 --time=0 --json=r.json run
assert_exit 0
assert_not_contains out "Transaction types"
py_point r.json <<'EOF'
import json, sys
assert "types" not in json.load(open(sys.argv[1]))["points"][0]
EOF

tcase "help lists the options of every script of the mix"
cat >a.lua <<'EOF'
sysbench.cmdline.options = { alpha = {"alpha's option", 1} }
function event() end
EOF
cat >b.lua <<'EOF'
sysbench.cmdline.options = { beta = {"beta's option", 2} }
function event() end
EOF
sb a@1 b@1 help
assert_exit 0
assert_match out "--alpha"
assert_match out "--beta"
sb a@1 b@1 --alpha=5 --beta=6 --events=10 --time=0 run
assert_exit 0

# ------------------------------------------------------- CSV and metrics

tcase "per type in the CSV (columns per type) and the metrics (label type), adding up to the totals"
write_empty a b
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sb_bg a@1 b@3 --threads=2 --tx-rate=200 --time=4 --report-interval=1 --csv=r.csv \
    --metrics-file=r.om --metrics-listen="127.0.0.1:$port" --metrics-linger=1 run
wait_for_report out 2
if command -v curl >/dev/null 2>&1; then
    curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" >scrape.txt ||
        fail "no answer from the metrics listener during the mix run"
    assert_match scrape.txt '^sysbench_mix_transactions_total\{script="a@1 b@3",sysbench_instance="0",type="b"\} [0-9]+$'
    assert_match scrape.txt '^sysbench_mix_latency_seconds\{script="a@1 b@3",sysbench_instance="0",type="a",quantile="0.95"\} '
    # the totals keep their names and labels
    assert_match scrape.txt '^sysbench_transactions_total\{script="a@1 b@3",sysbench_instance="0"\} [0-9]+$'
fi
sb_wait
assert_exit 0
py_point r.csv r.om <<'EOF'
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ivs = [r for r in rows if r["ended"] == ""]
assert len(ivs) == 4 and rows[-1]["ended"] == "completed", rows
assert list(rows[0])[20:] == ["tps[a]", "latency_p95_ms[a]", "errors_ps[a]",
                              "tps[b]", "latency_p95_ms[b]", "errors_ps[b]"], list(rows[0])
# An interval's types add up to its total but for the transactions that
# ended between the two passes over the threads' counters (read one after
# the other, microseconds apart), and the rounding of each figure to 0.01.
# A reporter preempted between the passes on a loaded machine lets a
# thread catching up on its schedule end more: 5 of 200 seen when the
# passes were milliseconds apart, 17 of 200 under TSan, 18 of 210 at load
# 25 in a chroot under a CPU hog. Such transactions are counted in the
# next interval's types, so a row may be off by 15% but the sum of the
# rows only by the last row's share (3%): a type missing from the counts
# (25% and 75% of the mix here) fails both.
tps_sum = types_sum = 0.0
for r in ivs:
    s = float(r["tps[a]"]) + float(r["tps[b]"])
    assert abs(s - float(r["tps"])) <= 2.05 + 0.15 * float(r["tps"]), r
    assert float(r["tps[b]"]) > float(r["tps[a]"]) > 0, r
    assert float(r["errors_ps[a]"]) == 0 and r["latency_p95_ms[b]"] != "", r
    tps_sum += float(r["tps"])
    types_sum += s
assert abs(types_sum - tps_sum) <= 2.05 * len(ivs) + 0.03 * tps_sum, (types_sum, tps_sum)
# The OpenMetrics file: the last per-type counters add up to the total.
last = {}
for line in open(sys.argv[2]):
    m = re.match(r'sysbench_(mix_)?transactions_total\{[^}]*?(?:type="(\w+)")?\} (\d+) ', line)
    if m:
        last[m.group(2) or "total"] = int(m.group(3))
assert set(last) == {"a", "b", "total"}, last
assert abs(last["a"] + last["b"] - last["total"]) <= 2 + 0.01 * last["total"] and last["total"] > 600, last
EOF

# ---------------------------------------------------------------- bad input

tcase "--tx-rate-per-type: bad input is one line"
write_empty a b
for bad in "a:120,c:40|'c' is not a script of the mix" \
    "a:120,b:30|sums to 150 tx/s, but --tx-rate is 160" \
    "a:-120,b:280|the rate of 'a' must be a positive number" \
    "a:160|gives no rate for 'b'" \
    "a:80,a:80|'a' is given twice" \
    "a:lots,b:40|the rate of 'a' must be a positive number"; do
    sb a@1 b@1 --tx-rate=160 --tx-rate-per-type="${bad%%|*}" --time=1 run
    assert_exit 1
    assert_fatal "${bad#*|}"
    assert_count err . 1
done
sb a@1 b@1 --tx-rate-per-type=a:1,b:1 --time=1 run
assert_exit 1
assert_contains err "--tx-rate-per-type needs --tx-rate (or --rate)"
sb a.lua --tx-rate=2 --tx-rate-per-type=a:1,b:1 --time=1 run
assert_exit 1
assert_contains err "--tx-rate-per-type needs a transaction mix"
sb a@1 b@1 --tx-rate=2,4 --tx-rate-per-type=a:1,b:1 --time=1 run
assert_exit 1
assert_contains err "--tx-rate-per-type fixes the rate: not with a --tx-rate list"

tcase "an unknown script in the mix: one line"
write_empty a
sb a@1 nosuch@2 run
assert_exit 1
assert_fatal "cannot find script 'nosuch' of the mix"

tcase "a weight of 0: one line"
write_empty a b
sb a@1 b@0 run
assert_exit 1
assert_fatal "weight of 'b' in the mix is 0"

tcase "a weight that is not a number: one line"
write_empty a b
for w in x -1 1.5 ' 3' ''; do
    sb a@1 "b@$w" run
    assert_exit 1
    assert_fatal "weight of 'b' in the mix must be a positive integer"
done

tcase "no name, a compiled-in test, a script without event(): one line each"
write_empty a
echo 'function thread_init() end' >noev.lua
sb @3 a@1 run
assert_exit 1
assert_fatal "names no script before '@'"
sb cpu@1 a@1 run
assert_exit 1
assert_fatal "'cpu' cannot be in a mix"
sb a@1 noev@1 run
assert_exit 1
assert_fatal "script noev of the mix defines no event()"

tcase "two scripts with different defaults for one option: one line"
cat >a.lua <<'EOF'
sysbench.cmdline.options = { tables = {"tables", 1} }
function event() end
EOF
cat >b.lua <<'EOF'
sysbench.cmdline.options = { tables = {"tables", 4} }
function event() end
EOF
sb a@1 b@1 run
assert_exit 1
assert_fatal "scripts a and b of the mix declare different defaults for --tables: 1 and 4"

finish
