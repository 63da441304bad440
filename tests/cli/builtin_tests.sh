#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The compiled-in tests (cpu, memory, threads, mutex, fileio): options,
# defaults and help as sysbench 1.0.20 has them, their report sections,
# counts that must add up (memory: bytes = events x block; mutex: one
# event per thread; fileio: reads + writes + periodic fsyncs = events,
# the bytes the kernel saw in /proc/PID/io, the fsyncs strace saw),
# prepare/cleanup touching exactly test_file.0..N-1, and one clear error
# for each way a run cannot go (bad values, missing files, direct I/O the
# filesystem or the block size refuses, a write the kernel refuses).
# Sizes are small: every case runs in well under a second of work.
#
# Run by `make check`, or by hand: bash tests/cli/builtin_tests.sh

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_tool python3 "to read the JSON documents"

# The fileio options of the small file set most cases use.
FIO=(--file-num=4 --file-total-size=4M)

# The I/O modes of this build: async (io_uring) when built with liburing.
IO_MODES="sync mmap"
if "$SB_BIN" fileio run --file-io-mode=async --file-test-mode=rndrd 2>&1 |
    grep -q "not available in this build"; then
    echo "(built without liburing: --file-io-mode=async is not tested)"
else
    IO_MODES="sync mmap async"
fi

# ---------------------------------------------------------------- listing, help

tcase "--help lists the compiled-in tests"
sb --help
assert_exit 0
assert_contains out "Compiled-in tests:"
for t in "fileio - File I/O test" "cpu - CPU performance test" \
    "memory - Memory functions speed test" "threads - Threads subsystem performance test" \
    "mutex - Mutex performance test"; do
    assert_contains out "  $t"
done

tcase "help of every test: 1.0.20's options and defaults"
sb cpu help
assert_exit 0
assert_contains out "cpu options:"
assert_match out "--cpu-max-prime=N +upper limit for primes generator \[10000\]"
sb memory help
assert_match out "--memory-block-size=SIZE .*\[1K\]"
assert_match out "--memory-total-size=SIZE .*\[100G\]"
assert_match out "--memory-scope=STRING .*\{global,local\} \[global\]"
assert_match out "--memory-hugetlb\[=on\|off\] .*\[off\]"
assert_match out "--memory-oper=STRING .*\{read, write, none\} \[write\]"
assert_match out "--memory-access-mode=STRING .*\{seq,rnd\} \[seq\]"
sb threads help
assert_match out "--thread-yields=N .*\[1000\]"
assert_match out "--thread-locks=N .*\[8\]"
sb mutex help
assert_match out "--mutex-num=N .*\[4096\]"
assert_match out "--mutex-locks=N .*\[50000\]"
assert_match out "--mutex-loops=N .*\[10000\]"
sb fileio help
assert_exit 0
for re in "--file-num=N .*\[128\]" "--file-block-size=N .*\[16384\]" \
    "--file-total-size=SIZE .*\[2G\]" "--file-test-mode=STRING .*rndrw\}$" \
    "--file-io-mode=STRING .*\{sync,async,mmap\} \[sync\]" "--file-async-backlog=N .*\[128\]" \
    "--file-extra-flags=\[LIST,...\] .*\{sync,dsync,direct\} \[\]" \
    "--file-fsync-freq=N .*\[100\]" "--file-fsync-all\[=on\|off\] .*\[off\]" \
    "--file-fsync-end\[=on\|off\] .*\[on\]" \
    "--file-fsync-mode=STRING .*\{fsync, fdatasync\} \[fsync\]" \
    "--file-merged-requests=N .*\[0\]" "--file-rw-ratio=N .*\[1.5\]"; do
    assert_match out "$re"
done

tcase "a command a test lacks, an unknown option, a bad value: one FATAL line"
sb cpu prepare
assert_exit 1
assert_fatal "'cpu' test does not implement the 'prepare' command."
sb cpu
assert_exit 1
assert_fatal "the 'cpu' test requires a command argument. See 'sysbench cpu help'"
sb cpu run --cpu-no-such=1
assert_exit 1
assert_fatal "unknown option: --cpu-no-such"
sb cpu run --cpu-max-prime=0
assert_exit 1
assert_fatal "invalid value for --cpu-max-prime: 0"
sb memory run --memory-block-size=3K
assert_exit 1
assert_fatal "invalid value for --memory-block-size: 3K"
sb memory run --memory-oper=copy
assert_exit 1
assert_fatal "invalid value for --memory-oper: copy"
sb mutex run --mutex-num=0
assert_exit 1
assert_fatal "invalid value for --mutex-num: 0"
sb threads run --thread-locks=0
assert_exit 1
assert_fatal "invalid value for --thread-locks: 0"

