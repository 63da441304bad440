#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Runs one sysbench test as a Kubernetes Indexed Job of N pods (one
# instance each, started together), then merges their results locally
# (doc/scale-out.md).
#
#   IMAGE=registry.example.com/sysbench:1.1 N=4 ./run.sh \
#       oltp_read_write --threads=16 --tx-rate=40000 --time=300 \
#       --report-interval=10 --mysql-host=db.example --mysql-user=sbtest \
#       --mysql-password=secret
#
# The arguments are the script and its options (the same for every pod;
# no spaces inside one option). Needs kubectl with a current context and
# namespace, and sysbench locally for the merge. The nodes' clocks must
# be synchronised (NTP/PTP), which managed clusters do.
#
# Environment: IMAGE (required; an image with sysbench on its PATH), N
# (default 3), SEED (default 42), LEAD (seconds from now to the common
# start, default 60: time to schedule the pods and pull the image), NAME
# (the Job's name, default sysbench-<time>), OUT (default NAME).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${IMAGE:?set IMAGE to an image with sysbench on its PATH}"
if [ $# -lt 1 ]; then
    echo "usage: IMAGE=... N=3 $0 SCRIPT [SYSBENCH OPTIONS...]" >&2
    exit 2
fi
N=${N:-3}
SEED=${SEED:-42}
LEAD=${LEAD:-60}
NAME=${NAME:-sysbench-$(date -u +%Y%m%d%H%M%S)}
OUT=${OUT:-$NAME}
AT=$(( $(date +%s) + LEAD ))
ARGS="$*"
case "$ARGS" in
*'"'* | *'\'* | *'@'*) echo "$0: options must not contain \", \\ or @" >&2; exit 2 ;;
esac

mkdir -p "$OUT"
sed -e "s|@NAME@|$NAME|g" -e "s|@N@|$N|g" -e "s|@SEED@|$SEED|g" \
    -e "s|@START_AT@|$AT|g" -e "s|@IMAGE@|$IMAGE|g" -e "s|@ARGS@|$ARGS|g" \
    "$HERE/job.yaml" >"$OUT/job.yaml"
kubectl apply -f "$OUT/job.yaml"
echo "job $NAME: $N instances, start at $(date -u -d "@$AT" +%Y-%m-%dT%H:%M:%SZ)"

# Wait for the end: complete, or failed (then show what the pods said).
if ! kubectl wait --for=condition=complete --timeout=24h "job/$NAME"; then
    kubectl logs -l "sysbench-run=$NAME" --tail=30 --prefix >&2 || true
    echo "$0: job $NAME did not complete" >&2
    exit 1
fi

# Each pod's log is its result file; the pod of index i is found by the
# annotation Kubernetes puts on every pod of an Indexed Job.
files=()
for pod in $(kubectl get pods -l "sysbench-run=$NAME" -o name); do
    i=$(kubectl get "$pod" \
        -o jsonpath='{.metadata.annotations.batch\.kubernetes\.io/job-completion-index}')
    kubectl logs "$pod" >"$OUT/instance-$i.json"
    files+=("$OUT/instance-$i.json")
done
sysbench merge "${files[@]}" --json="$OUT/merged.json" | tee "$OUT/merged.txt"
