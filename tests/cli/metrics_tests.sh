#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
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
#     and never the run; the port is closed when the run ends;
#   - slow clients (tests/cli/http_clients.py): with 100 connections
#     trickling a byte every 0.5 s, a real Prometheus (with a bearer token,
#     --metrics-token) still scrapes (its `up` series); a storm of 300
#     clients at once is answered in full, none reset; silent clients
#     delay neither the end of a --time=5 run nor a SIGINT;
#   - binding: :PORT and [::]:PORT take every IPv6 and IPv4 address, the
#     start-up line names it, one warning without a token; 401 without
#     the token; a signal during --metrics-linger ends with 128 + signal.
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

CLIENTS="$SB_SRCDIR/tests/cli/http_clients.py"

# wait_open FILE N: waits (up to 30 s) until http_clients.py's status FILE
# says at least N connections are open.
wait_open() {
    local i
    for i in $(seq 300); do
        [ "$(awk '{ print $2 }' "$1" 2>/dev/null || echo 0)" -ge "$2" ] 2>/dev/null && return 0
        sleep 0.1
    done
    fail "never $2 clients connected ($(cat "$1" 2>/dev/null))"
    return 1
}

# start_prometheus CONFIG: starts prometheus (PID in $PROM) on a free port
# ($PPORT) with its data in ./tsdb, and waits until it has tried its
# targets once (it starts its scrape loops a few seconds after it is
# ready). Returns 1 when it does not get there.
start_prometheus() {
    PPORT=$(free_port)
    timeout -k 5 120 prometheus --config.file="$1" --storage.tsdb.path=tsdb \
        --web.listen-address="127.0.0.1:$PPORT" >prom.log 2>&1 &
    PROM=$!
    for _ in $(seq 300); do
        curl -sf --max-time 1 "http://127.0.0.1:$PPORT/api/v1/targets" 2>/dev/null |
            grep -q '"lastScrape":"20' && return 0
        sleep 0.1
    done
    fail "prometheus never scraped: $(tail -n 3 prom.log)"
    return 1
}

tcase "a taken port is one FATAL line before the run"
write_ev
python3 -c 'import socket, time, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
open("port", "w").write(str(s.getsockname()[1])); sys.stdout.flush(); time.sleep(20)' &
holder=$!
for _ in $(seq 50); do [ -s port ] && break; sleep 0.1; done
sb "${RUN[@]}" --time=5 --metrics-listen="127.0.0.1:$(cat port)"
sb_stop_child "$holder"
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
wait_for_report out
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
sb_stop_child "$silent"
assert_exit 0
# Five ticks; one may fold into the next on a loaded machine (a reporter
# held up past a whole tick), while a reporter held by the silent client
# would have lost the ticks of its 6 s.
assert_ge "$(grep -cE "$REPORT_LINE" out)" 4 "interval lines"
# Stopped with the run: nothing listens any more.
if curl -s --max-time 2 "http://127.0.0.1:$port/metrics" >/dev/null; then
    fail "the port still answers after the run"
fi
# Anything but GET /metrics gets a plain error, not the figures.
rm -f out
sb_bg "${RUN[@]}" --time=60 --metrics-listen="127.0.0.1:$port"
wait_for_report out
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "http://127.0.0.1:$port/other")
assert_eq "$code" 404 "status for /other"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 -X POST "http://127.0.0.1:$port/metrics")
assert_eq "$code" 405 "status for POST"
sb_signal_child "$SB_PID" INT; sb_wait
assert_exit 130

tcase "the last scrapes say the run has ended: sysbench_run_active 0, then the target goes down"
write_ev
port=$(free_port)
# 5 s: the scrape after the first report must fall inside the run; at
# load 25 under a CPU hog a 2-s run had ended before it.
sb_bg "${RUN[@]}" --time=5 --metrics-listen="127.0.0.1:$port" --metrics-linger=6 --json=r.json
wait_for_report out
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
    skip "promtool is not installed; scripts/deps.sh installs it"
else
    write_ev
    port=$(free_port)
    sb_bg "${RUN[@]}" --time=3 --metrics-listen="127.0.0.1:$port" --metrics-file=run.om \
        --json=r.json --percentile=50,99
    wait_for_report out
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
    skip "prometheus is not installed; scripts/deps.sh installs it"
