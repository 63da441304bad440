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
# is added). Each host needs sysbench on its PATH and ssh access without a
# password. With pdsh installed (and USE_PDSH unset or 1) the hosts are
# started by pdsh's exec module, which gives each its rank as %n;
# otherwise (or USE_PDSH=0) by ssh in a loop. Clocks must be synchronised
# (NTP/PTP): the instances start at one wall-clock instant.
#
# With LOCAL=1 every "host" is this machine: pdsh's exec module runs each
# instance with bash instead of ssh (HOSTS are then only names, one per
# instance) and the results stay in OUT; tests/drivers/scale_out.sh runs
# the example so.
#
# Environment:
#   HOSTS     the host list (required), separated by spaces or commas
#   SEED      --rand-seed, the same on every host (default 42)
#   LEAD      seconds from now to the common start (default 20): enough
#             for every host to start sysbench and connect
#   OUT       local directory for the results (default scale-out-<time>)
#   SSH, SCP  the commands to reach a host (default "ssh -o BatchMode=yes",
#             "scp -q")
#   USE_PDSH  1 (default when pdsh is installed) or 0
#   LOCAL     1: all instances on this machine, no ssh/scp (default 0)
#   SYSBENCH  the sysbench command on the hosts and here (default sysbench)
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: HOSTS=\"h1 h2 ...\" $0 SCRIPT [SYSBENCH OPTIONS...]" >&2
    exit 2
fi
read -r -a hosts <<<"${HOSTS//,/ }"
if [ "${#hosts[@]}" -lt 1 ]; then
    echo "$0: set HOSTS to the generator hosts" >&2
    exit 2
fi
N=${#hosts[@]}
SEED=${SEED:-42}
LEAD=${LEAD:-20}
SSH=${SSH:-ssh -o BatchMode=yes}
SCP=${SCP:-scp -q}
OUT=${OUT:-scale-out-$(date -u +%Y%m%dT%H%M%SZ)}
LOCAL=${LOCAL:-0}
SYSBENCH=${SYSBENCH:-sysbench}
if [ -z "${USE_PDSH:-}" ]; then
    USE_PDSH=0
    command -v pdsh >/dev/null 2>&1 && USE_PDSH=1
fi
RUN_ID=sb-$(date -u +%s)-$$
AT=$(( $(date +%s) + LEAD ))
mkdir -p "$OUT"
# Where each instance writes its files: /tmp on a host, OUT itself when
# local (nothing to collect then).
DIR=/tmp
[ "$LOCAL" = 1 ] && DIR=$(cd "$OUT" && pwd)

# The remote command line, quoted for the remote shell; RANK is replaced
# by the instance number.
remote_cmd() {
    local rank=$1 q
    shift
    q=$(printf '%q ' "$SYSBENCH" "$@")
    echo "$q --rand-seed=$SEED --instance=$rank/$N --start-at=$AT --json=$DIR/$RUN_ID-$rank.json run"
}

echo "$N instances, start at $(date -u -d "@$AT" +%Y-%m-%dT%H:%M:%SZ), results in $OUT/"
if [ "$USE_PDSH" = 1 ]; then
    # pdsh -R exec runs the command locally per host, %h the host and %n
    # its rank (0..N-1); stdout lines come prefixed with the host name.
    echo "starting the instances with pdsh -R exec"
    if [ "$LOCAL" = 1 ]; then
        pdsh -R exec -f "$N" -w "$(IFS=,; echo "${hosts[*]}")" \
            bash -c "$(remote_cmd %n "$@") > $DIR/$RUN_ID-%n.txt 2>&1" || true
    else
        # shellcheck disable=SC2086
        pdsh -R exec -f "$N" -w "$(IFS=,; echo "${hosts[*]}")" \
            $SSH %h "$(remote_cmd %n "$@") > $DIR/$RUN_ID-%n.txt 2>&1" || true
    fi
else
    pids=()
    for i in "${!hosts[@]}"; do
        # shellcheck disable=SC2086
        if [ "$LOCAL" = 1 ]; then
            bash -c "$(remote_cmd "$i" "$@") > $DIR/$RUN_ID-$i.txt 2>&1" &
        else
            $SSH "${hosts[$i]}" "$(remote_cmd "$i" "$@") > $DIR/$RUN_ID-$i.txt 2>&1" &
        fi
        pids+=($!)
    done
    for p in "${pids[@]}"; do
        wait "$p" || true
    done
fi

# Collect: each host has the files of the rank it ran as.
for h in "${hosts[@]}"; do
    [ "$LOCAL" = 1 ] && break
    # shellcheck disable=SC2086
    $SCP "$h:/tmp/$RUN_ID-*.json" "$h:/tmp/$RUN_ID-*.txt" "$OUT/" || true
done
for i in $(seq 0 $((N - 1))); do
    if [ ! -s "$OUT/$RUN_ID-$i.json" ]; then
        echo "$0: instance $i left no result; its output:" >&2
        cat "$OUT/$RUN_ID-$i.txt" >&2 2>/dev/null || true
        exit 1
    fi
done
"$SYSBENCH" merge "$OUT"/"$RUN_ID"-*.json --json="$OUT/merged.json" | tee "$OUT/merged.txt"
