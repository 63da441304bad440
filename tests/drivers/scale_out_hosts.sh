#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# examples/pdsh/run.sh against real hosts over ssh: three generator hosts
# are network namespaces of this machine, each with its own sshd on its
# own address (a veth pair to this namespace), created here and removed
# at the end; MariaDB is reached over its unix socket (the file system is
# shared). Checked, each against the server's Com_commit:
#   - a killed ssh client (SIGKILL to the session of host gen1) stops its
#     remote instance, which writes its result as interrupted; run.sh goes
#     on, merges, names the instance cut short and exits 3; the live view
#     printed aggregated lines from the three hosts' metrics endpoints;
#   - SIGINT to run.sh with pdsh over ssh stops every remote instance (no
#     sysbench left in any namespace) and merges what ran as interrupted
#     (exit 130);
#   - the preflight stops everything before a start time is chosen (exit
#     1, no commit, no process, no file left on any host) when a host is
#     unreachable (its sshd stopped), has another sysbench version (a
#     wrapper first on its PATH), or a clock 3 s off (libfaketime in its
#     sessions: network namespaces share the clock, so the offset is
#     simulated where the preflight reads it, the host's `date`).
# Needs root (ip netns), sshd (openssh-server) and libfaketime; without
# them the cases print SKIP (scripts/deps.sh --servers installs them).

set -euo pipefail
# shellcheck source=/dev/null
. "$SB_CASE_LIB"

# run.sh's lead to --start-at; more under a sanitizer, whose start-up on
# a loaded machine took over 4 s (scale_out.sh).
SO_LEAD=5
[ -n "${SB_SANITIZER:-}" ] && SO_LEAD=10

THREADS=2
RATE=120
FAKETIME_LIB=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
CASES="scale-out-ssh-killed-client scale-out-ssh-interrupt scale-out-preflight-hosts"

