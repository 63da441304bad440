#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The same sysbench test on every host of a list, started together, then
# one merged result (doc/scale-out.md).
#
#   HOSTS="gen1 gen2 gen3" ./run.sh oltp_read_write --threads=16 \
#       --tx-rate=30000 --time=300 --report-interval=10 \
#       --mysql-host=db1 --mysql-user=sbtest --mysql-password=secret
#
# The arguments are the sysbench script and its options (no command: run
# is added). A script that is a file here is copied to every host. Each
# host needs sysbench and ssh access without a password.
#
# 1. Preflight, on all hosts at once, before a start time is chosen: the
#    host is reachable, has sysbench of this host's version, logs in to
#    the database with the given options, and its clock is within
#    MAX_OFFSET of this host's (measured over one ssh session, the sample
#    of the shortest round trip; the offset is passed to the instance as
#    --clock-offset, so its result file records it). The first host that
#    fails stops everything: nothing has run.
# 2. PREPARE=1 runs the script's prepare once, from the first host.
# 3. The instances start at one instant (now + LEAD), by pdsh's exec
#    module (USE_PDSH=1, the default when pdsh is installed; %n is the
#    rank) or by ssh in a loop. Each listens on METRICS_PORT (LOCAL:
#    METRICS_PORT + rank) with --metrics-listen, and this script prints
#    one aggregated progress line every LIVE_EVERY seconds from their
#    endpoints.
# 4. Stopping: SIGINT or SIGTERM to this script stops every instance (its
#    PID on its host, and the session: an instance also stops when its
#    ssh connection ends, e.g. a killed ssh client or this script killed
#    outright), then what ran is collected and merged, as interrupted.
# 5. The results are collected into OUT, the hosts' files removed, and
#    merged. An instance cut short is named by merge; one that left no
#    result is shown with its output and the others are merged with
#    --allow-missing, labelled partial.
#
# Exit status: merge's (0: a complete run; 3: an instance cut short or
# missing), 1 when the preflight, prepare or merge failed or no instance
# left a result, 128 + N after signal N, 2 for a usage error.
#
# With LOCAL=1 every "host" is this machine: each instance runs with bash
# instead of ssh in a directory of its own under OUT (HOSTS are then only
# names, one per instance); tests/drivers/scale_out.sh runs it so.
#
# Environment:
#   HOSTS        the host list (required), separated by spaces or commas
#   SEED         --rand-seed, the same on every host (default 42)
#   LEAD         seconds from the end of the preflight to the common start
#                (default 10, and at least 3 times the slowest host's
#                session set-up in the preflight, plus 2): enough for every
#                host to start sysbench and connect
#   OUT          local directory for the results (default scale-out-<time>)
#   SSH, SCP     the commands to reach a host (default "ssh -o BatchMode=yes
#                -o ConnectTimeout=10", "scp -q -o BatchMode=yes")
#   REMOTE_DIR   where the instances write on the hosts (default /tmp; a
#                directory per run and instance is made there and removed
#                afterwards)
#   USE_PDSH     1 (default when pdsh is installed) or 0
#   LOCAL        1: all instances on this machine, no ssh/scp (default 0)
#   SYSBENCH     the sysbench command on the hosts and here (default sysbench)
#   PREPARE      1: run prepare once before the run (default 0)
#   MAX_OFFSET   the largest clock offset accepted, seconds (default 0.05)
#   METRICS_PORT the instances' --metrics-listen port (default 9510; 0: none)
#   LIVE_EVERY   seconds between progress lines (default 2)
set -euo pipefail
export LC_ALL=C

