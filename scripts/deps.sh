#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs the Debian 12 packages needed to build sysbench, with
# --servers also MariaDB and PostgreSQL for the driver tests, and with
# --package the Debian packaging tools (tests/package/deb_test.sh).
set -euo pipefail

pkgs=(build-essential autoconf automake pkg-config libluajit-5.1-dev
      libsqlite3-dev sqlite3 libmariadb-dev libpq-dev check gnuplot-nox
      liburing-dev strace)
# prometheus (with promtool) and curl: tests/cli/metrics_tests.sh (make
# check) scrapes a run with a real Prometheus
pkgs+=(prometheus curl)
# python3-kubernetes, python3-yaml: tests/cli/k8s_example_tests.sh checks
# the Kubernetes example's manifest against the API schema offline
pkgs+=(python3-kubernetes python3-yaml)
# --package: what tests/package/deb_test.sh and scripts/chroot.sh need
# (building the .deb, lintian, a Debian 12 chroot); only for packaging.
if [ "${1:-}" = "--package" ]; then
    pkgs+=(dpkg-dev debhelper fakeroot lintian debootstrap git)
fi
if [ "${1:-}" = "--servers" ]; then
    # sysbench: 1.0.20 itself, for the scripts tests/conformance runs unmodified
    # clang with its sanitizer and libFuzzer runtimes: the CI's sanitizer
    # and fuzz stages (scripts/test.sh --asan/--tsan, scripts/fuzz.sh)
    # pdsh: tests/drivers/scale_out.sh starts the scale-out example's instances
    # with it
    # openssh-server, faketime: tests/drivers/scale_out_hosts.sh runs the
    # scale-out example over ssh to hosts in network namespaces, one with
    # a clock shifted by libfaketime
    # python3-cram: bench/regression_1020.sh (1.0.20's cram suite)
    # fio: bench/builtin.sh compares fileio with it
    pkgs+=(mariadb-server mariadb-client postgresql postgresql-client python3 sysbench
           clang libclang-rt-14-dev pdsh python3-cram fio openssh-server faketime)
fi

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" -ne 0 ] && SUDO=sudo
echo "Installing: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The prometheus package enables a system service; the tests start their
# own on a free loopback port, so the service is stopped and disabled.
if [[ " ${missing[*]} " == *" prometheus "* ]] && command -v systemctl >/dev/null 2>&1; then
    $SUDO systemctl disable --now prometheus >/dev/null 2>&1 || true
fi