# ---------------------------------------------------------------- cpu, threads, mutex

tcase "cpu: header, CPU speed section, events as asked"
sb cpu run --cpu-max-prime=3000 --events=200 --time=0
assert_exit 0
assert_contains out "Prime numbers limit: 3000"
assert_contains out "CPU speed:"
assert_eq "$(report_num out "total number of events:")" 200 "events"
# CPU speed comes first, General statistics after it.
assert_eq "$(grep -nE '^(CPU speed|General statistics):' out | cut -d: -f2 | tr '\n' ,)" \
    "CPU speed,General statistics," "section order"
eps=$(report_num out "events per second:")
t=$(report_num out "total time:")
# (the time is printed to 0.1 ms: 2% of a run of 5 ms or more)
assert_between "$(awk -v e="$eps" -v t="$t" 'BEGIN { print e * t }')" 196 204 "eps x time"

tcase "cpu: busy workers are the benchmark, not a client-bound load generator"
# The test's work is the client's CPU by design: a closed loop keeps the
# worker on a CPU all the time, which must not be called client-bound.
sb cpu run --verbosity=4 --cpu-max-prime=3000 --time=1 --json=sc.json
assert_exit 0
assert_match out "^ +in-process workload: +the workload runs in the client"
assert_eq "$(python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["points"][0]["selfcheck"]["client_bound"]; print(c["flagged"], c["in_process"])' sc.json)" \
    "False True" "client-bound, in process"

tcase "cpu: --tx-rate holds the rate (rate x time events)"
sb cpu run --cpu-max-prime=100 --tx-rate=200 --time=2
assert_exit 0
assert_eq "$(report_num out "total number of events:")" 400 "events"
assert_contains out "Target transaction rate: 200.00 per second"

tcase "cpu: a --threads sweep and --json, --csv"
sb cpu run --cpu-max-prime=200 --threads=1,2 --time=1 --json=r.json --csv=r.csv
assert_exit 0
assert_eq "$(jget r.json 'd["script"]')" cpu
assert_eq "$(jget r.json 'len(d["points"])')" 2 "points"
assert_eq "$(jget r.json 'd["points"][1]["threads"]')" 2 "threads of point 2"
assert_gt "$(jget r.json 'd["points"][0]["final"]["events"]')" 0 "events of point 1"

tcase "threads: yields under locks, events as asked"
sb threads run --threads=2 --thread-yields=10 --thread-locks=2 --events=40 --time=0
assert_exit 0
assert_eq "$(report_num out "total number of events:")" 40 "events"
assert_not_contains out "CPU speed:"

tcase "mutex: one event per thread, whatever the time"
sb mutex run --threads=3 --mutex-locks=200 --mutex-loops=10 --mutex-num=16
assert_exit 0
assert_eq "$(report_num out "total number of events:")" 3 "events"
assert_contains out "events (avg/stddev):           1.0000/0.00"

# ---------------------------------------------------------------- memory

tcase "memory: header, operations = total / block / threads, MiB = events x block"
sb memory run --memory-block-size=1K --memory-total-size=2M --threads=2 --time=0
assert_exit 0
assert_contains out "  block size: 1KiB"
assert_contains out "  total size: 2MiB"
assert_contains out "  operation: write"
assert_contains out "  scope: global"
assert_eq "$(report_num out "Total operations:")" 2048 "operations"
assert_eq "$(report_num out "total number of events:")" 2048 "events"
assert_contains out "2.00 MiB transferred"

tcase "memory: 1.0.20's per-thread share rounds down (1M of 4K over 3 threads: 255)"
sb memory run --memory-block-size=4K --memory-total-size=1M --threads=3 --time=0
assert_exit 0
assert_eq "$(report_num out "total number of events:")" 255 "events"
assert_contains out "events (avg/stddev):           85.0000/0.00"

tcase "memory: rnd reads of a local block; none moves no bytes"
sb memory run --memory-block-size=8K --memory-total-size=8M --memory-oper=read \
    --memory-access-mode=rnd --memory-scope=local --threads=2 --time=0