else
    write_ev
    port=$(free_port)
    cat >prom.yml <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: sysbench
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
    start_prometheus prom.yml || { sb_stop_child "$PROM"; }
    prom=$PROM
    pport=$PPORT
    # --metrics-linger: the last interval stays up for a scrape or two.
    sb "${RUN[@]}" --time=10 --metrics-listen="127.0.0.1:$port" --metrics-linger=2
    assert_exit 0
    # The samples of the last minute, raw, as Prometheus stored them.
    for q in sysbench_transactions_per_second sysbench_elapsed_seconds; do
        curl -sf --max-time 5 "http://127.0.0.1:$pport/api/v1/query" \
            --data-urlencode "query=${q}{job=\"sysbench\",script=\"ev\"}[1m]" >"$q.json" ||
            fail "query $q"
    done
    sb_stop_child "$prom"
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

tcase "Prometheus scrapes with a bearer token through 100 trickling clients"
if ! command -v prometheus >/dev/null 2>&1; then
    skip "prometheus is not installed; scripts/deps.sh installs it"
else
    write_ev
    port=$(free_port)
    printf 'tok-%s\n' "$RANDOM$RANDOM" >token
    cat >prom.yml <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: sysbench
    authorization:
      type: Bearer
      credentials_file: $T/token
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
    if start_prometheus prom.yml; then
        sb_bg "${RUN[@]}" --time=60 --metrics-listen="127.0.0.1:$port" --metrics-token=token
        wait_for_report out
        # 100 connections, each sending one byte of a request every 0.5 s
        # (the server drops each after 2 s; it is opened again at once).
        python3 "$CLIENTS" trickle "$port" 100 60 --status trickle.st >trickle.txt &
        trickle=$!
        wait_open trickle.st 100
        from=$(date +%s.%N)
        sleep 12
        to=$(date +%s.%N)
        open_at_end=$(awk '{ print $2 }' trickle.st)
        # Prometheus' own record of its scrapes: up is 1 for a scrape
        # that got an answer within its 1 s timeout, 0 otherwise.
        curl -sf --max-time 5 "http://127.0.0.1:$PPORT/api/v1/query" \
            --data-urlencode "query=up{job=\"sysbench\"}[$(awk -v a="$from" -v b="$to" 'BEGIN { printf "%d", b - a }')s]" \
            --data-urlencode "time=$to" >up.json || fail "query up"
        sb_stop_child "$trickle"
        sb_signal_child "$SB_PID" INT; sb_wait
        assert_exit 130
        python3 - up.json >check.txt <<'PY' || fail "$(cat check.txt)"
import json, sys
r = json.load(open(sys.argv[1]))["data"]["result"]
v = [float(x[1]) for x in r[0]["values"]] if r else []
print("%d scrapes in the window, %d up" % (len(v), sum(v)))
# A scrape every second; on a loaded machine some may time out, but the
# server must not starve them (it gave one success in 12 s to a scraper
# behind 5 such clients, none behind 50).
sys.exit(0 if len(v) >= 6 and sum(v) >= 0.5 * len(v) else 1)
PY
        cat check.txt
        assert_ge "$open_at_end" 90 "trickling clients connected at the end of the window"
    fi
    sb_stop_child "$PROM"
fi

tcase "a storm of 300 clients at once is answered in full, none reset"
write_ev
port=$(free_port)
sb_bg "${RUN[@]}" --time=60 --metrics-listen="127.0.0.1:$port"
wait_for_report out
python3 "$CLIENTS" storm "$port" 300 --timeout 30 >storm.json
sb_signal_child "$SB_PID" INT; sb_wait
assert_exit 130
cat storm.json
assert_eq "$(jget storm.json 'd["ok"]')" 300 "clients answered in full"
assert_eq "$(jget storm.json 'd["reset"]')" 0 "connections reset"
assert_eq "$(jget storm.json 'd["refused"] + d["timeout"] + d["other"]')" 0 \
    "clients refused, timed out or otherwise failed"

