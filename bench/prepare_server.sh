#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Where PostgreSQL's CPU goes when prepare's COPY loads a table (issue 32):
# the server's CPU per MB of table data (heap, pg_relation_size) for the
# same rows COPYed into sbtest1 with its primary key declared in CREATE
# TABLE ("key first", as prepare did before) and without it, the key then
# added by ALTER TABLE ("key after", as prepare does now), set against
# pgbench -i -I dtg's COPY of pgbench_accounts (no key while it loads), on
# one throwaway PostgreSQL (tests/harness/servers.sh, stopped on exit).
# BINARY=1 adds "binary": the same rows in COPY's binary format into the
# table without the key (what a binary COPY in the driver would save).
# OURS=1 adds "sb-text" and "sb-binary": our client loading the rows
# itself, oltp_common's prepare (--threads=2) with the key and index
# left out, COPY in text (--bulk-mode=copy-text) and in binary (the
# default); their COPY figure is the server's CPU over that prepare
# (CREATE TABLE and the COPYs).
#
#   bench/prepare_server.sh
#
# Our rows: one `oltp_read_write --tables=1 --table-size=ROWS prepare`,
# copied out to a file (id, k, c, pad as COPY's text, what our client
# sends) and loaded back by psql's \copy, so that the client is out of the
# server's figures. pgbench at the scale of about the same heap bytes.
# Each round runs the three, the order rotating; the server's CPU of each
# step (COPY, key, k index) is its processes' utime+stime from /proc,
# reaped backends included. Medians of the rounds.
#
# PERF=1 also samples the backend running each COPY (perf record -F 499
# -p, from when pg_stat_activity shows it until it exits) and prints the
# samples grouped by what the server does, in ms of CPU per MB of heap.
#
# Env: SB_BIN, ROWS (1000000), ROUNDS (3), PERF (0), BINARY (0), OURS (0),
# KEEP=1 keeps the raw outputs.
set -euo pipefail
source "$(dirname "$0")/common.sh"

HARNESS=$BENCH_DIR/../tests/harness/servers.sh
ROWS=${ROWS:-1000000}
ROUNDS=${ROUNDS:-3}
PERF=${PERF:-0}
BINARY=${BINARY:-0}
OURS=${OURS:-0}
VARIANTS="first after pgbench"
[[ $BINARY == 1 ]] && VARIANTS="first after binary pgbench"
[[ $OURS == 1 ]] && VARIANTS="$VARIANTS sb-text sb-binary"
PGBENCH=${PGBENCH:-$(find /usr/lib/postgresql -path '*/bin/pgbench' 2>/dev/null | sort -V | tail -n 1)}
case ${1:-} in
  -h|--help) sed -n '2,35p' "$0"; exit 0 ;;
  "") ;;
  *) echo "unknown argument: $1" >&2; exit 2 ;;
esac
[[ -x $PGBENCH ]] || { echo "error: pgbench not found (set PGBENCH)" >&2; exit 2; }
if [[ $PERF == 1 ]] && ! command -v perf >/dev/null; then
  echo "error: PERF=1 needs perf" >&2; exit 2
fi

check_tools
make_workdir
chmod 755 "$WORK"
harness_setup

echo "== the server's CPU per MB of COPY: key first / key after / pgbench -i; $ROWS rows, $ROUNDS rounds"
print_env
harness_start
echo "server: PostgreSQL $SB_PGSQL_VERSION (throwaway, tests/harness/servers.sh)"

psql_admin() { PGOPTIONS="-c client_min_messages=warning" psql -X -q -A -t -h "$SB_PGSQL_SOCKET_DIR" -p "$SB_PGSQL_PORT" -U postgres -d "$SB_PGSQL_DB" "$@"; }
server_cpu() { server_cpu_of "$SRV" pgsql; }
# step NAME CMD...: the server's CPU seconds of CMD into $WORK/NAME.srv.
step() {
  local name=$1 s0 s1
  shift
  printf '%q ' "$@" | sed 's/PGPASSWORD=[^ ]*/PGPASSWORD=.../' >>"$CMDLOG"; echo >>"$CMDLOG"
  s0=$(server_cpu)
  "$@" >/dev/null 2>"$WORK/$name.err" || { cat "$WORK/$name.err" >&2; exit 1; }
  sleep 1 # the postmaster reaps the backend
  s1=$(server_cpu)
  awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.2f\n", b - a }' >"$WORK/$name.srv"
}
# perf_copy OUT: samples the backend that runs a COPY until it exits.
perf_copy() {
  local pid="" _
  for _ in $(seq 600); do
    pid=$(psql_admin -c "SELECT pid FROM pg_stat_activity WHERE query ILIKE 'copy %' AND pid <> pg_backend_pid() LIMIT 1")
    [[ -n $pid ]] && break
    sleep 0.05
  done
  if [[ -n $pid ]]; then perf record -F 499 -p "$pid" -o "$1" >/dev/null 2>&1 || true; fi
}
# copy_with_perf NAME CMD...: CMD, its COPY sampled with PERF=1.
copy_with_perf() {
  local name=$1 pp=""
  shift
  if [[ $PERF == 1 ]]; then perf_copy "$WORK/$name.perf" & pp=$!; fi
  step "$name" "$@"
  if [[ -n $pp ]]; then wait "$pp" || true; fi
}

