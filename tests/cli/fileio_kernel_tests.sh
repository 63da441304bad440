#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fileio's counts against the kernel's: runs with a known amount of work
# (--events, one and two threads, sync and async I/O) and checks that the
# reads, writes and fsyncs the report gives are what was asked and what
# the kernel saw: /proc/PID/io of the finished process (read_bytes and
# write_bytes for O_DIRECT, rchar and wchar for buffered I/O) and the
# fsync/fdatasync calls strace counted. tests/cli/builtin_tests.sh checks
# the report against the kernel for one mixed run; these cases also fix
# the expected numbers from the work asked for, so a count that is off by
# one block, an event done twice or an fsync not done shows here.
#
# Run by `make check`, or by hand: bash tests/cli/fileio_kernel_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read /proc/PID/io and the JSON documents"

BS=16384
FIO=(--file-num=4 --file-total-size=4M "--file-block-size=$BS")
NOSYNC=(--file-fsync-freq=0 --file-fsync-end=off)

ASYNC=
if ! "$SB_BIN" fileio run --file-io-mode=async --file-test-mode=rndrd 2>&1 |
    grep -q "not available in this build"; then
    ASYNC=async
fi

# The JSON documents go to tmpfs: their writes are no block I/O and are
# left out of the write_bytes the cases compare.
SHM=$(mktemp -d /dev/shm/sbkio.XXXXXX 2>/dev/null) || SHM=
cleanup_shm() { [ -z "$SHM" ] || rm -rf "$SHM"; }
trap 'cleanup_shm; _t_cleanup' EXIT

# pio CMD...: runs CMD, waits for it to exit without reaping it (waitid
# WNOWAIT), reads its /proc/PID/io (the bytes and calls of every thread it
# had, nobody else's) and prints "rc rchar wchar read_bytes write_bytes".
# Its output is read through pipes (a file on disk would add its pages to
# write_bytes) and left in the files out and err afterwards.
cat >"$_T_ROOT/pio.py" <<'PY'
import os, subprocess, sys, threading
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
got = {}
def drain(name, f):
    got[name] = f.read()
ts = [threading.Thread(target=drain, args=(n, f)) for n, f in (("out", p.stdout), ("err", p.stderr))]
for t in ts:
    t.start()
os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
io = dict(l.split(": ") for l in open("/proc/%d/io" % p.pid).read().split("\n") if l)
rc = p.wait()
for t in ts:
    t.join()
for n in ("out", "err"):
    open(n, "wb").write(got[n])
print(rc, io["rchar"], io["wchar"], io["read_bytes"], io["write_bytes"])
PY
pio() { timeout "$SB_TIMEOUT" python3 "$_T_ROOT/pio.py" "$@"; }

# counts FILE: "reads writes fsyncs" of the run's JSON document.
counts() {
    python3 -c 'import json, sys
q = json.load(open(sys.argv[1]))["points"][0]["final"]["queries"]
print(q["reads"], q["writes"], q["other"])' "$1"
}

# ------------------------------------------------------------ buffered I/O

tcase "buffered: rchar/wchar grow by exactly the blocks the events moved"
# A sanitizer's runtime reads and writes files of its own (/proc/self/maps
# and reports), more with more memory: there the margin is 4 blocks.
slack=$((BS / 4))
[ -z "${SB_SANITIZER:-}" ] || slack=$((BS * 4))
sb fileio prepare "${FIO[@]}"
assert_exit 0
for t in 1 2; do
    for m in rndrd rndwr seqrd; do
        # The same command with 1 and with 201 events: what the process
        # reads and writes besides the files (libraries, its output) is
        # the same within a few hundred bytes, so the difference is the
        # 200 blocks, within a quarter of a block.
        read -r rc r1 w1 _ < <(pio "$SB_BIN" fileio run "${FIO[@]}" "${NOSYNC[@]}" \
            --file-test-mode=$m --threads=$t --events=1 --time=0)
        assert_eq "$rc" 0 "$m/$t: exit status (1 event)" || { cat err; break 2; }
        read -r rc rN wN _ < <(pio "$SB_BIN" fileio run "${FIO[@]}" "${NOSYNC[@]}" \
            --file-test-mode=$m --threads=$t --events=201 --time=0)
        assert_eq "$rc" 0 "$m/$t: exit status (201 events)" || { cat err; break 2; }
        assert_contains out "total number of events:              201"
        case $m in
        *rd) dr=$((200 * BS)); dw=0 ;;
        *) dr=0; dw=$((200 * BS)) ;;
        esac
        assert_between $((rN - r1)) $((dr - slack)) $((dr + slack)) "$m/$t: rchar growth"
        assert_between $((wN - w1)) $((dw - slack)) $((dw + slack)) "$m/$t: wchar growth"
    done
done