if [ $# -lt 1 ]; then
    echo "usage: HOSTS=\"h1 h2 ...\" $0 SCRIPT [SYSBENCH OPTIONS...]" >&2
    exit 2
fi
read -r -a hosts <<<"${HOSTS//,/ }"
if [ "${#hosts[@]}" -lt 1 ]; then
    echo "$0: set HOSTS to the generator hosts" >&2
    exit 2
fi
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
N=${#hosts[@]}
SEED=${SEED:-42}
LEAD=${LEAD:-10}
SSH=${SSH:-ssh -o BatchMode=yes -o ConnectTimeout=10}
SCP=${SCP:-scp -q -o BatchMode=yes}
REMOTE_DIR=${REMOTE_DIR:-/tmp}
OUT=${OUT:-scale-out-$(date -u +%Y%m%dT%H%M%SZ)}
LOCAL=${LOCAL:-0}
SYSBENCH=${SYSBENCH:-sysbench}
PREPARE=${PREPARE:-0}
MAX_OFFSET=${MAX_OFFSET:-0.05}
METRICS_PORT=${METRICS_PORT:-9510}
LIVE_EVERY=${LIVE_EVERY:-2}
if [ -z "${USE_PDSH:-}" ]; then
    USE_PDSH=0
    command -v pdsh >/dev/null 2>&1 && USE_PDSH=1
fi
RUN_ID=sb-$(date -u +%s)-$$
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SCRIPT=$1
shift
OPTS=("$@")

say() { echo "run.sh: $*" >&2; }

# The directory instance I writes in: one per run and instance on its
# host, or under OUT when local.
rdir() {
    if [ "$LOCAL" = 1 ]; then echo "$OUT/.host$1"; else echo "$REMOTE_DIR/$RUN_ID-$1"; fi
}

# reach I COMMAND: runs the shell command on host I (bash here when local),
# standard input passed on. fd 7 (the sessions' lifeline, below) is not
# passed: only this script may hold it open.
reach() {
    if [ "$LOCAL" = 1 ]; then
        bash -c "$2" 7>&-
    else
        # shellcheck disable=SC2086
        $SSH "${hosts[$1]}" "$2" 7>&-
    fi
}

# put I FILE: copies a local file into instance I's directory.
put() {
    if [ "$LOCAL" = 1 ]; then
        cp "$2" "$(rdir "$1")/"
    else
        # shellcheck disable=SC2086
        $SCP "$2" "${hosts[$1]}:$(rdir "$1")/" 7>&-
    fi
}

# fetch I: copies instance I's result and report into OUT.
fetch() {
    local d
    d=$(rdir "$1")
    if [ "$LOCAL" = 1 ]; then
        cp "$d/$RUN_ID-$1".json "$d/$RUN_ID-$1".txt "$OUT/" 2>/dev/null || true
    else
        # shellcheck disable=SC2086
        $SCP "${hosts[$1]}:$d/$RUN_ID-$1.json" "${hosts[$1]}:$d/$RUN_ID-$1.txt" "$OUT/" \
            7>&- 2>/dev/null || true
    fi
}

# The database options among the arguments: the preflight's login uses
# only these (the script's own options mean nothing to it).
db_opts=()
for a in "${OPTS[@]}"; do
    case "$a" in
    --db-* | --mysql-* | --pgsql-* | --sqlite-* | --config-file=*) db_opts+=("$a") ;;
    esac
done
SB_Q=$(printf '%q' "$SYSBENCH")
DB_Q=
[ "${#db_opts[@]}" -gt 0 ] && DB_Q=$(printf '%q ' "${db_opts[@]}")
LOGIN_LUA='sysbench.cmdline.commands = {login = {function()
  local con = sysbench.sql.driver():connect()
  con:query("SELECT 1")
  con:disconnect()
  print("login ok")
end}}'

# clock_offset I: "OFFSET RTT" in seconds, host I's clock less this one's,
# from the sample of the shortest round trip of several over one session.
clock_offset() {
    local k t0 t1 r samples=
    coproc CLK { reach "$1" 'while read -r _; do date +%s.%N; done'; }
    for k in 1 2 3 4 5 6 7 8 9; do
        t0=$EPOCHREALTIME
        echo "$k" >&"${CLK[1]}"
        read -r -t 20 r <&"${CLK[0]}" || break
        t1=$EPOCHREALTIME
        samples+="$t0 $r $t1"$'\n'
    done
    local wfd=${CLK[1]}
    exec {wfd}>&-
    wait "$CLK_PID" 2>/dev/null || true
    awk 'NF == 3 { rtt = $3 - $1; if (n++ == 0 || rtt < best) { best = rtt; off = $2 - ($1 + $3) / 2 } }
         END { if (n < 9) exit 1; printf "%.6f %.6f\n", off, best }' <<<"$samples"
}