# Our rows, once.
# shellcheck disable=SC2086 # the driver's arguments are several words
"$SB_BIN" --db-driver=pgsql $SB_PGSQL_ARGS oltp_read_write --tables=1 --table-size="$ROWS" \
  --threads=2 prepare >"$WORK/rows.out" 2>&1 || { cat "$WORK/rows.out" >&2; exit 1; }
psql_admin -c "\\copy (SELECT id, k, rtrim(c), rtrim(pad) FROM sbtest1 ORDER BY id) TO '$WORK/ours.tsv'"
if [[ $BINARY == 1 ]]; then
  psql_admin -c "\\copy (SELECT id, k, rtrim(c), rtrim(pad) FROM sbtest1 ORDER BY id) TO '$WORK/ours.bin' WITH (FORMAT binary)"
fi
COLS="id SERIAL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL"
ours_bytes=$(psql_admin -c "SELECT pg_relation_size('sbtest1')")
psql_admin -c "DROP TABLE sbtest1"
# pgbench's scale for about as many heap bytes (134 bytes a row).
scale=$(awk -v b="$ours_bytes" 'BEGIN { s = int(b / 13430000 + 0.5); print (s < 1 ? 1 : s) }')
echo "ours: $ROWS rows, $(wc -c <"$WORK/ours.tsv") bytes of COPY text, heap $ours_bytes bytes; pgbench -s $scale"

# oltp_common's prepare without what follows the load (the key, the
# k index): the COPYs alone.
cat >"$WORK/load_only.lua" <<'EOF'
local oltp = require("oltp_common")
oltp.finish_table = function() end
EOF

round() { # VARIANT ROUND
  local v=$1 r=$2
  local -a mode=()
  case $v in
  sb-text|sb-binary)
    [[ $v == sb-text ]] && mode=(--bulk-mode=copy-text)
    psql_admin -c "DROP TABLE IF EXISTS sbtest1"
    # shellcheck disable=SC2086 # the driver's arguments are several words
    copy_with_perf "$v-copy-r$r" env SB_PROGRESS=off "$SB_BIN" --db-driver=pgsql $SB_PGSQL_ARGS \
      "$WORK/load_only.lua" --tables=1 --table-size="$ROWS" --threads=2 "${mode[@]}" prepare
    psql_admin -c "SELECT pg_relation_size('sbtest1')" >"$WORK/$v-r$r.bytes"
    step "$v-key-r$r" psql_admin -c "ALTER TABLE sbtest1 ADD PRIMARY KEY (id)"
    step "$v-kidx-r$r" psql_admin -c "CREATE INDEX k_1 ON sbtest1(k)"
    ;;
  first|after|binary)
    if [[ $v == first ]]; then
      psql_admin -c "DROP TABLE IF EXISTS sbtest1" -c "CREATE TABLE sbtest1 ($COLS, PRIMARY KEY (id))"
    else
      psql_admin -c "DROP TABLE IF EXISTS sbtest1" -c "CREATE TABLE sbtest1 ($COLS)"
    fi
    if [[ $v == binary ]]; then
      copy_with_perf "$v-copy-r$r" psql_admin -c "\\copy sbtest1 (id, k, c, pad) FROM '$WORK/ours.bin' WITH (FORMAT binary)"
    else
      copy_with_perf "$v-copy-r$r" psql_admin -c "\\copy sbtest1 (id, k, c, pad) FROM '$WORK/ours.tsv'"
    fi
    psql_admin -c "SELECT pg_relation_size('sbtest1')" >"$WORK/$v-r$r.bytes"
    [[ $v != first ]] && step "$v-key-r$r" psql_admin -c "ALTER TABLE sbtest1 ADD PRIMARY KEY (id)"
    step "$v-kidx-r$r" psql_admin -c "CREATE INDEX k_1 ON sbtest1(k)"
    ;;
  pgbench)
    copy_with_perf "$v-copy-r$r" env PGPASSWORD="$SB_PGSQL_PASSWORD" "$PGBENCH" -i -I dtg -s "$scale" \
      -h "$SB_PGSQL_HOST" -p "$SB_PGSQL_PORT" -U "$SB_PGSQL_USER" "$SB_PGSQL_DB"
    psql_admin -c "SELECT pg_relation_size('pgbench_accounts')" >"$WORK/$v-r$r.bytes"
    step "$v-key-r$r" psql_admin -c "ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)"
    ;;
  esac
}

