#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Behaviour unchanged across a change of how runs are set up: runs the
# same fixed-seed SQLite runs with two sysbench binaries and compares
# their JSON documents with the measured figures masked, and the run
# header's point lines (threads, target rate, jitter, late policy,
# instance and connection range) as printed. Prints "same" per case or
# the difference; exits non-zero when any case differs.
#
# Not part of `make check` (it needs the binary from before a change):
#   bash tests/cli/same_points.sh OLD_SYSBENCH NEW_SYSBENCH [WORKDIR]
# Cases: closed loop, --tx-rate with the default and a given jitter and
# --tx-late=skip, Poisson --rate, --instance=0/2 and 1/2 at a fixed rate,
# a --threads x --tx-rate sweep with --repeat, --threads=auto:4, and
# SB_COMPAT=1.0's --tx-rate (Poisson).
set -u
OLD=${1:?usage: same_points.sh OLD_SYSBENCH NEW_SYSBENCH [WORKDIR]}
NEW=${2:?usage: same_points.sh OLD_SYSBENCH NEW_SYSBENCH [WORKDIR]}
W=${3:-$(mktemp -d)}
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SCRIPT=$SRC/sysbench/lua/oltp_point_select.lua
COMMON=(--db-driver=sqlite --table-size=1000 --rand-seed=7 --time=1)
mkdir -p "$W"

# Masks the figures of a result document: every number except the
# point's set-up (threads, repeat, target, jitter, instance) and the
# options; the times and paths of the invocation; lists of numbers
# (histograms, interval series) become their type.
mask() {
    python3 - "$1" <<'PY'
import json, sys
KEEP = {"threads", "repeat", "repeats", "target_tps", "jitter_us", "index",
        "format_version", "rate_mode", "mode", "value"}
def numbers(x):
    if isinstance(x, list):
        return all(numbers(v) for v in x)
    return isinstance(x, (int, float)) and not isinstance(x, bool)
def m(x, key="", parent="", under_opts=False):
    if isinstance(x, dict):
        return {k: m(v, k, key, under_opts or k in ("options", "instance"))
                for k, v in x.items()}
    if isinstance(x, list):
        if x and numbers(x):
            return "[numbers]"
        return [m(v, key, parent, under_opts) for v in x]
    if isinstance(x, bool) or x is None:
        return x
    if isinstance(x, (int, float)):
        return x if under_opts or key in KEEP else "N"
    if key.endswith("_at") or key in ("script", "json", "sqlite-db"):
        return "S"
    return x
d = json.load(open(sys.argv[1]))
d.pop("command_line", None)
# The self-check's verdict depends on the machine's load, not the set-up.
for p in d.get("points", []):
    p.pop("selfcheck", None)
# --threads=auto: which thread counts come after the first depends on the
# figures measured; the first run and the search's parameters do not.
if "threads_auto" in d:
    d["points"] = d["points"][:1]
    for k in ("threads_auto", "usl", "repeat_summary"):
        d.pop(k, None)
print(json.dumps(m(d), indent=1, sort_keys=True))
PY
}

# run NAME [ENV=VALUE...] -- ARGS...: one case with both binaries.
fails=0
run() {
    local name=$1 envs=() b tag
    shift
    while [[ $1 != -- ]]; do envs+=("$1"); shift; done
    shift
    for tag in old new; do
        b=$OLD; [[ $tag == new ]] && b=$NEW
        rm -f "$W/$name.db"*
        env "${envs[@]}" "$b" "${COMMON[@]}" --sqlite-db="$W/$name.db" "$SCRIPT" prepare \
            >/dev/null 2>&1
        env "${envs[@]}" "$b" "${COMMON[@]}" --sqlite-db="$W/$name.db" "$SCRIPT" \
            --json="$W/$name.$tag.json" "$@" run >"$W/$name.$tag.out" 2>&1
        echo "exit $?" >"$W/$name.$tag.hdr"
        # The brief lines of sweeps and repeats too, without their time left.
        grep -E '^(Number of threads|Target|Transaction rate|Instance|Running the test|point [0-9]|run [0-9])' \
            "$W/$name.$tag.out" | sed 's/ (about [0-9]* s left)$//' >>"$W/$name.$tag.hdr"
        mask "$W/$name.$tag.json" >"$W/$name.$tag.masked" 2>&1
    done
    if diff -u "$W/$name.old.hdr" "$W/$name.new.hdr" &&
        diff -u "$W/$name.old.masked" "$W/$name.new.masked"; then
        echo "same: $name"
    else
        echo "DIFFERENT: $name"
        fails=$((fails + 1))
    fi
}

run closed -- --threads=2
run txrate -- --threads=2 --tx-rate=300
run jitter -- --threads=2 --tx-rate=300 --tx-jitter=500 --tx-late=skip
run poisson -- --threads=2 --rate=300
run inst0 -- --threads=2 --tx-rate=300 --instance=0/2
run inst1 -- --threads=2 --tx-rate=300 --instance=1/2
run sweep -- --threads=1,2 --tx-rate=100,200 --repeat=2 --time=0.5
run auto -- --threads=auto:4 --time=0.5
run compat SB_COMPAT=1.0 -- --threads=2 --tx-rate=300
echo "$fails case(s) differ (work files in $W)"
[[ $fails -eq 0 ]]