assert_exit 0
assert_contains out "  operation: read"
assert_contains out "  scope: local"
assert_eq "$(report_num out "total number of events:")" 1024 "events"
assert_contains out "8.00 MiB transferred"
sb memory run --memory-oper=none --memory-total-size=1M --time=0
assert_exit 0
assert_eq "$(report_num out "Total operations:")" 1024 "operations"
assert_not_contains out "MiB transferred"

tcase "memory: --memory-hugetlb works or says why not"
sb memory run --memory-hugetlb --memory-total-size=1M --time=0
if [ "$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0)" = 0 ]; then
    assert_exit 1
    assert_fatal "HugeTLB pool"
else
    assert_exit 0
    assert_eq "$(report_num out "total number of events:")" 1024 "events"
fi

# ---------------------------------------------------------------- fileio

# ls_files: the directory's entries, one line.
# (out and err are the harness's own).
ls_files() {
    find . -maxdepth 1 -type f ! -name out ! -name err -printf '%f:%s\n' | sort | tr '\n' ' '
}

tcase "fileio: prepare makes exactly test_file.0..N-1, cleanup removes exactly them"
echo keep >keep.txt
echo other >test_file.9
sb fileio prepare "${FIO[@]}"
assert_exit 0
assert_contains out "4 files, 1024Kb each, 4Mb total"
assert_contains out "Creating file test_file.3"
assert_contains out "4194304 bytes written"
assert_eq "$(ls_files)" "keep.txt:5 test_file.0:1048576 test_file.1:1048576 test_file.2:1048576 test_file.3:1048576 test_file.9:6 " "files"
sb fileio prepare "${FIO[@]}"
assert_contains out "Reusing existing file test_file.0"
assert_contains out "No bytes written."
sb fileio cleanup "${FIO[@]}"
assert_exit 0
assert_contains out "Removing test files..."
assert_eq "$(ls_files)" "keep.txt:5 test_file.9:6 " "files after cleanup"

tcase "fileio: rndrw counts: reads + writes + periodic fsyncs = events, ratio 1.5"
sb fileio prepare "${FIO[@]}"
sb fileio run "${FIO[@]}" --file-test-mode=rndrw --events=1000 --time=0 --json=r.json
assert_exit 0
for s in "File operations:" "reads/s:" "writes/s:" "fsyncs/s:" "Throughput:" \
    "read, MiB/s:" "written, MiB/s:" "Doing random r/w test" \
    "Periodic FSYNC enabled, calling fsync() each 100 requests." \
    "Calling fsync() at the end of test, Enabled." "Using synchronous I/O mode"; do
    assert_contains out "$s"
done
assert_not_contains out "SQL statistics"
r=$(jget r.json 'd["points"][0]["final"]["queries"]["reads"]')
w=$(jget r.json 'd["points"][0]["final"]["queries"]["writes"]')
o=$(jget r.json 'd["points"][0]["final"]["queries"]["other"]')
# Every 100 requests each of the 4 files is synced (an event each); at
# the end each file once more (not an event).
rounds=$(((r + w) / 100))
assert_eq $((r + w + 4 * rounds)) 1000 "reads + writes + periodic fsyncs"
assert_eq "$o" $((4 * rounds + 4)) "fsyncs"
assert_between "$r" $((w * 3 / 2 - 2)) $((w * 3 / 2 + 2)) "reads (1.5 x writes)"