tcase "silent clients delay neither the end of --time=5 nor a SIGINT"
write_ev
port=$(free_port)
# 50 connections that send nothing (each opened again when dropped), so
# some are always connected when the run ends.
python3 "$CLIENTS" silent "$port" 50 60 --status silent.st >silent.txt &
silent=$!
# When the last output line appeared, and when the process ended.
python3 - "$SB_BIN" "$port" >timing.txt <<'PY'
import subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen([sys.argv[1], "ev.lua", "run", "--threads=2", "--tx-rate=300", "--time=5",
                      "--metrics-listen=127.0.0.1:" + sys.argv[2]],
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
last = 0.0
with open("out", "w") as out:
    for line in p.stdout:
        out.write(line)
        if line.strip():
            last = time.monotonic() - t0
p.wait()
print("%.3f %.3f %d" % (last, time.monotonic() - t0, p.returncode))
PY
read -r last_line total rc <timing.txt
echo "+ last line after ${last_line} s, exit after ${total} s"
SB_RC=$rc
assert_exit 0
assert_contains out "Threads fairness"
# Before: up to 2 s after the report, waiting on one silent client. A
# sanitizer build takes longer to tear down: it gets a looser bound, which
# only shows that nothing waits for long.
gap=1
[ -z "${SB_SANITIZER:-}" ] || gap=4
assert_le "$(awk -v a="$last_line" -v b="$total" 'BEGIN { printf "%.3f", b - a }')" "$gap" \
    "seconds from the report's last line to the exit"
assert_le "$total" $((8 + gap)) "seconds for --time=5"
# SIGINT with the silent clients connected.
rm -f out
sb_bg "${RUN[@]}" --time=60 --metrics-listen="127.0.0.1:$port"
wait_for_report out
wait_open silent.st 40
sb_signal_child "$SB_PID" INT
t0=$(date +%s.%N)
sb_wait
t1=$(date +%s.%N)
sb_stop_child "$silent"
assert_exit 130
assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" "$(awk -v g="$gap" 'BEGIN { print g + 0.5 }')" \
    "seconds from SIGINT to the exit"

tcase "more connections than the server holds: the oldest go, a scrape gets through"
write_ev
port=$(free_port)
sb_bg "${RUN[@]}" --time=60 --metrics-listen="127.0.0.1:$port"
wait_for_report out
# 600 silent connections for a set of 512.
python3 "$CLIENTS" silent "$port" 600 60 --status silent.st >silent.txt &
silent=$!
wait_open silent.st 550
ok=0
for _ in 1 2 3; do
    scrape "$port" && grep -q '^sysbench_transactions_total{' scrape.txt && ok=$((ok + 1))
done
sb_stop_child "$silent"
sb_signal_child "$SB_PID" INT; sb_wait
assert_exit 130
assert_eq "$ok" 3 "scrapes answered among 600 silent connections"

tcase "[::]:PORT and :PORT: every address, named, one warning without a token"
write_ev
port=$(free_port)
sb_bg "${RUN[@]}" --time=60 --metrics-listen=":$port"
wait_for_report out
scrape "$port" || fail "no answer on 127.0.0.1"
if [ -e /proc/net/if_inet6 ]; then
    curl -sf --max-time 5 "http://[::1]:$port/metrics" >scrape6.txt || fail "no answer on [::1]"
    assert_match scrape6.txt '^sysbench_transactions_total\{'
    scope="every IPv6 and IPv4 address of this host"
    shown="[::]:$port"
else
    scope="every IPv4 address of this host"
    shown="0.0.0.0:$port"
fi
sb_signal_child "$SB_PID" INT; sb_wait
assert_exit 130
assert_contains out "Metrics for Prometheus: http://$shown/metrics (--metrics-listen=:$port: $scope)"
assert_count err '^WARNING: --metrics-listen=.* without authentication' 1
assert_contains err "give --metrics-token=FILE"
if [ -e /proc/net/if_inet6 ]; then
    sb "${RUN[@]}" --time=1 --metrics-listen="[::]:0"
    assert_exit 0
    assert_match out '^Metrics for Prometheus: http://\[::\]:[0-9]+/metrics \(--metrics-listen=\[::\]:0: every IPv6 and IPv4 address of this host\)$'
    assert_count err '^WARNING: --metrics-listen=\[::\]:0 serves the metrics to every IPv6 and IPv4 address of this host without authentication' 1
fi
# 0.0.0.0 is a wildcard too; loopback is not.
sb "${RUN[@]}" --time=1 --metrics-listen="0.0.0.0:0"
assert_count err '^WARNING: --metrics-listen=0.0.0.0:0 serves the metrics to every IPv4 address' 1
sb "${RUN[@]}" --time=1 --metrics-listen="127.0.0.1:0"
assert_exit 0
assert_match out '^Metrics for Prometheus: http://127\.0\.0\.1:[0-9]+/metrics \(--metrics-listen=127\.0\.0\.1:0: loopback only\)$'
assert_not_contains err "without authentication"

tcase "--metrics-token: 401 without it, no warning on a wildcard with it, bad files refused"
write_ev
port=$(free_port)
printf '  tok-A1b2C3  \r\n' >token
sb_bg "${RUN[@]}" --time=60 --metrics-listen=":$port" --metrics-token=token
wait_for_report out
for h in "" "Authorization: Bearer wrong" "Authorization: Bearer tok-A1b2C" \
    "Authorization: Basic dG9rLUExYjJDMw==" "Authorization: Bearer tok-A1b2C3x"; do
    code=$(curl -s -o body.txt -w '%{http_code}' --max-time 5 ${h:+-H "$h"} "http://127.0.0.1:$port/metrics")
    assert_eq "$code" 401 "status with '$h'"
    assert_not_contains body.txt "sysbench_"
done
code=$(curl -s -o body.txt -w '%{http_code}' --max-time 5 -H "authorization: bearer   tok-A1b2C3" \
    "http://127.0.0.1:$port/metrics")
assert_eq "$code" 200 "status with the token"
assert_match body.txt '^sysbench_transactions_total\{'
curl -s -D head.txt -o /dev/null --max-time 5 "http://127.0.0.1:$port/metrics"
assert_match head.txt '^WWW-Authenticate: Bearer realm="sysbench"'
sb_signal_child "$SB_PID" INT; sb_wait
assert_exit 130
assert_contains out "bearer token required)"
assert_not_contains err "without authentication"
assert_not_contains out "tok-A1b2C3"
sb "${RUN[@]}" --time=1 --metrics-token=token
assert_exit 1
assert_fatal "--metrics-token needs --metrics-listen=HOST:PORT"
sb "${RUN[@]}" --time=1 --metrics-listen=127.0.0.1:0 --metrics-token=missing
assert_exit 1
assert_fatal "--metrics-token=missing: cannot open: No such file or directory"
printf ' \n\n' >blank
sb "${RUN[@]}" --time=1 --metrics-listen=127.0.0.1:0 --metrics-token=blank
assert_exit 1
assert_fatal "--metrics-token=blank: is empty"
printf 'first-half\nsecond-half\n' >two
sb "${RUN[@]}" --time=1 --metrics-listen=127.0.0.1:0 --metrics-token=two
assert_exit 1
assert_fatal "--metrics-token=two: holds more than one line"
assert_not_contains err "half"

tcase "a signal during --metrics-linger ends with 128 + signal, as interrupted"
write_ev
port=$(free_port)
sb_bg "${RUN[@]}" --time=2 --metrics-listen="127.0.0.1:$port" --metrics-linger=60 --json=r.json \
    --csv=r.csv
wait_for out "Threads fairness"
sleep 0.5
scrape "$port" || fail "no answer while lingering"
sb_signal_child "$SB_PID" INT
t0=$(date +%s.%N)
sb_wait
t1=$(date +%s.%N)
assert_exit 130
assert_contains out "Interrupted by signal 2 during --metrics-linger."
assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" 5 "seconds from SIGINT to the exit"
assert_eq "$(jget r.json 'd["ended"]["status"]')" "interrupted" "ended.status"
assert_eq "$(jget r.json 'd["ended"]["signal"]')" 2 "ended.signal"
# The run itself completed: its point is not marked interrupted.
assert_eq "$(jget r.json 'd["points"][0]["interrupted"]')" false "points[0].interrupted"
assert_eq "$(csv_end r.csv)" "interrupted by signal 2" "the CSV's ended row"
# Without a signal the linger ends by itself, and the run as completed.
sb "${RUN[@]}" --time=1 --metrics-listen="127.0.0.1:0" --metrics-linger=0.5 --json=c.json
assert_exit 0
assert_eq "$(jget c.json 'd["ended"]["status"]')" "completed" "ended.status without a signal"

finish