# ------------------------------------------------------------ direct I/O

# read_bytes and write_bytes count all of the process's block I/O: about
# one run in twenty on a loaded machine shows more than its O_DIRECT
# reads or writes (pages of its own binary and libraries read again after
# the kernel dropped them, up to 170 KiB seen; strace shows no other file
# I/O). So a run whose figures are not exactly the expected ones is run
# again, up to 5 times: a count that is wrong is never exact and fails,
# a stray page-in is rarely there five times. TSan's runtime writes
# about 512 KiB of its own: there write_bytes may be up to 1 MiB more.
# Elsewhere write_bytes may be up to half a block more: at load 40-57 every
# run, reads included, showed 4-8 KiB more (two pages) for minutes on end,
# five tries alike. Most likely the files' inode times (atime after
# prepare, mtime on each write): metadata pages the file system dirties on
# the process's behalf, charged to it while other processes' writes keep
# the journal busy. A miscounted event is a whole block (16 KiB) and still
# fails; read_bytes stays exact.
WSLACK=$((BS / 2))
[ "${SB_SANITIZER:-}" != tsan ] || WSLACK=1048576

# warm: the program and its libraries read into the page cache, so that
# pages proactive reclaim dropped are not read again inside the measured
# process (as builtin_tests.sh does; kdamond runs on this machine).
warm() {
    cat "$SB_BIN" $(ldd "$SB_BIN" 2>/dev/null | awk '$3 ~ /^\// { print $3 }') >/dev/null 2>&1 || true
}

# kio RB WB CMD...: pio CMD until read_bytes is RB and write_bytes WB
# (within WSLACK), at most 5 times, the page cache warmed before each and
# a pause between; sets KRC, KRB and KWB.
kio() {
    local rb=$1 wb=$2 try
    shift 2
    for try in 1 2 3 4 5; do
        [ "$try" = 1 ] || sleep 1
        warm
        read -r KRC _ _ KRB KWB < <(pio "$@")
        [ "$KRC" = 0 ] || return 0
        [ "$KRB" = "$rb" ] && [ "$KWB" -ge "$wb" ] && [ "$KWB" -le $((wb + WSLACK)) ] && return 0
        echo "  (try $try: read_bytes $KRB, write_bytes $KWB; expected $rb, $wb)"
    done
}

tcase "direct I/O: read_bytes/write_bytes = events x block, as the report counts"
if [ -z "$SHM" ]; then
    echo "  (no /dev/shm: the block I/O of the JSON document would count; not checked)"
else
    sb fileio prepare "${FIO[@]}"
    for io in sync $ASYNC; do
        for t in 1 2; do
            for m in rndrd rndwr seqwr; do
                n=$((200 * t))
                er=0 ew=$((n * BS))
                [ $m != rndrd ] || { er=$ew; ew=0; }
                kio $er $ew "$SB_BIN" fileio run "${FIO[@]}" "${NOSYNC[@]}" \
                    --file-extra-flags=direct --file-io-mode="$io" --file-async-backlog=8 \
                    --file-test-mode=$m --threads=$t --events=$n --time=0 --json="$SHM/r.json"
                assert_eq "$KRC" 0 "$io/$m/$t: exit status" || { cat err; break 3; }
                read -r r w o < <(counts "$SHM/r.json")
                case $m in
                rndrd) assert_eq "$r $w" "$n 0" "$io/$m/$t: reads writes" ;;
                *) assert_eq "$r $w" "0 $n" "$io/$m/$t: reads writes" ;;
                esac
                assert_eq "$o" 0 "$io/$m/$t: fsyncs"
                assert_eq "$KRB" $((r * BS)) "$io/$m/$t: read_bytes"
                assert_between "$KWB" $((w * BS)) $((w * BS + WSLACK)) "$io/$m/$t: write_bytes"
            done
        done
    done
fi

tcase "--file-merged-requests: sequential requests of N blocks, the bytes the kernel saw"
if [ -z "$SHM" ]; then
    echo "  (no /dev/shm: not checked)"