tcase "fileio: the bytes the kernel saw (/proc/PID/io, direct I/O) equal the counts"
sb fileio prepare "${FIO[@]}"
d=$(mktemp -d /dev/shm/sbtest.XXXXXX) || d=.
# The process's own /proc io, read once it has exited and before it is
# reaped (waitid with WNOWAIT): every thread's bytes, nobody else's. The
# JSON goes to tmpfs, whose writes are no block I/O.
cat >pio.py <<'PY'
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
io = dict(l.split(": ") for l in open("/proc/%d/io" % p.pid).read().split("\n") if l)
print(p.wait(), io["read_bytes"], io["write_bytes"])
PY
# read_bytes/write_bytes are all of the process's block I/O: on a loaded
# machine about one run in twenty also has pages of its binary read again
# (or a page more written), and under memory pressure from other processes
# several in a row; such a run is tried again after a pause, up to 5 times
# (a wrong count is never exact). tests/cli/fileio_kernel_tests.sh has more.
wslack=0
[ "${SB_SANITIZER:-}" != tsan ] || wslack=1048576
# The program and its libraries read into the page cache just before a
# try, so that a page of them the kernel had reclaimed (proactive reclaim
# such as DAMON's evicts idle pages within seconds) is not read from the
# disk during the run and counted as the run's block I/O.
warm() {
    cat "$SB_BIN" $(ldd "$SB_BIN" 2>/dev/null | awk '$3 ~ /^\// { print $3 }') >/dev/null 2>&1 || true
}
for io in ${IO_MODES/mmap/}; do
    for try in 1 2 3 4 5; do
        [ "$try" = 1 ] || sleep 2
        warm
        read -r rc rb wb < <(timeout 60 python3 pio.py "$SB_BIN" fileio run "${FIO[@]}" \
            --file-test-mode=rndrw --file-extra-flags=direct --file-fsync-freq=0 \
            --file-fsync-end=off --file-io-mode="$io" --events=500 --time=0 --json="$d/r.json")
        r=$(jget "$d/r.json" 'd["points"][0]["final"]["queries"]["reads"]')
        w=$(jget "$d/r.json" 'd["points"][0]["final"]["queries"]["writes"]')
        [ "$rc" = 0 ] && [ "$rb" = $((r * 16384)) ] && [ "$wb" -ge $((w * 16384)) ] &&
            [ "$wb" -le $((w * 16384 + wslack)) ] && break
        echo "  ($io, try $try: read_bytes $rb, write_bytes $wb for $r reads, $w writes)"
    done
    assert_eq "$rc" 0 "$io: exit status"
    assert_eq $((r + w)) 500 "$io: reads + writes"
    assert_gt "$w" 0 "$io: writes"
    assert_eq "$rb" $((r * 16384)) "$io: read_bytes"
    if [ "${SB_SANITIZER:-}" = tsan ]; then
        # TSan's runtime writes about 512 KiB of its own (a cpu run of
        # ten events shows it too): the file writes are within 1 MiB.
        assert_between "$wb" $((w * 16384)) $((w * 16384 + 1048576)) "$io: write_bytes"
    else
        assert_eq "$wb" $((w * 16384)) "$io: write_bytes"
    fi
done
[ "$d" = . ] || rm -rf "$d"

tcase "fileio: the fsyncs strace saw equal the report's"
if ! command -v strace >/dev/null 2>&1 || ! strace -o /dev/null true 2>/dev/null; then
    echo "  (no working strace here: the fsync counts are not checked)"
else
    # LeakSanitizer cannot run under ptrace: no leak check under strace.
    noleak="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    sb fileio prepare "${FIO[@]}"
    ASAN_OPTIONS=$noleak timeout 60 strace -f -c -e trace=fsync,fdatasync -o st.txt \
        "$SB_BIN" fileio run "${FIO[@]}" --file-test-mode=seqwr --events=450 --time=0 \
        --json=r.json >out 2>err
    n=$(awk '$NF == "fsync" { print $4 }' st.txt)
    assert_eq "$n" "$(jget r.json 'd["points"][0]["final"]["queries"]["other"]')" "fsyncs"
    # 450 events: 432 writes and 4 rounds of 4 (at 100..400), 4 at the end.
    assert_eq "$n" 20 "fsync calls"
    ASAN_OPTIONS=$noleak timeout 60 strace -f -c -e trace=fsync,fdatasync -o st.txt \
        "$SB_BIN" fileio run "${FIO[@]}" --file-test-mode=rndwr --file-fsync-all \
        --file-fsync-mode=fdatasync --events=50 --time=0 >out 2>err
    assert_eq "$(awk '$NF == "fdatasync" { print $4 }' st.txt)" 50 "fdatasync calls"
    assert_contains out "Calling fsync() after each write operation."
fi

tcase "fileio: every test mode in every I/O mode moves the bytes it says"
sb fileio prepare "${FIO[@]}"
for m in seqwr seqrewr seqrd rndrd rndwr rndrw; do
    for io in $IO_MODES; do
        sb fileio run "${FIO[@]}" --file-test-mode=$m --file-io-mode=$io --events=300 --time=0 \
            --file-fsync-freq=0 --json=r.json
        assert_exit 0 || break
        case $io in
        sync) assert_contains out "Using synchronous I/O mode" ;;
        mmap) assert_contains out "Using fast mmaped I/O mode" ;;
        async) assert_contains out "Using asynchronous I/O mode (io_uring" ;;
        esac
        r=$(jget r.json 'd["points"][0]["final"]["queries"]["reads"]')
        w=$(jget r.json 'd["points"][0]["final"]["queries"]["writes"]')
        assert_eq $((r + w)) 300 "$m/$io reads + writes"
        case $m in
        seqrd|rndrd) assert_eq "$w" 0 "$m writes" ;;
        rndrw) ;;
        *) assert_eq "$r" 0 "$m reads" ;;
        esac
    done
