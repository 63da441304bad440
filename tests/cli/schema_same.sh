#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What the result schema's code produces, in a form two builds can be
# diffed on (issue 29: "behaviour unchanged"):
#
#   - fixed-seed SQLite runs (closed loop, --tx-rate, a mix) and the
#     cpu test: their JSON, CSV and text report with every figure masked
#     (numbers become #, the arrays whose length is the machine's speed,
#     intervals and histogram buckets, keep their first element), a
#     thread sweep and --repeat among them;
#   - `sysbench merge` of fixed input files (tests/cli/schema/in): its
#     text report and JSON byte for byte, exit statuses and FATAL lines
#     included (complete, old files without the service and lag
#     histograms, --allow-missing, an instance cut short, error codes, a
#     mix, refusals);
#   - `sysbench compare` of fixed input files (the reader of result
#     files): its report and JSON byte for byte.
#
# Usage:
#   schema_same.sh produce BIN OUTDIR     writes BIN's outputs to OUTDIR
#   schema_same.sh ab BASE_BIN NEW_BIN    both, then diff -r (exit 1 if any)
#   schema_same.sh inputs BIN             remakes tests/cli/schema/in with BIN
# tests/cli/schema_tests.sh compares a build against tests/cli/schema/expected
# (remade by `schema_same.sh produce BIN tests/cli/schema/expected` when
# the schema changes on purpose: the diff is then the change).

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
LUA=$SRC/sysbench/lua
IN=$HERE/schema/in
unset LUA_PATH LUA_CPATH

# mask_json FILE: the document with figures masked, one canonical form.
mask_json() {
    python3 - "$1" <<'EOF'
import json, sys
# Strings that say when, where and with what build a run happened.
VOLATILE = {"started_at", "finished_at", "hostname", "version", "git", "commit",
            "build", "kernel", "cpu_model", "compiler", "client_version",
            "server_version", "pid", "command_line", "luajit", "uname",
            # What the machine's load decides: whether --time's deadline
            # cut a statement, whether the client was CPU-bound.
            "deadline", "cpu_bound", "allocator"}
# Objects whose every value the machine's load decides: their members only.
LOAD = {"selfcheck"}
def shape(v):
    if isinstance(v, dict):
        return {k: shape(x) for k, x in v.items()}
    return "<load>"
def mask(v, key=None):
    if key in VOLATILE:
        return "<volatile>"
    if key in LOAD:
        return shape(v)
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, float)):
        return "#"
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        if key in ("intervals", "buckets") and v:
            v = v[:1]
        return [mask(x) for x in v]
    return {k: mask(x, k) for k, x in v.items()}
print(json.dumps(mask(json.load(open(sys.argv[1]))), indent=1))
EOF
}

# mask_text FILE: digits masked, repeated lines (interval reports) once,
# blank lines and what the machine's load decides (the deadline, the
# self-check's verdict, also in the sweep table's last column, warnings)
# dropped.
mask_text() {
    sed -E -e 's/[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?/#/g' -e 's/ +/ /g' -e '/^Deadline:/d' \
        -e '/^ *$/d' -e 's/,(met|cut),/,<deadline>,/' -e 's/self-check: .*/self-check: <load>/' \
        -e '/^ *=> /d' -e '/WARNING/d' -e 's/ #x [a-z].*$/ #x <load>/' "$1" | uniq
}

# run_masked BIN NAME ARGS...: a run, its outputs masked into $OUT/NAME.*
run_masked() {
    local bin=$1 name=$2
    shift 2
    "$bin" "$@" --json="$name.json" --csv="$name.csv" >"$name.txt" 2>"$name.err"
    echo "exit $?" >"$OUT/$name.rc"
    mask_json "$name.json" >"$OUT/$name.json"
    mask_text "$name.csv" >"$OUT/$name.csv"
    mask_text "$name.txt" >"$OUT/$name.txt"
    mask_text "$name.err" >"$OUT/$name.err"
}