# preflight I: checks host I; writes "ok OFFSET RTT" or "fail REASON" to
# OUT/.preflight-I.
preflight() {
    local i=$1 d v off rtt res err t0 setup
    d=$(rdir "$i")
    res="$OUT/.preflight-$i"
    err="$OUT/.preflight-$i.err"
    t0=$EPOCHREALTIME
    if ! v=$(reach "$i" "mkdir -p $(printf '%q' "$d") && { command -v $SB_Q >/dev/null || echo NOSYSBENCH; } && { $SB_Q --version 2>/dev/null | head -n 1; }" </dev/null 2>"$err"); then
        echo "fail unreachable or cannot make $d: $(tail -n 1 "$err")" >"$res"
        return
    fi
    # How long a session took to start: the instances' sessions need as
    # long before the common start.
    setup=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
    if [ "$v" = NOSYSBENCH ] || [ -z "$v" ]; then
        echo "fail no '$SYSBENCH' there" >"$res"
        return
    fi
    if [ "$v" != "$LOCAL_VERSION" ]; then
        echo "fail it has $v, this host $LOCAL_VERSION" >"$res"
        return
    fi
    if ! reach "$i" "cd $(printf '%q' "$d") && $SB_Q $DB_Q - login" <<<"$LOGIN_LUA" >"$err" 2>&1; then
        echo "fail cannot log in to the database: $(grep -m 1 FATAL "$err" || tail -n 1 "$err")" >"$res"
        return
    fi
    if ! read -r off rtt < <(clock_offset "$i" </dev/null 2>>"$err"); then
        echo "fail cannot read its clock: $(tail -n 1 "$err")" >"$res"
        return
    fi
    if awk -v o="$off" -v r="$rtt" -v m="$MAX_OFFSET" 'BEGIN { a = o < 0 ? -o : o; exit !(a - r / 2 > m) }'; then
        echo "fail its clock is $off s off this host's (round trip $rtt s), more than MAX_OFFSET=$MAX_OFFSET: synchronise the clocks (NTP/PTP)" >"$res"
        return
    fi
    if [ -f "$SCRIPT" ] && ! put "$i" "$SCRIPT" </dev/null 2>"$err"; then
        echo "fail cannot copy $SCRIPT there: $(tail -n 1 "$err")" >"$res"
        return
    fi
    if ! reach "$i" "echo $off > $(printf '%q' "$d")/clock_offset" </dev/null 2>"$err"; then
        echo "fail cannot write in $d: $(tail -n 1 "$err")" >"$res"
        return
    fi
    echo "ok $off $rtt $setup" >"$res"
}

# Removes the hosts' directories of this run (after collection or when
# the preflight failed).
clean_hosts() {
    local i
    for i in "${!hosts[@]}"; do
        reach "$i" "rm -rf $(printf '%q' "$(rdir "$i")")" </dev/null >/dev/null 2>&1 &
    done
    wait
}

started=0
caught=0
stop_all() {
    caught=$1
    if [ "$started" = 0 ]; then
        say "stopped by signal $1 before the start: nothing ran"
        clean_hosts
        rm -f "$OUT"/.preflight-* "$OUT/.lifeline"
        exit $((128 + $1))
    fi
    say "signal $1: stopping every instance"
    local i
    for i in "${!hosts[@]}"; do
        reach "$i" "kill -TERM \$(cat $(printf '%q' "$(rdir "$i")/$RUN_ID-$i.pid") 2>/dev/null) 2>/dev/null" \
            </dev/null >/dev/null 2>&1 &
    done
    # The sessions end with their standard input too.
    exec 7>&-
    [ -n "${pdsh_pid:-}" ] && kill -TERM "$pdsh_pid" 2>/dev/null
    return 0
}
trap 'stop_all 2' INT
trap 'stop_all 15' TERM
trap 'stop_all 1' HUP

# ---------------------------------------------------------------- preflight
LOCAL_VERSION=$("$SYSBENCH" --version 2>/dev/null | head -n 1) ||
    { say "'$SYSBENCH --version' failed here"; exit 1; }
