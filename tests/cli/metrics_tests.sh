#!/usr/bin/env bash
#
# Live metrics (--metrics-listen) and the OpenMetrics file (--metrics-file),
# on the empty-event script (no database):
#   - a real Prometheus (Debian package prometheus, started here on a free
#     loopback port with a temporary storage directory and a 1 s scrape
#     interval) scrapes a 10 s run; its HTTP API must hold at least 9
#     samples of sysbench_transactions_per_second, each equal to the tps of
#     the interval line it was scraped after (mapped through
#     sysbench_elapsed_seconds of the same scrape; --metrics-linger=2 keeps
#     the last interval up after the run);
#   - `promtool check metrics` accepts a live answer, and `promtool tsdb
#     create-blocks-from openmetrics` the file, whose last transactions
#     counter equals the events of the --json intervals;
#   - a taken port and a bad address are one FATAL line before the run; a
#     client that connects and sends nothing delays a scrape by at most 2 s
#     and never the run; the port is closed when the run ends.
# Without prometheus/promtool the cases that need them print SKIP (the
# Debian packages are installed by scripts/deps.sh).
#
# Run by `make check`, or by hand: bash tests/cli/metrics_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read the answers"
need_tool curl "to scrape the metrics"

# free_port: a TCP port free on 127.0.0.1 now.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# scrape PORT: one answer of the listener, into ./scrape.txt.
scrape() {
    curl -sf --max-time 5 "http://127.0.0.1:$1/metrics" >scrape.txt
}

# A steady 300 tx/s on two connections: little CPU on a shared machine.
RUN=(ev.lua run --threads=2 --tx-rate=300 --report-interval=1)

# skip WHY: the current case cannot run here; it is neither passed nor failed.
skip() {
    echo "SKIP: $_T_NAME ($1; scripts/deps.sh installs it)"
    _T_NAME=
}

tcase "a taken port is one FATAL line before the run"
write_ev
python3 -c 'import socket, time, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
open("port", "w").write(str(s.getsockname()[1])); sys.stdout.flush(); time.sleep(20)' &
holder=$!
for _ in $(seq 50); do [ -s port ] && break; sleep 0.1; done
sb "${RUN[@]}" --time=5 --metrics-listen="127.0.0.1:$(cat port)"
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
assert_exit 1
assert_fatal "--metrics-listen=127.0.0.1:$(cat port): cannot listen: Address already in use"
assert_not_contains out "Threads started"

tcase "a bad address is one FATAL line"
write_ev
sb "${RUN[@]}" --time=5 --metrics-listen=localhost
assert_exit 1
assert_fatal "invalid value for --metrics-listen: 'localhost' (expected HOST:PORT"
sb "${RUN[@]}" --time=5 --metrics-listen=no.such.host.invalid:9100
assert_exit 1
assert_fatal "--metrics-listen=no.such.host.invalid:9100: cannot resolve"

tcase "a silent client neither hangs the run nor blocks the next scrape for long"
write_ev
port=$(free_port)
sb_bg "${RUN[@]}" --time=5 --metrics-listen="127.0.0.1:$port"
wait_for out "[ 1s ]"
# Connects, sends half a request, and holds the connection open 6 s.
python3 -c 'import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.send(b"GET /met"); time.sleep(6)' \
    "$port" &
silent=$!
sleep 0.3
t0=$(date +%s.%N)
scrape "$port" || fail "no answer while a silent client was connected"
t1=$(date +%s.%N)
assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" 3 \
    "seconds to answer behind the silent client"
assert_match scrape.txt '^sysbench_transactions_total\{script="ev",sysbench_instance="0"\} [0-9]+$'
sb_wait
kill "$silent" 2>/dev/null; wait "$silent" 2>/dev/null
assert_exit 0
assert_count out '^\[ [0-9]+s \]' 5
# Stopped with the run: nothing listens any more.
if curl -s --max-time 2 "http://127.0.0.1:$port/metrics" >/dev/null; then
    fail "the port still answers after the run"