# merge_case BIN NAME FILES...: a merge, its outputs as they are.
merge_case() {
    local bin=$1 name=$2
    shift 2
    rm -f "$name.json"
    "$bin" merge "$@" --json="$name.json" >"$OUT/merge_$name.txt" 2>"$OUT/merge_$name.err"
    echo "exit $?" >"$OUT/merge_$name.rc"
    if [ -e "$name.json" ]; then cp "$name.json" "$OUT/merge_$name.json"; fi
}

# compare_case BIN NAME FILES...: a compare, its outputs as they are.
compare_case() {
    local bin=$1 name=$2
    shift 2
    rm -f "$name.cmp.json"
    "$bin" compare "$@" --json="$name.cmp.json" >"$OUT/compare_$name.txt" 2>"$OUT/compare_$name.err"
    echo "exit $?" >"$OUT/compare_$name.rc"
    if [ -e "$name.cmp.json" ]; then cp "$name.cmp.json" "$OUT/compare_$name.json"; fi
}

produce() {
    local bin w
    bin=$(realpath "$1") || return 1
    OUT=$2
    mkdir -p "$OUT" || return 1
    OUT=$(cd "$OUT" && pwd)
    w=$(mktemp -d "${TMPDIR:-/tmp}/sbschema.XXXXXX") || return 1
    (
        cd "$w" || exit 1
        common=(--sqlite-db=db --tables=1 --table-size=200 --rand-seed=7)
        "$bin" "$LUA/oltp_read_write.lua" "${common[@]}" prepare >/dev/null 2>&1
        run_masked "$bin" closed "$LUA/oltp_read_write.lua" "${common[@]}" --threads=2 \
            --time=2 --report-interval=1 --percentile=99 run
        run_masked "$bin" rated "$LUA/oltp_read_only.lua" "${common[@]}" --threads=2 \
            --time=2 --report-interval=1 --tx-rate=100 run
        run_masked "$bin" mix oltp_point_select@70 oltp_read_only@30 \
            "${common[@]}" --threads=1 --events=200 --time=0 run
        run_masked "$bin" cpu cpu --threads=1 --events=50 --time=0 --rand-seed=7 run
        run_masked "$bin" sweep "$LUA/oltp_read_only.lua" "${common[@]}" --threads=1,2 \
            --time=1 --report-interval=1 --tx-rate=50 run
        run_masked "$bin" repeat "$LUA/oltp_point_select.lua" "${common[@]}" --threads=1 \
            --time=1 --report-interval=1 --repeat=2 run
        # Merge reads only the files: the same inputs give the same bytes.
        cp "$IN"/*.json .
        merge_case "$bin" all i0.json i1.json i2.json
        merge_case "$bin" old i0.json old1.json i2.json
        merge_case "$bin" partial i0.json i2.json --allow-missing
        merge_case "$bin" cut i0.json cut1.json i2.json
        merge_case "$bin" codes codes0.json codes1.json i2.json
        merge_case "$bin" mix mix0.json mix1.json
        merge_case "$bin" bad i0.json i1.json bad2.json
        merge_case "$bin" seed i0.json i1.json seed2.json
        # Compare reads the files back: the same inputs give the same bytes.
        compare_case "$bin" rated i0.json i1.json
        compare_case "$bin" codes codes0.json codes1.json
        compare_case "$bin" mix mix0.json mix1.json
        compare_case "$bin" cut i2.json cut1.json
    )
    rm -rf "$w"
    # Where the tree and the binary are is no part of the schema.
    sed -i -e "s|$SRC|<src>|g" -e "s|$bin|<sysbench>|g" "$OUT"/*
}

# The merge inputs: three instances of one --tx-rate SQLite run, and
# variants edited from them (the edits are the cases' point).
make_inputs() {
    local bin=$1 w at
    w=$(mktemp -d "${TMPDIR:-/tmp}/sbschema.XXXXXX") || return 1
    mkdir -p "$IN"
    (
        cd "$w" || exit 1
        common=(--sqlite-db=db --tables=1 --table-size=200 --rand-seed=9)
        "$bin" "$LUA/oltp_read_only.lua" "${common[@]}" prepare >/dev/null 2>&1
        at=$(( $(date +%s) + 2 ))
        for i in 0 1 2; do
            "$bin" "$LUA/oltp_read_only.lua" "${common[@]}" run --threads=1 --tx-rate=60 \
                --time=2 --report-interval=1 --instance=$i/3 --start-at="$at" \
                --clock-offset=0.0004 --json=i$i.json --log=so$i.log >/dev/null 2>&1 &
        done
        wait
        for i in 0 1; do
            "$bin" "$LUA/oltp_point_select.lua@70" "$LUA/oltp_read_only.lua@30" \
                "${common[@]}" run --threads=1 --events=40 --time=0 --instance=$i/2 \
                --json=mix$i.json >/dev/null 2>&1
        done
        python3 - <<'EOF'
import json
def load(f): return json.load(open(f))
def save(d, f): json.dump(d, open(f, "w"), indent=1)
d = load("i1.json")
for p in d["points"]:
    p["histograms"] = {}
save(d, "old1.json")
d = load("i1.json")
d["ended"].update(status="interrupted", signal=2, deadline=None)
d["points"][0]["interrupted"] = True
d["points"][0]["final"]["time_s"] = 1.25
save(d, "cut1.json")
for i, codes in ((0, [("1205", "ignored", 3), ("2013", "reconnect", 1)]),
                 (1, [("1205", "ignored", 2), ("1213", "ignored", 5)])):
    d = load("i%d.json" % i)
    f = d["points"][0]["final"]
    f["errors"]["by_code"] = [{"code": c, "kind": k, "count": n} for c, k, n in codes]
    f["errors"]["ignored"] = sum(n for c, k, n in codes if k == "ignored")
    f["errors"]["reconnects"] = sum(n for c, k, n in codes if k == "reconnect")
    save(d, "codes%d.json" % i)
d = load("i2.json")
d["points"][0]["histogram"]["sum_ns"] = 1e308
save(d, "bad2.json")
d = load("i2.json")
d["options"]["general"]["rand-seed"] = 10
save(d, "seed2.json")
EOF
        cp i0.json i1.json i2.json old1.json cut1.json codes0.json codes1.json mix0.json \
            mix1.json bad2.json seed2.json "$IN/"
    )
    # The inputs hold no path of the tree that made them.
    sed -i -e "s|$LUA/||g" -e "s|$(realpath "$bin")|sysbench|g" "$IN"/*.json
    rm -rf "$w"
}

# order_only A B: whether the files that differ between directories A and
# B are all JSON documents with equal values (member order aside).
order_only() {
    python3 - "$1" "$2" <<'EOF'
import filecmp, json, os, sys
a, b = sys.argv[1:]
c = filecmp.dircmp(a, b)
if c.left_only or c.right_only:
    sys.exit(1)
for f in c.diff_files:
    if not f.endswith(".json") or \
            json.load(open(os.path.join(a, f))) != json.load(open(os.path.join(b, f))):
        sys.exit(1)
EOF
}

case "${1:-}" in
produce) produce "$2" "$3" ;;
inputs) make_inputs "$2" ;;
ab)
    t=$(mktemp -d "${TMPDIR:-/tmp}/sbschema_ab.XXXXXX") || exit 1
    produce "$2" "$t/base" && produce "$3" "$t/new" || exit 1
    if diff -r "$t/base" "$t/new"; then
        echo "same: the $(ls "$t/base" | wc -l) outputs of $2 and $3 are byte-identical"
        rm -rf "$t"
    elif order_only "$t/base" "$t/new"; then
        echo "same values: the outputs differ only in the order of JSON members (above)"
        rm -rf "$t"
    else
        echo "DIFFERENT: outputs kept in $t" >&2
        exit 1
    fi
    ;;
*)
    echo "usage: $0 produce BIN OUTDIR | ab BASE_BIN NEW_BIN | inputs BIN" >&2
    exit 2
    ;;
esac