say "preflight of $N hosts"
for i in "${!hosts[@]}"; do
    preflight "$i" &
done
wait
for i in "${!hosts[@]}"; do
    read -r status rest <"$OUT/.preflight-$i" || { status=fail; rest="no answer"; }
    if [ "$status" != ok ]; then
        say "preflight: host ${hosts[$i]} (instance $i): $rest; nothing was started"
        clean_hosts
        rm -f "$OUT"/.preflight-*
        exit 1
    fi
    read -r off rtt setup <<<"$rest"
    say "  ${hosts[$i]}: $LOCAL_VERSION, database login ok, clock offset $off s (round trip $rtt s), session set-up $setup s"
    # The start leaves every host three times its session set-up to start
    # its instance and connect.
    lead=$(awk -v s="$setup" 'BEGIN { printf "%d", 3 * s + 2.999 }')
    [ "$lead" -gt "$LEAD" ] && LEAD=$lead
done
rm -f "$OUT"/.preflight-*

# The script as the hosts see it: the copy in their directory.
script_arg() {
    if [ -f "$SCRIPT" ]; then echo "$1/$(basename "$SCRIPT")"; else echo "$SCRIPT"; fi
}

if [ "$PREPARE" = 1 ]; then
    say "prepare, once, from ${hosts[0]}"
    d0=$(rdir 0)
    if ! reach 0 "cd $(printf '%q' "$d0") && $SB_Q $(printf '%q ' "$(script_arg "$d0")" "${OPTS[@]}") prepare" \
        </dev/null >"$OUT/prepare.txt" 2>&1; then
        cat "$OUT/prepare.txt" >&2
        say "prepare failed; nothing was started"
        clean_hosts
        exit 1
    fi
fi

# -------------------------------------------------------------------- run
AT=$(( $(date +%s) + LEAD ))

# The command of instance R (a number, or pdsh's %n) in directory D. The
# instance runs in the background; its PID is in a file for a stop; and
# a watcher stops it (SIGTERM: it writes its result as interrupted) when
# the session's standard input ends, i.e. when the connection from here
# is gone.
instance_cmd() {
    local r=$1 d=$2 port metrics=
    if [ "$METRICS_PORT" != 0 ]; then
        port=$METRICS_PORT
        [ "$LOCAL" = 1 ] && port="\$(($METRICS_PORT + $r))"
        metrics="--metrics-listen=:$port"
    fi
    cat <<EOF
cd $(printf '%q' "$d") || exit 1
exec 3<&0 </dev/null
$SB_Q $(printf '%q ' "$(script_arg "$d")" "${OPTS[@]}") --rand-seed=$SEED --instance=$r/$N --start-at=$AT --clock-offset=\$(cat clock_offset) $metrics --json=$RUN_ID-$r.json run >$RUN_ID-$r.txt 2>&1 &
pid=\$!
echo \$pid >$RUN_ID-$r.pid
( while read -r _; do :; done; kill -TERM \$pid 2>/dev/null ) <&3 &
w=\$!
wait \$pid
rc=\$?
kill \$w 2>/dev/null
exit \$rc
EOF
}

