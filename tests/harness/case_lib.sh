# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# What a server case file (tests/drivers/*.sh, tests/conformance/cases/*.sh)
# sources, as `. "$SB_CASE_LIB"`: the one test library, tests/lib.sh, in
# server-case mode (no suite temporary directory nor traps of its own:
# server_tests.sh runs each file in a scratch directory of its own with
# servers.env exported and SB_BIN set). The helpers (sb_case, sb_run,
# sb_run_ok, sb_fail, sb_skip, sb_cli, sb_expect_*, sb_driver_args, ...)
# and what they do are in tests/lib.sh; tests/README.md says how to add a
# case.

# shellcheck disable=SC2034 # read by tests/lib.sh
SB_CASE_MODE=1
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