done

tcase "fileio: run without prepare, or without a mode: one FATAL line"
sb fileio run "${FIO[@]}" --file-test-mode=rndrd
assert_exit 1
assert_fatal "cannot open test_file.0: No such file or directory (run 'sysbench fileio prepare'"
sb fileio run "${FIO[@]}"
assert_exit 1
assert_fatal "missing required argument: --file-test-mode"
sb fileio prepare --file-num=2 --file-total-size=64K
sb fileio run "${FIO[@]}" --file-test-mode=rndrd
assert_exit 1
assert_fatal "test_file.0 is 32768 bytes, smaller than the 1048576"

tcase "fileio: what is not implemented is refused, never ignored"
sb fileio run "${FIO[@]}" --file-test-mode=seqrd --file-merged-requests=-1
assert_exit 1
assert_contains err "file-merged-requests"
sb fileio run "${FIO[@]}" --file-test-mode=rndrd --file-extra-flags=nocache
assert_exit 1
assert_fatal "invalid value for --file-extra-flags: nocache"

tcase "fileio: direct I/O the filesystem or the block size refuses: one clear error"
sb fileio prepare "${FIO[@]}"
# 1000 bytes is no multiple of any device's block size: O_DIRECT reads
# fail with EINVAL on every filesystem that takes O_DIRECT.
sb fileio run "${FIO[@]}" --file-test-mode=rndrd --file-block-size=1000 \
    --file-extra-flags=direct --events=10
assert_exit 1
assert_fatal "direct I/O needs --file-block-size a multiple of the device's block size"
# tmpfs refuses O_DIRECT before Linux 6.6; later kernels take it.
if [ -d /dev/shm ] && d=$(mktemp -d /dev/shm/sbtest.XXXXXX); then
    (cd "$d" && "$SB_BIN" fileio prepare --file-num=1 --file-total-size=64K >/dev/null 2>&1)
    if python3 -c 'import os,sys; os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)' \
        "$d/test_file.0" 2>/dev/null; then
        echo "  (tmpfs takes O_DIRECT on this kernel: its refusal is not testable here)"
    else
        (cd "$d" && timeout 60 "$SB_BIN" fileio run --file-num=1 --file-total-size=64K \
            --file-test-mode=rndrd --file-extra-flags=direct --events=5 >"$T/out" 2>"$T/err")
        SB_RC=$?
        assert_exit 1
        assert_fatal "the filesystem refuses direct I/O"
    fi
    rm -rf "$d"
fi

tcase "fileio: a write the kernel refuses (file size limit) stops prepare with one line"
# SIGXFSZ ignored (inherited through exec): the write past the 1 MiB
# limit (ulimit -f counts 1024-byte blocks) returns EFBIG.
(trap '' XFSZ; ulimit -f 1024; timeout 60 "$SB_BIN" fileio prepare --file-num=2 \
    --file-total-size=4M >"$T/out" 2>"$T/err")
SB_RC=$?
assert_exit 1
assert_fatal "cannot write test_file.0 at offset 1048576: File too large"

tcase "fileio: prepare in a directory that is gone: one FATAL line"
mkdir gone
(cd gone && rmdir ../gone && timeout 60 "$SB_BIN" fileio prepare "${FIO[@]}" >"$T/out" 2>"$T/err")
SB_RC=$?
assert_exit 1
assert_fatal "cannot create test_file.0 in the current directory: No such file or directory"

tcase "fileio: --tx-rate runs at the asked IOPS"
sb fileio prepare "${FIO[@]}"
sb fileio run "${FIO[@]}" --file-test-mode=rndrd --tx-rate=300 --time=2
assert_exit 0
# 600 slots are due in 2 s; on a loaded machine the last one or few can
# start after the deadline (and are not run), never more than the schedule.
assert_between "$(report_num out "total number of events:")" 594 600 "events"
assert_between "$(report_num out "reads/s:")" 290 310 "reads/s"

finish
