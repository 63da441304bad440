#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# examples/k8s offline: no cluster here, so run.sh drives a stub kubectl
# (below) that plays a Job's pods from a state directory, with result
# files written by real sysbench instances (SQLite). Checked:
#   - the rendered Job and Secret are valid against the Kubernetes API
#     schema: every field known with its type, required fields present,
#     checked with the generated models of Debian's python3-kubernetes
#     (the API's OpenAPI schema as Python classes; no cluster, kubectl
#     or schema download needed);
#   - templating is safe: options with &, |, quotes, backslashes and
#     spaces arrive as exactly those args; the password is in neither the
#     manifest nor any file written, only in the Secret (applied from
#     standard input), which is deleted at the end;
#   - results come from the pods' files (kubectl exec cat), each pod told
#     it was collected; the merge of all three exits 0;
#   - a failed Job ends the wait at once (not after --timeout=24h): the
#     pods that finished are collected, the failed one named with its log,
#     the merge partial (exit 3); with no result at all, exit 1;
#   - SIGTERM stops every pod's instance (sysbench-instance --stop), then
#     collects and merges (exit 143).
#
# Run by `make check`, or by hand: bash tests/cli/k8s_example_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

PY=/usr/bin/python3 # Debian's, with python3-kubernetes and python3-yaml
if ! "$PY" -c 'import kubernetes, yaml' 2>/dev/null; then
    echo "python3-kubernetes and python3-yaml are needed (scripts/deps.sh installs them)" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
RUN=$SB_SRCDIR/examples/k8s/run.sh
FIX=$(mktemp -d "${TMPDIR:-/tmp}/sbk8s.XXXXXX")
trap 'rm -rf "$FIX"' EXIT

# Three instance results to serve from the stub's pods.
(
    cd "$FIX" || exit 1
    echo 'function event() end' >ev.lua
    at=$(( $(date +%s) + 2 ))
    for i in 0 1 2; do
        timeout 60 "$SB_BIN" ev.lua --threads=1 --tx-rate=30 --time=1 --rand-seed=5 \
            --instance=$i/3 --start-at="$at" --json=r$i.json run >/dev/null 2>&1 &
    done
    wait
)

# The stub: state in $STUB. pods: lines "POD INDEX PHASE"; conditions:
# the Job's true conditions; POD/results/: the pod's /results.
cat >"$FIX/kubectl" <<'SH'
#!/usr/bin/env bash
echo "$*" >>"$STUB/calls"
case "$1" in
apply)
    if [ "$3" = - ]; then cat >"$STUB/applied-stdin.yaml"; else cp "$3" "$STUB/applied.yaml"; fi
    echo "applied" ;;