# Where the live view finds instance I's endpoint: the address ssh
# connects to for that host (ssh -G resolves aliases of its config).
mhost=()
for i in "${!hosts[@]}"; do
    h=${hosts[$i]##*@}
    if [ "$LOCAL" != 1 ] && [ "$METRICS_PORT" != 0 ]; then
        # shellcheck disable=SC2086
        h=$($SSH -G "${hosts[$i]}" 2>/dev/null | awk '$1 == "hostname" { print $2; exit }') || true
        [ -n "$h" ] || h=${hosts[$i]##*@}
    fi
    mhost+=("$h")
done
metrics_url() {
    if [ "$LOCAL" = 1 ]; then
        echo "http://127.0.0.1:$((METRICS_PORT + $1))/metrics"
    else
        echo "http://${mhost[$1]}:$METRICS_PORT/metrics"
    fi
}

live_view() {
    local i
    while sleep "$LIVE_EVERY"; do
        [ "$(date +%s)" -ge "$AT" ] || continue
        for i in "${!hosts[@]}"; do
            if curl -sf --max-time 1 "$(metrics_url "$i")" >"$OUT/.live-$i" 2>/dev/null; then
                echo "#instance $i up"
                cat "$OUT/.live-$i"
            else
                echo "#instance $i down"
            fi
        done | awk -v n="$N" -f "$HERE/../live_metrics.awk"
    done
}

# The sessions' lifeline: every session's standard input reads this FIFO,
# of which this script holds the only writer. When this script ends, even
# killed outright, the sessions read end of file and stop their instances.
mkfifo "$OUT/.lifeline"
exec 7<>"$OUT/.lifeline"

echo "$N instances, start at $(date -u -d "@$AT" +%Y-%m-%dT%H:%M:%SZ), results in $OUT/"
started=1
pids=()
if [ "$USE_PDSH" = 1 ]; then
    # pdsh -R exec runs the command locally per host, %h the host and %n
    # its rank (0..N-1); each command's standard input is a socket from
    # pdsh, open while pdsh runs.
    echo "starting the instances with pdsh -R exec"
    if [ "$LOCAL" = 1 ]; then
        pdsh -R exec -f "$N" -w "$(IFS=,; echo "${hosts[*]}")" \
            bash -c "$(instance_cmd %n "$OUT/.host%n")" </dev/null 7>&- &
    else
        # shellcheck disable=SC2086
        pdsh -R exec -f "$N" -w "$(IFS=,; echo "${hosts[*]}")" \
            $SSH %h "$(instance_cmd %n "$REMOTE_DIR/$RUN_ID-%n")" </dev/null 7>&- &
    fi
    pdsh_pid=$!
    pids+=("$pdsh_pid")
else
    for i in "${!hosts[@]}"; do
        reach "$i" "$(instance_cmd "$i" "$(rdir "$i")")" <"$OUT/.lifeline" 7>&- &
        pids+=($!)
    done
fi
live_pid=
if [ "$METRICS_PORT" != 0 ] && command -v curl >/dev/null 2>&1; then
    live_view 7>&- &
    live_pid=$!
fi
# wait returns early when a trapped signal arrives: wait again.
for p in "${pids[@]}"; do
    while kill -0 "$p" 2>/dev/null; do
        wait "$p" 2>/dev/null || true
    done
done
[ -n "$live_pid" ] && kill "$live_pid" 2>/dev/null
exec 7>&-
rm -f "$OUT/.lifeline" "$OUT"/.live-*

# ---------------------------------------------------------------- collect
for i in "${!hosts[@]}"; do
    fetch "$i" </dev/null &
done
wait
clean_hosts
files=()
for i in $(seq 0 $((N - 1))); do
    # An instance that failed says so in its report; one that failed
    # before measuring anything has no complete point to merge.
    grep -m 1 '^FATAL' "$OUT/$RUN_ID-$i.txt" 2>/dev/null | sed "s/^/run.sh: instance $i (${hosts[$i]}): /" >&2 || true
    if [ -s "$OUT/$RUN_ID-$i.json" ] && grep -q '"complete": true' "$OUT/$RUN_ID-$i.json"; then
        files+=("$OUT/$RUN_ID-$i.json")
    else
        say "instance $i (${hosts[$i]}) left no result; the end of its output:"
        tail -n 5 "$OUT/$RUN_ID-$i.txt" >&2 2>/dev/null || echo "    (none)" >&2
    fi
done
if [ "${#files[@]}" -eq 0 ]; then
    say "no instance left a result"
    exit 1
fi
rc=0
if [ "${#files[@]}" -lt "$N" ]; then
    "$SYSBENCH" merge --allow-missing "${files[@]}" --json="$OUT/merged.json" >"$OUT/merged.txt" || rc=$?
else
    "$SYSBENCH" merge "${files[@]}" --json="$OUT/merged.json" >"$OUT/merged.txt" || rc=$?
fi
cat "$OUT/merged.txt"
[ "$caught" != 0 ] && exit $((128 + caught))
exit "$rc"
