#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerate configure and Makefile.in from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
autoreconf --install --force