config) echo "testns" ;;
get)
    case "$2" in
    pods) cat "$STUB/pods" ;;
    --raw) exit 1 ;;
    job/*) cat "$STUB/conditions" ;;
    esac ;;
exec)
    pod=$2
    shift 3
    case "$1" in
    cat) cat "$STUB/$pod$2" ;;
    touch) touch "$STUB/$pod$2" ;;
    sysbench-instance)
        # The instance stops and writes its result (as the real one does).
        echo done >"$STUB/$pod/results/state"
        touch "$STUB/$pod/stopped" ;;
    esac ;;
logs) echo "log of $2: FATAL: something failed" ;;
delete) echo "$*" >>"$STUB/deleted" ;;
esac
SH
chmod +x "$FIX/kubectl"

# pod I PHASE STATE: pod sb-I of index I; STATE done serves result I.
pod() {
    mkdir -p "$STUB/sb-$1/results"
    echo "sb-$1 $1 $2" >>"$STUB/pods"
    echo "$3" >"$STUB/sb-$1/results/state"
    cp "$FIX/r$1.json" "$STUB/sb-$1/results/result.json"
    echo "report $1" >"$STUB/sb-$1/results/report.txt"
}

stub() {
    STUB=$T/stub
    export STUB
    mkdir -p "$STUB"
    : >"$STUB/pods"
    echo "$1" >"$STUB/conditions"
}

# k8s ARGS...: run.sh with the stub, exit status in SB_RC.
k8s() {
    SB_RC=0
    IMAGE=registry.example/sysbench:1.1 N=3 NAME=sb-test OUT="$T/o" LEAD=0 POLL=1 \
        METRICS_PORT=0 KUBECTL="$FIX/kubectl" SYSBENCH="$SB_BIN" \
        timeout -k 5 60 bash "$RUN" "$@" >"$T/out" 2>"$T/err" || SB_RC=$?
}

cat >"$FIX/validate.py" <<'PY'
# validate.py KIND FILE: FILE (YAML) against the API schema of KIND (the
# models python3-kubernetes generates from Kubernetes' OpenAPI document):
# every field known and of its type, and the models' required fields.
import json, sys, yaml
from kubernetes import client
from kubernetes.client import models

def fail(msg):
    print("schema: " + msg)
    sys.exit(1)

def check(obj, cls, path):
    if not isinstance(obj, dict):
        fail("%s: an object expected" % path)
    c = getattr(models, cls)
    names = {v: a for a, v in c.attribute_map.items()}
    for key, val in obj.items():
        if key not in names:
            fail("%s.%s: no such field in %s" % (path, key, cls))
        typ(val, c.openapi_types[names[key]], path + "." + key)

def typ(val, t, path):
    if t.startswith("list["):
        if not isinstance(val, list):
            fail("%s: a list expected" % path)
        for i, v in enumerate(val):
            typ(v, t[5:-1], "%s[%d]" % (path, i))
    elif t.startswith("dict("):
        if not isinstance(val, dict):
            fail("%s: a map expected" % path)
        for k, v in val.items():
            typ(v, t[t.index(",") + 2:-1], "%s.%s" % (path, k))
    elif t == "str":
        if not isinstance(val, str):
            fail("%s: a string expected, got %r" % (path, val))
    elif t == "int":
        if not isinstance(val, int) or isinstance(val, bool):
            fail("%s: an integer expected, got %r" % (path, val))
    elif t == "bool":
        if not isinstance(val, bool):
            fail("%s: a boolean expected" % path)
    elif t in ("object", "datetime"):
        pass
    else:
        check(val, t, path)

kind, path = sys.argv[1], sys.argv[2]
docs = list(yaml.safe_load_all(open(path)))
if len(docs) != 1:
    fail("%d documents" % len(docs))
doc = docs[0]
check(doc, kind, kind)
class Resp:
    data = json.dumps(doc)
try:
    client.ApiClient().deserialize(Resp(), kind)   # required fields
except ValueError as e:
    fail(str(e))
print("valid " + kind)
PY

# ------------------------------------------------------------------ cases
tcase "k8s: manifest valid against the API schema, options and password templated safely"
stub Complete
for i in 0 1 2; do pod "$i" Running "done"; done
PW=$'pa&ss|wo"rd\\ \'x'
k8s ev.lua --threads=1 "--mysql-host=db one&two|three" '--report-interval=1' \
    "--mysql-password=$PW" '--mysql-db=a"b\c'
assert_exit 0
assert_contains out "Merged result of 3 instances"
"$PY" "$FIX/validate.py" V1Job o/job.yaml >schema.txt 2>&1 || fail "job.yaml: $(cat schema.txt)"
"$PY" "$FIX/validate.py" V1Secret stub/applied-stdin.yaml >schema.txt 2>&1 || fail "Secret: $(cat schema.txt)"
# The check can fail: a misspelt field, a number as a string, a container
# without its name.
sed 's/completionMode:/completionsMode:/' o/job.yaml >bad1.yaml
sed 's/^  completions: 3$/  completions: "3"/' o/job.yaml >bad2.yaml
sed 's/- name: sysbench$/- stdin: false/' o/job.yaml >bad3.yaml
for b in bad1 bad2 bad3; do
    ! "$PY" "$FIX/validate.py" V1Job $b.yaml >$b.txt 2>&1 || fail "$b.yaml passed the schema check"
done
assert_contains bad1.txt "completionsMode: no such field in V1JobSpec"
assert_contains bad2.txt "V1Job.spec.completions: an integer expected"
assert_contains bad3.txt "name"
"$PY" - o/job.yaml stub/applied-stdin.yaml "$PW" >chk.txt 2>&1 <<'PY' || fail "$(cat chk.txt)"
import base64, sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
sec = yaml.safe_load(open(sys.argv[2]))
c = job["spec"]["template"]["spec"]["containers"][0]
want = ["ev.lua", "--threads=1", "--mysql-host=db one&two|three", "--report-interval=1",
        '--mysql-db=a"b\\c']
assert c["args"] == want, c["args"]
assert job["metadata"]["name"] == "sb-test" and job["spec"]["completions"] == 3, job["spec"]
assert job["spec"]["completionMode"] == "Indexed"
env = {e["name"]: e["value"] for e in c["env"]}
assert env["SB_INSTANCES"] == "3" and env["SB_SEED"] == "42", env
vol = [v for v in job["spec"]["template"]["spec"]["volumes"] if "secret" in v][0]
assert vol["secret"]["secretName"] == sec["metadata"]["name"] == "sb-test-db"
assert base64.b64decode(sec["data"]["mysql-password"]).decode() == sys.argv[3]
PY
! grep -rqF -- "$PW" o stub/applied.yaml || fail "the password is in a file written"
grep -q "delete secret sb-test-db" stub/deleted || fail "the Secret was not deleted"
for i in 0 1 2; do
    [ -e "stub/sb-$i/results/collected" ] || fail "pod sb-$i was not told it was collected"
    cmp -s "o/instance-$i.json" "$FIX/r$i.json" || fail "instance $i's result is not the pod's file"
done
! grep -q "^logs" stub/calls || fail "results were read from pod logs"

tcase "k8s: a failed Job ends the wait: the finished pods merged partial, the failed one named"
stub Failed
pod 0 Failed running
pod 1 Running "done"
pod 2 Running "done"
start=$(date +%s)
k8s ev.lua --threads=1
assert_exit 3
assert_le "$(( $(date +%s) - start ))" 30 "seconds waited for a failed Job"
assert_contains err "job sb-test failed"
assert_contains err "pod sb-0 (instance 0) ended Failed without a result"
assert_contains err "log of sb-0: FATAL: something failed"
assert_contains out "PARTIAL (--allow-missing): instance 0 of 3 left no result"

tcase "k8s: a failed Job without any result: exit 1 at once"
stub Failed
for i in 0 1 2; do pod "$i" Failed running; done
k8s ev.lua --threads=1
assert_exit 1
assert_contains err "no instance left a result"

tcase "k8s: SIGTERM stops every pod's instance, then collects and merges"
stub ""
for i in 0 1 2; do pod "$i" Running running; done
(
    IMAGE=registry.example/sysbench:1.1 N=3 NAME=sb-test OUT="$T/o" LEAD=0 POLL=1 \
        METRICS_PORT=0 KUBECTL="$FIX/kubectl" SYSBENCH="$SB_BIN" \
        exec timeout -k 5 60 bash "$RUN" ev.lua --threads=1 >"$T/out" 2>"$T/err"
) &
bg=$!
wait_for stub/calls "exec sb-0 -- cat /results/state" || fail "run.sh does not poll the pods"
kill -TERM "$(pgrep -P "$bg")"
SB_RC=0
wait "$bg" || SB_RC=$?
assert_exit 143
for i in 0 1 2; do
    [ -e "stub/sb-$i/stopped" ] || fail "pod sb-$i's instance was not stopped"
done
assert_contains out "Merged result of 3 instances"

finish
