#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Runs one sysbench test as a Kubernetes Indexed Job of N pods (one
# instance each, started together), collects their result files and
# merges them locally (doc/scale-out.md).
#
#   IMAGE=registry.example.com/sysbench:1.1 N=4 ./run.sh \
#       oltp_read_write --threads=16 --tx-rate=40000 --time=300 \
#       --report-interval=10 --mysql-host=db.example --mysql-user=sbtest \
#       --mysql-password='s3cr&t|x'
#
# The arguments are the script and its options, the same for every pod
# (any characters: each becomes one JSON string of the manifest). A
# --mysql-password or --pgsql-password is taken out of them and put in a
# Secret (NAME-db, applied from standard input, never written to disk,
# deleted at the end), which the pods read as a config file; or name an
# existing Secret with SECRET (keys mysql-password or pgsql-password).
# IMAGE is an image with sysbench and sysbench-instance: build one with
# examples/k8s/Dockerfile. Needs kubectl with a current context, and
# sysbench here for the merge. The nodes' clocks must be synchronised
# (NTP/PTP), which managed clusters do.
#
# It waits until every pod's result is collected or the Job has failed
# (a failed Job no longer waits for ever), copying each result with
# kubectl exec as soon as its pod says "done" (pod logs are not used: log
# rotation cuts a long run's JSON). With METRICS_PORT (default 9510; 0:
# none) it prints one progress line every LIVE_EVERY seconds from the
# pods' /metrics through the API server's proxy. SIGINT or SIGTERM stops
# every instance (they write their results as interrupted), collects and
# merges what ran. A pod that left no result is reported with the end of
# its log and the others are merged with --allow-missing, labelled
# partial.
#
# Exit status: merge's (0: complete; 3: an instance cut short or
# missing), 1 when no result could be collected or the merge failed,
# 128 + N after signal N, 2 for a usage error.
#
# Environment: IMAGE (required), N (default 3), SEED (default 42), LEAD
# (seconds from now to the common start, default 120: time to schedule
# the pods and pull the image), NAME (the Job's name, default
# sysbench-<time>), OUT (default NAME), SECRET, METRICS_PORT, LIVE_EVERY
# (default 10), POLL (seconds between looks at the pods, default 5),
# TIMEOUT (seconds to wait in all, default LEAD + --time + 3600),
# KUBECTL (default kubectl), SYSBENCH (for the merge, default sysbench).
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ $# -lt 1 ] || [ -z "${IMAGE:-}" ]; then
    echo "usage: IMAGE=... N=3 $0 SCRIPT [SYSBENCH OPTIONS...]" >&2
    exit 2
fi
N=${N:-3}
SEED=${SEED:-42}
LEAD=${LEAD:-120}
NAME=${NAME:-sysbench-$(date -u +%Y%m%d%H%M%S)}
OUT=${OUT:-$NAME}
METRICS_PORT=${METRICS_PORT:-9510}
LIVE_EVERY=${LIVE_EVERY:-10}
POLL=${POLL:-5}
KUBECTL=${KUBECTL:-kubectl}
SYSBENCH=${SYSBENCH:-sysbench}
SECRET_OWN=
say() { echo "run.sh: $*" >&2; }
k() { "$KUBECTL" "$@"; }

case "$N" in '' | *[!0-9]*) echo "$0: N must be a number" >&2; exit 2 ;; esac
case "$METRICS_PORT" in '' | *[!0-9]*) echo "$0: METRICS_PORT must be a number" >&2; exit 2 ;; esac

# json STRING: STRING as a JSON string (and so a YAML flow scalar).
json() {
    local s=$1 out='' c i
    for ((i = 0; i < ${#s}; i++)); do
        c=${s:i:1}
        case "$c" in
        '"') out+='\"' ;;
        '\') out+='\\' ;;
        $'\n') out+='\n' ;;
        $'\t') out+='\t' ;;
        $'\r') out+='\r' ;;
        *)
            if [[ "$c" < ' ' ]]; then
                out+=$(printf '\\u%04x' "'$c")
            else
                out+=$c
            fi
            ;;
        esac
    done
    printf '"%s"' "$out"
}