else
    sb fileio prepare "${FIO[@]}"
    # 64 blocks a file, 3 a request: 22 requests a file, the last of one
    # block. 50 requests: two files (128 blocks) and 6 x 3 blocks.
    bytes=$(((128 + 18) * BS))
    for io in sync $ASYNC; do
        for m in seqrd seqwr; do
            er=$bytes ew=0
            [ $m = seqrd ] || { er=0; ew=$bytes; }
            kio $er $ew "$SB_BIN" fileio run "${FIO[@]}" "${NOSYNC[@]}" \
                --file-extra-flags=direct --file-io-mode="$io" --file-merged-requests=3 \
                --file-test-mode=$m --events=50 --time=0 --json="$SHM/r.json"
            assert_eq "$KRC" 0 "$io/$m: exit status" || { cat err; break 2; }
            assert_contains out "Merging requests up to 48KiB for sequential IO."
            read -r r w _ < <(counts "$SHM/r.json")
            assert_eq $((r + w)) 50 "$io/$m: requests"
            if [ $m = seqrd ]; then
                assert_eq "$KRB" "$bytes" "$io/$m: read_bytes"
                assert_between "$KWB" 0 "$WSLACK" "$io/$m: write_bytes (TSan's own writes aside)"
                ops=$(awk '/reads\/s:/ {print $NF}' out)
                mibs=$(awk '/read, MiB\/s:/ {print $NF}' out)
            else
                assert_eq "$KRB" 0 "$io/$m: read_bytes"
                assert_between "$KWB" $bytes $((bytes + WSLACK)) "$io/$m: write_bytes"
                ops=$(awk '/writes\/s:/ {print $NF}' out)
                mibs=$(awk '/written, MiB\/s:/ {print $NF}' out)
            fi
            # The report's bytes per request (MiB/s over requests/s, both
            # over the same time): the kernel's over the 50 (to 0.5%).
            assert_between "$(awk -v m="$mibs" -v o="$ops" 'BEGIN {printf "%d", m * 1048576 / o}')" \
                $((bytes * 995 / 50000)) $((bytes * 1005 / 50000)) \
                "$io/$m: the report's bytes per request"
        done
    done
    # Random modes do one block a request whatever it says.
    kio $((50 * BS)) 0 "$SB_BIN" fileio run "${FIO[@]}" "${NOSYNC[@]}" \
        --file-extra-flags=direct --file-merged-requests=3 --file-test-mode=rndrd \
        --events=50 --time=0
    assert_eq "$KRC" 0 "rndrd: exit status"
    assert_eq "$KRB" $((50 * BS)) "rndrd: read_bytes"
    assert_not_contains out "Merging requests"
fi

# ------------------------------------------------------------ fsyncs

tcase "fsyncs: the calls strace saw = the report's = the known number"
if ! command -v strace >/dev/null 2>&1 || ! strace -o /dev/null true 2>/dev/null; then
    echo "  (no working strace here: the fsync counts are not checked)"
else
    # LeakSanitizer cannot run under ptrace: no leak check under strace.
    noleak="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    sb fileio prepare "${FIO[@]}"
    calls() { # SYSCALL: how many strace -c counted in st.txt (0 when none)
        awk -v s="$1" '$NF == s { n = $4 } END { print n + 0 }' st.txt
    }
    # One thread, 1000 events, a round of 4 fsyncs after every 100
    # requests: 9 rounds (936 events), 64 more writes; 4 at the end.
    for sm in fsync fdatasync; do
        ASAN_OPTIONS=$noleak timeout 60 strace -f -c -e trace=fsync,fdatasync -o st.txt \
            "$SB_BIN" fileio run "${FIO[@]}" --file-test-mode=rndwr --file-fsync-freq=100 \
            --file-fsync-mode=$sm --events=1000 --time=0 --json=r.json >out 2>err
        read -r r w o < <(counts r.json)
        assert_eq "$r $w $o" "0 964 40" "$sm: reads writes fsyncs"
        assert_eq "$(calls $sm)" 40 "$sm calls"
        other=fsync; [ $sm = fsync ] && other=fdatasync
        assert_eq "$(calls $other)" 0 "$other calls"
    done
    # Two threads: the rounds are shared, so the count depends on the
    # interleaving; the kernel's count must still be the report's.
    ASAN_OPTIONS=$noleak timeout 60 strace -f -c -e trace=fsync,fdatasync -o st.txt \
        "$SB_BIN" fileio run "${FIO[@]}" --file-test-mode=rndrw --file-fsync-freq=50 \
        --threads=2 --events=1000 --time=0 --json=r.json >out 2>err
    read -r r w o < <(counts r.json)
    assert_eq "$(calls fsync)" "$o" "2 threads: fsync calls = the report's"
    assert_gt "$o" 40 "2 threads: fsyncs"
    assert_eq $((r + w + o - 4)) 1000 "2 threads: reads + writes + periodic fsyncs = events"
    # --file-fsync-all: one per write, none at the end.
    ASAN_OPTIONS=$noleak timeout 60 strace -f -c -e trace=fsync,fdatasync -o st.txt \
        "$SB_BIN" fileio run "${FIO[@]}" --file-test-mode=seqwr --file-fsync-all \
        --threads=2 --events=120 --time=0 --json=r.json >out 2>err
    read -r r w o < <(counts r.json)
    assert_eq "$r $w $o" "0 120 120" "fsync-all: reads writes fsyncs"
    assert_eq "$(calls fsync)" 120 "fsync-all: fsync calls"
fi

finish
