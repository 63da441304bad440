#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A fresh Debian 12 (bookworm) chroot for the package test and for running
# the whole test suite on a clean system. Needs root and debootstrap.
#
#   scripts/chroot.sh create DIR        debootstrap into DIR (the base
#                                       system is cached as a tarball under
#                                       /var/cache/sysbench-chroot, so a
#                                       second create takes seconds)
#   scripts/chroot.sh run DIR -- CMD... run CMD inside DIR as root, with
#                                       /proc, /sys, /dev, /dev/pts mounted,
#                                       the host's resolv.conf and apt
#                                       sources (apt-get works inside), and
#                                       this source tree bind-mounted at
#                                       /src (SB_CHROOT_SRC overrides it)
#   scripts/chroot.sh destroy DIR       unmount everything and remove DIR
#
# Mounts are made for one `run` and undone when it ends, even on failure.
set -euo pipefail

SUITE=bookworm
MIRROR=${SB_CHROOT_MIRROR:-}
CACHE=${SB_CHROOT_CACHE:-/var/cache/sysbench-chroot}
SRC=${SB_CHROOT_SRC:-$(cd "$(dirname "$0")/.." && pwd)}

die() { echo "chroot.sh: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root"

# The mirror the host's apt uses, so the chroot reaches the same archive.
host_mirror() {
    local m
    m=$(grep -h '^URIs:' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1 | awk '{print $2}')
    [ -n "$m" ] || m=$(awk '$1 == "deb" && $3 == "'"$SUITE"'" {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
    echo "${m:-http://deb.debian.org/debian}"
}

create() {
    local dir=$1 tarball
    [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ] && die "$dir exists and is not empty"
    command -v debootstrap >/dev/null || die "debootstrap is not installed (scripts/deps.sh --package)"
    mkdir -p "$dir" "$CACHE"
    tarball=$CACHE/$SUITE-$(dpkg --print-architecture).tgz
    [ -n "$MIRROR" ] || MIRROR=$(host_mirror)
    if [ ! -s "$tarball" ]; then
        debootstrap --variant=minbase --make-tarball="$tarball.tmp" "$SUITE" "$dir.tmp-tarball" "$MIRROR" >&2
        mv "$tarball.tmp" "$tarball"
        rm -rf "$dir.tmp-tarball"
    fi
    debootstrap --variant=minbase --unpack-tarball="$tarball" "$SUITE" "$dir" "$MIRROR" >&2
    # apt inside uses the host's sources (the same mirror and keys).
    if [ -d /etc/apt/sources.list.d ]; then
        cp /etc/apt/sources.list.d/debian.sources "$dir/etc/apt/sources.list.d/" 2>/dev/null || true
    fi
    [ -s "$dir/etc/apt/sources.list.d/debian.sources" ] && : > "$dir/etc/apt/sources.list"
    # No services start inside (postinst scripts of servers would try).
    printf '#!/bin/sh\nexit 101\n' > "$dir/usr/sbin/policy-rc.d"
    chmod +x "$dir/usr/sbin/policy-rc.d"
    echo "created $dir" >&2
}

MOUNTED=()
undo_mounts() {
    local i
    for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
        umount -l "${MOUNTED[i]}" 2>/dev/null || true
    done
    MOUNTED=()
}

# mnt TARGET MOUNT-ARGS...: mounts onto TARGET, remembered for undo_mounts.
mnt() {
    local target=$1; shift
    mkdir -p "$target"
    mount "$@" "$target" && MOUNTED+=("$target")
}

run() {
    local dir=$1; shift
    [ "${1:-}" = "--" ] && shift
    [ $# -gt 0 ] || die "run: no command"
    [ -x "$dir/bin/sh" ] || die "$dir is not a chroot (scripts/chroot.sh create $dir)"
    trap undo_mounts EXIT
    # DIR bound onto itself, so that the chroot's / is a mount point as a
    # machine's is: `ip netns exec` (the scale-out host cases) makes / a
    # slave mount and fails with "Invalid argument" when it is not.
    # Private, so mounts made inside (ip netns binds /run/netns) do not
    # propagate to the host's copy of DIR and outlive the run.
    mnt "$dir" --bind "$dir"
    mount --make-private "$dir"
    mnt "$dir/proc" -t proc proc
    mnt "$dir/sys" -t sysfs sys
    mnt "$dir/dev" --bind /dev
    mnt "$dir/dev/pts" -t devpts -o newinstance,ptmxmode=0666 devpts
    mnt "$dir/dev/shm" -t tmpfs tmpfs
    mnt "$dir/src" --bind "$SRC"
    cp -L /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
    chroot "$dir" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"
}

destroy() {
    local dir=$1 m
    [ -d "$dir" ] || return 0
    # Anything left mounted below DIR (a run that was killed).
    for m in $(awk -v d="$(realpath "$dir")" 'index($2, d) == 1 {print $2}' /proc/mounts | sort -r); do
        umount -l "$m" 2>/dev/null || true
    done
    if awk -v d="$(realpath "$dir")" 'index($2, d) == 1 {found = 1} END {exit !found}' /proc/mounts; then
        die "$dir still has mounts; not removing it"
    fi
    rm -rf --one-file-system "$dir"
}

cmd=${1:-}
[ $# -ge 2 ] || die "usage: $0 create|run|destroy DIR [-- CMD...]"
dir=$2; shift 2
case $cmd in
    create) create "$dir" ;;
    run) run "$dir" "$@" ;;
    destroy) destroy "$dir" ;;
    *) die "usage: $0 create|run|destroy DIR [-- CMD...]" ;;
esac