skip() {
    local c
    for c in $CASES; do
        sb_skip_case "$c" "$1"
    done
    exit 0
}
[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
command -v ip >/dev/null 2>&1 && ip netns list >/dev/null 2>&1 || skip "no ip netns"
[ -x /usr/sbin/sshd ] || skip "sshd is not installed (openssh-server)"
[ -e "$FAKETIME_LIB" ] || skip "libfaketime is not installed"
command -v pdsh >/dev/null 2>&1 || skip "pdsh is not installed"

TAG=$$
NET=10.$((64 + TAG % 128)).$((TAG / 128 % 250))
NS=()
# The sessions' HOME is empty: the machine's own dotfiles (root's
# .bashrc, which bash reads for a command over ssh) stay out of the test.
mkdir -p ssh bin bin-old remote home
chmod 700 ssh
ssh-keygen -q -t ed25519 -N '' -f ssh/id
ssh-keygen -q -t ed25519 -N '' -f ssh/hostkey
cp ssh/id.pub ssh/authorized_keys
ln -s "$SB_BIN" bin/sysbench
cat >bin-old/sysbench <<SH
#!/bin/sh
[ "\$1" = --version ] && { echo "sysbench 1.0.99"; exit 0; }
exec "$SB_BIN" "\$@"
SH
chmod +x bin-old/sysbench
mkdir -p /run/sshd

teardown() {
    local ns p
    for ns in "${NS[@]}"; do
        # Only processes of these namespaces: sshd and what it started.
        for p in $(ip netns pids "$ns" 2>/dev/null); do
            kill -KILL "$p" 2>/dev/null || true
        done
        ip netns del "$ns" 2>/dev/null || true
    done
}
trap teardown EXIT

addr() { echo "$NET.$(($1 * 4 + 2))"; }

# start_sshd K [SETENV...]: host genK's sshd, its sessions' environment
# PATH (this directory's bin first) plus the variables given.
start_sshd() {
    local k=$1 conf=ssh/sshd$1.conf
    shift
    cat >"$conf" <<CONF
ListenAddress $(addr "$k")
HostKey $PWD/ssh/hostkey
AuthorizedKeysFile $PWD/ssh/authorized_keys
PidFile $PWD/ssh/sshd$k.pid
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
Subsystem sftp /usr/lib/openssh/sftp-server
SetEnv HOME=$PWD/home PATH=${PATH_FIRST[$k]:-$PWD/bin}:/usr/local/bin:/usr/bin:/bin $*
CONF
    ip netns exec "${NS[$k]}" /usr/sbin/sshd -f "$PWD/$conf" -E "$PWD/ssh/sshd$k.log"
    for _ in $(seq 1 50); do
        ssh -F ssh/config "gen$k" true </dev/null 2>/dev/null && return 0
        sleep 0.2
    done
    echo "sshd of gen$k does not answer:"
    cat "ssh/sshd$k.log"
    return 1
}

stop_sshd() {
    kill -TERM "$(cat "ssh/sshd$1.pid")"
    for _ in $(seq 1 50); do
        ! ssh -F ssh/config -o ConnectTimeout=1 "gen$1" true </dev/null 2>/dev/null && return 0
        sleep 0.1
    done
}

PATH_FIRST=()
: >ssh/config
for k in 0 1 2; do
    NS+=("sbso$TAG-$k")
    ip netns add "${NS[$k]}"
    ip link add "sbh$TAG$k" type veth peer name "sbp$TAG$k" netns "${NS[$k]}"
    ip addr add "$NET.$((k * 4 + 1))/30" dev "sbh$TAG$k"
    ip link set "sbh$TAG$k" up
    ip -n "${NS[$k]}" addr add "$(addr "$k")/30" dev "sbp$TAG$k"
    ip -n "${NS[$k]}" link set "sbp$TAG$k" up
    ip -n "${NS[$k]}" link set lo up
    cat >>ssh/config <<CONF
Host gen$k
    HostName $(addr "$k")
    User root
    IdentityFile $PWD/ssh/id
    IdentitiesOnly yes
    BatchMode yes
    ConnectTimeout 5
    StrictHostKeyChecking no
    UserKnownHostsFile /dev/null
    LogLevel ERROR
CONF
done
for k in 0 1 2; do
    start_sshd "$k" || { echo "FAIL: scale-out-hosts set-up"; exit 1; }
done
export PATH="$PWD/bin:$PATH"

DBARGS="--db-driver=mysql --mysql-socket=$SB_MYSQL_SOCKET --mysql-user=$SB_MYSQL_USER --mysql-password=$SB_MYSQL_PASSWORD --mysql-db=$SB_MYSQL_DB"

jget() {
    python3 -c 'import json, sys; print(eval("d" + sys.argv[2], {"d": json.load(open(sys.argv[1]))}))' "$1" "$2"
}
commits() {
    sb_cli mysql "SHOW GLOBAL STATUS LIKE 'Com_commit'" | awk '{ print $2 }'
}

cat >w.lua <<'LUA'
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  con:query("BEGIN")
  con:query(string.format("INSERT INTO scale_h (g) VALUES (%d)", sysbench.global_tid))
  con:query("COMMIT")
end
function thread_done() con:disconnect() end
LUA

# example OUT TIME [VAR=VALUE...]: run.sh over ssh to gen0..gen2 in the
# background, SIGINT at its default (a background job's is ignored);
# $ex_pid is run.sh's PID under timeout, $ex_top timeout's.
example() {
    local out=$1 time=$2
    shift 2
    # shellcheck disable=SC2086
    env --default-signal=INT HOSTS="gen0 gen1 gen2" SSH="ssh -F $PWD/ssh/config" \
        SCP="scp -q -F $PWD/ssh/config" REMOTE_DIR="$PWD/remote" LEAD=$SO_LEAD SEED=7 OUT="$out" \
        SYSBENCH=sysbench "$@" timeout -k 5 120 bash "$SB_SRCDIR/examples/pdsh/run.sh" \
        "$PWD/w.lua" $DBARGS --threads=$THREADS --tx-rate=$RATE --time="$time" \
        --report-interval=1 >"$out.txt" 2>&1 &
    ex_top=$!
    for _ in $(seq 1 20); do
        ex_pid=$(pgrep -P "$ex_top" || true)
        [ -n "$ex_pid" ] && return 0
        sleep 0.1
    done
}

# running_started OUT: waits until every instance is in its measured run
# (its first report: "Threads started" comes before --start-at, which a
# sanitizer's longer lead puts seconds later).
running_started() {
    for _ in $(seq 1 250); do
        [ "$(grep -Els "$REPORT_LINE" remote/*/*.txt 2>/dev/null | wc -l)" -ge 3 ] && return 0
        sleep 0.2
    done
    sb_fail "the instances did not start"
}

# no_instances: no sysbench process in any host's namespace.
no_instances() {
    local ns p
    for _ in $(seq 1 50); do
        local left=
        for ns in "${NS[@]}"; do
            for p in $(ip netns pids "$ns"); do
                [ "$(cat "/proc/$p/comm" 2>/dev/null)" = sysbench ] && left+=" $ns:$p"
            done
        done
        [ -z "$left" ] && return 0
        sleep 0.2
    done
    sb_fail "sysbench still runs on the hosts:$left"
}

fresh() {
    sb_cli mysql "DROP TABLE IF EXISTS scale_h; CREATE TABLE scale_h (id INT AUTO_INCREMENT PRIMARY KEY, g INT)"
}

# check_merged OUT N_CUT: merged figures against the server's commits.
check_merged() {
    local ev c=$3
    ev=$(jget "$1/merged.json" '["points"][0]["final"]["events"]')
    echo "server: Com_commit +$c, rows $(sb_cli mysql 'SELECT COUNT(*) FROM scale_h'); merged events $ev"
    [ "$c" = "$(sb_cli mysql 'SELECT COUNT(*) FROM scale_h')" ] || { sb_fail "commits != rows"; return 1; }
    # Completed instances exactly; one cut short may lose the
    # transactions whose COMMIT the signal caught (one per connection).
    [ "$c" -ge "$ev" ] && [ "$c" -le $((ev + $2 * THREADS)) ] ||
        { sb_fail "Com_commit +$c not within merged events $ev + $2 x $THREADS in flight"; return 1; }
    [ -z "$(ls -A remote)" ] || { sb_fail "files left on the hosts: $(ls -A remote)"; return 1; }
}

killed_client() {
    local c0 c1 rc=0 p
    fresh
    c0=$(commits)
    example "$PWD/kc" 10 USE_PDSH=0 METRICS_PORT=$((20000 + TAG % 20000)) LIVE_EVERY=1
    running_started kc || return 1
    # gen1 goes once the live view has heard all three endpoints (a fixed
    # 2 s was too short on a loaded machine: polls 2 s apart, the first
    # before two instances were up), and no later than 8 s into the run.
    for _ in $(seq 1 40); do
        grep -q '(3 of 3 instances reporting)' kc.txt && break
        sleep 0.2
    done
    p=$(pgrep -f -- "-F $PWD/ssh/config gen1 cd " || true)
    [ -n "$p" ] || { sb_fail "no ssh session of gen1 found"; return 1; }
    kill -KILL $p
    # Its instance stops at once, though run.sh and the others go on.
    for _ in $(seq 1 50); do
        ip netns pids "${NS[1]}" | while read -r q; do cat "/proc/$q/comm" 2>/dev/null; done |
            grep -qx sysbench || break
        sleep 0.1
    done
    kill -0 "$ex_pid" 2>/dev/null || { sb_fail "run.sh ended with the session"; return 1; }
    wait "$ex_top" || rc=$?
    c1=$(commits)
    cat kc.txt
    [ "$rc" = 3 ] || { sb_fail "run.sh exited $rc, expected 3 (instance 1 cut short)"; return 1; }
    no_instances || return 1
    [ "$(jget kc/merged.json '["merged"]["cut_short"][0]["index"]')" = 1 ] &&
        [ "$(jget kc/merged.json '["merged"]["cut_short"].__len__()')" = 1 ] ||
        { sb_fail "cut_short: $(jget kc/merged.json '["merged"]["cut_short"]')"; return 1; }
    [ "$(jget kc/sb-*-1.json '["ended"]["signal"]')" = 15 ] || { sb_fail "instance 1 not stopped by SIGTERM"; return 1; }
    grep -q "^CUT SHORT: instance 1 " kc.txt || { sb_fail "instance 1 not named"; return 1; }
    grep -Eq "^live: +[0-9.]+ s +[0-9.]+ tx/s of 120.0 .*\(3 of 3 instances reporting\)" kc.txt ||
        { sb_fail "no live line from the three endpoints"; return 1; }
    for i in 0 1 2; do
        python3 -c 'import json, sys; o = json.load(open(sys.argv[1]))["instance"]["clock_offset_s"]; sys.exit(o is None or abs(o) > 0.5)' \
            kc/sb-*-$i.json || { sb_fail "instance $i has no measured clock offset"; return 1; }
    done
    check_merged kc 1 "$((c1 - c0))"
}

interrupt() {
    local c0 c1 rc=0
    fresh
    c0=$(commits)
    example "$PWD/in" 20 USE_PDSH=1 METRICS_PORT=0
    running_started in || return 1
    sleep 2
    kill -INT "$ex_pid"
    wait "$ex_top" || rc=$?
    c1=$(commits)
    cat in.txt
    [ "$rc" = 130 ] || { sb_fail "run.sh exited $rc after SIGINT, expected 130"; return 1; }
    grep -q "starting the instances with pdsh -R exec" in.txt || { sb_fail "pdsh was not used"; return 1; }
    no_instances || return 1
    [ "$(jget in/merged.json '["ended"]["status"]')" = interrupted ] &&
        [ "$(jget in/merged.json '["merged"]["cut_short"].__len__()')" = 3 ] ||
        { sb_fail "not merged as interrupted"; return 1; }
    check_merged in 3 "$((c1 - c0))"
}

# refused OUT PATTERN: run.sh's preflight fails naming gen2 and PATTERN,
# with nothing started anywhere.
refused() {
    local c0 c1 rc=0
    c0=$(commits)
    example "$PWD/$1" 5 USE_PDSH=0 METRICS_PORT=0
    wait "$ex_top" || rc=$?
    c1=$(commits)
    cat "$1.txt"
    [ "$rc" = 1 ] || { sb_fail "run.sh exited $rc, expected 1"; return 1; }
    grep -Eq "^run.sh: preflight: host gen2 \(instance 2\): $2.*; nothing was started" "$1.txt" ||
        { sb_fail "no preflight line for gen2: $2"; return 1; }
    ! grep -q "instances, start at" "$1.txt" || { sb_fail "a start time was chosen"; return 1; }
    [ "$c0" = "$c1" ] || { sb_fail "the server committed $((c1 - c0))"; return 1; }
    no_instances || return 1
    [ -z "$(ls -A remote)" ] || { sb_fail "files left on the hosts: $(ls -A remote)"; return 1; }
}

preflight_hosts() {
    fresh
    stop_sshd 2
    refused un "unreachable" || return 1
    PATH_FIRST[2]=$PWD/bin-old
    start_sshd 2 || return 1
    refused ve "it has sysbench 1.0.99, this host sysbench 1.1" || return 1
    stop_sshd 2
    PATH_FIRST[2]=
    # libfaketime preloaded into a sanitizer build hangs at start-up (its
    # interposed clock calls re-enter the sanitizer's own initialisation:
    # a 5-line ASan program does the same), so the clock refusal is checked
    # by the default build only.
    if [ -n "${SB_SANITIZER:-}" ]; then
        echo "note: the clock sub-case is not run under $SB_SANITIZER (libfaketime hangs it)"
        start_sshd 2
        return 0
    fi
    start_sshd 2 "LD_PRELOAD=$FAKETIME_LIB" "FAKETIME=+3s" || return 1
    # +3 s, measured over a round trip that may be lopsided at load
    # (2.999930 s seen): within 50 ms of it.
    refused ck "its clock is (2\.9[5-9]|3\.0[0-4])[0-9]* s off this host's" || return 1
    stop_sshd 2
    start_sshd 2
}

sb_case scale-out-ssh-killed-client killed_client
sb_case scale-out-ssh-interrupt interrupt
sb_case scale-out-preflight-hosts preflight_hosts
