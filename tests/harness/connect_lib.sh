# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Helpers shared by the connection case files (tests/drivers/connect_setup.sh,
# connect_errors.sh, conventions.sh); sourced after case_lib.sh, whose
# directory it lives in: `. "${SB_CASE_LIB%/*}/connect_lib.sh"`. It is not
# under tests/drivers, where every *.sh is a case file.

# closed_port PORT: a port nothing listens on, the first free one above
# PORT (a harness server's).
closed_port() {
    local p=$(( $1 + 1 ))
    while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do
        p=$((p + 1))
    done
    echo "$p"
}

# Writes count_init.lua: each thread_init appends a line to inits.txt
# before it connects, so that a case can count the connections tried.
write_count_init_lua() {
    cat >count_init.lua <<'LUA'
function thread_init()
  local f = assert(io.open("inits.txt", "a"))
  f:write("x\n")
  f:close()
  con = sysbench.sql.driver():connect()
end
function event() end
LUA
}

# expect_exit_1 RC: RC (the status of an sb_run into out.txt err.txt) is
# 1, the status of a refused connection; otherwise show both and fail.
expect_exit_1() {
    if [ "$1" -ne 1 ]; then
        sb_show out.txt err.txt
        sb_fail "expected exit status 1, got $1"
        return 1
    fi
}