fi
# Anything but GET /metrics gets a plain error, not the figures.
rm -f out
sb_bg "${RUN[@]}" --time=3 --metrics-listen="127.0.0.1:$port"
wait_for out "[ 1s ]"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "http://127.0.0.1:$port/other")
assert_eq "$code" 404 "status for /other"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 -X POST "http://127.0.0.1:$port/metrics")
assert_eq "$code" 405 "status for POST"
sb_wait
assert_exit 0

tcase "the last scrapes say the run has ended: sysbench_run_active 0, then the target goes down"
write_ev
port=$(free_port)
sb_bg "${RUN[@]}" --time=2 --metrics-listen="127.0.0.1:$port" --metrics-linger=6 --json=r.json
wait_for out "[ 1s ]"
scrape "$port" || fail "no answer during the run"
assert_match scrape.txt '^sysbench_run_active\{script="ev",sysbench_instance="0"\} 1$'
# After the last point, during --metrics-linger: 0, with the last figures.
ended=
for _ in $(seq 60); do
    if scrape "$port" && grep -q '^sysbench_run_active{.*} 0$' scrape.txt; then
        ended=1
        break
    fi
    sleep 0.1
done
[ -n "$ended" ] || fail "no scrape said sysbench_run_active 0 during --metrics-linger"
sb_wait
assert_exit 0
assert_match scrape.txt "^sysbench_transactions_total\\{script=\"ev\",sysbench_instance=\"0\"\\} $(jget r.json 'sum(i["events"] for i in d["points"][0]["intervals"])')\$"
# Then the listener is gone: the target goes down, as the docs say.
if curl -s --max-time 2 "http://127.0.0.1:$port/metrics" >/dev/null; then
    fail "the port still answers after --metrics-linger"
fi

tcase "promtool accepts the live text and imports the OpenMetrics file"
if ! command -v promtool >/dev/null 2>&1; then
    skip "promtool is not installed"
else
    write_ev
    port=$(free_port)
    sb_bg "${RUN[@]}" --time=3 --metrics-listen="127.0.0.1:$port" --metrics-file=run.om \
        --json=r.json --percentile=50,99
    wait_for out "[ 2s ]"
    scrape "$port" || fail "no answer"
    sb_wait
    assert_exit 0
    promtool check metrics <scrape.txt >check.txt 2>&1 || fail "promtool check metrics: $(cat check.txt)"
    assert_match scrape.txt '^sysbench_latency_seconds\{script="ev",sysbench_instance="0",quantile="0.99"\} '
    assert_match scrape.txt '^sysbench_target_transactions_per_second\{script="ev",sysbench_instance="0"\} 300$'
    assert_eq "$(tail -n 1 run.om)" "# EOF" "last line of the file"
    timeout 30 promtool tsdb create-blocks-from openmetrics run.om blocks >import.txt 2>&1 ||
        fail "promtool tsdb create-blocks-from openmetrics: $(cat import.txt)"
    assert_match import.txt 'NUM SAMPLES'
    ev=$(python3 -c 'import json; print(sum(i["events"] for i in json.load(open("r.json"))["points"][0]["intervals"]))')
    last=$(grep '^sysbench_transactions_total{' run.om | tail -n 1 | awk '{ print $2 }')
    assert_eq "$last" "$ev" "last transactions counter of the file vs the JSON intervals"
    assert_eq "$(grep -c '^sysbench_transactions_total{' run.om)" 3 "transactions samples"
fi

tcase "a sweep's file: the point gauge goes 1, 2 and the counter never goes back"
write_ev
sb ev.lua run --threads=1,2 --tx-rate=100 --time=2 --metrics-file=sweep.om --json=s.json
assert_exit 0
assert_contains out "Report intermediate results every 1 second(s)"
python3 - sweep.om s.json >check.txt <<'PY' || fail "$(cat check.txt)"
import json, sys
pts, tx, ts = [], [], []
for l in open(sys.argv[1]):
    if l.startswith("sysbench_point{"):
        pts.append(int(float(l.split()[1])))
    if l.startswith("sysbench_transactions_total{"):
        tx.append(int(l.split()[1]))
        ts.append(float(l.split()[2]))