for r in $(seq "$ROUNDS"); do
  echo "# round $r ($(cut -d' ' -f1-3 /proc/loadavg))" >&2
  # shellcheck disable=SC2086 # the variants are words
  set -- $VARIANTS
  for _ in $(seq $(((r - 1) % $#))); do set -- "${@:2}" "$1"; done
  for v in "$@"; do round "$v" "$r"; done
done

med() { local r; for r in $(seq "$ROUNDS"); do [[ -s $WORK/$1-r$r.srv ]] && cat "$WORK/$1-r$r.srv"; done | median_or_dash; }
runs() { local r; for r in $(seq "$ROUNDS"); do cat "$WORK/$1-r$r.srv" 2>/dev/null || echo -; done | tr '\n' ' '; }

echo
echo "server CPU s, medians of $ROUNDS rounds (each round's in brackets); ms per MB of heap for the COPY"
printf '  %-10s %8s %22s %9s %22s %8s %22s\n' load heap_MB "COPY s" "ms/MB" "key s" "" "k index s"
for v in $VARIANTS; do
  mb=$(awk '{ printf "%.1f", $1 / 1e6 }' "$WORK/$v-r1.bytes")
  c=$(med "$v-copy")
  printf '  %-10s %8s %6s [%-14s] %9.2f' "$v" "$mb" "$c" "$(runs "$v-copy")" "$(awk -v c="$c" -v m="$mb" 'BEGIN { print 1000 * c / m }')"
  if [[ $v != first ]]; then printf ' %6s [%-14s]' "$(med "$v-key")" "$(runs "$v-key")"; else printf ' %23s' -; fi
  if [[ $v != pgbench ]]; then printf ' %6s [%-14s]' "$(med "$v-kidx")" "$(runs "$v-kidx")"; else printf ' %23s' -; fi
  echo
done

# The samples of a variant's COPYs grouped by what the server does.
perf_groups() { # VARIANT MB
  local v=$1 mb=$2 f files=()
  for f in "$WORK/$v"-copy-r*.perf; do [[ -s $f ]] && files+=("$f"); done
  [[ ${#files[@]} -gt 0 ]] || return 0
  for f in "${files[@]}"; do
    perf report -i "$f" --stdio --sort dso,sym -F overhead,sample,dso,sym 2>/dev/null | grep -E '^ +[0-9.]+%'
  done | awk -v mb="$mb" -v nf="${#files[@]}" -v v="$v" '{ n = $2; s = $NF; d = $3
    c = "other (postgres: buffers, locks, hashing, executor)"
    # Unnamed addresses: the static functions between EndCopyFrom and
    # ReceiveCopyBegin (copyfromparse.c) and pg_utf8_verifystr, in the
    # Debian 15 binary.
    if ($0 ~ /\[k\]/) c = "kernel (page cache writes, scheduling)"
    else if (s ~ /^0x00000000002(86|87[0-8])/ || s ~ /^NextCopyFrom|^CopyFrom$|CopyRead|CopyGetData|^pq_getmessage|^pq_getbytes|^enlargeStringInfo|^appendBinaryStringInfo/) c = "COPY text parsing"
    else if (s ~ /^pg_utf_mblen|^pg_mbstrlen_with_len|^bpchar|^0x00000000005f0|^pg_encoding_verifymbstr|^pg_verify|^int4in|^pg_strtoint|^InputFunctionCall/) c = "input functions (char(n) length, UTF-8, int4)"
    else if (s ~ /^_bt|^btinsert|^btint4cmp|^ExecInsertIndexTuples|^FormIndexDatum|^index_form_tuple|^FunctionCall2Coll|^pg_qsort/) c = "btree inserts (the key)"
    else if (s ~ /XLog|crc32|^heap_multi_insert$|^RelationPutHeapTuple|^heap_form_tuple|^heap_fill|^heap_compute|^RelationGetBufferForTuple|^PageAdd|^ExecConstraints/) c = "heap inserts and WAL"
    else if (d ~ /libc/) c = "libc (memcpy, strlen)"
    t[c] += n; all += n }
    END { for (c in t) printf "  %-8s %6.2f ms/MB %5.1f%%  %s\n", v, t[c] / 499 * 1000 / mb / nf, 100 * t[c] / all, c
          printf "  %-8s %6.2f ms/MB  (%d samples in %d COPYs)\n", v, all / 499 * 1000 / mb / nf, all, nf }' | sort -k2,2rn
}
if [[ $PERF == 1 ]]; then
  echo
  echo "perf of the backend during COPY (499 Hz), ms of CPU per MB of heap, by what it does:"
  for v in $VARIANTS; do
    perf_groups "$v" "$(awk '{ printf "%.1f", $1 / 1e6 }' "$WORK/$v-r1.bytes")"
  done
fi

echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
print_commands