# The arguments, less the passwords, which go to the Secret.
args=()
password_key=
password=
time_s=0
for a in "$@"; do
    case "$a" in
    --mysql-password=* | --pgsql-password=*)
        password_key=${a%%=*}
        password_key=${password_key#--}
        password=${a#*=}
        ;;
    *)
        [[ "$a" == --time=* ]] && time_s=${a#--time=}
        args+=("$a")
        ;;
    esac
done
if [ -n "$password_key" ] && [ -n "${SECRET:-}" ]; then
    echo "$0: give the password either as an option or in SECRET, not both" >&2
    exit 2
fi
TIMEOUT=${TIMEOUT:-$((LEAD + ${time_s%.*} + 3600))}
AT=$(( $(date +%s) + LEAD ))
if [ -n "$password_key" ]; then
    SECRET_OWN=$NAME-db
    SECRET=$SECRET_OWN
fi
SECRET=${SECRET:-$NAME-none}

arg_list() {
    local sep='' a
    printf '['
    for a in "${args[@]}"; do
        printf '%s%s' "$sep" "$(json "$a")"
        sep=', '
    done
    printf ']'
}

# Fills in job.yaml: every value a JSON string (or array), substituted
# with bash's own replacement (quoted, so no character in a value is
# special to it).
render_job() {
    local line name n_str seed at port secret image list
    name=$(json "$NAME") n_str=$(json "$N") seed=$(json "$SEED") at=$(json "$AT")
    port=$(json "$METRICS_PORT") secret=$(json "$SECRET") image=$(json "$IMAGE")
    list=$(arg_list)
    while IFS= read -r line; do
        line=${line//@NAME@/"$name"}
        line=${line//@N_STR@/"$n_str"}
        line=${line//@N@/"$N"}
        line=${line//@SEED@/"$seed"}
        line=${line//@START_AT@/"$at"}
        line=${line//@METRICS_PORT_NUM@/"$((METRICS_PORT > 0 ? METRICS_PORT : 9510))"}
        line=${line//@METRICS_PORT@/"$port"}
        line=${line//@SECRET@/"$secret"}
        line=${line//@IMAGE@/"$image"}
        line=${line//@ARGS@/"$list"}
        printf '%s\n' "$line"
    done <"$HERE/job.yaml"
}

# The Secret, printed for kubectl apply -f - (the value base64-encoded).
render_secret() {
    printf 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\n  labels:\n    sysbench-run: %s\ntype: Opaque\ndata:\n  %s: %s\n' \
        "$(json "$SECRET_OWN")" "$(json "$NAME")" "$password_key" \
        "$(printf '%s' "$password" | base64 -w0)"
}

mkdir -p "$OUT"
render_job >"$OUT/job.yaml"
if [ -n "$SECRET_OWN" ]; then
    render_secret | k apply -f - >/dev/null
fi
k apply -f "$OUT/job.yaml"
NS=$(k config view --minify -o 'jsonpath={..namespace}' 2>/dev/null || true)
NS=${NS:-default}
echo "job $NAME: $N instances, start at $(date -u -d "@$AT" +%Y-%m-%dT%H:%M:%SZ)"

declare -A got=() lost=()
caught=0
stopping=0
stop_all() {
    caught=$1
    [ "$stopping" = 1 ] && return 0
    stopping=1
    say "signal $1: stopping every instance"
    local pod idx phase
    while read -r pod idx phase; do
        [ "$phase" = Running ] && k exec "$pod" -- sysbench-instance --stop >/dev/null 2>&1 &
    done < <(pods)
    wait
    return 0
}
trap 'stop_all 2' INT
trap 'stop_all 15' TERM

# Lines "POD INDEX PHASE" of the Job's pods.
pods() {
    k get pods -l "sysbench-run=$NAME" -o \
        'jsonpath={range .items[*]}{.metadata.name} {.metadata.annotations.batch\.kubernetes\.io/job-completion-index} {.status.phase}{"\n"}{end}'
}

# The Job's conditions that are true: Complete, Failed, ...
conditions() {
    k get "job/$NAME" -o 'jsonpath={range .status.conditions[?(@.status=="True")]}{.type}{"\n"}{end}'
}

# collect POD INDEX: copies the pod's result once it says "done".
collect() {
    local pod=$1 i=$2
    [ "$(k exec "$pod" -- cat /results/state 2>/dev/null)" = "done" ] || return 1
    k exec "$pod" -- cat /results/result.json >"$OUT/instance-$i.json" 2>/dev/null || true
    k exec "$pod" -- cat /results/report.txt >"$OUT/instance-$i.txt" 2>/dev/null || true
    k exec "$pod" -- touch /results/collected >/dev/null 2>&1 || true
    got[$i]=1
    echo "collected instance $i from $pod"
}

live() {
    local pod idx phase i=0
    while read -r pod idx phase; do
        [ "$phase" = Running ] || continue
        i=$((i + 1))
        if k get --raw "/api/v1/namespaces/$NS/pods/$pod:$METRICS_PORT/proxy/metrics" >"$OUT/.live" 2>/dev/null; then
            echo "#instance $idx up"
            cat "$OUT/.live"
        else
            echo "#instance $idx down"
        fi
    done < <(pods) | awk -v n="$N" -f "$HERE/../live_metrics.awk"
    rm -f "$OUT/.live"
}

start=$(date +%s)
next_live=$((AT + LIVE_EVERY))
failed=0
while :; do
    while read -r pod idx phase; do
        [ -n "$idx" ] || continue
        [ -n "${got[$idx]:-}" ] || [ -n "${lost[$idx]:-}" ] && continue
        case "$phase" in
        Running) collect "$pod" "$idx" || true ;;
        Succeeded | Failed)
            # Ended before it could be collected (killed, evicted, a
            # failure before the run): its log says why.
            lost[$idx]=1
            k logs "$pod" --tail=20 >"$OUT/instance-$idx.log" 2>&1 || true
            say "pod $pod (instance $idx) ended $phase without a result"
            ;;
        esac
    done < <(pods)
    conds=$(conditions || true)
    if grep -qx Failed <<<"$conds"; then
        if [ "$failed" = 0 ]; then
            failed=1
            failed_at=$(date +%s)
            say "job $NAME failed: collecting what the other pods ran"
        fi
        # Kubernetes stops the other pods (SIGTERM: they write their
        # results as interrupted and wait to be collected, within their
        # grace period): collect those that still run, then stop.
        pods | awk '$3 == "Running" { r = 1 } END { exit !r }' || break
        [ $(($(date +%s) - failed_at)) -ge 90 ] && break
    fi
    [ $((${#got[@]} + ${#lost[@]})) -ge "$N" ] && break
    grep -qx Complete <<<"$conds" && break
    if [ $(($(date +%s) - start)) -ge "$TIMEOUT" ]; then
        say "job $NAME: no end after $TIMEOUT s"
        break
    fi
    if [ "$METRICS_PORT" != 0 ] && [ "$(date +%s)" -ge "$next_live" ]; then
        live || true
        next_live=$(($(date +%s) + LIVE_EVERY))
    fi
    sleep "$POLL" || true
done
[ -n "$SECRET_OWN" ] && k delete secret "$SECRET_OWN" --wait=false >/dev/null 2>&1

files=()
for i in $(seq 0 $((N - 1))); do
    if [ -s "$OUT/instance-$i.json" ]; then
        files+=("$OUT/instance-$i.json")
    else
        say "instance $i left no result"
        [ -s "$OUT/instance-$i.log" ] && sed 's/^/    /' "$OUT/instance-$i.log" >&2
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
[ "$failed" = 1 ] && [ "$rc" = 0 ] && rc=1
exit "$rc"
