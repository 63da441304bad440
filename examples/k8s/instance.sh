#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# sysbench-instance: the entry point of a scale-out pod (job.yaml; the
# Dockerfile installs it as /usr/local/bin/sysbench-instance).
#
#   sysbench-instance SCRIPT [OPTIONS...]   run instance JOB_COMPLETION_INDEX
#   sysbench-instance --stop                stop the running instance
#
# Runs `sysbench SCRIPT OPTIONS --instances=$SB_INSTANCES ... run` with
# the result in /results/result.json and the report in
# /results/report.txt; /results/state says "running", then "done" once
# sysbench has ended (with its exit status in /results/status). It then
# waits until /results/collected exists (run.sh copies the files and
# touches it) or SB_COLLECT_TIMEOUT seconds have passed, and exits with
# sysbench's status. Every file of /etc/sysbench-secret (a Secret: keys
# such as mysql-password) becomes a line NAME=VALUE of a --config-file.
# SIGTERM (the pod deleted, the Job failed) stops sysbench, which writes
# its result as interrupted.
set -u
R=/results
if [ "${1:-}" = --stop ]; then
    kill -TERM "$(cat "$R/sysbench.pid")"
    exit
fi
conf=
if [ -d /etc/sysbench-secret ]; then
    umask 077
    conf=/tmp/sysbench-secret.conf
    : >"$conf"
    for f in /etc/sysbench-secret/*; do
        [ -f "$f" ] && printf '%s=%s\n' "$(basename "$f")" "$(cat "$f")" >>"$conf"
    done
    umask 022
fi
echo running >"$R/state"
set -- "$@" --instances="$SB_INSTANCES" --rand-seed="$SB_SEED" --start-at="$SB_START_AT" \
    --json="$R/result.json"
[ -n "$conf" ] && set -- "$@" --config-file="$conf"
[ "${SB_METRICS_PORT:-0}" != 0 ] && set -- "$@" --metrics-listen=":$SB_METRICS_PORT"
sysbench "$@" run >"$R/report.txt" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$R/sysbench.pid"
trap 'kill -TERM "$pid" 2>/dev/null' TERM INT
# A trapped signal ends wait early: wait until sysbench is gone.
rc=
while [ -z "$rc" ] || kill -0 "$pid" 2>/dev/null; do
    wait "$pid"
    rc=$?
done
echo "$rc" >"$R/status"
echo "done" >"$R/state"
waited=0
while [ ! -e "$R/collected" ] && [ "$waited" -lt "${SB_COLLECT_TIMEOUT:-3600}" ]; do
    sleep 2
    waited=$((waited + 2))
done
exit "$rc"