want = [i["events"] for p in json.load(open(sys.argv[2]))["points"] for i in p["intervals"]]
# Two intervals a point, or one when a late reporter folded two together.
ok = (set(pts) == {1, 2} and pts == sorted(pts) and len(pts) == len(want) and tx == [sum(want[:k + 1]) for k in range(len(want))] and
      ts == sorted(ts) and len(set(ts)) == len(ts))
print("points %s, counter %s, JSON interval events %s" % (pts, tx, want))
sys.exit(0 if ok else 1)
PY
if command -v promtool >/dev/null 2>&1; then
    timeout 30 promtool tsdb create-blocks-from openmetrics sweep.om blocks >import.txt 2>&1 ||
        fail "promtool tsdb create-blocks-from openmetrics: $(cat import.txt)"
fi

tcase "Prometheus scrapes a 10 s run at 1 s: at least 9 samples equal to the interval lines"
if ! command -v prometheus >/dev/null 2>&1; then
    skip "prometheus is not installed"
else
    write_ev
    port=$(free_port)
    pport=$(free_port)
    cat >prom.yml <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: sysbench
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
    timeout -k 5 60 prometheus --config.file=prom.yml --storage.tsdb.path=tsdb \
        --web.listen-address="127.0.0.1:$pport" >prom.log 2>&1 &
    prom=$!
    for _ in $(seq 100); do
        curl -sf --max-time 1 "http://127.0.0.1:$pport/-/ready" >/dev/null && break
        sleep 0.1
    done
    # Prometheus starts its scrape loops a few seconds after it is ready:
    # wait until it has tried the (not yet listening) target once.
    for _ in $(seq 150); do
        curl -sf --max-time 1 "http://127.0.0.1:$pport/api/v1/targets" 2>/dev/null |
            grep -q '"lastScrape":"20' && break
        sleep 0.1
    done
    curl -sf --max-time 1 "http://127.0.0.1:$pport/api/v1/targets" 2>/dev/null |
        grep -q '"lastScrape":"20' || fail "prometheus never scraped: $(tail -n 3 prom.log)"
    # --metrics-linger: the last interval stays up for a scrape or two.
    sb "${RUN[@]}" --time=10 --metrics-listen="127.0.0.1:$port" --metrics-linger=2
    assert_exit 0
    # The samples of the last minute, raw, as Prometheus stored them.
    for q in sysbench_transactions_per_second sysbench_elapsed_seconds; do
        curl -sf --max-time 5 "http://127.0.0.1:$pport/api/v1/query" \
            --data-urlencode "query=${q}{job=\"sysbench\",script=\"ev\"}[1m]" >"$q.json" ||
            fail "query $q"
    done
    kill "$prom" 2>/dev/null; wait "$prom" 2>/dev/null
    python3 - out sysbench_transactions_per_second.json sysbench_elapsed_seconds.json >check.txt <<'PY' ||
import json, re, sys
lines = {}
for l in open(sys.argv[1]):
    m = re.match(r"\[ (\d+)s \] .* [te]ps: ([0-9.]+) ", l)
    if m:
        lines[int(m.group(1))] = float(m.group(2))
def samples(f):
    r = json.load(open(f))["data"]["result"]
    return {float(t): float(v) for t, v in r[0]["values"]} if r else {}
tps, el = samples(sys.argv[2]), samples(sys.argv[3])
ok = bad = 0
seen = set()
for t, v in sorted(tps.items()):
    label = round(el[t])
    if label in lines and abs(lines[label] - v) <= 0.005 + 1e-9:
        ok += 1
        seen.add(label)
    else:
        bad += 1
        print("sample at %.3f: tps %s after interval %s, line says %s" % (t, v, label, lines.get(label)))
print("%d interval lines, %d samples equal to their line (%d distinct intervals), %d not" %
      (len(lines), ok, len(seen), bad))
sys.exit(0 if ok >= 9 and bad == 0 and len(lines) == 10 else 1)
PY
        fail "$(cat check.txt)"
    cat check.txt
fi

finish
